"""check --fix against OpenVINO: on files save_model wrote (pooling chains, the pooling family with its .bin,
torch's converted pools), with wrong dims planted at their lines (an output, and the consumer input an edge
joins to it), --fix must give back the very bytes save_model wrote, and read_model of the fixed file must infer
the shapes every port now declares. The hand-formatted file (CRLF, tabs, comments, odd attribute order) is
tests/cli/test_linter.py's; here it is read by OpenVINO too."""
import pathlib
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest
from lxml import etree

ov = pytest.importorskip("openvino")
import openvino.opset1 as o1  # noqa: E402
import openvino.opset8 as o8  # noqa: E402
import openvino.opset14 as o14  # noqa: E402

from irbuild import hand_net  # noqa: E402

pytestmark = [pytest.mark.openvino]

CORE = ov.Core()
EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "irpool", *map(str, args)], capture_output=True, timeout=300)


def chain_model():
    x = o1.parameter([2, 3, 33, 29], np.float32, name="x")
    a = o8.max_pool(x, [2, 2], [1, 1], [1, 0], [0, 1], [3, 3], "ceil", "explicit", name="max")
    b = o14.avg_pool(a.output(0), [2, 1], [0, 0], [0, 0], [2, 2], True, "floor", "same_upper", name="avg")
    c = o1.max_pool(b, [1, 2], [0, 0], [0, 0], [2, 2], "floor", "valid", name="last")
    return ov.Model([o1.result(c), o1.result(a.output(1))], [x], "chain")


def family_model():
    x = o1.parameter([1, 4, 13, 11], np.float32, name="x")
    a = o8.adaptive_avg_pool(x, o1.constant(np.array([5, 3], np.int64)), name="adaptive")
    g = o1.reduce_mean(a, o1.constant(np.array([2, 3], np.int64)), True, name="global")
    return ov.Model([o1.result(g)], [x], "family")


def _inferred(path) -> dict:
    """{(layer name, output index): dims} as read_model infers them."""
    model = CORE.read_model(str(path))
    return {(n.get_friendly_name(), k): [d.get_length() for d in n.output(k).get_partial_shape()]
            for n in model.get_ordered_ops() for k in range(n.get_output_size())}


def _declared(path) -> dict:
    tree = etree.parse(str(path))
    return {(layer.get("name"), k): [int(d.text) for d in port.iter("dim")]
            for layer in tree.iter("layer") for k, port in enumerate(layer.findall("output/port"))}


def _plant(data: bytes, layer_name: str, port_index: int, axis: int, wrong: int) -> bytes:
    """The `axis` <dim> of a layer's output port, and of every input port an edge joins to it, set to `wrong`,
    each on its own line as save_model writes it (lxml finds the lines; the bytes are edited by line)."""
    tree = etree.fromstring(data)
    layer = next(el for el in tree.iter("layer") if el.get("name") == layer_name)
    port = layer.findall("output/port")[port_index]
    lines = [port.findall("dim")[axis].sourceline]
    for e in tree.iter("edge"):
        if e.get("from-layer") == layer.get("id") and e.get("from-port") == port.get("id"):
            to = next(el for el in tree.iter("layer") if el.get("id") == e.get("to-layer"))
            tport = next(p for p in to.findall("input/port") if p.get("id") == e.get("to-port"))
            lines.append(tport.findall("dim")[axis].sourceline)
    text = data.split(b"\n")
    for n in lines:
        text[n - 1] = re.sub(rb"<dim>\d+</dim>", b"<dim>%d</dim>" % wrong, text[n - 1])
    return b"\n".join(text)


@pytest.mark.parametrize("build,plants", [
    (chain_model, [("max", 0, 2, 99), ("avg", 0, 3, 1), ("last", 0, 2, 40), ("max", 1, 3, 7)]),
    (family_model, [("adaptive", 0, 2, 13), ("global", 0, 1, 3)]),
])
def test_fix_gives_back_what_save_model_wrote(tmp_path, build, plants):
    saved = tmp_path / "model.xml"
    ov.save_model(build(), saved, compress_to_fp16=False)
    original = saved.read_bytes()
    bad = original
    for plant in plants:
        bad = _plant(bad, *plant)
    assert bad != original
    (tmp_path / "bad.xml").write_bytes(bad)
    shutil.copy(tmp_path / "model.bin", tmp_path / "bad.bin")
    r = cli("check", "--fix", tmp_path / "bad.xml")
    assert r.returncode == 0, r.stdout.decode() + r.stderr.decode()
    assert (tmp_path / "bad.xml").read_bytes() == original
    assert _declared(tmp_path / "bad.xml") == {k: v for k, v in _inferred(tmp_path / "bad.xml").items()
                                               if k in _declared(tmp_path / "bad.xml")}


def test_fix_on_torch_pools_converted_by_openvino(tmp_path):
    for ext in ("xml", "bin"):
        shutil.copy(EXAMPLES / f"torch_pools.{ext}", tmp_path / f"m.{ext}")
    original = (tmp_path / "m.xml").read_bytes()
    tree = etree.fromstring(original)
    pools = [el.get("name") for el in tree.iter("layer")
             if el.get("type") in ("MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool")]
    assert len(pools) >= 3
    bad = original
    for name in pools:
        bad = _plant(bad, name, 0, 3, 1)
    (tmp_path / "m.xml").write_bytes(bad)
    r = cli("check", "--fix", tmp_path / "m.xml")
    assert r.returncode == 0 and (tmp_path / "m.xml").read_bytes() == original, r.stdout.decode()[-2000:]


def test_the_hand_formatted_file_fixed_reads_as_openvino_infers(tmp_path):
    for crlf in (False, True):
        f = tmp_path / f"hand{int(crlf)}.xml"
        f.write_bytes(hand_net([1, 3, 32, 32], crlf=crlf))
        before = _inferred(f)
        assert cli("check", "--fix", f).returncode == 0
        assert _inferred(f) == before
        declared = _declared(f)
        assert declared[("pool", 0)] == before[("pool", 0)] == [1, 3, 16, 16]
