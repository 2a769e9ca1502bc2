"""Negative explicit pads, as OpenVINO reads, compiles and runs them: a hand's edit that OpenVINO often takes.

OpenVINO's reader stores pads as unsigned integers and its shape inference works in signed ones, so a negative
pad is neither refused nor a plain crop. Measured with OpenVINO 2026.4.1 (tests/ir/test_negative_pads.py, against
read_model, compile_model and the plugin's values; docs/reading.md says it in words), per
spatial axis of static length H, dilated kernel K, stride s, pads pb + pe = T:
- read_model refuses T = -1 (a Dimension of -1 is dynamic: "Cannot get length of dynamic dimension"), and any
  negative pad of an AvgPool with exclude-pad (the unsigned pad is larger than every kernel);
- the padded length is H + T when T >= 0, else H; a kernel longer than it is refused, as ever;
- the output length follows the rounding on that length; ceil_torch drops the last window when it starts at or
  past H + pb, where H + pb > 0;
- MaxPool-1 and AvgPool do not compile with pb < 0 (whatever the length, a dynamic one too), nor where
  O * s + K < H + pb; nor do MaxPool-8/14 unless their indices output is used (the plugin then runs its reference
  implementation: measured on AMD family 25 model 17, and the same refusals on Intel family 6 model 207, issue 51:
  not CPU-dependent);
- window o starts at o * s - pb: what lies outside [0, H) is padding (a MaxPool window wholly in it gives the
  type's lowest value and the index of its plane's first cell).
`fit` turns that into the core's terms: a crop of the input and non-negative pads that give the same windows.
"""
from __future__ import annotations

import dataclasses

import numpy as np


def negative(pl) -> bool:
    return pl.spec.auto_pad == "explicit" and pl.raw_pads is not None


def read_refusal(pl, dims) -> str | None:
    """Why read_model or compile_model refuses the layer's negative pads on input `dims`; None if they do not."""
    if not negative(pl):
        return None
    pbs, pes = pl.raw_pads
    if pl.spec.reduction == "avg" and pl.spec.count == "exclude_pad" and min(pbs + pes) < 0:
        return ("with exclude-pad, a negative pad is refused by read_model (OpenVINO reads pads unsigned: the"
                " kernel is \"sometimes entirely in the padding area\")")
    for i, (pb, pe) in enumerate(zip(pbs, pes)):
        if pb + pe == -1:
            return (f"pads_begin + pads_end on spatial axis {i} is {pb} + {pe} = -1, which OpenVINO's shape"
                    " inference takes for a dynamic dim: read_model refuses it (\"Cannot get length of dynamic"
                    " dimension\")")
    if dims is not None:
        why = next((plan for plan in _plans(pl, dims) if isinstance(plan, str)), None)
        if why:
            return why
    return compile_refusal(pl, dims) if pl.outputs == 1 else None


def compile_refusal(pl, dims) -> str | None:
    """Why compile_model refuses the layer's negative pads on input `dims` (None: not known) where its indices
    output, if it has one, is not used ("Supported primitive descriptors list is empty"); None if it does not."""
    if not negative(pl):
        return None
    unless = " unless its indices output is used" if pl.outputs == 2 else ""
    for i, pb in enumerate(pl.raw_pads[0]):
        if pb < 0:
            return (f"spatial axis {i}: pads_begin {pb}: {pl.op} with a negative pads_begin does not compile on"
                    f" OpenVINO's CPU plugin{unless} (\"Supported primitive descriptors list is empty\")")
    plans = _plans(pl, dims) if dims is not None else ()
    return next((f"{plan[3]}{unless}" for plan in plans if isinstance(plan, tuple) and plan[3]), None)


