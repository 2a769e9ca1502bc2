"""The empty-window warning names the model outputs computed from the empty windows (graph_verdicts.with_reach): a
Result the pool reaches through other layers is named, a pool no Result depends on says so. Which Results a pool
reaches is the net's own wiring, written here by hand; what OpenVINO puts in the window, its CPU plugin on this
machine."""
import numpy as np
import pytest

import irpool

pytestmark = [pytest.mark.spec]


def _port(pid, dims):
    return f'<port id="{pid}" precision="FP32">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def _pool(lid, name):
    """Length 4, kernel 1, stride 2, pads 0 and 1, ceil: 3 windows, the third (cell 4) past the input."""
    return (f'<layer id="{lid}" name="{name}" type="MaxPool" version="opset1"><data strides="2,2" pads_begin="0,0"'
            f' pads_end="1,1" kernel="1,1" rounding_type="ceil" auto_pad="explicit"/><input>{_port(0, [1, 1, 4, 4])}'
            f"</input><output>{_port(1, [1, 1, 3, 3])}</output></layer>\n")


def _net() -> str:
    """x -> p1 -> Relu -> Result 'out'; x -> p2, which no Result depends on."""
    layers = [f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,1,4,4" element_type="f32"/>'
              f"<output>{_port(0, [1, 1, 4, 4])}</output></layer>\n", _pool(1, "p1"), _pool(2, "p2"),
              f'<layer id="3" name="relu" type="Relu" version="opset1"><input>{_port(0, [1, 1, 3, 3])}</input>'
              f"<output>{_port(1, [1, 1, 3, 3])}</output></layer>\n",
              f'<layer id="4" name="out" type="Result" version="opset1"><input>{_port(0, [1, 1, 3, 3])}</input>'
              "</layer>\n"]
    edges = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>\n'
                    for a, b, c, d in ((0, 0, 1, 0), (0, 0, 2, 0), (1, 1, 3, 0), (3, 1, 4, 0)))
    return f'<?xml version="1.0"?>\n<net name="n" version="11">\n<layers>\n{"".join(layers)}</layers>\n' \
           f"<edges>\n{edges}</edges>\n</net>\n"


def test_the_warning_names_the_results_the_pool_reaches():
    found = {f.layer_name: f for f in irpool.check(_net()).findings}
    assert sorted(found) == ["p1", "p2"] and {f.code for f in found.values()} == {"empty-window"}
    assert "(H: window 2; W: window 2)" in found["p1"].message
    assert "; the model's output 'out' is computed from this layer" in found["p1"].message
    assert found["p2"].message.endswith("; no model output is computed from this layer")


@pytest.mark.openvino
def test_openvino_puts_the_lowest_value_in_the_window_that_reaches_out():
    """The warning's claim for p1, on this machine's CPU plugin: row 2 and column 2 of 'out' are float32's lowest
    value (Relu of it is 0), the others the input's cells 0 and 2 (kernel 1)."""
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    model = core.read_model(_net().encode(), ov.Tensor(np.empty(0, np.uint8)))
    pool = next(op for op in model.get_ops() if op.get_friendly_name() == "p1")
    probe = ov.Model([pool.output(0)], [model.get_parameters()[0]])
    x = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
    got = core.compile_model(probe, "CPU").infer_new_request([x])[0]
    lowest = np.finfo(np.float32).min
    expected = np.full((1, 1, 3, 3), lowest, np.float32)
    expected[0, 0, :2, :2] = x[0, 0, ::2, ::2]
    assert got.tobytes() == expected.tobytes()
