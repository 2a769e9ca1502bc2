"""Pooling windows that hold no input element (only padding, or cells past the input's end, which ceil rounding
makes), and what OpenVINO gives them: a MaxPool, the type's lowest value (core.geometry._lowest: -3.4028235e+38
for f32, -inf for f16), so whatever the model computes from them (a mean, a sum, a Linear) can be -inf where the
same model in onnxruntime, which drops such a last window (ceil_mode), gives numbers. Both front ends say it in
the same words (the empty-window warning): which windows, the value, and the model outputs computed from them."""
from __future__ import annotations

import numpy as np

from .core.geometry import _lowest

MOST_LISTED = 6          # windows listed per axis, then counted
MOST_EXAMINED = 1 << 16  # windows starting in the begin padding looked at, at most (hostile pads)


def empty_windows(plans) -> list:
    """[(axis name, [the first empty windows' indices], how many)] for each axis where some window holds no input
    element; [] where none (or where an axis is not known). A window is empty where it is empty on any one axis.
    Only a window that starts before the input (in the begin padding: its taps may all miss it) or at or past its
    end can be: the first are looked at one by one (at most MOST_EXAMINED), the last are a run to the end."""
    out = []
    for p in plans:
        if p.out is None or p.length is None or p.pad_begin is None or p.out <= 0:
            continue
        before = min(p.out, -(-max(p.pad_begin, 0) // p.stride), MOST_EXAMINED)
        starts = np.arange(before, dtype=np.int64) * p.stride - p.pad_begin
        t0 = -(starts // p.dilation)                    # each window's first tap at or past cell 0
        inside = (t0 < p.kernel) & (starts + t0 * p.dilation < p.length)
        first = [int(o) for o in np.flatnonzero(~inside)]
        past = max(before, -(-(p.length + p.pad_begin) // p.stride))       # the first window starting at or past L
        last = max(0, p.out - past)
        if first or last:
            shown = (first + list(range(past, past + min(last, MOST_LISTED))))[:MOST_LISTED]
            out.append((p.name, shown, len(first) + last))
    return out


def windows_text(windows) -> str:
    """'H: window 3; W: windows 0, 3' style: each axis's empty windows."""
    parts = []
    for name, shown, count in windows:
        more = f" and {count - len(shown)} more" if count > len(shown) else ""
        parts.append(f"{name}: window{'s' * (count > 1)} {', '.join(map(str, shown))}{more}")
    return "; ".join(parts)


def lowest_text(dtype) -> str:
    """The value OpenVINO's MaxPool gives an empty window of this numpy dtype, as a sentence's object."""
    try:
        dtype = np.dtype(dtype)
        v = _lowest(dtype)
        shown = np.format_float_scientific(v) if dtype.kind == "f" else str(int(v))
    except (ValueError, TypeError):          # (a type numpy has no limits for, or no name without ml_dtypes: bf16, f8)
        return f"the lowest value of {getattr(dtype, 'name', dtype)}"
    return f"{dtype.name}'s lowest value ({shown})"


def reach_text(reached) -> str:
    """What follows for the model: `reached` is [(output name, [node labels on the way])], [] for none, None
    for not known."""
    if reached is None:
        return ""
    if not reached:
        return "; no model output is computed from this layer"
    name, via = reached[0]
    through = f" (through {', '.join(via[:4])}{', ...' if len(via) > 4 else ''})" if via else ""
    more = f" and {len(reached) - 1} more output{'s' * (len(reached) > 2)}" if len(reached) > 1 else ""
    return (f"; the model's output {name!r}{more} is computed from this layer{through}: where it reads those cells"
            " and sums, averages or multiplies them, it gets huge negative values, -inf or NaN")


def message(windows, dtype, reached=None, onnxruntime: str = "") -> str:
    """The empty-window warning: which windows, what OpenVINO gives them (`dtype`: numpy's name; None where not
    known), what onnxruntime's kernel does there (a clause, ONNX only), and the outputs computed from them."""
    value = lowest_text(dtype) if dtype else "the lowest value of its type"
    return (f"some windows hold no input element, only padding or cells past the input ({windows_text(windows)}):"
            f" OpenVINO's MaxPool gives them {value}{onnxruntime}{reach_text(reached)}")
