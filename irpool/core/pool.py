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
averages to +0.0. A spec with sum_order="any" (where the order cannot show; the float global ReduceMean runs
in the plugin's own order, core/reduce_order.py) lets a one-window sum be numpy's pairwise one.

An integer average is the CPU plugin's too: a float32 average rounded half to even (measured: the mean
of 3 and 4 is 4, of -1 and 0 is 0, of 254 and 255 is 254). It is exact while sums stay below 2**24;
past that the plugin's own float32 summation order decides the last bits.
"""
from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..errors import IRError
from . import libm, zero_signs
from .direct import Direct, buffers as direct_buffers
from .geometry import Geometry, geometry
from .layout import copy_rows
from .spec import PoolSpec
from .ties import keeps as tie_keeps
from .tuning import current
from .workspace import workspace

MAX_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64", "int8", "uint8", "int16",
                                         "uint16", "int32", "uint32", "int64", "uint64"))
FLOAT_DTYPES = tuple(np.dtype(t) for t in ("float16", "float32", "float64"))
_EXECUTORS: dict[int, ThreadPoolExecutor] = {}


def default_threads() -> int:
    """Every core this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                      # not on Linux
        return os.cpu_count() or 1


def pool(x, spec: PoolSpec, *, indices: bool = False, threads: int | None = None):
    """Pool `x` as `spec` says. Returns the values, or (values, indices) when `indices` is true.

    `threads`: how many chunks run at once (None: every core; 1: this thread only).
    """
    x = np.asarray(x)
    if not isinstance(spec, PoolSpec):
        raise IRError(f"pool takes a PoolSpec, got a {type(spec).__name__}")
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
    return _Run(x, geometry(spec, x.shape, x.dtype, indices, current())).execute(threads or default_threads())


def _check_axis(spec, rank):
    if not -rank <= spec.index_axis < rank:
        raise IRError(f"axis {spec.index_axis} is out of range [{-rank}, {rank - 1}] for an input of rank {rank}")


class _Run:
    """One pooling call: the (planes, spatial, q) views of its input and outputs, over a Geometry."""

    def __init__(self, x, g: Geometry):
        self.g, self.t = g, g.t
        self.x = np.ascontiguousarray(x.reshape(g.x_shape))
        self.root, self.offset = self.x, 0      # the array that owns x's memory, and x's place in it
        if self.x.nbytes >= self.t.word_copy_bytes:    # (only the word-wide copies read it: not worth a small call)
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
        self.ordered = self.t.ordered_ties and g.spec.reduction == "max" and g.ctype.kind == "f" and not self.exact_first \
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
            parallel = threads > 1 and self.x.nbytes >= self.t.parallel_bytes
            # on threads, each thread's chunks are at most half its share of the work: what
            # the workspaces take together stays below the input's size
            size = self.t.chunk_bytes
            if self.g.direct and not self.exact_first:
                # the direct path's buffers of a chunk (at most two) stay below input + output together
                size = min(size, (self.x.nbytes + self.values.nbytes) // (direct_buffers(self.g.plans) + 1))
            if parallel:
                size = min(self.t.thread_chunk_bytes, per_plane * self.g.planes // (2 * threads))
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
                    zero_signs.repair(self, a, b, self.v[a:b], low)

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
        ws = workspace(self, b - a)
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
            _lp_root(total, out, p)
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
        workspace(self, b - a, Direct).chunk(self.x[a:b, ..., 0], out[..., 0], op)
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
            flat %= math.prod(self.g.index.nc_shape[axis:])
        np.copyto(self.i[a:b], flat, casting="unsafe")


def _lp_root(total: np.ndarray, out: np.ndarray, p: float) -> None:
    """The p-th root of each window's sum, as onnxruntime's powf(sum, 1.0f / p) rounds it (pool_base.h
    LpPool::Finalize; libm.py). numpy's own float32 power (SIMD on AVX-512) differed from powf in the last bit in
    12 of 72 windows (p = 3, measured)."""
    if total.dtype == np.float32:       # (p = 2 too: powf(sum, 0.5f) is not always the correctly rounded sqrt)
        np.copyto(out, libm.rooted(total, np.float32(1.0) / np.float32(p)), casting="unsafe")
    elif p == 2.0:                      # (float64 sums: geometry._accumulator)
        np.sqrt(total, out=out, casting="unsafe")
    else:
        np.power(total, 1.0 / p, out=out, casting="unsafe")


def _lp_powers(a: np.ndarray, p: float) -> None:
    """|a|^p in place: what an Lp window sums. onnxruntime raises |x| to its integer p in double precision and
    rounds the power to the input's type (std::pow(float, int64_t), pool_base.h LpPool::Process), twice rounded;
    numpy's float32 power rounds once and differed in the last bit for p = 3 and 4 (measured)."""
    if p == 2.0:
        np.square(a, out=a)             # (a float's square is exact in double: rounded once either way)
        return
    np.abs(a, out=a)
    if p == 1.0:
        return
    if a.dtype == np.float64:           # (sums are float32 or float64: geometry._accumulator)
        np.power(a, p, out=a)
        return
    flat = a.reshape(-1)                # (a view: the buffers are contiguous)
    for i in range(0, flat.size, _LP_BLOCK):      # (the double copy a block at a time: memory stays the chunk's)
        part = flat[i:i + _LP_BLOCK]
        np.copyto(part, np.power(part.astype(np.float64), p), casting="unsafe")


_LP_BLOCK = 1 << 16     # elements raised to p in double precision at a time
