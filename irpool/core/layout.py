"""The phase buffer: how a chunk of input planes is laid out so that every kernel tap is one flat slice.

Per spatial axis with stride s, padded position o*s + t*d (output o, tap t, dilation d) is written
q*s + r with r = t*d mod s and q = t*d // s. Copying the padded input's positions of each residue r
into a block of its own (the "phase" r, indexed j = 0..M-1 for padded position j*s + r) turns tap t into
"phase r, shifted by q": the same shift for every output. Stacking the phase blocks as the leading axes
of a buffer shaped (R_1..R_n, planes, M_1..M_n, Q), tap (t_1..t_n) for every output of the chunk at
once is ONE contiguous 1-D slice of length Z = planes * prod(M) * Q, starting at
block(r_1..r_n) * Z + sum(q_i * stride_i). The output grid is (planes, M_1..M_n, Q); only
[:, :out_1, .., :out_n, :] is kept, and a kept output never reads past its own phase block (j + q < M),
so what the slice reads beyond (the next block, or the slack at the end) only reaches dropped cells.
Padding cells, and phases of residues no tap uses, hold the reduction's identity or are not stored.
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from itertools import product

import numpy as np

from .shape import AxisPlan


@dataclass(frozen=True)
class AxisLayout:
    plan: AxisPlan
    residues: tuple[int, ...]                  # the residues some landing tap uses, in block order
    taps: tuple[tuple[int, int, int], ...]     # landing taps: (t, block of its residue, shift q)
    m: int                                     # phase length: out + the largest shift


def inside_range(p: AxisPlan, offset: int, limit: int) -> tuple[int, int]:
    """The j in [0, limit) whose input position j*s + offset lies in [0, L), as a range lo..hi (may be empty)."""
    lo = max(0, -(offset // p.stride))                  # first j with j*s + offset >= 0
    last = p.length - 1 - offset                        # j*s <= last keeps j*s + offset < L
    return lo, min(limit, last // p.stride + 1) if last >= 0 else 0


def axis_layout(p: AxisPlan) -> AxisLayout:
    """Landing taps are those inside the input for at least one output position of this axis."""
    landing = []
    for t in range(p.kernel):
        lo, hi = inside_range(p, t * p.dilation - p.pad_begin, p.out)
        if hi > lo:
            landing.append(t)
    residues = tuple(sorted({t * p.dilation % p.stride for t in landing}))
    taps = tuple((t, residues.index(t * p.dilation % p.stride), t * p.dilation // p.stride) for t in landing)
    m = p.out + max((q for _, _, q in taps), default=0)
    if p.stride == 1:
        # Neighbouring rows share their padding: a row is L input cells and one gap of g identity cells, the
        # end padding of this row and the begin padding of the next. A window reading past its row's end
        # (end padding) reads the next row's first cells, which are that row's begin padding (pb <= g), so
        # kept outputs see identity exactly where padding is; buffer and passes shrink by pb + pe - g
        # cells a row (1x1x4x14x14 with pads 1: 6x16x16 -> 5x15x15 cells a plane).
        shared = p.length + max(p.pad_begin, m - p.pad_begin - p.length, 0)
        if p.out <= shared < m:
            m = shared
    return AxisLayout(p, residues, taps, m)


@dataclass(frozen=True)
class Layout:
    """The whole buffer for `planes` planes, each `q` trailing elements deep (channels-last: C, else 1)."""
    axes: tuple[AxisLayout, ...]
    planes: int
    q: int

    @property
    def z(self) -> int:
        """Length of one phase block (= of the output grid) in elements."""
        return self.planes * math.prod(a.m for a in self.axes) * self.q

    @property
    def strides(self) -> tuple[int, ...]:
        """Elements between neighbours along each spatial axis inside a block."""
        ms = [a.m for a in self.axes]
        return tuple(math.prod(ms[i + 1:]) * self.q for i in range(len(ms)))

    @property
    def blocks(self) -> int:
        return math.prod(len(a.residues) for a in self.axes)

    @property
    def slack(self) -> int:
        """Elements after the last block that the largest shift reads (into dropped cells only)."""
        return sum(max((q for _, _, q in a.taps), default=0) * st for a, st in zip(self.axes, self.strides))

    def grid(self, flat: np.ndarray) -> np.ndarray:
        """The kept outputs of one block-long grid: (planes, out_1..out_n, q)."""
        full = flat[:self.z].reshape((self.planes,) + tuple(a.m for a in self.axes) + (self.q,))
        return full[(slice(None),) + tuple(slice(0, a.plan.out) for a in self.axes)]

    def fill_plan(self):
        """(block combo, destination index, source index): the input's part of each phase block."""
        steps = []
        for combo in product(*(range(len(a.residues)) for a in self.axes)):
            dst, src = [slice(None)], [slice(None)]
            for a, b in zip(self.axes, combo):
                p, r = a.plan, a.residues[b]
                lo, hi = inside_range(p, r - p.pad_begin, a.m)     # phase cell j holds input j*s + r - pb
                if hi <= lo:
                    break                                              # this phase holds no input at all
                start = lo * p.stride + r - p.pad_begin
                dst.append(slice(lo, hi))
                src.append(slice(start, start + (hi - lo - 1) * p.stride + 1, p.stride))
            else:
                steps.append((combo, tuple(dst), tuple(src)))
        return steps

    def block_view(self, buf: np.ndarray, combo) -> np.ndarray:
        """Phase block `combo` of buf, shaped (planes, M_1..M_n, q)."""
        shape = tuple(len(a.residues) for a in self.axes) + (self.planes,) + tuple(a.m for a in self.axes) + (self.q,)
        return buf[:self.blocks * self.z].reshape(shape)[combo]

    def taps(self, group):
        """Each landing tap of the axes in `group`, row-major: (its t per axis, block among the group's
        blocks, shift in elements)."""
        strides = self.strides
        for combo in product(*(self.axes[i].taps for i in group)):
            block, shift = 0, 0
            for i, (_, b, q) in zip(group, combo):
                block = block * len(self.axes[i].residues) + b
                shift += q * strides[i]
            yield tuple(t for t, _, _ in combo), block, shift


