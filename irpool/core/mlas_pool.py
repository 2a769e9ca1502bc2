"""A float32 average pool as onnxruntime's MLAS adds it (AveragePool before version 19, GlobalAveragePool).

onnxruntime hands a float AveragePool-7..18 and GlobalAveragePool to MlasPool (onnxruntime/core/mlas/lib/
pooling.cpp), which picks one of three kinds of kernel, all written with MLAS's 4-float vectors
(MLAS_FLOAT32X4: SSE2 on x86, the same on every x86 CPU: no AVX or AVX-512 variant exists for pooling):

global (MlasPoolGlobalKernel: the kernel is the input, strides 1, no pads; 1-D too): the plane's elements in 4
  lanes from +0.0 (lane i takes i, i + 4, ...), the lanes added as (l0 + l2) + (l1 + l3)
  (MlasReduceAddFloat32x4), then the last len % 4 elements one at a time, divided by float(len).
vector (MlasPool2DVectorKernel / MlasPool3DVectorKernel: 2-D or 3-D, last stride 1 or 2, every kernel dim at
  most 32, the padded width within its 2,048-float buffer): per output row, each input column summed down the
  window's rows (2-D: from the first row's value; 3-D: from +0.0, depth slice after depth slice), written into
  a buffer whose pad cells hold +0.0; each output then adds the kernel's columns of that buffer in order, from
  the first (a pad cell included). The divisor: the whole kernel (count_include_pad=1), or the window's input
  columns times its input rows (0 counted as 1).
generic (MlasPool2DKernel / MlasPool3DKernel, and 1-D): the window's input elements in row-major order from
  +0.0, divided by their count, or by the whole kernel with count_include_pad=1.

Every division is a float division (no reciprocal). The window's rows: start = p * stride - pad_begin, end =
start + kernel clipped to L; a start outside [0, L) becomes 0 in the vector kernels (size_t arithmetic).
Measured bit for bit against onnxruntime 1.32 (tests/core/test_bits_onnxruntime.py).
"""
from __future__ import annotations

import itertools
import math

import numpy as np

F32 = np.dtype("float32")
_BUFFER = 2048 - 3          # MLAS_POOL_REDUCTION_BUFFER_STACK less its over-read padding


def kind(kernel, strides, pads_b, pads_e, spatial) -> str:
    """Which MLAS kernel MlasPool runs: global, vector or generic."""
    if tuple(kernel) == tuple(spatial) and set(strides) <= {1} and not any(pads_b) and not any(pads_e):
        return "global"
    if len(kernel) >= 2 and strides[-1] <= 2 and max(kernel) <= 32 and pads_b[-1] + pads_e[-1] + spatial[-1] <= _BUFFER:
        return "vector"
    return "generic"


