"""Execute a PoolSpec on a numpy array: max (with indices), average, Lp.

One loop over kernel taps; each tap is one strided view of the input compared or added into the
sub-box of the output whose windows see that tap inside the input. Padding is never materialised:
a tap that falls in the padding simply does not touch that output element, which is exactly "padding
never wins" for max and "excluded" for sums.

Max follows OpenVINO's CPU plugin: start from the lowest finite value of the compute type (float16 is
computed in float32, so its empty window is -inf) with the window's (n, c) base index, take a tap only
when it is strictly greater (ties keep the first tap in row-major kernel order, NaN never wins).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import IRError
from .shape import AxisPlan, plan
from .spec import PoolSpec

MAX_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "uint8", "int16",
                                         "uint16", "int32", "uint32", "int64", "uint64"))
FLOAT_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64"))


def _accumulator(dtype: np.dtype) -> np.dtype:
    """Sums run in at least float32 (float16 inputs would lose precision and overflow)."""
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _lowest(dtype: np.dtype):
    if dtype == np.float16:
        return np.float16(-np.inf)      # float32's lowest, as OpenVINO computes float16, rounds to -inf
    if dtype.kind == "f":
        return np.finfo(dtype).min
    return np.iinfo(dtype).min


def _axis_taps(p: AxisPlan):
    """For each tap t of one axis: (output range, input slice) where the tap lands inside the input."""
    taps = []
    for t in range(p.kernel):
        offset = t * p.dilation - p.pad_begin
        lo = max(0, -(offset // p.stride))               # first o with o*s + offset >= 0
        hi = min(p.out, (p.length - 1 - offset) // p.stride + 1) if p.length - 1 - offset >= 0 else 0
        if hi > lo:
            start = lo * p.stride + offset
            taps.append((t, slice(lo, hi), slice(start, start + (hi - lo - 1) * p.stride + 1, p.stride)))
        else:
            taps.append((t, None, None))
    return taps


def _counts(p: AxisPlan, clip_to_pads: bool) -> np.ndarray:
    """Per output position of one axis: how many taps land in the input (or in [-pb, L + pe)).

    A window that starts at or past the end of the input (only `ceil` rounding makes one) counts
    L - start <= 0, as OpenVINO's CPU plugin does (min(end, L) - max(start, 0)): its empty average is
    then 0 / 0 = NaN on one such axis, -0 or +0 when several axes multiply signs.
    """
    starts = np.arange(p.out) * p.stride - p.pad_begin
    pos = starts[:, None] + np.arange(p.kernel)[None, :] * p.dilation
    hi = p.length + p.pad_end if clip_to_pads else p.length
    lo = -p.pad_begin if clip_to_pads else 0
    counts = ((pos >= lo) & (pos < hi)).sum(axis=1)
    if not clip_to_pads:
        counts = np.where(starts >= p.length, p.length - starts, counts)
    return counts


def _broadcast(vec: np.ndarray, i: int, ndim: int, first: int) -> np.ndarray:
    """`vec` shaped to broadcast along axis first + i of an ndim-dimensional array."""
    shape = [1] * ndim
    shape[first + i] = vec.shape[0]
    return vec.reshape(shape)


def pool(x, spec: PoolSpec, *, indices: bool = False):
    """Pool `x` as `spec` says. Returns the values, or (values, indices) when `indices` is true."""
    x = np.asarray(x)
    if x.ndim != spec.ndim + 2:
        raise IRError(f"input has rank {x.ndim} but the kernel has {spec.ndim} spatial axes"
                      f" (rank {spec.ndim + 2} expected)")
    if spec.reduction == "max":
        if x.dtype not in MAX_DTYPES:
            raise IRError(f"max pooling does not take element type {x.dtype}")
    elif x.dtype not in FLOAT_DTYPES:
        raise IRError(f"{spec.reduction} pooling takes float16/32/64, not {x.dtype}")
    if indices and spec.reduction != "max":
        raise IRError("only max pooling has indices")
    plans = plan(spec, x.shape)
    axes = spec.spatial_axes(x.ndim)
    out_shape = list(x.shape)
    for a, p in zip(axes, plans):
        out_shape[a] = p.out
    out_shape = tuple(out_shape)
    if indices:
        _check_axis(spec, x.ndim)
    if spec.reduction == "max":
        return _max(x, spec, plans, axes, out_shape, indices)
    return _sum(x, spec, plans, axes, out_shape)


def _tap_boxes(plans, axes, rank):
    """Every kernel tap with its output box and input view index (taps that never land are left out)."""
    per_axis = [_axis_taps(p) for p in plans]
    for flat, combo in enumerate(itertools.product(*per_axis)):
        if any(o is None for _, o, _ in combo):
            continue
        osl, isl = [slice(None)] * rank, [slice(None)] * rank
        for a, (_, o, i) in zip(axes, combo):
            osl[a], isl[a] = o, i
        yield flat, tuple(osl), tuple(isl)


def _max(x, spec, plans, axes, out_shape, want_indices):
    best = np.full(out_shape, _lowest(x.dtype), dtype=x.dtype)
    taps = np.full(out_shape, -1, dtype=np.int32) if want_indices else None
    if best.size and spec.max_start == "first":
        filled = np.zeros(out_shape, dtype=bool)
        for t, osl, isl in _tap_boxes(plans, axes, x.ndim):
            b, v, f = best[osl], x[isl], filled[osl]
            take = v > b
            take |= ~f
            np.copyto(b, v, where=take)
            if want_indices:
                np.copyto(taps[osl], t, where=take)
            f[...] = True
    elif best.size:
        greater = np.fmax if x.dtype.kind == "f" else np.maximum
        for t, osl, isl in _tap_boxes(plans, axes, x.ndim):
            b, v = best[osl], x[isl]
            if want_indices:
                np.copyto(taps[osl], t, where=v > b)
            greater(b, v, out=b)
    if not want_indices:
        return best
    return best, _indices(x.shape, spec, plans, axes, taps)


def _check_axis(spec, rank):
    if not -rank <= spec.index_axis < rank:
        raise IRError(f"axis {spec.index_axis} is out of range [{-rank}, {rank - 1}] for an input of rank {rank}")


def _indices(in_shape, spec, plans, axes, taps):
    """Flat input index of each winning tap: (n*C + c)*prod(spatial) + flat_spatial, in NC-first terms."""
    rank = len(in_shape)
    if spec.layout == "channels_last":      # indices keep the channels-first shape and values
        perm = (0, rank - 1) + tuple(range(1, rank - 1))
        taps = taps.transpose(perm)
        in_shape = tuple(in_shape[i] for i in perm)
    n_sp = spec.ndim
    lengths = [p.length for p in plans]
    if spec.storage_order == 0:
        mult = [math.prod(lengths[i + 1:]) for i in range(n_sp)]
    else:                                   # column-major spatial part (ONNX storage_order=1)
        mult = [math.prod(lengths[:i]) for i in range(n_sp)]
    base = np.zeros((1, 1) + tuple(p.out for p in plans), dtype=np.int64)
    for i, p in enumerate(plans):
        start = (np.arange(p.out, dtype=np.int64) * p.stride - p.pad_begin) * mult[i]
        base = base + _broadcast(start, i, rank, 2)
    tap_off = np.zeros([p.kernel for p in plans], dtype=np.int64)
    for i, p in enumerate(plans):
        tap_off = tap_off + _broadcast(np.arange(p.kernel, dtype=np.int64) * p.dilation * mult[i], i, n_sp, 0)
    # taps == -1 (no tap won) reads some entry harmlessly; np.where puts flat_spatial 0 (the base) there
    flat = np.where(taps >= 0, base + tap_off.ravel()[taps], 0)
    n, c = in_shape[0], in_shape[1]
    plane = math.prod(lengths)
    nc = (np.arange(n, dtype=np.int64)[:, None] * c + np.arange(c, dtype=np.int64)[None, :]) * plane
    flat = flat + nc.reshape((n, c) + (1,) * n_sp)
    axis = spec.index_axis % rank
    if axis != 0:
        flat %= math.prod(in_shape[axis:])
    return flat.astype(spec.index_dtype, copy=False)


def _sum(x, spec, plans, axes, out_shape):
    acc_t = _accumulator(x.dtype)
    acc = np.zeros(out_shape, dtype=acc_t)
    if acc.size:
        for _, osl, isl in _tap_boxes(plans, axes, x.ndim):
            a, v = acc[osl], x[isl]
            if spec.reduction == "avg":
                np.add(a, v, out=a, casting="unsafe")
            elif spec.p == 2.0:
                v = v.astype(acc_t, copy=False)
                a += v * v
            elif spec.p == 1.0:
                a += np.abs(v, dtype=acc_t)
            else:
                a += np.power(np.abs(v, dtype=acc_t), spec.p)
    with np.errstate(divide="ignore", invalid="ignore"):
        if spec.reduction == "lp":
            res = np.sqrt(acc, out=acc) if spec.p == 2.0 else np.power(acc, 1.0 / spec.p, out=acc)
        else:
            acc /= _divisor(spec, plans, x.ndim, axes)
            res = acc
    return res.astype(x.dtype, copy=False)


def _divisor(spec, plans, rank, axes):
    if spec.count == "include_openvino" and any(p.pad_begin or p.pad_end for p in plans):
        return float(math.prod(spec.kernel))
    clip = spec.count == "include_onnx"
    div = np.ones((1,) * rank)
    first = axes[0]
    for i, p in enumerate(plans):
        div = div * _broadcast(_counts(p, clip).astype(np.float64), i, rank, first)
    if spec.count == "exclude_onnx":
        div = np.maximum(div, 1.0)          # an empty window sums to 0: 0 / 1
    return div
