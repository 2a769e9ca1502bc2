"""How an .onnx model's findings are told (issue 54 items 10, 11): value divergences (NaN, a mean's divisor) are
one `value-divergence` a file naming the nodes, apart from the shape ones, in full in explain; a finding names
its node `node 'NAME' (#INDEX, OP)` in every format; ReduceMean/ReduceMax over every spatial axis are counted,
checked and run as global pools. Judged against onnxruntime (and OpenVINO for the values that differ)."""
import json

import numpy as np
import pytest

import irpool
import onnxpeers as P
from clitool import cli
from onnxpeers import h, onnx
from irpool.onnx.explain import entries
from irpool.opdefs import load

pytestmark = [pytest.mark.onnxruntime, pytest.mark.openvino]
N = np.nan


def _three_pools():
    """p1 (dilated) and p2 (Indices listed): onnxruntime's own loop, where a NaN first tap wins; p3 (ceil_mode,
    pads): a shape ONNX's opset-12 inference gives otherwise. Declared as onnxruntime computes them."""
    nodes = [h.make_node("MaxPool", ["x"], ["a"], name="p1", kernel_shape=[2], dilations=[2]),
             h.make_node("MaxPool", ["a"], ["b", "i"], name="p2", kernel_shape=[2]),
             h.make_node("MaxPool", ["b"], ["y"], name="p3", kernel_shape=[2], strides=[2], pads=[1, 1], ceil_mode=1)]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", 1, [1, 1, 20])],
                     [h.make_tensor_value_info("y", 1, [1, 1, 9]), h.make_tensor_value_info("i", 7, [1, 1, 17])],
                     value_info=[h.make_tensor_value_info("a", 1, [1, 1, 18]),
                                 h.make_tensor_value_info("b", 1, [1, 1, 17])])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 12)])


def test_value_divergences_are_one_finding_a_file(tmp_path):
    m = _three_pools()
    x = np.zeros((1, 1, 20), np.float32)
    got = P.session(m).run(None, {"x": x})
    assert [o.shape for o in got] == [(1, 1, 9), (1, 1, 17)]       # (declared as onnxruntime computes them)
    report = irpool.check(m.SerializeToString())
    (value,) = [f for f in report.findings if f.code == "value-divergence"]
    assert value.severity == "warning" and value.layer_id is None
    assert "'p1' (#0, MaxPool)" in value.message and "'p2' (#1, MaxPool)" in value.message
    assert "'p3'" not in value.message and len(value.message) < 400
    (shape,) = [f for f in report.findings if f.code == "runtime-divergence"]
    assert shape.layer_name == "p3" and "NaN" not in shape.message
    # the values named do differ: a window whose first tap is NaN, each node alone in each runtime
    row = np.array([[[N, 1, 2, 3, N, 0, 5, 1]]], np.float32)
    for name, attrs, indices in (("p1", dict(kernel_shape=[2], dilations=[2]), False),
                                 ("p2", dict(kernel_shape=[2]), True)):
        one = P.model("MaxPool", 12, attrs, row.shape, indices=indices)
        assert P.ort_kernel(one, row)[0].tobytes() != P.openvino(one, row)[0].tobytes(), name
    # --ignore value-divergence keeps the shape one; explain says the rule in full
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    r = cli("check", path, "--ignore", "value-divergence")
    assert r.returncode == 0 and "[runtime-divergence] node 'p3' (#2, MaxPool)" in r.stdout, r.stdout + r.stderr
    assert "value-divergence" not in r.stdout
    r = cli("explain", path, "--layer", "p1")
    assert load("onnx")["runtimes"]["openvino_nan_first"] in r.stdout, r.stdout


