"""Time irpool on the pooling layers of real classifiers, as OpenVINO's converters write them, against
OpenVINO's CPU plugin and onnxruntime: layer by layer, one thread and every core, the same input to all.

The layers come from `real_layers.json` beside this file: every MaxPool, AvgPool, adaptive pool and global
ReduceMean/ReduceMax that `openvino.convert_model` wrote for torchvision's architectures (random weights),
with the model each came from and how often it occurs there. `--extract` builds that file again (needs torch
and torchvision: `pip install -e ".[test]"`); timing needs the `bench` extra.

Each distinct layer is built alone as OpenVINO builds it (Parameter -> op -> Result of output 0, saved by
save_model) and run by `irpool.load(...).run`, by the plugin (INFERENCE_PRECISION_HINT=f32) and by an
onnxruntime session of the equivalent ONNX node (none for adaptive pools). Each run (--runs, default 3) lets
the runtimes take turns in short rounds (timing.in_turns) and takes each one's median call; the tables give the
median run. A layer's time counts once per occurrence in the models ("in sum"), and the worst layer is named.

    python benchmarks/real_layers.py                  # one thread each
    python benchmarks/real_layers.py --threads 0      # every core
    python benchmarks/real_layers.py --extract        # rebuild real_layers.json
"""
from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
import tempfile

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

from timing import median_runs  # noqa: E402

HERE = pathlib.Path(__file__).parent
LAYERS = HERE / "real_layers.json"
POOLS = ("MaxPool", "AvgPool", "AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean", "ReduceMax")
# torchvision architecture, input shape
MODELS = [("resnet50", [1, 3, 224, 224]), ("googlenet", [1, 3, 224, 224]), ("inception_v3", [1, 3, 299, 299]),
          ("densenet121", [1, 3, 224, 224]), ("vgg16", [1, 3, 224, 224]), ("squeezenet1_0", [1, 3, 224, 224]),
          ("alexnet", [1, 3, 224, 224]), ("mobilenet_v3_large", [1, 3, 224, 224]),
          ("efficientnet_b0", [1, 3, 224, 224]), ("shufflenet_v2_x1_0", [1, 3, 224, 224]),
          ("regnet_y_400mf", [1, 3, 224, 224]), ("mnasnet1_0", [1, 3, 224, 224]), ("convnext_tiny", [1, 3, 224, 224]),
          ("video.s3d", [1, 3, 16, 224, 224]), ("video.r3d_18", [1, 3, 16, 112, 112])]


