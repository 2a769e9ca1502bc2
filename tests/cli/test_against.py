"""`irpool run --against openvino|onnxruntime` (issue 54 item 1, DESIGN.md section 11): the comparison on hand-made
arrays with known answers; the real runtimes on a MaxPool inside a net saved by openvino.save_model (--layer cuts
the model at it) and on ONNX MaxPool nodes; a planted one-ulp difference, a NaN, a -0.0 and a moved index found
and reported where they are; the documented cases read from schemas/against.json; the usage errors."""
import re
import sys

import numpy as np
import pytest

from irpool.against import documented
from irpool.against_compare import compare, shown
from irpool.cli import main

pytestmark = [pytest.mark.openvino, pytest.mark.onnxruntime]

F32 = np.float32
# The tests that need no runtime: the comparison on hand-made arrays, the schema's cases, the missing runtime.
_PURE = {"test_equal_bits_and_nan_payloads_are_equal", "test_ulps_nan_and_signed_zeros_are_counted_apart",
         "test_ulps_across_zero_and_over_the_whole_float64_range", "test_float16_and_bfloat16_ulps",
         "test_integers_indices_are_compared_by_their_difference", "test_first_positions_only_and_shapes_that_differ",
         "test_documented_cases_are_read_from_the_schema", "test_a_runtime_not_installed_is_a_usage_error_naming_the_extra"}


@pytest.fixture(autouse=True)
def _runtimes(request):
    """The others run OpenVINO and onnxruntime: they skip where those are not installed (.ci/run's floors)."""
    if request.node.originalname not in _PURE:
        pytest.importorskip("openvino")
        pytest.importorskip("onnxruntime")


# -- the comparison, on arrays whose answers are known by hand ---------------------------------------------------

def test_equal_bits_and_nan_payloads_are_equal():
    a = np.array([1.0, -0.0, np.inf, np.nan], F32)
    b = a.copy()
    b.view(np.uint32)[3] = 0x7FC00123                    # another NaN payload: still equal
    c = compare(a, b)
    assert c.equal and c.differ == 0 and c.size == 4 and not c.kinds


def test_ulps_nan_and_signed_zeros_are_counted_apart():
    ours = np.array([[1.0, 0.0, 2.0], [np.nan, 5.0, -0.0]], F32)
    theirs = np.array([[1.0, -0.0, 2.0], [3.0, 5.0, -0.0]], F32)
    ours[1, 1] = np.nextafter(np.nextafter(F32(5.0), F32(9)), F32(9))      # 2 ulps above 5.0
    ours[0, 2] = np.nextafter(F32(2.0), F32(0))                            # 1 ulp below 2.0
    c = compare(ours, theirs)
    assert (c.differ, c.nan, c.zero_sign, c.largest) == (4, 1, 1, 2)
    assert c.kinds == {"nan", "zero_sign", "ulps"}
    assert [p[0] for p in c.positions] == [(0, 1), (0, 2), (1, 0), (1, 1)]     # row-major order
    assert shown(c.positions[0][1]) == "0.0 (0x00000000)" and shown(c.positions[0][2]) == "-0.0 (0x80000000)"


def test_ulps_across_zero_and_over_the_whole_float64_range():
    tiny = np.array([1e-45], F32)                                          # the smallest float32 subnormal
    assert compare(tiny, -tiny).largest == 2                               # +1 place, -1 place
    assert compare(np.array([1.0], F32), np.array([np.inf], F32)).largest == 0x7F800000 - 0x3F800000
    big = np.finfo(np.float64).max
    c = compare(np.array([big]), np.array([-big]))
    assert c.largest == 2 * 0x7FEFFFFFFFFFFFFF                             # past int64: exact all the same


def test_float16_and_bfloat16_ulps():
    h = np.array([1.0, 2.0], np.float16)
    assert compare(h, np.nextafter(h, np.float16(3))).largest == 1
    ml_dtypes = pytest.importorskip("ml_dtypes")
    b = np.array([1.0, 1.0078125, -0.0], ml_dtypes.bfloat16)               # 1.0078125: one bfloat16 step above 1
    c = compare(b, np.array([1.0, 1.0, 0.0], ml_dtypes.bfloat16))
    assert (c.differ, c.largest, c.zero_sign) == (2, 1, 1)


