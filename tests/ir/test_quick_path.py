"""check's quick path (intake.Intake.quick: a layer only whose ports matter, taken in one step) says exactly what
the full reader says, on files as OpenVINO writes them and on every way a hand breaks such a layer that the quick
path must hand over: the full path is the slow reference here (the one the OpenVINO comparisons judge)."""
import importlib
import pathlib

import pytest

import irpool

pytestmark = [pytest.mark.reference]

intake = importlib.import_module("irpool.ir.check.intake")
EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"


def _dims(ds):
    return "".join(f"<dim>{d}</dim>" for d in ds)


NET = f"""<?xml version="1.0"?>
<net name="n" version="11">
\t<layers>
\t\t<layer id="0" name="x" type="Parameter" version="opset1">
\t\t\t<data shape="1,3,8,8" element_type="f32"/>
\t\t\t<output><port id="0" precision="FP32" names="x">{_dims([1, 3, 8, 8])}</port></output>
\t\t</layer>
\t\t<layer id="1" name="w" type="Const" version="opset1">
\t\t\t<data element_type="f32" shape="4,3,1,1" offset="0" size="48"/>
\t\t\t<output><port id="0" precision="FP32">{_dims([4, 3, 1, 1])}</port></output>
\t\t</layer>
\t\t<layer id="2" name="conv" type="Convolution" version="opset1">
\t\t\t<data strides="1,1" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit"/>
\t\t\t<input><port id="0" precision="FP32">{_dims([1, 3, 8, 8])}</port>
\t\t\t<port id="1" precision="FP32">{_dims([4, 3, 1, 1])}</port></input>
\t\t\t<output><port id="2" precision="FP32" names="c">{_dims([1, 4, 8, 8])}</port></output>
\t\t</layer>
\t\t<layer id="3" name="relu" type="ReLU" version="opset1">
\t\t\t<input><port id="0" precision="FP32">{_dims([1, 4, 8, 8])}</port></input>
\t\t\t<output><port id="1" precision="FP32" names="r">{_dims([1, 4, 8, 8])}</port></output>
\t\t</layer>
\t\t<layer id="4" name="pool" type="MaxPool" version="opset1">
\t\t\t<data strides="2,2" pads_begin="0,0" pads_end="0,0" kernel="2,2" rounding_type="floor" auto_pad="explicit"/>
\t\t\t<input><port id="0" precision="FP32">{_dims([1, 4, 8, 8])}</port></input>
\t\t\t<output><port id="1" precision="FP32" names="p">{_dims([1, 4, 4, 4])}</port></output>
\t\t</layer>
\t\t<layer id="5" name="out" type="Result" version="opset1">
\t\t\t<input><port id="0" precision="FP32">{_dims([1, 4, 4, 4])}</port></input>
\t\t</layer>
\t</layers>
\t<edges>
\t\t<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
\t\t<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>
\t\t<edge from-layer="2" from-port="2" to-layer="3" to-port="0"/>
\t\t<edge from-layer="3" from-port="1" to-layer="4" to-port="0"/>
\t\t<edge from-layer="4" from-port="1" to-layer="5" to-port="0"/>
\t</edges>
</net>
"""

