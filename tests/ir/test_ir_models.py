"""Real model IRs: the small models the onnx package ships, converted by openvino.convert_model.

check must find them clean; a wrong output <dim> injected into any pooling layer must be found at that
layer, on that line. Converted once per session into a temporary folder; each .bin is thinned at once (a
sparse file holding only its small integer Consts: ovbuild.thin_weights).
"""
import pathlib
import re

import numpy as np
import pytest

import irpool
from ovbuild import thin_weights

pytestmark = [pytest.mark.openvino]

ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")

LIGHT = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
# vgg19's weights are ~0.5 GB once converted; the rest are small enough for CI
MODELS = ["light_squeezenet", "light_inception_v1", "light_resnet50", "light_bvlc_alexnet", "light_densenet121",
          "light_shufflenet", "light_zfnet512", "light_inception_v2"]


POOLS = {}     # model name -> (type, element type, attributes, input shape) of each MaxPool/AvgPool, as converted


@pytest.fixture(scope="session")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("irs")
    out = {}
    for name in MODELS:
        src = LIGHT / f"{name}.onnx"
        if not src.exists():
            continue
        xml = folder / f"{name}.xml"
        model = ov.convert_model(str(src))
        ov.save_model(model, str(xml), compress_to_fp16=False)
        thin_weights(xml)
        out[name] = xml
        POOLS[name] = [(n.get_type_name(), n.get_output_element_type(0), n.get_attributes(),
                        list(n.get_input_partial_shape(0).to_shape()), n.get_friendly_name())
                       for n in model.get_ordered_ops() if n.get_type_name() in ("MaxPool", "AvgPool")]
    if not out:
        pytest.skip("the onnx package ships no light models here")
    return out


def _pool_layers(text):
    """(id, line of the first output <dim> of port 1's spatial axis) of each pooling layer, found by regex."""
    found = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.search(r'<layer id="(\d+)" name="[^"]*" type="(MaxPool|AvgPool)"', line)
        if not m:
            continue
        j = i
        while "<output>" not in lines[j]:
            j += 1
        dims = [k for k in range(j, len(lines)) if "<dim>" in lines[k]]
        found.append((m.group(1), dims[2] + 1))           # third dim of the first output port: H
    return found


def test_converted_models_are_clean_and_have_pooling(converted):
    pooling = 0
    for name, xml in converted.items():
        report = irpool.check(xml)
        assert report.ok, (name, [str(f) for f in report.errors()])
        pooling += len(_pool_layers(xml.read_text()))
    assert pooling >= 20


def test_injected_wrong_dim_is_found_at_its_layer_and_line(converted, tmp_path):
    injected = 0
    for name, xml in converted.items():
        text = xml.read_text()
        for layer_id, line in _pool_layers(text):
            lines = text.splitlines()
            old = re.search(r"<dim>(\d+)</dim>", lines[line - 1]).group(1)
            lines[line - 1] = lines[line - 1].replace(f"<dim>{old}</dim>", f"<dim>{int(old) + 3}</dim>")
            bad = tmp_path / f"{name}_{layer_id}.xml"
            bad.write_text("\n".join(lines))
            errors = irpool.check(bad).errors()
            assert any(f.code == "shape-mismatch" and f.layer_id == layer_id and f.line == line
                       and f"declared {int(old) + 3}" in f.message for f in errors), (name, layer_id, line,
                                                                                       [str(f) for f in errors])
            injected += 1
            if injected % 5 == 0:
                break                       # a few layers per model keep the run short
    assert injected >= 10


