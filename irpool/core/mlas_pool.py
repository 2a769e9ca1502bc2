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

import functools
import math
import threading

import numpy as np

F32 = np.dtype("float32")
_BUFFER = 2048 - 3          # MLAS_POOL_REDUCTION_BUFFER_STACK less its over-read padding
_SCRATCH = threading.local()    # this thread's last buffers of _vector, by role: fresh megabytes cost page faults
_KEEP = 4 << 20                 # bytes of one such buffer at most (a larger one is made anew on every call)


def _scratch(role, shape, border=None, where=None):
    """This thread's float32 buffer of `shape` for `role` (0-3), kept from its last call with this shape and
    `where` (where its interior lies): what it holds is anything, but for the cells `border` (a function of
    the buffer) sets when it is made, which the callers never write."""
    kept = getattr(_SCRATCH, "kept", None)
    if kept is None:
        kept = _SCRATCH.kept = {}
    buf, key = kept.get(role, (None, None))
    if buf is None or key != (shape, where):
        buf = np.empty(shape, F32)
        kept[role] = (buf, (shape, where)) if buf.nbytes <= _KEEP else (None, None)
        if border is not None:
            border(buf)
    return buf


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


def _rows(p, stride, pad, k, length):
    """The input rows (start, end) of output row p along one axis in the generic kernels (end <= start: none);
    the vector kernels' (a start outside the input taken as 0) are counted in _divisor."""
    start = p * stride - pad
    return max(start, 0), min(start + k, length)


def _padded(xt, before, after, value):
    """xt (spatial..., m) with `value` cells before and after each spatial axis."""
    widths = [(b, a) for b, a in zip(before, after)] + [(0, 0)]
    return np.pad(xt, widths, constant_values=value)


def _vector(x, kernel, strides, pads_b, outs, include_pad):
    """MlasPool2DVectorKernel / MlasPool3DVectorKernel on x (m, *spatial) planes first -> (m, *outs). Each step is
    one numpy add per kernel tap over the whole array seen flat, in long contiguous runs: every row start's
    column sums, then every column start's sums across, the starts the windows take picked out after (the others,
    across plane and row ends, are never read). The column sums start from the window's first row (2-D: -0.0 +
    it, the same) or +0.0 (3-D), pad rows held as -0.0, which changes no sum (x + -0.0 == x, -0.0 + x == x); the
    sums across start from the window's first buffer cell (-0.0 + it), pad cells held as +0.0, as MLAS's buffer
    holds them. (A window's rows never start past the input: onnxruntime drops such a window, so MLAS's reset of
    such a start to 0 never shows.)"""
    m, lead, w = x.shape[0], x.shape[1:-1], x.shape[-1]
    reach = [max(0, (o - 1) * s + k - n - p) for o, s, k, n, p in zip(outs, strides, kernel, lead, pads_b)]
    rows = _bordered(x, pads_b[:-1], reach, np.float32(-0.0))
    cols = _taps(rows, [int(np.dot(offs, rows.strides[1:-1])) // 4 for offs in np.ndindex(*kernel[:-1])],
                 len(lead) == 2, 1)
    starts = tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(outs, strides))
    right = max(0, (outs[-1] - 1) * strides[-1] + kernel[-1] - pads_b[-1] - w)
    buffer = _scratch(2, (m,) + tuple(outs[:-1]) + (pads_b[-1] + w + right,), lambda b: b.fill(0.0), (pads_b[-1], w))
    buffer[..., pads_b[-1]:pads_b[-1] + w] = cols[(slice(None),) + starts[:-1]]
    total = _taps(buffer, range(kernel[-1]), False, 3)[..., starts[-1]].copy()     # (a new array: the result)
    if include_pad:
        total /= np.float32(math.prod(kernel))
    else:
        total /= _divisor(*map(tuple, (kernel, strides, pads_b, outs, lead)), w)
    return total


