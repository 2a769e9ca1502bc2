"""The IR front end and the command line, as a user meets them: examples, findings, refusals, exit codes."""
import json
import pathlib

import numpy as np
import pytest

import irpool
from clitool import cli, line_of
from reference import ref_pool

pytestmark = [pytest.mark.reference, pytest.mark.spec]

EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"


def test_seed_examples_first_is_wrong_and_says_why():
    bad = irpool.check(EXAMPLES / "seed_maxpool_same_upper.xml")
    assert not bad.ok
    ports = {f.message.split(":")[0] for f in bad.errors()}
    assert ports == {"output port 1", "output port 2"}
    f = bad.errors()[0]
    text = (EXAMPLES / "seed_maxpool_same_upper.xml").read_text()
    first_out_dim = line_of(text, '<port id="1">') + 3                  # its third <dim>: H
    assert f.code == "shape-mismatch" and f.layer_id == "1" and f.layer_type == "MaxPool" and f.line == first_out_dim
    assert "= 16, declared 32" in f.message and "spec text's same_upper formula" in f.message
    for name in ("seed_maxpool_explicit.xml", "seed_maxpool_valid.xml", "small_net.xml"):
        assert irpool.check(EXAMPLES / name).ok, name


def test_small_net_runs_like_the_reference():
    x = np.random.default_rng(3).standard_normal((1, 4, 16, 16)).astype(np.float32)
    out = irpool.run(EXAMPLES / "small_net.xml", {"image": x})
    assert list(out) == ["pooled", "argmax"]
    m, idx = ref_pool(x, irpool.PoolSpec(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)))
    np.testing.assert_array_equal(out["argmax"], idx)
    a, _ = ref_pool(m, irpool.PoolSpec(kernel=(2, 2), strides=(2, 2), rounding="ceil_torch", reduction="avg"))
    np.testing.assert_allclose(out["pooled"], a, rtol=1e-6)


SNIPPET = """<layer id="7" name="p" type="AvgPool" version="opset1">
  <data kernel="2" strides="2" pads_begin="0" pads_end="0" exclude-pad="false"/>
  <input><port id="0"><dim>1</dim><dim>2</dim><dim>6</dim></port></input>
  <output><port id="1"><dim>1</dim><dim>2</dim><dim>3</dim></port></output>
</layer>"""


def test_bare_layer_check_and_run():
    assert irpool.check(SNIPPET).ok
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 6)
    out = irpool.run(SNIPPET, x)
    assert list(out) == ["1"]
    np.testing.assert_allclose(out["1"], x.reshape(1, 2, 3, 2).mean(-1))
    np.testing.assert_allclose(irpool.run(SNIPPET.encode(), {"0": x})["1"], out["1"])
    with pytest.raises(irpool.IRError, match=r"<string>:3: layer id=7 .*shape \[1, 2, 7\]"):
        irpool.run(SNIPPET, np.zeros((1, 2, 7), np.float32))


def test_a_loaded_program_checks_every_new_input_shape_and_type():
    """A Program remembers the input shapes and types it has checked; a new one is checked again."""
    program = irpool.load(EXAMPLES / "small_net.xml")
    x = np.zeros((1, 4, 16, 16), np.float32)
    first = program.run({"image": x})
    assert all(np.array_equal(a, b) for a, b in zip(first.values(), program.run({"image": x}).values()))
    with pytest.raises(irpool.IRError, match=r"shape \[1, 4, 16, 15\]"):
        program.run({"image": np.zeros((1, 4, 16, 15), np.float32)})
    with pytest.raises(irpool.IRError, match="element type float64"):
        program.run({"image": np.zeros((1, 4, 16, 16))})
    snippet = irpool.load(SNIPPET.encode())
    snippet.run(np.zeros((1, 2, 6), np.float32))
    with pytest.raises(irpool.IRError, match=r"shape \[1, 2, 7\]"):
        snippet.run(np.zeros((1, 2, 7), np.float32))


def test_net_refuses_wrong_inputs_and_unmodelled_layers():
    net = (EXAMPLES / "small_net.xml").read_text()
    with pytest.raises(irpool.IRError, match="element type float64, the Parameter declares f32"):
        irpool.run(net, {"image": np.zeros((1, 4, 16, 16))})
    with pytest.raises(irpool.IRError, match=r"shape \[1, 4, 16, 15\]"):
        irpool.run(net, {"image": np.zeros((1, 4, 16, 15), np.float32)})
    with pytest.raises(irpool.IRError, match="no Parameter is named 'img'"):
        irpool.run(net, {"img": np.zeros((1, 4, 16, 16), np.float32)})
    relu = net.replace('type="AvgPool" version="opset14"', 'type="Relu" version="opset1"')
    with pytest.raises(irpool.IRError, match=r"not Relu") as e:
        irpool.run(relu, {"image": np.zeros((1, 4, 16, 16), np.float32)})
    assert e.value.line == line_of(net, '<layer id="2"') and e.value.layer_id == "2"