def _cut_out(kind, et, attrs, shape):
    """The layer as OpenVINO's converter wrote it, alone on a Parameter of its input shape."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    p = o1.parameter(shape, et, name="x")
    pads = dict(pads_begin=attrs["pads_begin"], pads_end=attrs["pads_end"], kernel_shape=attrs["kernel"],
                rounding_type=attrs["rounding_type"], auto_pad=attrs["auto_pad"])
    if kind == "AvgPool":
        node = o1.avg_pool(p, attrs["strides"], exclude_pad=attrs["exclude-pad"], **pads)
    else:
        node = o8.max_pool(p, attrs["strides"], attrs.get("dilations", [1] * len(shape[2:])), **pads)
    return ov.Model([node.output(0)], [p])


def test_every_pooling_layer_of_the_real_models_equals_the_plugin_bit_for_bit(converted, tmp_path):
    """Each MaxPool/AvgPool of the converted models, on data as a ReLU leaves it (a third zeros of either sign):
    run by irpool out of the whole model (layer=, by name; the first of each model also by id) and saved alone by
    OpenVINO, both equal to the plugin's bits on the layer alone, the sign of zero included."""
    from bits import assert_same_bits
    core, rng, compared = ov.Core(), np.random.default_rng(7), 0
    for name, xml in converted.items():
        ids = {m.group(2): m.group(1) for m in re.finditer(r'<layer id="(\d+)" name="([^"]*)" type="(?:MaxPool|AvgPool)"',
                                                           xml.read_text())}
        for i, (kind, et, attrs, shape, friendly) in enumerate(POOLS[name]):
            model = _cut_out(kind, et, attrs, shape)
            path = tmp_path / f"{name}_{i}.xml"
            ov.save_model(model, path, compress_to_fp16=False)
            x = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
            x[rng.random(shape) < 0.3] = -0.0
            want = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
            (alone,) = irpool.run(path, {"x": x}).values()
            assert_same_bits(alone, want, (name, kind, attrs, shape))
            ways = [friendly] + ([ids[friendly]] if i == 0 else [])
            for key in ways:
                outs = irpool.run(xml, x, layer=key)
                assert list(outs)[0] == "1", (name, key, list(outs))     # keyed by output port id
                assert_same_bits(next(iter(outs.values())), want, (name, key, "layer="))
            compared += 1
    print(f"{compared} real pooling layers compared bit for bit")
    assert compared >= 20, compared


def test_run_layer_finds_its_layer_and_refuses_in_one_line(converted, tmp_path):
    """irpool run --layer: by name, through a real subprocess, to an .npz; a layer that is not pooling, a name that
    does not exist, and a whole-net run all refused with exit 2 and one line that names what to do."""
    import subprocess
    import sys
    xml = converted["light_resnet50"]
    (kind, et, attrs, shape, friendly) = POOLS["light_resnet50"][0]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    cli = lambda *a: subprocess.run([sys.executable, "-m", "irpool", *map(str, a)], capture_output=True,  # noqa: E731
                                    text=True, timeout=300)
    r = cli("run", xml, "--layer", friendly, "-i", f"0={tmp_path / 'x.npy'}", "-o", tmp_path / "y.npz")
    assert r.returncode == 0, r.stderr
    with np.load(tmp_path / "y.npz") as got:
        np.testing.assert_array_equal(got[list(got)[0]], next(iter(irpool.run(xml, x, layer=friendly).values())))
    conv = re.search(r'<layer id="(\d+)" name="([^"]*)" type="Convolution"', xml.read_text())
    for key, says in ((conv.group(2), "is a Convolution; irpool runs MaxPool, AvgPool, AdaptiveAvgPool"),
                      ("no such layer", "no layer has id or name 'no such layer'; its pooling layers include id=")):
        r = cli("run", xml, "--layer", key, "-i", f"0={tmp_path / 'x.npy'}")
        assert r.returncode == 2 and says in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
    r = cli("run", xml, "-i", f"0={tmp_path / 'x.npy'}")
    assert r.returncode == 2 and "--layer ID|NAME" in r.stderr, r.stderr


def test_the_global_pools_of_the_real_models_equal_the_plugin_in_their_model(tmp_path):
    """The GlobalAveragePool of SqueezeNet and DenseNet-121 (a ReduceMean after a ReLU, after a Convolution and
    a Concat: channels-last for the plugin), with its real weights: the plugin runs the whole model with the
    ReduceMean's input as an output too; irpool runs the layer (layer=, by name) on that input: the same bits."""
    from bits import assert_same_bits
    core, compared = ov.Core(), 0
    for name in ("light_squeezenet", "light_densenet121"):
        if not (LIGHT / f"{name}.onnx").exists():
            continue
        model = ov.convert_model(str(LIGHT / f"{name}.onnx"))
        xml = tmp_path / f"{name}.xml"
        ov.save_model(model, str(xml), compress_to_fp16=False)
        for node in (n for n in model.get_ordered_ops() if n.get_type_name() in ("ReduceMean", "ReduceMax")):
            both = ov.Model([node.input_value(0), node.output(0)], model.get_parameters())
            compiled = core.compile_model(both, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            x = np.random.default_rng(compared).standard_normal(list(model.get_parameters()[0].get_shape()))
            fed, want = (compiled([x.astype(np.float32)])[o] for o in compiled.outputs)
            (got,) = irpool.run(xml, fed, layer=node.get_friendly_name()).values()
            assert_same_bits(got, want, (name, node.get_friendly_name()))
            compared += 1
    if not compared:
        pytest.skip("the onnx package ships no light models here")
