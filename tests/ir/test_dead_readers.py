"""A verdict that holds only where an output is used, when the one edge that uses it goes into a layer no Result
depends on: read_model drops that layer and its edge, so OpenVINO reads, compiles and runs what it refuses with a
live reader. Each net is written by openvino.save_model (or by hand, for IR v10) and judged against OpenVINO on
this machine: check says an `unbuilt` warning there, naming the layer, and the verdict itself where the reader is
a Result."""
import re
import shutil

import numpy as np
import pytest

pytestmark = [pytest.mark.openvino]

ov = pytest.importorskip("openvino")
import irpool  # noqa: E402


def _dead(xml: str, pid: str, port: int, dims, precision: str) -> str:
    """`xml` with a Convert no Result depends on, reading output `port` of layer `pid`."""
    d = "".join(f"<dim>{x}</dim>" for x in dims)
    layer = (f'<layer id="99" name="dead" type="Convert" version="opset1"><data destination_type="f32" /><input>'
             f'<port id="0" precision="{precision}">{d}</port></input><output><port id="1" precision="FP32">{d}'
             '</port></output></layer>\n\t</layers>')
    edge = f'<edge from-layer="{pid}" from-port="{port}" to-layer="99" to-port="0" />\n\t</edges>'
    return xml.replace("\t</layers>", layer, 1).replace("\t</edges>", edge, 1)


def _live(xml: str, pid: str, port: int, dims, precision: str) -> str:
    """`xml` with a Result reading output `port` of layer `pid`."""
    d = "".join(f"<dim>{x}</dim>" for x in dims)
    layer = (f'<layer id="98" name="used" type="Result" version="opset1"><input><port id="0" precision="{precision}">'
             f'{d}</port></input></layer>\n\t</layers>')
    edge = f'<edge from-layer="{pid}" from-port="{port}" to-layer="98" to-port="0" />\n\t</edges>'
    return xml.replace("\t</layers>", layer, 1).replace("\t</edges>", edge, 1)


def _openvino(path, x) -> bool:
    """Whether OpenVINO reads, compiles (default configuration) and runs the file on this machine."""
    core = ov.Core()
    try:
        core.compile_model(str(path), "CPU")({0: x})
    except RuntimeError:
        return False
    return True


