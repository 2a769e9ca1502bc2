"""The Consts and shape ops a net keeps for the shape inputs of the pooling family (fold.py), and the weights file
they lie in; nothing else of a Const is kept (flat memory)."""
from __future__ import annotations

from array import array

from ..ops.consts import Weights


class Kept:
    """What one net keeps of its Consts and shape ops."""

    def __init__(self, weights=None):
        self.consts = {}        # Const layer id -> Const (its <data>), for the shape inputs of the pooling family
        self.shape_ops = {}     # layer id -> Layer of the ops fold.py folds into a shape input
        self.weights = Weights(None) if weights is None else weights   # the weights file Consts lie in (consts.Weights)
        self.weightless = array("i")   # (row, line) of each Const read while the weights file is missing
        self.faulty_consts = set()     # ids of Consts whose <data> or bytes read_model refuses (said once, there)

    def keep(self, lid, const) -> None:
        """A Const that may be a shape input (consts.Const: its <data>, never its weights)."""
        self.consts[lid] = const

    def shape_op(self, lid, layer) -> None:
        """A layer fold.py may fold into a shape input."""
        self.shape_ops[lid] = layer

    def faulty(self, lid) -> None:
        """A Const whose <data> or bytes read_model refuses (said once, there)."""
        self.faulty_consts.add(lid)

    def weightless_const(self, row, line) -> None:
        """A Const read while the weights file is missing (finish says the first that read_model builds)."""
        self.weightless.extend((row, line))
