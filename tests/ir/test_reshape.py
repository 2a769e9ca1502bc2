"""--shape on IR files (irpool/ir/shape/reshape.py) against OpenVINO's own Model.reshape: small PyTorch modules that
use the ops torchvision's and timm's classifiers are made of, converted by OpenVINO without input shapes (so
every spatial dim is dynamic, as a user's `convert_model(model, example_input=x)` gives them), then reshaped
to several input sizes. Every port of every layer irpool infers must have the dims reshape gives it, and
check --shape must refuse exactly where reshape or compile_model does."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
ov = pytest.importorskip("openvino")
nn, F = torch.nn, torch.nn.functional

from irpool.ir.shape import reshape  # noqa: E402
from irpool.ir.read.document import Document, parse  # noqa: E402

pytestmark = [pytest.mark.openvino]

POOLS = ("MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean", "ReduceMax")


class Stem(nn.Module):
    """resnet's stem, an SE block, a channel shuffle (a ShapeOf subgraph), a concat, a ceil-mode AvgPool
    that does not count the pad, a nearest upsampling, a ceil-mode MaxPool, and the classifier's flatten."""

    def __init__(self):
        super().__init__()
        self.c, self.b, self.p = nn.Conv2d(3, 8, 7, 2, 3), nn.BatchNorm2d(8), nn.MaxPool2d(3, 2, 1)
        self.c2, self.se1, self.se2 = nn.Conv2d(8, 8, 3, 1, 1, groups=8), nn.Conv2d(8, 4, 1), nn.Conv2d(4, 8, 1)
        self.p2, self.fc = nn.AvgPool2d(3, 2, ceil_mode=True, count_include_pad=False), nn.Linear(16, 10)

    def forward(self, x):
        y = self.p(F.relu(self.b(self.c(x))))
        z = F.hardswish(self.c2(y))
        z = z * torch.sigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool2d(z, 1)))))
        n, c, h, w = z.size()
        z = z.view(n, 2, c // 2, h, w).transpose(1, 2).contiguous().view(n, c, h, w)
        z = self.p2(torch.cat([z, y], 1))
        z = F.max_pool2d(F.interpolate(z, scale_factor=2.0, mode="nearest"), 2, ceil_mode=True)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(z, (1, 1)), 1))


class Branches(nn.Module):
    """inception's and densenet's parts: a pool beside convs, slices, a split, a pad, an adaptive pool to 3x3,
    a dilated pool with indices, a transposed convolution, a size-given upsampling."""

    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Conv2d(3, 4, 1), nn.Conv2d(3, 4, 3, padding=1)
        self.up = nn.ConvTranspose2d(12, 6, 3, stride=2, padding=1, output_padding=1)
        self.mp = nn.MaxPool2d(3, 1, 1, dilation=2, return_indices=True)

    def forward(self, x):
        y = torch.cat([self.a(x), self.b(x), F.max_pool2d(x, 3, 1, 1)[:, :, :, :]], 1)   # 11 channels
        y = torch.cat([y, y[:, :1, 1:, :-1].mean(dim=(2, 3), keepdim=True).expand(-1, -1, y.shape[2], y.shape[3])], 1)
        u, v = torch.split(y, [6, 6], dim=1)
        u = F.avg_pool2d(F.pad(u, (1, 2, 0, 1)), 2, ceil_mode=True)
        v = F.adaptive_max_pool2d(v, 3)
        w, idx = self.mp(self.up(y))
        w = F.interpolate(w, size=(5, 7), mode="bilinear", align_corners=False)
        return u.sum() + v.sum() + w.sum() + idx.sum()


class OneD3D(nn.Module):
    """1-D and 3-D pools, a MatMul head."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv3d(2, 4, 3, padding=(0, 1, 1), stride=(1, 2, 2))
        self.lin = nn.Linear(4, 3)

    def forward(self, x):
        y = F.max_pool3d(self.c(x), (1, 3, 3), (1, 2, 2), (0, 1, 1), ceil_mode=True)
        y = F.avg_pool3d(y, 2, ceil_mode=True)
        s = y.flatten(2)                                    # [N, 4, L]
        s = F.max_pool1d(s, 2, ceil_mode=True) + F.avg_pool1d(s, 2, ceil_mode=True)
        return self.lin(s.transpose(1, 2))


class Mobile(nn.Module):
    """mobilenet's and efficientnet's activations, an upsampling by 1.5, then a CumSum, which irpool's --shape
    does not infer: the pool before it is checked, the one after it is counted unchecked, naming the CumSum."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 6, 3, 2, 1)

    def forward(self, x):
        y = F.silu(self.c(x))
        y = y * F.hardsigmoid(y)
        y = F.max_pool2d(F.interpolate(y, scale_factor=1.5, mode="bilinear"), 2, ceil_mode=True)
        return F.avg_pool2d(torch.cumsum(y, 3), 2)


