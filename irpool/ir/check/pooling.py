"""Checking one pooling layer as the net streams: the rules of judge.py on its input dims, their findings said, the
CPU plugin's verdicts that depend on the use of its outputs (output_verdicts.py: said, or held for the edges), the
dims it outputs for its consumers kept; the pooling family (adaptive pools, global reductions) once its shape input
is known."""
from __future__ import annotations

from typing import NamedTuple

from ...errors import IRError
from ...opdefs import load
from ..ops import consts, fold
from . import judge
from . import output_verdicts as outputs
from ..read.element_types import element_type
from ..ops.family import interpret_family, is_family, shape_input_name, validation_refusal
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


class Pooling:
    def packed(self, layer, rank, const, early, values) -> None:
        """A u4/i4 Const as a shape input: read_model's shape inference takes its elements as whole signed bytes
        and compile_model unpacks them (consts.read): what the first refuses, read_model refuses; where the two
        read other values, a warning says what each makes of them (the compiled model's is judged)."""
        et, where = const.element_type, const.where(self.file)
        early, values = [int(v) for v in early], [int(v) for v in values]
        try:
            if load("openvino")["ops"][op_name(layer, self.file)]["family"] != "adaptive":   # (which takes any)
                interpret_family(layer, self.file, rank, early, where, self.doc.ir_version)
        except IRError as e:
            raise IRError(f"read_model's shape inference reads this {et} Const's elements as whole signed bytes"
                          f" ({early}): {e.reason}", code=e.code, line=e.line, file=e.file,
                          layer_id=e.layer_id, layer_name=e.layer_name, layer_type=e.layer_type) from None
        if early != values:
            what = shape_input_name(layer)
            self.finding("lenient-attribute", f"its {what} {'are' if what == 'axes' else 'is'} an {et} Const, whose elements"
                         f" read_model's shape inference reads as whole signed bytes ({early}) and compile_model"
                         f" unpacks ({values}): the model read_model gives and the one compiled differ; irpool"
                         " judges the compiled one", layer.data_line, layer)

    def pooling(self, layer: Layer, x_dims, in_type=None) -> Outcome:
        """Check a pooling layer on input dims `x_dims` (None: dynamic rank) and element type `in_type` (None:
        its input port's precision); remember what it outputs. Its errors but for declared dims are OpenVINO's
        only where its reader builds the layer (finish())."""
        start = len(self.report.findings)
        judged = self._pooling(layer, x_dims, in_type)
        self.build_time.extend(range(start, len(self.report.findings)))
        return judged

    def _pooling(self, layer: Layer, x_dims, in_type) -> Outcome:
        """The rules (judge.py) on one MaxPool or AvgPool, their findings said, and what waits for the edges kept:
        the CPU plugin's type verdicts, output ports past the op's, the outputs that differ from those declared."""
        if is_family(layer):
            return self.family(layer, x_dims, in_type)
        j = judge.read(layer, x_dims, self.file, self.doc.ir_version, self.memos.readings)
        self.say_all(layer, judge.reading_findings(j))
        if j.pl is None:
            return Outcome(None, self.record(layer, x_dims, error=j.error.reason))
        pl = j.pl
        et = in_type or self.input_type(layer)
        pending, held = self.pending, self.held
        if et is not None:
            self.take(outputs.type_verdicts(layer, pl, et, x_dims, layer.inputs[0].line, self.types, pending, held))
        self.take(outputs.extra_outputs(layer, pl.op, pl.outputs, self.doc.ir_version, pending, held))
        outputs.hold_unless_used(layer, pl, x_dims, pending, held)
        self.take(outputs.fails_if_used(layer, pl, pending, held))
        if x_dims is None or all(unbounded(d) for d in x_dims[2:]):
            gap = self.reshaped.why(layer.id) if self.reshaped is not None else None
            self.report.uncheck(layer.type, "their spatial input dims are dynamic and unbounded, so their output"
                                " dims are not checked: give the model's input shapes with --shape NAME=dims"
                                if gap is None else f"--shape does not reach their input: {gap}")
        j = judge.computed(j, et)
        self.say_all(layer, judge.dims_findings(j))
        if j.error is not None:
            return Outcome(et, self.record(layer, x_dims, pl=pl, error=j.error.reason))
        for port in layer.outputs[: pl.outputs]:
            if port.dims != j.computed:
                self.pending.give((layer.id, port.id), j.computed)
        return Outcome(et, self.record(layer, x_dims, pl=pl, plans=j.plans, computed=j.computed))

    def input_type(self, layer: Layer):
        """Its input's type as its port declares it (parameters.input_precision), what is wrong there said."""
        et, found = input_precision(layer)
        self.take(found)
        return et

    def say_all(self, layer: Layer, said) -> None:
        """The rules' findings (judge.Said) of one layer."""
        for code, message, line, fix in said:
            self.finding(code, message, line, layer, fix=fix)

    def family(self, layer: Layer, x_dims, in_type=None) -> Outcome:
        """An adaptive pool, or a reduction that may be a global pool, once its shape input is known."""
        fl = self.family_layer(layer, x_dims)
        if fl is None:                          # (not a pool, or refused: its type is judged all the same)
            given = in_type or (element_type(layer.inputs[0].precision) if layer.inputs else None)
            refused = validation_refusal(layer, self.file, given)
            if refused:
                self.finding("bad-precision", refused, layer.inputs[0].line, layer)
            return Outcome(None, None)
        self.report.count(fl.kind)
        self.attributes(layer, fl.op, fl.unknown, fl.lenient)
        et = in_type or self.input_type(layer)
        self.take(outputs.family_types(layer, fl, et, self.pending, self.held))
        self.take(outputs.extra_outputs(layer, fl.op, fl.outputs, self.doc.ir_version, self.pending, self.held))
        computed = fl.output_dims(x_dims)
        how = fl.arithmetic(x_dims)
        for k, port in enumerate(layer.outputs[: fl.outputs]):
            self.say_all(layer, judge.family_port_findings(layer, fl, port, et if k == 0 else None, computed, how))
            if computed is not None and port.dims != computed:
                self.pending.give((layer.id, port.id), computed)
        return Outcome(et, self.record(layer, x_dims, family=fl, computed=computed, how=how))

    def family_layer(self, layer: Layer, x_dims):
        """Its FamilyLayer, read with its shape input's values (a Const's, or folded: fold.py); None where it is not
        known (said), is refused (said), or is a reduction that is not a global pool."""
        rank = None if x_dims is None else len(x_dims)
        shape_port = layer.inputs[1] if len(layer.inputs) >= 2 else None
        src = self.pending.feeds.get((layer.id, shape_port.id)) if shape_port else None
        what = shape_input_name(layer)
        if src is not None and self.kept.get(src[0]) is None and src[0] not in self.waits.consts \
                and getattr(self.sigs.of(src[0]), "type", None) == "Const":
            self.waits.later(KeepConst(src[0]))      # (a Const not kept, past Kept.unlike's bound: the next pass keeps it)
            return None
        try:
            if shape_port is None:
                interpret_family(layer, self.file, rank, (), {}, self.doc.ir_version)   # raises: no inputs
            try:
                values, source = fold.shape_input(what, src, self.kept.shape_ops, self.pending.feeds, self.kept,
                                                  self.kept.weights.path, self.file)
            except fold.UnknownInput as e:
                self.finding("unchecked", str(e), shape_port.line, layer)
                self.report.uncheck(layer.type, "their shape inputs are in a weights file that is not there"
                                    if e.missing else "their shape inputs are not known")
                return None
            early = read_model_values(source, self.kept.weights.path, self.file)
            if early is not None:
                self.packed(layer, rank, source, early, values)
            return interpret_family(layer, self.file, rank, values, source.where(self.file), self.doc.ir_version)
        except IRError as e:
            if e.code == "bad-weights" and e.layer_id in self.kept.faulty_consts:
                return None                                 # (said at the Const)
            if e.code == "bad-weights":
                e = e.located(**layer.where(self.file))
                self.finding(e.code, f"{e.reason} (the {what} of {layer.type} id={layer.id} name={layer.name!r})",
                             e.line, el={"id": e.layer_id, "name": e.layer_name, "type": e.layer_type})
            else:
                self.finding(e.code, e.reason, e.line or layer.line, layer)
            return None

    def attributes(self, layer, op, unknown, lenient) -> None:
        """What OpenVINO reads without a word: attributes the op does not have, values not written as their type."""
        self.say_all(layer, judge.attribute_findings(op, unknown, lenient, layer.data_line))

    def record(self, layer, x_dims, **what) -> dict | None:
        """For check(explain=True): what decides a pooling layer's output, or why it cannot be computed."""
        if self.report.explained is None:
            return None
        rec = dict(layer=layer, path=self.path, x_dims=x_dims, pl=None, plans=None, computed=None, error=None,
                   family=None) | what
        self.emit(rec)
        return rec

    def emit(self, rec) -> None:
        sink = self.report.explained
        (sink if callable(sink) else sink.append)(rec)
