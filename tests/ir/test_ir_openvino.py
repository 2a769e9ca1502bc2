"""IR written by OpenVINO itself: irpool.check must find it clean where the CPU plugin compiles it, irpool.run
must equal the CPU plugin, and whatever OpenVINO refuses (read_model, op validation or compile) irpool refuses
too."""
import numpy as np
import pytest

import irpool
from bits import assert_same_bits
from irbuild import net_xml
from ovbuild import assert_same_as_openvino, ov_model, ov_outputs, random_config, random_input

pytestmark = [pytest.mark.openvino]

ov = pytest.importorskip("openvino")


@pytest.mark.parametrize("seed", range(8))
def test_saved_ir_is_clean_and_runs_like_openvino(seed, tmp_path):
    rng = np.random.default_rng(7000 + seed)
    done = set()
    ran = 0
    for i in range(40):
        cfg = random_config(rng, dynamic=bool(rng.random() < 0.3))
        try:
            model = ov_model(cfg)
        except RuntimeError:
            continue
        path = tmp_path / f"m{i}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        report = irpool.check(path)
        try:                                 # the verdict is read_model's and compile_model's
            ov.Core().compile_model(model, "CPU")
        except RuntimeError:                 # (e.g. exclude-pad with pads >= kernel on a dynamic axis)
            assert not report.ok, path.read_text()
            continue
        assert report.ok, [str(f) for f in report.findings]
        static = {k: v for k, v in cfg.items() if k != "dynamic_axes"}
        x = random_input(rng, cfg)
        # a dynamic same_* axis runs with pads 0 in the CPU plugin (a runtime bug): compare with the static net
        program = irpool.load(path)          # the prepared form: the same outputs and refusals, run twice
        try:
            want = ov_outputs(static, x)
        except RuntimeError:                 # the concrete input does not fit the kernel: both refuse
            with pytest.raises(irpool.IRError):
                irpool.run(path, {"x": x})
            with pytest.raises(irpool.IRError):
                program.run({"x": x})
            continue
        got = list(irpool.run(path, {"x": x}).values())
        assert_same_as_openvino(got, want, cfg)
        for _ in range(2):
            assert_same_as_openvino(list(program.run({"x": x}).values()), want, cfg)
        done.add((cfg["op"], cfg["version"], len(cfg["shape"]), cfg["dtype"], bool(cfg.get("dynamic_axes"))))
        ran += 1
    assert ran >= 15


def test_random_configs_cover_the_space():
    """The random layers above reach all six op versions, ranks 3-5, both dtypes families and dynamic dims."""
    rng = np.random.default_rng(7000)
    seen = set()
    for _ in range(400):
        cfg = random_config(rng, dynamic=bool(rng.random() < 0.3))
        seen.add((cfg["op"], cfg["version"]))
        seen.add(len(cfg["shape"]))
        seen.add(cfg["rounding_type"])
        seen.add(cfg["auto_pad"])
        seen.add(cfg["dtype"])
    assert {("MaxPool", 1), ("MaxPool", 8), ("MaxPool", 14), ("AvgPool", 1), ("AvgPool", 14), ("AvgPool", 16)} <= seen
    assert {3, 4, 5, "floor", "ceil", "ceil_torch", "valid", "same_upper", "same_lower", "explicit",
            "float32", "float16", "int32", "uint8"} <= seen


def _wild_config(rng):
    """Random layers that are often invalid: zero strides, huge kernels, axis out of range, pads >= kernel,
    ceil_torch in old versions, lists of the wrong length."""
    cfg = random_config(rng)
    nd = len(cfg["shape"]) - 2
    r = rng.random()
    if r < 0.12:
        cfg["strides"] = [0] + cfg["strides"][1:]
    elif r < 0.24:
        cfg["kernel"] = [int(cfg["shape"][2] + rng.integers(1, 6))] + cfg["kernel"][1:]
        cfg["auto_pad"] = "explicit"
    elif r < 0.36 and "axis" in cfg:
        cfg["axis"] = int(rng.choice([-(nd + 3), nd + 2, nd + 5]))
    elif r < 0.5 and cfg["op"] == "AvgPool":
        cfg["pads_begin"] = [k + int(rng.integers(0, 2)) for k in cfg["kernel"]]
        cfg["auto_pad"] = "explicit"
    elif r < 0.6:
        cfg["rounding_type"] = "ceil_torch"
    elif r < 0.7:
        cfg["pads_end"] = cfg["pads_end"] + [0]
    elif r < 0.78 and "dilations" in cfg:
        cfg["dilations"] = [0] * nd
    return cfg


