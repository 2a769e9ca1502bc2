"""Models whose shape subgraphs need a tensor over 4 KiB (issue 54 item 0): wire.light leaves such values out,
and check must neither trace back on the stripped copy nor lose the pool's dims. Torch exports of a BiT-like
stem (transformers' weight-standardized conv and "same" MaxPool: a pad computed from the input size, a
1,024-float Constant) and an nfnet-like one (timm's ScaledStdConv2dSame: a 1,536-float scale), at opsets 11
and 17 (TorchScript exporter), are judged against onnxruntime running them: the dims check computes for each
pool are the dims onnxruntime gives, and `run --layer` gives onnxruntime's bits for the MaxPool."""
import math

import numpy as np
import pytest

import irpool
from bits import assert_same_bits
from clitool import cli
from irpool.onnx.explain import entries
from irpool.onnx.program import load

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper as h, numpy_helper as nh  # noqa: E402

pytestmark = [pytest.mark.onnxruntime]


def _torch_models():
    torch = pytest.importorskip("torch")
    nn, F = torch.nn, torch.nn.functional

    def same_pad(x, k, s, value=0.0):
        ih, iw = x.size()[-2:]
        ph = max((math.ceil(ih / s) - 1) * s + k - ih, 0)
        pw = max((math.ceil(iw / s) - 1) * s + k - iw, 0)
        return F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2], value=value)

    class BitStem(nn.Module):           # transformers' BitWeightStandardizedConv2d + BitMaxPool2d, "same" padding
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 1024, 7, stride=2, bias=False)

        def forward(self, x):
            w = F.batch_norm(self.conv.weight.reshape(1, 1024, -1), None, None, training=True, momentum=0.0,
                             eps=1e-8).reshape_as(self.conv.weight)
            x = F.conv2d(same_pad(x, 7, 2), w, None, 2)
            return F.max_pool2d(same_pad(x, 3, 2, value=-math.inf), 3, 2)

    class NfStem(nn.Module):            # timm's ScaledStdConv2dSame, then a MaxPool and a DownsampleAvg's pool
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 1536, 3, stride=2, bias=False)
            self.gain = nn.Parameter(torch.full((1536, 1, 1, 1), 1.5))

        def forward(self, x):
            scale = (self.gain * 27 ** -0.5).view(-1)
            w = F.batch_norm(self.conv.weight.reshape(1, 1536, -1), None, None, weight=scale, training=True,
                             momentum=0.0, eps=1e-6).reshape_as(self.conv.weight)
            x = F.conv2d(same_pad(x, 3, 2), w, None, 2)
            x = F.max_pool2d(same_pad(x, 3, 2), 3, 2)
            return F.avg_pool2d(x, 2, 2, ceil_mode=True, count_include_pad=False)

    return torch, {"bit": BitStem, "nfnet": NfStem}


@pytest.fixture(scope="module", params=[("bit", 11), ("bit", 17), ("nfnet", 11), ("nfnet", 17)],
                ids=lambda p: f"{p[0]}-opset{p[1]}")
def exported(request, tmp_path_factory):
    torch, models = _torch_models()
    kind, opset = request.param
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp(kind) / f"{kind}{opset}.onnx"
    torch.onnx.export(models[kind]().eval(), torch.randn(1, 3, 97, 131), str(path), opset_version=opset,
                      dynamo=False)
    return path


def _ort_pool_tensors(path, pools):
    """{tensor name: array} of every pool's input and output, from onnxruntime running the whole model."""
    m = onnx.load(str(path))
    names = [t for n in m.graph.node if n.op_type in pools for t in (n.input[0], n.output[0])]
    have = {o.name for o in m.graph.output}
    m.graph.output.extend(h.make_empty_tensor_value_info(t) for t in dict.fromkeys(names) if t not in have)
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.random.default_rng(1).standard_normal((1, 3, 97, 131)).astype(np.float32)
    return dict(zip([o.name for o in s.get_outputs()], s.run(None, {s.get_inputs()[0].name: x})))


