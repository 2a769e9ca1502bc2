"""Issue 52's evidence beyond torchvision: timm's classifiers (random weights), converted by openvino.convert_model
with each global pool timm offers (avg, max, avgmax: ReduceMean, ReduceMax, both), and every global ReduceMean or
ReduceMax in them (the heads, and the squeeze-excite blocks inside, each after another producer) run by irpool
with layer= on the input the plugin gave that node in the whole model: the same bits as the plugin's output on
this machine (its layout and width decided by the graph and this CPU, as irpool decides them)."""
from __future__ import annotations

import numpy as np
import pytest

import irpool
from bits import assert_same_bits

ov = pytest.importorskip("openvino")

MODELS = ["resnet18", "efficientnet_b0", "mixnet_s", "ghostnet_100", "convnext_atto"]


@pytest.mark.slow
@pytest.mark.openvino
@pytest.mark.parametrize("name", MODELS)
def test_every_global_reduction_of_a_timm_model_equals_the_plugin(name, tmp_path):
    from test_family import _torchvision
    torch, _ = _torchvision()
    timm = pytest.importorskip("timm")
    core, compared = ov.Core(), 0
    for global_pool in ("avg", "max", "avgmax"):
        module = timm.create_model(name, pretrained=False, global_pool=global_pool).eval()
        shape = (1,) + tuple(module.default_cfg.get("input_size", (3, 224, 224)))
        with torch.no_grad():
            model = ov.convert_model(module, example_input=torch.rand(shape), input=[shape])
        xml = tmp_path / f"{global_pool}.xml"
        ov.save_model(model, str(xml), compress_to_fp16=False)
        x = np.random.default_rng(compared).standard_normal(shape).astype(np.float32)
        for node in model.get_ordered_ops():
            if node.get_type_name() not in ("ReduceMean", "ReduceMax") or \
                    node.input_value(0).get_partial_shape().rank.get_length() != 4:
                continue
            both = ov.Model([node.input_value(0), node.output(0)], model.get_parameters())
            compiled = core.compile_model(both, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            fed, want = (compiled([x])[o] for o in compiled.outputs)
            (got,) = irpool.run(xml, fed, layer=node.get_friendly_name()).values()
            assert_same_bits(got, want, (name, global_pool, node.get_friendly_name()))
            compared += 1
    assert compared >= 3, compared            # (a head's ReduceMean and ReduceMax at least)
