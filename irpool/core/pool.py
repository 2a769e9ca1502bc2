"""Execute a PoolSpec on a numpy array: max (with indices), average, Lp.

The input is handled a chunk of planes at a time (planes: N*C, or N for channels-last), small enough to
stay in cache and independent, so chunks run on threads (numpy releases the GIL in its loops). Each
chunk is copied once into a phase buffer (`layout.py`) where every kernel tap is one contiguous slice,
so a tap costs one numpy call over the whole chunk. Axes are reduced one at a time, last first, when
that takes fewer element operations than all taps at once (it does for stride 1, not for 2x2 s2).
Padding never reaches a result: padded cells hold the identity (lowest value, or 0 for sums).

Max follows OpenVINO's CPU plugin: start from the lowest finite value of the compute type (float16 is
computed in float32, so its empty window is -inf) with the window's (n, c) base index, take a tap only
when it is strictly greater (ties keep the first tap in row-major kernel order, NaN never wins). The
values come from np.maximum over the taps, in the order that keeps the first of tied -0.0 and +0.0 under
numpy's rule for such ties, probed on this machine (ties.py); the index is the first tap equal to that
maximum, if it is above lowest. A chunk where NaN won a window (np.maximum lets it), or a machine whose numpy
has no fixed rule, is pooled by fmax instead, which skips NaN and whose choice between tied zeros is the CPU's:
its windows whose maximum is zero then take the sign of their first zero tap (`_zero_signs`). Either way the
value is the element the index points at, on every machine.

Sums (average, Lp) add the taps one at a time in row-major kernel order, starting from +0.0, as the
plugin and onnxruntime do (measured bit for bit): so they are never split by axis, and an all -0.0 window
averages to +0.0. A spec with sum_order="any" (ReduceMean, whose plugin order follows its layout and the
vector width) lets a one-window sum be numpy's pairwise one.

An integer average is the CPU plugin's too: a float32 average rounded half to even (measured: the mean
of 3 and 4 is 4, of -1 and 0 is 0, of 254 and 255 is 254). It is exact while sums stay below 2**24;
past that the plugin's own float32 summation order decides the last bits.
"""
from __future__ import annotations

import functools
import itertools
import math
import os
import threading
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import IRError
from .direct import (Direct, buffers as direct_buffers, edges as direct_edges, in_place as direct_in_place,
                     offsets as direct_offsets, pick as direct_pick, reduce_axis as direct_reduce_axis,
                     takes as direct_takes)
from .layout import OPAQUE_MIN_ELEMENTS, OPAQUE_ROW_BYTES, Layout, axis_layout, copy_rows, fold, inside_range, word_copy
from .shape import AxisPlan, plan
from .spec import PoolSpec
from .ties import first_wins, keeps as tie_keeps

MAX_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "uint8", "int16",
                                         "uint16", "int32", "uint32", "int64", "uint64"))
FLOAT_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64"))
CHUNK_BYTES = 1 << 20           # phase buffer per chunk: about half this machine's L2
# Threads contend for the GIL at every numpy call (measured: with 256 KB chunks, 2 threads took 3x
# as long as 1), so each thread takes a run of neighbouring chunks, the calling thread takes one run
# itself, and inputs under 4 MB stay on it alone. (On the 3.2 MB stem case two threads took 0.71-0.79 ms
# with a pool thread per run, against 0.45 ms on one thread; with the calling thread working, 0.34-0.45 ms
# with a chunk each and 0.45-0.67 ms with two each, the most the memory bound below allows: no gain.)
# Chunks of 1 MB on threads too: against 2 MB, S3D's 3x3x3 s2 on 1x480x8x28x28 took 0.74-0.82 of the time
# and its 1x3x3 s1x2x2 on 1x64x8x112x112 0.80; 512 KB was slower on every case (two threads, AMD EPYC).
THREAD_CHUNK_BYTES = 1 << 20
PARALLEL_BYTES = 4 << 20
KEEP_WORKSPACES, KEEP_BYTES = 8, 32 << 20     # workspaces kept between calls: at most this many and bytes
WORD_COPY_BYTES = 32 << 10      # word-wide copies pay off on chunks this large; below, their set-up costs more
# Below this, the direct path's Python costs more than the phase buffer's copy saves (a 1x1x4x4 2x2 s2
# max pool: 24.5 us direct, 12.7 us through the phase buffer)
DIRECT_BYTES = 256 << 10
# The last axis reduced first where its windows overlap (see _Geometry); tests turn it off to compare
PRE_REDUCE = True
# A float max by np.maximum with its taps ordered so that a tie of zeros keeps the first (ties.py), where numpy's
# rule allows; tests turn it off to run the repair below
ORDERED_TIES = True
# The sign of a zero maximum: windows looked up at their positions (every tap of each at once) when fewer than
# 1/GATHER_BELOW of them are open, else whole-array steps (measured, AMD EPYC family 25 model 17, one thread, 2x2 s2
# on 8x128x56x56, positives and zeros of both signs, 6% zero maxima: 4.5 ms at 1/16, 3.5 at 1/32, 3.35 at 1/64 and
# 1/128; the plain run 1.5 ms)
GATHER_BELOW = 64
# ... and straight to every tap at once on codes (_first_zero_codes) when more than 1/CODES_ABOVE are open, else a
# copy of each window's first tap first (same machine and input: 3.4 ms with the first step, 4.6 ms through the
# codes; the 1-D k5 of pool_speed.py 37.6 and 46.5 ms; negatives and zeros of both signs, 94% open: 4.5 ms either
# way)
CODES_ABOVE = 4
_EXECUTORS: dict[int, ThreadPoolExecutor] = {}
_WORKSPACES: OrderedDict = OrderedDict()
_WORKSPACES_LOCK = threading.Lock()


def default_threads() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                      # not on Linux
        return os.cpu_count() or 1


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


