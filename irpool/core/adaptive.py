"""Adaptive pooling on the core: output position i of an axis of length L pooled to `out` reads the bin
[floor(i*L/out), ceil((i+1)*L/out)), so windows vary in start and size. They are run a tap at a time, each tap
one gather over every window (taps past a window's end are masked), with the core's own rules: a sum starts at
+0.0 and adds the taps in row-major order, then divides by the bin's size; a max starts from the bin's first
element and takes a tap only when it is strictly greater (so a NaN first element sticks, later NaN never win,
ties keep the first), its index the flat position inside the (n, c) plane. All of it measured against
OpenVINO's CPU plugin (AdaptiveAvgPool-8, AdaptiveMaxPool-8), bit for bit.
"""
from __future__ import annotations

import itertools
import math

import numpy as np

from ..errors import IRError
from ..limits import output_fits

TYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "uint8", "int16", "uint16", "int32",
                                     "uint32", "int64", "uint64"))


def adaptive_bins(length: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the `out` bins of an axis of `length`."""
    i = np.arange(out, dtype=np.int64)
    return (i * length) // out, -((-(i + 1) * length) // out)


def adaptive_pool(x, out_sizes, reduction: str, *, indices: bool = False, index_dtype: str = "int64"):
    """Pool x (N, C, *spatial) to (N, C, *out_sizes): values, or (values, indices) for max with `indices`."""
    x = np.asarray(x)
    out_sizes = tuple(int(o) for o in out_sizes)
    _check(x, out_sizes, reduction, indices)
    _fits(x, out_sizes, indices, index_dtype)
    # a max compares in the input's type (float16 in float32); a sum runs in float32 (float64 for float64), and
    # an integer average is rounded half to even, as the plugin's pools do
    if reduction == "max":
        ctype = np.dtype(np.float32) if x.dtype == np.float16 else x.dtype
    else:
        ctype = np.dtype(np.float64 if x.dtype == np.float64 else np.float32)
    bins = [adaptive_bins(L, o) for L, o in zip(x.shape[2:], out_sizes)]
    acc, flat = _taps(x.reshape((-1,) + x.shape[2:]), bins, out_sizes, reduction, ctype, indices)
    if reduction == "avg":
        n = len(out_sizes)
        acc += 0.0                                  # the sum starts at +0.0: an all -0.0 bin gives +0.0
        counts = 1
        for i, (s, e) in enumerate(bins):
            counts = counts * (e - s).astype(ctype).reshape([-1 if j == i else 1 for j in range(n)])
        acc /= counts
        if x.dtype.kind != "f":
            np.rint(acc, out=acc)
    values = acc.astype(x.dtype).reshape(x.shape[:2] + out_sizes)
    if not indices:
        return values
    return values, flat.astype(index_dtype).reshape(x.shape[:2] + out_sizes)


def _fits(x, out_sizes, indices, index_dtype) -> None:
    """Refused before a byte is allocated where the outputs and _taps' buffers (the sums and one tap in the compute
    type, a bool mask, the int64 indices; each axis's bins, two int64 per output) would not fit in the memory free."""
    shape, idx = x.shape[:2] + out_sizes, np.dtype(index_dtype).itemsize if indices else 0
    work = math.prod(shape) * (2 * max(x.dtype.itemsize, 4) + 1 + (8 if indices else 0)) + 16 * sum(out_sizes)
    output_fits(shape, x.dtype.itemsize + idx, work)


def _check(x, out_sizes, reduction, indices) -> None:
    if x.ndim != len(out_sizes) + 2:
        raise IRError(f"input has rank {x.ndim} but the output size has {len(out_sizes)} spatial axes"
                      f" (rank {len(out_sizes) + 2} expected)")
    if reduction not in ("max", "avg") or (indices and reduction != "max"):
        raise IRError(f"adaptive pooling is max (with indices) or avg, not {reduction}{' with indices' * indices}")
    if x.dtype not in TYPES:
        raise IRError(f"adaptive pooling does not take element type {x.dtype}")
    if any(o < 0 for o in out_sizes) or any(L < 1 for L in x.shape[2:]):
        raise IRError(f"adaptive pooling of spatial dims {list(x.shape[2:])} to {list(out_sizes)} is not defined")


def _taps(planes, bins, out_sizes, reduction, ctype, indices):
    """(the sums or maxima of every bin, a tap at a time, and the max's flat indices or None)."""
    widest = [int((e - s).max()) if s.size else 0 for s, e in bins]
    shape = (planes.shape[0],) + out_sizes
    n = len(out_sizes)
    mult = [math.prod(planes.shape[2 + i:]) for i in range(n)]
    acc = np.zeros(shape, dtype=ctype)
    flat = np.zeros(shape, dtype=np.int64) if indices else None
    take = np.empty(shape, dtype=bool)
    with np.errstate(invalid="ignore", over="ignore"):
        for taps in itertools.product(*(range(k) for k in widest)):
            pos, ok = [], []
            for i, ((s, e), t) in enumerate(zip(bins, taps)):
                p = s + t
                ok.append((p < e).reshape([-1 if j == i else 1 for j in range(n)]))
                pos.append(np.minimum(p, e - 1))
            valid = ok[0]
            for o in ok[1:]:
                valid = valid & o
            v = planes[(slice(None),) + np.ix_(*pos)].astype(ctype, copy=False)
            if reduction == "avg":
                np.add(acc, v, out=acc, where=np.broadcast_to(valid, shape))
                continue
            where = sum(p.reshape([-1 if j == i else 1 for j in range(n)]) * m for i, (p, m) in enumerate(zip(pos, mult)))
            if not any(taps):                       # the bin's first element starts it
                np.copyto(acc, v)
                if indices:
                    np.copyto(flat, np.broadcast_to(where, shape))
                continue
            np.greater(v, acc, out=take)
            take &= valid
            np.copyto(acc, v, where=take)
            if indices:
                np.copyto(flat, np.broadcast_to(where, shape), where=take)
    return acc, flat
