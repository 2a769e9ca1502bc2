"""onnxruntime's ReduceMean over every spatial axis, bit for bit: its CPU kernel reduces each (n, c) plane of H*W
contiguous values with Eigen's `.sum()` (reduction_ops.h: ReduceAggregatorSum::FastReduceKR), the mean then
divided by H*W in the element type (ReduceAggregatorMean::FastReduceKR). Eigen's linear vectorized redux (Redux.h: redux_impl<...,
LinearVectorizedTraversal>), in the SSE2 build onnxruntime's wheels carry (packets of 16 bytes whatever the CPU:
measured equal on AMD EPYC family 25 model 17, which has AVX-512), adds the plane's aligned part in two packet
accumulators, folds them, adds the packet's lanes as (l0 + l2) + (l1 + l3) (PacketMath.h: predux), then the elements
before the first aligned one and after the last packet one at a time. A plane starts `d * H * W` elements into a
buffer onnxruntime aligns to 64 bytes, which decides where its first aligned element is; a plane shorter than a
packet past that is added one at a time from its first element. (ReduceMax needs no order but with NaN and tied
zeros, where onnxruntime's float32 and float64 kernels differ from each other and from Eigen's lanes as measured:
not modelled, docs/onnx.md.)"""
from __future__ import annotations

import numpy as np

PACKET_BYTES = 16          # SSE2's __m128 / __m128d


def eigen_mean(x: np.ndarray) -> np.ndarray:
    """The mean of each (n, c) plane of x (float32 or float64, rank 3-5) as onnxruntime's ReduceMean gives it,
    shape x.shape[:2]."""
    t = x.dtype.type
    rows = np.ascontiguousarray(x).reshape(-1, int(np.prod(x.shape[2:], dtype=np.int64)))
    n = rows.shape[1]
    p = PACKET_BYTES // x.dtype.itemsize
    out = np.empty(rows.shape[0], x.dtype)
    starts = (-(np.arange(rows.shape[0], dtype=np.int64) * n)) % p       # the first aligned element of each plane
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        for a0 in np.unique(starts):
            sel = starts == a0
            out[sel] = _sum(rows[sel], int(min(a0, n)), p)
        out = (out / t(n)).astype(x.dtype)
    return out.reshape(x.shape[:2])


def _sum(rows: np.ndarray, a0: int, p: int) -> np.ndarray:
    """Eigen's redux of each row whose first aligned element is `a0`, in the rows' type."""
    n = rows.shape[1]
    size = (n - a0) // p * p
    end, end2 = a0 + size, a0 + (n - a0) // (2 * p) * (2 * p)
    if not size:
        res = rows[:, 0].copy()
        for i in range(1, n):
            res += rows[:, i]
        return res
    r0 = rows[:, a0:a0 + p].copy()
    if size > p:
        r1 = rows[:, a0 + p:a0 + 2 * p].copy()
        for i in range(a0 + 2 * p, end2, 2 * p):
            r0 += rows[:, i:i + p]
            r1 += rows[:, i + p:i + 2 * p]
        r0 += r1
        if end > end2:
            r0 += rows[:, end2:end2 + p]
    res = (r0[:, 0] + r0[:, 2]) + (r0[:, 1] + r0[:, 3]) if p == 4 else r0[:, 0] + r0[:, 1]
    for i in list(range(a0)) + list(range(end, n)):
        res += rows[:, i]
    return res
