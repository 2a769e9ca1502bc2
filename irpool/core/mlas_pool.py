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


def _lanes_sum(x):
    """(m, n) -> (m,): MlasPoolGlobalKernel's sum."""
    m, n = x.shape
    full = n // 4 * 4
    lanes = np.add.reduce(x[:, :full].reshape(m, full // 4, 4), axis=1) + np.float32(0) if full else \
        np.zeros((m, 4), F32)
    total = (lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3])
    for j in range(full, n):
        total = total + x[:, j]
    return total


def _rows(p, stride, pad, k, length, vector):
    """The input rows (start, end) of output row p along one axis."""
    start = p * stride - pad
    end = min(start + k, length)
    if vector and not 0 <= start < length:
        start = 0
    return max(start, 0), end


def _columns(x, windows, from_zero):
    """x (m, *lead, W) summed over the window's leading positions one at a time -> (m, W); `from_zero`: the 3-D
    kernel's start at +0.0, else the first position's value."""
    lead = np.ix_(*[np.arange(a, b) for a, b in windows])
    taps = x[(slice(None),) + lead].reshape(x.shape[0], -1, x.shape[-1])
    if from_zero or taps.shape[1] == 0:
        taps = np.concatenate([np.zeros((x.shape[0], 1, x.shape[-1]), F32), taps], axis=1)
    total = taps[:, 0].copy()
    for j in range(1, taps.shape[1]):
        total += taps[:, j]
    return total


def _vector(x, kernel, strides, pads_b, pads_e, outs, include_pad):
    """MlasPool2DVectorKernel / MlasPool3DVectorKernel on x (m, *spatial)."""
    m, spatial = x.shape[0], x.shape[1:]
    w, kw, sw, pl = spatial[-1], kernel[-1], strides[-1], pads_b[-1]
    y = np.empty((m,) + tuple(outs), F32)
    width = pl + w + pads_e[-1] + 3 + sw * outs[-1] + kw
    first = (np.arange(outs[-1]) * sw)[:, None]
    count_w = (np.minimum(first[:, 0] + kw, pl + w) - np.maximum(first[:, 0], pl)).astype(F32)
    for lead in np.ndindex(*outs[:-1]):
        windows = [_rows(p, strides[i], pads_b[i], kernel[i], spatial[i], True) for i, p in enumerate(lead)]
        buf = np.zeros((m, width), F32)
        buf[:, pl:pl + w] = _columns(x, windows, len(spatial) == 3)
        total = buf[:, first[:, 0]]
        for j in range(1, kw):
            total = total + buf[:, first[:, 0] + j]
        if include_pad:
            y[(slice(None),) + lead] = total / np.float32(math.prod(kernel))
        else:
            rows = np.float32(math.prod(b - a for a, b in windows))
            y[(slice(None),) + lead] = total / np.maximum(count_w * rows, np.float32(1))
    return y


def _generic(x, kernel, strides, pads_b, pads_e, outs, include_pad):
    """MlasPool1D/2D/3DKernel on x (m, *spatial): row-major from +0.0."""
    m, spatial = x.shape[0], x.shape[1:]
    y = np.empty((m,) + tuple(outs), F32)
    for pos in np.ndindex(*outs):
        windows = [_rows(p, strides[i], pads_b[i], kernel[i], spatial[i], False) for i, p in enumerate(pos)]
        index = np.ix_(*[np.arange(a, b) for a, b in windows])
        taps = x[(slice(None),) + index].reshape(m, -1)
        total = np.zeros(m, F32)
        for j in range(taps.shape[1]):
            total = total + taps[:, j]
        count = math.prod(kernel) if include_pad else math.prod(b - a for a, b in windows)
        y[(slice(None),) + pos] = total / np.float32(count)
    return y


def average(x: np.ndarray, kernel, strides, pads_b, pads_e, outs, include_pad: bool) -> np.ndarray:
    """x (n, c, *spatial) float32 -> MlasPool's average with onnxruntime's pads and output lengths."""
    n, c, spatial = x.shape[0], x.shape[1], x.shape[2:]
    flat = np.ascontiguousarray(x, dtype=F32).reshape((n * c,) + tuple(spatial))
    how = kind(kernel, strides, pads_b, pads_e, spatial)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if how == "global":
            y = _lanes_sum(flat.reshape(n * c, -1)) / np.float32(math.prod(spatial))
        elif how == "vector":
            y = _vector(flat, kernel, strides, pads_b, pads_e, outs, include_pad)
        else:
            y = _generic(flat, kernel, strides, pads_b, pads_e, outs, include_pad)
    return np.asarray(y, F32).reshape((n, c) + tuple(outs))
