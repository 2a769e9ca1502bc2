"""The Consts and shape ops a net keeps for the shape inputs of the pooling family (fold.py), and the weights file
they lie in. Of the other Consts (weights) nothing is kept but, for the first 1,024 of a net, a reference to their
<data> element, in case a family layer takes one all the same (flat memory, and no second reading for it)."""
from __future__ import annotations

from array import array

from ..ops.consts import Const, Weights
from .memos import Memo

_MOST_UNLIKE = 1 << 10      # Consts that do not look like a shape input, kept by reference, at most (a net's)
_SHAPE_LIKE = Memo(lambda written: Const.may_be_shape(None, dict(zip(("element_type", "shape"), written))))
#               (a Const's element_type, shape) as written -> whether it may be a shape input (Const.may_be_shape)


class Kept:
    """What one net keeps of its Consts and shape ops."""

    def __init__(self, weights=None):
        self.consts = {}        # Const layer id -> Const (its <data>), for the shape inputs of the pooling family
        self.shape_ops = {}     # layer id -> Layer of the ops fold.py folds into a shape input
        self.weights = Weights(None) if weights is None else weights   # the weights file Consts lie in (consts.Weights)
        self.weightless = array("i")   # (row, line) of each Const read while the weights file is missing
        self.faulty_consts = set()     # ids of Consts whose <data> or bytes read_model refuses (said once, there)
        self.unlike = {}        # Const id -> (id and name as written, <data>) of the first _MOST_UNLIKE that do not
        #                         look like a shape input (Const.may_be_shape), in case a family layer takes one

    def written(self, el, lid, data, wanted=False) -> None:
        """A Const as read: kept, with its <data> (`data`), where it may be a shape input or is `wanted` as one (a
        reading before found a family layer takes it); else its <data> by reference (unlike_const). Its weights
        never are (flat memory)."""
        if wanted or data is None or _SHAPE_LIKE[data.get("element_type"), data.get("shape")]:
            self.consts[lid] = Const.of(el)
        else:
            self.unlike_const(lid, el, data)

    def unlike_const(self, lid, el, data) -> None:
        """A Const that does not look like a shape input: its <data> kept by reference (no copy, no line read), while
        fewer than _MOST_UNLIKE are, so that a family layer that takes it is judged in this reading."""
        if len(self.unlike) < _MOST_UNLIKE:
            self.unlike[lid] = (el.get("id"), el.get("name"), data)

    def get(self, lid):
        """The Const of id `lid` kept for a shape input (one kept by reference, unlike_const, made one now), or None:
        what a family layer and the shape ops it folds (fold.py) read their Consts from."""
        const = self.consts.get(lid)
        if const is None and lid in self.unlike:
            const = self.consts[lid] = Const.written(*self.unlike.pop(lid))
        return const

    def shape_op(self, lid, layer) -> None:
        """A layer fold.py may fold into a shape input."""
        self.shape_ops[lid] = layer

    def faulty(self, lid) -> None:
        """A Const whose <data> or bytes read_model refuses (said once, there)."""
        self.faulty_consts.add(lid)

    def weightless_const(self, row, line) -> None:
        """A Const read while the weights file is missing (finish says the first that read_model builds)."""
        self.weightless.extend((row, line))
