"""Inputs an independent crash hunt (stop 59) found to end in an internal error (exit 3), a hang or a wrong exit,
each now a verdict or a refusal that names the file: --shape on ops with values and attributes no rule was written
for, a Range-4 of output_type boolean (OpenVINO's read_model refuses it: measured below), a run whose output would
not fit in memory, a .npy cut short, a bare <layer> run with --layer against OpenVINO, a <dim> whose attribute holds
'>' under --fix, an EBCDIC file, a FIFO in a folder, and the Python API given a NUL, a closed or a text stream."""
import os
import pathlib
import shutil

import numpy as np
import pytest

import irpool
from clitool import cli

pytestmark = [pytest.mark.spec]

ODD = pathlib.Path(__file__).parent.parent / "data" / "odd-inputs"
EXAMPLES = pathlib.Path(__file__).parent.parent.parent / "examples"


def _no_crash(r) -> None:
    assert r.returncode in (0, 1, 2), (r.returncode, r.stderr)
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr, r.stderr


@pytest.mark.parametrize("name", sorted(p.name for p in ODD.glob("shape_*.xml")))
def test_shape_on_ops_no_rule_was_written_for_is_a_verdict(name):
    """Each net is x [?,2,?,?] -> MaxPool -> Result, and an op fed odd values or attributes (a Convolution of stride
    0, an Interpolate of scale NaN, a ReduceMax of an empty Const, boolean Range-1 and Subtract, a MaxPool with no
    input): --shape judges the pool, or counts it unchecked saying which layer it does not reach past."""
    r = cli("check", "--shape", "x=1,2,8,8", ODD / name)
    _no_crash(r)
    assert r.returncode == 0, r.stdout
    if name == "shape_conv_stride0.xml":
        assert "1 unchecked (--shape does not reach their input: irpool does not infer the output of Convolution" \
               " id=1 name='conv'" in r.stdout, r.stdout


def test_a_boolean_range_as_axes_is_refused_as_read_model_refuses_it():
    """ReduceMean whose axes are Range-4(0, 5, 1) with output_type boolean: read_model refuses the Range
    (core/src/op/range.cpp:72, an integral or real output type), whatever its values."""
    r = cli("check", ODD / "fold_range_bool.xml")
    _no_crash(r)
    assert r.returncode == 1
    assert "error: [bad-attribute] layer id=5 name='rm' (ReduceMean): the axes are computed by Range id=4" in r.stdout
    assert "output_type=boolean" in r.stdout


@pytest.mark.openvino
def test_openvino_refuses_the_boolean_range():
    ov = pytest.importorskip("openvino")
    with pytest.raises(RuntimeError, match="is_integral_number"):
        ov.Core().read_model(str(ODD / "fold_range_bool.xml"))


def _bare_pool(pads_end: str) -> str:
    return (f'<layer id="1" name="p" type="MaxPool" version="opset1"><data kernel="1,1" strides="1,1"'
            f' pads_begin="0,0" pads_end="{pads_end}" rounding_type="floor" auto_pad="explicit"/><input>'
            '<port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>1</dim><dim>1</dim></port></input>'
            '<output><port id="1" precision="FP32"><dim>1</dim><dim>1</dim><dim>1</dim><dim>1</dim></port>'
            "</output></layer>")


def test_an_output_larger_than_memory_is_refused_before_it_is_allocated(tmp_path):
    """pads_end 2^31 - 1 on both axes of a 1x1 input: 2^62 outputs, more than any machine holds (numpy refused the
    array with a ValueError, exit 3, before)."""
    xml, x = tmp_path / "big.xml", tmp_path / "x.npy"
    xml.write_text(_bare_pool("2147483647,2147483647"))
    np.save(x, np.ones((1, 1, 1, 1), np.float32))
    r = cli("run", xml, "-i", f"0={x}")
    _no_crash(r)
    assert r.returncode == 2
    assert f"{xml}:1: layer id=1 name='p' type=MaxPool: the output [1, 1, 2147483648, 2147483648] and the buffers" \
        in r.stderr
    with pytest.raises(irpool.IRError, match="GiB of memory this machine has free"):
        irpool.run(str(xml), {"0": np.ones((1, 1, 1, 1), np.float32)})


