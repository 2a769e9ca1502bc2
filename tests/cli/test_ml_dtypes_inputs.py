"""A bf16 model run from the command line: np.save writes an ml_dtypes array as untyped bytes ('<V2'), the only
file such an input can come in, and `run` takes those bytes as the type the Parameter (a bare layer: its input
port) declares. The outputs are OpenVINO's bits on this machine, whatever its CPU (compile_model with the f32 hint,
as run computes and --against compares)."""
import numpy as np
import pytest

from clitool import cli

pytestmark = [pytest.mark.openvino]


@pytest.fixture(scope="module")
def bf16_net(tmp_path_factory):
    """A bf16 Parameter into a MaxPool-1 and an AvgPool-1 (exclude-pad, ceil), written by openvino.save_model, and
    its input saved by np.save from an ml_dtypes array."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ov = pytest.importorskip("openvino")
    import openvino.opset1 as o1
    folder = tmp_path_factory.mktemp("bf16in")
    p = o1.parameter([1, 3, 7, 6], ov.Type.bf16, name="x")
    mp = o1.max_pool(p, [2, 2], [1, 0], [0, 1], [3, 2], "ceil")
    ap = o1.avg_pool(p, [2, 1], [1, 1], [1, 0], [2, 3], True, "ceil")
    mp.output(0).get_tensor().set_names({"mp"})
    ap.output(0).get_tensor().set_names({"ap"})
    xml = folder / "bf16.xml"
    ov.save_model(ov.Model([mp.output(0), ap.output(0)], [p]), str(xml))
    x = (np.random.default_rng(62).standard_normal((1, 3, 7, 6)) * 3).astype(ml_dtypes.bfloat16)
    np.save(folder / "x.npy", x)
    assert np.load(folder / "x.npy").dtype == np.dtype("V2")      # (what numpy gives back: bytes, no type)
    compiled = ov.Core().compile_model(str(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    request = compiled.create_infer_request()
    request.infer({0: ov.Tensor(x.view(np.uint16), x.shape, ov.Type.bf16)})
    want = {o.get_any_name(): request.get_tensor(o).data.view(np.uint16).copy() for o in compiled.outputs}
    return dict(folder=folder, xml=xml, x=x, want=want)


def test_a_bf16_npy_runs_the_net_to_openvinos_bits(bf16_net):
    out = bf16_net["folder"] / "y.npz"
    r = cli("run", bf16_net["xml"], "-i", f"x={bf16_net['folder'] / 'x.npy'}", "-o", out)
    assert r.returncode == 0, r.stderr
    with np.load(out) as y:
        got = {k: y[k].view(np.uint16) for k in y.files}
    by_shape = {a.shape: a for a in got.values()}          # (the two outputs differ in shape)
    assert len(got) == len(by_shape) == 2
    for name, want in bf16_net["want"].items():
        assert np.array_equal(by_shape[want.shape], want), name


def test_a_bf16_npy_runs_one_layer_and_meets_openvino(bf16_net):
    """--layer takes the bytes as its input port's precision; --against openvino hands the typed array on."""
    from lxml import etree
    avg = next(el.get("id") for el in etree.parse(str(bf16_net["xml"])).iter("layer") if el.get("type") == "AvgPool")
    r = cli("run", bf16_net["xml"], "--layer", f"id:{avg}", "-i", f"0={bf16_net['folder'] / 'x.npy'}", "--against",
            "openvino")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "irpool and OpenVINO agree bit for bit" in r.stdout
    assert "1: bfloat16 [1, 3, 5, 5]" in r.stdout      # (ceil((7 + 1 + 1 - 2) / 2) + 1, (6 + 1 - 3) / 1 + 1)


def test_bytes_of_another_width_are_still_refused(bf16_net, tmp_path):
    """Bytes are taken only where their width is the declared type's: 4-byte voids for a bf16 Parameter are
    an input of another type, named so."""
    np.save(tmp_path / "v4.npy", np.zeros((1, 3, 7, 6), np.float32).view("V4"))
    r = cli("run", bf16_net["xml"], "-i", f"x={tmp_path / 'v4.npy'}")
    assert r.returncode == 2, r.stdout + r.stderr
    assert "v4.npy (-i x): input 'x' has element type |V4, the Parameter declares bf16" in r.stderr


def test_a_layer_whose_unread_indices_the_plugin_refuses_is_compared_without_them(tmp_path):
    """run --layer of a bf16 MaxPool-8 whose indices the net does not read: where the plugin refuses the layer
    cut with its indices as an output (bf16 native: its reference has no bf16), --against compares the values and
    says why the indices are not; elsewhere it compares both. Which one is OpenVINO's on this machine."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as o8
    p = o8.parameter([1, 3, 4, 4], ov.Type.bf16, name="x")
    mp = o8.max_pool(p, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i32")
    mp.set_friendly_name("pool")
    ov.save_model(ov.Model([mp.output(0)], [p]), str(tmp_path / "m.xml"))
    both = ov.Model([mp.output(0), mp.output(1)], [p])
    try:
        ov.Core().compile_model(both, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        refused = False
    except RuntimeError:
        refused = True
    np.save(tmp_path / "x.npy", np.arange(48, dtype=np.float32).reshape(1, 3, 4, 4).astype(ml_dtypes.bfloat16))
    r = cli("run", tmp_path / "m.xml", "--layer", "pool", "-i", f"0={tmp_path / 'x.npy'}", "--against", "openvino")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "irpool and OpenVINO agree bit for bit" in r.stdout
    said = [line for line in r.stdout.splitlines() if line.startswith("2: ") and not line.startswith("2: int32 [")]
    if refused:
        assert len(said) == 1 and said[0].startswith("2: not compared: the model reads no edge from this output,"
                                                      " and OpenVINO refuses the layer cut with it as an output ("), said
    else:
        assert said == ["2: equal (27 elements)"], r.stdout