def test_integers_indices_are_compared_by_their_difference():
    c = compare(np.array([0, 5, 7, 9], np.int64), np.array([0, 5, 10, 8], np.int64))
    assert (c.differ, c.largest, c.floating, c.kinds) == (2, 3, False, {"values"})
    assert c.positions == [((2,), 7, 10), ((3,), 9, 8)]


def test_first_positions_only_and_shapes_that_differ():
    c = compare(np.zeros((3, 4), F32), np.ones((3, 4), F32), first=5)
    assert c.differ == 12 and [p[0] for p in c.positions] == [(0, 0), (0, 1), (0, 2), (0, 3), (1, 0)]
    c = compare(np.zeros((1, 2), F32), np.zeros((2, 1), F32))
    assert not c.equal and c.kinds == {"shape"}
    assert compare(np.zeros(2, F32), np.zeros(2, np.float64)).kinds == {"type"}


def test_documented_cases_are_read_from_the_schema():
    avg = {"type": "AveragePool", "opset": 11, "outputs": 1, "spatial": {"2d"}}
    assert "before opset 19" in documented("onnxruntime", "onnx", avg, {"ulps"})
    assert documented("onnxruntime", "onnx", dict(avg, opset=19), {"ulps"}) is None
    assert documented("onnxruntime", "onnx", dict(avg, spatial={"1d"}), {"ulps"}) is None
    assert documented("onnxruntime", "onnx", avg, {"nan"}) is None
    mean = {"type": "ReduceMean", "opset": None, "outputs": 1, "spatial": {"2d", "global"}}
    assert "global ReduceMean" in documented("openvino", "ir", mean, {"ulps"})
    assert documented("openvino", "ir", mean, {"zero_sign"}) is None
    gmax = {"type": "GlobalMaxPool", "opset": 12, "outputs": 1, "spatial": {"2d", "global"}, "holds": {"nan"}}
    from irpool.opdefs import load
    assert documented("openvino", "onnx", gmax, {"nan"}).startswith(load("onnx")["runtimes"]["openvino_global_max_nan"])
    assert documented("openvino", "onnx", dict(gmax, holds=set()), {"nan"}) is None       # (no NaN, no zero given)


def test_a_case_is_named_only_where_its_conditions_hold():
    """Crash hunt 3 found cases named by op type and kinds alone: the count_include_pad case for an AveragePool
    without it, the NaN case for an input without NaN, the storage_order case for a node without it."""
    from irpool.opdefs import load
    rules = load("onnx")["runtimes"]
    avg = {"type": "AveragePool", "opset": 12, "outputs": 1, "spatial": {"2d"}, "holds": set()}
    order = "a mean's (or an Lp norm's) last bits"
    assert documented("openvino", "onnx", dict(avg, attrs={}), {"ulps"}).startswith(order)
    said = documented("openvino", "onnx", dict(avg, attrs={"count_include_pad": 1, "pads": [1, 1, 1, 1]}), {"ulps"})
    assert said.startswith(rules["openvino_count_include_pad"])
    assert documented("openvino", "onnx", dict(avg, attrs={"count_include_pad": 1, "pads": [0, 0, 0, 0]}),
                      {"ulps"}).startswith(order)
    assert documented("openvino", "onnx", dict(avg, attrs={}), {"nan"}) is None
    assert documented("openvino", "onnx", dict(avg, type="MaxPool", dtypes={"float64"}), {"ulps"}).startswith("a double")
    mp = {"type": "MaxPool", "opset": 22, "outputs": 1, "spatial": {"2d"}, "attrs": {}}
    assert documented("openvino", "onnx", dict(mp, holds=set()), {"ulps"}) is None
    assert documented("openvino", "onnx", dict(mp, holds={"nan"}), {"nan"}).startswith(rules["openvino_nan_first"])
    assert documented("openvino", "onnx", dict(mp, holds=set(), attrs={"kernel_shape": [2, 2]}), {"shape"}) is None
    assert documented("openvino", "onnx", dict(mp, holds=set(), attrs={"storage_order": 1}),
                      {"values"}).startswith(rules["openvino_storage_order"])