def _bordered(x, before, after, value):
    """x (m, *lead, w) in a new array with `value` rows before and after it along each lead axis."""
    shape = (x.shape[0],) + tuple(n + b + a for n, b, a in zip(x.shape[1:-1], before, after)) + x.shape[-1:]
    out = _scratch(0, shape, lambda b: b.fill(value), (tuple(before), x.shape[1:-1]))
    out[(slice(None),) + tuple(slice(b, b + n) for b, n in zip(before, x.shape[1:-1]))] = x
    return out


def _taps(a, offsets, from_zero, role):
    """s[i] = a[i + o0] + a[i + o1] + ... in order over a seen flat (from +0.0 with `from_zero`, else from the
    first tap: -0.0 + it), as an array shaped as a; its last cells (past the last start of a full run) unset."""
    flat, offsets = a.reshape(-1), list(offsets)
    n = flat.size - offsets[-1]
    out = _scratch(role, flat.shape)
    if from_zero:
        np.add(flat[offsets[0]:offsets[0] + n], F32.type(0), out=out[:n])
    else:
        out[:n] = flat[offsets[0]:offsets[0] + n]
    for o in offsets[1:]:
        np.add(out[:n], flat[o:o + n], out=out[:n])
    return out.reshape(a.shape)


@functools.lru_cache(maxsize=64)
def _divisor(kernel, strides, pads_b, outs, lead, w):
    """count_include_pad=0's divisors (*outs) in the vector kernels: the window's input columns times its input
    rows (0 counted as 1), the rows from p * stride - pad (or 0 where that lies outside the input: size_t
    arithmetic) to the window's end clipped to the input."""
    rows = np.ones((), np.int64)
    for o, s, p, k, n in zip(outs, strides, pads_b, kernel, lead):
        start = np.arange(o, dtype=np.int64) * s - p
        end = np.minimum(start + k, n)
        rows = np.multiply.outer(rows, end - np.where((start >= 0) & (start < n), start, 0))
    first = np.arange(outs[-1]) * strides[-1]
    count_w = (np.minimum(first + kernel[-1], pads_b[-1] + w) - np.maximum(first, pads_b[-1])).astype(F32)
    divisor = np.maximum(rows.astype(F32)[..., None] * count_w, np.float32(1))
    divisor.flags.writeable = False         # (kept by lru_cache)
    return divisor


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
    counts = [np.array([max(0, b - a) for a, b in (_rows(p, s, pb, k, n) for p in range(o))], F32)
              for o, s, pb, k, n in zip(outs, strides, pads_b, kernel, spatial)]
    count = counts[0]
    for c in counts[1:]:
        count = np.multiply.outer(count, c)
    return total / count[..., None]


def average(x: np.ndarray, kernel, strides, pads_b, pads_e, outs, include_pad: bool) -> np.ndarray:
    """x (n, c, *spatial) float32 -> MlasPool's average with onnxruntime's pads and output lengths. The vector
    kernels run on x as it is (planes first); the others see it as (*spatial, planes), a transposed copy (each
    numpy call then runs over whole rows of planes)."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    m, nd = n * c, len(spatial)
    how = kind(kernel, strides, pads_b, pads_e, spatial)
    planes = np.asarray(x, F32).reshape((m,) + tuple(spatial))
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if how == "vector":
            return _vector(planes, kernel, strides, pads_b, outs, include_pad).reshape((n, c) + tuple(outs))
        xt = np.ascontiguousarray(planes.transpose(tuple(range(1, nd + 1)) + (0,)))
        if how == "global":
            y = _lanes_sum(xt.reshape(-1, m)) / np.float32(math.prod(spatial))
        else:
            y = _generic(xt, kernel, strides, pads_b, outs, include_pad)
    y = np.asarray(y, F32).reshape(tuple(outs) + (m,))
    return np.ascontiguousarray(np.moveaxis(y, -1, 0)).reshape((n, c) + tuple(outs))
