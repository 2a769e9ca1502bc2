"""LpPool and GlobalLpPool on float32 to the bit, against onnxruntime (the random-node test feeds small integers,
whose powers and roots are exact). onnxruntime raises |x| to its integer p in double precision and rounds each
power to float32, adds them in float32 in the window's row-major order, and takes glibc's powf(sum, 1.0f / p)
(pool_base.h, LpPool::Process and Finalize). numpy's float32 power differed in the last bit for p = 3 and 4, and
sqrt from powf(sum, 0.5f) for p = 2 (once in about 100 nodes). p of 0 and below: onnxruntime runs them, OpenVINO
refuses them (but GlobalLpPool's p = 0, which it computes otherwise): check says so, run refuses them."""
import zlib

import numpy as np
import pytest

import irpool
import irpool.onnx
from bits import assert_same_bits
from onnxpeers import ort_run

ort = pytest.importorskip("onnxruntime", minversion="1.29")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

pytestmark = [pytest.mark.onnxruntime]


def _input(rng, shape):
    """Normal values at a random scale, with zeros of both signs."""
    x = (rng.standard_normal(shape) * float(rng.choice([1e-3, 1.0, 37.0]))).astype(np.float32)
    flat = x.reshape(-1)
    flat[rng.random(flat.size) < 0.1] = 0.0
    flat[rng.random(flat.size) < 0.05] = -0.0
    return x


@pytest.mark.parametrize("p", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("op", ["LpPool", "GlobalLpPool"])
def test_lp_pools_give_onnxruntimes_bits(op, p):
    rng = np.random.default_rng(zlib.crc32(f"{op}{p}".encode()))
    for _ in range(40):
        nd = int(rng.integers(1, 4))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(v) for v in rng.integers(3, 7, nd)]
        attrs = {"p": p}
        if op == "LpPool":
            attrs["kernel_shape"] = [int(rng.integers(1, 4)) for _ in range(nd)]
            attrs["strides"] = [int(rng.integers(1, 3)) for _ in range(nd)]
            if rng.random() < 0.5:
                attrs["pads"] = [int(rng.integers(0, k)) for k in attrs["kernel_shape"] * 2]
            if rng.random() < 0.5:
                attrs["ceil_mode"] = 1
        x = _input(rng, shape)
        (want,) = ort_run(op, x, attrs, 18, 1)
        (got,) = irpool.onnx.run(op, x, attrs, opset=18)
        assert got.shape == want.shape, (op, attrs, shape)
        assert_same_bits(got, want, (op, attrs, shape))


def _model(op, p) -> bytes:
    attrs = {"kernel_shape": [2, 2]} if op == "LpPool" else {}
    node = helper.make_node(op, ["x"], ["y"], name="n", p=p, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 3, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


@pytest.mark.parametrize("op, p", [("LpPool", 0), ("LpPool", -1), ("GlobalLpPool", 0), ("GlobalLpPool", -2)])
def test_a_p_of_zero_or_below_is_judged_as_the_runtimes_run_it(op, p):
    """It was a bad-attribute error ("p must be at least 1") for LpPool, which onnxruntime runs, and ok for
    GlobalLpPool, which OpenVINO refuses (p < 0) or computes otherwise (p = 0, its non-zero count)."""
    ov = pytest.importorskip("openvino")
    model = _model(op, p)
    x = np.array([[[[1.0, -2.0, 0.0], [0.0, 3.0, 0.5], [-0.0, 0.0, 4.0]]]], np.float32)
    (ort_y,) = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    try:
        ov_y = ov.Core().compile_model(ov.Core().read_model(model, b""), "CPU")({0: x})[0]
    except RuntimeError:
        ov_y = None
    codes = {f.code: f.message for f in irpool.check(model).findings}
    if ov_y is None:
        assert list(codes) == ["runtime-divergence"] and "refuses" in codes["runtime-divergence"], codes
    else:
        assert not np.array_equal(ov_y, ort_y) and list(codes) == ["value-divergence"], (ov_y, ort_y, codes)
        assert float(ov_y.reshape(-1)[0]) == np.count_nonzero(x) and np.isinf(ort_y).all()
        assert "non-zero" in codes["value-divergence"] and "inf" in codes["value-divergence"]
    with pytest.raises(irpool.IRError, match="p > 0 only"):
        irpool.onnx.run(op, x, {"p": p, **({"kernel_shape": [2, 2]} if op == "LpPool" else {})}, opset=18)