# -- against the real runtimes -----------------------------------------------------------------------------------

MAXPOOL = dict(strides=[2, 2], dilations=[1, 1], pads_begin=[1, 1], pads_end=[1, 1], kernel_shape=[3, 3])


def _ir_net(folder):
    """Parameter -> Multiply by 2 -> MaxPool-14 3x3/2 pad 1 (values and indices) -> AvgPool-14 -> Results, saved by
    openvino.save_model: the MaxPool's input is no Parameter of the net."""
    import openvino as ov
    import openvino.opset14 as ops
    x = ops.parameter([1, 4, 16, 16], ov.Type.f32, name="image")
    doubled = ops.multiply(x, ops.constant(np.full((1, 1, 1, 1), 2.0, F32)))
    pool = ops.max_pool(doubled, rounding_type="floor", auto_pad="explicit", index_element_type="i64", axis=0,
                        **MAXPOOL)
    pool.set_friendly_name("the_pool")
    avg = ops.avg_pool(pool.output(0), [2, 2], [0, 0], [0, 0], [2, 2], False)
    model = ov.Model([avg.output(0), pool.output(1)], [x], "net")
    path = folder / "net.xml"
    ov.save_model(model, str(path), compress_to_fp16=False)
    return path


def _openvino_maxpool(x):
    """OpenVINO's CPU plugin on a MaxPool-14 alone, built here: the peer irpool's output must equal."""
    import openvino as ov
    import openvino.opset14 as ops
    p = ops.parameter(list(x.shape), ov.Type.f32)
    pool = ops.max_pool(p, rounding_type="floor", auto_pad="explicit", index_element_type="i64", axis=0, **MAXPOOL)
    compiled = ov.Core().compile_model(ov.Model([pool.output(0), pool.output(1)], [p]), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32"})
    r = compiled(x)
    return r[compiled.outputs[0]], r[compiled.outputs[1]]


def _input(folder):
    """Negative values but for a 2x2 corner of +0.0 in channel 0: windows there have +0.0 as their maximum."""
    x = -np.random.default_rng(5).random((1, 4, 16, 16), dtype=F32) - F32(0.5)
    x[0, 0, :2, :2] = 0.0
    np.save(folder / "x.npy", x)
    return x


def _cli(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_a_layer_inside_a_net_equals_openvino(tmp_path, capsys):
    import openvino as ov
    net = _ir_net(tmp_path)
    _input(tmp_path)
    status, out, err = _cli(capsys, "run", net, "--layer", "the_pool", "-i", f"0={tmp_path / 'x.npy'}",
                            "--against", "openvino")
    assert status == 0, (out, err)
    assert f"against OpenVINO {ov.get_version()}" in out and "the model cut at layer" in out
    assert "\n1: equal bits (256 elements)\n2: equal (256 elements)\n" in out and "agree bit for bit" in out
    family = re.search(r"cpu family\s*:\s*(\d+)", open("/proc/cpuinfo").read())
    assert re.search(r"^CPU: .*family %s model \d+\): avx512f (yes|no), avx512_bf16 (yes|no), amx (yes|no)$"
                     % (family.group(1) if family else r"\S+"), out, re.M), out


def test_a_whole_net_by_result_names_equals_openvino(tmp_path, capsys):
    """examples/small_net.xml: outputs matched by Result name (pooled, argmax), the input by Parameter name."""
    import pathlib
    net = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"
    _input(tmp_path)
    status, out, err = _cli(capsys, "run", net, "-i", f"image={tmp_path / 'x.npy'}", "--against", "openvino")
    assert status == 0 and "\npooled: equal bits (64 elements)\nargmax: equal (256 elements)\n" in out, (out, err)
    assert "cut at" not in out


def test_a_bare_layer_is_put_in_a_net(tmp_path, capsys):
    """A bare <layer> file (examples/seed_maxpool_explicit.xml, with its dilations written out), which read_model
    does not take: run in a net of a Parameter, the layer and a Result per output port."""
    import pathlib
    seed = (pathlib.Path(__file__).parent.parent.parent / "examples" / "seed_maxpool_explicit.xml").read_text()
    (tmp_path / "layer.xml").write_text(seed.replace("<data ", '<data dilations="1,1" ', 1))
    np.save(tmp_path / "x.npy", np.random.default_rng(4).standard_normal((1, 3, 32, 32)).astype(F32))
    status, out, err = _cli(capsys, "run", tmp_path / "layer.xml", "-i", f"0={tmp_path / 'x.npy'}", "--against",
                            "openvino")
    assert status == 0 and "\n1: equal bits (867 elements)\n2: equal (867 elements)\n" in out, (out, err)


def test_a_planted_difference_is_found_where_it_is(tmp_path, capsys, monkeypatch):
    """irpool's output nudged after it is computed: one element 1 ulp, one 2 ulps, one NaN, one -0.0 for the
    plugin's +0.0, one index moved by 3; the report counts each apart and shows both values where they are."""
    from irpool.ir.run.program import Program
    net, x = _ir_net(tmp_path), _input(tmp_path)
    want, want_idx = _openvino_maxpool(x)      # (--layer: x is the MaxPool's own input)
    assert want[0, 0, 0, 0] == 0 and not np.signbit(want[0, 0, 0, 0])
    real_run = Program.run

    def planted(self, inputs, threads=None):
        out = real_run(self, inputs, threads)
        y, idx = out["1"], out["2"]
        y[0, 0, 0, 0] = -0.0
        y[0, 1, 2, 3] = np.nextafter(y[0, 1, 2, 3], F32(np.inf))
        y[0, 2, 0, 5] = np.nextafter(np.nextafter(y[0, 2, 0, 5], F32(-np.inf)), F32(-np.inf))
        y[0, 3, 7, 7] = np.nan
        idx[0, 2, 1, 1] += 3
        return out
    monkeypatch.setattr(Program, "run", planted)
    status, out, err = _cli(capsys, "run", net, "--layer", "the_pool", "-i", f"0={tmp_path / 'x.npy'}",
                            "--against", "openvino")
    assert status == 1, (out, err)
    assert "1: 4 of 256 elements differ: 2 by up to 2 ulps, 1 NaN on one side only, 1 -0.0 against +0.0\n" in out
    lines = re.findall(r"^  at (\[[\d, ]+\]): irpool (.*), OpenVINO (.*)$", out, re.M)
    assert [at for at, _, _ in lines] == ["[0, 0, 0, 0]", "[0, 1, 2, 3]", "[0, 2, 0, 5]", "[0, 3, 7, 7]",
                                         "[0, 2, 1, 1]"]
    assert lines[0][1:] == ("-0.0 (0x80000000)", "0.0 (0x00000000)")
    up = np.nextafter(want[0, 1, 2, 3], F32(np.inf))
    assert lines[1][1:] == (f"{str(up)} (0x{up.view(np.uint32):08x})",
                            f"{str(want[0, 1, 2, 3])} (0x{want[0, 1, 2, 3].view(np.uint32):08x})")
    assert lines[3][1].startswith("nan") and lines[3][2] == shown(want[0, 3, 7, 7])
    assert lines[4][1:] == (str(want_idx[0, 2, 1, 1] + 3), str(want_idx[0, 2, 1, 1]))
    assert "2: 1 of 256 elements differ: 1 by up to 3\n" in out
    assert "not one of the documented differences" in out


def _onnx_maxpool(folder, opset=12, indices=True):
    import onnx
    from onnx import helper as h
    outs = ["y", "i"] if indices else ["y"]
    relu = h.make_node("Relu", ["x"], ["r"], name="relu")
    pool = h.make_node("MaxPool", ["r"], outs, name="pool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    g = h.make_graph([relu, pool], "g", [h.make_tensor_value_info("x", 1, ["n", 4, 16, 16])],
                     [h.make_tensor_value_info("y", 1, None)] + ([h.make_tensor_value_info("i", 7, None)]
                                                                 if indices else []))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)])
    m.ir_version = 8
    onnx.save(m, str(folder / "pool.onnx"))
    return folder / "pool.onnx"


