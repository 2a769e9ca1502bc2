"""A global ReduceMean or ReduceMax (over every spatial axis) in the order OpenVINO's CPU plugin takes it.

The plugin's Reduce node (src/plugins/intel_cpu/src/nodes/reduce.cpp) runs one JIT kernel whose order of
operations follows the layout it was given (that of the layer producing its input) and the vector width of
its ISA (Reduce::create_reduce_kernel: jit_uni_reduce_kernel_f32<avx512_core | avx2 | sse41>, picked by oneDNN's
`mayiuse`). Measured bit for bit on OpenVINO 2026.4.1 (AMD EPYC Zen 4 and an Intel Xeon family 6 model 207;
tests/core/test_bits_openvino.py, tests/tools/probe_reduce_order.py); there ONEDNN_MAX_CPU_ISA does not reach the
Reduce node (16 lanes), while on 2026.4.0 it caps the planar kernel, which then adds in 8 lanes (AVX2) or 4 (SSE41)
exactly as below (measured on the AMD EPYC; ir/run/execute.reduce_lanes, schemas/openvino.json reduce_width):

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
_QUARTER = np.dtype("V16")           # four float32 lanes moved as one item


def _m(a, b):
    """x86's maxps(a, b): a where a > b, else b (so b on a tie of zeros, and b where either is NaN)."""
    return np.where(a > b, a, b)


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


def _horizontal_max(lanes):
    """A vector's lanes (width, m) to one value each, as horiz_reduce_store groups them (maxps)."""
    w = lanes.shape[0]
    if w == 16:
        lanes = _m(_m(lanes[0:4], lanes[4:8]), _m(lanes[8:12], lanes[12:16]))
    elif w == 8:
        lanes = _m(lanes[0:4], lanes[4:8])
    return _m(_m(lanes[0], lanes[1]), _m(lanes[2], lanes[3]))


def _planar_max(x, width):
    """(planes, depth, HW) -> (planes,): the maxima of one reduce_to_scalar call per H x W plane, each onto the
    last (the sums: _planar_sum)."""
    p, depth, hw = x.shape
    step = max(8, width)
    full = hw // step * step
    total = np.full(p, LOWEST, F32)
    for d in range(depth):
        plane = x[:, d]
        if full:
            total = _m(_horizontal_max(_lanes_max(plane, full, width)), total)
        for j in range(full, hw):       # the taps left over, one at a time (fewer than a step)
            total = _m(total, plane[:, j])
    return total


