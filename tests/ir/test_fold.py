"""Shape inputs that are not Consts: Model Optimizer 2021.4 (IR v10) writes every global pool as a ReduceMean or
ReduceMax whose axes are Range(2, Squeeze(ShapeOf(ShapeOf(x)), [0]), 1). irpool folds ShapeOf, Squeeze and Range
(irpool/ir/ops/fold.py) and must then say what OpenVINO's read_model infers and run what the plugin runs; anything
else it cannot fold stays an `unchecked` warning that says why, never a guess and never a traceback.
examples/mo2021_pools.xml was written by Model Optimizer 2021.4 itself (examples/make_mo2021_pools.py)."""
import json
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import irpool
import shapeir
from bits import assert_same_bits
from irpool.ir.explain import explain_entries

ov = pytest.importorskip("openvino")
import openvino.opset1 as o1  # noqa: E402
import openvino.opset3 as o3  # noqa: E402
import openvino.opset4 as o4  # noqa: E402
import openvino.opset15 as o15  # noqa: E402

pytestmark = [pytest.mark.openvino]

CORE = ov.Core()
F32 = {"INFERENCE_PRECISION_HINT": "f32"}
EXAMPLE = pathlib.Path(__file__).parent.parent.parent / "examples" / "mo2021_pools.xml"
REDUCTIONS = ("ReduceMean", "ReduceMax")


def inferred(model) -> dict:
    """What read_model infers for each reduction's output: {friendly name: dims}."""
    return {n.get_friendly_name(): [d.get_length() for d in n.get_output_partial_shape(0)]
            for n in model.get_ordered_ops() if n.get_type_name() in REDUCTIONS}


def at_layers(model, inputs: dict) -> dict:
    """The plugin's values at each reduction's data input and output, out of the whole compiled model:
    {friendly name: (input, output)}."""
    nodes = [n for n in model.get_ordered_ops() if n.get_type_name() in REDUCTIONS]
    model.add_outputs([v for n in nodes for v in (n.input_value(0), n.output(0))])
    where = {}
    for k, out in enumerate(model.outputs):
        src = out.get_node().input_value(0)
        where.setdefault((src.get_node().get_friendly_name(), src.get_index()), k)
    result = CORE.compile_model(model, "CPU", F32)(inputs)
    values = list(result.values())

    def value(v):
        return np.asarray(values[where[(v.get_node().get_friendly_name(), v.get_index())]])
    return {n.get_friendly_name(): (value(n.input_value(0)), value(n.output(0))) for n in nodes}


def same(kind, got, want, what):
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape)
    if kind == "ReduceMax":
        assert_same_bits(got, want, what)
    else:       # the plugin's JIT Reduce adds in an order of its own (docs/exactness.md)
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=str(what))


def test_a_model_optimizer_2021_file_is_checked_and_run_as_openvino_reads_it():
    report = irpool.check(EXAMPLE)
    assert report.ok and not report.findings, [str(f) for f in report.findings]
    assert report.kinds == {"MaxPool": 1, "AvgPool": 1, "global ReduceMean": 2, "global ReduceMax": 2}, report.kinds
    model = CORE.read_model(EXAMPLE)
    assert {n.get_type_name() for n in model.get_ordered_ops()} >= {"Range", "Squeeze", "ShapeOf"}
    entries = {e["layer_name"]: e for e in explain_entries(EXAMPLE)}
    dims = inferred(model)
    assert len(dims) == 4
    for name, want in dims.items():
        assert entries[name]["outputs"][0]["computed"] == [str(d) for d in want], name
        assert "(folded from Range id=" in entries[name]["axes"][0]["arithmetic"]
    rng = np.random.default_rng(0)
    inputs = {i.get_any_name(): rng.standard_normal([d.get_length() for d in i.get_partial_shape()]).astype(np.float32)
              for i in model.inputs}
    kinds = {n.get_friendly_name(): n.get_type_name() for n in model.get_ordered_ops()}
    for name, (x, want) in at_layers(model, inputs).items():
        (got,) = irpool.run(EXAMPLE, x, layer=name).values()
        same(kinds[name], got, want, name)


