"""The rest of the pooling family as OpenVINO writes it, against OpenVINO itself: AdaptiveAvgPool-8 and
AdaptiveMaxPool-8, and ReduceMean-1/ReduceMax-1 over exactly the spatial axes (global pooling), their shape
inputs Const layers whose values are in the .bin. Every model is saved by save_model with its weights; check must
find it clean, count what it pools, find a planted wrong dim at its line; run --layer must equal the plugin (bit
for bit for adaptive pools and ReduceMax; ReduceMean to float32 rounding, since the plugin's JIT Reduce adds in an
order that follows its layout and the CPU's vector width, docs/exactness.md). torch's adaptive pools are a second
reference. .bin faults, one by one, are findings or IRErrors, never tracebacks."""
import re
import subprocess
import sys

import numpy as np
import pytest

import irpool
from bits import assert_same_bits

ov = pytest.importorskip("openvino")
import openvino.opset1 as o1  # noqa: E402
import openvino.opset8 as o8  # noqa: E402

pytestmark = [pytest.mark.openvino]

CORE = ov.Core()
F32 = {"INFERENCE_PRECISION_HINT": "f32"}


def plugin(model, x):
    return [np.asarray(v) for v in CORE.compile_model(model, "CPU", F32)([x]).values()]


def save(model, path):
    ov.save_model(model, path, compress_to_fp16=False)
    return path


def adaptive_model(rng, dtype):
    nd = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 5))] + [int(v) for v in rng.integers(1, 9 if nd < 3 else 6, nd)]
    out = [int(v) for v in rng.integers(1, 11, nd)]            # larger than the input too
    p = o1.parameter(shape, dtype, name="x")
    const = o1.constant(np.array(out, np.int32 if rng.random() < 0.5 else np.int64))
    kind = str(rng.choice(["avg", "max"]))
    node = o8.adaptive_avg_pool(p, const) if kind == "avg" else o8.adaptive_max_pool(p, const, "i32")
    node.set_friendly_name("pool")
    return ov.Model([node.output(i) for i in range(node.get_output_size())], [p]), shape, kind


def values(rng, shape, dtype):
    """Ties of -0.0 and +0.0, NaN and infinities among plain values."""
    x = rng.choice(np.array([0.0, -0.0, 1.5, -2.0, np.nan, -np.inf, np.inf]), size=shape)
    return np.where(rng.random(shape) < 0.6, rng.standard_normal(shape), x).astype(dtype)


@pytest.mark.parametrize("seed", range(3))
def test_adaptive_pools_are_checked_and_run_as_the_plugin_does(seed, tmp_path):
    rng = np.random.default_rng(seed)
    for i in range(12):
        dtype = [np.float32, np.float16][i % 2]
        model, shape, kind = adaptive_model(rng, dtype)
        xml = save(model, tmp_path / f"a{i}.xml")
        report = irpool.check(xml)
        assert report.ok and not report.findings, [str(f) for f in report.findings]
        assert report.kinds == {("AdaptiveAvgPool" if kind == "avg" else "AdaptiveMaxPool"): 1}, report.kinds
        x = values(rng, shape, dtype)
        want = plugin(model, x)
        got = irpool.run(xml, x, layer="pool")
        assert list(got) == [p.get_any_name() and str(2 + k) for k, p in enumerate(model.outputs)]  # port ids 2, 3
        for g, w in zip(got.values(), want):
            assert_same_bits(g, w, (kind, shape, dtype))
        # a planted wrong dim is found at its line
        text = xml.read_text()
        m = re.search(r'type="Adaptive\w+".*?<output>\s*<port id="\d+"[^>]*>\s*<dim>\d+</dim>\s*<dim>\d+</dim>\s*<dim>(\d+)'
                      r"</dim>", text, re.S)
        bad = tmp_path / f"bad{i}.xml"
        bad.write_text(text[:m.start(1)] + str(int(m.group(1)) + 2) + text[m.end(1):])
        (tmp_path / f"bad{i}.bin").write_bytes(xml.with_suffix(".bin").read_bytes())
        line = text[:m.start(1)].count("\n") + 1
        errors = [f for f in irpool.check(bad).errors() if f.code != "edge-mismatch"]   # (the Result's edge too)
        assert [(f.code, f.line, f.layer_name) for f in errors] == [("shape-mismatch", line, "pool")], \
            [str(f) for f in errors]
        assert f"declared {int(m.group(1)) + 2}" in errors[0].message and "bins" in errors[0].message


