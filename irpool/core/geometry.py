"""Everything about a pooling call that follows from its spec, the input's shape and dtype and the core's
tuning: the axis plans, the phase layout, the path (one window per axis, direct.py, the last axis first),
the average's divisors and the index arithmetic. Computed once per distinct call (`geometry` caches it) and
shared by every chunk and workspace."""
from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from ..limits import output_fits
from .direct import edges as direct_edges, in_place as direct_in_place, offsets as direct_offsets, takes as direct_takes
from .layout import axis_layout
from .shape import AxisPlan, plan
from .spec import PoolSpec
from .tuning import Tuning


def _accumulator(dtype: np.dtype) -> np.dtype:
    """Sums run in at least float32 (float16 inputs would lose precision and overflow; integers are
    averaged in float32, as OpenVINO's CPU plugin does)."""
    return np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)


def _lowest(dtype: np.dtype):
    if dtype == np.float16:
        return np.float16(-np.inf)      # float32's lowest, as OpenVINO computes float16, rounds to -inf
    if dtype.kind == "f":
        return np.finfo(dtype).min
    return np.iinfo(dtype).min


def _counts(p: AxisPlan, clip_to_pads: bool) -> np.ndarray:
    """Per output position of one axis: how many taps land in the input (or in [-pb, L + pe)).

    A window that starts at or past the end of the input (only `ceil` rounding makes one) counts
    ceil((L - start) / dilation) <= 0, as OpenVINO's CPU plugin does: L - start on an axis of dilation 1;
    on a dilated axis 0 (an average of 0 / 0 = NaN) while the start is less than one dilation past the end,
    negative beyond. The empty average is then NaN, -0 or +0 as the axes multiply signs (measured, per axis,
    on every such window of lengths 1-6, kernels 1-3, strides 2-5, dilations 2-3).
    """
    starts = np.arange(p.out) * p.stride - p.pad_begin
    pos = starts[:, None] + np.arange(p.kernel)[None, :] * p.dilation
    hi = p.length + p.pad_end if clip_to_pads else p.length
    lo = -p.pad_begin if clip_to_pads else 0
    counts = ((pos >= lo) & (pos < hi)).sum(axis=1)
    if not clip_to_pads:
        counts = np.where(starts >= p.length, -((starts - p.length) // p.dilation), counts)
    return counts


def code_dtype(taps: int) -> np.dtype:
    """The narrowest unsigned type holding tap codes 0..taps."""
    return np.dtype(np.uint8 if taps < 255 else np.uint16 if taps < 65535 else np.uint32)


def _along(vec: np.ndarray, i: int, n: int) -> np.ndarray:
    """`vec` shaped to broadcast along spatial axis i of a (planes, s_1..s_n, q) grid."""
    shape = [1] * (n + 2)
    shape[1 + i] = vec.shape[0]
    return vec.reshape(shape)


def _fits(out_shape, planes: int, plans, dtype, index_bytes: int) -> None:
    """Refused before a byte is allocated where the outputs and a padded copy of the input (the phase buffer's
    size, in a compute type of at least 4 bytes) would not fit in the memory free (limits.output_fits): a pads_end of
    2^31 - 1 on a 1x1 input asks for 2^62 outputs."""
    padded = planes * math.prod(p.length + max(p.pad_begin, 0) + max(p.pad_end, 0) for p in plans)
    output_fits(out_shape, dtype.itemsize + index_bytes, padded * max(dtype.itemsize, 4))


class Geometry:
    """Everything about a call that follows from the spec, the input's shape and dtype: computed once
    per distinct call (`geometry` caches it) and shared by every chunk and workspace."""

    def __init__(self, spec: PoolSpec, shape: tuple[int, ...], dtype: np.dtype, want_indices: bool, t: Tuning):
        self.spec, self.want_indices, self.t = spec, want_indices, t
        self.plans = plans = plan(spec, shape)
        n = spec.ndim
        last = spec.layout == "channels_last"
        self.planes, self.q = (shape[0], shape[-1]) if last else (shape[0] * shape[1], 1)
        sp_out = tuple(p.out for p in plans)
        self.x_shape = (self.planes,) + tuple(p.length for p in plans) + (self.q,)
        self.v_shape = (self.planes,) + sp_out + (self.q,)
        self.out_shape = list(shape)
        for a, p in zip(spec.spatial_axes(len(shape)), plans):
            self.out_shape[a] = p.out
        _fits(self.out_shape, self.planes * self.q, plans, dtype,
              np.dtype(spec.index_dtype).itemsize if want_indices else 0)
        self.axes = tuple(axis_layout(p) for p in plans)
        if spec.reduction == "max":
            self.ctype = np.dtype(np.float32) if dtype == np.float16 else dtype
            self.identity = _lowest(dtype)
        else:
            self.ctype, self.identity = _accumulator(dtype), 0
        self.window = self._one_window()
        self.direct = self._goes_direct(shape, dtype, last)
        self.pre_offsets = self.pre_edges = None
        self._last_axis_first(last)
        ntaps = [len(a.taps) for a in self.axes]
        residues = [len(a.residues) for a in self.axes]
        direct = math.prod(ntaps) - 1          # numpy calls over one block: the first call takes two taps
        # axis by axis only for max: a sum's bits depend on the order of its additions
        self.separable = spec.reduction == "max" and \
            sum((ntaps[i] - 1) * math.prod(residues[:i]) for i in range(n)) < direct
        if spec.reduction == "avg":
            self.div = _divisor(spec, plans, n).astype(self.ctype)
        if want_indices:
            channels = shape[-1] if last else shape[1]
            self.i_shape = (shape[0], channels) + sp_out
            self.index = _index_geometry(spec, plans, channels)

    def _one_window(self) -> tuple | None:
        """One window per axis (global pools, a 7x7 pool of a 7x7 input): the slices that reduce its part of the
        input at once. In the phase buffer every tap would be a whole-plane slice kept for that one output
        (measured 38 ms against numpy's 0.04 ms for 16x224x224). Indices keep the tap path."""
        if not self.want_indices and all(p.out == 1 and a.taps for p, a in zip(self.plans, self.axes)):
            return tuple(slice(a.taps[0][0] * p.dilation - p.pad_begin,
                               a.taps[-1][0] * p.dilation - p.pad_begin + 1, p.dilation)
                         for p, a in zip(self.plans, self.axes))
        return None

    def _goes_direct(self, shape: tuple[int, ...], dtype: np.dtype, last: bool) -> bool:
        """Without a phase buffer (direct.py): channels-first max without indices, computed in the input's own
        type, where use_direct says it pays."""
        spec, plans, t = self.spec, self.plans, self.t
        return (not self.want_indices and self.window is None and not last and spec.reduction == "max"
                and self.ctype == dtype and math.prod(shape) * dtype.itemsize >= t.direct_bytes
                and direct_takes(plans) and (use_direct(plans) if t.direct is None else t.direct))

    def _last_axis_first(self, last: bool) -> None:
        """A max whose last axis has overlapping windows (kernel > stride > 1): that axis is reduced first, at
        every position of the flat chunk (contiguous calls, no rows: the window starting at i - pad_begin at
        position i), and the phase buffer then holds only the positions windows start at: for 3x3 s2 two phase
        blocks instead of four, the fill's rows halved and the last axis's pass gone. Windows reaching into
        the padding are redone from their landing taps (pre_edges). Measured, one thread: 0.66-0.88 of the
        time on 3x3 s2 layers of Inception, SqueezeNet and AlexNet."""
        spec, p = self.spec, self.plans[-1]
        if self.t.pre_reduce and spec.reduction == "max" and spec.max_start == "lowest" and not self.want_indices \
                and self.window is None and not self.direct and not last and p.kernel > p.stride > 1 \
                and direct_takes((p,)):
            self.pre_offsets = tuple(direct_offsets(p))
            self.pre_edges = direct_edges(p)        # (position c holds the window starting at c - pb)
            self.axes = self.axes[:-1] + (axis_layout(replace(p, kernel=1, pad_begin=0, pad_end=0)),)


def use_direct(plans) -> bool:
    """Of the windows direct.py takes, which it runs: those that do not overlap (kernel <= stride on every axis),
    and stride 1 with the output as long as the input on every axis (no pick: the output is written in place),
    where each axis has a window clear of the padding (the others are redone, a call over a column or slab each).
    Measured against the phase path, one thread, AMD EPYC, interleaved runs: 0.57 on 2x2x2 s2 (1x832x4x14x14),
    0.81-0.86 on 2x2 s2; stride 1 (no fill, no final copy) 0.87-0.89 on 3x3 p1 over 4x64x56x56, 0.87-0.92 on a
    1-D k5 p2, 0.90-0.97 on S3D's 3x3x3 over 4x14x14 planes, 0.96-1.00 on 28x28 planes; but 1.07 on 2x7x7 planes,
    where every depth position is an edge, and 1.03-1.05 with dilation 4 (an output shorter than the input: a
    pick). Overlapping windows with a stride above 1 lose to the phase path with its last axis reduced first (3x3
    s2 on Inception's, AlexNet's and SqueezeNet's layers: 1.07-1.55, the stem 1.26, S3D's 3x3x3 s2 1.18). Tests
    force it on for every spec direct.py takes."""
    if all(p.kernel <= p.stride for p in plans):
        return True
    return direct_in_place(plans) and all(len(direct_edges(p)) < p.length for p in plans)


@functools.lru_cache(maxsize=64)
def geometry(spec, shape, dtype, want_indices, t: Tuning) -> Geometry:
    return Geometry(spec, shape, dtype, want_indices, t)


class IndexGeometry(NamedTuple):
    """Where a max's index points: per spatial axis the flat multiplier (row- or column-major), each window's start
    offset, and the (N, C, spatial...) shape the flat index counts in."""
    mult: list
    start: np.ndarray
    nc_shape: tuple


def _index_geometry(spec, plans, channels) -> IndexGeometry:
    """Per spatial axis the flat multiplier (row- or column-major), and each window's start offset."""
    lengths = [p.length for p in plans]
    n = len(plans)
    if spec.storage_order == 0:
        mult = [math.prod(lengths[i + 1:]) for i in range(n)]
    else:                                   # column-major spatial part (ONNX storage_order=1)
        mult = [math.prod(lengths[:i]) for i in range(n)]
    start = np.zeros((1,) * (n + 2), dtype=np.int64)
    for i, p in enumerate(plans):
        start = start + _along((np.arange(p.out, dtype=np.int64) * p.stride - p.pad_begin) * mult[i], i, n)
    return IndexGeometry(mult, start, (None, channels) + tuple(lengths))


def _divisor(spec, plans, n):
    if spec.count == "include_openvino" and any(p.pad_begin or p.pad_end for p in plans):
        return np.asarray(float(math.prod(spec.kernel)))
    clip = spec.count == "include_onnx"
    div = np.ones((1,) * (n + 2))
    for i, p in enumerate(plans):
        div = div * _along(_counts(p, clip).astype(np.float64), i, n)
    if spec.count == "exclude_onnx":
        div = np.maximum(div, 1.0)          # an empty window sums to 0: 0 / 1
    return div