def test_a_wrong_dim_after_a_folded_range_is_found_at_its_line(tmp_path):
    text = EXAMPLE.read_text()
    m = re.search(r'name="volume_mean" type="ReduceMean".*?<output>\s*<port id="\d+"[^>]*>\s*<dim>\d+</dim>\s*'
                  r"<dim>\d+</dim>\s*<dim>(\d+)</dim>", text, re.S)
    bad = tmp_path / "bad.xml"
    bad.write_text(text[:m.start(1)] + "4" + text[m.end(1):])
    (tmp_path / "bad.bin").write_bytes(EXAMPLE.with_suffix(".bin").read_bytes())
    errors = [f for f in irpool.check(bad).errors() if f.code != "edge-mismatch"]   # (the Result's edge too)
    assert [(f.code, f.line, f.layer_name) for f in errors] == \
        [("shape-mismatch", text[:m.start(1)].count("\n") + 1, "volume_mean")], [str(f) for f in errors]
    assert "D: computed 1, declared 4" in errors[0].message and "folded from Range id=" in errors[0].message
    assert inferred(CORE.read_model(bad))["volume_mean"] == [2, 3, 1, 1, 1]    # read without a word: 1 all the same
    r = subprocess.run([sys.executable, "-m", "irpool", "check", "--fix", str(bad)], capture_output=True, text=True)
    assert r.returncode == 0 and "D 4 -> 1" in r.stdout, (r.stdout, r.stderr)
    assert bad.read_text() == text                           # --fix wrote back exactly what the converter wrote


def _mo_pattern(rng):
    """ReduceMean/ReduceMax over Range(start, Squeeze(ShapeOf(ShapeOf(x)), axes?), step), in the op versions
    converters write (ShapeOf-1 or -3, Range-1 or -4, Squeeze-1 with its axes or Squeeze-15 without)."""
    rank = int(rng.integers(3, 6))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 6))] + [int(v) for v in rng.integers(1, 8, rank - 2)]
    x = o1.parameter(shape, np.float32, name="x")
    shape_of = o3.shape_of if rng.random() < 0.5 else o1.shape_of
    ranked = shape_of(shape_of(x))
    rank_node = o1.squeeze(ranked, o1.constant(np.array([0], np.int64))) if rng.random() < 0.7 else o15.squeeze(ranked)
    start = int(rng.choice([2, 2, 2, 1, 0, rank - 1]))
    step = int(rng.choice([1, 1, 1, 2]))
    k = [o1.constant(np.int64(start)), rank_node, o1.constant(np.int64(step))]
    axes = o4.range(*k, "i64") if rng.random() < 0.5 else o1.range(*k)
    kind = str(rng.choice(REDUCTIONS))
    node = (o1.reduce_mean if kind == "ReduceMean" else o1.reduce_max)(x, axes, bool(rng.integers(0, 2)))
    node.set_friendly_name("r")
    return ov.Model([node.output(0)], [x]), shape, kind, list(range(start, rank, step))


def test_folded_axes_say_what_read_model_infers_and_run_as_the_plugin(tmp_path):
    rng, globals_ = np.random.default_rng(4), 0
    for i in range(24):
        model, shape, kind, axes = _mo_pattern(rng)
        xml = tmp_path / f"m{i}.xml"
        ov.save_model(model, xml, compress_to_fp16=False)
        assert "ShapeOf" in xml.read_text() and "Range" in xml.read_text()
        report = irpool.check(xml)
        assert not report.findings, [str(f) for f in report.findings]
        is_global = set(axes) == set(range(2, len(shape)))
        assert report.kinds == ({f"global {kind}": 1} if is_global else {}), (axes, shape)
        if not is_global:           # a reduction over other axes: not pooling, refused by run
            with pytest.raises(irpool.IRError, match="not a pooling"):
                irpool.run(xml, np.zeros(shape, np.float32), layer="r")
            continue
        globals_ += 1
        (entry,) = explain_entries(xml)
        assert entry["outputs"][0]["computed"] == [str(d) for d in inferred(CORE.read_model(xml))["r"]]
        x = (np.random.default_rng(i).standard_normal(shape) * 4).astype(np.float32)
        (_, want), = at_layers(CORE.read_model(xml), {"x": x}).values()
        (got,) = irpool.run(xml, x, layer="r").values()
        same(kind, got, want, (axes, shape))
    assert globals_ >= 10