def _code_dtype(taps: int) -> np.dtype:
    """The narrowest unsigned type holding tap codes 0..taps."""
    return np.dtype(np.uint8 if taps < 255 else np.uint16 if taps < 65535 else np.uint32)


def _along(vec: np.ndarray, i: int, n: int) -> np.ndarray:
    """`vec` shaped to broadcast along spatial axis i of a (planes, s_1..s_n, q) grid."""
    shape = [1] * (n + 2)
    shape[1 + i] = vec.shape[0]
    return vec.reshape(shape)


def pool(x, spec: PoolSpec, *, indices: bool = False, threads: int | None = None):
    """Pool `x` as `spec` says. Returns the values, or (values, indices) when `indices` is true.

    `threads`: how many chunks run at once (None: every core; 1: this thread only).
    """
    x = np.asarray(x)
    if x.ndim != spec.ndim + 2:
        raise IRError(f"input has rank {x.ndim} but the kernel has {spec.ndim} spatial axes"
                      f" (rank {spec.ndim + 2} expected)")
    if spec.reduction in ("max", "avg"):
        if x.dtype not in MAX_DTYPES:
            raise IRError(f"{spec.reduction} pooling does not take element type {x.dtype}")
    elif x.dtype not in FLOAT_DTYPES:
        raise IRError(f"{spec.reduction} pooling takes float16/32/64, not {x.dtype}")
    if indices and spec.reduction != "max":
        raise IRError("only max pooling has indices")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise IRError(f"threads must be a positive integer or None, got {threads!r}")
    if indices:
        _check_axis(spec, x.ndim)
    return _Run(x, _geometry(spec, x.shape, x.dtype, indices)).execute(threads or default_threads())


def _check_axis(spec, rank):
    if not -rank <= spec.index_axis < rank:
        raise IRError(f"axis {spec.index_axis} is out of range [{-rank}, {rank - 1}] for an input of rank {rank}")


class _Geometry:
    """Everything about a call that follows from the spec, the input's shape and dtype: computed once
    per distinct call (`_geometry` caches it) and shared by every chunk and workspace."""

    def __init__(self, spec: PoolSpec, shape: tuple[int, ...], dtype: np.dtype, want_indices: bool):
        self.spec, self.want_indices = spec, want_indices
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
        self.axes = tuple(axis_layout(p) for p in plans)
        if spec.reduction == "max":
            self.ctype = np.dtype(np.float32) if dtype == np.float16 else dtype
            self.identity = _lowest(dtype)
        else:
            self.ctype, self.identity = _accumulator(dtype), 0
        # One window per axis (global pools, a 7x7 pool of a 7x7 input): reduce its part of the input at once.
        # In the phase buffer every tap would be a whole-plane slice kept for that one output (measured
        # 38 ms against numpy's 0.04 ms for 16x224x224). Indices keep the tap path.
        self.window = None
        if not want_indices and all(p.out == 1 and a.taps for p, a in zip(plans, self.axes)):
            self.window = tuple(slice(a.taps[0][0] * p.dilation - p.pad_begin,
                                      a.taps[-1][0] * p.dilation - p.pad_begin + 1, p.dilation)
                                for p, a in zip(plans, self.axes))
        # Without a phase buffer (direct.py): channels-first max without indices, computed in the input's own
        # type, where _use_direct says it pays
        self.direct = (not want_indices and self.window is None and not last and spec.reduction == "max"
                       and self.ctype == dtype and math.prod(shape) * dtype.itemsize >= DIRECT_BYTES
                       and direct_takes(plans) and _use_direct(plans))
        # A max whose last axis has overlapping windows (kernel > stride > 1): that axis is reduced first, at
        # every position of the flat chunk (contiguous calls, no rows: the window starting at i - pad_begin at
        # position i), and the phase buffer then holds only the positions windows start at: for 3x3 s2 two phase
        # blocks instead of four, the fill's rows halved and the last axis's pass gone. Windows reaching into
        # the padding are redone from their landing taps (pre_edges). Measured, one thread: 0.66-0.88 of the
        # time on 3x3 s2 layers of Inception, SqueezeNet and AlexNet.
        self.pre_offsets = self.pre_edges = None
        p = plans[-1]
        if PRE_REDUCE and spec.reduction == "max" and spec.max_start == "lowest" and not want_indices \
                and self.window is None and not self.direct and not last and p.kernel > p.stride > 1 \
                and direct_takes((p,)):
            self.pre_offsets = tuple(direct_offsets(p))
            self.pre_edges = direct_edges(p)        # (position c holds the window starting at c - pb)
            self.axes = self.axes[:-1] + (axis_layout(replace(p, kernel=1, pad_begin=0, pad_end=0)),)
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
            self.mult, self.start, self.nc_shape = _index_geometry(spec, plans, channels)


def _use_direct(plans) -> bool:
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
def _geometry(spec, shape, dtype, want_indices) -> _Geometry:
    return _Geometry(spec, shape, dtype, want_indices)