def _pools():
    """(name, model, input, indices port, indices dims, precision as written, edit of the written text)."""
    import openvino.opset8 as o8
    rng = np.random.default_rng(62)
    x32 = rng.standard_normal((1, 3, 4, 5)).astype(np.float32)
    p = o8.parameter([1, 3, 4, 5], ov.Type.f32, name="x")
    mp = o8.max_pool(p, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i32")
    mp.set_friendly_name("pool")
    u8 = ("maxpool8_u8_indices", ov.Model([mp.output(0)], [p]), x32, 2, [1, 3, 3, 4], "U8",
          lambda s: s.replace('index_element_type="i32"', 'index_element_type="u8"').replace('"I32"', '"U8"'))
    p = o8.parameter([1, 3, 4, 5], ov.Type.f32, name="x")
    amp = o8.adaptive_max_pool(p, o8.constant(np.array([1, 1], np.int64)), "i64")
    amp.set_friendly_name("pool")
    i64 = ("adaptive_one_cell_i64", ov.Model([amp.output(0)], [p]), x32, 3, [1, 3, 1, 1], "I64", lambda s: s)
    p = o8.parameter([1, 3, 4, 5], ov.Type.bf16, name="x")
    mpb = o8.max_pool(p, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i32")
    mpb.set_friendly_name("pool")
    xb = ov.Tensor(np.ones((1, 3, 4, 5), np.uint16) * 0x3F80, [1, 3, 4, 5], ov.Type.bf16)
    bf16 = ("maxpool8_bf16", ov.Model([mpb.output(0)], [p]), xb, 2, [1, 3, 3, 4], "I32", lambda s: s)
    return [u8, i64, bf16]


@pytest.mark.parametrize("case", _pools(), ids=lambda c: c[0])
def test_an_output_read_only_by_a_dead_layer_is_not_used(tmp_path, case):
    name, model, x, port, dims, precision, edit = case
    ov.save_model(model, str(tmp_path / "m.xml"))
    text = edit((tmp_path / "m.xml").read_text())
    pid = re.search(r'<layer id="(\d+)" name="pool"', text).group(1)
    for kind, add in (("dead", _dead), ("live", _live)):
        (tmp_path / f"{kind}.xml").write_text(add(text, pid, port, dims, precision))
        shutil.copy(tmp_path / "m.bin", tmp_path / f"{kind}.bin")
    verdicts = {}
    for kind in ("dead", "live"):
        report = irpool.check(str(tmp_path / f"{kind}.xml"))
        refused = [f for f in report.findings if f.severity == "error" or f.code == "fails-at-inference"]
        assert bool(refused) is not _openvino(tmp_path / f"{kind}.xml", x), (kind, report.findings)
        verdicts[kind] = report.findings
    if any(f.layer_id == pid for f in verdicts["live"]):     # (a verdict on the use: the dead reader's is a warning)
        said = [f for f in verdicts["dead"] if f.code == "unbuilt"]
        assert len(said) == 1 and said[0].layer_id == pid, verdicts["dead"]
        assert "never builds layer 99" in said[0].message and "-> 99:0 uses it" in said[0].message


def _v10(reader: str) -> str:
    """IR v10: a MaxPool-1 that declares a second output port, which an edge reads into `reader` (Result: live;
    Relu with no Result after it: dead). In v10 an edge names an output by its position (output_verdicts.py)."""
    d = "<dim>1</dim><dim>3</dim><dim>2</dim><dim>2</dim>"
    out = "" if reader == "Result" else f'<output><port id="1" precision="FP32">{d}</port></output>'
    return f"""<?xml version="1.0"?>
<net name="n" version="10">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3,4,4" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></output></layer>
<layer id="1" name="pool" type="MaxPool" version="opset1"><data strides="2,2" pads_begin="0,0" pads_end="0,0" kernel="2,2" rounding_type="floor" auto_pad="explicit"/><input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>4</dim><dim>4</dim></port></input><output><port id="1" precision="FP32">{d}</port><port id="2" precision="FP32">{d}</port></output></layer>
<layer id="2" name="y" type="Result" version="opset1"><input><port id="0" precision="FP32">{d}</port></input></layer>
<layer id="4" name="extra_use" type="{reader}" version="opset1"><input><port id="0" precision="FP32">{d}</port></input>{out}</layer>
</layers>
<edges>
<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="2" to-layer="4" to-port="0"/>
</edges>
</net>"""


def test_an_ir_v10_extra_output_read_only_by_a_dead_layer(tmp_path):
    x = np.zeros((1, 3, 4, 4), np.float32)
    for reader, reads in (("ReLU", True), ("Result", False)):
        path = tmp_path / f"{reader}.xml"
        path.write_text(_v10(reader))
        assert _openvino(path, x) is reads
        report = irpool.check(str(path))
        codes = [f.code for f in report.findings]
        assert codes == (["unbuilt"] if reads else ["bad-structure"]), report.findings


def _compiles(path) -> bool:
    """Whether compile_model (default configuration) succeeds, in a process of its own: one of these crashes it."""
    import subprocess
    import sys
    code = f"import openvino as ov; ov.Core().compile_model({str(path)!r}, 'CPU')"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0


@pytest.mark.parametrize("case", ["ceil_torch", "negative pads"])
def test_a_verdict_held_unless_an_output_is_used_stands_where_only_a_dead_layer_reads_it(tmp_path, case):
    """OpenVINO crashes compiling a MaxPool-14 ceil_torch without dilations, and refuses one with a negative
    pads_begin, unless its indices are used; indices read only by a layer no Result depends on are not used, so
    the verdict stands there (check was quiet), and goes where a Result reads them: against OpenVINO here."""
    import openvino.opset14 as o14
    p = o14.parameter([1, 3, 5, 5], ov.Type.f32, name="x")
    pool = o14.max_pool(p, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "ceil_torch", "explicit", "i32")
    pool.set_friendly_name("pool")
    ov.save_model(ov.Model([pool.output(0)], [p]), str(tmp_path / "m.xml"))
    text = (tmp_path / "m.xml").read_text()
    text = text.replace(' dilations="1, 1"', "") if case == "ceil_torch" else \
        text.replace('pads_begin="0, 0" pads_end="0, 0"', 'pads_begin="-1, 0" pads_end="1, 0"').replace(
            'rounding_type="ceil_torch"',
                                                                       'rounding_type="floor"')
    pid = re.search(r'<layer id="(\d+)" name="pool"', text).group(1)
    dims = [int(d) for d in re.findall(r"<dim>(\d+)</dim>", text.split('name="pool"')[1].split("</layer>")[0])[-4:]]
    for kind, add in (("dead", _dead), ("live", _live), ("unread", lambda t, *a: t)):
        path = tmp_path / f"{kind}.xml"
        path.write_text(add(text, pid, 2, dims, "I32"))
        report = irpool.check(str(path))
        held = [f for f in report.findings if f.severity == "error" and f.layer_id == pid and f.code == "bad-attribute"]
        assert bool(held) is not _compiles(path), (kind, report.findings)
        if kind == "dead":
            assert "only layer 99 reads it, which OpenVINO's reader never builds" in held[0].message
