"""A MaxPool window that holds no input element (issue 54 item 13): OpenVINO gives it the type's lowest value, and a
mean after it turns the whole model's output to -inf where onnxruntime gives numbers (its kernel drops ceil_mode's
last window). check's empty-window warning names the windows and the model output computed from them, on the .onnx
and on the IR openvino.convert_model + save_model write of it; both runtimes are run to show each claim."""
import numpy as np
import pytest

import irpool
import onnxpeers as P
from onnxpeers import h, onnx

ov = pytest.importorskip("openvino")
pytestmark = [pytest.mark.onnxruntime, pytest.mark.openvino]
LOWEST = np.finfo(np.float32).min


def _model(pool_attrs, shape, out_pool=False):
    """x -> MaxPool 'pool' -> GlobalAveragePool 'gap' -> Flatten 'flat' -> y (and the pool's own output)."""
    nodes = [h.make_node("MaxPool", ["x"], ["p"], name="pool", **pool_attrs),
             h.make_node("GlobalAveragePool", ["p"], ["g"], name="gap"),
             h.make_node("Flatten", ["g"], ["y"], name="flat")]
    outs = [h.make_tensor_value_info("y", 1, None)] + ([h.make_tensor_value_info("p", 1, None)] if out_pool else [])
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", 1, shape)], outs)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)])


def _lowest_cells(y):
    """Per spatial axis of a 4-D output, the indices where every cell is the lowest value."""
    return [sorted({int(i) for i in np.argwhere(np.all(np.moveaxis(y == LOWEST, a, -1).reshape(-1, y.shape[a]),
                                                      axis=0)).ravel()}) for a in (2, 3)]


def test_ceil_windows_past_the_input_turn_openvinos_output_to_minus_inf(tmp_path):
    attrs = dict(kernel_shape=[2, 2], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)
    x = np.random.default_rng(0).standard_normal((1, 4, 5, 5)).astype(np.float32)
    m = _model(attrs, x.shape, out_pool=True)
    ort_y, ort_p = P.ort_kernel(m, x)
    ov_y, ov_p = P.openvino(m, x)
    assert np.isfinite(ort_y).all() and np.isneginf(ov_y).all()          # the user's [-inf -inf -inf -inf]
    assert ort_p.shape == (1, 4, 3, 3) and ov_p.shape == (1, 4, 4, 4)
    assert _lowest_cells(ov_p) == [[3], [3]]        # OpenVINO's empty windows: window 3 on H and on W
    (f,) = [f for f in irpool.check(_model(attrs, x.shape).SerializeToString()).findings if f.code == "empty-window"]
    assert f.severity == "warning" and f.layer_name == "pool"
    assert "(H: window 3; W: window 3)" in f.message and "(-3.4028235e+38)" in f.message
    assert "onnxruntime's kernel has none of them" in f.message
    assert "output 'y' is computed from this layer (through GlobalAveragePool 'gap', Flatten 'flat')" in f.message
    # the IR OpenVINO converts from it: the same warning, and the same -inf when compiled
    onnx_path, xml = tmp_path / "m.onnx", tmp_path / "m.xml"
    onnx.save(_model(attrs, x.shape), onnx_path)
    ov.save_model(ov.convert_model(str(onnx_path)), str(xml))
    compiled = ov.Core().compile_model(str(xml), "CPU")
    assert np.isneginf(compiled({0: x})[compiled.outputs[0]]).all()
    (g,) = [f for f in irpool.check(xml).findings if f.code == "empty-window"]
    assert g.layer_name == "pool" and g.layer_type == "MaxPool" and "(H: window 3; W: window 3)" in g.message
    result = next(o for o in compiled.outputs).get_node().get_friendly_name()
    assert f"output {result!r} is computed from this layer" in g.message, g.message


