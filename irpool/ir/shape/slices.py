"""--shape's rules of the slicing ops (StridedSlice, Slice): the shape and value numpy's indexing gives, which
clamps as OpenVINO's slicing ops do. Split from shape/rules.py (reshape.py joins their RULES)."""
from __future__ import annotations

import numpy as np

from .rules import Tensor, Unknown, _axis, _ints


def _sliced(shape, value, index):
    """The shape (and value) numpy's indexing gives: the same clamping as OpenVINO's slicing ops."""
    try:
        probe = np.broadcast_to(np.empty((), np.bool_), shape)[index]
    except (IndexError, TypeError, ValueError) as e:
        raise Unknown(f"its slice does not fit {list(shape)}: {e}") from None
    return Tensor(tuple(probe.shape), value[index] if value is not None else None)


def strided_slice(layer, ins):
    begin, end = _ints(ins[1], "begin"), _ints(ins[2], "end")
    strides = _ints(ins[3], "strides") if len(ins) > 3 else [1] * len(begin)
    masks = {m: [int(v) for v in (layer.data.get(m) or "").replace(" ", "").split(",") if v] for m in
             ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")}

    def bit(m, i):
        return i < len(masks[m]) and masks[m][i] == 1
    index = []
    for i, (b, e) in enumerate(zip(begin, end)):
        s = strides[i] if i < len(strides) else 1
        if s == 0:
            raise Unknown("a stride of 0")
        if bit("new_axis_mask", i):
            index.append(np.newaxis)
        elif bit("ellipsis_mask", i):
            index.append(Ellipsis)
        elif bit("shrink_axis_mask", i):
            index.append(b)
        else:
            index.append(slice(None if bit("begin_mask", i) else b, None if bit("end_mask", i) else e, s))
    return [_sliced(ins[0].shape, ins[0].value, tuple(index))]


def slice_(layer, ins):
    start, stop, step = (_ints(ins[k], w) for k, w in ((1, "start"), (2, "stop"), (3, "step")))
    rank = len(ins[0].shape)
    axes = [_axis(a, rank) for a in _ints(ins[4], "axes")] if len(ins) > 4 else list(range(len(start)))
    index = [slice(None)] * rank
    for a, b, e, s in zip(axes, start, stop, step):
        if s == 0:
            raise Unknown("a step of 0")
        index[a] = slice(b, e, s)
    return [_sliced(ins[0].shape, ins[0].value, tuple(index))]


RULES = {"strided_slice": strided_slice, "slice": slice_}
