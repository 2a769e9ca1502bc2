"""Layer ids, port ids and edge ends as read_model reads them (irpool/ir/read/ids.py): numbers, so "03", "+3", " 3"
name layer 3 and "3 ", "-3", "٣", 2^63 make it refuse the file; and the other values a hand spells otherwise (a
pool's ints, dims, a Parameter's shape, the net's version, a layer's type and version), which C++ reads with ASCII
blanks and ASCII digits only. Each spelling is written into a small net (irbuild.small_net: at a
layer's id and the edges naming it, at one of them alone, at a port's id and the edge naming it, at one of them
alone) and given to read_model: check must refuse exactly the files read_model refuses, and say of the others
what it says of the net written plainly. Measured with OpenVINO 2026.4.1 on AMD EPYC family 26 model 2 (avx512f);
the reader's rules do not depend on the CPU."""
import numpy as np
import pytest

import irpool
from irbuild import small_net as net


SPELLINGS = ["03", "+3", " 3", "&#9;3", "+0003", "3 ", "-3", "\u0663", "\uff13", "3a", "0x3", "", "3.0", "1e2",
             str(2 ** 31), str(2 ** 63 - 1), str(2 ** 63), str(2 ** 64 - 1), str(2 ** 64), "9" * 23]
PLACES = {
    "layer and edges": lambda t: net(relu=t),
    "layer only": lambda t: net(relu=t, to="3", frm="3"),
    "edges only": lambda t: net(to=t, frm=t),
    "port and edge": lambda t: net(port=t.replace("3", "1")),
    "port only": lambda t: net(port=t.replace("3", "1"), fp="1"),
    "edge's port only": lambda t: net(fp=t.replace("3", "1")),
    "pool everywhere": lambda t: net(pool=t.replace("3", "4")),
}
OTHERS = {
    "3 and 03 (one id twice)": net().replace('id="5" name="out"', 'id="03" name="out"').replace('to-layer="5"',
                                                                                             'to-layer="03"'),
    "-0 (id 0 twice)": net(relu="-0"),
    "05 everywhere": net().replace('id="5" name="out"', 'id="05" name="out"').replace('to-layer="5"', 'to-layer="05"'),
}


def _cases():
    for place, make in PLACES.items():
        for t in SPELLINGS:
            yield pytest.param(make(t), id=f"{place}: {t!r}")
    for name, xml in OTHERS.items():
        yield pytest.param(xml, id=name)


def _errors(xml) -> list:
    return [f.code for f in irpool.check(xml).findings if f.severity == "error"]


@pytest.mark.openvino
@pytest.mark.reader
@pytest.mark.parametrize("xml", list(_cases()))
def test_check_refuses_the_ids_read_model_refuses(xml):
    ov = pytest.importorskip("openvino")
    try:
        ov.Core().read_model(xml.encode(), ov.Tensor(ov.Type.u8, [48]))
        refused = None
    except RuntimeError as e:
        refused = str(e)
    report = irpool.check(xml)
    errors = [f for f in report.findings if f.severity == "error"]
    if refused is None:     # read as the plain net: what check says of that, it says of this
        plain = irpool.check(net())
        assert [(f.code, f.severity) for f in report.findings] == [(f.code, f.severity) for f in plain.findings]
        assert report.summary == plain.summary
    else:
        assert errors, f"read_model refuses the file ({' '.join(refused.split())[-160:]}) and check says ok"
        for words in ("stoll", "which is not an unsigned 64 bit integer"):   # refused for an id: said so, in its words
            if words in refused:
                assert any(f.code == "bad-structure" and words in f.message for f in errors), refused


_POOL_DATA = '<data strides="2,2" pads_begin="0,0" pads_end="0,0" kernel="2,2"'
_RELU_OUT = '<output><port id="{port}" precision="FP32"><dim>1</dim><dim>4</dim><dim>8</dim><dim>8</dim>'
_CONST_OUT = '<output><port id="0" precision="FP32"><dim>4</dim>'