_WORDS = {2: np.uint16, 4: np.uint32, 8: np.uint64}
_NARROW = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def word_copy(dst: np.ndarray, src_shape, src_strides, itemsize: int):
    """How to copy a source that steps s elements along its last axis faster than numpy's strided copy.

    A strided copy runs at scalar speed in numpy. Read instead as integers s elements wide (same
    address, same byte steps) and cast down to one element's width: on a little-endian machine the low
    bits are the first element, and numpy's integer casts are vectorised (measured 45 us against 75 us
    for 200k float32 at stride 2). Returns (dst as narrow integers, wide dtype), or None when no
    integer is that wide.
    """
    step = src_strides[-1] if src_strides else 0
    if not np.little_endian or itemsize not in _NARROW or step <= itemsize or step not in _WORDS \
            or dst.strides[-1:] != (itemsize,) or 0 in src_shape:
        return None
    return dst.view(_NARROW[itemsize]), np.dtype(_WORDS[step])


def fold(op, arrays, out: np.ndarray, identity=0) -> None:
    """out = op over `arrays` from the first to the last, one numpy call each (the order a sum's bits need);
    `identity` where there are none."""
    if not arrays:
        out.fill(identity)
    elif len(arrays) == 1:
        np.copyto(out, arrays[0])
    else:
        op(arrays[0], arrays[1], out=out)
        for a in arrays[2:]:
            op(out, a, out=out)


OPAQUE_ROW_BYTES, OPAQUE_MIN_ELEMENTS = 256, 4096


def copy_rows(dst: np.ndarray, src: np.ndarray) -> None:
    """np.copyto(dst, src) for arrays of one shape, faster when their rows are short.

    numpy runs a strided loop per innermost row, a fixed cost that dominates rows of a few elements (small
    planes). The trailing axes that are contiguous in both arrays are viewed instead as one opaque element
    (a numpy void of that many bytes), which numpy copies with one memcpy each. Measured (AMD EPYC, numpy 2.4),
    400,000 float32 in rows of 7, 14, 28, 56 and 112: 0.36, 0.61, 0.59, 0.85 and 1.02 of copyto's time; so rows
    of up to OPAQUE_ROW_BYTES only."""
    if dst.size < OPAQUE_MIN_ELEMENTS:  # (a few rows: making the views costs more than they save)
        np.copyto(dst, src, casting="unsafe")
        return
    shape, ds, ss, size = dst.shape, dst.strides, src.strides, dst.itemsize
    k, row, n = 0, size, len(shape)
    while k < n and (shape[n - 1 - k] == 1 or ds[n - 1 - k] == row == ss[n - 1 - k]):
        row *= shape[n - 1 - k]
        k += 1
    if 0 < k < n and size < row <= OPAQUE_ROW_BYTES and src.dtype == dst.dtype:
        try:
            np.copyto(_opaque(dst, k, row), _opaque(src, k, row))
            return
        except ValueError:              # (numpy could not make one of the views without a copy)
            pass
    np.copyto(dst, src, casting="unsafe")


def _opaque(a: np.ndarray, k: int, row: int) -> np.ndarray:
    """`a` with its last k axes (contiguous, `row` bytes) as one void element each: a view, never a copy."""
    flat = a.reshape(a.shape[:a.ndim - k] + (row // a.itemsize,))   # (reshape's copy=False: numpy 2.1+)
    if flat.flags.owndata:
        raise ValueError("a copy")
    return flat.view(_void(row))[..., 0]


@functools.lru_cache(maxsize=None)
def _void(size: int) -> np.dtype:
    return np.dtype((np.void, size))
