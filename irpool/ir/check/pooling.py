"""Judging one pooling layer: the rules of judge.py on its input dims, the CPU plugin's verdicts that depend on the
use of its outputs (output_verdicts.py: said, or held for the edges), the dims it outputs for its consumers kept;
the pooling family (adaptive pools, global reductions) once its shape input is known. A function of what it reads
(a Seat) that returns what it found (found.Found), all of it OpenVINO's only where its reader builds the layer."""
from __future__ import annotations

from typing import NamedTuple

from ...errors import IRError
from ...opdefs import load
from ..ops import consts, fold
from . import judge
from . import output_verdicts as outputs
from .found import Found
from ..read.element_types import element_type
from ..ops.family import interpret_family, is_family, shape_input_name, validation_refusal
from ..ops.inference import CODE, dynamic_bins_refusal
from ..ops.pools import op_name
from .parameters import input_precision
from ..read.layer_edge import Layer
from ..graph.waits import KeepConst


def read_model_values(source, bin_path, file):
    """A packed (u4/i4) Const's values as read_model reads them, or None for any other shape input."""
    if not isinstance(source, consts.Const) or source.element_type not in consts.PACKED:
        return None
    return consts.read(source, bin_path, file, as_read_model=True)


def unbounded(d) -> bool:
    """A dim with no upper bound (?, -1, 2..)."""
    return not isinstance(d, int) and (not isinstance(d, tuple) or d[1] is None)


class Outcome(NamedTuple):
    """What checking a pooling layer leaves for the layers after it: the element type it was judged on (None: not
    known), and explain's record of it (None: no explain)."""
    type: object
    record: dict | None


class Seat(NamedTuple):
    """What judging a pool reads of its net, and the objects it writes, each through its own module's methods:
    `pending` (the dims it gives its consumers), `held` and `types` (verdicts that wait for them), `waits` (a
    Const the next reading keeps), `report` (its counts and explain's sink)."""
    doc: object         # read/document.Document: its file, and its IR version once its <net> is read
    path: str
    memos: object
    types: object
    pending: object
    held: object
    kept: object
    sigs: object
    waits: object
    reshaped: object
    report: object


def judge_pool(seat: Seat, layer: Layer, x_dims, in_type=None) -> tuple:
    """(Outcome, [Found]) of one MaxPool, AvgPool or family layer on input dims `x_dims` (None: dynamic rank) and
    element type `in_type` (None: its input port's precision); every Found is build-time (finish)."""
    found = []
    judged = (_family if is_family(layer) else _pool)(seat, layer, x_dims, in_type, found)
    return judged, [f._replace(build_time=True) for f in found]


def _pool(seat: Seat, layer: Layer, x_dims, in_type, found) -> Outcome:
    """The rules (judge.py) on one MaxPool or AvgPool, and what waits for the edges kept: the CPU plugin's type
    verdicts, output ports past the op's, the outputs that differ from those declared."""
    j = judge.read(layer, x_dims, seat.doc.file, seat.doc.ir_version, seat.memos.readings)
    found += _said(layer, judge.reading_findings(j))
    if j.pl is None:
        return Outcome(None, record(seat, layer, x_dims, error=j.error.reason))
    pl, pending, held = j.pl, seat.pending, seat.held
    et = in_type or _input_type(layer, found)
    if et is not None:
        found += outputs.type_verdicts(layer, pl, et, x_dims, layer.inputs[0].line, seat.types, pending, held)
    found += outputs.extra_outputs(layer, pl.op, pl.outputs, seat.doc.ir_version, pending, held)
    outputs.hold_unless_used(layer, pl, x_dims, pending, held)
    found += outputs.fails_if_used(layer, pl, pending, held)
    if x_dims is None or all(unbounded(d) for d in x_dims[2:]):
        gap = seat.reshaped.why(layer.id) if seat.reshaped is not None else None
        seat.report.uncheck(layer.type, "their spatial input dims are dynamic, with no bounds irpool reads (it"
                            " carries no Parameter's bounds through other layers), so their output dims are not"
                            " checked: give the model's input shapes with --shape NAME=dims"
                            if gap is None else f"--shape does not reach their input: {gap}")
    j = judge.computed(j, et)
    found += _said(layer, judge.dims_findings(j))
    if j.error is not None:
        return Outcome(et, record(seat, layer, x_dims, pl=pl, error=j.error.reason))
    for port in layer.outputs[: pl.outputs]:
        if port.dims != j.computed:
            pending.give((layer.id, port.id), j.computed)
    return Outcome(et, record(seat, layer, x_dims, pl=pl, plans=j.plans, computed=j.computed))


def _input_type(layer: Layer, found):
    """Its input's type as its port declares it (parameters.input_precision), what is wrong there found."""
    et, wrong = input_precision(layer)
    found += wrong
    return et


def _said(layer: Layer, said) -> list:
    """The rules' findings of one layer (judge.py's Found, which leave the layer to the caller), as its."""
    return [f._replace(who=layer) for f in said]


