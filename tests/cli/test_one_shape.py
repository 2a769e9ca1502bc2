"""Both front ends answer in one form: explain --json gives the same fields for an IR layer and an ONNX node (a
declared dim that differs from the computed one is named in `differs` on both), check --fix returns bytes, what it
rewrote and the fixed file's report on both, and the command line reaches either through irpool/frontend.py
alone. The models' own numbers come from the files (an OpenVINO-written IR, an onnx helper-made model), and the
computed dims from onnxruntime and OpenVINO."""
import json

import numpy as np
import pytest

import irpool
from irpool import frontend
from clitool import cli

onnx = pytest.importorskip("onnx")
ov = pytest.importorskip("openvino")
from onnxpeers import model, session  # noqa: E402

pytestmark = [pytest.mark.openvino, pytest.mark.onnxruntime]

ENTRY = {"front_end", "layer_id", "layer_name", "layer_type", "version", "op", "line", "path", "input", "input_from",
         "error", "attributes", "axes", "outputs"}
OUTPUT = {"port", "name", "computed", "declared", "differs"}


@pytest.fixture
def pair(tmp_path):
    """The same 2x2 s2 ceil MaxPool of a 1x3x9x9 input, each file declaring an output of 4x4 (the runtimes give
    5x5): an .onnx model, and an IR that OpenVINO wrote, its declared dims then edited to 4."""
    m = model("MaxPool", 13, dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1), [1, 3, 9, 9],
              declared=[1, 3, 4, 4])
    onnx_path = tmp_path / "m.onnx"
    onnx_path.write_bytes(m.SerializeToString())
    import openvino.opset8 as o8
    p = o8.parameter([1, 3, 9, 9], ov.Type.f32, name="x")
    pool = o8.max_pool(p, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], rounding_type="ceil")
    xml = tmp_path / "m.xml"
    ov.save_model(ov.Model([pool.output(0)], [p]), xml)
    text = xml.read_text()
    head, tail = text.split('type="MaxPool"', 1)
    out_at = tail.index("<output>")
    tail = tail[:out_at] + tail[out_at:].replace("<dim>5</dim>", "<dim>4</dim>", 2)
    xml.write_text(head + 'type="MaxPool"' + tail)
    return xml, onnx_path, m


def test_explain_json_has_one_form(pair):
    xml, onnx_path, m = pair
    x = np.zeros((1, 3, 9, 9), np.float32)
    want = list(session(m).run(None, {"x": x})[0].shape)
    got_ov = list(ov.Core().compile_model(ov.Core().read_model(xml), "CPU")([x])[0].shape)
    assert want == got_ov == [1, 3, 5, 5]
    docs = {}
    for path in (xml, onnx_path):
        r = cli("explain", path, "--json")
        assert r.returncode == 1, r.stdout                 # a declared dim differs: exit 1 on both
        (e,) = [e for e in json.loads(r.stdout)["layers"] if e["layer_type"] == "MaxPool"]
        assert set(e) >= ENTRY and all(set(o) == OUTPUT for o in e["outputs"]), e
        docs[path.suffix] = e
    for e in docs.values():
        out = e["outputs"][0]
        assert out["computed"] == [str(d) for d in want] and out["declared"] == ["1", "3", "4", "4"]
        assert out["differs"] == ["H", "W"] and e["input"] == ["1", "3", "9", "9"]
        assert all({"axis", "input", "arithmetic", "drawing"} <= set(ax) for ax in e["axes"])
    assert docs[".xml"]["front_end"] == "ir" and docs[".onnx"]["front_end"] == "onnx"
    assert irpool.explain(str(onnx_path)) and irpool.explain(str(xml))       # (the Python API, both kinds)


def test_fix_returns_bytes_fixed_and_report_on_both(pair, tmp_path):
    xml, onnx_path, _ = pair
    for path in (xml, onnx_path):
        data = path.read_bytes()
        fixed, done, report = frontend.fix(data, path=str(path), file=path.name)
        assert isinstance(fixed, bytes) and fixed != data and done and all(type(d) is irpool.report.Fixed
                                                                           for d in done)
        assert report.ok and not any(f.code == "shape-mismatch" for f in report.findings)
        again, more, _ = frontend.fix(fixed, path=str(path), file=path.name)
        assert again == fixed and more == []              # (nothing left: the same bytes back)
