"""A slow, obviously-correct pooling: one Python loop per output element and per kernel tap.

Written from DESIGN.md section 3 directly; shares no code with irpool.core (only reads PoolSpec fields).
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def ref_pads(length, k, s, d, auto_pad, pb, pe):
    dk = (k - 1) * d + 1
    if auto_pad == "explicit":
        return pb, pe
    if auto_pad == "valid":
        return 0, 0
    total = max(0, (math.ceil(length / s) - 1) * s + dk - length)
    if auto_pad == "same_upper":
        return total // 2, total - total // 2
    return total - total // 2, total // 2


def ref_out_len(length, k, s, d, pb, pe, rounding):
    """None when the kernel does not fit (num < 0)."""
    dk = (k - 1) * d + 1
    num = length + pb + pe - dk
    if num < 0:
        return None
    if rounding == "floor":
        return num // s + 1
    q = math.ceil(num / s)
    if rounding == "ceil":
        return q + 1
    return q + 1 if q * s < length + pb else q


def ref_plan(spec, spatial):
    out = []
    for i, length in enumerate(spatial):
        pb, pe = ref_pads(length, spec.kernel[i], spec.strides[i], spec.dilations[i], spec.auto_pad,
                          spec.pads_begin[i], spec.pads_end[i])
        o = ref_out_len(length, spec.kernel[i], spec.strides[i], spec.dilations[i], pb, pe, spec.rounding)
        out.append((pb, pe, o))
    return out


def ref_pool(x, spec):
    """Returns (values, indices or None) in x's layout; indices always channels-first shaped."""
    x = np.asarray(x)
    if spec.layout == "channels_last":
        x = np.moveaxis(x, -1, 1)
    n_, c_ = x.shape[:2]
    spatial = x.shape[2:]
    plan = ref_plan(spec, spatial)
    if any(o is None for _, _, o in plan):
        return None, None
    outs = [o for _, _, o in plan]
    is_max = spec.reduction == "max"
    vals = np.zeros((n_, c_) + tuple(outs), dtype=np.float64 if not is_max else x.dtype)
    idx = np.zeros((n_, c_) + tuple(outs), dtype=np.int64)
    plane = math.prod(spatial)
    if is_max:
        # DESIGN: float16 is computed in float32, whose lowest finite value is -inf in float16
        lowest = (float("-inf") if x.dtype == np.float16
                  else (np.finfo(x.dtype).min if x.dtype.kind == "f" else np.iinfo(x.dtype).min))
    any_pad = any(pb or pe for pb, pe, _ in plan)
    # DESIGN: sums run in float32 (float64 for float64 input), as the CPU plugin and onnxruntime add
    acc = np.float64 if x.dtype == np.float64 else np.float32 if spec.reduction == "avg" else float
    for n in range(n_):
        for c in range(c_):
            for o in itertools.product(*[range(v) for v in outs]):
                best, best_i, started = lowest if is_max else None, None, False
                total, count, count_onnx = acc(0.0), 0, 1
                for ax in range(len(spatial)):   # ONNX include: window clipped to [-pb, L + pe), per axis
                    pb, pe, _ = plan[ax]
                    count_onnx *= sum(1 for t in range(spec.kernel[ax])
                                      if -pb <= o[ax] * spec.strides[ax] - pb + t * spec.dilations[ax]
                                      < spatial[ax] + pe)
                for tap in itertools.product(*[range(k) for k in spec.kernel]):
                    pos = [o[a] * spec.strides[a] - plan[a][0] + tap[a] * spec.dilations[a]
                           for a in range(len(spatial))]
                    if not all(0 <= p < L for p, L in zip(pos, spatial)):
                        continue
                    v = x[(n, c) + tuple(pos)]
                    if is_max:
                        # max_start "first" (onnxruntime): the first tap inside the input starts the window
                        if float(v) > float(best) or (spec.max_start == "first" and not started):
                            started = True
                            best = v
                            if spec.storage_order == 0:
                                best_i = int(np.ravel_multi_index(pos, spatial))
                            else:
                                best_i = int(np.ravel_multi_index(pos, spatial, order="F"))
                    else:
                        count += 1
                        # one tap at a time in row-major order, from +0.0, in the accumulator type
                        total = acc(total + acc(v)) if spec.reduction == "avg" else total + abs(float(v)) ** spec.p
                if is_max:
                    vals[(n, c) + o] = best
                    idx[(n, c) + o] = (n * c_ + c) * plane + (best_i if best_i is not None else 0)
                elif spec.reduction == "lp":
                    vals[(n, c) + o] = total ** (1.0 / spec.p)
                else:
                    # OpenVINO's CPU plugin: a window starting at or past the end of an axis counts
                    # ceil((L - start) / dilation) <= 0 there: L - start at dilation 1 (-0 or +0 as signs
                    # multiply); at dilation d, 0 (0/0 = NaN) less than d past the end, negative beyond
                    # (probed on 2026.4, axis by axis: 2,700 grid cases)
                    if any(o[a] * spec.strides[a] - plan[a][0] >= L for a, L in enumerate(spatial)):
                        count = 1
                        for a, L in enumerate(spatial):
                            start = o[a] * spec.strides[a] - plan[a][0]
                            count *= -((start - L) // spec.dilations[a]) if start >= L else sum(
                                1 for t in range(spec.kernel[a]) if 0 <= start + t * spec.dilations[a] < L)
                    if spec.count == "exclude_pad":
                        div = count
                    elif spec.count == "exclude_onnx":
                        div = max(count, 1)                 # onnxruntime: an empty window averages to 0
                    elif spec.count == "include_openvino":
                        div = math.prod(spec.kernel) if any_pad else count
                    else:
                        div = count_onnx
                    with np.errstate(invalid="ignore", divide="ignore"):
                        vals[(n, c) + o] = acc(total) / acc(div)      # 0 / 0: NaN; 0 / -k: -0.0
    axis = spec.index_axis % x.ndim
    if axis:
        idx %= math.prod(x.shape[axis:])
    if not is_max and x.dtype.kind != "f":
        vals = np.rint(vals.astype(np.float32))     # integer averages: float32, rounded half to even
    with np.errstate(invalid="ignore"):             # an empty integer average (NaN) casts as the core's does
        vals = vals.astype(x.dtype)
    if spec.layout == "channels_last":
        vals = np.moveaxis(vals, 1, -1)
    return vals, (idx.astype(spec.index_dtype) if is_max else None)