def _family(seat: Seat, layer: Layer, x_dims, in_type, found) -> Outcome:
    """An adaptive pool, or a reduction that may be a global pool, once its shape input is known."""
    fl = _family_layer(seat, layer, x_dims, found)
    if fl is None:                          # (not a pool, or refused: its type is judged all the same)
        given = in_type or (element_type(layer.inputs[0].precision) if layer.inputs else None)
        refused = validation_refusal(layer, seat.doc.file, given)
        if refused:
            found.append(Found("bad-precision", refused, layer.inputs[0].line, layer))
        return Outcome(None, None)
    seat.report.count(fl.kind)
    found += _said(layer, judge.attribute_findings(fl.op, fl.unknown, fl.lenient, layer.data_line))
    et = in_type or _input_type(layer, found)
    found += outputs.family_types(layer, fl, et, seat.pending, seat.held)
    if (why := dynamic_bins_refusal(fl)) is not None:
        found.append(Found(CODE, why, layer.data_line, layer))
    found += outputs.extra_outputs(layer, fl.op, fl.outputs, seat.doc.ir_version, seat.pending, seat.held)
    computed = fl.output_dims(x_dims)
    how = fl.arithmetic(x_dims)
    for k, port in enumerate(layer.outputs[: fl.outputs]):
        found += _said(layer, judge.family_port_findings(layer, fl, port, et if k == 0 else None, computed, how))
        if computed is not None and port.dims != computed:
            seat.pending.give((layer.id, port.id), computed)
    return Outcome(et, record(seat, layer, x_dims, family=fl, computed=computed, how=how))


def _family_layer(seat: Seat, layer: Layer, x_dims, found):
    """Its FamilyLayer, read with its shape input's values (a Const's, or folded: fold.py); None where it is not
    known (found), is refused (found), or is a reduction that is not a global pool."""
    rank = None if x_dims is None else len(x_dims)
    shape_port = layer.inputs[1] if len(layer.inputs) >= 2 else None
    src = seat.pending.feeds.get((layer.id, shape_port.id)) if shape_port else None
    what, kept = shape_input_name(layer), seat.kept
    if src is not None and kept.get(src[0]) is None and src[0] not in seat.waits.consts \
            and getattr(seat.sigs.of(src[0]), "type", None) == "Const":
        seat.waits.later(KeepConst(src[0]))      # (a Const not kept, past Kept.unlike's bound: the next pass keeps it)
        return None
    try:
        if shape_port is None:
            interpret_family(layer, seat.doc.file, rank, (), {}, seat.doc.ir_version)   # raises: no inputs
        try:
            values, source = fold.shape_input(what, src, kept.shape_ops, seat.pending.feeds, kept,
                                              kept.weights.path, seat.doc.file)
        except fold.UnknownInput as e:
            found.append(Found("unchecked", str(e), shape_port.line, layer))
            seat.report.uncheck(layer.type, "their shape inputs are in a weights file that is not there"
                                if e.missing else "their shape inputs are not known")
            return None
        early = read_model_values(source, kept.weights.path, seat.doc.file)
        if early is not None:
            found += _packed(seat, layer, rank, source, early, values)
        return interpret_family(layer, seat.doc.file, rank, values, source.where(seat.doc.file), seat.doc.ir_version)
    except IRError as e:
        if e.code == "bad-weights" and e.layer_id in kept.faulty_consts:
            return None                                 # (said at the Const)
        if e.code == "bad-weights":
            e = e.located(**layer.where(seat.doc.file))
            found.append(Found(e.code, f"{e.reason} (the {what} of {layer.type} id={layer.id} name={layer.name!r})",
                               e.line, {"id": e.layer_id, "name": e.layer_name, "type": e.layer_type}))
        else:
            found.append(Found(e.code, e.reason, e.line or layer.line, layer))
        return None


def _packed(seat: Seat, layer, rank, const, early, values) -> list:
    """A u4/i4 Const as a shape input: read_model's shape inference takes its elements as whole signed bytes and
    compile_model unpacks them (consts.read): what the first refuses, read_model refuses; where the two read other
    values, a warning says what each makes of them (the compiled model's is judged)."""
    et, where = const.element_type, const.where(seat.doc.file)
    early, values = [int(v) for v in early], [int(v) for v in values]
    try:
        if load("openvino")["ops"][op_name(layer, seat.doc.file)]["family"] != "adaptive":   # (which takes any)
            interpret_family(layer, seat.doc.file, rank, early, where, seat.doc.ir_version)
    except IRError as e:
        raise IRError(f"read_model's shape inference reads this {et} Const's elements as whole signed bytes"
                      f" ({early}): {e.reason}", code=e.code, line=e.line, file=e.file,
                      layer_id=e.layer_id, layer_name=e.layer_name, layer_type=e.layer_type) from None
    if early == values:
        return []
    what = shape_input_name(layer)
    return [Found("lenient-attribute", f"its {what} {'are' if what == 'axes' else 'is'} an {et} Const, whose elements"
                  f" read_model's shape inference reads as whole signed bytes ({early}) and compile_model unpacks"
                  f" ({values}): the model read_model gives and the one compiled differ; irpool judges the compiled"
                  " one", layer.data_line, layer)]


def record(seat: Seat, layer, x_dims, **what) -> dict | None:
    """For check(explain=True): what decides a pooling layer's output, or why it cannot be computed."""
    if seat.report.explained is None:
        return None
    rec = dict(layer=layer, path=seat.path, x_dims=x_dims, pl=None, plans=None, computed=None, error=None,
               family=None) | what
    emit(seat.report, rec)
    return rec


def emit(report, rec) -> None:
    """explain's record to its sink: a list, or a callable."""
    sink = report.explained
    (sink if callable(sink) else sink.append)(rec)