def _spelled(where: str, text: str) -> str:
    """The net with one value spelled `text` (the same number or name, written otherwise)."""
    base = net()
    if where in ("kernel", "strides", "pads_begin"):
        return base.replace(_POOL_DATA, _POOL_DATA.replace(f'{where}="{"0,0" if where == "pads_begin" else "2,2"}"',
                                                           f'{where}="{text}"'))
    if where == "relu dim":
        out = _RELU_OUT.format(port=1)
        return base.replace(out, out[:-len("<dim>8</dim>")] + f"<dim>{text}</dim>")
    if where == "const dim":
        return base.replace(_CONST_OUT, _CONST_OUT.replace("<dim>4</dim>", f"<dim>{text}</dim>"))
    if where in ("const offset", "const size", "const shape"):      # the weights' <data>
        name = where.split()[1]
        old = {"offset": 'offset="0"', "size": 'size="48"', "shape": 'shape="4,3,1,1"'}[name]
        return base.replace(old, f'{name}="{text}"' if text is not None else "", 1)
    if where == "parameter shape":
        return base.replace('shape="1,3,8,8"', f'shape="{text}"')
    if where == "net version":
        return base.replace('<net name="n" version="11">', f'<net name="n" version="{text}">')
    if where in ("pool version", "relu version"):
        old = 'name="pool" type="MaxPool" version="opset1"' if where == "pool version" else \
            'name="relu" type="ReLU" version="opset1"'
        return base.replace(old, old.replace('"opset1"', f'"{text}"'))
    old = {"pool type": 'name="pool" type="MaxPool"', "relu type": 'name="relu" type="ReLU"',
           "const type": 'name="w" type="Const"'}[where]
    return base.replace(old, old.split(" type=")[0] + f' type="{text}"')


# what read_model reads as C++ reads a number (ASCII blanks, ASCII digits) or a name (as written), each written
# otherwise: a blank that is not ASCII, a digit that is not ASCII, a sign, a blank where a name has none; None:
# the attribute left out
SPELLED = {
    "kernel": [" 2,2", "2, 2", "2,2 ", "&#9;2,2", "\u00a02,2", "2,\u20032", "\u0662,2", "2\u00a0,2", "+2,2"],
    "strides": ["\u00a02,2", "\u0662,2", "2 ,2"],
    "pads_begin": ["\u00a00,0", "\u0660,0", "0, 0", "+0,0"],
    "relu dim": [" 8", "8 ", "\u00a08", "\u0668", "\uff18", "8\u00a0", "+8", "08", str(2 ** 63)],
    "const dim": ["\u00a04", "\u0664", " 4"],
    "const offset": ["0 ", " 0", "+0", "-0", "00", "\u0660", None],
    "const size": ["48 ", "048", "48&#9;", None],
    "const shape": ["4,3,1,1 ", "4,3,1,1,", "\u0664,3,1,1", " 4,3,1,1", None],
    "parameter shape": [" 1,3,8,8", "1, 3,8,8", "\u00a01,3,8,8", "\u0661,3,8,8", "1,3,8,8\u00a0", "1,3,8,\uff18",
                        "[1,3,8,8]"],
    "net version": ["11 ", " 11", "&#9;11", "\u0661\u0661", "+11", "011", "11.0", "\u00a011", "11\u00a0"],
    "pool version": [" opset1", "opset1 ", "&#9;opset1", "\u00a0opset1"],
    "relu version": [" opset1", "opset1&#9;", "\u00a0opset1", "OPSET1", "opset01", "opset0", "opset18", "opset16",
                     "+opset1", "-1", "\u0663"],
    "pool type": ["MaxPool ", " MaxPool", "Max Pool", "MaxPool,", "", "maxpool", "MAXPOOL", "\u00a0MaxPool"],
    "relu type": ["ReLU ", "", "relu", "+ReLU", "2.0", "\u0663", "Re\u00adLU"],
    "const type": ["const", "CONST"],
}


@pytest.mark.openvino
@pytest.mark.reader
@pytest.mark.parametrize("xml", [pytest.param(_spelled(w, t), id=f"{w}: {t!r}") for w, ts in SPELLED.items()
                                 for t in ts])