def test_dilated_windows_in_the_padding_are_the_lowest_in_both():
    """H: 2 cells, one pad each side, taps 3 apart: the one window's taps -1 and 2 both miss the input."""
    attrs = dict(kernel_shape=[2, 1], dilations=[3, 1], pads=[1, 0, 1, 0])
    x = np.random.default_rng(1).standard_normal((1, 2, 2, 3)).astype(np.float32)
    m = _model(attrs, x.shape, out_pool=True)
    ort_p, ov_p = P.ort_kernel(m, x)[1], P.openvino(m, x)[1]
    assert ort_p.shape == (1, 2, 1, 3) and ort_p.tobytes() == ov_p.tobytes() and (ort_p == LOWEST).all()
    (f,) = [f for f in irpool.check(_model(attrs, x.shape).SerializeToString()).findings if f.code == "empty-window"]
    assert "(H: window 0)" in f.message and "onnxruntime's kernel gives them the same value" in f.message


def test_no_warning_where_every_window_holds_an_element():
    attrs = dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)      # the last window starts inside the input
    x = np.random.default_rng(2).standard_normal((1, 1, 5, 5)).astype(np.float32)
    m = _model(attrs, x.shape, out_pool=True)
    assert not (P.openvino(m, x)[1] == LOWEST).any()
    assert not [f for f in irpool.check(_model(attrs, x.shape).SerializeToString()).findings
                if f.code == "empty-window"]


def test_empty_windows_match_a_window_by_window_count():
    """empty.empty_windows reasons about where a window starts; here every window's taps are enumerated."""
    import random

    from irpool.core.shape import AxisPlan
    from irpool.empty import MOST_LISTED, empty_windows
    rng = random.Random(1)
    for _ in range(5000):
        length, k, s, d = rng.randint(1, 9), rng.randint(1, 4), rng.randint(1, 4), rng.randint(1, 4)
        pb, out = rng.randint(0, 6), rng.randint(1, 8)
        want = [o for o in range(out) if not any(0 <= o * s - pb + t * d < length for t in range(k))]
        got = empty_windows([AxisPlan("H", length, k, s, d, pb, 0, out, "")])
        assert (got[0][1:] if got else ([], 0)) == (want[:MOST_LISTED], len(want))


def test_an_output_reached_through_an_if_branch_is_named():
    """The pool's output read from the outer scope inside an If's branches reaches the model's output through the If
    (crash hunt 3 found "no model output is computed from this layer"). OpenVINO's value there is the lowest-value
    cell averaged in, onnxruntime's a number: checked on this machine where both are installed."""
    from onnx import TensorProto, helper
    vi = helper.make_tensor_value_info
    pool = helper.make_node("MaxPool", ["x"], ["t0"], name="pool", kernel_shape=[2], strides=[2], pads=[1, 1],
                            ceil_mode=1)
    branch = [helper.make_graph([helper.make_node(op, ["t0"], [z], axes=[2], keepdims=1)], z, [],
                                [vi(z, TensorProto.FLOAT, [1, 1, 1])]) for op, z in (("ReduceMean", "z"), ("ReduceMax", "w"))]
    node = helper.make_node("If", ["cond"], ["y"], name="if", then_branch=branch[0], else_branch=branch[1])
    graph = helper.make_graph([pool, node], "g", [vi("x", TensorProto.FLOAT, [1, 1, 5]), vi("cond", TensorProto.BOOL, [])],
                              [vi("y", TensorProto.FLOAT, [1, 1, 1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    (f,) = [f for f in irpool.check(model).findings if f.code == "empty-window"]
    assert "the model's output 'y' is computed from this layer (through If 'if')" in f.message, f.message
    ov = pytest.importorskip("openvino")
    x = np.arange(5, dtype=np.float32).reshape(1, 1, 5)
    y = ov.Core().compile_model(ov.Core().read_model(model, b""), "CPU")({"x": x, "cond": np.array(True)})[0]
    assert y.ravel()[0] < -1e37
