"""A port id written twice in one layer, as OpenVINO's reader takes it: an edge from output port P reads the first
output port of id P, and no edge reads a later one, so a MaxPool-8 whose indices port repeats its values port's id
reads, compiles and runs (check said a duplicate-id error); input ports of one id are refused (two edges into one
port, or one port without its edge). Each file is written by openvino.save_model and edited, and judged against
OpenVINO on this machine."""
import re
import subprocess
import sys

import numpy as np
import pytest

pytestmark = [pytest.mark.openvino]

ov = pytest.importorskip("openvino")
import irpool  # noqa: E402


def _runs(path, x) -> np.ndarray | None:
    """OpenVINO's first output for `x` (default configuration), or None where it refuses the file."""
    code = ("import sys, numpy as np, openvino as ov; x = np.load(sys.argv[2]);"
            " c = ov.Core().compile_model(sys.argv[1], 'CPU'); r = c.create_infer_request();"
            " t = ov.Tensor(x) if x.dtype != np.uint16 else ov.Tensor(ov.Type.bf16, list(x.shape));"
            " x.dtype != np.uint16 or t.data.view(np.uint16).__setitem__(Ellipsis, x);"   # (bf16: its bits)
            " r.set_input_tensor(t); r.infer(); np.save(sys.argv[3], np.array(r.get_output_tensor(0).data))")
    np.save(str(path) + ".x.npy", x)
    done = subprocess.run([sys.executable, "-c", code, str(path), str(path) + ".x.npy", str(path) + ".y.npy"],
                          capture_output=True, timeout=120)
    return np.load(str(path) + ".y.npy") if done.returncode == 0 else None


def _saved(tmp_path, node, p) -> tuple:
    """`node` (named "pool") in a model written by save_model: (the file's text, the pool's id, its <layer> text)."""
    node.set_friendly_name("pool")
    ov.save_model(ov.Model([node.output(0)], [p]), str(tmp_path / "m.xml"))
    text = (tmp_path / "m.xml").read_text()
    layer = text[text.index('name="pool"'):]
    return text, re.search(r'<layer id="(\d+)" name="pool"', text).group(1), layer[:layer.index("</layer>")]


def _maxpool8(tmp_path, et, ids):
    """A MaxPool-8 whose values a Result reads, its output ports renumbered `ids` (the edge follows the first)."""
    import openvino.opset8 as o8
    p = o8.parameter([1, 3, 4, 4], et, name="x")
    text, pid, layer = _saved(tmp_path, o8.max_pool(p, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit",
                                                    "i32"), p)
    edited = layer.replace('<port id="1"', '<port id="A"').replace('<port id="2"', f'<port id="{ids[1]}"')
    edited = edited.replace('<port id="A"', f'<port id="{ids[0]}"')
    text = text.replace(layer, edited).replace(f'from-layer="{pid}" from-port="1"',
                                               f'from-layer="{pid}" from-port="{ids[0]}"')
    path = tmp_path / f"mp8_{ids[0]}{ids[1]}.xml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("ids", [("1", "1"), ("2", "2")])
def test_an_output_port_id_written_twice_reads_the_first(tmp_path, ids):
    path = _maxpool8(tmp_path, ov.Type.f32, ids)
    x = np.random.default_rng(62).standard_normal((1, 3, 4, 4)).astype(np.float32)
    want = _runs(path, x)
    assert want is not None                                  # (OpenVINO reads, compiles and runs it)
    report = irpool.check(str(path))
    assert not [f for f in report.findings if f.severity == "error"], report.findings
    said = [f for f in report.findings if f.code == "lenient-attribute"]
    assert len(said) == 1 and f"output port id {ids[0]} appears 2 times" in said[0].message
    got = next(iter(irpool.run(str(path), {"x": x}).values()))
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()


def test_a_bf16_maxpool8_whose_indices_port_repeats_an_id_is_judged_as_unread(tmp_path):
    """Its indices are never read (no edge can name them): check's bf16 verdicts are those of unread indices, as
    OpenVINO's on this machine (where bf16 is native it refuses read indices)."""
    path = _maxpool8(tmp_path, ov.Type.bf16, ("1", "1"))
    x = (np.arange(48, dtype=np.float32).reshape(1, 3, 4, 4).view(np.uint32) >> 16).astype(np.uint16)
    compiles = _runs(path, x) is not None
    report = irpool.check(str(path))
    assert bool([f for f in report.findings if f.severity == "error"]) is not compiles, report.findings


def test_input_port_ids_written_twice_are_refused(tmp_path):
    import openvino.opset8 as o8
    p = o8.parameter([1, 3, 4, 4], ov.Type.f32, name="x")
    text, pid, layer = _saved(tmp_path, o8.adaptive_avg_pool(p, o8.constant(np.array([2, 2], np.int64))), p)
    text = text.replace(layer, layer.replace('<port id="1" precision="I64"', '<port id="0" precision="I64"'))
    path = tmp_path / "ins.xml"
    path.write_text(text.replace(f'to-layer="{pid}" to-port="1"', f'to-layer="{pid}" to-port="0"'))
    (tmp_path / "ins.bin").write_bytes((tmp_path / "m.bin").read_bytes())
    assert _runs(path, np.zeros((1, 3, 4, 4), np.float32)) is None
    codes = {f.code for f in irpool.check(str(path)).findings if f.severity == "error"}
    assert "duplicate-id" in codes, codes