def test_check_refuses_the_spellings_read_model_refuses(xml):
    ov = pytest.importorskip("openvino")
    assert xml != net()
    try:
        ov.Core().read_model(xml.encode(), ov.Tensor(ov.Type.u8, [48]))
        refused = None
    except RuntimeError as e:
        refused = " ".join(str(e).split())[-160:]
    try:
        errors = _errors(xml)
    except irpool.IRError as e:          # (the API refuses a <net> version outright)
        errors = [e.code]
    assert bool(errors) == bool(refused), (refused, errors)


@pytest.mark.openvino
@pytest.mark.reader
@pytest.mark.parametrize("version", ["custom", "extension", "experimental"])
def test_a_version_no_opset_has_is_a_warning_where_an_extension_may_bring_it(version):
    """read_model (no extension loaded) refuses it; an extension could register it, which check cannot know."""
    ov = pytest.importorskip("openvino")
    xml = _spelled("relu version", version)
    with pytest.raises(RuntimeError, match="unsupported opset"):
        ov.Core().read_model(xml.encode(), ov.Tensor(ov.Type.u8, [48]))
    said = [(f.code, f.severity) for f in irpool.check(xml).findings]
    assert said == [("extension-opset", "warning")]


_ORPHAN = ('<layer id="9" name="c9" type="Const" version="opset1"><data element_type="f32" shape="1" offset="0"'
           ' size="4"/><output><port id="0" precision="FP32"><dim>1</dim></port></output></layer>'
           '<layer id="10" name="r10" type="ReLU" version="opset1"><input><port id="0" precision="FP32"><dim>1</dim>'
           '</port></input><output><port id="1" precision="FP32"><dim>1</dim></port></output></layer>')
ORPHAN_EDITS = {"type with a blank": ('type="ReLU"', 'type=" ReLU"'), "version OPSET1": ('"opset1"><input>',
                '"OPSET1"><input>'), "Const offset '0 '": ('offset="0"', 'offset="0 "'),
                "Const without size": (' size="4"', ""), "Const shape '١'": ('shape="1"', 'shape="\u0661"'),
                "Const without <data>": ('<data element_type="f32" shape="1" offset="0" size="4"/>', "")}


@pytest.mark.openvino
@pytest.mark.reader
@pytest.mark.parametrize("edit", list(ORPHAN_EDITS), ids=list(ORPHAN_EDITS))
def test_what_read_model_judges_only_where_it_builds_is_a_warning_elsewhere(edit):
    """A Const and a ReLU no Result depends on, broken: read_model never builds them and reads the file (an
    `unbuilt` warning); the same break where it builds the layer is refused (an error)."""
    ov = pytest.importorskip("openvino")
    old, new = ORPHAN_EDITS[edit]
    orphan = net().replace("</layers>", _ORPHAN.replace(old, new, 1) + "</layers>").replace(
        "</edges>", '<edge from-layer="9" from-port="0" to-layer="10" to-port="0"/></edges>')
    assert _ORPHAN.replace(old, new, 1) != _ORPHAN
    ov.Core().read_model(orphan.encode(), ov.Tensor(ov.Type.u8, [48]))        # (read)
    said = [(f.code, f.severity) for f in irpool.check(orphan).findings]
    assert said and all(s == ("unbuilt", "warning") for s in said), said
    built = net().replace('<layer id="1" name="w"', '<layer id="1" name="w"')
    if "Const" in edit:             # the same break on the Const the net builds (its weights)
        w_old = old.replace('shape="1"', 'shape="4,3,1,1"').replace('size="4"', 'size="48"')
        w_new = new.replace('shape="1"', 'shape="4,3,1,1"').replace('size="4"', 'size="48"')
        built = net().replace(w_old, w_new, 1)
    else:
        built = net().replace('name="relu" type="ReLU" version="opset1"', 'name="relu" ' + {
            "type with a blank": 'type=" ReLU" version="opset1"', "version OPSET1": 'type="ReLU" version="OPSET1"'}[edit])
    assert built != net()
    with pytest.raises(RuntimeError):
        ov.Core().read_model(built.encode(), ov.Tensor(ov.Type.u8, [48]))
    assert _errors(built)