def test_a_npy_cut_short_is_the_npy_files_fault(tmp_path):
    """A .npy whose header dict ends early (numpy raises tokenize's TokenError): exit 2, naming the .npy."""
    header = b"{'descr': '<f4', 'shape': (1,"
    bad = tmp_path / "bad.npy"
    bad.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    xml = tmp_path / "p.xml"
    xml.write_text(_bare_pool("0,0"))
    r = cli("run", xml, "-i", f"0={bad}")
    _no_crash(r)
    assert r.returncode == 2 and f"cannot read input file {bad}" in r.stderr, r.stderr


@pytest.mark.openvino
def test_a_bare_layer_run_with_layer_is_run_in_a_net_by_openvino(tmp_path):
    """`run LAYER.xml --layer 1 --against openvino` gave OpenVINO the bare <layer>, which it does not read (exit 1
    as if the bits differed); it is run in a net, as without --layer."""
    pytest.importorskip("openvino")
    xml, x = tmp_path / "p.xml", tmp_path / "x.npy"
    xml.write_text(_bare_pool("0,0").replace("<dim>1</dim><dim>1</dim></port></input>",
                                             "<dim>3</dim><dim>3</dim></port></input>", 1)
                   .replace("<dim>1</dim><dim>1</dim></port></output>", "<dim>3</dim><dim>3</dim></port></output>", 1))
    np.save(x, np.arange(9, dtype=np.float32).reshape(1, 1, 3, 3))
    r = cli("run", xml, "--layer", "1", "-i", f"0={x}", "--against", "openvino")
    _no_crash(r)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "the bare layer id=1 name='p' (MaxPool) in a net" in r.stdout
    assert "irpool and OpenVINO agree bit for bit" in r.stdout


def test_fix_edits_the_dim_not_the_attribute_that_holds_a_gt(tmp_path):
    """<dim x=">">7</dim> is well-formed; --fix wrote its 3 into the attribute and refused its own output."""
    xml = tmp_path / "p.xml"
    xml.write_text(_bare_pool("0,0").replace("<dim>1</dim><dim>1</dim></port></input>",
                                             "<dim>6</dim><dim>6</dim></port></input>", 1)
                   .replace("<dim>1</dim><dim>1</dim></port></output>", '<dim x=">">7</dim><dim>6</dim></port></output>'))
    r = cli("check", "--fix", xml)
    _no_crash(r)
    assert '<dim x=">">6</dim><dim>6</dim>' in xml.read_text()
    assert irpool.check(str(xml)).ok


def test_an_ebcdic_file_is_refused_in_one_line(tmp_path):
    xml = tmp_path / "e.xml"
    xml.write_bytes('<?xml version="1.0"?><layer/>'.encode("cp037"))
    r = cli("check", xml)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "EBCDIC" in r.stderr, r.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_in_a_folder_is_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / "p.xml")
    shutil.copy(EXAMPLES / "small_net.xml", tmp_path)
    r = cli("check", tmp_path)          # (cli's timeout: a hang fails)
    _no_crash(r)
    assert r.returncode == 0 and "small_net.xml: ok" in r.stdout, r.stdout
    assert "p.xml: skipped (a FIFO, not a regular file" in r.stdout and ", 1 skipped (" in r.stdout, r.stdout
    r = cli("check", "--fix", tmp_path)
    assert r.returncode == 0 and "p.xml: skipped (a FIFO" in r.stdout, r.stdout + r.stderr


