"""What a caller hands irpool, found wrong by the crash hunts of stops 59 and 60: a stream the caller gave is read and
left open (the API closed it), a stream that fails or gives text is the input's fault (an OSError or an
AttributeError passed through before), and -i files numpy reads oddly: a .npy header past numpy's safe size (said
to hold "Python objects" before), an .npz with a member that is not .npy (given as an input of bytes before), an
array too large for memory (named the model, not the input file, before)."""
import io
import pathlib
import struct
import zipfile

import numpy as np
import pytest

import irpool
from clitool import cli

pytestmark = [pytest.mark.spec]

SMALL = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"


def _onnx_pool() -> bytes:
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    graph = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 2, 2])])
    return onnx.helper.make_model(graph).SerializeToString()


class _Failing(io.RawIOBase):
    """A stream whose read fails as a disk or a network share may (EIO); `head`, what peek shows first."""

    def __init__(self, head=b""):
        self.head = head

    def readable(self):
        return True

    def peek(self, n=1):
        return self.head[:n]

    def readinto(self, b):
        raise OSError(5, "Input/output error")


class _TextReader:
    """An object with a read that gives str (no seekable(), no TextIOBase)."""

    def read(self, n=-1):
        return "<net/>"


def test_a_callers_stream_is_read_and_left_open():
    for data in (SMALL.read_bytes(), _onnx_pool()):
        stream = io.BytesIO(data)
        irpool.check(stream)
        assert not stream.closed
        stream.seek(0)
        assert stream.read() == data


@pytest.mark.parametrize("stream", [_Failing(), _TextReader()], ids=["eio", "text"])
def test_a_stream_that_fails_or_gives_text_is_refused_as_the_inputs_fault(stream):
    with pytest.raises(irpool.IRError, match="cannot read it: Input/output error|gives str, not bytes"):
        irpool.check(stream)


def test_an_onnx_stream_that_fails_is_refused_as_the_inputs_fault():
    with pytest.raises(irpool.IRError, match="cannot read it: Input/output error"):
        irpool.check(_Failing(_onnx_pool()[:64]))


def _npy(path, header: str, payload: bytes = b"") -> None:
    header += " " * (64 - (len(header) + 11) % 64) + "\n"
    path.write_bytes(b"\x93NUMPY\x02\x00" + struct.pack("<I", len(header)) + header.encode() + payload)


def test_a_npy_header_past_numpys_safe_size_says_so(tmp_path):
    """numpy 1.24 and later refuse a header past max_header_size (10,000 bytes); older ones (the floors' 1.22) read it:
    irpool says what the installed numpy does."""
    payload = np.zeros((1, 4, 16, 16), np.float32).tobytes()
    _npy(tmp_path / "x.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 4, 16, 16), " + " " * 100_000 + "}",
         payload)
    try:
        np.load(tmp_path / "x.npy", allow_pickle=False)
        numpy_reads = True
    except ValueError as e:
        assert "max_header_size" in str(e)                          # (what numpy itself says of it)
        numpy_reads = False
    r = cli("run", SMALL, "-i", f"image={tmp_path / 'x.npy'}", "-o", tmp_path / "o.npz")
    if numpy_reads:
        assert r.returncode == 0, r.stderr
        return
    assert r.returncode == 2 and "header is longer than numpy reads safely" in r.stderr, r.stderr
    assert "Python objects" not in r.stderr and not (tmp_path / "o.npz").exists()


def test_an_npz_member_that_is_not_npy_is_no_input(tmp_path):
    x = np.random.default_rng(1).standard_normal((1, 4, 16, 16)).astype(np.float32)
    with zipfile.ZipFile(tmp_path / "in.npz", "w") as z:
        buf = io.BytesIO()
        np.save(buf, x)
        z.writestr("image.npy", buf.getvalue())
        z.writestr("notes.txt", b"not an array")
    with np.load(tmp_path / "in.npz") as npz:
        assert isinstance(npz["notes.txt"], bytes)                   # (numpy gives it, as bytes)
    r = cli("run", SMALL, "-i", tmp_path / "in.npz", "-o", tmp_path / "o.npz")
    assert r.returncode == 0, r.stderr
    with zipfile.ZipFile(tmp_path / "bad.npz", "w") as z:
        z.writestr("image.npy", b"")
    r = cli("run", SMALL, "-i", tmp_path / "bad.npz", "-o", tmp_path / "o2.npz")
    assert r.returncode == 2 and "its member image.npy is not a numpy array" in r.stderr, r.stderr


