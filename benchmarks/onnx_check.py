"""`irpool check model.onnx` against what ONNX itself takes to look at the same file: onnx.load plus
onnx.shape_inference.infer_shapes, on classifiers torch.onnx.export writes (resnet18, vgg11 and a googlenet-like net, random weights).
Same process, same files, best of --repeat; prints the CPU.

    python benchmarks/onnx_check.py [--repeat 5] [--models resnet18,vgg11,googlenet] [--opset 17]
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from timing import best_of, cpu_name  # noqa: E402


def _classifier(name: str):
    """resnet18, vgg11 and googlenet-like stems written in torch.nn (this machine's torchvision does not load
    with its torch): the pooling layers those architectures have (googlenet's ceil_mode max pools included)."""
    import torch
    from torch import nn

    def block(cin, cout, stride):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, 1, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())
    if name == "resnet18":
        layers = [nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
        for cin, cout, stride in ((64, 64, 1), (64, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2),
                                  (256, 256, 1), (256, 512, 2), (512, 512, 1)):
            layers.append(block(cin, cout, stride))
        layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(512, 1000)]
    elif name == "vgg11":
        layers, cin = [], 3
        for v in (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"):
            layers += [nn.MaxPool2d(2, 2)] if v == "M" else [nn.Conv2d(cin, v, 3, 1, 1), nn.ReLU()]
            cin = cin if v == "M" else v
        layers += [nn.AdaptiveAvgPool2d(7), nn.Flatten(), nn.Linear(512 * 49, 4096), nn.ReLU(), nn.Linear(4096, 1000)]
    else:                                   # googlenet: ceil_mode max pools between inception-sized convs
        layers = [nn.Conv2d(3, 64, 7, 2, 3), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                  nn.Conv2d(64, 192, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                  nn.Conv2d(192, 480, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
                  nn.Conv2d(480, 832, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2, 2, ceil_mode=True),
                  nn.Conv2d(832, 1024, 3, 1, 1), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1024, 1000)]
    return torch.nn.Sequential(*layers).eval()


def export(name: str, folder: str, opset: int) -> str:
    import torch
    path = os.path.join(folder, f"{name}.onnx")
    with torch.no_grad():
        torch.onnx.export(_classifier(name), (torch.randn(1, 3, 224, 224),), path, opset_version=opset,
                          dynamo=False)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--models", default="resnet18,vgg11,googlenet")
    ap.add_argument("--opset", type=int, default=17)
    args = ap.parse_args()
    import onnx

    import irpool
    print(f"CPU: {cpu_name()}; onnx {onnx.__version__}; one process; best of {args.repeat}")
    print(f"{'model':<22} {'MB':>6} {'pools':>5} {'irpool check':>13} {'load+infer':>11} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as folder:
        for name in args.models.split(","):
            path = export(name, folder, args.opset)
            report = irpool.check(path)
            ours = best_of(lambda: irpool.check(path), args.repeat)
            theirs = best_of(lambda: onnx.shape_inference.infer_shapes(onnx.load(path)), args.repeat)
            print(f"{name:<22} {os.path.getsize(path) / 1e6:>6.1f} {report.pooling_layers:>5} {ours * 1e3:>10.1f} ms"
                  f" {theirs * 1e3:>8.1f} ms {ours / theirs:>6.2f}")


if __name__ == "__main__":
    main()
