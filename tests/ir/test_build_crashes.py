"""Layers read_model crashes building (schemas/openvino.json "build_crashes"): check says so exactly where
read_model, run in a child process, ends with a signal, and says nothing of the same layers where it reads the
file or refuses it with an exception (another version of the op, a variable_id written, enough inputs, a layer
that no Result depends on: a warning)."""
import subprocess
import sys

import pytest

import irpool

pytest.importorskip("openvino")
pytestmark = [pytest.mark.openvino, pytest.mark.reader]

_CHILD = """
import sys, openvino as ov
try:
    ov.Core().read_model(sys.argv[1])
except Exception as e:
    print(" ".join(str(e).split())[-200:])
"""

_P = ('<layer id="{id}" name="p{id}" type="Parameter" version="opset1"><data shape="1" element_type="f32"/>'
      '<output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>')


def _net(op, version, inputs, data, used=True, ir="11"):
    params = "".join(_P.format(id=10 + i) for i in range(inputs))
    ports = "".join(f'<port id="{i}" precision="FP32"><dim>1</dim></port>' for i in range(inputs))
    edges = "".join(f'<edge from-layer="{10 + i}" from-port="0" to-layer="0" to-port="{i}"/>' for i in range(inputs))
    result = (f'<edge from-layer="0" from-port="{inputs}" to-layer="1" to-port="0"/>' if used else
              '<edge from-layer="10" from-port="0" to-layer="1" to-port="0"/>')
    if not used and not inputs:
        params = _P.format(id=10)
    return (f'<?xml version="1.0"?>\n<net name="t" version="{ir}"><layers>{params}'
            f'<layer id="0" name="x" type="{op}" version="{version}">{data}'
            f'{f"<input>{ports}</input>" if inputs else ""}<output><port id="{inputs}" precision="FP32"><dim>1</dim>'
            '</port></output></layer><layer id="1" name="y" type="Result" version="opset1"><input><port id="0"'
            f' precision="FP32"><dim>1</dim></port></input></layer></layers><edges>{edges}{result}</edges></net>')


CASES = [("Broadcast", "opset1", 0, ""), ("Broadcast", "opset2", 1, '<data mode="numpy"/>'),
         ("broadcast", "opset1", 1, ""), ("Broadcast", "opset1", 2, ""), ("Broadcast", "opset3", 0, ""),
         ("Broadcast", "opset3", 1, ""),
         ("ReadValue", "opset6", 0, ""), ("ReadValue", "opset16", 1, "<data/>"), ("READVALUE", "opset9", 0, ""),
         ("ReadValue", "opset6", 0, '<data variable_id="v"/>'), ("ReadValue", "opset6", 0, '<data variable_id=""/>'),
         ("ReadValue", "opset3", 0, ""),
         ("Assign", "opset6", 0, '<data variable_type="f32" variable_shape="1"/>'), ("Assign", "opset13", 1, ""),
         ("Assign", "opset6", 0, '<data variable_id="v"/>'), ("Assign", "opset3", 0, "")]


@pytest.mark.parametrize("ir", ["11", "10"])
@pytest.mark.parametrize("op, version, inputs, data", CASES)
def test_check_says_where_read_model_crashes(op, version, inputs, data, ir, tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(_net(op, version, inputs, data, ir=ir))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True)
    crashed = done.returncode < 0
    said = [f for f in irpool.check(path).findings if "read_model crashes building it" in f.message]
    assert bool(said) == crashed, (done.returncode, done.stdout[-200:], [str(f) for f in said])
    if said:
        assert said[0].severity == "error" and said[0].layer_id == "0"


@pytest.mark.parametrize("op, version", [("Broadcast", "opset1"), ("ReadValue", "opset6")])
def test_a_layer_read_model_does_not_build_is_not_a_crash(op, version, tmp_path):
    """No Result depends on it: read_model never builds it and reads the file; check has no error (an `unbuilt`
    warning says what would crash if a Result came to depend on it)."""
    path = tmp_path / "m.xml"
    path.write_text(_net(op, version, 0, "", used=False))
    done = subprocess.run([sys.executable, "-c", _CHILD, str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-300:]
    said = [f for f in irpool.check(path).findings if "read_model crashes" in f.message]
    assert [f.code for f in said] == ["unbuilt"] and said[0].severity == "warning", [str(f) for f in said]