def _openvino_accepts(xml: str, x: np.ndarray) -> bool:
    """Whether OpenVINO reads, compiles and infers the net; a refusal must happen twice to count."""
    for _ in range(2):
        core = ov.Core()
        try:
            model = core.read_model(model=xml, weights=ov.Tensor(np.zeros(0, np.uint8)))
            compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            compiled([x])
            return True
        except RuntimeError as e:
            message = str(e)
    print("OpenVINO refuses:", message.splitlines()[-1] if message else "")
    return False


@pytest.mark.parametrize("seed", range(4))
def test_what_openvino_refuses_irpool_refuses(seed):
    rng = np.random.default_rng(9100 + seed)
    refused = accepted = 0
    for _ in range(50):
        cfg = _wild_config(rng)
        xml = net_xml(cfg)
        x = random_input(rng, cfg)
        ov_ok = _openvino_accepts(xml, x)
        try:
            irpool.run(xml, {"x": x})
            ir_ok = True
        except irpool.IRError:
            ir_ok = False
        assert ov_ok == ir_ok, (cfg, "OpenVINO accepts" if ov_ok else "OpenVINO refuses", x.shape)
        if not ov_ok:
            assert not irpool.check(xml).ok, cfg
        refused += not ov_ok
        accepted += ov_ok
    assert refused >= 5 and accepted >= 5, (refused, accepted)


def test_windows_that_do_not_overlap_run_like_openvino_on_large_inputs(tmp_path):
    """Inputs of 256 KB and more whose windows lie inside, or stride 1 with "same" padding, take the core's direct
    path (direct.py): saved by OpenVINO, run by irpool, equal to the CPU plugin's outputs, max and average, floor
    and ceil."""
    from directcases import counting_direct, random_case
    rng, compared, through = np.random.default_rng(5), 0, 0
    for i in range(40):
        k, s, pb, pe, shape = random_case(rng)
        op = str(rng.choice(["MaxPool", "AvgPool"], p=[0.75, 0.25]))     # (the direct path runs max only)
        cfg = dict(op=op, version=1, dtype="float32", auto_pad="explicit", shape=shape, kernel=k, strides=s,
                   dilations=[1] * len(k), pads_begin=pb, pads_end=pe, rounding_type=str(rng.choice(["floor", "ceil"])),
                   exclude_pad=bool(rng.integers(0, 2)), index_element_type="i64", axis=0)
        x = rng.standard_normal(shape).astype(np.float32)
        try:
            model = ov_model(cfg)
            want = ov_outputs(cfg, x)
        except RuntimeError:
            continue
        path = tmp_path / f"m{i}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        with counting_direct() as calls:
            got = list(irpool.run(path, {"x": x}, threads=1).values())
        compared, through = compared + 1, through + bool(calls)
        for a, b in zip(got, want):
            assert_same_bits(a, b, cfg)
    assert compared >= 30 and through >= 10, (compared, through)


@pytest.mark.parametrize("index_type", ["i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32"])
def test_run_refuses_the_index_types_the_plugin_compiles_but_cannot_run(index_type, tmp_path):
    """read_model and compile take MaxPool-8 with any index_element_type (check has no error); inference of a net
    that reads the indices fails on some (the plugin's reference MaxPool): check warns and run refuses exactly
    those, equal to the plugin on the rest."""
    from pathlib import Path
    small = (Path(__file__).parent.parent.parent / "examples" / "small_net.xml").read_text()
    path = tmp_path / "idx.xml"
    precision = {"f16": "FP16", "f32": "FP32"}.get(index_type, index_type.upper())
    path.write_text(small.replace('index_element_type="i64"', f'index_element_type="{index_type}"')
                    .replace('<port id="2" precision="I64">', f'<port id="2" precision="{precision}">')
                    .replace('<port id="0" precision="I64">', f'<port id="0" precision="{precision}">'))
    report = irpool.check(path)
    assert report.ok
    warned = "fails-at-inference" in [f.code for f in report.findings]
    x = np.random.default_rng(3).random((1, 4, 16, 16)).astype(np.float32)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(path), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    try:
        result = compiled([x])
    except RuntimeError:
        assert warned, [str(f) for f in report.findings]
        with pytest.raises(irpool.IRError, match="every inference fails"):
            irpool.run(path, {"image": x})
        return
    assert not warned, [str(f) for f in report.findings]
    want = [result[o] for o in compiled.outputs]
    got = list(irpool.run(path, {"image": x}).values())
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        assert_same_bits(g, w)
