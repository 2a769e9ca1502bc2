"""Max pooling straight from the input, with no phase buffer: the second way the core runs.

For windows that all lie inside the input (no padding read). Each spatial axis is reduced on the flat chunk
at EVERY position, one contiguous numpy call per tap (a tap is a shift of the whole flat array by its offset
times the axis's inner block), and the windows' starts are then picked out in one strided copy, the last axis
read as wide words and cast down where its stride allows (layout.word_copy). Near the end of a plane a position
mixes in the next plane, but no window starts there: a window that starts inside and ends inside reads only its
own plane.

numpy runs contiguous calls at memory speed, while a call over a strided view with rows shorter than its buffer
(8192 elements) goes through that buffer, about four times slower per element, and a strided copy pays for
every short row. Here every tap is one contiguous call over the chunk and there is one strided copy. Against the
phase buffer, one thread (AMD EPYC, numpy 2.4): 2x2 s2 0.81-0.86, 2x2x2 s2 on 1x832x4x14x14 0.57; overlapping
windows compute every position k - 1 times per axis, and lose (pool._use_direct says which run here).

Max only, without indices (a sum's bits depend on the order of its additions; indices need the winning tap),
channels-first.
"""
from __future__ import annotations

import math

import numpy as np

from .layout import copy_rows, fold, word_copy


def takes(plans) -> bool:
    """Whether every window lies inside the input on every axis: no padding read."""
    return all(p.out and p.pad_begin == 0 and (p.out - 1) * p.stride + (p.kernel - 1) * p.dilation < p.length
               for p in plans)


class Direct:
    """One thread's two buffers for chunks of `planes` planes of one geometry, and each axis's taps as flat
    offsets (worked out once, here)."""

    def __init__(self, g, planes: int):
        self.g = g
        self.op = np.fmax if g.ctype.kind == "f" else np.maximum
        lengths = [p.length for p in g.plans]
        n = planes * math.prod(lengths)
        self.bufs = (np.empty(n + 8, dtype=g.ctype), np.empty(n + 8, dtype=g.ctype))   # (+ a word for word reads)
        self.nbytes = sum(b.nbytes for b in self.bufs)
        self.taps = [[t * p.dilation * math.prod(lengths[a + 1:]) for t in range(p.kernel)]
                     for a, p in enumerate(g.plans) if p.kernel > 1]
        item = g.ctype.itemsize
        self.steps = (math.prod(lengths) * item,) + tuple(p.stride * math.prod(lengths[a + 1:]) * item
                                                          for a, p in enumerate(g.plans))

    def chunk(self, xs: np.ndarray, out: np.ndarray) -> None:
        """Reduce xs (m, S_1..S_n), C-contiguous, into out (m, O_1..O_n)."""
        cur, valid, k = xs.reshape(-1), xs.size, 0
        for offsets in self.taps:
            valid -= offsets[-1]                 # positions whose taps all lie in the chunk
            fold(self.op, [cur[o:o + valid] for o in offsets], self.bufs[k][:valid])
            cur, k = self.bufs[k], 1 - k
        _pick(cur, out, self.steps)


def _pick(root: np.ndarray, dst: np.ndarray, strides) -> None:
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