def test_every_format_names_the_node_by_name_then_index(tmp_path):
    path = tmp_path / "m.onnx"
    path.write_bytes(_three_pools().SerializeToString())
    who = "node 'p3' (#2, MaxPool)"
    text = cli("check", path).stdout
    assert f"[runtime-divergence] {who}: onnxruntime's kernel" in text and "layer id=" not in text
    doc = json.loads(cli("check", path, "--json").stdout)
    (f,) = [f for f in doc["files"][0]["findings"] if f["code"] == "runtime-divergence"]
    assert f["who"] == who and f["front_end"] == "onnx" and f["layer_id"] == "2" and f["layer_name"] == "p3"
    github = cli("check", path, "--format", "github").stdout
    assert f"::{who}: onnxruntime" in github.replace("title=irpool runtime-divergence", "")
    sarif = json.loads(cli("check", path, "--format", "sarif").stdout)
    (res,) = [r for r in sarif["runs"][0]["results"] if r["ruleId"] == "runtime-divergence"]
    assert res["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == who
    assert res["message"]["text"].startswith(f"{who}: ")


def _reduction(op, opset, shape, axes, keepdims=None, declared=None, elem=1):
    inputs, inits, kw = ["x"], [], {} if keepdims is None else {"keepdims": keepdims}
    if opset >= 18:
        inputs.append("axes")
        inits.append(onnx.numpy_helper.from_array(np.array(axes, np.int64), "axes"))
    else:
        kw["axes"] = axes
    g = h.make_graph([h.make_node(op, inputs, ["y"], name="r", **kw)], "g",
                     [h.make_tensor_value_info("x", elem, shape)], [h.make_tensor_value_info("y", elem, declared)],
                     inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", opset)])


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceMax"])
@pytest.mark.parametrize("opset", [13, 18])
@pytest.mark.parametrize("keepdims", [None, 0])
def test_global_reductions_are_pools(op, opset, keepdims):
    rng = np.random.default_rng(opset)
    for shape, axes in (([2, 5, 7, 9], [2, 3]), ([1, 3, 11], [-1]), ([1, 4, 3, 5, 6], [-3, 3, 4])):
        for elem, dt in ((1, np.float32), (11, np.float64)):
            x = (rng.standard_normal(shape) * 10).astype(dt)
            m = _reduction(op, opset, shape, axes, keepdims, elem=elem)
            (want,) = P.session(m).run(None, {"x": x})
            report = irpool.check(m.SerializeToString())
            assert report.kinds == {f"global {op}": 1} and report.ok and not report.findings, report.summary
            (e,) = entries(m.SerializeToString())
            assert e["outputs"][0]["computed"] == [str(d) for d in want.shape]
            got = irpool.run(m.SerializeToString(), x, layer="r")["y"]
            assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), (shape, dt)
            wrong = list(want.shape)
            wrong[-1] += 1
            bad = irpool.check(_reduction(op, opset, shape, axes, keepdims, declared=wrong, elem=elem)
                               .SerializeToString())
            assert [f.code for f in bad.findings] == ["shape-mismatch"] and "node 'r' (#0," in str(bad.findings[0])
    for shape, axes in (([2, 5, 7, 9], [1, 2, 3]), ([2, 5, 7, 9], [3]), ([2, 5], [1])):       # not global pools
        report = irpool.check(_reduction(op, opset, shape, axes, keepdims).SerializeToString())
        assert report.pooling_layers == 0 and not report.findings


def test_a_dynamo_classifier_has_two_pooling_layers(tmp_path):
    """torch's default (dynamo) exporter writes AdaptiveAvgPool2d(1) as a ReduceMean over axes [-1, -2] (an
    initializer input, opset 18): a pooling layer, as OpenVINO's converter's ReduceMean is on IR."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxscript")
    nn = torch.nn

    class Classifier(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv, self.pool, self.gap, self.fc = nn.Conv2d(3, 8, 3), nn.MaxPool2d(2), nn.AdaptiveAvgPool2d(1), \
                nn.Linear(8, 4)

        def forward(self, x):
            return self.fc(torch.flatten(self.gap(self.pool(self.conv(x))), 1))
    path = tmp_path / "c.onnx"
    torch.onnx.export(Classifier().eval(), (torch.randn(1, 3, 16, 16),), str(path), dynamo=True)
    report = irpool.check(path)
    assert report.kinds == {"MaxPool": 1, "global ReduceMean": 1} and report.ok, report.summary
    m = onnx.load(str(path))
    (node,) = [n for n in m.graph.node if n.op_type == "ReduceMean"]
    m.graph.output.append(h.make_empty_tensor_value_info(node.input[0]))
    m.graph.output.append(h.make_empty_tensor_value_info(node.output[0]))
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    got = dict(zip([o.name for o in m.graph.output], P.session(m).run(None, {"x": x})))
    y = irpool.run(str(path), got[node.input[0]], layer=node.name)[node.output[0]]
    assert y.tobytes() == got[node.output[0]].tobytes()
