"""Hostile and broken IR: every input ends in a Report or an IRError naming a line, never another exception."""
import contextlib
import io
import pathlib
import re
import shutil
import tempfile
import tracemalloc

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpool
from irpool import IRError
from irpool.cli import main

pytestmark = [pytest.mark.spec]

SMALL = (pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml").read_text()
X = np.zeros((1, 4, 16, 16), np.float32)


def outcome(source):
    """('report', findings) or ('error', IRError) for check; anything else fails the test."""
    try:
        return "report", irpool.check(source).findings
    except IRError as e:
        return "error", e


def test_external_entity_is_never_read(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    for doc in (f'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY x SYSTEM "file://{secret}">]><net>&x;</net>',
                f'<!-- <net> --><!DOCTYPE net [<!ENTITY x SYSTEM "file://{secret}">]><net><layers/>&x;</net>',
                f'<?xml version="1.0"?>\n<!DOCTYPE layer SYSTEM "file://{secret}"><layer id="1" type="X"/>'):
        for f in (irpool.check, lambda s: irpool.run(s, X), irpool.explain):
            with pytest.raises(IRError, match="DTD or entities") as e:
                f(doc)
            assert "TOP-SECRET" not in str(e.value)


def test_entity_bomb_is_refused_without_allocating():
    lol = "".join(f'<!ENTITY l{i} "{"&l%d;" % (i - 1) * 10 if i else "lol"}">' for i in range(10))
    doc = f'<?xml version="1.0"?><!DOCTYPE net [{lol}]><net><layers/><edges/>&l9;</net>'
    tracemalloc.start()
    with pytest.raises(IRError, match="DTD or entities"):
        irpool.check(doc)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 << 20                     # a billion "lol"s would be gigabytes


def test_processing_instructions_and_comments_are_ignored():
    doc = SMALL.replace("<layers>", "<layers><?evil run='rm -rf /'?><!-- x -->", 1)
    assert irpool.check(doc).ok
    assert set(irpool.run(doc, X)) == {"pooled", "argmax"}


BROKEN = {
    "truncated": lambda t: t[: len(t) // 2],
    "wrong root": lambda t: t.replace("<net ", "<network ", 1).replace("</net>", "</network>"),
    "duplicate layer id": lambda t: t.replace('<layer id="2"', '<layer id="1"', 1),
    "duplicate port id": lambda t: t.replace('<port id="2" precision="I64">', '<port id="1" precision="I64">', 1),
    "edge to a missing layer": lambda t: t.replace('to-layer="3"', 'to-layer="77"', 1),
    "edge to a missing port": lambda t: t.replace('to-port="0"/>', 'to-port="9"/>', 1),
    "missing data": lambda t: re.sub(r'<data strides="2,2" dilations[^>]*/>', "", t, count=1),
    "absurd kernel": lambda t: t.replace('kernel="3,3"', 'kernel="99999999999999999999,3"', 1),
    "negative stride": lambda t: t.replace('strides="2,2" dilations', 'strides="-2,2" dilations', 1),
    "non-integer pad": lambda t: t.replace('pads_begin="1,1"', 'pads_begin="1,x"', 1),
    "list of the wrong length": lambda t: t.replace('kernel="3,3"', 'kernel="3,3,3"', 1),
    "unknown enum": lambda t: t.replace('rounding_type="floor"', 'rounding_type="round"', 1),
    "unknown opset": lambda t: t.replace('type="MaxPool" version="opset8"', 'type="MaxPool" version="opset99"', 1),
    "parameter shape disagrees": lambda t: t.replace('shape="1,4,16,16"', 'shape="1,4,16,17"', 1),
    "absurd dim": lambda t: t.replace("<dim>16</dim>", "<dim>99999999999999999999</dim>", 1),
    "negative dim": lambda t: t.replace("<dim>8</dim>", "<dim>-7</dim>", 1),
    "layer without id": lambda t: t.replace('<layer id="3" name="pooled"', '<layer name="pooled"', 1),
    "edge without to-port": lambda t: t.replace('to-port="0"/>', "/>", 1),
    "stranger among the edges": lambda t: t.replace("<edges>", "<edges>\n\t\t<foo/>", 1),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_damaged_ir_gives_a_finding_or_an_error_with_a_line(name):
    doc = BROKEN[name](SMALL)
    kind, what = outcome(doc)
    if kind == "report":
        # (read_model ignores what is not an <edge> in <edges>: measured in test_read_verdicts.py; a warning)
        errors = [f for f in what if f.severity == ("warning" if name == "stranger among the edges" else "error")]
        assert errors, f"{name}: no error finding"
        assert all(isinstance(f.line, int) and f.line > 0 for f in errors), [str(f) for f in errors]
    else:
        assert what.line is not None or name == "wrong root", (name, what)
    try:
        irpool.run(doc, X)
        assert kind == "report" and name in ("duplicate port id", "parameter shape disagrees", "absurd dim",
                                             "negative dim", "edge without to-port", "stranger among the edges"), name
    except IRError as e:
        assert str(e)


def test_run_refuses_inputs_that_disagree_with_the_parameter():
    with pytest.raises(IRError, match="shape"):
        irpool.run(SMALL, np.zeros((1, 4, 16, 15), np.float32))
    with pytest.raises(IRError, match="element type"):
        irpool.run(SMALL, np.zeros((1, 4, 16, 16), np.float64))


def test_max_bytes_guard(tmp_path):
    path = tmp_path / "net.xml"
    path.write_text(SMALL)
    with pytest.raises(IRError, match="more than the 100 irpool reads"):
        irpool.check(path, max_bytes=100)
    assert irpool.check(path, max_bytes=len(SMALL)).ok


ELEMENTS = re.compile(r"<(layer|port|dim|data|edge)\b[^>]*?(/>|>.*?</\1>)", re.S)


FAMILY = ("MaxPool", "AvgPool", "ReduceMean", "ReduceMax", "AdaptiveAvgPool", "AdaptiveMaxPool", "Parameter",
          "Result", "Const", "TensorIterator", "ShapeOf", "Squeeze", "Range")


@st.composite
def mutants(draw, text=SMALL, most=4):
    """`text` with 1..most mutations: an attribute or a dim given an odd value, an element deleted or doubled,
    a layer given another type or opset, the document cut short."""
    for _ in range(draw(st.integers(1, most))):
        how = draw(st.sampled_from(["attr", "dim", "delete", "duplicate", "type", "cut"]))
        if how == "type":
            found = list(re.finditer(r'type="(\w+)" version="(\w*)"', text))
            if not found:
                continue
            m = draw(st.sampled_from(found))
            text = text[:m.start()] + f'type="{draw(st.sampled_from(FAMILY))}"' \
                f' version="{draw(st.sampled_from(["opset1", "opset8", "opset14", "opset16", "opset99", ""]))}"' \
                + text[m.end():]
        elif how == "attr":
            attrs = list(re.finditer(r'(\w[\w-]*)="([^"]*)"', text))
            if not attrs:
                continue
            m = draw(st.sampled_from(attrs))
            value = draw(st.sampled_from(["", "0", "-1", "1,1", "3,3,3", "x", "99999999999999999999", "ceil",
                                          "same_upper", "opset1", "f16", "true", "?", "1..5", "-3,2"]))
            text = text[:m.start(2)] + value + text[m.end(2):]
        elif how == "dim":
            dims = list(re.finditer(r"<dim>([^<]*)</dim>", text))
            if not dims:
                continue
            m = draw(st.sampled_from(dims))
            text = text[:m.start(1)] + draw(st.sampled_from(["0", "-1", "?", "abc", "", "4294967296", "7"])) + \
                text[m.end(1):]
        elif how in ("delete", "duplicate"):
            found = list(ELEMENTS.finditer(text))
            if found:
                m = draw(st.sampled_from(found))
                piece = "" if how == "delete" else m.group(0) * 2
                text = text[:m.start()] + piece + text[m.end():]
        else:
            text = text[: draw(st.integers(0, len(text)))]
    return text


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants())
def test_fuzzed_ir_only_reports_or_raises_irerror(text):
    outcome(text)
    try:
        irpool.run(text, X)
    except IRError:
        pass
    try:
        irpool.explain(text)
    except IRError:
        pass


TORCH = pathlib.Path(__file__).parent.parent.parent / "examples" / "torch_pools.xml"
MO2021 = TORCH.with_name("mo2021_pools.xml")       # global pools' axes folded from ShapeOf, Squeeze, Range


def _cli(args) -> int:
    """irpool's command line in this process, its output thrown away: its exit status (any exception but
    SystemExit propagates)."""
    out, err = io.TextIOWrapper(io.BytesIO()), io.TextIOWrapper(io.BytesIO())
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            return main(args)
        except SystemExit as e:
            return e.code


def _layers_of(text, xml):
    """run --layer of every family layer of a mutated file: IRError or outputs, nothing else."""
    for m in re.finditer(r'<layer id="([^"]*)" name="[^"]*" type="(?:Adaptive\w+|Reduce\w+|MaxPool)"', text):
        try:
            irpool.run(xml, np.zeros((1, 4, 15, 14), np.float32), layer=m.group(1))
        except IRError:
            pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutants(MO2021.read_text(), most=4))
def test_fuzzed_folded_shape_inputs_only_report_or_raise_irerror(text):
    """Model Optimizer 2021.4's global pools, their Range, Squeeze and ShapeOf mutated (types, versions, dims, edges,
    elements deleted or doubled): check reports, run --layer raises IRError at worst."""
    with tempfile.TemporaryDirectory() as d:
        xml = pathlib.Path(d) / "m.xml"
        xml.write_text(text)
        shutil.copy(MO2021.with_suffix(".bin"), xml.with_suffix(".bin"))
        outcome(xml)
        _layers_of(text, xml)


@pytest.mark.slow
@pytest.mark.parametrize("base", [TORCH, MO2021], ids=["torch_pools", "mo2021_pools"])
@settings(max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_family_ir_through_the_command_line(base, data):
    """The pooling family with its .bin (adaptive pools' shape inputs, global Reduce, MaxPool-14, axes folded from
    Range), mutated: every command ends with exit 0, 1 or 2 and a report, never a traceback; run --layer raises
    only IRError."""
    text = data.draw(mutants(base.read_text(), most=8))
    with tempfile.TemporaryDirectory() as d:
        xml = pathlib.Path(d) / "m.xml"
        xml.write_text(text)
        shutil.copy(base.with_suffix(".bin"), xml.with_suffix(".bin"))
        for args in (["check", xml], ["check", "--format", "sarif", xml], ["check", "--diff", xml], ["explain", xml]):
            assert _cli([str(a) for a in args]) in (0, 1, 2), args
        _layers_of(text, xml)


def test_input_files_are_never_modified(tmp_path):
    path = tmp_path / "net.xml"
    path.write_text(SMALL)
    xin = tmp_path / "x.npy"
    np.save(xin, X)
    before = [(p.read_bytes(), p.stat().st_mtime_ns) for p in (path, xin)]
    irpool.check(path)
    irpool.explain(path)
    irpool.run(path, np.load(xin))
    assert main(["run", str(path), "-i", f"image={xin}", "-o", str(tmp_path / "out.npz")]) == 0
    assert [(p.read_bytes(), p.stat().st_mtime_ns) for p in (path, xin)] == before
