"""The sign of a zero maximum. A float max by fmax (taken where NaN won a window under np.maximum, or where numpy
has no fixed rule for ties of zeros: ties.py) leaves the choice between tied -0.0 and +0.0 to the CPU; the
plugin's strictly-greater scan keeps the window's first zero tap in row-major order. `repair` gives every
window whose maximum is zero that tap's sign, by whichever of four ways costs least for how many are open."""
from __future__ import annotations

import functools
import itertools
import math
from dataclasses import replace

import numpy as np

from .direct import edges as direct_edges, offsets as direct_offsets, pick as direct_pick
from .layout import OPAQUE_MIN_ELEMENTS, OPAQUE_ROW_BYTES, copy_rows, inside_range, word_copy


def repair(run, a, b, out, low=None):
    """Windows of planes a..b whose maximum is zero take the sign of their first zero tap (row-major),
    the element the plugin's strictly-greater scan keeps. Where every maximum of the chunk is zero (inputs
    of zeros), each window's first tap inside the input is copied whole, unmasked, which settles the windows
    it gives a zero. Otherwise only where the chunk holds both -0.0 and +0.0 (else each zero already has the
    one sign there is: _both_zero_signs). The windows open are then looked up at their positions where they are
    few (Tuning.gather_below, tuning.py); where they are not many (Tuning.codes_above), their first taps go first (_first_tap_signs) and
    what is left is looked up when few; the rest goes through _first_zero_codes, every tap at once. A window
    over a whole axis takes its first zero by argmax."""
    if low is not None and low > 0:     # (the pool's smallest maximum: none is zero)
        return
    flat = out.reshape(-1)
    is_open = flat == 0         # (the windows still open; count_nonzero of floats is 4x slower, numpy 2.4)
    if low != 0 and not is_open.any():
        return
    # every maximum zero: then open windows hold a tap's value, not a zero (not where the smallest is below)
    copied = run.g.window is None and not low < 0 and is_open.all()
    xs, plans, size = run.x[a:b], run.g.plans, flat.size
    if copied:
        for v, o in _box_views(xs, _first_tap_boxes(plans), out):
            _copy_taps(o, v, run.root)
        if flat.min() == 0:                 # (no first tap below zero or NaN: none still open)
            return
        np.not_equal(flat, 0, out=is_open)
    if not copied and not _both_zero_signs(xs, flat[is_open.argmax()]):
        return
    if run.g.window is not None:                   # one window an axis: the first zero of each plane
        view = np.asarray(run.x[(slice(a, b),) + run.g.window + (slice(None),)])
        rows = np.moveaxis(view, -1, 1).reshape(view.shape[0], view.shape[-1], -1)
        first = np.argmax(rows == 0, axis=2)[..., None]
        negative = np.signbit(np.take_along_axis(rows, first, axis=2))[..., 0]
        negative = negative.reshape(out.shape[0], *([1] * (out.ndim - 2)), out.shape[-1])
        _set_zero_signs(flat, is_open, np.broadcast_to(negative, out.shape).reshape(-1))
        return
    left = np.count_nonzero(is_open)
    if not copied and run.t.gather_below * left >= size and run.t.codes_above * left <= size:
        left, copied = _first_tap_signs(run, xs, out, is_open), True    # (not many open: first taps first)
        if not left:
            return
    if left * run.t.gather_below < size:                  # (few open: at their positions)
        _gather_zero_signs(run, xs, out, flat, is_open)
        return
    codes = _first_zero_codes(xs, plans)            # every tap at once, on codes
    if codes is not None:
        _set_zero_signs(flat, is_open, codes.reshape(-1) == 2, reset=copied)
        return
    _scan_zero_taps(xs, out, is_open.reshape(out.shape), _tap_boxes(plans))   # (an axis of over 40 taps)

def _first_tap_signs(run, xs, out, is_open) -> int:
    """The open windows take their first tap inside the input, copied whole into a scratch array first (a
    masked copy of strided taps was 3x slower): those it gives a zero close. Returns how many stay open (the
    first tap below zero, or NaN: they now hold it)."""
    first = np.empty_like(out)
    for v, o in _box_views(xs, _first_tap_boxes(run.g.plans), first):
        _copy_taps(o, v, run.root)
    np.copyto(out, first, where=is_open.reshape(out.shape))
    is_open &= first.reshape(-1) != 0
    return np.count_nonzero(is_open)

def _gather_zero_signs(run, xs, out, flat, is_open):
    """The first zero tap's sign of the few windows whose maximum is zero, read at their positions only: each
    window's taps in row-major order as a row of flat input indices (a tap in the padding marked), taken at
    once, the first zero of each row found by argmax (cheaper than whole-array steps when they are few, and
    than a numpy call per tap: 20 calls in all)."""
    zero = np.flatnonzero(is_open)     # (after the checks: finding them costs 16 ns each)
    pos = np.unravel_index(zero, out.shape)
    src, steps = xs.reshape(-1), [s // xs.itemsize for s in xs.strides]
    tables = _tap_coordinates(run.g.plans)
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