def test_findings_for_edges_attributes_and_precisions():
    net = (EXAMPLES / "small_net.xml").read_text()
    broken = net.replace('<edge from-layer="1" from-port="2" to-layer="4" to-port="0"/>',
                         '<edge from-layer="1" from-port="9" to-layer="4" to-port="0"/>')
    f = [x for x in irpool.check(broken).findings if x.code == "edge-mismatch"]
    assert len(f) == 1 and "output port 9 of layer 1 does not exist" in f[0].message and f[0].line == line_of(broken, 'from-port="9"')
    bad_attr = net.replace('kernel="3,3"', 'kernel="3,x"')
    f = irpool.check(bad_attr).errors()
    assert [x.code for x in f] == ["bad-attribute"] and '"x" is not an integer' in f[0].message
    assert f[0].layer_name == "max3x3" and f[0].line == line_of(net, 'kernel="3,3"')
    bad_prec = net.replace('<port id="2" precision="I64">', '<port id="2" precision="I32">')
    r = irpool.check(bad_prec)               # OpenVINO reads it (it infers every type): a warning
    f = r.findings
    assert r.ok and [x.code for x in f] == ["precision-mismatch"] and "index_element_type i64" in f[0].message
    unknown = net.replace('version="opset8"', 'version="opset99"')
    assert [x.code for x in irpool.check(unknown).errors()] == ["unknown-opset"]
    extra = net.replace('axis="0"', 'axis="0" colour="red"')
    r = irpool.check(extra)
    assert r.ok and [x.code for x in r.findings] == ["unknown-attribute"]


def test_cli_check_exit_codes_and_json(tmp_path):
    ok = cli("check", EXAMPLES / "small_net.xml")
    assert ok.returncode == 0 and "ok" in ok.stdout
    bad = cli("check", "--json", EXAMPLES / "seed_maxpool_same_upper.xml", EXAMPLES / "small_net.xml")
    assert bad.returncode == 1
    doc = json.loads(bad.stdout)
    findings = [f for entry in doc["files"] for f in entry["findings"]]
    assert {f["code"] for f in findings} == {"shape-mismatch"}
    assert all(f["file"].endswith("seed_maxpool_same_upper.xml") and f["line"] in (16, 22) for f in findings)
    assert [e["status"] for e in doc["files"]] == ["error", "ok"] and doc["irpool"] == irpool.__version__


@pytest.mark.parametrize("content", [b"", b"   \n", b"not xml at all", b"<net><layers>", b"\x00\xff\xfe",
                                     b"<html><body/></html>", b'<?xml version="1.0"?>'])
def test_cli_damaged_files_exit_2_with_one_line(tmp_path, content):
    f = tmp_path / "bad.xml"
    f.write_bytes(content)
    for cmd in (["check", f], ["explain", f], ["run", f, "-i", "x=nothing.npy"]):
        r = cli(*cmd)
        assert r.returncode == 2, (cmd, r)
        assert r.stderr.count("\n") == 1 and r.stderr.startswith("irpool: "), r.stderr
        assert "Traceback" not in r.stderr


def test_cli_missing_file_exit_2():
    r = cli("check", "/nonexistent/model.xml")
    assert r.returncode == 2 and "cannot read" in r.stderr and "Traceback" not in r.stderr


def test_cli_run_writes_outputs_atomically(tmp_path):
    x = np.random.default_rng(1).standard_normal((1, 4, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    src = tmp_path / "net.xml"
    src.write_bytes((EXAMPLES / "small_net.xml").read_bytes())
    before = src.read_bytes()
    r = cli("run", src, "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path / "out.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "out.npz") as z:
        want = irpool.run(src, {"image": x})
        assert sorted(z.files) == sorted(want)
        for k in want:
            np.testing.assert_array_equal(z[k], want[k])
    assert src.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".irpool-")] == []
    # a failing run leaves no output file behind
    r = cli("run", src, "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path / "sub" / "out.npz")
    assert r.returncode == 2 and not (tmp_path / "sub").exists()


def test_cli_run_threads(tmp_path):
    x = np.random.default_rng(2).standard_normal((1, 4, 16, 16)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = cli("run", EXAMPLES / "small_net.xml", "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path / "o.npz",
            "--threads", "2")
    assert r.returncode == 0, r.stderr
    r = cli("run", EXAMPLES / "small_net.xml", "-i", f"image={tmp_path / 'x.npy'}", "--threads", "0")
    assert r.returncode == 2 and "not a positive integer" in r.stderr and "Traceback" not in r.stderr
    with pytest.raises(irpool.IRError, match="threads must be a positive integer"):
        irpool.run(EXAMPLES / "small_net.xml", {"image": x}, threads=0)


def test_cli_explain_shows_each_axis():
    r = cli("explain", EXAMPLES / "small_net.xml", "--layer", "1")
    assert r.returncode == 0
    assert "H: floor((16 + 1 + 1 - 3) / 2) + 1 = 8" in r.stdout and "W: floor" in r.stdout


def test_refuses_dtd_and_entities():
    xxe = b'<?xml version="1.0"?><!DOCTYPE net [<!ENTITY x SYSTEM "file:///etc/passwd">]><net>&x;</net>'
    with pytest.raises(irpool.IRError, match="DTD or entities"):
        irpool.check(xxe)