class Shuffle(nn.Module):
    """shufflenet's unit (chunk: a VariadicSplit whose lengths come through Divide and Mod) and swin's padding
    to a multiple of its window (pads through FloorMod, Concat, Reshape, Split), then a roll and pools."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        y = torch.cat([a, self.c(b)], 1)
        n, c, h, w = y.size()
        y = y.view(n, 2, c // 2, h, w).transpose(1, 2).reshape(n, c, h, w)
        z = y.permute(0, 2, 3, 1)
        z = F.pad(z, (0, 0, 0, (7 - w % 7) % 7, 0, (7 - h % 7) % 7))
        z = torch.roll(z, (3, 3), (1, 2)).permute(0, 3, 1, 2)
        return F.max_pool2d(z, 7) + F.avg_pool2d(y, 2, ceil_mode=True).mean()


class ConvFirst(nn.Module):
    """A convolution without padding before a pool: at 2x2 the convolution's kernel does not fit, and OpenVINO's
    reshape refuses the model at the convolution, not at the pool."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        return F.max_pool2d(self.c(x), 1)


MODELS = {
    "stem": (Stem, (1, 3, 64, 64), [(1, 3, 64, 64), (2, 3, 97, 33), (1, 3, 23, 17), (1, 3, 9, 9), (1, 3, 5, 5),
                                    (1, 3, 1, 1)]),
    "branches": (Branches, (1, 3, 16, 16), [(1, 3, 16, 16), (3, 3, 7, 11), (1, 3, 3, 3), (1, 3, 2, 5),
                                           (1, 3, 1, 1)]),
    "mobile": (Mobile, (1, 3, 16, 16), [(1, 3, 16, 16), (1, 3, 13, 7), (1, 3, 3, 3)]),
    "shuffle": (Shuffle, (1, 8, 14, 14), [(1, 8, 14, 14), (2, 8, 9, 23), (1, 8, 7, 7)]),
    "convfirst": (ConvFirst, (1, 3, 8, 8), [(1, 3, 8, 8), (1, 3, 2, 2), (1, 3, 3, 3)]),
    "onedthreed": (OneD3D, (1, 2, 5, 16, 16), [(1, 2, 5, 16, 16), (2, 2, 3, 9, 31), (1, 2, 3, 3, 3),
                                               (1, 2, 4, 2, 2)]),
}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reshape")
    paths = {}
    for name, (make, example, _) in MODELS.items():
        torch.manual_seed(0)
        model = ov.convert_model(make().eval(), example_input=torch.randn(*example))
        paths[name] = str(folder / f"{name}.xml")
        ov.save_model(model, paths[name], compress_to_fp16=False)
    return paths


def _compiles_convolutions() -> bool:
    """Whether the CPU plugin compiles a plain f32 Convolution here. Measured on an AMD EPYC family 26 model 2
    (AVX-512): under ONEDNN_MAX_CPU_ISA=AVX2 or SSE41 OpenVINO 2026.4.1 refuses every Convolution,
    GroupConvolution and MatMul ("object is not initialized"), while it compiles pools: there a whole model's
    compile verdict says nothing of its pools, and only reshape's (shape inference, the same on every CPU) is
    compared."""
    import numpy as np
    import openvino.opset1 as o1
    p = o1.parameter([1, 2, 4, 4], np.float32, name="x")
    conv = o1.convolution(p, o1.constant(np.ones((2, 2, 3, 3), np.float32)), [1, 1], [0, 0], [0, 0], [1, 1])
    try:
        ov.Core().compile_model(ov.Model([conv], [p]), "CPU")
    except Exception:  # noqa: BLE001
        return False
    return True


COMPILES = _compiles_convolutions()


def _openvino(path, shape):
    """{(layer name, output index): dims} after Model.reshape, and whether compile_model takes it (or the
    error reshape raised); compile_model only where this CPU compiles convolutions at all (COMPILES)."""
    model = ov.Core().read_model(path)
    try:
        model.reshape({model.inputs[0].any_name: ov.PartialShape(list(shape))})
    except Exception as e:  # noqa: BLE001 (any refusal of OpenVINO's is the verdict)
        return None, str(e)
    dims = {(op.get_friendly_name(), k): tuple(op.output(k).get_partial_shape().to_shape())
            for op in model.get_ordered_ops() for k in range(op.get_output_size())}
    if not COMPILES:
        return dims, None
    try:
        ov.Core().compile_model(model, "CPU")
    except Exception as e:  # noqa: BLE001
        return dims, str(e).splitlines()[0]
    return dims, None


CASES = [(name, shape) for name, (_, _, shapes) in MODELS.items() for shape in shapes]