def _plans(pl, dims):
    """Per spatial axis: None (a dynamic length), a refusal (str), or (O, window start, padded length, compile
    refusal or None)."""
    spec, out = pl.spec, []
    pbs, pes = pl.raw_pads
    for i, (k, s, pb, pe) in enumerate(zip(spec.dilated_kernel, spec.strides, pbs, pes)):
        h = dims[2 + i]
        if isinstance(h, tuple):
            h = h[0] if h[0] == h[1] else None
        if not isinstance(h, int) or h < 0:
            out.append(None)
            continue
        t = pb + pe
        padded = h + t if t >= 0 else h
        if k > padded:
            out.append(f"spatial axis {i}: the (dilated) kernel {k} is larger than the padded length {padded}"
                       f" ({h} + {pb} + {pe}{', taken as ' + str(h) + ' as the pads sum below zero' if t < 0 else ''}):"
                       " read_model refuses it (\"Kernel after dilation has size ... larger than the data shape"
                       " after padding\")")
            continue
        o = (padded - k) // s + 1 if spec.rounding == "floor" else -(-(padded - k) // s) + 1
        if spec.rounding == "ceil_torch" and h + pb > 0 and (o - 1) * s >= h + pb:
            o -= 1
        why = None
        if o * s + k < h + pb:
            why = (f"spatial axis {i}: pads {pb}, {pe} on a length of {h}: {pl.op} with a negative pad does not"
                   f" compile on OpenVINO's CPU plugin when {o} * {s} + {k} < {h} + {pb} (\"Supported primitive"
                   " descriptors list is empty\")")
        out.append((o, -pb, padded, why))
    return out


def fit(pl, dims):
    """(spec, crop): the PoolSpec with non-negative pads and the input's crop (a slice per spatial axis, None
    where nothing is cut) on which the core computes what OpenVINO computes for the layer on input `dims`;
    (pl.spec, None) where its pads are not negative. Axes of dynamic length keep the pads clipped at zero."""
    if not negative(pl):
        return pl.spec, None
    spec = pl.spec
    pbs, pes, crop = list(spec.pads_begin), list(spec.pads_end), []
    for i, plan in enumerate(_plans(pl, dims) if dims is not None else [None] * spec.ndim):
        if plan is None or isinstance(plan, str):
            crop.append(None)
            continue
        o, lo, _, _ = plan
        h = dims[2 + i] if isinstance(dims[2 + i], int) else dims[2 + i][0]
        hi = lo + (o - 1) * spec.strides[i] + spec.dilated_kernel[i]
        start = min(max(lo, 0), h)
        stop = max(min(hi, h), start)
        pbs[i] = max(start - lo, 0)          # (below 0 only where every window starts past the input: all empty)
        pes[i] = hi - lo - pbs[i] - (stop - start)
        crop.append(slice(start, stop))
    return dataclasses.replace(spec, pads_begin=tuple(pbs), pads_end=tuple(pes), rounding="floor"), crop


def cut(dims, crop):
    """The input dims after the crop `fit` gives (dims themselves where it gives none)."""
    if crop is None:
        return dims
    return list(dims[:2]) + [d if c is None else c.stop - c.start for d, c in zip(dims[2:], crop)]


def run(pool, x, pl, spec, crop, indices: bool):
    """Pool `x` (the layer's input, of its own shape) on the fitted spec: values, and indices into `x` as
    OpenVINO numbers them."""
    part = x[(slice(None), slice(None)) + tuple(c if c is not None else slice(None) for c in crop)]
    if not indices:
        return pool(part, spec)
    y, i = pool(part, spec, indices=True)
    empty = np.zeros(y.shape, bool)          # windows wholly in the padding: OpenVINO gives the index of
    for a, (c, o) in enumerate(zip(crop, y.shape[2:])):        # their plane's first cell, as the core does
        if c is not None:
            taps = (np.arange(o) * spec.strides[a] - spec.pads_begin[a])[:, None] + np.arange(spec.kernel[a]) \
                * spec.dilations[a]
            shape = [1] * y.ndim
            shape[2 + a] = o
            empty |= (~((taps >= 0) & (taps < c.stop - c.start)).any(axis=1)).reshape(shape)
    axis = spec.index_axis % x.ndim
    grid = [g if a < 2 else np.zeros_like(g) for a, g in enumerate(np.indices(y.shape, sparse=True))]
    first = np.ravel_multi_index(np.broadcast_arrays(*grid[axis:]), x.shape[axis:])
    if part.size == 0:
        return y, first.astype(i.dtype)
    where = list(np.unravel_index(i, part.shape[axis:]))
    for a in range(max(axis, 2), x.ndim):
        c = crop[a - 2]
        if c is not None:
            where[a - axis] = where[a - axis] + c.start
    return y, np.where(empty, first, np.ravel_multi_index(where, x.shape[axis:])).astype(i.dtype, copy=False)