@pytest.mark.parametrize("runtime", ["onnxruntime", "openvino"])
def test_an_onnx_node_equals_the_runtime(tmp_path, capsys, runtime):
    model = _onnx_maxpool(tmp_path)
    x = np.random.default_rng(1).standard_normal((2, 4, 16, 16)).astype(F32)
    np.save(tmp_path / "r.npy", np.maximum(x, 0))
    status, out, err = _cli(capsys, "run", model, "--layer", "pool", "-i", f"0={tmp_path / 'r.npy'}",
                            "--against", runtime)
    assert status == 0, (out, err)
    assert "\ny: equal bits (512 elements)\ni: equal (512 elements)\n" in out


def test_an_onnx_difference_is_found(tmp_path, capsys, monkeypatch):
    import onnxruntime as ort
    from irpool.onnx.program import NodeProgram
    model = _onnx_maxpool(tmp_path, indices=False)
    np.save(tmp_path / "r.npy", np.random.default_rng(2).random((1, 4, 16, 16), dtype=F32))
    real_run = NodeProgram.run

    def planted(self, inputs, threads=None):
        out = real_run(self, inputs, threads)
        out["y"][0, 1, 1, 1] = np.nextafter(out["y"][0, 1, 1, 1], F32(0))
        return out
    monkeypatch.setattr(NodeProgram, "run", planted)
    status, out, err = _cli(capsys, "run", model, "--layer", "pool", "-i", f"0={tmp_path / 'r.npy'}",
                            "--against", "onnxruntime")
    assert status == 1 and f"against onnxruntime {ort.__version__}" in out, (out, err)
    assert "y: 1 of 256 elements differ: 1 by up to 1 ulp\n  at [0, 1, 1, 1]: irpool " in out