class _Run:
    """One pooling call: the (planes, spatial, q) views of its input and outputs, over a _Geometry."""

    def __init__(self, x, g: _Geometry):
        self.g = g
        self.x = np.ascontiguousarray(x.reshape(g.x_shape))
        self.root, self.offset = self.x, 0      # the array that owns x's memory, and x's place in it
        if self.x.nbytes >= WORD_COPY_BYTES:    # (only the word-wide copies read it: not worth a small call)
            while isinstance(self.root.base, np.ndarray):
                self.root = self.root.base
            self.offset = self.x.__array_interface__["data"][0] - self.root.__array_interface__["data"][0]
            if not self.root.flags.c_contiguous:
                self.root, self.offset = self.x, 0
        self.values = np.empty(g.out_shape, dtype=x.dtype)
        self.v = self.values.reshape(g.v_shape)
        # "first" (onnxruntime) differs from "lowest" only for a window whose first tap is NaN or
        # not above the lowest value; without such elements the cheaper "lowest" passes are exact
        self.exact_first = g.spec.reduction == "max" and g.spec.max_start == "first" and x.size > 0 \
            and not x.min() > g.identity         # (a NaN minimum is not above it either)
        # a float max over taps: np.maximum in tap order keeps each window's first zero (ties.py) where one of its
        # operands always wins a tie of zeros in both types it runs in; a chunk with NaN is pooled again by fmax
        self.ordered = ORDERED_TIES and g.spec.reduction == "max" and g.ctype.kind == "f" and not self.exact_first \
            and g.window is None and None not in (tie_keeps(x.dtype), tie_keeps(g.ctype))
        if self.ordered and self.x.size:    # NaN in a sample of about 4096 elements: fmax from the start
            self.ordered = not np.isnan(self.x.reshape(-1)[::max(61, self.x.size // 4096)]).any()
        if g.want_indices:
            self.indices = np.empty(g.i_shape, dtype=g.spec.index_dtype)
            if g.spec.layout == "channels_last":
                self.i = self.indices.transpose((0,) + tuple(range(2, g.spec.ndim + 2)) + (1,))
            else:
                self.i = self.indices.reshape(g.v_shape)

    def execute(self, threads: int):
        if self.values.size:
            per_plane = (math.prod(len(a.residues) * a.m for a in self.g.axes) * self.g.q
                         * max(self.g.ctype.itemsize, 8 if self.g.want_indices else 1))
            if (self.g.window is not None or self.g.direct) and not self.exact_first:
                per_plane = math.prod(self.x.shape[1:]) * self.g.ctype.itemsize
            parallel = threads > 1 and self.x.nbytes >= PARALLEL_BYTES
            # on threads, each thread's chunks are at most half its share of the work: what
            # the workspaces take together stays below the input's size
            size = CHUNK_BYTES
            if self.g.direct and not self.exact_first:
                # the direct path's buffers of a chunk (at most two) stay below input + output together
                size = min(size, (self.x.nbytes + self.values.nbytes) // (direct_buffers(self.g.plans) + 1))
            if parallel:
                size = min(THREAD_CHUNK_BYTES, per_plane * self.g.planes // (2 * threads))
            step = max(1, size // max(per_plane, 1))
            step = -(-self.g.planes // -(-self.g.planes // step))     # chunks of even size: no small last one
            chunks = [(a, min(a + step, self.g.planes)) for a in range(0, self.g.planes, step)]
            if parallel and len(chunks) > 1:
                # each thread takes a run of neighbouring chunks, one after the other: every chunk stays
                # cache-sized, and the threads meet only at the end; the calling thread takes the first run
                # (measured: a pool's wake-up and hand-back cost 20-30 us a call)
                k = min(threads, len(chunks))
                runs = [chunks[len(chunks) * i // k: len(chunks) * (i + 1) // k] for i in range(k)]
                ex = _EXECUTORS.get(k - 1) or _EXECUTORS.setdefault(k - 1, ThreadPoolExecutor(k - 1))
                others = [ex.submit(self._chunks, run) for run in runs[1:]]
                try:
                    self._chunks(runs[0])
                finally:
                    for f in others:
                        f.result()
            else:
                self._chunks(chunks)
        return (self.values, self.indices) if self.g.want_indices else self.values

    def _chunks(self, chunks):
        signs = self.g.spec.reduction == "max" and self.g.ctype.kind == "f" and not self.exact_first
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):   # inf, NaN are results here
            for a, b in chunks:
                ordered = self.ordered
                low = self._pool_chunk(a, b, np.maximum if ordered else np.fmax)
                if ordered and low != low:      # NaN won some window: fmax skips it, and the signs are repaired
                    self.ordered = ordered = False      # (for the chunks after it too: NaN seldom comes alone)
                    low = self._pool_chunk(a, b, np.fmax)
                if signs and not ordered:       # (a chunk at a time: its input and output are still in cache)
                    self._zero_signs(a, b, self.v[a:b], low)

    def _pool_chunk(self, a, b, op):
        """Pools planes a..b, a max by `op` (fmax, or np.maximum: ties.py) where its type is a float; a float max
        returns its smallest maximum before the lowest value fills the empty windows (NaN where NaN won one under
        np.maximum; the zero-sign repair starts from it), else None."""
        if self.g.ctype.kind != "f":
            op = np.maximum
        if self.g.window is not None and not self.exact_first:
            return self._window_chunk(a, b)
        if self.g.direct and not self.exact_first:
            return self._direct_chunk(a, b, op)
        ws = _workspace(self, b - a)
        xs, root, start = self.x[a:b], self.root, self.offset + a * self.x.strides[0]
        if self.g.pre_offsets is not None:
            xs, root, start = ws.pre_reduce(xs, self.g, op), ws.pre, 0
        for dst, src, words in ws.fills:
            if words is not None:
                narrow, wide, shape, strides, offset = words
                try:
                    wide_src = np.ndarray(shape, dtype=wide, buffer=root, strides=strides, offset=start + offset)
                except ValueError:      # the last wide word would reach past the input's end
                    wide_src = None
                if wide_src is not None:
                    np.copyto(narrow, wide_src, casting="unsafe")
                    continue
            copy_rows(dst, xs[src])
        red = self.g.spec.reduction
        if red == "lp":
            _lp_powers(ws.buf, self.g.spec.p)
        for step in ws.passes:
            step(op)
        grid, out, low = ws.result, self.v[a:b], None
        if red == "max":
            if self.g.ctype.kind == "f" and not self.exact_first:
                low = ws.flat_result.min()                  # (contiguous: a faster min)
                if not low >= self.g.identity:
                    np.fmax(grid, self.g.identity, out=grid)  # all-NaN or -inf windows start from lowest
            copy_rows(out, grid)
        elif red == "avg" and out.dtype == grid.dtype:
            copy_rows(out, grid)        # then the contiguous output is divided in place: the grid is strided
            self._finish(out, out)
        else:
            self._finish(grid, out)
        if self.g.want_indices:
            self._write_indices(ws, a, b)
        return low

    def _finish(self, total, out):
        """Sums to averages, in the sums' float type (an integer output rounded half to even first), or
        sums of |x|^p to their p-th root."""
        p = self.g.spec.p
        np.add(total, 0.0, out=total, casting="unsafe")     # the plugin's sums start at +0.0: -0.0 + 0 = +0.0
        if self.g.spec.reduction == "lp":
            if p == 2.0:
                np.sqrt(total, out=out, casting="unsafe")
            else:
                np.power(total, 1.0 / p, out=out, casting="unsafe")
            return
        if out.dtype.kind == "f":
            np.divide(total, self.g.div, out=out, casting="unsafe")
            return
        mean = np.divide(total, self.g.div)
        np.rint(mean, out=mean)
        np.copyto(out, mean, casting="unsafe")

    def _direct_chunk(self, a, b, op):
        """Straight from the input (direct.py), then the same last step as the phase path."""
        out = self.v[a:b]
        _workspace(self, b - a, Direct).chunk(self.x[a:b, ..., 0], out[..., 0], op)
        if self.g.ctype.kind == "f":
            low = out.min()
            if not low >= self.g.identity:
                np.fmax(out, self.g.identity, out=out)      # all-NaN or -inf windows start from lowest
            return low
        return None

    def _window_chunk(self, a, b):
        """One window per axis: a numpy reduction over its part of the input, same identities and divisors."""
        g, red = self.g, self.g.spec.reduction
        view = self.x[(slice(a, b),) + g.window + (slice(None),)]
        axes, out = tuple(range(1, view.ndim - 1)), self.v[a:b]
        if red == "max":
            r = (np.fmax if g.ctype.kind == "f" else np.maximum).reduce(view, axis=axes, keepdims=True)
            if g.ctype.kind == "f":
                np.fmax(r, g.identity, out=r)       # all-NaN or -inf windows: the lowest value, as the taps do
            np.copyto(out, r, casting="unsafe")
            return
        flat = view.reshape(view.shape[0], -1, view.shape[-1]) if view.flags.c_contiguous else \
            np.array(view).reshape(view.shape[0], -1, view.shape[-1])
        if red == "avg" and g.spec.sum_order == "any":     # numpy's pairwise sum, in the sum's type
            self._finish(np.add.reduce(flat, axis=1, dtype=g.ctype).reshape(out.shape), out)
            return
        # one tap after the other in row-major order (numpy's own sum along the contiguous axis adds pairwise):
        # the window's elements as rows of a (taps, planes, q) copy, added row after row (measured 5x faster
        # than a running sum along the taps: 72 against 348 us for 1024 planes of 98)
        rows = np.array(np.moveaxis(flat, 1, 0), dtype=g.ctype, order="C")   # a copy: x is the caller's
        if red == "lp":
            _lp_powers(rows, g.spec.p)
        if rows[0].size == 1:
            # one plane: numpy would reduce along the taps in its inner loop, which adds the first tap to the
            # sum of the others (pairwise from 8); a running sum keeps the order
            self._finish(np.add.accumulate(rows, axis=0)[-1].reshape(out.shape), out)
            return
        self._finish(np.add.reduce(rows, axis=0).reshape(out.shape), out)

    def _zero_signs(self, a, b, out, low=None):
        """Windows of planes a..b whose maximum is zero take the sign of their first zero tap (row-major),
        the element the plugin's strictly-greater scan keeps. Where every maximum of the chunk is zero (inputs
        of zeros), each window's first tap inside the input is copied whole, unmasked, which settles the windows
        it gives a zero. Otherwise only where the chunk holds both -0.0 and +0.0 (else each zero already has the
        one sign there is: _both_zero_signs). The windows open are then looked up at their positions where they are
        few (GATHER_BELOW); where they are not many (CODES_ABOVE), their first taps go first (_first_tap_signs) and
        what is left is looked up when few; the rest goes through _first_zero_codes, every tap at once. A window
        over a whole axis takes its first zero by argmax."""
        if low is not None and low > 0:     # (the pool's smallest maximum: none is zero)
            return
        flat = out.reshape(-1)
        is_open = flat == 0         # (the windows still open; count_nonzero of floats is 4x slower, numpy 2.4)
        if low != 0 and not is_open.any():
            return
        # every maximum zero: then open windows hold a tap's value, not a zero (not where the smallest is below)
        copied = self.g.window is None and not low < 0 and is_open.all()
        xs, plans, size = self.x[a:b], self.g.plans, flat.size
        if copied:
            for v, o in _box_views(xs, _first_tap_boxes(plans), out):
                _copy_taps(o, v, self.root)
            if flat.min() == 0:                 # (no first tap below zero or NaN: none still open)
                return
            np.not_equal(flat, 0, out=is_open)
        if not copied and not _both_zero_signs(xs, flat[is_open.argmax()]):
            return
        if self.g.window is not None:                   # one window an axis: the first zero of each plane
            view = np.asarray(self.x[(slice(a, b),) + self.g.window + (slice(None),)])
            rows = np.moveaxis(view, -1, 1).reshape(view.shape[0], view.shape[-1], -1)
            first = np.argmax(rows == 0, axis=2)[..., None]
            negative = np.signbit(np.take_along_axis(rows, first, axis=2))[..., 0]
            negative = negative.reshape(out.shape[0], *([1] * (out.ndim - 2)), out.shape[-1])
            _set_zero_signs(flat, is_open, np.broadcast_to(negative, out.shape).reshape(-1))
            return
        left = np.count_nonzero(is_open)
        if not copied and GATHER_BELOW * left >= size and CODES_ABOVE * left <= size:
            left, copied = self._first_tap_signs(xs, out, is_open), True    # (not many open: first taps first)
            if not left:
                return
        if left * GATHER_BELOW < size:                  # (few open: at their positions)
            self._gather_zero_signs(xs, out, flat, is_open)
            return
        codes = _first_zero_codes(xs, plans)            # every tap at once, on codes
        if codes is not None:
            _set_zero_signs(flat, is_open, codes.reshape(-1) == 2, reset=copied)
            return
        _scan_zero_taps(xs, out, is_open.reshape(out.shape), _tap_boxes(plans))   # (an axis of over 40 taps)

    def _first_tap_signs(self, xs, out, is_open) -> int:
        """The open windows take their first tap inside the input, copied whole into a scratch array first (a
        masked copy of strided taps was 3x slower): those it gives a zero close. Returns how many stay open (the
        first tap below zero, or NaN: they now hold it)."""
        first = np.empty_like(out)
        for v, o in _box_views(xs, _first_tap_boxes(self.g.plans), first):
            _copy_taps(o, v, self.root)
        np.copyto(out, first, where=is_open.reshape(out.shape))
        is_open &= first.reshape(-1) != 0
        return np.count_nonzero(is_open)

    def _gather_zero_signs(self, xs, out, flat, is_open):
        """The first zero tap's sign of the few windows whose maximum is zero, read at their positions only: each
        window's taps in row-major order as a row of flat input indices (a tap in the padding marked), taken at
        once, the first zero of each row found by argmax (cheaper than whole-array steps when they are few, and
        than a numpy call per tap: 20 calls in all)."""
        zero = np.flatnonzero(is_open)     # (after the checks: finding them costs 16 ns each)
        pos = np.unravel_index(zero, out.shape)
        src, steps = xs.reshape(-1), [s // xs.itemsize for s in xs.strides]
        tables = _tap_coordinates(self.g.plans)
        batch = max(1, (1 << 20) // tables[0].shape[1])   # (a row per window: at most a million taps at a time)
        for lo in range(0, zero.size, batch):
            at = slice(lo, lo + batch)
            index = (pos[0][at] * steps[0] + pos[-1][at] * steps[-1])[:, None]
            inside = None
            for i, table in enumerate(tables):
                c = table[pos[1 + i][at]]                 # (windows, taps): the input coordinate, -1 outside
                index = index + c * steps[1 + i]
                inside = c >= 0 if inside is None else inside & (c >= 0)
            v = src.take(index, mode="clip")              # (a tap outside reads some element: never used)
            hit = v == 0
            hit &= inside
            first = hit.argmax(axis=1)[:, None]
            negative = np.signbit(np.take_along_axis(v, first, axis=1))[:, 0]
            flat[zero[at]] = np.where(negative, -0.0, 0.0)

    def _write_indices(self, ws, a, b):
        """Flat NC-first input index: (n*C + c)*plane + window start + winning tap's offset.

        table[code] + start + the chunk's own (n*C + c)*plane is below that plane offset exactly when
        no tap won (table[0] is very negative), and the maximum with it gives the base index then."""
        flat = np.take(ws.table, ws.code, out=ws.flat)
        flat += ws.base
        np.maximum(flat, ws.nc, out=flat)
        if a:
            flat += a * ws.per_plane
        axis = self.g.spec.index_axis % (len(self.g.plans) + 2)
        if axis != 0:
            flat %= math.prod(self.g.nc_shape[axis:])
        np.copyto(self.i[a:b], flat, casting="unsafe")


@functools.lru_cache(maxsize=64)
def _first_tap_boxes(plans) -> tuple:
    """The windows grouped by their first tap inside the input, as output ranges (first output, end, that tap's
    first input position, stride) per axis: on each axis every window starting in the begin padding alone, then
    all the windows starting inside. Windows with no tap inside (their maximum is never zero) are in none."""
    def axis(p):
        lo, hi = inside_range(p, -p.pad_begin, p.out)        # the windows that start inside
        ranges = []
        for o in range(min(lo, p.out)):
            t = -(-(p.pad_begin - o * p.stride) // p.dilation)
            at = o * p.stride - p.pad_begin + t * p.dilation
            if t < p.kernel and at < p.length:
                ranges.append((o, o + 1, at, p.stride))
        if lo < hi:
            ranges.append((lo, hi, lo * p.stride - p.pad_begin, p.stride))
        return ranges
    return tuple(itertools.product(*(axis(p) for p in plans)))


@functools.lru_cache(maxsize=64)
def _tap_boxes(plans) -> tuple:
    """Every tap in row-major order, each as the output ranges (one per axis) of the windows it falls inside."""
    boxes = []
    for tap in itertools.product(*(range(p.kernel) for p in plans)):
        box = []
        for p, t in zip(plans, tap):
            offset = t * p.dilation - p.pad_begin
            lo, hi = inside_range(p, offset, p.out)
            box.append((lo, hi, lo * p.stride + offset, p.stride))
        if all(lo < hi for lo, hi, _, _ in box):
            boxes.append(tuple(box))
    return tuple(boxes)


@functools.lru_cache(maxsize=64)
def _tap_coordinates(plans) -> tuple:
    """Per axis, an (output positions, taps) table: for every tap of the window in row-major order (over all
    axes), its input coordinate along this axis, or -1 where it falls in the padding."""
    tables = []
    for i, p in enumerate(plans):
        t = np.indices([q.kernel for q in plans]).reshape(len(plans), -1)[i]    # each tap's index on this axis
        c = np.arange(p.out)[:, None] * p.stride - p.pad_begin + t[None, :] * p.dilation
        tables.append(np.where((c >= 0) & (c < p.length), c, -1))
    return tuple(tables)


# Per axis, the narrowest integer for taps weighted 3**(k-1-t) (codes 1 and 2: the largest product is 2 * 3**(k-1))
_CODE_TYPES = [(5, np.uint8), (10, np.uint16), (20, np.uint32), (40, np.uint64)]


def _first_zero_codes(xs, plans):
    """Per window: 0 where no tap is a zero, 1 where its first zero tap in row-major order is +0.0, 2 where it is
    -0.0 (None where an axis has over 40 taps). Row-major first is separable: the first zero of a window is in the
    first of its rows (along axis 0) that holds one, first in that row; so each axis is reduced in turn, last
    first, each window of it keeping the code of its first tap whose code is not 0. That is a max over the taps
    when tap t weighs 3**(k-1-t): a code at an earlier tap outweighs any later one, and the winner's code reads
    back from the product's parity (1 * 3**j is odd, 2 * 3**j even). As direct.py reduces: each tap is one
    contiguous call over the flat array at every position of the axis (calls over rows of a view pay for every
    row: 26 against 5 us for 250k bytes), the windows reaching the padding redone from their landing taps, then
    the windows' positions picked. The cost does not depend on the values: neither on how many windows are open
    nor on their taps."""
    if any(p.kernel > _CODE_TYPES[-1][0] for p in plans):
        return None
    zero = xs == 0
    codes = zero.view(np.uint8) + np.logical_and(zero, np.signbit(xs)).view(np.uint8)
    for i in reversed(range(len(plans))):
        p, axis = plans[i], 1 + i
        dtype = next(np.dtype(t) for k, t in _CODE_TYPES if p.kernel <= k)
        span = (p.out - 1) * p.stride + 1               # (positions up to the last window's)
        if span > p.length:                             # a last window starting in the end padding: codes of 0
            grown = list(codes.shape)
            grown[axis] = span
            room = np.zeros(grown, dtype=codes.dtype)
            room[(slice(None),) * axis + (slice(0, p.length),)] = codes
            codes, p = room, replace(p, length=span)
        codes = codes.astype(dtype, copy=False)
        outer, inner = math.prod(codes.shape[:axis]), math.prod(codes.shape[axis + 1:])
        size, src = codes.size, codes.reshape(-1)
        room = np.zeros(size + 8, dtype=dtype)         # (a word of slack: the pick reads words)
        taps = direct_offsets(p, inner)
        lo, hi = max(0, -taps[0]), size - max(0, taps[-1])
        weighted = np.empty(max(hi - lo, 0), dtype=dtype)
        for t, o in enumerate(taps):
            if hi > lo:
                np.multiply(src[lo + o:hi + o], dtype.type(3 ** (p.kernel - 1 - t)), out=weighted)
                np.maximum(room[lo:hi], weighted, out=room[lo:hi])
        rows, best = src.reshape(outer, p.length, inner), room[:size].reshape(outer, p.length, inner)
        for c, landing in direct_edges(p):              # (windows reaching the padding: their landing taps)
            best[:, c] = 0
            for j in landing:
                t = (j - c + p.pad_begin) // p.dilation
                np.maximum(best[:, c], rows[:, j] * dtype.type(3 ** (p.kernel - 1 - t)), out=best[:, c])
        best = best.reshape(codes.shape)
        best = _pick_axis(room, best, axis, p.stride, p.out) if p.stride > 1 or p.out < p.length else best
        odd = np.bitwise_and(best, 1, dtype=np.uint8, casting="unsafe")
        codes = np.not_equal(best, 0).view(np.uint8) * (2 - odd)      # (np.take of byte indices is slower)
    return codes


def _pick_axis(room, best, axis, stride, count):
    """best[..., 0:count * stride:stride, ...] along `axis`, contiguous, by direct.py's pick (the innermost axis
    read as words `stride` elements wide and cast down: a strided call on bytes runs at scalar speed); `room` is
    the buffer best starts, with a word of slack. A trailing axis of one is left out, so that `axis` is the
    innermost."""
    view = best[(slice(None),) * axis + (slice(0, (count - 1) * stride + 1, stride),)]
    picked = np.empty(view.shape, dtype=best.dtype)
    keep = axis + 1 if math.prod(view.shape[axis + 1:]) == 1 else view.ndim
    direct_pick(room, picked.reshape(view.shape[:keep]), view.strides[:keep])
    return picked


def _both_zero_signs(xs, zero) -> bool:
    """Whether the chunk holds both -0.0 and +0.0, given `zero`, one of the zero maxima: a tap's, so the input
    holds its sign, and only the other is looked for (-0.0 alone, ReLU's +0.0 alone: one min over the input). The
    bits of -0.0 are the lowest integer of their width, those of +0.0 the lowest unsigned one; every 61st element
    is looked at first (inputs of both signs show them there)."""
    bits = xs.reshape(-1).view(f"u{xs.itemsize}")
    if np.signbit(zero):
        return any(b.min() == 0 for b in (bits[::61], bits))
    signed = f"i{xs.itemsize}"
    return any(b.view(signed).min() == np.iinfo(signed).min for b in (bits[::61], bits))


def _set_zero_signs(flat, is_zero, negative, reset=False) -> None:
    """flat = -0.0 where `is_zero` and `negative`, +0.0 where `is_zero` alone, in integer steps (a ufunc with
    where= on scattered windows costs 4 ns an element, numpy 2.4): each zero's sign bit flipped where it differs;
    `reset`: those windows may hold a tap's value (after the first taps were copied whole), cleared first."""
    bits = flat.view(f"u{flat.itemsize}")
    if reset:
        keep = is_zero.astype(bits.dtype)
        keep -= 1                               # (0 where the window is set, every bit elsewhere)
        bits &= keep
    flip = np.not_equal(np.signbit(flat), negative)
    flip &= is_zero
    flipped = flip.astype(bits.dtype)
    flipped <<= 8 * flat.itemsize - 1
    bits ^= flipped


def _copy_taps(dst, src, root):
    """dst = src, src a view of the input (whose memory `root` owns), bit for bit: where src steps a word along
    its last axis, read as words and cast down (direct.py's pick); where rows are long and contiguous an integer
    ufunc's (copyto's memcpy of rows out of step with the source's alignment was 10x slower, and float32
    positive 2.6x: 1 MB of rows shifted by 8 bytes, in cache, 301 and 81 us against 31 us for bitwise_or with 0,
    AMD EPYC family 25 model 17), and copy_rows where they are short."""
    if src.strides[-1:] != (src.itemsize,):
        offset = src.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        if src.size >= OPAQUE_MIN_ELEMENTS and 0 <= offset and root.flags.c_contiguous \
                and word_copy(dst, src.shape, src.strides, src.itemsize):
            direct_pick(root.reshape(-1)[offset // src.itemsize:], dst, src.strides)
        else:
            np.copyto(dst, src)
    elif src.shape[-1] * src.itemsize > OPAQUE_ROW_BYTES:
        bits = f"u{src.itemsize}"
        np.bitwise_or(src.view(bits), 0, out=dst.view(bits))
    else:
        copy_rows(dst, src)


def _box_views(xs, boxes, *outs):
    """Per box: the tap's elements (a strided view of the chunk's input), then the windows it falls in (a view of
    each array in `outs`, shaped as the output). Without a trailing axis of one: numpy's inner loops then run
    along the last spatial axis."""
    for taps, windows in _box_indices(boxes, xs.shape[-1] > 1):
        yield (xs[taps], *(o[windows] for o in outs))


@functools.lru_cache(maxsize=128)
def _box_indices(boxes, tail: bool) -> tuple:
    """_box_views' indices, made once per geometry (building them cost 3 us a box, per chunk)."""
    end = (slice(None),) if tail else (0,)
    return tuple(((slice(None),) + tuple(slice(at, at + (hi - lo - 1) * s + 1, s) for lo, hi, at, s in box) + end,
                  (slice(None),) + tuple(slice(lo, hi) for lo, hi, _, _ in box) + end) for box in boxes)


def _scan_zero_taps(xs, out, todo, boxes) -> None:
    """For each box (a tap's windows) in order: the open windows (`todo`) take the tap's value, and those it
    gave a zero (with its sign) close. An open window holds a negative value or NaN between taps, until a
    later tap gives it its first zero: every open window has one."""
    for v, o, open_ in _box_views(xs, boxes, out, todo):
        np.copyto(o, v, where=open_)
        np.greater(open_, o == 0, out=open_)    # (open and not now zero: still open)


def _lp_powers(a: np.ndarray, p: float) -> None:
    """|a|^p in place: what an Lp window sums."""
    if p == 2.0:
        np.square(a, out=a)
    else:
        np.abs(a, out=a)
        if p != 1.0:
            np.power(a, p, out=a)


def _index_geometry(spec, plans, channels):
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
    return mult, start, (None, channels) + tuple(lengths)


def release_workspaces() -> None:
    """Free the cached workspaces (at most KEEP_BYTES, 32 MB) and geometries."""
    with _WORKSPACES_LOCK:
        _WORKSPACES.clear()
    _geometry.cache_clear()


def _workspace(run: _Run, planes: int, kind=None):
    """This thread's workspace (a _Workspace, or `kind`) for chunks of `planes` planes of this geometry:
    from the cache, or new.

    Kept between calls (at most KEEP_WORKSPACES and KEEP_BYTES): allocating megabytes anew on every
    call costs page faults that, measured, took longer than the pooling itself."""
    key = (threading.get_ident(), planes, run.g, run.exact_first, kind)
    with _WORKSPACES_LOCK:
        ws = _WORKSPACES.get(key)
        if ws is not None:
            _WORKSPACES.move_to_end(key)
            return ws
    ws = _Workspace(run, planes) if kind is None else kind(run.g, planes)
    with _WORKSPACES_LOCK:
        _WORKSPACES[key] = ws
        while len(_WORKSPACES) > 1 and (len(_WORKSPACES) > KEEP_WORKSPACES
                                        or sum(w.nbytes for w in _WORKSPACES.values()) > KEEP_BYTES):
            _WORKSPACES.popitem(last=False)
    return ws


class _Workspace:
    """One thread's buffers for chunks of `planes` planes, with every numpy view a chunk needs made once.

    Keyed by the _Geometry (and thread, planes): a workspace reads only the geometry from `run`, and
    the input's strides, which follow from the geometry because the input is made C-contiguous.

    The phase buffer starts as the identity and only input cells are ever written, so padding stays
    padding from chunk to chunk. `passes` are closures, each a handful of numpy calls over whole blocks.
    """

    def __init__(self, run: _Run, planes: int):
        lay = self.lay = Layout(run.g.axes, planes, run.g.q)
        z, slack = lay.z, lay.slack
        self.buf = np.full(lay.blocks * z + slack, run.g.identity, dtype=run.g.ctype)
        plan_ = lay.fill_plan()
        # channels-first planes have q = 1: drop that axis so a strided spatial axis is the last one
        drop = (0,) if lay.q == 1 else ()
        self.fills = []
        x = run.x[:planes]
        for combo, dst, src in plan_:
            dst_view, src_view = lay.block_view(self.buf, combo)[dst + drop], x[src + drop]
            words = None
            if run.g.ctype == run.x.dtype and x.nbytes >= WORD_COPY_BYTES:
                how = word_copy(dst_view, src_view.shape, src_view.strides, src_view.itemsize)
                if how is not None:
                    offset = src_view.__array_interface__["data"][0] - x.__array_interface__["data"][0]
                    words = how + (src_view.shape, src_view.strides, offset)
            self.fills.append((dst_view, src + drop, words))
        if run.g.pre_offsets is not None:     # the chunk, its last axis reduced; a word of slack for word reads
            self.pre = np.empty(x.size + 8, dtype=x.dtype)
        self.passes = []
        n = len(run.g.axes)
        if run.exact_first:
            inside = np.zeros(self.buf.shape, dtype=bool)
            for combo, dst, _ in plan_:
                lay.block_view(inside, combo)[dst] = True
            res, code = self._first(run, inside)
        else:
            res, code = self.buf, None
            for group in ([(i,) for i in reversed(range(n))] if run.g.separable else [tuple(range(n))]):
                res = self._pass(run, res, group)
            if run.g.want_indices:
                code = self._winners(run, res[:z])
        self.result, self.flat_result = lay.grid(res), res[:z]
        self.nbytes = self.buf.nbytes * (3 if run.g.want_indices else 2)    # buffer, passes, winners: roughly
        if run.g.want_indices:
            self.code = lay.grid(code)
            self._index_tables(run.g, run.x.size, planes)

    def pre_reduce(self, xs: np.ndarray, g: _Geometry, op) -> np.ndarray:
        """xs (a chunk) with its last axis reduced at every position: position i of a row holds the maximum of
        the window starting at i - pad_begin. Computed on the flat chunk, where a window near a row's end reads
        into the next row; the windows the phase buffer picks that reach the padding are then redone from their
        landing taps, a strided call each (no window is picked anywhere else such a read lands)."""
        shape = (-1, g.plans[-1].length, 1)         # (channels-first: the last axis of xs is q = 1)
        direct_reduce_axis(op, xs.reshape(-1), self.pre, xs.size, g.pre_offsets, shape, g.pre_edges, g.identity)
        return self.pre[:xs.size].reshape(xs.shape)

    def _index_tables(self, g: _Geometry, size: int, planes: int):
        """What turns tap codes into flat indices for a chunk of `planes` planes starting at plane 0.

        table[k - t] is the t-th landing tap's (row-major) offset from the window start in flat input
        elements; table[0] (no winner) is so negative that start + it stays below 0."""
        n, lay = len(g.axes), self.lay
        offsets = [sum(t * g.plans[i].dilation * g.mult[i] for i, t in enumerate(ts))
                   for ts, _, _ in lay.taps(tuple(range(n)))]
        plane = math.prod(p.length for p in g.plans)
        # int32 when every index and window start fits with room: half the bytes to move
        small = size < 2 ** 30 and int(g.start.min()) > -(2 ** 29)
        itype = np.dtype(np.int32 if small else np.int64)
        self.table = np.array([-(2 ** 30 if small else 2 ** 62)] + offsets[::-1], dtype=itype)
        p_ = np.arange(planes, dtype=itype).reshape((planes,) + (1,) * (n + 1))
        if g.spec.layout == "channels_last":
            self.nc = (p_ * lay.q + np.arange(lay.q, dtype=itype)) * plane
        else:
            self.nc = p_ * plane
        self.per_plane = plane * lay.q
        self.base = (g.start.astype(itype) + self.nc).astype(itype)
        self.flat = np.empty(self.result.shape, dtype=itype)

    def _views(self, src, group, lead):
        """A (lead, Z) view of src per landing tap of the axes in `group`, in row-major tap order.

        src holds (lead, blocks of the group's axes, Z) + slack; every view stays inside it."""
        z = self.lay.z
        gblocks = math.prod(len(self.lay.axes[i].residues) for i in group)
        return [as_strided(src[block * z + shift:], shape=(lead, z), strides=(gblocks * z * src.itemsize, src.itemsize))
                for _, block, shift in self.lay.taps(group)]

    def _pass(self, run, src, group):
        """Reduce the trailing phase axes in `group`: a (lead blocks of Z + slack) result."""
        z, slack = self.lay.z, self.lay.slack
        lead = math.prod(len(a.residues) for a in self.lay.axes[:group[0]])
        res = np.full(lead * z + slack, run.g.identity, dtype=src.dtype)
        r2 = res[:lead * z].reshape(lead, z)
        vs = self._views(src, group, lead)
        # a max by the chunk's op, its taps in the order that keeps the first of tied zeros (ties.py); a result
        # below lowest is lifted to lowest at the very end
        add = run.g.spec.reduction != "max"
        vs = vs if add else first_wins(vs, src.dtype)
        identity = run.g.identity             # (closures keep no reference to the run and its arrays)

        def step(op):                       # (no tap of these axes lands anywhere: every window is empty)
            fold(np.add if add else op, vs, r2, identity)
        self.passes.append(step)
        return res

    def _winners(self, run, best):
        """Which tap won each window: the first one (row-major) equal to the maximum, if that is above
        lowest. Blends, not masked writes: numpy's masked loops cost 4 ns an element on random masks."""
        views = [v[0] for v in self._views(self.buf, tuple(range(len(run.g.axes))), 1)]
        k = len(views)
        cdt = _code_dtype(k)
        z = self.lay.z
        code, mark, eq = np.empty(z, dtype=cdt), np.empty(z, dtype=cdt), np.empty(z, dtype=bool)
        identity = run.g.identity

        def step(op):
            code.fill(0)
            for t, v in enumerate(views):       # the earliest tap gets the largest code: max keeps it
                np.equal(v, best, out=eq)
                np.multiply(eq.view(np.uint8), cdt.type(k - t), out=mark)
                np.maximum(code, mark, out=code)
            np.greater(best, identity, out=eq)   # nothing beat lowest: no winner
            np.multiply(code, eq.view(np.uint8), out=code)
        self.passes.append(step)
        return code

    def _first(self, run, inside):
        """onnxruntime's max: a window's first tap inside the input starts it, a later tap must be greater."""
        z = self.lay.z
        res = np.empty(z, dtype=self.buf.dtype)
        group = tuple(range(len(run.g.axes)))
        views = [(v[0], ins[0]) for v, ins in zip(self._views(self.buf, group, 1), self._views(inside, group, 1))]
        k = len(views)
        code = np.empty(z, dtype=_code_dtype(k))
        filled, take = np.empty(z, dtype=bool), np.empty(z, dtype=bool)
        identity = run.g.identity

        def step(op):
            res.fill(identity)
            filled.fill(False)
            code.fill(0)
            for t, (v, ins) in enumerate(views):
                np.greater(v, res, out=take)
                np.logical_or(take, ~filled, out=take)
                np.logical_and(take, ins, out=take)
                np.copyto(res, v, where=take)
                np.copyto(code, k - t, where=take)
                np.logical_or(filled, ins, out=filled)
        self.passes.append(step)
        return res, code


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
