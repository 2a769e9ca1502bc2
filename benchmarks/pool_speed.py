"""Time irpool's pooling core against OpenVINO CPU, onnxruntime, PyTorch and onnx's reference evaluator.

Same tensors, same process; each peer is told how many threads to use. Every case is measured --runs
times (default 3), each run letting the runtimes take turns in short rounds (timing.in_turns) and taking each
one's median call; the table gives the median run and the ratio irpool / peer (below 1: irpool is faster),
and irpool's peak extra memory (tracemalloc) per call as a multiple of input + output size. Needs the `bench`
extra: `pip install -e ".[bench]"`.

    python benchmarks/pool_speed.py                 # one thread each
    python benchmarks/pool_speed.py --threads 0     # every core
    python benchmarks/pool_speed.py --case max3x3s2 --reference-max 0
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
import tracemalloc

# peers' idle threads must not busy-wait on the cores the next measurement needs
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402

import irpool  # noqa: E402
import irpool.onnx  # noqa: E402
from irpool.core import PoolSpec, pool, release_workspaces  # noqa: E402
from timing import median_runs  # noqa: E402

# name, reduction, shape, kernel, strides, pads (both ends), dilations, extra
CASES = [
    dict(name="max3x3s2p1", red="max", shape=(1, 64, 112, 112), k=(3, 3), s=(2, 2), p=(1, 1)),
    dict(name="max3x3s2p1+idx", red="max", shape=(1, 64, 112, 112), k=(3, 3), s=(2, 2), p=(1, 1), idx=True),
    dict(name="max2x2s2", red="max", shape=(8, 128, 56, 56), k=(2, 2), s=(2, 2), p=(0, 0)),
    dict(name="avg3x3s1p1-excl", red="avg", shape=(8, 64, 56, 56), k=(3, 3), s=(1, 1), p=(1, 1)),
    dict(name="max3x3x3s2p1", red="max", shape=(2, 32, 32, 64, 64), k=(3, 3, 3), s=(2, 2, 2), p=(1, 1, 1)),
    dict(name="max1d-k5s1p2", red="max", shape=(16, 256, 4096), k=(5,), s=(1,), p=(2,)),
    dict(name="lp2-3x3s2", red="lp", shape=(8, 64, 56, 56), k=(3, 3), s=(2, 2), p=(0, 0)),
    dict(name="max3x3d4p1", red="max", shape=(4, 64, 56, 56), k=(3, 3), s=(1, 1), p=(1, 1), d=(4, 4)),
]


def spec_of(c) -> PoolSpec:
    n = len(c["k"])
    return PoolSpec(kernel=c["k"], strides=c["s"], pads_begin=c["p"], pads_end=c["p"],
                    dilations=c.get("d", (1,) * n), reduction=c["red"], p=2.0,
                    count="exclude_pad", index_dtype="int64")


# ---- peers: each returns a no-argument callable, or None when the peer cannot run this case ----

def onnx_model(c):
    from onnx import TensorProto, helper
    n = len(c["k"])
    attrs = dict(kernel_shape=list(c["k"]), strides=list(c["s"]), pads=list(c["p"]) * 2)
    if c["red"] == "max":
        op, attrs["dilations"] = "MaxPool", list(c.get("d", (1,) * n))
    elif c["red"] == "avg":
        op, attrs["count_include_pad"] = "AveragePool", 0
    else:
        op, attrs["p"] = "LpPool", 2
    outs = ["y", "i"] if c.get("idx") else ["y"]
    node = helper.make_node(op, ["x"], outs, **attrs)
    vis = [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]
    if c.get("idx"):
        vis.append(helper.make_tensor_value_info("i", TensorProto.INT64, None))
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(c["shape"]))],
                              vis)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=9)


def peer_openvino(c, x, threads):
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14
    core = ov.Core()
    n = len(c["k"])
    if c["red"] == "lp":            # OpenVINO has no LpPool op; its ONNX front end decomposes one
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "lp.onnx")
            with open(path, "wb") as f:
                f.write(onnx_model(c).SerializeToString())
            model = core.read_model(path)
    else:
        param = o1.parameter(list(c["shape"]), np.float32, name="x")
        if c["red"] == "max":
            node = o14.max_pool(param, c["s"], c.get("d", (1,) * n), c["p"], c["p"], c["k"], "floor", "explicit",
                                "i64", 0)
            outs = [node.output(0), node.output(1)] if c.get("idx") else [node.output(0)]
        else:
            node = o14.avg_pool(param, c["s"], c["p"], c["p"], c["k"], True, "floor", "explicit")
            outs = [node.output(0)]
        model = ov.Model(outs, [param], "m")
    cfg = {"INFERENCE_PRECISION_HINT": "f32", "PERFORMANCE_HINT": "LATENCY"}
    if threads:
        cfg["INFERENCE_NUM_THREADS"] = str(threads)
    req = core.compile_model(model, "CPU", cfg).create_infer_request()
    return lambda: req.infer({0: x})


def peer_onnxruntime(c, x, threads):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads or 0
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    sess = ort.InferenceSession(onnx_model(c).SerializeToString(), so, providers=["CPUExecutionProvider"])
    return lambda: sess.run(None, {"x": x})


def peer_torch(c, x, threads):
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads or os.cpu_count())
    n = len(c["k"])
    t = torch.from_numpy(x)
    k, s, p, d = c["k"], c["s"], c["p"], c.get("d", (1,) * n)
    if c["red"] == "max":
        fn = (F.max_pool1d, F.max_pool2d, F.max_pool3d)[n - 1]
        return lambda: fn(t, k, s, p, d, return_indices=bool(c.get("idx")))
    if c["red"] == "avg":
        fn = (F.avg_pool1d, F.avg_pool2d, F.avg_pool3d)[n - 1]
        return lambda: fn(t, k, s, p, count_include_pad=False)
    if any(p):
        return None                  # torch's lp_pool has no padding
    fn = (F.lp_pool1d, F.lp_pool2d, F.lp_pool3d)[n - 1]
    return lambda: fn(t, 2.0, k, s)


def peer_reference(c, x, threads):
    from onnx.reference import ReferenceEvaluator
    ref = ReferenceEvaluator(onnx_model(c))
    return lambda: ref.run(None, {"x": x})


def time_reference(c, x, limit):
    """(seconds, mark): measured when one call takes under `limit` seconds (estimated from 1/16 of the
    channels of one image), else that estimate marked '~'. The reference is slow: no warm-up call."""
    one = x[:1, :max(1, x.shape[1] // 16)]
    t0 = time.perf_counter()
    peer_reference(c, one, 1)()
    estimate = (time.perf_counter() - t0) * (x.size / one.size)
    if estimate > limit:
        return estimate, "~"
    fn = peer_reference(c, x, 1)
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0, ""


PEERS = {"openvino": peer_openvino, "onnxruntime": peer_onnxruntime, "torch": peer_torch,
         "onnx-ref": peer_reference}


def irpool_fn(c, x, threads):
    spec = spec_of(c)
    return lambda: pool(x, spec, indices=bool(c.get("idx")), threads=threads or None)


def extra_memory(c, x) -> float:
    """Peak memory traced during one call, beyond the output it returns, as a multiple of input + output.

    Measured on a cold call: the workspaces irpool keeps between calls are freed first and counted."""
    spec = spec_of(c)
    release_workspaces()
    tracemalloc.start()
    tracemalloc.reset_peak()
    base = tracemalloc.get_traced_memory()[0]
    out = pool(x, spec, indices=bool(c.get("idx")), threads=1)
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    outs = out if isinstance(out, tuple) else (out,)
    out_bytes = sum(o.nbytes for o in outs)
    return (peak - out_bytes) / (x.nbytes + out_bytes)


def check_equal(c, x, threads):
    """irpool's values against OpenVINO's (a benchmark of a wrong answer is worthless)."""
    ours = pool(x, spec_of(c), indices=bool(c.get("idx")), threads=threads or None)
    ours = ours if isinstance(ours, tuple) else (ours,)
    res = peer_openvino(c, x, threads)()
    theirs = [res[i] for i in range(len(ours))]
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


SMALL = dict(name="max2x2s2 1x1x4x4", shape=(1, 1, 4, 4), k=(2, 2), s=(2, 2), p=(0, 0), red="max")


def per_call(fn, calls=2000, batches=5) -> float:
    """Seconds per call: the median over batches of many calls (one call is a few microseconds)."""
    for _ in range(50):
        fn()
    times = []
    for _ in range(batches):
        t = time.perf_counter()
        for _ in range(calls // batches):
            fn()
        times.append((time.perf_counter() - t) / (calls // batches))
    return sorted(times)[len(times) // 2]


def small_calls(threads, runs=3) -> None:
    """A 1x1x4x4 MaxPool called many times: irpool's one-shot and prepared forms (IR and ONNX) against an
    OpenVINO infer request and an onnxruntime session on the same layer."""
    import openvino as ov
    import openvino.opset1 as o1
    import openvino.opset14 as o14
    c = SMALL
    x = np.random.default_rng(1).standard_normal(c["shape"], dtype=np.float32)
    param = o1.parameter(list(c["shape"]), np.float32, name="x")
    node = o14.max_pool(param, c["s"], (1, 1), c["p"], c["p"], c["k"], "floor", "explicit", "i64", 0)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "small.xml")
        ov.save_model(ov.Model([node.output(0)], [param], "small"), path)
        xml = open(path, "rb").read()
    program = irpool.load(xml)
    onnx_node = irpool.onnx.compile("MaxPool", dict(kernel_shape=list(c["k"]), strides=list(c["s"])), opset=18)
    t = threads or None
    calls = {"irpool.run (file to outputs)": lambda: irpool.run(xml, {"x": x}, threads=t),
             "irpool.load(...).run": lambda: program.run({"x": x}, threads=t),
             "irpool.onnx.run": lambda: irpool.onnx.run("MaxPool", x, dict(kernel_shape=[2, 2], strides=[2, 2]),
                                                        opset=18, threads=t),
             "irpool.onnx.compile(...).run": lambda: onnx_node.run(x, threads=t),
             "openvino infer request": peer_openvino(c, x, threads),
             "onnxruntime session.run": peer_onnxruntime(c, x, threads)}
    measured = {name: [] for name in calls}
    for _ in range(runs):                   # in turns, as the table above
        for name, fn in calls.items():
            measured[name].append(per_call(fn, calls=500 if "file" in name else 2000))
    rows = {name: statistics.median(ts) for name, ts in measured.items()}
    ov_us, ort_us = rows["openvino infer request"], rows["onnxruntime session.run"]
    print(f"\nsmall calls, {c['name']} (us per call: the median of {runs} runs, each the median of 5 batches):\n")
    print("| call | us | / openvino infer request | / onnxruntime session.run |\n|---|---|---|---|")
    for name, sec in rows.items():
        print(f"| {name} | {sec * 1e6:.1f} | {sec / ov_us:.2f} | {sec / ort_us:.2f} |")


def _signed(rng, shape, sign):
    """Half the values |N(0,1)| times sign, the others -0.0 or +0.0 at random."""
    r = rng.standard_normal(shape, dtype=np.float32)
    zeros = np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0))
    return np.where(r > 0, np.float32(sign) * r, zeros)


INPUTS = {   # the values a case runs on
    "random": lambda rng, shape: rng.standard_normal(shape, dtype=np.float32),
    # every value -0.0 or +0.0: every maximum a tie of zeros, whose sign is the first zero tap's
    "ties": lambda rng, shape: np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0)),
    # ReLU's output: +0.0 where it clips (the zeros of real nets), so every zero maximum has the one sign there is
    "relu": lambda rng, shape: np.maximum(rng.standard_normal(shape, dtype=np.float32), np.float32(0.0)),
    # ReLU-like, with -0.0 where it clips: the windows that clip whole are zero ties
    "negzero": lambda rng, shape: np.maximum(rng.standard_normal(shape, dtype=np.float32), np.float32(-0.0)),
    # ReLU-like with zeros of both signs: the windows that clip whole are ties of -0.0 and +0.0
    "signedzeros": lambda rng, shape: _signed(rng, shape, 1),
    # negatives and zeros of both signs: every window's maximum a zero, its first tap often not one
    "nonpositive": lambda rng, shape: _signed(rng, shape, -1),
    # 5% NaN: windows with NaN (which never wins) beside random values
    "nan": lambda rng, shape: np.where(rng.random(shape) < 0.05, np.float32(np.nan),
                                       rng.standard_normal(shape, dtype=np.float32)),
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="threads per runtime; 0 = every core")
    ap.add_argument("--case", action="append", help="run only cases whose name contains this")
    ap.add_argument("--peer", action="append", choices=sorted(PEERS), help="only these peers")
    ap.add_argument("--reference-max", type=float, default=120.0,
                    help="skip onnx's reference evaluator when one call would exceed this many seconds"
                         " (estimated from a one-image slice); 0 skips it")
    ap.add_argument("--budget", type=float, default=1.0, help="seconds of timing per measurement")
    ap.add_argument("--inputs", action="append", choices=sorted(INPUTS),
                    help="the values each case runs on (default: random); ties, negzero and nan time the"
                         " exactness of max (the sign of a zero maximum, NaN windows) beside random values")
    ap.add_argument("--runs", type=int, default=3,
                    help="measure every case this many times, in turns, and report the median run")
    args = ap.parse_args(argv)
    peers = args.peer or list(PEERS)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo") if ln.startswith("model name")),
               platform.processor()) if os.path.exists("/proc/cpuinfo") else platform.processor()
    print(f"# {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, numpy {np.__version__},"
          f" threads per runtime: {args.threads or 'all'}")
    head = ["case", "irpool ms"] + [f"{p} ms" for p in peers] + [f"/{p}" for p in peers] + ["extra mem"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    rng = np.random.default_rng(0)
    worst = {}
    for c, kind in [(c, k) for c in CASES for k in args.inputs or ["random"]]:
        if args.case and not any(s in c["name"] for s in args.case):
            continue
        x = INPUTS[kind](rng, c["shape"])
        c = dict(c, name=c["name"] if kind == "random" else f"{c['name']} {kind}")
        check_equal(c, x, args.threads)
        fns, times = {"irpool": irpool_fn(c, x, args.threads)}, {}
        for name in peers:
            if name == "onnx-ref":
                if args.reference_max:
                    try:
                        times[name] = time_reference(c, x, args.reference_max)
                    except Exception as e:  # noqa: BLE001 (reported, as for the other peers)
                        print(f"# {name} fails on {c['name']}: {str(e).splitlines()[0][:120]}")
                continue
            try:
                fn = PEERS[name](c, x, args.threads)
                if fn is not None:
                    fns[name] = fn
            except Exception as e:          # a peer that refuses a case is reported, not fatal
                print(f"# {name} refuses {c['name']}: {str(e).splitlines()[0][:120]}")
        # calls in turns, so a slow spell of the machine hits every runtime
        medians = median_runs(fns, runs=args.runs, budget=args.budget * len(fns))
        ours = medians.pop("irpool")
        for name, t in medians.items():
            times[name] = (t, "")
        row = [c["name"], f"{ours * 1e3:.2f}"]
        row += [f"{times[p][1]}{times[p][0] * 1e3:.2f}" if p in times else "-" for p in peers]
        row += [f"{ours / times[p][0]:.3g}" if p in times else "-" for p in peers]
        row.append(f"{extra_memory(c, x):.2f}")
        print("| " + " | ".join(row) + " |", flush=True)
        for p in times:
            worst[p] = max(worst.get(p, 0), ours / times[p][0])
    print("# worst irpool/peer ratio: " + ", ".join(f"{p} {r:.3g}" for p, r in worst.items()))
    if "onnx-ref" in worst:
        print(f"# irpool is at least {1 / worst['onnx-ref']:.0f}x faster than onnx's reference evaluator")
    print("# '~': estimated from a slice of the input (see --reference-max)")
    if not args.case:
        small_calls(args.threads, args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