def _lanes_sum(xt):
    """(n, m) taps-first -> (m,): MlasPoolGlobalKernel's sum (4 lanes from +0.0, then the rest one at a time)."""
    n = xt.shape[0]
    full = n // 4 * 4
    lanes = np.zeros((4,) + xt.shape[1:], F32)
    if full:
        lanes = np.add.reduce(xt[:full].reshape((full // 4, 4) + xt.shape[1:]), axis=0) + np.float32(0)
    total = (lanes[0] + lanes[2]) + (lanes[1] + lanes[3])
    for j in range(full, n):
        total += xt[j]
    return total


def _rows(p, stride, pad, k, length, vector):
    """The input rows (start, end) of output row p along one axis (end <= start: none)."""
    start = p * stride - pad
    end = min(start + k, length)
    if vector and not 0 <= start < length:
        start = 0
    return max(start, 0), end


def _padded(xt, before, after, value):
    """xt (spatial..., m) with `value` cells before and after each spatial axis."""
    widths = [(b, a) for b, a in zip(before, after)] + [(0, 0)]
    return np.pad(xt, widths, constant_values=value)


def _like(xt, spatial, value):
    """A (*spatial, m) array of `value` laid out in memory as xt is (planes last, or a view of planes first)."""
    m = xt.shape[-1]
    if xt.strides[-1] == xt.itemsize:
        return np.full(tuple(spatial) + (m,), value, F32)
    return np.moveaxis(np.full((m,) + tuple(spatial), value, F32), 0, -1)


def _valid(o, s, pad, j, n):
    """The outputs [lo, hi) whose tap j lies inside [0, n), and that tap's first input index."""
    lo = max(0, -(-(pad - j) // s))
    hi = min(o, (n - 1 + pad - j) // s + 1)
    return lo, max(lo, hi), lo * s - pad + j


def _vector(xt, kernel, strides, pads_b, outs, include_pad):
    """MlasPool2DVectorKernel / MlasPool3DVectorKernel on xt (*spatial, m) -> (*outs, m). The column sums start
    from the window's first row (2-D: -0.0 + it, the same) or +0.0 (3-D); the sums across start from the window's
    first buffer cell (-0.0 + it), a pad cell adding +0.0 in its place. (A window's rows never start past the
    input: onnxruntime drops such a window, so MLAS's reset of such a start to 0 never shows.)"""
    lead, w = xt.shape[:-2], xt.shape[-2]
    kw, sw, pl = kernel[-1], strides[-1], pads_b[-1]
    cols = _like(xt, tuple(outs[:-1]) + (w,), np.float32(0.0 if len(lead) == 2 else -0.0))
    for offs in np.ndindex(*kernel[:-1]):
        ranges = [_valid(o, s, p, j, n) for o, s, p, j, n in zip(outs, strides, pads_b, offs, lead)]
        dst = tuple(slice(lo, hi) for lo, hi, _ in ranges)
        src = tuple(slice(first, first + (hi - lo - 1) * s + 1, s) for (lo, hi, first), s in zip(ranges, strides))
        if all(hi > lo for lo, hi, _ in ranges):
            cols[dst] += xt[src]
    total = _like(xt, tuple(outs), np.float32(-0.0))
    for j in range(kw):
        lo, hi, first = _valid(outs[-1], sw, pl, j, w)
        total[..., :lo, :] += np.float32(0)         # the window's cell is a pad cell
        total[..., hi:, :] += np.float32(0)
        if hi > lo:
            total[..., lo:hi, :] += cols[..., first:first + (hi - lo - 1) * sw + 1:sw, :]
    if include_pad:
        return total / np.float32(math.prod(kernel))
    spans = [[_rows(p, strides[i], pads_b[i], kernel[i], n, True) for p in range(outs[i])] for i, n in enumerate(lead)]
    rows = np.array([math.prod(b - a for a, b in window) for window in itertools.product(*spans)], F32)
    first = np.arange(outs[-1]) * sw
    count_w = (np.minimum(first + kw, pl + w) - np.maximum(first, pl)).astype(F32)
    divisor = np.maximum(rows.reshape(tuple(outs[:-1]) + (1,)) * count_w, np.float32(1))
    return total / divisor[..., None]


def _generic(xt, kernel, strides, pads_b, outs, include_pad):
    """MlasPool1D/2D/3DKernel on xt (*spatial, m) -> (*outs, m): row-major from +0.0; a pad tap adds +0.0,
    which changes no sum that starts at +0.0."""
    spatial = xt.shape[:-1]
    reach = [max(0, (o - 1) * s + k - n - p) for o, s, k, n, p in zip(outs, strides, kernel, spatial, pads_b)]
    src = _padded(xt, pads_b, reach, 0.0)
    total = np.zeros(tuple(outs) + xt.shape[-1:], F32)
    for offs in np.ndindex(*kernel):
        total += src[tuple(slice(j, j + (o - 1) * s + 1, s) for j, o, s in zip(offs, outs, strides))]
    if include_pad:
        return total / np.float32(math.prod(kernel))
    counts = [np.array([max(0, b - a) for a, b in (_rows(p, s, pb, k, n, False) for p in range(o))], F32)
              for o, s, pb, k, n in zip(outs, strides, pads_b, kernel, spatial)]
    count = counts[0]
    for c in counts[1:]:
        count = np.multiply.outer(count, c)
    return total / count[..., None]


def average(x: np.ndarray, kernel, strides, pads_b, pads_e, outs, include_pad: bool) -> np.ndarray:
    """x (n, c, *spatial) float32 -> MlasPool's average with onnxruntime's pads and output lengths. The kernels see
    x as (*spatial, planes): a transposed copy for short rows (each numpy call then runs over whole rows of
    planes), a view of x for rows of 16 or more (its calls run along the rows)."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    m, nd = n * c, len(spatial)
    xt = np.asarray(x, F32).reshape((m,) + tuple(spatial)).transpose(tuple(range(1, nd + 1)) + (0,))
    how = kind(kernel, strides, pads_b, pads_e, spatial)
    if how != "vector" or spatial[-1] < 16:
        xt = np.ascontiguousarray(xt)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if how == "global":
            y = _lanes_sum(xt.reshape(-1, m)) / np.float32(math.prod(spatial))
        elif how == "vector":
            y = _vector(xt, kernel, strides, pads_b, outs, include_pad)
        else:
            y = _generic(xt, kernel, strides, pads_b, outs, include_pad)
    y = np.asarray(y, F32).reshape(tuple(outs) + (m,))
    return np.ascontiguousarray(np.moveaxis(y, -1, 0)).reshape((n, c) + tuple(outs))
