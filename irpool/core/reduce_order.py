"""A global ReduceMean or ReduceMax (over every spatial axis) in the order OpenVINO's CPU plugin takes it.

The plugin's Reduce node (src/plugins/intel_cpu/src/nodes/reduce.cpp) runs one JIT kernel whose order of
operations follows the layout it was given (that of the layer producing its input) and the vector width of
its ISA (Reduce::create_reduce_kernel: jit_uni_reduce_kernel_f32<avx512_core | avx2 | sse41>, picked by oneDNN's
`mayiuse`, so ONEDNN_MAX_CPU_ISA caps it). Measured bit for bit on OpenVINO 2026.4.1 (AMD EPYC Zen 4 and an
Intel Xeon family 6 model 207; tests/core/test_bits_openvino.py, tests/tools/probe_reduce_order.py):

planar (`abcd`, `abcde`: the input is a Parameter, or a layer that keeps it planar): Reduce::reduce_PLN calls the
  kernel once per H x W plane (per depth slice in 3-D, each adding onto the last); its reduce_to_scalar branch
  adds the first floor(HW / step) * step taps in `width` lanes from +0.0 (lane i takes taps i, i + width, ...;
  step = max(8, width): SSE4.1 loads two 4-lane vectors a step into the one accumulator), adds the lanes as
  horiz_reduce_store does (an AVX-512 vector's quarters (q0 + q1) + (q2 + q3), an AVX2 vector's halves h0 + h1,
  then the four lanes (l0 + l1) + (l2 + l3)), adds that to the running total, then the remaining taps one at a
  time. A plane smaller than a step (the gather branch, HW < blk_size) is added one tap at a time.
channels-last (`acdb`: after a Convolution on AVX-512): reduce_PLN on the dims reinterpreted (set_reduce_dim_flags),
  which for H > 1 and W > 1 is its ReduceDH_opt branch: each row's sum (one tap at a time from +0.0) for the
  channels in whole blocks of blk_size, then the row sums added in order; the last C % blk_size channels one
  tap at a time. Otherwise (3-D with D > 1, a row or column) one tap at a time.
The plugin took no other layout here (after a Parameter or a pool of one: planar; after a Convolution, through
pools and ReLUs: channels-last; under ONEDNN_MAX_CPU_ISA=AVX2 and SSE41 too, where the pools run blocked).

A mean divides the sum by float(H*W) (uni_vdivps, in the post kernel or in reduce_BLK's kernel): a division,
not a product with 1/N. A max takes `a > b ? a : b` (uni_vmaxps, x86's maxps with the running value first),
starting from the lowest finite float: a tie of -0.0 and +0.0 keeps the later operand, a NaN operand on the
right is taken and then forgotten by the next tap. No thread splits a plane's sum: the plugin's parallel_for
runs over planes (reduce_PLN: parallel_for2d(IC, ID)) or over rows and channel blocks (ReduceDH_opt), each sum
one kernel call, at any size.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import as_strided

LAYOUTS = ("planar", "channels_last")
F32 = np.dtype("float32")
LOWEST = np.float32(np.finfo(np.float32).min)


def _m(a, b):
    """x86's maxps(a, b): a where a > b, else b (so b on a tie of zeros, and b where either is NaN)."""
    return np.where(a > b, a, b)


def _op(reduction):
    return np.add if reduction == "avg" else _m


def _sum_chain(start, t):
    """start + t[:, 0] + t[:, 1] + ... for t (m, taps, k), one tap at a time (start None: +0.0). einsum adds the
    taps one after the other when k has more than one element (its inner loop runs along k, its outer over the
    taps; 3-5x faster than numpy's reduce on rows of 16; checked against the plugin and a scalar emulation); with
    one it would add pairwise, so such a column is accumulated."""
    if start is not None:
        t = np.concatenate([start[:, None], t], axis=1)
    if t.shape[1] == 0:
        return np.zeros((t.shape[0], t.shape[2]), F32)
    if t.shape[2] == 1:
        total = np.add.accumulate(t, axis=1)[:, -1]
    else:
        total = np.einsum("mtk->mk", t)
    return total + np.float32(0)         # the plugin starts at +0.0: -0.0 + 0 = +0.0, nothing else changes


