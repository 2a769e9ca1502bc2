"""Pooling straight from the input, an axis at a time, with no phase buffer: the second way the core runs.

Every axis but the last is reduced with one numpy call per tap, on a view of the previous result that
steps `stride` along that axis (whole rows or planes at a time). The last axis is reduced at every
position of the row, on the flat array (one contiguous call per tap, crossing row ends); the window
starts are then picked out, as wide words cast down where the stride allows (layout.word_copy), and the
few windows that reach past a row's ends are recomputed from their landing taps.

This skips the phase buffer's copy of the input, but numpy charges a fixed cost for every row a strided
call walks. pool._use_direct sends here only windows that do not overlap, where the copy is all cost:
there it measured 0.53-1.07 of the phase path's time. With overlapping windows it lost (1.1-3.6).

For channels-first max and average without indices, where the compute type is the input's. The
identities and divisors are the phase path's: maxima are the same, sums may differ in the last bit (their
order differs).
"""
from __future__ import annotations

import math

import numpy as np

from .layout import inside_range, word_copy


class Direct:
    """One thread's buffers for chunks of `planes` planes of one geometry, and the taps of each axis
    (worked out once, here)."""

    def __init__(self, g, planes: int):
        self.g = g
        self.op = np.add if g.spec.reduction == "avg" else np.fmax if g.ctype.kind == "f" else np.maximum
        self.fill = 0 if g.spec.reduction == "avg" else g.identity
        shape = [planes] + [p.length for p in g.plans]
        self.stages = []                        # the result of reducing each axis but the last
        for a, p in enumerate(g.plans[:-1]):
            shape[1 + a] = p.out
            self.stages.append(np.empty(tuple(shape), dtype=g.ctype))
        # the last axis at every position, flat, after `margin` cells that a window start before the input
        # (padding) may point at: picked with the rest, and then recomputed as an edge window
        self.margin = g.plans[-1].pad_begin
        self.zbuf = np.empty(self.margin + math.prod(shape), dtype=g.ctype)
        self.nbytes = sum(b.nbytes for b in self.stages) + self.zbuf.nbytes
        # per axis but the last, each landing tap: (first output, end output, the slice of the axis it reads)
        self.taps = []
        for p in g.plans[:-1]:
            taps = []
            for t in range(p.kernel):
                off = t * p.dilation - p.pad_begin
                lo, hi = inside_range(p, off, p.out)
                if hi > lo:
                    taps.append((lo, hi, slice(lo * p.stride + off, (hi - 1) * p.stride + off + 1, p.stride)))
            self.taps.append(taps)
        # the last axis: each tap's offset from its window's start, and the windows with every tap inside
        p = g.plans[-1]
        self.offs = [t * p.dilation - p.pad_begin for t in range(p.kernel)]
        self.lo = -(min(self.offs) // p.stride) if min(self.offs) < 0 else 0
        last = p.length - 1 - max(self.offs)
        self.hi = min(p.out, last // p.stride + 1) if last >= 0 else 0

    def chunk(self, xs: np.ndarray, out: np.ndarray) -> None:
        """Reduce xs (m, S_1..S_n) into out (m, O_1..O_n): sums for an average, maxima for max."""
        m, src = xs.shape[0], xs
        for a, stage in enumerate(self.stages):
            dst = stage[:m]
            self._axis(src, dst, a)
            src = dst
        self._last(src, out)

    def _axis(self, src, dst, a: int) -> None:
        p, lead, op = self.g.plans[a], (slice(None),) * (1 + a), self.op
        taps = [(lo, hi, src[lead + (axis,)]) for lo, hi, axis in self.taps[a]]
        whole = [i for i, (lo, hi, _) in enumerate(taps) if lo == 0 and hi == p.out][:2]
        if len(whole) == 2:
            op(taps[whole[0]][2], taps[whole[1]][2], out=dst)
        elif whole:
            np.copyto(dst, taps[whole[0]][2])
        else:
            dst.fill(self.fill)
        for i, (lo, hi, v) in enumerate(taps):
            if i not in whole:
                d = dst[lead + (slice(lo, hi),)]
                op(d, v, out=d)

    def _last(self, src, out) -> None:
        p, op, offs, lo, hi = self.g.plans[-1], self.op, self.offs, self.lo, self.hi
        length, s = p.length, p.stride
        if hi > lo:
            flat, first, span = src.reshape(-1), min(offs), max(offs) - min(offs)
            into_out = s == 1 and out.shape == src.shape and out.flags.c_contiguous
            if into_out:
                # stride 1 into an output rowed like the input: output k is position k, its taps k + offset
                z, a, b, shift = out.reshape(-1), max(0, -first), src.size - max(0, max(offs)), 0
            else:
                # position w: the window whose first tap is input w (w + span stays inside the flat input)
                z, a, b, shift = self.zbuf[self.margin:self.margin + src.size], 0, src.size - span, -first
            taps = [o + shift for o in offs]
            if len(taps) == 1:
                np.copyto(z[a:b], flat[a + taps[0]:b + taps[0]])
            else:
                op(flat[a + taps[0]:b + taps[0]], flat[a + taps[1]:b + taps[1]], out=z[a:b])
                for o in taps[2:]:
                    op(z[a:b], flat[a + o:b + o], out=z[a:b])
            if not into_out and src.shape[-1] == p.out * s and out.flags.c_contiguous:
                # rows as long as their outputs times the stride: every window start of every row is one
                # strided run over the flat positions (the edge windows among them are redone below)
                start = self.margin + first
                _pick(self.zbuf, self.zbuf[start:start + out.size * s:s], out.reshape(-1))
            elif not into_out:
                rows = z.reshape(src.shape)
                _pick(self.zbuf, rows[..., lo * s + first:(hi - 1) * s + first + 1:s], out[..., lo:hi])
        for j in list(range(0, min(lo, p.out))) + list(range(max(hi, lo), p.out)):
            d, landing = out[..., j], [j * s + o for o in offs if 0 <= j * s + o < length]
            if not landing:
                d.fill(self.fill)
                continue
            np.copyto(d, src[..., landing[0]])
            for c in landing[1:]:
                op(d, src[..., c], out=d)


def _pick(root: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
    """dst = src, a view of `root` stepping along its last axis: read as wide words and cast down when the
    step is a word (layout.word_copy), else copied."""
    how = word_copy(dst, src.shape, src.strides, src.itemsize)
    if how is not None:
        narrow, wide = how
        offset = src.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        try:
            words = np.ndarray(src.shape, dtype=wide, buffer=root, offset=offset, strides=src.strides)
        except ValueError:                          # the last word would reach past the buffer's end
            words = None
        if words is not None:
            np.copyto(narrow, words, casting="unsafe")
            return
    np.copyto(dst, src)