@pytest.mark.parametrize("name,shape", CASES, ids=[f"{n}-{'x'.join(map(str, s))}" for n, s in CASES])
def test_every_port_as_reshape_gives_it(converted, name, shape):
    import irpool
    path = converted[name]
    dims, refused = _openvino(path, shape)
    report = irpool.check(path, shapes={"x": shape})
    assert report.ok == (refused is None), (refused, [f.message for f in report.findings])
    assert name != "convfirst" or (refused is None) == (shape[2] > 2)
    if dims is None:
        if name == "convfirst":          # refused at the convolution, not at the pool: irpool names that layer
            assert "While validating node 'opset1::Convolution" in refused
            (f,) = report.findings
            assert f.layer_type == "Convolution" and "OpenVINO's reshape refuses" in f.message, f.message
        return
    got = reshape.infer(Document(path), {"x": shape}, path[:-4] + ".bin")
    net = parse(path)
    compared = 0
    for layer in net.layers:
        for k, port in enumerate(layer.outputs):
            want = dims.get((layer.name, k))
            have = got.ports.get(layer.id, {}).get(port.id)
            if want is None or have is None and layer.id in got.gaps:
                continue
            assert have == want, (layer.type, layer.name, have, want)
            compared += 1
    if name == "mobile":          # every layer up to the CumSum is inferred; the pool after it is not checked
        (cumsum,) = [lay for lay in net.layers if lay.type == "CumSum"]
        assert cumsum.id in got.gaps and "does not know CumSum layers" in got.gaps[cumsum.id]
        assert list(report.unchecked) == [f"--shape does not reach their input: {got.gaps[cumsum.id]}"]
        assert report.unchecked[list(report.unchecked)[0]] == {"AvgPool": 1}
        return
    assert not got.gaps, "irpool infers every layer of these models"
    pools = [lay for lay in net.layers if lay.type in POOLS]
    assert pools and all((lay.name, 0) in dims for lay in pools)     # (reshape rebuilds some shape subgraphs)
    assert compared > len(net.layers) // 2
    assert not report.unchecked


# Where shape_rules.py (--shape) evaluated ShapeOf, Squeeze and Range otherwise than OpenVINO before both it and
# fold.py called shape_ops.py: hand-written nets over a dynamic x (tests/helpers/shapeir.py), reshaped to 2x3x4x5.
SHAPE_OP_CASES = {
    "a squeezed dim that is not 1 stays": ("squeezed_const", dict(values=[2, 3])),
    "empty axes squeeze every 1": ("model_optimizer", dict(axes=([], "0"))),
    "an axis outside the rank": ("model_optimizer", dict(axes=([1], "1"))),
    "a stop that is not a scalar": ("model_optimizer", dict(squeeze=None)),
    "Range-4 step 0": ("model_optimizer", dict(step=(0, "i64"))),
    "Range-1 of i32 and i64": ("model_optimizer", dict(start=(2, "i32"), rng="opset1")),
    "Range-4 truncates float inputs first": ("model_optimizer", dict(start=(0.5, "f32"), step=(1.5, "f32"))),
    "a ShapeOf-3 of f32": ("model_optimizer", dict(shape_of="f32")),
    "Range-1 of i32 ShapeOfs": ("model_optimizer", dict(shape_of="i32", start=(2, "i32"), step=(1, "i32"),
                                                       rng="opset1", output_type="i32")),
}


@pytest.mark.parametrize("case", list(SHAPE_OP_CASES))
def test_shape_ops_as_reshape_gives_them(case, tmp_path):
    import shapeir

    import irpool
    make, kwargs = SHAPE_OP_CASES[case]
    path, shape = tmp_path / "m.xml", (2, 3, 4, 5)
    getattr(shapeir, make)(path, dynamic=True, **kwargs)
    try:
        model = ov.Core().read_model(path)
        model.reshape({0: ov.PartialShape(list(shape))})
    except Exception as e:  # noqa: BLE001 (any refusal of OpenVINO's is the verdict)
        refused = str(e)
    else:
        refused = None
        want = {op.get_friendly_name(): [tuple(op.output(k).get_partial_shape().to_shape())
                                         for k in range(op.get_output_size())] for op in model.get_ordered_ops()}
    got = reshape.infer(Document(str(path)), {"n0": shape}, str(path.with_suffix(".bin")))
    report = irpool.check(path, shapes={"n0": shape})
    if refused is not None:
        assert got.refused and not report.ok, (refused, [str(f) for f in report.findings])
        (layer, why), = got.refused
        assert "While validating node 'opset" in refused and f"::{layer.type} " in refused, (refused, why)
        return
    assert report.ok and not got.refused and not got.gaps, ([str(f) for f in report.findings], got.gaps)
    for layer in parse(str(path)).layers:
        for port, dims in zip(layer.outputs, want[layer.name]):
            assert got.ports[layer.id][port.id] == dims, (layer.type, got.ports[layer.id], dims)