def _torchvision():
    import torch
    try:
        import torchvision
    except RuntimeError:        # torchvision 0.28's C++ ops missing from this torch build: define their schemas
        _torchvision.lib = torch.library.Library("torchvision", "DEF")
        for op in ("nms", "qnms"):
            _torchvision.lib.define(f"{op}(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
        import torchvision
    return torchvision


def converted(name: str, shape):
    """A torchvision architecture of MODELS with random weights, as openvino.convert_model writes it."""
    import openvino as ov
    import torch
    torchvision = _torchvision()
    ns, _, fn = name.rpartition(".")
    build = getattr(getattr(torchvision.models, ns) if ns else torchvision.models, fn)
    kwargs = dict(aux_logits=False, init_weights=False) if fn in ("googlenet", "inception_v3") else {}
    return ov.convert_model(build(weights=None, **kwargs).eval(), example_input=torch.rand(shape),
                            input=[tuple(shape)])


def extract() -> None:
    """Convert each architecture with random weights and write down its pooling layers."""
    import openvino as ov
    import torch
    torchvision = _torchvision()
    torch.manual_seed(0)
    found = {}
    for name, shape in MODELS:
        ovm = converted(name, shape)
        for op in ovm.get_ordered_ops():
            kind = op.get_type_name()
            if kind not in POOLS:
                continue
            attrs = {k: (list(v) if isinstance(v, (list, tuple)) else v) for k, v in op.get_attributes().items()}
            entry = dict(op=kind, version=op.get_type_info().version_id, attributes=attrs,
                         input=[int(d) for d in op.input(0).get_partial_shape().to_shape()])
            if len(op.inputs()) == 2:
                src = op.input_value(1).get_node()
                if src.get_type_name() != "Constant":
                    continue
                entry["second"] = [int(v) for v in src.get_data().ravel()]
                if kind.startswith("Reduce") and sorted(v % len(entry["input"]) for v in entry["second"]) != \
                        list(range(2, len(entry["input"]))):
                    continue                                     # a reduction that is not a global pool
            key = json.dumps(entry, sort_keys=True)
            item = found.setdefault(key, dict(entry, models={}))
            item["models"][name] = item["models"].get(name, 0) + 1
        print(f"{name}: {sum(i['models'].get(name, 0) for i in found.values())} pooling layers", file=sys.stderr)
    layers = sorted(found.values(), key=lambda e: (e["op"], e["input"]))
    LAYERS.write_text(json.dumps(dict(
        about="The pooling layers openvino.convert_model wrote for torchvision architectures with random weights"
              " (benchmarks/real_layers.py --extract); models: {architecture: occurrences}.",
        openvino=ov.__version__, torch=torch.__version__, torchvision=torchvision.__version__,
        layers=layers), indent=1) + "\n")


def build(entry, folder):
    """The layer alone, as save_model writes it: (path of the .xml, name of the pooling layer)."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14
    a, kind = entry["attributes"], entry["op"]
    x = o1.parameter(entry["input"], np.float32, name="x")
    if kind == "MaxPool":
        opset = {"opset1": o1, "opset8": o8}.get(entry["version"], o14)
        args = [x, a["strides"]] + ([a["dilations"]] if opset is not o1 else []) + \
            [a["pads_begin"], a["pads_end"], a["kernel"], a["rounding_type"], a["auto_pad"]]
        node = opset.max_pool(*args, name="pool")
    elif kind == "AvgPool":
        opset = o1 if entry["version"] == "opset1" else o14
        node = opset.avg_pool(x, a["strides"], a["pads_begin"], a["pads_end"], a["kernel"], a["exclude-pad"],
                              a["rounding_type"], a["auto_pad"], name="pool")
    elif kind == "AdaptiveAvgPool":
        node = o8.adaptive_avg_pool(x, o1.constant(np.array(entry["second"], np.int64)), name="pool")
    elif kind == "AdaptiveMaxPool":
        node = o8.adaptive_max_pool(x, o1.constant(np.array(entry["second"], np.int64)), "i32", name="pool")
    else:
        reduce = o1.reduce_mean if kind == "ReduceMean" else o1.reduce_max
        node = reduce(x, o1.constant(np.array(entry["second"], np.int64)), a["keep_dims"], name="pool")
    model = ov.Model([o1.result(node.output(0))], [x], "layer")
    path = os.path.join(folder, f"layer{len(os.listdir(folder))}.xml")
    ov.save_model(model, path, compress_to_fp16=False)
    return path, model


def onnx_node(entry):
    """The equivalent ONNX model, or None (adaptive pools have no ONNX op)."""
    from onnx import TensorProto, helper
    a, kind, rank = entry["attributes"], entry["op"], len(entry["input"])
    if kind in ("ReduceMean", "ReduceMax"):
        node = helper.make_node("GlobalAveragePool" if kind == "ReduceMean" else "GlobalMaxPool", ["x"], ["y"])
    elif kind in ("MaxPool", "AvgPool") and a["auto_pad"] in ("explicit", "notset", "valid"):
        attrs = dict(kernel_shape=a["kernel"], strides=a["strides"], ceil_mode=int(a["rounding_type"] == "ceil"),
                     pads=a["pads_begin"] + a["pads_end"] if a["auto_pad"] != "valid" else [0] * (2 * (rank - 2)))
        if kind == "MaxPool":
            attrs["dilations"] = a.get("dilations", [1] * (rank - 2))
        else:
            attrs["count_include_pad"] = int(not a["exclude-pad"])
        node = helper.make_node("MaxPool" if kind == "MaxPool" else "AveragePool", ["x"], ["y"], **attrs)
    else:
        return None
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, entry["input"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)], ir_version=9)


def runners(entry, x, threads, folder):
    import irpool
    import onnxruntime as ort
    import openvino as ov
    path, model = build(entry, folder)
    if entry["op"] in ("MaxPool", "AvgPool"):
        program = irpool.load(path)
        feed = {"x": x}
    else:
        program = irpool.load(path, layer="pool")
        feed = x
    out = {"irpool": lambda: program.run(feed, threads or None)}
    cfg = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    if threads:
        cfg["INFERENCE_NUM_THREADS"] = str(threads)
    req = ov.Core().compile_model(model, "CPU", cfg).create_infer_request()
    out["openvino"] = lambda: req.infer({0: x})
    onnx_model = onnx_node(entry)
    if onnx_model is not None:
        so = ort.SessionOptions()
        so.intra_op_num_threads = threads or 0
        so.inter_op_num_threads = 1
        so.add_session_config_entry("session.intra_op.allow_spinning", "0")
        sess = ort.InferenceSession(onnx_model.SerializeToString(), so, providers=["CPUExecutionProvider"])
        out["onnxruntime"] = lambda: sess.run(None, {"x": x})
    return out


def describe(entry) -> str:
    a = entry["attributes"]
    if entry["op"] in ("MaxPool", "AvgPool"):
        k = "x".join(map(str, a["kernel"]))
        s = "x".join(map(str, a["strides"]))
        return f"{entry['op']} {k} s{s} {a['rounding_type']}{'' if a['auto_pad'] == 'explicit' else ' ' + a['auto_pad']}"
    return f"{entry['op']} {entry['second']}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--extract", action="store_true", help="convert the torchvision models again")
    ap.add_argument("--threads", type=int, default=1, help="threads per runtime (0: every core)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--only", help="only layers whose description, input (1x64x56x56) or models contain this")
    args = ap.parse_args(argv)
    if args.extract:
        extract()
        return 0
    import irpool
    entries = json.loads(LAYERS.read_text())["layers"]
    if args.only:
        entries = [e for e in entries
                   if args.only in " ".join([describe(e), "x".join(map(str, e["input"]))] + list(e["models"]))]
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")), "?")
    print(f"# {cpu}, {os.cpu_count()} cores; irpool {irpool.__version__}; threads {args.threads or 'every core'};"
          f" median of {args.runs} runs")
    rng = np.random.default_rng(0)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for e in entries:
            x = np.maximum(rng.standard_normal(e["input"]).astype(np.float32), 0)     # after a ReLU
            fns = runners(e, x, args.threads, folder)
            t = median_runs(fns, runs=args.runs, budget=1.2)
            rows.append((e, sum(e["models"].values()), t))
    print("| layer | input | occurs | irpool us | openvino us | onnxruntime us | /openvino | /onnxruntime |")
    print("|---|---|---|---|---|---|---|---|")
    for e, n, t in rows:
        ort_t = t.get("onnxruntime")
        print(f"| {describe(e)} | {'x'.join(map(str, e['input']))} | {n} | {t['irpool'] * 1e6:.1f} |"
              f" {t['openvino'] * 1e6:.1f} | {ort_t * 1e6:.1f} |" if ort_t else
              f"| {describe(e)} | {'x'.join(map(str, e['input']))} | {n} | {t['irpool'] * 1e6:.1f} |"
              f" {t['openvino'] * 1e6:.1f} | - |", end="")
        print(f" {t['irpool'] / t['openvino']:.2f} | {t['irpool'] / ort_t:.2f} |" if ort_t else
              f" {t['irpool'] / t['openvino']:.2f} | - |")
    total = {k: sum(n * t[k] for _, n, t in rows) for k in ("irpool", "openvino")}
    with_ort = [(n, t) for _, n, t in rows if "onnxruntime" in t]
    worst = max(rows, key=lambda r: r[2]["irpool"] / r[2]["openvino"])
    print(f"\nin sum over {sum(n for _, n, _ in rows)} layers ({len(rows)} distinct): irpool {total['irpool'] * 1e3:.2f} ms,"
          f" openvino {total['openvino'] * 1e3:.2f} ms: {total['irpool'] / total['openvino']:.2f}")
    if with_ort:
        a = sum(n * t["irpool"] for n, t in with_ort)
        b = sum(n * t["onnxruntime"] for n, t in with_ort)
        print(f"in sum over the {len(with_ort)} distinct layers onnxruntime runs: irpool / onnxruntime {a / b:.2f}")
    print(f"worst against openvino: {describe(worst[0])} on {'x'.join(map(str, worst[0]['input']))}:"
          f" {worst[2]['irpool'] / worst[2]['openvino']:.2f} ({', '.join(worst[0]['models'])})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
