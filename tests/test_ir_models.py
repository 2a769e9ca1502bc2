"""Real model IRs: the small models the onnx package ships, converted by openvino.convert_model.

check must find them clean; a wrong output <dim> injected into any pooling layer must be found at that
layer, on that line. Converted once per session into a temporary folder; each .bin is deleted at once.
"""
import pathlib
import re

import pytest

import irpool

ov = pytest.importorskip("openvino")
onnx = pytest.importorskip("onnx")

LIGHT = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
# vgg19's weights are ~0.5 GB once converted; the rest are small enough for CI
MODELS = ["light_squeezenet", "light_inception_v1", "light_resnet50", "light_bvlc_alexnet", "light_densenet121",
          "light_shufflenet", "light_zfnet512", "light_inception_v2"]


@pytest.fixture(scope="session")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("irs")
    out = {}
    for name in MODELS:
        src = LIGHT / f"{name}.onnx"
        if not src.exists():
            continue
        xml = folder / f"{name}.xml"
        ov.save_model(ov.convert_model(str(src)), str(xml), compress_to_fp16=False)
        xml.with_suffix(".bin").unlink()
        out[name] = xml
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
