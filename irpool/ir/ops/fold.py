"""The small integer subgraphs some converters compute a pooling-family layer's shape input with, folded as
OpenVINO's read_model folds them: Model Optimizer 2021.4 (IR v10) writes every global pool as a ReduceMean or
ReduceMax whose axes are Range(2, Squeeze(ShapeOf(ShapeOf(x)), [0]), 1), not a Const. The ops and versions
are data (schemas/openvino.json, "shape_ops"), each op's rule shape_ops.py's (the one --shape uses); anything
outside them is Unfoldable, with why, and the layer stays unchecked: irpool never guesses a value. What
OpenVINO's read_model refuses (a Squeeze axis outside the rank, a Range input that is not a scalar or a step
of 0) is an IRError at the op, as read_model's refusal is."""
from __future__ import annotations

import numpy as np

from ...errors import IRError
from ...opdefs import load
from . import consts, shape_ops
from ..read.layer_edge import Layer

MOST_STEPS = 32           # ops followed back from a shape input at most: a cycle, or not a shape computation
MOST_KEPT = 1 << 14       # shape op layers a net keeps for folding, at most (memory stays flat on any file)


class Unfoldable(Exception):
    """Why a shape input's value is not known to irpool: a sentence, without the layer it was asked for."""


class UnknownInput(Exception):
    """Why a family layer's shape input is not known: the sentence check's warning and run's refusal say;
    `missing` when only the weights file is wanting."""

    def __init__(self, message: str, missing: bool = False):
        super().__init__(message)
        self.missing = missing


def shape_input(what: str, src, ops: dict, feeds: dict, found_consts, bin_path, file) -> tuple:
    """(values, the Const or shape op they come from) of a family layer's shape input (`what`: axes or
    output_shape) fed by output `src` (None: no edge), as value() finds them; UnknownInput when irpool cannot know
    them."""
    are = "are" if what == "axes" else "is"
    if src is None:
        raise UnknownInput(f"its {what} {are} fed by no edge: irpool cannot know the output")
    const = found_consts.get(src[0])
    try:
        values = value(src, ops, feeds, found_consts, bin_path, file, output_shape=what == "output_shape")
    except Unfoldable as e:
        full = f" (irpool keeps the first {MOST_KEPT} of a net's {', '.join(sorted(SHAPE_OPS))} layers)" \
            if len(ops) >= MOST_KEPT else ""
        raise UnknownInput(f"its {what} {are} fed by layer {src[0]}, not by a Const, and irpool cannot fold"
                      f" {'them' if what == 'axes' else 'it'}: {e}{full}") from None
    except _Refusal as e:
        op, why = e.args
        raise IRError(f"the {what} {are} computed by {_who(op)} (line {op.line}), which OpenVINO's read_model"
                      f" refuses: {why}", code=why.code, **op.where(file)) from None
    except consts.Missing as e:
        held = f"in Const id={const.id} name={const.name!r}, whose value is" if const is not None else \
            f"computed by layer {src[0]} from Consts whose values are"
        raise UnknownInput(f"its {what} {are} {held} in the weights file: {e}", missing=True) from None
    return values, const or ops[src[0]]


