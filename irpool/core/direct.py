"""Max pooling straight from the input, with no phase buffer: the second way the core runs.

Position c of an axis holds the window that starts at c - pad_begin. Each spatial axis is reduced on the flat
chunk at EVERY position, one contiguous numpy call per tap (a tap is a shift of the whole flat array by its
offset times the axis's inner block), and the windows' starts (c = o * stride) are then picked out in one strided
copy, the last axis read as wide words and cast down where its stride allows (layout.word_copy). Near either end
of a row a flat tap reads the neighbouring row (or plane): those positions are exactly the windows that reach
the padding, and each one the pick takes is redone from its landing taps, one call over all the chunk's rows at
that position (`edges`). When every stride is 1 and the output is as long as the input on every axis, the pick
would copy everything: the last axis reduced (axis 0: they go last first) then writes the output itself.

numpy runs contiguous calls at memory speed, while a call over a strided view with rows shorter than its buffer
(8192 elements) goes through that buffer, about four times slower per element, and a strided copy pays for
every short row. Here every tap is one contiguous call over the chunk and there is at most one strided copy,
where the phase buffer's path pays a fill and a final copy row by row. Against the phase buffer, one thread
(AMD EPYC, numpy 2.4): 2x2 s2 0.81-0.86, 2x2x2 s2 on 1x832x4x14x14 0.57, 3x3 s1 p1 0.87-0.97; windows that
overlap with a stride above 1 compute every position k - 1 times per axis, and lose (geometry.use_direct says
which run here).

Max only, without indices (a sum's bits depend on the order of its additions; indices need the winning tap),
channels-first.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .layout import copy_rows, fold, word_copy
from .ties import first_wins


def takes(plans) -> bool:
    """Whether every window starts before the input's end on every axis (position o * stride holds it)."""
    return all(p.out and (p.out - 1) * p.stride < p.length for p in plans)


def offsets(p, inner: int = 1) -> list[int]:
    """An axis's taps as offsets from position c, which holds the window starting at c - pad_begin, in flat
    elements when positions of the axis are `inner` elements apart."""
    return [(t * p.dilation - p.pad_begin) * inner for t in range(p.kernel)]


@functools.lru_cache(maxsize=256)
def edges(p) -> tuple:
    """The positions (o * stride) whose window on this axis reaches the padding, each with its landing
    positions: ((c, [c - pad_begin + t * dilation inside the input, ...]), ...)."""
    out, taps = [], offsets(p)
    for o in range(p.out):
        c = o * p.stride
        if c + taps[0] < 0 or c + taps[-1] >= p.length:
            out.append((c, [c + t for t in taps if 0 <= c + t < p.length]))
    return tuple(out)


def _reduced(plans) -> list[int]:
    """The axes a chunk is reduced along: those with taps to combine, a shift or windows reaching the padding."""
    return [a for a, p in enumerate(plans) if p.kernel > 1 or p.pad_begin or edges(p)]


def in_place(plans) -> bool:
    """Stride 1 and the output as long as the input on every axis: the pick would copy every position, so the
    stages end in the output itself."""
    return all(p.stride == 1 and p.out == p.length for p in plans) and bool(_reduced(plans))


def buffers(plans) -> int:
    """How many chunk-sized buffers a chunk needs: stages alternate between two, or in place between the output
    and one."""
    stages = len(_reduced(plans))
    return min(stages - 1, 1) if in_place(plans) else min(stages, 2)


class Direct:
    """One thread's buffers for chunks of `planes` planes of one geometry, and each axis's taps as flat offsets
    (worked out once, here)."""

    def __init__(self, g, planes: int):
        self.g = g
        lengths = [p.length for p in g.plans]
        n = planes * math.prod(lengths)
        self.bufs = [np.empty(n + 8, dtype=g.ctype) for _ in range(buffers(g.plans))]   # (+ a word for word reads)
        self.nbytes = sum(b.nbytes for b in self.bufs)
        # per reduced axis: (flat tap offsets, the (outer, length, inner) shape of a chunk, its edges)
        self.axes = []
        for a in reversed(_reduced(g.plans)):  # last axis first: the first of tied zeros is row-major's (ties.py)
            p, inner = g.plans[a], math.prod(lengths[a + 1:])
            self.axes.append((offsets(p, inner), (planes * math.prod(lengths[:a]), p.length, inner), edges(p)))
        item = g.ctype.itemsize
        self.steps = (math.prod(lengths) * item,) + tuple(p.stride * math.prod(lengths[a + 1:]) * item
                                                          for a, p in enumerate(g.plans))
        self.in_place, self.identity = in_place(g.plans), g.identity

    def chunk(self, xs: np.ndarray, out: np.ndarray, op) -> None:
        """Reduce xs (m, S_1..S_n), C-contiguous, into out (m, O_1..O_n) by `op` (np.maximum or np.fmax)."""
        cur, size, last = xs.reshape(-1), xs.size, len(self.axes) - 1
        for i, (taps, shape, edge) in enumerate(self.axes):
            if self.in_place:       # (out is a chunk of the C-contiguous output: reshape gives a view of it)
                dst = out.reshape(-1) if (last - i) % 2 == 0 else self.bufs[0]
            else:
                dst = self.bufs[i % 2]
            reduce_axis(op, cur, dst, size, taps, shape, edge, self.identity)
            cur = dst
        if not self.in_place:
            pick(cur, out, self.steps)


def reduce_axis(op, src: np.ndarray, dst: np.ndarray, size: int, offsets, shape, edge, identity) -> None:
    """dst[:size] = op over the taps at `offsets` at every position of the flat chunk src[:size]; then the positions
    in `edge` (as `edges` gives them) redone from their landing taps, over the chunk seen as (outer, length, inner)
    `shape`: one call over every row at that position. The taps go in the order that keeps the first of tied
    zeros (ties.py)."""
    lo, hi = max(0, -offsets[0]), size - max(0, offsets[-1])     # positions whose taps lie in the chunk
    if hi > lo:
        fold(op, first_wins([src[lo + o:hi + o] for o in offsets], src.dtype), dst[lo:hi])
    src, dst = src[:size].reshape(shape), dst[:size].reshape(shape)
    for c, landing in edge:
        fold(op, first_wins([src[:, j] for j in landing], src.dtype), dst[:, c], identity)


def pick(root: np.ndarray, dst: np.ndarray, strides) -> None:
    """dst = the window starts in root (a flat array), `strides` bytes apart along each axis of dst: read as wide
    words and cast down when the last axis steps a word (layout.word_copy), else copied."""
    how = word_copy(dst, dst.shape, strides, dst.itemsize)
    if how is not None:
        narrow, wide = how
        try:
            np.copyto(narrow, np.ndarray(dst.shape, dtype=wide, buffer=root, strides=strides), casting="unsafe")
            return
        except ValueError:                          # the last word would reach past the buffer's end
            pass
    copy_rows(dst, np.ndarray(dst.shape, dtype=dst.dtype, buffer=root, strides=strides))