def test_the_api_refuses_what_it_cannot_read_with_an_irerror(tmp_path):
    with pytest.raises(irpool.IRError, match="NUL"):
        irpool.check("a\0b")
    f = open(EXAMPLES / "small_net.xml", "rb")
    f.close()
    with pytest.raises(irpool.IRError, match="closed stream"):
        irpool.check(f)
    with open(EXAMPLES / "small_net.xml") as text:
        with pytest.raises(irpool.IRError, match="binary mode"):
            irpool.check(text)
    with_bom = "\ufeff" + (EXAMPLES / "seed_maxpool_valid.xml").read_text().lstrip("\ufeff")
    assert irpool.check(with_bom).findings == irpool.check(str(EXAMPLES / "seed_maxpool_valid.xml")).findings


def test_out_of_memory_names_the_file(monkeypatch, capsys):
    """numpy's MemoryError past the guard (an allocation the memory free allowed, then refused): exit 2 naming the
    file, as every refusal does."""
    from irpool import cli

    def short_of_memory(args):
        raise MemoryError("Unable to allocate 373. GiB")
    monkeypatch.setitem(cli.COMMANDS, "check", short_of_memory)
    path = str(EXAMPLES / "small_net.xml")
    assert cli.main(["check", path]) == 2
    assert capsys.readouterr().err == f"irpool: {path}: out of memory: Unable to allocate 373. GiB\n"


def test_npy_and_npz_damaged_past_numpy_s_checks_are_their_own_fault(tmp_path):
    """A .npy whose shape is past 2^64 (OverflowError) and an .npz whose member says it is encrypted (zipfile's
    RuntimeError): exit 2 naming the input file (a second crash hunt; exit 3 before)."""
    import io
    import zipfile
    header = b"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }"
    header += b" " * (63 - (10 + len(header)) % 64) + b"\n"
    big = tmp_path / "big.npy"
    big.write_bytes(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header)
    member = io.BytesIO()
    np.save(member, np.ones((1, 1, 6, 6), np.float32))
    enc = tmp_path / "enc.npz"
    with zipfile.ZipFile(enc, "w") as z:
        z.writestr("x.npy", member.getvalue())
    data = bytearray(enc.read_bytes())
    data[6] |= 1
    data[data.find(b"PK\x01\x02") + 8] |= 1
    enc.write_bytes(bytes(data))
    xml = tmp_path / "p.xml"
    xml.write_text(_bare_pool("0,0"))
    for arg, path in ((f"0={big}", big), (str(enc), enc)):
        r = cli("run", xml, "-i", arg)
        _no_crash(r)
        assert r.returncode == 2 and f"cannot read input file {path}" in r.stderr, r.stderr


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_that_never_ends_is_read_up_to_max_bytes():
    """/dev/zero seeks, and never ends: it was read for ever (a second crash hunt)."""
    r = cli("check", "--max-bytes", "100000", "/dev/zero")
    _no_crash(r)
    assert r.returncode == 2 and "/dev/zero: the input is more than the 100000 bytes" in r.stderr, r.stderr


@pytest.mark.onnx
def test_the_api_tells_onnx_from_utf16_xml_in_any_source(tmp_path):
    """An ONNX model in a BytesIO (no peek) was read as XML; a UTF-16 IR file given as bytes as ONNX."""
    import io
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("GlobalAveragePool", ["x"], ["y"])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 1, 1])])
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(data)
    assert irpool.check(io.BytesIO(data)).findings == irpool.check(str(path)).findings
    assert irpool.check(io.BytesIO(data)).pooling_layers == 1
    xml = tmp_path / "u.xml"
    text = (EXAMPLES / "small_net.xml").read_text()
    xml.write_bytes(text.replace('<?xml version="1.0"?>', '<?xml version="1.0" encoding="UTF-16"?>').encode("utf-16"))
    assert irpool.check(xml.read_bytes()).findings == irpool.check(str(xml)).findings
    m = memoryview(b"<net/>")
    m.release()
    with pytest.raises(irpool.IRError, match="released"):
        irpool.check(m)
    with pytest.raises(irpool.IRError, match="lone surrogate"):
        irpool.check('<net name="\udcff"/>')