def test_an_input_too_large_for_memory_names_the_input_file(tmp_path):
    huge = "(1, 4, 50000000, 50000000)"       # (40 PB: past any address space, however the kernel overcommits)
    _npy(tmp_path / "huge.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': " + huge + ", }")
    r = cli("run", SMALL, "-i", f"image={tmp_path / 'huge.npy'}", "-o", tmp_path / "o.npz")
    assert r.returncode == 2, r.stderr
    assert f"cannot read input file {tmp_path / 'huge.npy'}: its arrays do not fit" in r.stderr, r.stderr


@pytest.mark.parametrize("call", ["kernel floats", "cpu int", "max_bytes None", "max_bytes str", "pool None"])
def test_the_apis_odd_arguments_raise_irerror(call):
    """Crash hunt 3: PoolSpec took kernel (2.9, 1.5) as (2, 1), and these ended in AttributeError or TypeError, where
    README says every refusal raises IRError."""
    x = np.zeros((1, 1, 4, 4), np.float32)
    act = {"kernel floats": lambda: irpool.PoolSpec(kernel=(2.9, 1.5)),
           "cpu int": lambda: irpool.check(str(SMALL), cpu=5),
           "max_bytes None": lambda: irpool.check(str(SMALL), max_bytes=None),
           "max_bytes str": lambda: irpool.run(str(SMALL), {"image": x}, max_bytes="5"),
           "pool None": lambda: irpool.pool(x, None)}[call]
    with pytest.raises(irpool.IRError):
        act()
    assert irpool.PoolSpec(kernel=(np.int64(2), 2)).kernel == (2, 2)


def test_the_apis_run_inputs_are_said_plainly():
    """Crash hunt 3: run(xml, None) said "input 'image' has shape []", an ONNX node given {0: x} (the number) was
    refused as "give ... as 0 or 'x'; got 0", and outputs="2" was said "2 output(s), 2 asked for"."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    import irpool.onnx
    with pytest.raises(irpool.IRError, match="got None"):
        irpool.run(str(SMALL), None)
    graph = helper.make_graph([helper.make_node("MaxPool", ["x"], ["y"], name="p", kernel_shape=[2, 2])], "g",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    (y,) = irpool.run(onnx.helper.make_model(graph).SerializeToString(), {0: x}, layer="p").values()
    assert y.tolist() == [[[[5.0, 6.0, 7.0], [9.0, 10.0, 11.0], [13.0, 14.0, 15.0]]]]
    with pytest.raises(irpool.IRError, match="'2' asked for"):
        irpool.onnx.run("MaxPool", x, {"kernel_shape": [2, 2]}, opset=12, outputs="2")


def test_a_shape_given_twice_and_a_long_npz_are_said_in_one_line(tmp_path):
    """--shape for one input twice was taken silently (the last); an .npz of 2,000 arrays, none the input's, listed
    every name."""
    r = cli("check", SMALL, "--shape", "image=1,4,16,16", "--shape", "image=1,4,8,8")
    assert r.returncode == 2 and "--shape gives input 'image' twice" in r.stderr, r.stderr
    np.savez(tmp_path / "many.npz", **{f"a{k}": np.zeros(1, np.float32) for k in range(2000)})
    r = cli("run", SMALL, "-i", f"image={tmp_path / 'many.npz'}", "-o", tmp_path / "o.npz")
    assert r.returncode == 2 and "and 1992 more, none named 'image'" in r.stderr and len(r.stderr) < 600, r.stderr
