"""No traceback, ever (issue 53): every element name of the IR schema (schemas/ir.rng) and of the bodies placed
under a bare <layer> and under <net>, through check (text, --json, --diff, --fix on a copy), explain and run on
the command line (in-process, irpool.cli.main), and through the Python API. A file is clean, has findings or is
refused (exit 0, 1 or 2, with a message); the Python API returns a Report or raises IRError. An internal error
is exit 3 with "internal error, please report" and the file, never a traceback or exit 1.
"""
import contextlib
import io
import shutil

import numpy as np
import pytest
from lxml import etree

import irpool
from irpool import opdefs
from irpool.cli import main

_RNG = "{http://relaxng.org/ns/structure/1.0}"
# read by irpool beside what the schema names: a body's nets, its port maps
_BODY_NAMES = ("body", "then_body", "else_body", "port_map", "then_port_map", "else_port_map", "back_edges",
               "rt_info", "net")


def _element_names() -> list:
    rng = etree.fromstring(opdefs.read_bytes("ir.rng"))
    names = {e.get("name") for e in rng.iter(f"{_RNG}element") if e.get("name")}
    names |= {n.text.strip() for n in rng.iter(f"{_RNG}name")}
    assert {"net", "layers", "edges", "edge", "layer", "data", "input", "output", "port", "dim"} <= names
    return sorted(names | set(_BODY_NAMES))


_DIMS = "<dim>1</dim><dim>1</dim><dim>4</dim><dim>4</dim>"
_POOL = ('<layer id="{id}" name="p{id}" type="MaxPool" version="opset1"><data kernel="2,2" strides="2,2"'
         ' pads_begin="0,0" pads_end="0,0"/><input><port id="0">' + _DIMS + '</port></input><output>'
         '<port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>2</dim><dim>2</dim></port></output>{extra}'
         '</layer>')
_TI = ('<layer id="{id}" name="t{id}" type="TensorIterator" version="opset1"><input><port id="0">' + _DIMS +
       '</port></input><output><port id="1" precision="FP32">' + _DIMS + '</port></output>{extra}</layer>')


def _fillings(name: str) -> list:
    """What goes under a layer or a net: the element empty, holding a pooling layer, and holding itself."""
    inner = _POOL.format(id=7, extra="")
    return [f"<{name}/>", f"<{name}>{inner}</{name}>", f"<{name}><{name}><layers>{inner}</layers></{name}></{name}>",
            f'<{name} id="x" from-layer="0" from-port="0" to-layer="1" to-port="0"><dim>-1</dim></{name}>']


def _net(extra: str) -> str:
    return ('<?xml version="1.0"?><net name="n" version="11"><layers><layer id="0" name="x" type="Parameter"'
            ' version="opset1"><data shape="1,1,4,4" element_type="f32"/><output><port id="0" precision="FP32">'
            + _DIMS + '</port></output></layer>' + _POOL.format(id=1, extra="") + '<layer id="2" name="r"'
            ' type="Result" version="opset1"><input><port id="0"><dim>1</dim><dim>1</dim><dim>2</dim><dim>2</dim>'
            '</port></input></layer></layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'
            '<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges>' + extra + '</net>')


def _documents() -> list:
    docs = []
    for name in _element_names():
        for extra in _fillings(name):
            docs.append(("layer", _POOL.format(id=1, extra=extra)))
            docs.append(("layer", _TI.format(id=1, extra=extra)))
            docs.append(("net", _net(extra)))
    return docs


def _cli(*argv) -> tuple:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in argv])
        except SystemExit as e:          # (argparse)
            code = e.code
    return code, out.getvalue(), err.getvalue()


def _api(call, *args):
    try:
        got = call(*args)
    except irpool.IRError as e:
        assert str(e)
        return None
    return got


def test_every_element_name_under_a_layer_and_a_net(tmp_path):
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    npy = tmp_path / "x.npy"
    np.save(npy, x)
    docs = _documents()
    assert len(docs) > 100
    for i, (kind, text) in enumerate(docs):
        path = tmp_path / f"d{i}.xml"
        path.write_text(text)
        copy = tmp_path / f"d{i}.fix.xml"
        shutil.copy(path, copy)
        given = "0" if kind == "layer" else "x"
        runs = [("check", path), ("check", "--format", "json", path), ("check", "--diff", path),
                ("check", "--fix", copy), ("explain", path), ("explain", "--json", path),
                ("run", path, "-i", f"{given}={npy}")]
        for argv in runs:
            code, out, err = _cli(*argv, "--isolated") if argv[0] != "check" else _cli(*argv)
            assert code in (0, 1, 2) and (out or err), (argv, text, code, err)
            assert "Traceback" not in err and "internal error" not in err, (argv, text, err)
        report = _api(irpool.check, str(path))
        assert report is None or isinstance(report, irpool.Report), text
        _api(irpool.explain, str(path))
        _api(irpool.load, str(path))
        _api(irpool.run, str(path), {given: x})