def test_a_refused_id_is_said_with_its_text_and_openvino_words():
    by_line = {f.message.split(":")[0]: f for f in irpool.check(net(relu="3 ")).findings}
    said = by_line['<layer> id="3 "']
    assert said.code == "bad-structure" and "not an unsigned 64 bit integer" in said.message
    assert '<edge> to-layer="3 "' in by_line and '<edge> from-layer="3 "' in by_line
    stoll = {f.message.split(":")[0]: f for f in irpool.check(net(relu=str(2 ** 63))).findings}
    assert "stoll" in stoll[f'<layer> id="{2 ** 63}"'].message


def test_a_wrong_dim_is_found_and_fixed_on_a_layer_whose_id_is_written_otherwise():
    wrong = [f.code for f in irpool.check(net(out=5)).findings]
    assert "shape-mismatch" in wrong
    for pool in ("04", "+4", " 4"):
        xml = net(pool=pool, out=5)
        assert [f.code for f in irpool.check(xml).findings] == wrong
        fixed, said, after = irpool.fix(xml.encode())
        assert fixed == net(pool=pool).encode() and said, pool
        assert not [f for f in after.findings if f.severity == "error"]


def test_layer_selects_a_layer_by_the_number_its_id_is_read_as():
    x = np.arange(1 * 4 * 8 * 8, dtype=np.float32).reshape(1, 4, 8, 8)
    plain = irpool.run(net(), x, layer="4")
    for pool in ("04", "+4"):
        got = irpool.run(net(pool=pool), x, layer="4")
        assert [(k, np.asarray(v).tobytes()) for k, v in got.items()] == \
            [(k, np.asarray(v).tobytes()) for k, v in plain.items()]
        entries = []
        irpool.frontend.each_entry(net(pool=pool), entries.append, "4")
        assert [e["layer_name"] for e in entries] == ["pool"]


def test_run_reads_a_net_whose_ids_are_written_otherwise():
    from irbuild import net_xml
    cfg = dict(op="MaxPool", version=1, shape=[1, 2, 6, 6], dtype="float32", strides=[2, 2], pads_begin=[0, 0],
               pads_end=[0, 0], kernel=[2, 2], rounding_type="floor", auto_pad="explicit")
    plain = net_xml(cfg)
    odd = plain.replace('<layer id="1" name="pool"', '<layer id="01" name="pool"').replace(
        'to-layer="1"', 'to-layer="+1"').replace('from-layer="1"', 'from-layer=" 1"')
    assert odd != plain
    x = np.random.default_rng(3).standard_normal((1, 2, 6, 6)).astype(np.float32)
    want, got = irpool.run(plain, x), irpool.run(odd, x)
    assert [(k, np.asarray(v).tobytes()) for k, v in got.items()] == \
        [(k, np.asarray(v).tobytes()) for k, v in want.items()]
    with pytest.raises(irpool.IRError, match="not an unsigned 64 bit integer"):
        irpool.run(plain.replace('<layer id="1" name="pool"', '<layer id="1 " name="pool"'), x)


@pytest.mark.openvino
@pytest.mark.reader
@pytest.mark.parametrize("xml", [net().replace('kernel="2,2"', 'kernel="2,2" kernel="3,3"'), net() + "<net/>"],
                         ids=["an attribute twice", "an element after </net>"])
def test_xml_read_model_reads_and_lxml_refuses_is_said_unchecked(xml):
    """Not well-formed XML that OpenVINO's reader (pugixml) reads: irpool cannot check it, and says so, never as
    OpenVINO's refusal and never as a pass."""
    ov = pytest.importorskip("openvino")
    ov.Core().read_model(xml.encode(), ov.Tensor(ov.Type.u8, [48]))       # (read: no exception)
    with pytest.raises(irpool.IRError, match="read_model reads it anyway.*has not checked this file"):
        irpool.check(xml)