def test_a_documented_difference_is_named_or_the_bits_agree(tmp_path, capsys):
    """A global ReduceMean of Model Optimizer 2021.4 (its axes from a ShapeOf subgraph, kept in the cut): the
    plugin's order of additions follows its layout and the CPU, so the bits agree or the case is named."""
    import pathlib
    import shutil
    examples = pathlib.Path(__file__).parent.parent.parent / "examples"
    for name in ("mo2021_pools.xml", "mo2021_pools.bin"):
        shutil.copy(examples / name, tmp_path / name)
    np.save(tmp_path / "v.npy", np.random.default_rng(3).random((2, 3, 4, 5, 6), dtype=F32))
    status, out, err = _cli(capsys, "run", tmp_path / "mo2021_pools.xml", "--layer", "volume_mean", "-i",
                            f"0={tmp_path / 'v.npy'}", "--against", "openvino")
    if status == 0:
        assert out.rstrip().endswith("irpool and OpenVINO agree bit for bit"), (out, err)
    else:
        assert status == 1 and "documented: a global ReduceMean" in out, (out, err)


def test_a_refusal_and_a_crash_of_the_runtime_are_reported(tmp_path, capsys, monkeypatch):
    """examples/seed_maxpool_valid.xml as it is (no dilations attribute) run as a bare layer (a Result per port in
    OpenVINO's net): OpenVINO 2026.4 compiles it but fails every inference (its reference MaxPool takes the missing
    dilations as an empty list: tests/ir/test_inference.py), and irpool's run refuses it the same way, before
    asking the runtime. With dilations written it runs: a runtime that refuses it, or dies, is reported. Each
    exits 1 or 2, never a traceback."""
    import pathlib

    import irpool.against
    seed = pathlib.Path(__file__).parent.parent.parent / "examples" / "seed_maxpool_valid.xml"
    np.save(tmp_path / "x.npy", np.zeros((1, 3, 32, 32), F32))
    status, out, err = _cli(capsys, "run", seed, "-i", f"0={tmp_path / 'x.npy'}", "--against", "openvino")
    assert status == 2 and "seed_maxpool_valid.xml:2: layer id=1 name='pool1'" in err and \
        "every inference fails" in err and not out, (out, err)
    written = tmp_path / "seed.xml"
    written.write_text(seed.read_text().replace('auto_pad="valid"', 'auto_pad="valid" dilations="1,1"'))
    argv = ["run", written, "-i", f"0={tmp_path / 'x.npy'}", "--against", "openvino"]
    monkeypatch.setattr(irpool.against, "_ask", lambda *a: {"version": "?", "outputs": [], "refused": "no such kernel"})
    status, out, err = _cli(capsys, *argv)
    assert status == 1 and "\nOpenVINO refuses it: no such kernel" in out and "bare layer id=1" in out, (out, err)
    monkeypatch.undo()
    monkeypatch.setattr(irpool.against, "_CHILD", "import os; os.abort()")
    status, out, err = _cli(capsys, *argv)
    assert status == 1 and "\nOpenVINO crashed: exit status -6" in out, (out, err)