def test_adaptive_pools_equal_torch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(9)
    for _ in range(20):
        shape = [2, 3] + [int(v) for v in rng.integers(1, 12, 2)]
        out = tuple(int(v) for v in rng.integers(1, 9, 2))
        x = rng.standard_normal(shape).astype(np.float32)
        t = torch.from_numpy(x)
        assert_same_bits(irpool.core.adaptive_pool(x, out, "avg"),
                         torch.nn.functional.adaptive_avg_pool2d(t, out).numpy(), (shape, out))
        y, i = irpool.core.adaptive_pool(x, out, "max", indices=True)
        ty, ti = torch.nn.functional.adaptive_max_pool2d(t, out, return_indices=True)
        assert_same_bits(y, ty.numpy(), (shape, out))
        np.testing.assert_array_equal(i, ti.numpy())


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceMax"])
def test_reductions_over_the_spatial_axes_are_global_pools(op, tmp_path):
    """Axes as converters write them and as they may be written (negative, repeated, in any order, i32 or i64),
    keep_dims both ways: over exactly the spatial axes a counted, checked, run global pool; over any other axes
    not pooling, and no finding."""
    rng, make = np.random.default_rng(3), (o1.reduce_mean if op == "ReduceMean" else o1.reduce_max)
    globals_ = 0
    for i in range(16):
        rank = int(rng.integers(3, 6))
        shape = [int(rng.integers(1, 3)), int(rng.integers(1, 6))] + [int(v) for v in rng.integers(1, 9, rank - 2)]
        spatial = list(range(2, rank))
        axes = spatial if rng.random() < 0.6 else sorted(set(int(a) for a in rng.integers(0, rank, 2)))
        axes = [a - rank if rng.random() < 0.4 else a for a in axes] + ([axes[0]] if rng.random() < 0.3 else [])
        rng.shuffle(axes)
        keep = bool(rng.integers(0, 2))
        p = o1.parameter(shape, np.float32, name="x")
        node = make(p, o1.constant(np.array(axes, np.int32 if rng.random() < 0.5 else np.int64)), keep)
        node.set_friendly_name("r")
        model = ov.Model([node.output(0)], [p])
        xml = save(model, tmp_path / f"r{i}.xml")
        report = irpool.check(xml)
        is_global = {a % rank for a in axes} == set(spatial)
        assert not report.findings, [str(f) for f in report.findings]
        assert report.kinds == ({f"global {op}": 1} if is_global else {}), (axes, rank, report.kinds)
        if not is_global:
            with pytest.raises(irpool.IRError, match="not a pooling"):
                irpool.run(xml, np.zeros(shape, np.float32), layer="r")
            continue
        globals_ += 1
        text = xml.read_text()               # a planted wrong C in the output is found at its line
        m = re.search(r'type="Reduce\w+".*?<output>\s*<port id="\d+"[^>]*>\s*<dim>\d+</dim>\s*<dim>(\d+)</dim>', text,
                      re.S)
        bad = tmp_path / f"bad{i}.xml"
        bad.write_text(text[:m.start(1)] + str(int(m.group(1)) + 1) + text[m.end(1):])
        (tmp_path / f"bad{i}.bin").write_bytes(xml.with_suffix(".bin").read_bytes())
        found = [(f.code, f.line) for f in irpool.check(bad).errors() if f.code != "edge-mismatch"]
        assert found == [("shape-mismatch", text[:m.start(1)].count("\n") + 1)], found
        x = (np.random.default_rng(i).standard_normal(shape) * 4).astype(np.float32)
        (want,) = plugin(model, x)
        (got,) = irpool.run(xml, x, layer="r").values()
        assert got.shape == want.shape and got.dtype == want.dtype
        if op == "ReduceMax":
            assert_same_bits(got, want, (axes, keep))
        else:
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6)
    assert globals_ >= 6


