"""The empty-window warning on an element type numpy knows only through ml_dtypes (bf16), in a process that has
not imported ml_dtypes: the differential test's slow run found check crashing there (TypeError from numpy's
dtype lookup) instead of warning."""
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.spec]

LAYER = """<layer id="1" name="p" type="MaxPool" version="opset8"><data strides="2" dilations="1" pads_begin="0"
 pads_end="2" kernel="2" rounding_type="floor" auto_pad="explicit" index_element_type="i64" axis="0"/><input>
<port id="0" precision="{p}"><dim>1</dim><dim>2</dim><dim>4</dim></port></input><output><port id="1"
 precision="{p}"><dim>1</dim><dim>2</dim><dim>3</dim></port><port id="2" precision="I64"><dim>1</dim><dim>2</dim>
<dim>3</dim></port></output></layer>"""


@pytest.mark.parametrize("precision", ["BF16", "FP32"])
def test_a_window_past_the_input_is_said_on_any_type(precision):
    """Length 4, kernel 2, stride 2, pads 0 and 2: the third window, cells 4..5, holds no input element."""
    code = ("import sys, irpool; r = irpool.check(sys.argv[1]); "
            "print(sorted({f.code for f in r.findings}), 'ml_dtypes' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code, LAYER.format(p=precision)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    codes, _ = r.stdout.rsplit(" ", 1)
    assert "'empty-window'" in codes, r.stdout


def _bf16_run(model, x):
    """OpenVINO's output of a bf16 model (f32 hint, what run computes), as uint16 bits."""
    import openvino as ov
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    t = ov.Tensor(ov.Type.bf16, list(x.shape))
    t.data.view(np.uint16)[...] = x.view(np.uint16)
    request = compiled.create_infer_request()
    request.set_input_tensor(0, t)
    request.infer()
    return request.get_output_tensor(0).data.view(np.uint16).copy()


@pytest.mark.parametrize("case", ["empty", "all -inf", "padded -inf", "reduce -inf"])
def test_bf16_empty_windows_and_reduce_identity_are_the_plugins(case, tmp_path):
    """On a CPU where the plugin pools bf16 natively, a MaxPool window with no input cell gives bf16's lowest,
    0xff7f, where a window of -inf taps gives -inf; a ReduceMax of -inf gives 0xff7f too (irpool gave -inf for both
    0xff7f cases: stop 61's differential run). Compared with the plugin on this machine, whatever its CPU."""
    ov = pytest.importorskip("openvino")
    ml = pytest.importorskip("ml_dtypes")
    import irpool
    import openvino.opset1 as o1
    from irpool import cpu
    if not cpu.for_run().native("bf16"):
        pytest.skip("bf16 is not pooled natively on this CPU: its rule is not measured (cpu-records)")
    x = {"empty": [1, 2, 3, 4, 5, 6], "all -inf": [-np.inf, -np.inf, 1.0, -np.inf],
         "padded -inf": [-np.inf, -np.inf], "reduce -inf": [-np.inf, -np.inf, -np.inf]}[case]
    x = np.array(x, np.float32).astype(ml.bfloat16).reshape(1, 1, -1)
    p = o1.parameter(list(x.shape), ov.Type.bf16, name="x")
    if case == "reduce -inf":
        node = o1.reduce_max(p, o1.constant(np.array([2], np.int64)), True)
    else:
        k, s, pads, rounding = {"empty": (1, 2, 0, "ceil"), "all -inf": (2, 2, 0, "floor"),
                                "padded -inf": (2, 1, 1, "floor")}[case]
        node = o1.max_pool(p, [s], [pads], [pads], [k], rounding_type=rounding)
    node.set_friendly_name("pool")
    model = ov.Model([node.output(0)], [p])
    ov.save_model(model, str(tmp_path / "m.xml"))
    got = next(iter(irpool.run(tmp_path / "m.xml", x, layer="pool").values()))
    assert np.asarray(got).view(np.uint16).tolist() == _bf16_run(model, x).tolist()