# -- usage errors (exit 2) ---------------------------------------------------------------------------------------

def test_a_runtime_not_installed_is_a_usage_error_naming_the_extra(tmp_path, capsys, monkeypatch):
    model = _onnx_maxpool(tmp_path)
    np.save(tmp_path / "r.npy", np.zeros((1, 4, 16, 16), F32))
    for runtime, install in (("onnxruntime", "pip install onnxruntime"), ("openvino", "pip install openvino")):
        monkeypatch.setitem(sys.modules, runtime, None)          # (an import of it fails, as where it is missing)
        status, out, err = _cli(capsys, "run", model, "--layer", "pool", "-i", f"0={tmp_path / 'r.npy'}",
                                "--against", runtime)
        assert status == 2 and install in err and f"[against-{runtime}]" in err and not out, err


def test_onnxruntime_on_ir_and_standard_input_are_usage_errors(tmp_path, capsys):
    net, _ = _ir_net(tmp_path), _input(tmp_path)
    status, _, err = _cli(capsys, "run", net, "-i", f"image={tmp_path / 'x.npy'}", "--against", "onnxruntime")
    assert status == 2 and "use --against openvino" in err
    status, _, err = _cli(capsys, "run", "-", "-i", f"image={tmp_path / 'x.npy'}", "--against", "openvino")
    assert status == 2 and "not standard input" in err


def test_a_cpu_tier_runs_the_runtime_under_its_isa_limit(tmp_path, capsys):
    """--cpu avx2: the plugin run under ONEDNN_MAX_CPU_ISA=AVX2 (MaxPool's bits are the same on every tier);
    a tier above this machine's is a usage error."""
    from irpool import cpu
    host = cpu.host()
    if host is None or "avx2" not in host.isas:
        pytest.skip("this machine's CPU tier is below avx2, or unknown")
    net, _ = _ir_net(tmp_path), _input(tmp_path)
    argv = ["run", net, "--layer", "the_pool", "-i", f"0={tmp_path / 'x.npy'}", "--against", "openvino"]
    status, out, err = _cli(capsys, *argv, "--cpu", "avx2")
    assert status == 0 and ", ONEDNN_MAX_CPU_ISA=AVX2" in out and "\n1: equal bits" in out, (out, err)
    above = [t.name for t in cpu.tiers() if t.name not in host.isas]
    if above:
        status, out, err = _cli(capsys, *argv, "--cpu", above[-1])
        assert status == 2 and f"not at {above[-1]}" in err and not out, (out, err)