def _lanes_max(plane, full, width):
    """Each lane from the lowest float over taps i, i + width, ... of a plane's first `full` -> (width, planes), on
    a strided view of the plane (no copy of the input)."""
    p = plane.shape[0]
    s = plane.strides
    vectors = as_strided(plane, (p, full // width, width), (s[0], width * s[1], s[1]), writeable=False)
    return np.ascontiguousarray(_max_chain(None, vectors).T)


def _blocks(spatial, c, blk):
    """ReduceDH_opt's reach over (n, c, *spatial): (H, W) where it applies (one depth slice, H > 1, W > 1; else
    None), and the channels it takes, those in whole blocks of `blk` (0 where it does not apply)."""
    if len(spatial) == 3 and spatial[0] == 1:
        spatial = spatial[1:]
    if len(spatial) == 2 and spatial[0] > 1 and spatial[1] > 1:
        return tuple(spatial), c // blk * blk
    return None, 0


def _channels_last_max(x, blk):
    """(n, [D,] H, W, C) -> (n, C): ReduceDH_opt's rows for the channels in whole blocks where it applies
    (_blocks), every tap in order otherwise and for the last C % blk channels (the sums: _channels_last_sum)."""
    n, c = x.shape[0], x.shape[-1]
    taps = math.prod(x.shape[1:-1])
    hw, whole = _blocks(x.shape[1:-1], c, blk)
    if not whole:
        return _max_chain(None, x.reshape(n, taps, c))
    h, w = hw
    rows = _max_chain(None, x.reshape(n * h, w, c)[:, :, :whole]).reshape(n, h, whole)
    out = np.empty((n, c), F32)
    out[:, :whole] = _max_chain(None, rows)
    if whole < c:
        out[:, whole:] = _max_chain(None, x.reshape(n, taps, c)[:, :, whole:])
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
    hw = spatial[-1] * (spatial[-2] if len(spatial) > 1 else 1)
    if reduction == "avg":
        if layout == "planar":      # (contiguous: its planes' taps are then moved as 16-byte items)
            total = _planar_sum(np.ascontiguousarray(x.reshape(n * c, -1, hw)), width).reshape(n, c)
        else:
            total = _channels_last_sum(x, blk)
        return (total / np.float32(math.prod(spatial))).astype(F32, copy=False)
    if layout == "planar":
        return _planar_max(x.reshape(n * c, -1, hw), width).reshape(n, c)
    return _channels_last_max(np.ascontiguousarray(np.moveaxis(x, 1, -1)), blk)


def _planar_sum(x, width):
    """(planes, depth, HW) -> (planes,): the sums of the planes in the order _planar_max takes their maxima, without
    their start values (adding +0.0 first changes nothing but a -0.0, and a plane's total starts at +0.0, where the sign
    of a zero lane or tree is lost either way). The taps in vectors are moved four floats (one 16-byte item) at a time
    into (taps / 4, planes, 4): a vector's lanes k = 4a + j of every plane are then one contiguous row of (width / 4) x
    planes x 4 floats, which np.add.reduce over axis 0 adds row after row (its inner loop runs along the row: numpy's
    pairwise sum only runs along the inner axis), and the lanes come out in the quarters horiz_reduce_store adds; the
    taps left over are one numpy add each. (einsum over the lanes in place runs 16 floats a call: 1.3-2x slower.)"""
    p, depth, hw = x.shape
    step = max(8, width)
    full = hw // step * step
    total = np.zeros(p, F32)
    for d in range(depth):
        plane = x[:, d]
        if full:
            quads = np.ascontiguousarray(_quarters(plane[:, :full]).T).view(F32)
            lanes = np.add.reduce(quads.reshape(full // width, -1), axis=0).reshape(width // 4, p, 4)
            np.add(_horizontal_sum(lanes), total, out=total)
        for j in range(full, hw):
            np.add(total, plane[:, j], out=total)
    return total


def _quarters(part):
    """(planes, taps) floats seen as (planes, taps / 4) 16-byte items; numpy before 1.23 views only a C-contiguous
    array as items of another size, so a plane cut from a wider one is copied there first."""
    try:
        return part.view(_QUARTER)
    except ValueError:
        return np.ascontiguousarray(part).view(_QUARTER)


def _horizontal_sum(q):
    """A vector's lanes as (width / 4, planes, 4) quarters -> (planes,): horiz_reduce_store's additions, grouped as
    _horizontal_max groups its maxima: an AVX-512 vector's quarters (q0 + q1) + (q2 + q3), an AVX2 vector's halves
    h0 + h1, then (l0 + l1) + (l2 + l3)."""
    q = (q[0] + q[1]) + (q[2] + q[3]) if len(q) == 4 else q[0] + q[1] if len(q) == 2 else q[0]
    return (q[:, 0] + q[:, 1]) + (q[:, 2] + q[:, 3])


def _channels_last_sum(x, blk):
    """(n, c, *spatial) -> (n, c): the sums in the order _channels_last_max takes its maxima, on x as numpy holds it
    (channels-first), the channels in whole blocks by _row_sums, the others (and every channel where ReduceDH_opt does
    not apply) from a copy with the channels last, one tap after the other."""
    n, c = x.shape[:2]
    hw, whole = _blocks(x.shape[2:], c, blk)
    out = np.empty((n, c), F32)
    if whole:
        out[:, :whole] = _row_sums(x[:, :whole].reshape((n, whole) + hw))
    if whole < c:
        rest = x[:, whole:].reshape(n, c - whole, -1)
        out[:, whole:] = _sum_chain(None, np.ascontiguousarray(np.moveaxis(rest, 1, -1)))
    return out


def _row_sums(x):
    """(n, c, H, W) -> (n, c): each row from +0.0 one tap at a time, then the rows in order from +0.0. Rows of
    at most 8 taps: one numpy add per tap over every row and one per row (the sums without their +0.0 starts
    differ only in a sum of -0.0s, which the +0.0 added last turns to +0.0); longer rows: from a copy with the
    channels last, einsum adding along W and then H (its inner loop along the channels). Measured on the AMD
    EPYC Zen 4: the copy 12 against 20-23 us at 10x10x96, 55 against 73-81 at 14x14x512; 83 against 49 at
    7x7x2048."""
    n, c, h, w = x.shape
    if w <= 8:
        rows = x[..., 0] + x[..., 1]
        for j in range(2, w):
            np.add(rows, x[..., j], out=rows)
        total = rows[..., 0] + rows[..., 1]
        for i in range(2, h):
            np.add(total, rows[..., i], out=total)
        return total + np.float32(0)
    t = np.ascontiguousarray(np.moveaxis(x, 1, -1)).reshape(n * h, w, c)
    return np.einsum("nhc->nc", np.einsum("mwc->mc", t).reshape(n, h, c))