def _with_bin_fault(tmp_path, fault):
    """A saved AdaptiveAvgPool model whose .bin (or Const <data>) has one fault."""
    p = o1.parameter([1, 2, 8, 8], np.float32, name="x")
    node = o8.adaptive_avg_pool(p, o1.constant(np.array([3, 3], np.int64)))
    node.set_friendly_name("pool")
    xml = save(ov.Model([node.output(0)], [p]), tmp_path / "m.xml")
    text, binf = xml.read_text(), xml.with_suffix(".bin")
    m = re.search(r'<data element_type="i64" shape="2" offset="(\d+)" size="16"', text)
    if fault == "missing":
        binf.unlink()
    elif fault == "truncated":
        binf.write_bytes(binf.read_bytes()[:-4])
    elif fault == "offset past the end":
        xml.write_text(text.replace(m.group(0), m.group(0).replace(f'offset="{m.group(1)}"', 'offset="4096"')))
    elif fault == "size not matching the shape":
        xml.write_text(text.replace(m.group(0), m.group(0).replace('size="16"', 'size="12"')))
    elif fault == "huge shape":
        xml.write_text(text.replace(m.group(0), m.group(0).replace('shape="2"', 'shape="99999999999"')
                                    .replace('size="16"', 'size="799999999992"')))
    return xml, m.group(0), text[:m.start()].count("\n") + 1


@pytest.mark.parametrize("fault", ["missing", "truncated", "offset past the end", "size not matching the shape",
                                   "huge shape"])