def test_an_internal_error_is_exit_3_naming_the_file(tmp_path, monkeypatch):
    path = tmp_path / "m.xml"
    path.write_text(_net(""))

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")
    monkeypatch.setattr("irpool.inputs.check_one", broken)
    monkeypatch.setattr("irpool.frontend.load", broken)
    for argv in (["check", "-j", "1", path], ["run", path, "-i", f"x={tmp_path / 'x.npy'}"]):
        np.save(tmp_path / "x.npy", np.zeros((1, 1, 4, 4), np.float32))
        code, out, err = _cli(*argv)
        assert code == 3, (argv, code, out, err)
        assert "internal error, please report" in err and str(path) in err and "Traceback" not in err, err


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-8-sig",
                                      "latin-1"])
def test_a_dtd_is_refused_in_any_encoding(tmp_path, encoding):
    """libxml2 reads each of these documents (the same without its DTD is ok); with a DTD it is refused, and an
    entity's reference is never dropped silently."""
    said = {"utf-16-le": "UTF-16", "utf-16-be": "UTF-16", "utf-32-le": "UTF-32", "utf-32-be": "UTF-32",
            "utf-8-sig": "UTF-8", "latin-1": "ISO-8859-1"}.get(encoding, encoding.upper())
    head = f'<?xml version="1.0" encoding="{said}"?>\n'
    layer = _POOL.format(id=1, extra="").replace('kernel="2,2"', 'kernel="&k;"')
    with_dtd = head + '<!DOCTYPE layer [<!ENTITY k "2,2">]>\n' + layer
    plain = head + _POOL.format(id=1, extra="")
    for name, text in (("dtd", with_dtd), ("plain", plain)):
        (tmp_path / f"{name}.xml").write_bytes(text.encode(encoding))
    pull = etree.XMLPullParser()
    try:                                        # (the libxml2 of lxml 4.9, .ci/run's floors: not UTF-32-LE fed)
        pull.feed(plain.encode(encoding))
        pull.close()
    except etree.XMLSyntaxError:
        pytest.skip(f"this libxml2 {etree.LIBXML_VERSION} does not read {encoding} fed to its pull parser")
    assert irpool.check(str(tmp_path / "plain.xml")).ok
    with pytest.raises(irpool.IRError, match="DTD"):
        irpool.check(str(tmp_path / "dtd.xml"))
    code, _, err = _cli("check", tmp_path / "dtd.xml")
    assert code == 2 and "DTD" in err


def test_a_bare_layers_own_layers_and_edges_are_no_net():
    """<layers>, <edges> and <net> under a bare <layer> are what read_model ignores in a layer (it reads a layer's
    <data>, <input>, <output> and a body's by name): not a top level, so a pool written there is not checked."""
    inner = _POOL.format(id=1, extra="").replace("<dim>2</dim><dim>2</dim></port></output>",
                                                 "<dim>3</dim><dim>3</dim></port></output>")
    for holder in (f"<layers>{inner}</layers><edges/>", f"<net><layers>{inner}</layers></net>"):
        report = irpool.check(f'<layer id="1" name="r" type="Relu" version="opset1">{holder}</layer>')
        assert report.ok and not report.findings, report.findings


def test_a_dtd_the_prolog_scan_misses_is_refused_all_the_same(tmp_path, monkeypatch):
    """lxml's record of the DTD is the second guard (an encoding the prolog's scan does not tell)."""
    import importlib
    monkeypatch.setattr(importlib.import_module("irpool.ir.read.document"), "check_prolog", lambda stream, file, head: None)
    layer = _POOL.format(id=1, extra="").replace('kernel="2,2"', 'kernel="&k;"')
    for text in ('<!DOCTYPE layer [<!ENTITY k "2,2">]>\n' + layer,
                 '<!DOCTYPE net [<!ENTITY k "2,2">]>\n<net version="11"><layers>' + layer + "</layers></net>"):
        path = tmp_path / "d.xml"
        path.write_bytes(text.encode("utf-16"))
        with pytest.raises(irpool.IRError, match="DTD"):
            irpool.check(str(path))