def test_torch_stems_get_a_verdict_onnxruntime_agrees_with(exported):
    report = irpool.check(exported)                 # (read from the path: the large tensors by seek)
    assert report.pooling_layers >= 1 and not report.unchecked, report.summary
    assert report.ok, [str(f) for f in report.findings]
    r = cli("check", exported)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    pools = {e["layer_name"]: e for e in entries(exported)}
    got = _ort_pool_tensors(exported, {e["layer_type"] for e in pools.values()})
    m = onnx.load(str(exported), load_external_data=False)
    for node in (n for n in m.graph.node if n.name in pools):
        e = pools[node.name]
        assert e["error"] is None and [int(d) for d in e["outputs"][0]["computed"]] == list(got[node.output[0]].shape)
        if node.op_type == "MaxPool":           # (AveragePool before opset 19: another helper's bits)
            (y,) = load(exported, layer=node.name, max_bytes=1 << 40).run(got[node.input[0]]).values()
            assert_same_bits(y, got[node.output[0]], node.name)


def _gather_model(as_constant: bool, declared_h=None, external=None):
    """x -> Pad (its pads Gathered from an 8,800-byte int64 table: a Constant node or an initializer) -> MaxPool.
    `external`: the table's values in a file of that name beside the model instead."""
    table = np.arange(1100, dtype=np.int64) % 5
    nodes = [h.make_node("Constant", [], ["idx"], value=nh.from_array(np.array([3, 4], np.int64)))]
    inits = []
    if as_constant:
        nodes.append(h.make_node("Constant", [], ["table"], value=nh.from_array(table)))
    else:
        inits.append(nh.from_array(table, "table"))
        if external:
            t = inits[0]
            t.ClearField("raw_data")
            t.data_location = onnx.TensorProto.EXTERNAL
            t.external_data.add(key="location", value=external)
    nodes += [h.make_node("Gather", ["table", "idx"], ["hw"]),          # [3, 4]: pads at the end of H and W
              h.make_node("Constant", [], ["z"], value=nh.from_array(np.zeros(6, np.int64))),
              h.make_node("Concat", ["z", "hw"], ["pads"], axis=0),
              h.make_node("Pad", ["x", "pads"], ["xp"]),
              h.make_node("MaxPool", ["xp"], ["y"], name="pool", kernel_shape=[3, 3], strides=[2, 2])]
    out = h.make_tensor_value_info("y", 1, None if declared_h is None else [1, 2, declared_h, 6])
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", 1, [1, 2, 9, 10])], [out], inits)
    return h.make_model(g, opset_imports=[h.make_opsetid("", 13)])


@pytest.mark.parametrize("as_constant", [True, False], ids=["constant-node", "initializer"])
@pytest.mark.parametrize("from_path", [True, False], ids=["path", "bytes"])
def test_a_shape_subgraph_reading_a_tensor_over_4_kib(tmp_path, as_constant, from_path):
    want = ort.InferenceSession(_gather_model(as_constant).SerializeToString(), providers=["CPUExecutionProvider"]) \
        .run(None, {"x": np.zeros((1, 2, 9, 10), np.float32)})[0].shape
    for declared_h, ok in ((want[2], True), (want[2] + 1, False)):
        data = _gather_model(as_constant, declared_h).SerializeToString()
        source = tmp_path / "m.onnx" if from_path else data
        if from_path:
            source.write_bytes(data)
        report = irpool.check(source)
        assert report.pooling_layers == 1 and not report.unchecked, report.summary
        codes = [f.code for f in report.findings if f.code != "value-divergence"]     # (MLAS's NaN: mlas_nan)
        assert report.ok is ok and codes == ([] if ok else ["shape-mismatch"])


def test_external_values_are_not_followed(tmp_path):
    """A table held in external data is never opened (the weights are not irpool's to read): the pool is
    counted unchecked, saying why, and nothing traces back."""
    (tmp_path / "table.bin").write_bytes(np.arange(1100, dtype=np.int64).tobytes())
    path = tmp_path / "m.onnx"
    path.write_bytes(_gather_model(False, external="table.bin").SerializeToString())
    report = irpool.check(path)
    assert report.pooling_layers == 1 and report.ok
    assert any("not known" in why for why in report.unchecked), report.unchecked