def _edit(tmp_path, how):
    """The example with one change the folding cannot follow; (path, the change's reason as the warning says it)."""
    text, binary = EXAMPLE.read_text(), EXAMPLE.with_suffix(".bin").read_bytes()
    squeeze = re.search(r'<layer id="(\d+)" name="[^"]*volume_mean[^"]*" type="Squeeze"', text)
    shape_of = re.search(r'<layer id="\d+" name="[^"]*volume_mean[^"]*rank_of" type="ShapeOf".*?<dim>(5)</dim>',
                         text, re.S)
    if how == "an op it does not fold":
        text = text.replace(squeeze.group(0), squeeze.group(0).replace('type="Squeeze"', 'type="Reshape"'))
        why = f"layer {squeeze.group(1)} is neither a Const nor one of the ops irpool folds"
    elif how == "a dynamic dim":
        text = text[:shape_of.start(1)] + "-1" + text[shape_of.end(1):]
        why = "reads a shape that is not static"
    elif how == "a cycle":
        m = re.search(rf'<edge from-layer="\d+" from-port="(\d+)" to-layer="{squeeze.group(1)}" to-port="0"', text)
        rng = re.search(r'<layer id="(\d+)" name="[^"]*volume_mean[^"]*" type="Range"', text)
        out_port = re.search(rf'<layer id="{rng.group(1)}".*?<output>\s*<port id="(\d+)"', text, re.S).group(1)
        text = text.replace(m.group(0), f'<edge from-layer="{rng.group(1)}" from-port="{out_port}"'
                                         f' to-layer="{squeeze.group(1)}" to-port="0"')
        why = "more than 32 ops (or a cycle)"
    elif how == "a step of 0":
        offsets = [int(v) for v in re.findall(r'offset="(\d+)" size="8"', text)]
        binary = bytearray(binary)
        for off in set(offsets):               # every scalar Const of the example's Ranges that holds a 1
            if int.from_bytes(binary[off:off + 8], "little") == 1:
                binary[off:off + 8] = bytes(8)
        why = "its step is 0"
    path = tmp_path / "edited.xml"
    path.write_text(text)
    path.with_suffix(".bin").write_bytes(bytes(binary))
    return path, why


@pytest.mark.parametrize("how", ["an op it does not fold", "a dynamic dim", "a cycle"])
def test_what_is_not_folded_is_unchecked_and_says_why(how, tmp_path):
    path, why = _edit(tmp_path, how)
    report = irpool.check(path)
    unchecked = [f for f in report.findings if f.code == "unchecked"]
    assert unchecked and all(f.severity == "warning" for f in unchecked), [str(f) for f in report.findings]
    assert any(f.layer_name == "volume_mean" and why in f.message for f in unchecked), [str(f) for f in unchecked]
    r = subprocess.run([sys.executable, "-m", "irpool", "check", str(path)], capture_output=True, text=True)
    assert r.returncode == (0 if report.ok else 1) and "Traceback" not in r.stderr and why in r.stdout, \
        (r.stdout, r.stderr)     # (the cycle's edge joins [3] to [1]: an edge-mismatch error too)
    with pytest.raises(irpool.IRError, match=re.escape(why)) as e:
        irpool.run(path, np.zeros((2, 3, 4, 5, 6), np.float32), layer="volume_mean")
    assert e.value.code == "unsupported" and e.value.layer_name == "volume_mean"


def test_without_the_weights_file_the_folded_layers_are_unchecked():
    report = irpool.check(EXAMPLE.read_text())              # a string: no .bin beside it
    unchecked = sorted(f.layer_name for f in report.findings if f.code == "unchecked")
    assert unchecked == ["max", "mean", "sequence_max", "volume_mean"], [str(f) for f in report.findings]
    assert all("from Consts whose values are in the weights file" in f.message for f in report.findings)
    assert report.kinds == {"MaxPool": 1, "AvgPool": 1}


def test_a_step_of_0_is_refused_as_read_model_refuses_it(tmp_path):
    """A Range step of 0 was left unchecked; OpenVINO's read_model refuses the file ("'step' cannot be zero"):
    every reduction it feeds is an error, naming the Range, and run refuses it."""
    path, why = _edit(tmp_path, "a step of 0")
    with pytest.raises(RuntimeError, match="'step' cannot be zero"):
        CORE.read_model(path)
    report = irpool.check(path)
    errors = {f.layer_name: f for f in report.errors()}
    assert not report.ok and set(errors) == {"max", "mean", "sequence_max", "volume_mean"}, [str(f) for f in report.findings]
    assert all(f.code == "bad-shape" and why in f.message and "type=\"Range\"" not in f.message and " Range id=" in
               f.message for f in errors.values()), [str(f) for f in errors.values()]
    with pytest.raises(irpool.IRError, match=why) as e:
        irpool.run(path, np.zeros((2, 3, 4, 5, 6), np.float32), layer="volume_mean")
    assert e.value.layer_type == "Range" and e.value.line == errors["volume_mean"].line


