"""The empty-window warning on an element type numpy knows only through ml_dtypes (bf16), in a process that has
not imported ml_dtypes: the differential test's slow run found check crashing there (TypeError from numpy's
dtype lookup) instead of warning."""
import subprocess
import sys

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