def ref_global_reduce(x, reduction, layout, width):
    """The CPU plugin's JIT Reduce over every spatial axis, one float32 operation at a time (read from
    src/plugins/intel_cpu/src/nodes/reduce.cpp): `a > b ? a : b` for max (x86 maxps), + for avg; lanes and their
    horizontal tree on planar planes, rows on channels-last blocks. Returns (n, c) float32."""
    f = np.float32
    op = (lambda a, b: f(a + b)) if reduction == "avg" else (lambda a, b: a if a > b else b)
    start = f(0) if reduction == "avg" else np.finfo(f).min
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    blk = 16 if width == 16 else 8
    out = np.empty((n, c), f)
    for b, ch in itertools.product(range(n), range(c)):
        flat = [f(v) for v in x[b, ch].reshape(-1)]
        if layout == "planar":
            hw = spatial[-1] * (spatial[-2] if len(spatial) > 1 else 1)
            total = start
            for d in range(len(flat) // hw):
                plane, full = flat[d * hw:(d + 1) * hw], hw // max(8, width) * max(8, width)
                if full:
                    lanes = [start] * width
                    for t in range(full):
                        lanes[t % width] = op(lanes[t % width], plane[t])
                    while len(lanes) > 4:                           # quarters, halves: first half op second
                        half = len(lanes) // 2
                        lanes = [op(lanes[i], lanes[i + half]) for i in range(half)] if half == 4 else \
                            [op(op(lanes[i], lanes[i + 4]), op(lanes[i + 8], lanes[i + 12])) for i in range(4)]
                    total = op(op(op(lanes[0], lanes[1]), op(lanes[2], lanes[3])), total)
                for v in plane[full:]:
                    total = op(total, v)
        else:
            sp = spatial[1:] if len(spatial) == 3 and spatial[0] == 1 else spatial
            rows = len(sp) == 2 and sp[0] > 1 and sp[1] > 1 and ch < c // blk * blk
            if rows:
                total = start
                for h in range(sp[0]):
                    row = start
                    for v in flat[h * sp[1]:(h + 1) * sp[1]]:
                        row = op(row, v)
                    total = op(total, row)
            else:
                total = start
                for v in flat:
                    total = op(total, v)
        out[b, ch] = f(total / f(len(flat))) if reduction == "avg" else total
    return out