def _max_chain(start, t):
    """Taps t (m, taps, k) folded by maxps from `start` (None: the lowest float), in closed form: after the last
    NaN the next tap restarts the chain (the value is then the NaN, if it was the last tap), and among the taps
    that follow, the last one equal to their maximum wins (ties of zeros keep the later)."""
    if start is None:
        start = np.full((t.shape[0], t.shape[2]), LOWEST, F32)
    n = t.shape[1]
    if n == 0:
        return start
    peak = t.max(axis=1)
    if not np.isnan(peak).any() and (peak != 0).all():     # no NaN, no zero won: the maximum's bits are unique
        return _m(start, peak)
    nan = np.isnan(t)
    any_nan = nan.any(axis=1)
    last_nan = n - 1 - np.argmax(nan[:, ::-1], axis=1)
    valid = ~any_nan[:, None] | (np.arange(n)[None, :, None] > last_nan[:, None])
    peak = np.where(valid, t, -np.inf).max(axis=1)
    hit = valid & (t == peak[:, None])
    last = n - 1 - np.argmax(hit[:, ::-1], axis=1)        # (no hit: the last tap, the NaN itself)
    won = np.take_along_axis(t, last[:, None], axis=1)[:, 0]
    return np.where(any_nan, won, _m(start, won))


def _chain(reduction, start, t):
    return _sum_chain(start, t) if reduction == "avg" else _max_chain(start, t)


def _horizontal(lanes, op):
    """A vector's lanes (width, m) to one value each, as horiz_reduce_store groups them."""
    w = lanes.shape[0]
    if w == 16:
        lanes = op(op(lanes[0:4], lanes[4:8]), op(lanes[8:12], lanes[12:16]))
    elif w == 8:
        lanes = op(lanes[0:4], lanes[4:8])
    return op(op(lanes[0], lanes[1]), op(lanes[2], lanes[3]))


def _planar(x, reduction, width):
    """(planes, depth, HW) -> (planes,): one reduce_to_scalar call per H x W plane, each onto the last."""
    p, depth, hw = x.shape
    step = max(8, width)
    full = hw // step * step
    op = _op(reduction)
    total = _start(reduction, p)
    for d in range(depth):
        plane = x[:, d]
        if full:
            total = op(_horizontal(_lanes(plane, full, width, reduction), op), total)
        for j in range(full, hw):       # the taps left over, one at a time (fewer than a step)
            total = op(total, plane[:, j])
    return total


def _lanes(plane, full, width, reduction):
    """Each lane from its start value over taps i, i + width, ... of a plane's first `full` -> (width, planes), on a
    strided view of the plane (no copy of the input)."""
    p = plane.shape[0]
    s = plane.strides
    vectors = as_strided(plane, (p, full // width, width), (s[0], width * s[1], s[1]), writeable=False)
    return np.ascontiguousarray(_chain(reduction, None, vectors).T)


def _start(reduction, m):
    return np.zeros(m, F32) if reduction == "avg" else np.full(m, LOWEST, F32)


def _channels_last(x, reduction, blk):
    """(n, [D,] H, W, C) -> (n, C): ReduceDH_opt's rows for the channels in whole blocks where it applies
    (one depth slice, H > 1, W > 1), every tap in order otherwise and for the last C % blk channels."""
    n, c = x.shape[0], x.shape[-1]
    spatial = x.shape[1:-1]
    if len(spatial) == 3 and spatial[0] == 1:
        spatial = spatial[1:]
    taps = math.prod(spatial)
    whole = c // blk * blk if len(spatial) == 2 and spatial[0] > 1 and spatial[1] > 1 else 0
    if not whole:
        return _chain(reduction, None, x.reshape(n, taps, c))
    h, w = spatial
    rows = _chain(reduction, None, x.reshape(n * h, w, c)[:, :, :whole]).reshape(n, h, whole)
    out = np.empty((n, c), F32)
    out[:, :whole] = _chain(reduction, None, rows)
    if whole < c:
        out[:, whole:] = _chain(reduction, None, x.reshape(n, taps, c)[:, :, whole:])
    return out


def global_reduce(x: np.ndarray, reduction: str, layout: str, width: int) -> np.ndarray:
    """x (n, c, *spatial) float32 -> its sums or maxima over the spatial axes, (n, c) float32, in the order of
    `layout` at `width` float lanes (16 AVX-512, 8 AVX2, 4 SSE4.1); a mean is the sum divided by the tap count."""
    with np.errstate(invalid="ignore", over="ignore"):      # inf - inf, NaN: results here
        return _global(x, reduction, layout, width)


def _global(x, reduction, layout, width):
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    blk = 16 if width == 16 else 8         # Reduce::createPrimitive: blk_size 16 with avx512_core, else 8
    if reduction == "max" and x.size:
        peak = x.reshape(n, c, -1).max(axis=2)
        if not np.isnan(peak).any() and (peak != 0).all():     # every order gives the maximum's one bit pattern
            return np.maximum(peak, LOWEST)
    if layout == "planar":
        hw = spatial[-1] * (spatial[-2] if len(spatial) > 1 else 1)
        total = _planar(x.reshape(n * c, -1, hw), reduction, width).reshape(n, c)
    else:
        total = _channels_last(np.ascontiguousarray(np.moveaxis(x, 1, -1)), reduction, blk)
    if reduction == "avg":
        total = total / np.float32(math.prod(spatial))
    return total.astype(F32, copy=False)