# Where fold.py and shape_rules.py evaluated a shape op differently before shape_ops.py: each case is a hand-written
# net (tests/helpers/shapeir.py) whose verdict is OpenVINO's own, and the code irpool gives where it refuses.
SHAPE_OP_CASES = {
    "a squeezed dim that is not 1 stays": (shapeir.squeezed_const, dict(values=[2, 3]), None),
    "Squeeze-15 keeps it too": (shapeir.squeezed_const, dict(values=[2, 3], squeeze="opset15"), None),
    "i32 values squeezed": (shapeir.squeezed_const, dict(values=[2, 3], et="i32"), None),
    "empty axes squeeze every 1": (shapeir.model_optimizer, dict(axes=([], "0")), None),
    "a scalar axis": (shapeir.model_optimizer, dict(axes=(0, "")), None),
    "a negative axis": (shapeir.model_optimizer, dict(axes=([-1], "1")), None),
    "an axis twice": (shapeir.model_optimizer, dict(axes=([0, -1], "2")), None),
    "Squeeze-15 without axes": (shapeir.model_optimizer, dict(axes=None, squeeze="opset15"), None),
    "an axis outside the rank": (shapeir.model_optimizer, dict(axes=([1], "1")), "bad-shape"),
    "a stop that is not a scalar": (shapeir.model_optimizer, dict(squeeze=None), "bad-shape"),
    "a start of shape [1]": (shapeir.model_optimizer, dict(start=([2], "i64")), "bad-shape"),
    "Range-4 step 0": (shapeir.model_optimizer, dict(step=(0, "i64")), "bad-shape"),
    "Range-1 step 0": (shapeir.model_optimizer, dict(step=(0, "i64"), rng="opset1"), "bad-shape"),
    "Range-1 of i32 and i64": (shapeir.model_optimizer, dict(start=(2, "i32"), rng="opset1"), "bad-precision"),
    "Range-1 of i32 ShapeOfs": (shapeir.model_optimizer, dict(shape_of="i32", start=(2, "i32"), step=(1, "i32"),
                                                              rng="opset1", output_type="i32"), None),
    "Range-4 of i32 and i64": (shapeir.model_optimizer, dict(start=(2, "i32"), output_type="i32"), None),
    "a ShapeOf-3 of f32": (shapeir.model_optimizer, dict(shape_of="f32"), "bad-attribute"),
}

_READ = """
import json, sys, numpy as np, openvino as ov
try:
    model = ov.Core().read_model(sys.argv[1])
except Exception as e:
    print(json.dumps({"refused": str(e)}))
    sys.exit()
x = np.arange(18, dtype=np.float32).reshape(1, 3, 2, 3) - 7.25
out = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})({0: x})
print(json.dumps({"values": np.asarray(list(out.values())[0]).tolist()}))
"""


@pytest.mark.parametrize("case", list(SHAPE_OP_CASES))
def test_shape_ops_fold_as_openvino_reads_them(case, tmp_path):
    make, kwargs, code = SHAPE_OP_CASES[case]
    path, pool = tmp_path / "m.xml", "n8" if make is shapeir.model_optimizer else "n4"
    make(path, **kwargs)
    r = subprocess.run([sys.executable, "-c", _READ, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    report = irpool.check(path)
    x = np.arange(18, dtype=np.float32).reshape(1, 3, 2, 3) - 7.25
    if "refused" in want:
        assert code is not None, want["refused"]
        assert [(f.code, f.layer_name) for f in report.findings] == [(code, pool)], [str(f) for f in report.findings]
        assert "which OpenVINO's read_model refuses" in report.findings[0].message
        with pytest.raises(irpool.IRError, match="read_model refuses"):
            irpool.run(path, x, layer=pool)
        return
    assert code is None and report.ok and not report.findings, [str(f) for f in report.findings]
    assert report.kinds == {"global ReduceMean": 1}
    (got,) = irpool.run(path, x, layer=pool).values()
    np.testing.assert_allclose(got, np.asarray(want["values"], np.float32), rtol=2e-6, atol=1e-6)
