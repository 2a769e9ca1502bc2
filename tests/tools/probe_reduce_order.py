"""Probe in what order OpenVINO's CPU plugin adds a global ReduceMean (over H, W or D, H, W), on this machine: a
ReduceMean alone (planar layout) and after a convolution (channels-last, as in a classifier's head). Print, beside
the CPU, the layout and kernel the plugin chose and which of the candidate orders below gives its bits for
which channels.

Run it on any machine (`python tests/tools/probe_reduce_order.py [--json]`). irpool follows the orders found here
(irpool/core/reduce_order.py: "lanes16 per plane" planar, "rows, last C % 16 sequential" channels-last, "sequential"
channels-last 3-D); its row "irpool" is that code on the layout the plugin reports and irpool's vector width for
this CPU, so a record from another CPU shows whether irpool holds there.
"""
from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from probe_plugin import cpu

F32 = np.float32


def sequential(planes: np.ndarray) -> np.ndarray:
    """(channels, taps) -> per channel, the taps added one at a time in row-major order, from +0.0."""
    total = np.zeros(planes.shape[0], F32)
    for j in range(planes.shape[1]):
        total = total + planes[:, j]
    return total


def rows(x: np.ndarray) -> np.ndarray:
    """(channels, H, W) -> each row summed from +0.0 one tap at a time, then the row sums added in order."""
    return sequential(np.stack([sequential(x[:, h]) for h in range(x.shape[1])], 1))


def rows_in_vectors(x: np.ndarray, width: int) -> np.ndarray:
    """`rows` for the channels that fill vectors of `width` channels, `sequential` for the rest (the
    channels-last kernel's vector loop and its scalar tail)."""
    k = len(x) // width * width
    return np.concatenate([rows(x[:k]), sequential(x[k:].reshape(len(x) - k, x[0].size))])


def horizontal(acc: np.ndarray) -> np.ndarray:
    """A vector's lanes added as the plugin's horiz_reduce_store does: an AVX-512 vector's quarters as
    (q0 + q1) + (q2 + q3), an AVX2 vector's halves as h0 + h1, then the four lanes left as (l0 + l1) + (l2 + l3)."""
    if acc.shape[1] == 16:
        acc = (acc[:, 0:4] + acc[:, 4:8]) + (acc[:, 8:12] + acc[:, 12:16])
    elif acc.shape[1] == 8:
        acc = acc[:, 0:4] + acc[:, 4:8]
    return (acc[:, 0] + acc[:, 1]) + (acc[:, 2] + acc[:, 3])


def lanes(planes: np.ndarray, total: np.ndarray, width: int) -> np.ndarray:
    """One call of the plugin's planar kernel on (channels, taps): a vector of `width` lanes adds the first
    taps // width * width taps from +0.0, its lanes are added (`horizontal`) onto `total`, and the remaining
    taps are added to that one at a time."""
    full = planes.shape[1] // width * width
    if full:
        acc = np.zeros((planes.shape[0], width), F32)
        for j in range(0, full, width):
            acc = acc + planes[:, j:j + width]
        total = horizontal(acc) + total
    for j in range(full, planes.shape[1]):
        total = total + planes[:, j]
    return total


def lanes_per_plane(x: np.ndarray, width: int) -> np.ndarray:
    """(channels, [D,] H, W) -> one planar-kernel call (`lanes`) per H x W plane, each adding onto the last."""
    planes = x.reshape(x.shape[0], -1, x.shape[-2] * x.shape[-1])
    total = np.zeros(x.shape[0], F32)
    for d in range(planes.shape[1]):
        total = lanes(planes[:, d], total, width)
    return total


ORDERS = {
    "sequential": lambda x: sequential(x.reshape(x.shape[0], -1)),
    "rows": lambda x: rows(x) if x.ndim == 3 else None,
    "rows, last C % 16 sequential": lambda x: rows_in_vectors(x, 16) if x.ndim == 3 else None,
    "lanes16 per plane": lambda x: lanes_per_plane(x, 16),
    "lanes8 per plane": lambda x: lanes_per_plane(x, 8),       # AVX2's: OpenVINO 2026.4.0 under ONEDNN_MAX_CPU_ISA=AVX2
    "pairwise (numpy)": lambda x: x.reshape(x.shape[0], -1).sum(1, dtype=F32),
}


def irpool_order(x: np.ndarray, layout: str) -> np.ndarray:
    """irpool's sum for the plugin's layout ('abcd' planar, 'acdb' channels-last) and irpool's width here."""
    from irpool.core.reduce_order import global_reduce
    from irpool.ir.run.execute import reduce_lanes
    order = "planar" if layout in ("abcd", "abcde") else "channels_last"
    return global_reduce(x[None], "avg", order, reduce_lanes(order))[0] * F32(x[0].size)
CASES = [(64, (7, 7)), (40, (7, 7)), (120, (14, 14)), (17, (6, 6)), (32, (4, 7, 7)), (40, (2, 7, 7))]


def probe() -> list[dict]:
    import openvino as ov
    import openvino.opset1 as o1
    core, rng, out = ov.Core(), np.random.default_rng(0), []
    for channels, spatial in CASES:
        shape = [1, channels, *spatial]
        for context in ("alone", "after a convolution"):
            p = o1.parameter(shape, ov.Type.f32)
            src = p
            if context != "alone":          # identity 1x1 weights: the values reach the ReduceMean unchanged
                eye = np.eye(channels, dtype=F32).reshape((channels, channels) + (1,) * len(spatial))
                n = len(spatial)
                src = o1.convolution(p, o1.constant(eye), [1] * n, [0] * n, [0] * n, [1] * n)
            axes = o1.constant(np.arange(2, 2 + len(spatial), dtype=np.int64))
            reduce = o1.reduce_mean(src, axes, True)
            compiled = core.compile_model(ov.Model([src.output(0), reduce.output(0)], [p]), "CPU",
                                          {"INFERENCE_PRECISION_HINT": "f32"})
            info = [op.get_rt_info() for op in compiled.get_runtime_model().get_ordered_ops()]
            kernel = [(i["primitiveType"].astype(str), i["outputLayouts"].astype(str)) for i in info
                      if i["layerType"].astype(str) == "Reduce"]
            result = compiled([rng.standard_normal(shape).astype(F32)])
            x, want = (result[o] for o in compiled.outputs)
            want = want.reshape(-1)
            x = x.reshape((channels,) + tuple(spatial))
            matches = {}
            orders = dict(ORDERS, irpool=lambda x: irpool_order(x, kernel[0][1] if kernel else "abcd"))
            for name, order in orders.items():
                total = order(x)
                if total is None:
                    continue
                same = (total / F32(x[0].size)).view(np.uint32) == want.view(np.uint32)
                matches[name] = f"{int(same.sum())}/{channels}" + ("" if same.all() or not same.any() else
                                                                    f" (differs from channel {int(np.argmin(same))})")
            out.append({"channels": channels, "spatial": list(spatial), "context": context,
                        "kernel": kernel[0] if kernel else None, "channels equal": matches})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    here, rows_ = cpu(), probe()
    if args.json:
        print(json.dumps({"cpu": here, "probes": rows_}, indent=1))
        return 0
    print(f"CPU: {here['model']} ({', '.join(here['flags']) or 'no AVX2'})")
    for r in rows_:
        print(f"{r['channels']}x{'x'.join(map(str, r['spatial']))} {r['context']}: {r['kernel']}")
        for name, equal in r["channels equal"].items():
            print(f"    {name:30} {equal}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
