"""Models as users make them: a torch module (or function) exported to ONNX by torch.onnx.export (TorchScript),
and that model converted to IR by openvino.convert_model + save_model."""
import warnings

import pytest


def export(fn, shape, path, opset=17, **kw):
    """torch.onnx.export of `fn` (a torch module, or a function of one tensor) on zeros of `shape`, to `path`."""
    torch = pytest.importorskip("torch")
    if not isinstance(fn, torch.nn.Module):
        fn = _function(torch, fn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(fn.eval(), torch.zeros(*shape), path, opset_version=opset, dynamo=False, **kw)
    return path


def convert(onnx_path):
    """The IR openvino.convert_model makes of an .onnx model, saved beside it (f32 weights): its .xml path."""
    ov = pytest.importorskip("openvino")
    xml = onnx_path.with_suffix(".xml")
    ov.save_model(ov.convert_model(str(onnx_path)), str(xml), compress_to_fp16=False)
    return xml


def convert_torch(fn, shape, xml):
    """The IR openvino.convert_model makes of a torch module (or function) traced on zeros of `shape` (its PyTorch
    frontend: the path for what TorchScript's ONNX export refuses, adaptive pools of any size), saved at `xml`."""
    torch = pytest.importorskip("torch")
    ov = pytest.importorskip("openvino")
    if not isinstance(fn, torch.nn.Module):
        fn = _function(torch, fn)
    ov.save_model(ov.convert_model(fn.eval(), example_input=torch.zeros(*shape)), str(xml), compress_to_fp16=False)
    return xml


def conv_relu_pools(folder):
    """(.onnx, .xml) of Conv 3->4 k3, ReLU, MaxPool2d(3, 2, ceil_mode), AvgPool2d(3, 2, pad 1, ceil_mode, not
    counting the pad) on 1x3x17x17, input 'image': the MaxPool reads a ReLU (no value_info in the export), and
    the IR names the AvgPool after its output tensor, a number that is the MaxPool's id."""
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c = torch.nn.Conv2d(3, 4, 3)
            self.p = torch.nn.MaxPool2d(3, 2, ceil_mode=True)
            self.a = torch.nn.AvgPool2d(3, 2, padding=1, ceil_mode=True, count_include_pad=False)

        def forward(self, x):
            return self.a(self.p(torch.relu(self.c(x))))

    path = export(Net(), (1, 3, 17, 17), folder / "net.onnx", input_names=["image"])
    return path, convert(path)


def _function(torch, fn):
    """A torch module whose forward is `fn`."""
    class Function(torch.nn.Module):
        def forward(self, x):
            return fn(x)
    return Function()