def value(src: tuple, ops: dict, feeds: dict, found_consts, bin_path, file, output_shape=False) -> np.ndarray:
    """The int64 values (flat) of output `src` = (layer id, port id): a Const read from the weights
    file, or a shape op of `ops` (layer id -> Layer) evaluated from its inputs, found through `feeds`
    ((layer id, input port id) -> (layer id, output port id)). Unfoldable, or consts.Missing when a Const's
    weights file is not there; IRError (bad-weights) from consts.read; _Refusal where OpenVINO refuses an op.
    `output_shape`: an adaptive pool's, whose Const feeding the output itself is read so (consts.read). `found_consts`: the Consts by layer id,
    anything with .get (a dict, or check's Kept, which makes a Const it keeps by reference on demand)."""
    steps = [0]

    def at(src):
        lid = src[0]
        steps[0] += 1
        if steps[0] > MOST_STEPS:
            raise Unfoldable(f"it is computed by more than {MOST_STEPS} ops (or a cycle)")
        const = found_consts.get(lid)
        if const is not None:
            shape, et = const.data.get("shape") or "", const.element_type
            # (a Const feeding the shape input itself is read as ever: what it holds wrong is a bad-weights error)
            if steps[0] > 1 and (et not in consts.SHAPE_TYPES or "," in shape):
                raise Unfoldable(f"Const id={lid} name={const.name!r} holds {et or '?'} of shape [{shape}]:"
                                 " irpool folds integer scalars and 1-D Consts")
            v = consts.read(const, bin_path, file, output_shape=output_shape and steps[0] == 1)
            v = v.astype(consts.SHAPE_TYPES[et]) if steps[0] > 1 else v      # (its type: Range-1 compares them)
            return v.reshape(()) if not shape.strip() else v
        layer = ops.get(lid)
        if layer is None:
            raise Unfoldable(f"layer {lid} is neither a Const nor one of the ops irpool folds"
                             f" ({', '.join(sorted(SHAPE_OPS))})")
        if layer.version not in load("openvino")["shape_ops"][layer.type]["opsets"]:
            raise Unfoldable(f"{_who(layer)} has version={layer.version!r}, which OpenVINO does not know for it")

        def arg(k):
            if k >= len(layer.inputs):
                raise Unfoldable(f"{_who(layer)} has no input port {k}")
            feeder = feeds.get((lid, layer.inputs[k].id))
            if feeder is None:
                raise Unfoldable(f"input port {layer.inputs[k].id} of {_who(layer)} is fed by no edge")
            return at(feeder)
        return _evaluate(layer, arg)
    try:
        return np.asarray(at(src)).astype(np.int64).reshape(-1)
    finally:
        at = None           # (`at` calls itself: a cycle, which would keep what it holds until a collection)


def _who(layer: Layer) -> str:
    return f"{layer.type} id={layer.id} name={layer.name!r}"


def _shape_of(layer: Layer, arg) -> np.ndarray:
    dims = layer.inputs[0].dims if layer.inputs else None
    if dims is None or not all(isinstance(d, int) for d in dims):
        written = ",".join(t or "" for t in layer.inputs[0].raw_dims) if layer.inputs else ""
        raise Unfoldable(f"{_who(layer)} reads a shape that is not static ([{written}])")
    return shape_ops.shape_of(layer, dims)


def _squeeze(layer: Layer, arg) -> np.ndarray:
    data = arg(0)
    return data.reshape(shape_ops.squeeze(data.shape, arg(1) if len(layer.inputs) >= 2 else None))


def _range(layer: Layer, arg) -> np.ndarray:
    values = [arg(k) for k in range(3)]
    shape_ops.range_scalars([v.shape for v in values])
    count = shape_ops.range_count(layer, values)
    if count > consts.MOST_VALUES:
        raise Unfoldable(f"{_who(layer)} gives {count} values: a shape input holds at most {consts.MOST_VALUES}")
    out = shape_ops.range_values(layer, values, count)
    if out.dtype.kind not in "iu":
        raise Unfoldable(f"{_who(layer)} has output_type={layer.data.get('output_type')!r}: axes are integers")
    return out


class _Refusal(Exception):
    """A shape op OpenVINO's read_model refuses: (the op's Layer, shape_ops.Refused)."""


def _evaluate(layer: Layer, arg) -> np.ndarray:
    """The op's value by shape_ops' rule (the one --shape uses): what irpool cannot know is Unfoldable; what
    OpenVINO refuses a _Refusal, which shape_input makes an IRError at the op."""
    try:
        return _EVALUATE[layer.type](layer, arg)
    except shape_ops.Refused as e:
        raise _Refusal(layer, e) from None
    except shape_ops.Unknown as e:
        raise Unfoldable(f"{_who(layer)}: {e}") from None


_EVALUATE = {"ShapeOf": _shape_of, "Squeeze": _squeeze, "Range": _range}
# the ops the schema gives versions for and this module evaluates (one without the other is never folded)
SHAPE_OPS = frozenset(k for k in load("openvino")["shape_ops"] if k in _EVALUATE)
