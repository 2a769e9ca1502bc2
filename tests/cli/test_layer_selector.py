"""One --layer selector for run and explain, IR and ONNX (DESIGN.md section 10): an exact id, then an exact name;
`id:` and `name:` say which; a word that is one layer's id and another's name is an error naming both and the
syntax; a word nothing has lists the pooling layers (id, name, type). The files are what users have: a torch
module exported to ONNX (TorchScript, opset 17) and that model converted to IR by openvino.convert_model, where
the last pool is named after its output tensor, a number that is another pooling layer's id. Which layer ran is
judged by torch's own pooling of the same array."""
import json
import re

import numpy as np
import pytest
from lxml import etree

import irpool

from clitool import cli
from exports import conv_relu_pools

pytestmark = [pytest.mark.openvino, pytest.mark.onnx]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    torch = pytest.importorskip("torch")
    folder = tmp_path_factory.mktemp("selector")
    onnx_path, xml = conv_relu_pools(folder)
    pools = [(el.get("id"), el.get("name"), el.get("type")) for el in etree.parse(str(xml)).iter("layer")
             if el.get("type") in ("MaxPool", "AvgPool")]
    x = np.random.default_rng(3).standard_normal((1, 4, 15, 15)).astype(np.float32)    # the MaxPool's input
    np.save(folder / "x.npy", x)
    return dict(folder=folder, onnx=onnx_path, xml=xml, pools=pools, x=x, torch=torch)


def test_an_id_that_is_another_layers_name_is_selected_by_id_or_name(models):
    (max_id, max_name, max_type), (avg_id, avg_name, avg_type) = models["pools"]
    assert (max_type, avg_type) == ("MaxPool", "AvgPool") and avg_name == max_id     # torch's name, OpenVINO's id
    xml, x, torch = models["xml"], models["x"], models["torch"]
    for verb in (["explain"], ["run", "-i", f"0={models['folder'] / 'x.npy'}"]):
        r = cli(verb[0], xml, "--layer", max_id, *verb[1:])
        assert r.returncode == 2 and "ambiguous" in r.stderr, r.stderr
        assert f"id={max_id} name={max_name!r}" in r.stderr and f"id={avg_id} name={avg_name!r}" in r.stderr
        assert f"--layer id:{max_id}" in r.stderr and f"--layer name:{max_id}" in r.stderr
    # id: selects the MaxPool, name: the AvgPool, in explain, run and the Python API alike
    doc = json.loads(cli("explain", xml, "--layer", f"id:{max_id}", "--json").stdout)
    assert [(e["layer_id"], e["layer_type"]) for e in doc["layers"]] == [(max_id, "MaxPool")]
    doc = json.loads(cli("explain", xml, "--layer", f"name:{max_id}", "--json").stdout)
    assert [(e["layer_id"], e["layer_type"]) for e in doc["layers"]] == [(avg_id, "AvgPool")]
    out = models["folder"] / "y.npz"
    r = cli("run", xml, "--layer", f"id:{max_id}", "-i", f"0={models['folder'] / 'x.npy'}", "-o", out)
    assert r.returncode == 0, r.stderr
    want = torch.nn.functional.max_pool2d(torch.from_numpy(x), 3, 2, ceil_mode=True).numpy()
    with np.load(out) as got:
        np.testing.assert_array_equal(got[list(got)[0]], want)
    (values,) = irpool.run(xml, want, layer=f"name:{max_id}").values()
    ref = torch.nn.functional.avg_pool2d(torch.from_numpy(want), 3, 2, padding=1, ceil_mode=True,
                                         count_include_pad=False).numpy()
    assert values.shape == ref.shape
    np.testing.assert_allclose(values, ref, rtol=1e-6, atol=1e-6)
    r = cli("explain", xml, "--layer", f"id:{avg_name}x")
    assert r.returncode == 2 and f"no pooling layer has id '{avg_name}x'" in r.stderr, r.stderr


def test_the_onnx_model_takes_the_same_syntax(models):
    import onnx
    m = onnx.load(models["onnx"])
    pools = [(k, n.name, n.op_type, n.output[0]) for k, n in enumerate(m.graph.node)
             if n.op_type in ("MaxPool", "AveragePool")]
    (k_max, name_max, _, _), (k_avg, name_avg, _, out_avg) = pools
    doc = json.loads(cli("explain", models["onnx"], "--layer", f"id:{k_max}", "--json").stdout)
    assert [e["layer_name"] for e in doc["layers"]] == [name_max]
    doc = json.loads(cli("explain", models["onnx"], "--layer", f"name:{out_avg}", "--json").stdout)
    assert [e["layer_name"] for e in doc["layers"]] == [name_avg]
    r = cli("explain", models["onnx"], "--layer", f"name:{k_max}")
    assert r.returncode == 2 and f"no pooling node has name '{k_max}'" in r.stderr, r.stderr


@pytest.mark.parametrize("kind", ["xml", "onnx"])
def test_a_layer_not_found_lists_the_pooling_layers_in_explain_as_in_run(models, kind):
    path = models[kind]
    if kind == "xml":
        listed = [f"id={i} name={n!r} ({t})" for i, n, t in models["pools"]]
    else:
        import onnx
        listed = [f"node {n.name!r} (#{k}, {n.op_type})" for k, n in enumerate(onnx.load(path).graph.node)
                  if n.op_type in ("MaxPool", "AveragePool")]
    assert len(listed) == 2
    for verb in (["explain"], ["run", "-i", f"0={models['folder'] / 'x.npy'}"]):
        r = cli(verb[0], path, "--layer", "nope", *verb[1:])
        assert r.returncode == 2 and "'nope'" in r.stderr, r.stderr
        shown = re.search(r"its pooling (?:layers|nodes) include (.*)$", r.stderr.strip()).group(1)
        assert all(item in shown for item in listed), (listed, r.stderr)
