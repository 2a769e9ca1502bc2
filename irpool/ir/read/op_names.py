"""Whether a layer's type or version can name an operation or opset at all, read from its text alone: read_model
refuses a name made of other characters where it builds the layer (check's intake and its identity checks ask it)."""
from __future__ import annotations

import re

POOL_TYPES = ("MaxPool", "AvgPool")
FAMILY_TYPES = ("AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean", "ReduceMax")     # (ops/family.py)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]*", re.ASCII)     # what an op's or opset's name is made of


def no_name(text) -> bool:
    """Whether a layer's type or version can name no operation or opset, an extension's neither (empty, a blank,
    a comma, a sign, a digit first, a letter not ASCII: "ReLU ", " opset1", "+opset1", "٣"): read_model refuses
    the file where it builds the layer (measured, 2026.4.1, on Parameter, Const, ReLU, MaxPool, Result)."""
    return text is None or _NAME.fullmatch(text) is None


def no_op(layer_type) -> bool:
    """Whether a layer's type names no operation: no_name, or Const in another case (read_model takes every other
    op's name in any case, and Const by its exact name alone: "const" is refused, measured)."""
    return no_name(layer_type) or layer_type.lower() == "const" and layer_type != "Const"
