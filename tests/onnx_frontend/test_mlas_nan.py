"""A float MaxPool without Indices runs MLAS in onnxruntime: its 2-D and 3-D kernels let a NaN, or a smaller tap after
a NaN in its vector lane, win a window (x86's maxps gives its second operand where either is NaN), on AVX-512 too;
its 1-D kernel and OpenVINO never let NaN win. check's value-divergence names the 2-D and 3-D nodes (stop 61's two
helpers found check quiet and run --against calling the difference undocumented)."""
import numpy as np
import pytest

import irpool

ort = pytest.importorskip("onnxruntime")
ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

pytestmark = [pytest.mark.onnxruntime, pytest.mark.openvino]


def _model(nd, elem, kernel=3, stride=2):
    dims = [1, 3] + [7] * nd
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[kernel] * nd, strides=[stride] * nd)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, dims)],
                              [helper.make_tensor_value_info("y", elem, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]).SerializeToString(), dims


@pytest.mark.parametrize("nd, kernel, stride", [(1, 3, 2), (1, 7, 1), (2, 3, 2), (3, 3, 2)])
@pytest.mark.parametrize("elem, dtype", [(TensorProto.FLOAT, np.float32), (TensorProto.FLOAT16, np.float16)])
def test_mlas_nan_is_said_where_the_runtimes_differ_on_nan(nd, kernel, stride, elem, dtype):
    """(1, 7, 1): a 1-D window over the whole input at stride 1 runs MLAS's global kernel (stop 61's review)."""
    model, dims = _model(nd, elem, kernel, stride)
    rng = np.random.default_rng(nd)
    session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    compiled = ov.Core().compile_model(ov.Core().read_model(model, b""), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    differ = False
    for _ in range(10):
        x = rng.standard_normal(dims).astype(dtype)
        x[rng.random(dims) < 0.3] = np.nan
        (theirs,) = session.run(None, {"x": x})
        ours = compiled({0: x})[0]
        assert not np.isnan(ours).any()                 # OpenVINO never lets NaN win
        differ |= not np.array_equal(theirs, ours, equal_nan=True)
    found = [f for f in irpool.check(model).findings if f.code == "value-divergence"]
    assert differ == (nd > 1 or kernel == 7) and bool(found) == differ, ([str(f) for f in found], differ)
    assert not found or "MLAS kernels let a NaN" in found[0].message