def test_a_global_mean_after_a_convolution_is_compared_as_the_runtime_ran_it(tmp_path, capsys):
    """In its model a global ReduceMean after a Convolution adds in the channels-last order; cut from the model its
    input is a Parameter and the plugin keeps it planar: --against compares with irpool's planar order, says so,
    and the two agree bit for bit (40 channels, 7x7: the two orders differ in most of them)."""
    import openvino as ov
    import openvino.opset14 as ops
    x = ops.parameter([1, 3, 9, 9], ov.Type.f32, name="image")
    w = np.random.default_rng(3).standard_normal((40, 3, 3, 3)).astype(F32)
    conv = ops.convolution(x, ops.constant(w), [1, 1], [0, 0], [0, 0], [1, 1])
    mean = ops.reduce_mean(conv, ops.constant(np.array([2, 3], np.int64)), True)
    mean.set_friendly_name("gap")
    path = tmp_path / "gap.xml"
    ov.save_model(ov.Model([mean.output(0)], [x], "gap"), str(path), compress_to_fp16=False)
    np.save(tmp_path / "y.npy", np.random.default_rng(4).standard_normal((1, 40, 7, 7)).astype(F32) * F32(3))
    status, out, err = _cli(capsys, "run", str(path), "--layer", "gap", "-i", f"0={tmp_path / 'y.npy'}",
                            "--against", "openvino")
    assert "channels-last" in out and "compared in that order" in out, out
    assert status == 0 and "agree bit for bit" in out, (out, err)


@pytest.mark.skipif(not hasattr(__import__("signal"), "SIGTERM") or sys.platform == "win32", reason="POSIX signals")
def test_sigterm_while_the_runtime_runs_leaves_no_folder(tmp_path, capsys, monkeypatch):
    """SIGTERM (or SIGHUP) while the runtime's child runs ends the run with 128 + the signal and removes the folder
    the request was written to (crash hunt 3 found /tmp/irpool-against-* left behind, the exit the raw signal)."""
    import os
    import signal
    import tempfile
    from irpool import against as against_module
    pytest.importorskip("openvino")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    seen = []

    def ask(runtime, request, folder, cpu):
        seen.append(folder)
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("SIGTERM did not stop the run")
    monkeypatch.setattr(against_module, "_ask", ask)
    import pathlib
    net = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"
    (tmp_path / "in").mkdir()
    np.save(tmp_path / "in" / "x.npy", np.random.default_rng(1).standard_normal((1, 4, 16, 16)).astype(F32))
    with pytest.raises(SystemExit) as stop:
        main(["run", str(net), "-i", f"image={tmp_path / 'in' / 'x.npy'}", "--against", "openvino"])
    assert stop.value.code == 128 + signal.SIGTERM and seen and not os.path.exists(seen[0])
    assert [p.name for p in tmp_path.iterdir()] == ["in"]


@pytest.mark.parametrize("bins, indices_read", [(1, False), (1, True), (2, False)])
def test_an_adaptive_max_to_one_cell_is_cut_with_the_outputs_the_model_reads(tmp_path, capsys, bins, indices_read):
    """The plugin runs an AdaptiveMaxPool of one output cell as a ReduceMax where no edge reads its indices: the cut
    keeps its indices only where the model reads them, as irpool's run does (a NaN before larger taps decides); to
    two cells, the plugin runs its own loop and the cut keeps them (stop 61's review found that dropped too)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    p = o1.parameter([1, 3, 5], ov.Type.f32, name="x")
    node = o8.adaptive_max_pool(p, o1.constant(np.array([bins], np.int64)), "i32")
    node.set_friendly_name("pool")
    outs = [node.output(0)] + ([node.output(1)] if indices_read else [])
    ov.save_model(ov.Model([o1.result(o) for o in outs], [p]), str(tmp_path / "m.xml"))
    np.save(tmp_path / "x.npy", np.array([[[np.nan, 1, 2, 3, 4], [1, 2, 3, 4, np.nan], [-0.0, 0, 0, 0, 0]]], F32))
    status, out, err = _cli(capsys, "run", tmp_path / "m.xml", "--layer", "pool", "-i", f"0={tmp_path / 'x.npy'}",
                            "--against", "openvino")
    assert status == 0 and "agree bit for bit" in out, (out, err)
    assert (f"\n3: equal ({3 * bins} elements)" in out) == (indices_read or bins > 1), out