# each a (what, old, new) edit of NET: a layer the quick path takes, broken as a hand or a tool breaks it
EDITS = [
    ("as written", "", ""),
    ("an odd dim", '<dim>8</dim></port></input>\n\t\t\t<output><port id="1" precision="FP32" names="r">',
     '<dim>8abc</dim></port></input>\n\t\t\t<output><port id="1" precision="FP32" names="r">'),
    ("a dim that is no number", 'names="c"><dim>1</dim>', 'names="c"><dim>?</dim>'),
    ("an empty dim", 'names="r"><dim>1</dim>', 'names="r"><dim/>'),
    ("a dim past int64", 'names="c"><dim>1</dim>', 'names="c"><dim>99999999999999999999</dim>'),
    ("a Const element_type OpenVINO refuses", 'element_type="f32" shape="4,3', 'element_type="FP32 " shape="4,3'),
    ("a Const element_type in capitals", 'element_type="f32" shape="4,3', 'element_type="F32" shape="4,3'),
    ("a Const without element_type", 'element_type="f32" shape="4,3', 'shape="4,3'),
    ("a Const of two outputs", f'<output><port id="0" precision="FP32">{_dims([4, 3, 1, 1])}</port></output>',
     f'<output><port id="0" precision="FP32">{_dims([4, 3, 1, 1])}</port><port id="1" precision="FP32"/></output>'),
    ("a Const with an input", 'size="48"/>\n\t\t\t<output>',
     'size="48"/>\n\t\t\t<input><port id="9"/></input><output>'),
    ("a layer without a name", 'name="relu" ', ""),
    ("a layer without a version", 'type="ReLU" version="opset1"', 'type="ReLU"'),
    ("an id written 01", '<layer id="3" name="relu"', '<layer id="03" name="relu"'),
    ("an id that is no number", '<layer id="3" name="relu"', '<layer id="r3" name="relu"'),
    ("a duplicate id", '<layer id="3" name="relu"', '<layer id="2" name="relu"'),
    ("a port without id", '<port id="1" precision="FP32" names="r">', '<port precision="FP32" names="r">'),
    ("an output precision OpenVINO refuses", 'precision="FP32" names="r"', 'precision="fp32" names="r"'),
    ("a port's rt_info", 'names="c"><dim>1</dim>',
     'names="c"><rt_info><attribute name="layout" value="[N,C,H,W]"/></rt_info><dim>1</dim>'),
    ("a second output section", '<output><port id="1" precision="FP32" names="r">',
     '<output/><output><port id="1" precision="FP32" names="r">'),
    ("a port id twice", '<port id="1" precision="FP32">' + _dims([4, 3, 1, 1]),
     '<port id="0" precision="FP32">' + _dims([4, 3, 1, 1])),
    ("a type the full reader folds (ShapeOf)", 'type="ReLU"', 'type="ShapeOf"'),
    ("a pooling type in other case", 'type="MaxPool"', 'type="maxpool"'),
    ("a text in a port", 'names="r"><dim>1</dim>', 'names="r">x<dim>1</dim>'),
    ("a dim of a digit not ASCII", 'names="c"><dim>1</dim>', 'names="c"><dim>\u0661</dim>'),
    ("a dim after a no-break space", 'names="c"><dim>1</dim>', 'names="c"><dim>\u00a01</dim>'),
    ("a dim of 2^63", 'names="c"><dim>1</dim>', f'names="c"><dim>{2 ** 63}</dim>'),
    ("an id written +3", '<layer id="3" name="relu"', '<layer id="+3" name="relu"'),
    ("a port id written 01", '<port id="1" precision="FP32" names="r">', '<port id="01" precision="FP32" names="r">'),
    ("a type with a blank", 'type="ReLU"', 'type="ReLU "'),
    ("an empty type", 'type="ReLU"', 'type=""'),
    ("a version with a blank", 'type="ReLU" version="opset1"', 'type="ReLU" version=" opset1"'),
    ("a version in capitals", 'type="ReLU" version="opset1"', 'type="ReLU" version="OPSET1"'),
    ("a version an extension may bring", 'type="ReLU" version="opset1"', 'type="ReLU" version="custom"'),
    ("a Const without <data>", '<data element_type="f32" shape="4,3,1,1" offset="0" size="48"/>', ""),
    ("a Const offset spelled otherwise", 'offset="0" size="48"', 'offset="0 " size="48"'),
    ("a Const shape spelled otherwise", 'shape="4,3,1,1" offset', 'shape="4,3,1,1," offset'),
]


def _said(report):
    return sorted((f.code, f.severity, f.line, f.message, f.layer_id, f.layer_name, f.layer_type, str(f.fix))
                  for f in report.findings), report.summary


def _full_path(monkeypatch):
    monkeypatch.setattr(intake.Intake, "quick", lambda self, el, plain: False)


@pytest.mark.parametrize("what, old, new", EDITS, ids=[e[0] for e in EDITS])
def test_the_quick_path_says_what_the_full_reader_says(what, old, new, monkeypatch):
    assert old in NET
    xml = NET.replace(old, new, 1)
    assert (xml != NET) == (what != "as written")
    try:
        quick = _said(irpool.check(xml))
    except irpool.IRError as e:
        quick = ("refused", str(e))
    with monkeypatch.context() as m:
        _full_path(m)
        try:
            full = _said(irpool.check(xml))
        except irpool.IRError as e:
            full = ("refused", str(e))
    assert quick == full


@pytest.mark.parametrize("name", ["small_net.xml", "torch_pools.xml", "mo2021_pools.xml"])
def test_the_quick_path_on_the_examples(name, monkeypatch):
    quick = _said(irpool.check(EXAMPLES / name))
    _full_path(monkeypatch)
    assert _said(irpool.check(EXAMPLES / name)) == quick


def test_the_quick_path_is_taken():
    """The layers it exists for do take it (else the test above compares the full path with itself)."""
    taken = []
    original = intake.Intake.quick

    def counting(self, el, plain):
        ok = original(self, el, plain)
        taken.append((el.get("type"), ok))
        return ok
    intake.Intake.quick = counting
    try:
        irpool.check(NET)
    finally:
        intake.Intake.quick = original
    assert set(taken) == {("Parameter", False), ("Const", True), ("Convolution", True), ("ReLU", True),
                          ("MaxPool", False), ("Result", False)}
