"""Time the global pools irpool runs in the runtimes' own order beside the runtimes, in one run (timing.in_turns).

IR: a global ReduceMean in the CPU plugin's order (core/reduce_order.py), planar (after a Parameter) and
channels-last (after a Convolution), against the plugin running a Parameter -> ReduceMean model, and against
irpool's previous path (numpy's pairwise sum through the pooling core, not exact). ONNX: GlobalAveragePool and
an AveragePool-11 (kernel 3, stride 2, pads 1) in MLAS's order (core/mlas_pool.py) against onnxruntime and
against irpool's previous row-major path (not exact). One thread each. Shapes: 7x7x2048, 14x14x512, 56x56x64
(NCHW). Measured 2026-11-28 on the AMD EPYC family 25 model 17 (Zen 4, avx512f, 2 cores shared), four runs, against
the previous path in the same run: the exact ReduceMean planar 0.78-0.80x (7x7x2048), 1.16-1.17x (14x14x512),
1.16-1.27x (56x56x64); channels-last 0.81-0.82x, 1.53-1.55x, 2.47-2.50x; 0.33-0.39x (planar) and 0.35-0.83x
(channels-last) the plugin's inference. AveragePool-11 in MLAS order 0.93-0.97x, 0.95-0.97x, 1.15-1.23x the previous
path (5.1-6.6x onnxruntime); GlobalAveragePool 0.96-0.97x, 0.87-0.90x, 0.77-0.79x. (Before this: planar 1.24-1.52x,
channels-last 1.38-2.58x, AveragePool-11 1.00-1.80x.) The floors, in numpy: a planar plane's 16 lanes need one copy
that moves its taps as 16-byte items (so that a lane's taps lie one row apart) and one add per vector row, where the
pairwise sum reads the input once; a channels-last row's taps are contiguous in numpy's NCHW array and must be added
one after the other, so its rows of more than 8 taps take a transposed copy with the channels last (0.33 ns a float
here: 66-71 us at 56x56x64, more than the whole pairwise sum) or one strided add per tap (slower: 152 us there);
MLAS's vector kernel at 56x56 adds every row start's and column start's sums (twice the windows' at stride 2) over
a padded copy, in long contiguous runs.

    python benchmarks/global_pools.py [--runs 3] [--budget 1.0]
"""
from __future__ import annotations

import argparse
import os

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

import irpool.onnx  # noqa: E402
from irpool.core import PoolSpec, pool  # noqa: E402
from irpool.core.reduce_order import global_reduce  # noqa: E402
from irpool.ir.run.execute import reduce_lanes  # noqa: E402
from irpool.onnx.node import Node  # noqa: E402
from timing import median_runs  # noqa: E402

SHAPES = [(1, 2048, 7, 7), (1, 512, 14, 14), (1, 64, 56, 56)]


def cpu_name() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown CPU"


def plugin(shape):
    import openvino as ov
    import openvino.opset1 as o1
    p = o1.parameter(list(shape), ov.Type.f32)
    r = o1.reduce_mean(p, o1.constant(np.array([2, 3], np.int64)), True)
    compiled = ov.Core().compile_model(ov.Model([r.output(0)], [p]), "CPU",
                                       {"INFERENCE_PRECISION_HINT": "f32", "INFERENCE_NUM_THREADS": 1})
    request = compiled.create_infer_request()
    return lambda x: request.infer([x])


def ort(op, attrs, shape):
    import onnx
    import onnxruntime as rt
    from onnx import helper as h
    g = h.make_graph([h.make_node(op, ["x"], ["y"], **attrs)], "g",
                     [h.make_tensor_value_info("x", onnx.TensorProto.FLOAT, list(shape))],
                     [h.make_tensor_value_info("y", onnx.TensorProto.FLOAT, None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 11)], ir_version=8)
    so = rt.SessionOptions()
    so.intra_op_num_threads = 1
    s = rt.InferenceSession(m.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return lambda x: s.run(None, {"x": x})


class Before(Node):
    """irpool's ONNX node as it ran before MLAS's order: the pooling core's row-major sums."""
    def _mlas(self, x) -> bool:
        return False


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budget", type=float, default=1.0, help="seconds per run")
    args = ap.parse_args(argv)
    width = reduce_lanes()
    print(f"CPU: {cpu_name()}; the plugin's Reduce kernel: {width} lanes; one thread each; median of {args.runs}")
    print(f"{'shape':>14} {'case':34} {'irpool us':>10} {'peer us':>9} {'ratio':>6}")
    avg = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for shape in SHAPES:
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        spec = PoolSpec(kernel=shape[2:], reduction="avg", count="exclude_pad", sum_order="any")
        fns = {"planar": lambda: global_reduce(x, "avg", "planar", width),
               "channels-last": lambda: global_reduce(x, "avg", "channels_last", width),
               "pairwise (before)": lambda: pool(x, spec, threads=1),
               "plugin": (lambda f: lambda: f(x))(plugin(shape)),
               "gap irpool": lambda: irpool.onnx.run("GlobalAveragePool", x, {}, opset=11, threads=1),
               "gap ort": (lambda f: lambda: f(x))(ort("GlobalAveragePool", {}, shape)),
               "avg irpool": lambda: irpool.onnx.run("AveragePool", x, avg, opset=11, threads=1),
               "avg ort": (lambda f: lambda: f(x))(ort("AveragePool", avg, shape)),
               "gap before": lambda: Before("GlobalAveragePool", {}, opset=11).run(x, threads=1),
               "avg before": lambda: Before("AveragePool", avg, opset=11).run(x, threads=1)}
        t = median_runs(fns, runs=args.runs, budget=args.budget)
        name = "x".join(map(str, shape[1:][::-1]))
        rows = [("ReduceMean planar vs plugin", "planar", "plugin"),
                ("ReduceMean channels-last vs plugin", "channels-last", "plugin"),
                ("ReduceMean planar vs before", "planar", "pairwise (before)"),
                ("ReduceMean channels-last vs before", "channels-last", "pairwise (before)"),
                ("GlobalAveragePool vs onnxruntime", "gap irpool", "gap ort"),
                ("GlobalAveragePool vs before", "gap irpool", "gap before"),
                ("AveragePool-11 k3s2p1 vs onnxruntime", "avg irpool", "avg ort"),
                ("AveragePool-11 k3s2p1 vs before", "avg irpool", "avg before")]
        for label, mine, peer in rows:
            print(f"{name:>14} {label:34} {t[mine] * 1e6:10.0f} {t[peer] * 1e6:9.0f} {t[mine] / t[peer]:6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