def test_bin_faults_are_findings_and_refusals_in_one_line(fault, tmp_path):
    xml, _, const_line = _with_bin_fault(tmp_path, fault)
    report = irpool.check(xml)
    codes = [(f.code, f.severity) for f in report.findings]
    with pytest.raises(RuntimeError) as refused:              # every fault: read_model refuses the file
        ov.Core().read_model(str(xml))
    if fault == "missing":      # refused at the first Const read_model builds; the pool said unchecked, never ok
        assert codes == [("bad-weights", "error"), ("unchecked", "warning")], codes
        assert "bin file cannot be found" in str(refused.value) and "bin file cannot be found" in report.findings[0].message
        assert "Const id=" in report.findings[1].message and report.pooling_layers == 0
    else:
        assert codes == [("bad-weights", "error")], [str(f) for f in report.findings]
        f = report.findings[0]
        assert f.layer_type == "Const" and f.line == const_line and "bytes [" in f.message, str(f)
    with pytest.raises(irpool.IRError) as e:
        irpool.run(xml, np.zeros((1, 2, 8, 8), np.float32), layer="pool")
    assert "Const" in str(e.value) or "bytes [" in str(e.value)
    np.save(tmp_path / "x.npy", np.zeros((1, 2, 8, 8), np.float32))
    r = subprocess.run([sys.executable, "-m", "irpool", "run", str(xml), "--layer", "pool", "-i",
                        f"0={tmp_path / 'x.npy'}"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr, r.stderr


def test_the_bin_can_be_named_and_standard_input_has_none(tmp_path):
    xml, _, _ = _with_bin_fault(tmp_path, "none")
    moved = tmp_path / "weights.data"
    xml.with_suffix(".bin").rename(moved)
    assert [f.code for f in irpool.check(xml).findings] == ["bad-weights", "unchecked"]    # (read_model: no .bin)
    with pytest.raises(RuntimeError, match="bin file cannot be found"):
        ov.Core().read_model(str(xml))
    ov.Core().read_model(str(xml), str(moved))
    assert irpool.check(xml, bin=moved).kinds == {"AdaptiveAvgPool": 1}
    assert [f.code for f in irpool.check(xml.read_text(), bin=moved).findings] == []
    cli = lambda *a, **k: subprocess.run([sys.executable, "-m", "irpool", *map(str, a)], capture_output=True,  # noqa: E731
                                         text=True, timeout=300, **k)
    r = cli("check", "-", input=xml.read_text())
    assert r.returncode == 0 and "[unchecked]" in r.stdout, r.stdout
    r = cli("check", "--bin", moved, "-", input=xml.read_text())
    assert r.returncode == 0 and "ok (1 pooling layer: 1 AdaptiveAvgPool)" in r.stdout, r.stdout
    x = np.random.default_rng(0).standard_normal((1, 2, 8, 8)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    r = cli("run", xml, "--bin", moved, "--layer", "pool", "-i", f"0={tmp_path / 'x.npy'}", "-o", tmp_path / "y.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "y.npz") as y:
        assert_same_bits(y["2"], irpool.core.adaptive_pool(x, (3, 3), "avg"))     # its output port


def _alone(node):
    """A pooling-family node as the converter wrote it, alone on a Parameter of its input shape, its Const kept."""
    p = o1.parameter(node.get_input_partial_shape(0), node.get_input_element_type(0), name="x")
    const = o1.constant(node.input_value(1).get_node().get_data())
    kind = node.get_type_name()
    if kind == "AdaptiveAvgPool":
        new = o8.adaptive_avg_pool(p, const)
    elif kind == "AdaptiveMaxPool":
        new = o8.adaptive_max_pool(p, const, node.get_attributes()["index_element_type"])
    else:
        new = (o1.reduce_mean if kind == "ReduceMean" else o1.reduce_max)(p, const, node.get_attributes()["keep_dims"])
    return ov.Model([new.output(i) for i in range(new.get_output_size())], [p])


def _every_family_layer_runs_as_the_plugin(model, xml, rng):
    """Each family layer of a converted model, run by irpool out of the whole file (layer=, Consts from the .bin),
    against the plugin running that layer alone; how many were compared."""
    compared = 0
    for node in model.get_ordered_ops():
        if node.get_type_name() not in ("AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean", "ReduceMax"):
            continue
        alone = _alone(node)
        shape = tuple(d.get_length() if d.is_static else 1 for d in node.get_input_partial_shape(0))  # (a dynamic batch)
        x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
        x[rng.random(x.shape) < 0.3] = -0.0
        want = plugin(alone, x)
        got = list(irpool.run(xml, x, layer=node.get_friendly_name()).values())
        assert len(got) == len(want)
        for g, w in zip(got, want):
            if node.get_type_name() == "ReduceMean":
                assert g.shape == w.shape and g.dtype == w.dtype
                np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6)
            elif node.get_type_name() == "ReduceMax":      # the plugin's JIT Reduce: any sign of a tied zero
                np.testing.assert_array_equal(g, w)
            else:
                assert_same_bits(g, w, node.get_friendly_name())
        compared += 1
    return compared


def test_a_torch_model_converted_by_openvino(tmp_path):
    """torch's MaxPool2d, AdaptiveAvgPool2d((5, 7)), AdaptiveMaxPool2d, AdaptiveAvgPool2d(1) and amax over H, W, as
    openvino.convert_model writes them: checked clean, counted by kind, and every family layer run with layer=."""
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.pool = torch.nn.Conv2d(3, 8, 3), torch.nn.MaxPool2d(3, 2, ceil_mode=True)
            self.a57, self.a33, self.head = (torch.nn.AdaptiveAvgPool2d((5, 7)), torch.nn.AdaptiveMaxPool2d((3, 3)),
                                             torch.nn.AdaptiveAvgPool2d(1))
            self.fc = torch.nn.Linear(8, 4)

        def forward(self, x):
            y = self.pool(torch.relu(self.conv(x)))
            y = self.a33(self.a57(y)) + torch.nn.functional.adaptive_max_pool2d(y, (3, 3))
            return self.fc(torch.flatten(self.head(y), 1)), torch.amax(y, dim=(2, 3), keepdim=True)

    model = ov.convert_model(Net().eval(), example_input=torch.zeros(1, 3, 32, 30))
    xml = save(model, tmp_path / "net.xml")
    report = irpool.check(xml)
    assert report.ok and not report.findings, [str(f) for f in report.findings]
    assert report.kinds == {"MaxPool": 1, "AdaptiveAvgPool": 1, "AdaptiveMaxPool": 2, "global ReduceMax": 1,
                            "global ReduceMean": 1}, report.kinds
    assert _every_family_layer_runs_as_the_plugin(model, xml, np.random.default_rng(4)) == 5


def test_global_average_pools_of_onnx_models_converted_by_openvino(tmp_path):
    """squeezenet's GlobalAveragePool, written by OpenVINO as a ReduceMean over H, W: counted, and run with layer=."""
    import pathlib
    onnx = pytest.importorskip("onnx")
    src = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light" / "light_squeezenet.onnx"
    if not src.exists():
        pytest.skip("the onnx package ships no light models here")
    model = ov.convert_model(str(src))
    xml = save(model, tmp_path / "squeezenet.xml")
    report = irpool.check(xml)
    assert report.ok and report.kinds == {"MaxPool": 3, "global ReduceMean": 1}, report.kinds
    assert _every_family_layer_runs_as_the_plugin(model, xml, np.random.default_rng(5)) == 1


TYPES = sorted(t for t in dir(ov.Type) if not t.startswith("_") and isinstance(getattr(ov.Type, t), ov.Type))
FAMILY = {"AdaptiveAvgPool-8": lambda p: o8.adaptive_avg_pool(p, o1.constant(np.array([2, 3], np.int64))),
          "AdaptiveMaxPool-8": lambda p: o8.adaptive_max_pool(p, o1.constant(np.array([2, 3], np.int64)), "i32"),
          "AdaptiveMaxPool-8 i64": lambda p: o8.adaptive_max_pool(p, o1.constant(np.array([2, 3], np.int64)), "i64"),
          "ReduceMean-1": lambda p: o1.reduce_mean(p, o1.constant(np.array([2, 3], np.int64)), True),
          "ReduceMax-1": lambda p: o1.reduce_max(p, o1.constant(np.array([3, -2], np.int32)), False)}


@pytest.mark.parametrize("op", sorted(FAMILY))
def test_every_element_type_is_judged_as_the_plugin_compiles_it(op, tmp_path):
    """Where the plugin compiles the layer, no error; where code that does not branch on the CPU refuses it (its
    input checks, oneDNN's type map: i64 indices too), a bad-precision error; what op validation refuses cannot be
    saved, and irpool's data names it (boolean for the reductions)."""
    from test_ir_real import compiled_as_irpool_says
    refused_by_validation = []
    for name in TYPES:
        p = o1.parameter([2, 3, 6, 7], getattr(ov.Type, name), name="x")
        try:
            node = FAMILY[op](p)
        except RuntimeError:
            refused_by_validation.append(name)
            continue
        path = save(ov.Model([node.output(i) for i in range(node.get_output_size())], [p]), tmp_path / f"{name}.xml")
        compiled_as_irpool_says(path, (op, name))
    defs = irpool.opdefs.load("openvino")["ops"][op.split()[0]]
    assert refused_by_validation == defs.get("validation_refuses", []), refused_by_validation


@pytest.mark.parametrize("op", ["AdaptiveAvgPool-8", "AdaptiveMaxPool-8", "ReduceMean-1", "ReduceMax-1"])
def test_run_takes_every_type_it_names_and_equals_the_plugin(op, tmp_path):
    """Each element type in the op's run_types (schemas/openvino.json), computed in the type the plugin pools it in:
    bit for bit (ReduceMean to float32 rounding); every other type the plugin compiles is refused in one line."""
    from test_ir_real import from_tensor, random_values, to_tensor
    runs = irpool.opdefs.load("openvino")["ops"][op]["run_types"]
    rng, ran = np.random.default_rng(11), 0
    for name in TYPES:
        p = o1.parameter([2, 3, 7, 5], getattr(ov.Type, name), name="x")
        try:
            node = FAMILY[op](p)
            model = ov.Model([node.output(i) for i in range(node.get_output_size())], [p])
            request = CORE.compile_model(model, "CPU", F32).create_infer_request()
        except RuntimeError:
            assert name not in runs, name
            continue
        node.set_friendly_name("pool")
        xml = save(model, tmp_path / f"{name}.xml")
        np_type = irpool.ir.read.element_types.element_type(name).numpy
        if name not in runs and np_type is None:
            continue                          # (no array of it can be made: nf4, u2)
        if name not in runs:
            x = np.zeros((2, 3, 7, 5), irpool.dtypes.dtype_named(np_type))
            with pytest.raises(irpool.IRError, match="irpool runs"):
                irpool.run(xml, x, layer="pool")
            continue
        x = random_values(rng, name, (2, 3, 7, 5))
        request.infer([to_tensor(x, getattr(ov.Type, name))])
        got = list(irpool.run(xml, x, layer="pool").values())
        for k, g in enumerate(got):
            w = from_tensor(request.get_output_tensor(k), g.dtype)
            if op == "ReduceMean-1" and name in ("f32", "f64"):
                np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)   # (another order of sums)
            else:
                assert_same_bits(g, w, (op, name))
        ran += 1
    assert ran == len(runs), (ran, runs)


def test_the_shipped_example_is_clean_and_every_family_layer_runs_as_the_plugin():
    """examples/torch_pools.xml (examples/make_torch_pools.py: torch, converted and saved by OpenVINO)."""
    import pathlib
    xml = pathlib.Path(__file__).parent.parent.parent / "examples" / "torch_pools.xml"
    report = irpool.check(xml)
    assert report.ok and not report.findings and report.summary == ("5 pooling layers: 1 MaxPool, 1 AdaptiveAvgPool,"
                                                                    " 1 AdaptiveMaxPool, 1 global ReduceMax, 1 global ReduceMean")
    assert _every_family_layer_runs_as_the_plugin(CORE.read_model(xml), xml, np.random.default_rng(6)) == 4


def _torchvision():
    """torchvision's models, whatever its compiled ops: the PyPI wheel is built for CUDA torch, and against the CPU
    torch here its C++ ops do not load, so the two op schemas its Python registers fakes for are defined first
    (the models themselves are plain Python and never call them)."""
    torch = pytest.importorskip("torch")
    try:
        import torchvision
    except RuntimeError:
        lib = torch.library.Library("torchvision", "DEF")
        for op in ("nms", "qnms"):
            lib.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        _torchvision.keep = lib                     # (the definitions live as long as the library object)
        import torchvision
    return torch, torchvision


@pytest.mark.parametrize("arch,kinds", [
    ("resnet18", {"MaxPool": 1, "global ReduceMean": 1}),
    ("mobilenet_v3_small", {"global ReduceMean": 10}),            # every squeeze-excite block, and the head
])
def test_torchvision_models_converted_by_openvino(arch, kinds, tmp_path):
    """torchvision classifiers (random weights) converted and saved by OpenVINO: clean, their global pools
    counted, and every family layer run with layer= equal to the plugin."""
    torch, torchvision = _torchvision()
    torch.manual_seed(0)
    net = getattr(torchvision.models, arch)().eval()
    model = ov.convert_model(net, example_input=torch.zeros(1, 3, 64, 64), input=[ov.PartialShape([1, 3, 64, 64])])
    xml = save(model, tmp_path / f"{arch}.xml")
    report = irpool.check(xml)
    assert report.ok and not report.findings, [str(f) for f in report.findings]
    assert report.kinds == kinds, report.kinds
    assert _every_family_layer_runs_as_the_plugin(model, xml, np.random.default_rng(8)) == \
        sum(v for k, v in kinds.items() if k.startswith("global"))


def test_json_counts_kinds_and_an_unknown_attribute_is_a_warning(tmp_path):
    import json
    xml, _, _ = _with_bin_fault(tmp_path, "none")
    text = xml.read_text()
    xml.write_text(re.sub(r'(type="AdaptiveAvgPool" version="opset8">\s*)', r'\1<data colour="blue" />\n', text, count=1))
    r = subprocess.run([sys.executable, "-m", "irpool", "check", "--json", str(xml)], capture_output=True, text=True,
                       timeout=300)
    doc = json.loads(r.stdout)
    assert r.returncode == 0 and doc["files"][0]["pooling_kinds"] == {"AdaptiveAvgPool": 1}, r.stdout
    assert [(f["code"], f["severity"]) for f in doc["files"][0]["findings"]] == [("unknown-attribute", "warning")]


@pytest.mark.parametrize("out", [[1, 1], [1, 2]])
@pytest.mark.parametrize("index_type", ["i32", "i64"])
@pytest.mark.parametrize("used", ["values", "indices", "both"])
def test_adaptive_max_pool_index_types_as_the_plugin_compiles_them(out, index_type, used, tmp_path):
    """i64 indices are refused (the plugin's oneDNN pooling takes i32), but for a global AdaptiveMaxPool whose
    indices nothing reads: the plugin makes a ReduceMax of it (measured, 2026.4.1)."""
    p = o1.parameter([1, 3, 8, 8], ov.Type.f32, name="x")
    m = o8.adaptive_max_pool(p, o1.constant(out, ov.Type.i64), index_type)
    outs = {"values": [m.output(0)], "indices": [m.output(1)], "both": [m.output(0), m.output(1)]}[used]
    path = tmp_path / "m.xml"
    save(ov.Model(outs, [p]), path)
    try:
        CORE.compile_model(CORE.read_model(path), "CPU")
        compiles = True
    except RuntimeError:
        compiles = False
    assert irpool.check(path).ok == compiles


def _packed_net(op: str, et: str, n: int, byte: int, more: bytes) -> tuple:
    """Parameter -> op, its axes or output_shape a 1-D Const of `n` 4-bit values in one byte (and `more` bytes
    after it in the .bin, which read_model reads past the Const's size); (xml, bin)."""
    shape = [1, 3, 5, 6] if n == 2 else [1, 3, 6]
    dims = lambda ds: "".join(f"<dim>{d}</dim>" for d in ds)  # noqa: E731
    data = {"ReduceMean": '<data keep_dims="true"/>', "ReduceMax": '<data keep_dims="true"/>',
            "AdaptiveAvgPool": "", "AdaptiveMaxPool": '<data index_element_type="i32"/>'}[op]
    version = "opset1" if op.startswith("Reduce") else "opset8"
    outs = 2 if op == "AdaptiveMaxPool" else 1
    out_ports = "".join(f'<port id="{2 + k}" precision="{"FP32" if k == 0 else "I32"}">{dims([-1] * len(shape))}'
                        "</port>" for k in range(outs))
    layers = (f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{",".join(map(str, shape))}"'
              f' element_type="f32"/><output><port id="0" precision="FP32">{dims(shape)}</port></output></layer>'
              f'<layer id="1" name="c" type="Const" version="opset1"><data element_type="{et}" shape="{n}" offset="0"'
              f' size="1"/><output><port id="0" precision="{et.upper()}">{dims([n])}</port></output></layer>'
              f'<layer id="2" name="pool" type="{op}" version="{version}">{data}<input><port id="0" precision="FP32">'
              f'{dims(shape)}</port><port id="1" precision="{et.upper()}">{dims([n])}</port></input><output>'
              f"{out_ports}</output></layer>"
              + "".join(f'<layer id="{3 + k}" name="r{k}" type="Result" version="opset1"><input><port id="0"'
                        f' precision="FP32">{dims([-1] * len(shape))}</port></input></layer>' for k in range(outs)))
    edges = ('<edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>'
             '<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>'
             + "".join(f'<edge from-layer="2" from-port="{2 + k}" to-layer="{3 + k}" to-port="0"/>' for k in range(outs)))
    return (f'<?xml version="1.0"?>\n<net name="p" version="11"><layers>{layers}</layers><edges>{edges}</edges>'
            "</net>\n"), bytes([byte]) + more


def test_four_bit_shape_inputs_are_read_as_openvino_reads_them(tmp_path):
    """A u4/i4 Const as a reduction's axes or an adaptive pool's output_shape: read_model's shape inference
    reads element k as the signed byte at offset + k (past the Const's size), compile_model unpacks the
    nibbles, low first (irpool/ir/ops/consts.py); nf4 does not compile. check's verdict equals OpenVINO's on each."""
    from plugin import compile_in_child
    cases, paths = [], []
    for op in ("ReduceMean", "ReduceMax", "AdaptiveAvgPool", "AdaptiveMaxPool"):
        for et in ("u4", "i4", "nf4"):
            for n, byte, more in [(2, 0x32, b""), (2, 0xFE, b""), (2, 0x32, b"\x02"), (1, 0xF2, b""),
                                  (1, 0x2F, b""), (2, 0x02, b"\x03"), (1, 0xFE, b"")]:
                xml, blob = _packed_net(op, et, n, byte, more)
                path = tmp_path / f"q{len(paths)}.xml"
                path.write_text(xml)
                path.with_suffix(".bin").write_bytes(blob)
                paths.append(str(path))
                cases.append((op, et, n, hex(byte), more))
    results = compile_in_child(paths)
    wrong = [(case, result[:100]) for case, path, result in zip(cases, paths, results)
             if irpool.check(path).ok != (result == "ok")]
    assert not wrong, wrong
    assert 10 < sum(r == "ok" for r in results) < len(results) - 10


@pytest.mark.parametrize("kind, indices_read", [("avg", False), ("max", False), ("max", True)])
def test_an_adaptive_pool_to_one_cell_is_run_as_the_reduction_the_plugin_makes_of_it(kind, indices_read, tmp_path):
    """Every output dim 1 (the ResNet head's AdaptiveAvgPool(1, 1)): the plugin runs a ReduceMean, or a ReduceMax
    where no edge reads the indices (AdaptivePoolToReduce), in that op's order of additions and NaN rule. irpool's bin
    loop differed in the last bit of most channels of the mean, and let a NaN first tap win the max; with the indices
    read, the bin loop stands. Compared with the whole saved model, not a cut: the edges decide."""
    rng = np.random.default_rng(7)
    for i, spatial in enumerate([(7, 7), (30,), (5, 6, 7), (13, 11)]):
        dtype = [np.float32, np.float16][i % 2]
        shape = [int(rng.integers(1, 3)), int(rng.integers(2, 40))] + list(spatial)
        p = o1.parameter(shape, dtype, name="x")
        const = o1.constant(np.ones(len(spatial), np.int64))
        node = o8.adaptive_avg_pool(p, const) if kind == "avg" else o8.adaptive_max_pool(p, const, "i32")
        node.set_friendly_name("pool")
        outs = [node.output(0)] + ([node.output(1)] if indices_read else [])
        model = ov.Model([o1.result(o) for o in outs], [p])
        xml = save(model, tmp_path / f"m{i}.xml")
        x = values(rng, shape, dtype) if kind == "max" else rng.standard_normal(shape).astype(dtype)
        want = plugin(model, x)
        got = list(irpool.run(xml, x, layer="pool").values())
        assert len(got) == len(want), (kind, indices_read)
        for g, w in zip(got, want):
            assert_same_bits(g, w, (kind, indices_read, shape, dtype))


def test_an_integer_adaptive_avg_to_one_cell_is_refused_where_the_plugin_runs_a_reduce_mean(tmp_path):
    """An i32 AdaptiveAvgPool(1) runs as a ReduceMean, whose integer mean the plugin truncates (-3.53 gives -3; stop
    61's review): irpool runs no integer ReduceMean, so it refuses this one too (it gave a rounded mean)."""
    p = o1.parameter([1, 2, 3, 3], np.int32, name="x")
    node = o8.adaptive_avg_pool(p, o1.constant(np.array([1, 1], np.int64)))
    node.set_friendly_name("pool")
    xml = save(ov.Model([node.output(0)], [p]), tmp_path / "m.xml")
    with pytest.raises(irpool.IRError, match="ReduceMean, which irpool does not run on i32"):
        irpool.run(xml, np.arange(18, dtype=np.int32).reshape(1, 2, 3, 3), layer="pool")



@pytest.mark.parametrize("bins, indices_read", [(1, False), (1, True), (2, False), (2, True)])
def test_run_refuses_an_adaptive_max_the_plugin_does_not_compile_for_its_index_type(bins, indices_read, tmp_path):
    """i64 indices: the plugin compiles an AdaptiveMaxPool-8 only as the ReduceMax it makes of one to one cell whose
    indices nothing reads; check said bad-precision elsewhere and run ran them all (stop 61's review)."""
    p = o1.parameter([1, 2, 4], ov.Type.f32, name="x")
    node = o8.adaptive_max_pool(p, o1.constant(np.array([bins], np.int64)), index_element_type="i64")
    node.set_friendly_name("pool")
    outs = [node.output(0)] + ([node.output(1)] if indices_read else [])
    model = ov.Model([o1.result(o) for o in outs], [p])
    xml = save(model, tmp_path / "m.xml")
    try:
        CORE.compile_model(model, "CPU")
        compiles = True
    except RuntimeError:
        compiles = False
    assert ("bad-precision" in [f.code for f in irpool.check(xml).findings]) != compiles
    x = np.arange(8, dtype=np.float32).reshape(1, 2, 4)
    if compiles:
        assert_same_bits(next(iter(irpool.run(xml, x, layer="pool").values())), plugin(model, x)[0])
    else:
        with pytest.raises(irpool.IRError, match="does not compile"):
            irpool.run(xml, x, layer="pool")
