"""A graph that declares a pooling node's output twice (graph.output listing Y twice, or value_info and graph.output):
onnxruntime reads the first entry and onnx's checker the last, so a wrong one is wrong for one of them, and check
judges both. Dims from the spec: floor((4 - 2) / 2) + 1 = 2; the checker's verdict on the last entry is the
independent one. A later entry's element type is not onnxruntime's refusal: it runs the model (measured here)."""
import numpy as np
import pytest

import irpool

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

pytestmark = [pytest.mark.onnx]


def _model(entries, where="output"):
    """MaxPool 2x2/2 on [1,3,4,4]: Y declared with each of `entries` ((H, element type)), in graph.output, or the
    first in value_info and the rest in graph.output."""
    node = helper.make_node("MaxPool", ["X"], ["Y"], kernel_shape=[2, 2], strides=[2, 2])
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 3, 4, 4])
    ys = [helper.make_tensor_value_info("Y", t, [1, 3, h, h]) for h, t in entries]
    info, outs = (ys[:1], ys[1:]) if where == "value_info" else ([], ys)
    g = helper.make_graph([node], "g", [x], outs, value_info=info)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def _checker_refuses(m) -> bool:
    try:
        onnx.checker.check_model(m, full_check=True)
    except onnx.shape_inference.InferenceError:       # (the inferred shape differs from the entry it read)
        return True
    return False


F = TensorProto.FLOAT


@pytest.mark.parametrize("entries,where", [([(2, F), (3, F)], "output"), ([(3, F), (2, F)], "output"),
                                           ([(3, F), (3, F)], "output"), ([(2, F), (2, F)], "output"),
                                           ([(2, F), (3, F)], "value_info"), ([(3, F), (2, F)], "value_info")])
def test_every_declaration_of_a_pools_output_is_judged(tmp_path, entries, where):
    m = _model(entries, where)
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    wrong = [h != 2 for h, _ in entries]
    if where == "output":
        assert _checker_refuses(m) is wrong[-1]
    report = irpool.check(str(path))
    said = [f for f in report.findings if f.code == "shape-mismatch"]
    assert len(said) == sum(wrong), report.findings
    assert all("declared 3" in f.message for f in said)
    assert [("declared again later" in f.message) for f in said] == [k > 0 for k, w in enumerate(wrong) if w]


def test_a_later_entry_of_another_type_is_not_a_refusal(tmp_path):
    ort = pytest.importorskip("onnxruntime")
    m = _model([(2, F), (2, TensorProto.INT64)])
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert s.run(None, {"X": np.zeros((1, 3, 4, 4), np.float32)})[0].dtype == np.float32
    report = irpool.check(str(path))
    assert not [f for f in report.findings if f.severity == "error"], report.findings
