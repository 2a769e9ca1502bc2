"""Checking one pooling layer on its input dims: its attributes and spec, the output dims OpenVINO computes
against those it declares, the element-type verdicts of the CPU plugin (now, or once the edges say what reads
its outputs), and the pooling family (adaptive pools, global reductions) once its shape input is known."""
from __future__ import annotations

import difflib
import math
from typing import NamedTuple

from .. import cpu
from ..core import axis_names, plan
from ..errors import IRError
from ..opdefs import load
from . import consts, fold, negpads
from .dims import DYNAMIC, compatible, text
from .elements import element_type
from .family import interpret_family, is_family, shape_input_name
from .layers import (
    check_dims,
    empty_window_refusal,
    interpret,
    kept_in_type,
    op_name,
    small_output_refusal,
    type_refusal,
)
from .parameters import input_precision
from .parse import Layer
from .waits import KeepConst


def read_model_values(source, bin_path, file):
    """A packed (u4/i4) Const's values as read_model reads them, or None for any other shape input."""
    if not isinstance(source, consts.Const) or source.element_type not in consts.PACKED:
        return None
    return consts.read(source, bin_path, file, as_read_model=True)


def unbounded(d) -> bool:
    """A dim with no upper bound (?, -1, 2..)."""
    return not isinstance(d, int) and (not isinstance(d, tuple) or d[1] is None)


def fix_of(layer: Layer, port, computed, side="output") -> dict | None:
    """What --fix writes for a shape-mismatch (an output port), or for an edge-mismatch into a pooling layer
    (its input port, as its producer gives it): every declared dim of the port that a known value contradicts."""
    if len(port.dims) != len(computed):
        return None
    dims = [[i, c] for i, (d, c) in enumerate(zip(port.dims, computed)) if isinstance(c, int) and not compatible(d, c)]
    fix = dict(layer_line=layer.line, port=port.id, dims=dims) if dims else None
    if fix and side != "output":
        fix["side"] = side
    return fix


def _spec_text_out(p, auto_pad: str):
    """The output length by the OpenVINO spec's own formulas, where they differ from the runtime."""
    if p.length is None:
        return None
    if auto_pad in ("same_upper", "same_lower"):
        return p.length                      # the spec: "H_out = H"
    if auto_pad == "valid":
        return math.ceil((p.length - p.dilated_kernel + 1) / p.stride)
    return p.out


class Judged(NamedTuple):
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

    def type_verdicts(self, layer: Layer, pl, et, x_dims, line) -> None:
        """What the CPU plugin does with a pooling layer on element type `et` (ir/layers.py type_refusal, per CPU
        tier): said now; or once the edges say whether its indices output is used; or in finish, where its
        output may reach a layer the plugin runs as f32 (kept_in_type)."""
        channels = x_dims[1] if x_dims else None
        refusal = None if self.types.pool(pl, et, x_dims, line, layer) else type_refusal(
            pl, et, channels=channels, static=x_dims is not None and all(isinstance(d, int) for d in x_dims))
        two = pl.outputs == 2 and len(layer.outputs) == 2
        port = (layer.id, layer.outputs[1].id) if two else None
        if refusal and two and refusal != type_refusal(pl, et, indices_used=True, channels=channels):
            if kept_in_type(pl, et):                    # (bf16 below AVX-512: its used indices make it f32)
                self.f32_chain[layer.id] = (*refusal, line, layer)
            if port not in self.read_from_waiting:
                self.unless_used[port] = (*refusal, line, layer)
                self.index_ports.setdefault(port, None)
            refusal = None
        elif refusal and refusal[0] == "bad-precision" and kept_in_type(pl, et):
            self.f32_chain[layer.id] = (*refusal, line, layer)           # (said in finish, if it is)
        elif refusal:
            self.finding(*refusal, line, layer)
        if not two:
            return
        self.watch_indices(layer)
        if refusal and refusal[0] == "bad-precision":
            return
        used = type_refusal(pl, et, indices_used=True)
        if used and used != type_refusal(pl, et):
            if port in self.read_from_waiting:          # (a waiting layer: its edges are read)
                self.finding(used[0], f"{used[1]} (an edge uses its output port {port[1]})", layer.outputs[1].line,
                             layer)
            else:
                self.index_ports[port] = used           # (code, why): said if an edge uses it

    def extra_outputs(self, layer: Layer, op: str, outputs: int) -> None:
        """Output ports past the op's `outputs`. From IR v11 on read_model refuses the file. In IR v10 an edge
        names an output by its position among the ports (measured, 2026.4.1): an edge from a port at or past
        the op's count is refused, said when the edges are read (index_ports)."""
        if len(layer.outputs) <= outputs:                  # (fewer: OpenVINO reads them)
            return
        why = (f"{op} has {outputs} output port(s), the layer declares {len(layer.outputs)}: read_model refuses the"
               " file (\"node index is out of range\")")
        if self.doc.ir_version != "10":
            self.finding("bad-structure", why, layer.line, layer)
            return
        for port in layer.outputs[outputs:]:
            key = (layer.id, port.id)
            if key in self.read_from_waiting:
                self.finding("bad-structure", f"{why} (an edge uses port {port.id})", layer.line, layer)
            elif self.index_ports.get(key) is None:
                self.index_ports[key] = ("bad-structure", f"{why}, and in IR v10 an edge from its output at"
                                         f" position {layer.outputs.index(port)}")

    def watch_indices(self, layer: Layer) -> None:
        """A MaxPool-8/14 or AdaptiveMaxPool with an indices port: on a tier that does not pool bf16 natively, an
        edge from it makes the plugin run the layer (a reference implementation) and what feeds it in f32."""
        tier = cpu.one()
        if tier is None or tier.native("bf16") or len(layer.outputs) < 2:
            return
        port = (layer.id, layer.outputs[1].id)
        self.reference_ports.add(port)
        self.index_ports.setdefault(port, None)
        if port in self.read_from_waiting:
            self.references.add(layer.id)

    def pooling(self, layer: Layer, x_dims, in_type=None) -> Judged:
        """Check a pooling layer on input dims `x_dims` (None: dynamic rank) and element type `in_type` (None:
        its input port's precision); remember what it outputs. Its errors but for declared dims are OpenVINO's
        only where its reader builds the layer (finish())."""
        start = len(self.report.findings)
        judged = self._pooling(layer, x_dims, in_type)
        self.build_time.extend(range(start, len(self.report.findings)))
        return judged

    def _pooling(self, layer: Layer, x_dims, in_type) -> Judged:
        if is_family(layer):
            return self.family(layer, x_dims, in_type)
        rank = None if x_dims is None else len(x_dims)
        try:
            pl = interpret(layer, self.file, rank, self.doc.ir_version)
            check_dims(pl, x_dims, self.file)
        except IRError as e:
            self.finding(e.code, e.reason, e.line or layer.line, layer)
            return Judged(None, self.record(layer, x_dims, error=e.reason))
        self.attributes(layer, pl.op, pl.unknown, pl.lenient)
        x = layer.inputs[0]
        et = in_type or input_precision(self, layer)
        if et is not None:
            self.type_verdicts(layer, pl, et, x_dims, x.line)
        self.extra_outputs(layer, pl.op, pl.outputs)
        port = layer.outputs[1].id if len(layer.outputs) > 1 else None
        if pl.crashes_unless_indices_used and (layer.id, port) not in self.read_from_waiting:
            self.unless_used[(layer.id, port)] = (
                "bad-attribute", f"{pl.op} with rounding_type ceil_torch and no dilations: OpenVINO 2026.4.1 reads"
                " it, and crashes compiling it (a segmentation fault) when its indices output is not used",
                layer.data_line, layer)
            self.index_ports.setdefault((layer.id, port), None)   # (so that the edges from it are looked at)
        if x_dims is None or all(unbounded(d) for d in x_dims[2:]):
            gap = self.reshaped.why(layer.id) if self.reshaped is not None else None
            self.report.uncheck(layer.type, "their spatial input dims are dynamic and unbounded, so their output"
                                " dims are not checked: give the model's input shapes with --shape NAME=dims"
                                if gap is None else f"--shape does not reach their input: {gap}")
        if x_dims is None:                               # dynamic rank in: rank k + 2 out, every dim dynamic
            plans, computed = None, [DYNAMIC] * (pl.spec.ndim + 2)
        else:
            try:
                spec, crop = negpads.fit(pl, x_dims)
                plans = plan(spec, negpads.cut(x_dims, crop))
            except IRError as e:
                self.finding("bad-shape", f"{pl.op}: {e.reason}", x.line, layer)
                return Judged(et, self.record(layer, x_dims, pl=pl, error=e.reason))
            computed = list(x_dims)
            for a, p in zip(pl.spec.spatial_axes(rank), plans):
                computed[a] = p.out if p.out is not None else (p.bounds or DYNAMIC)
            refusal = empty_window_refusal(pl, et, x_dims, plans) or small_output_refusal(pl, et, x_dims, plans)
            if refusal:
                self.finding(*refusal, x.line, layer)
        for k, port in enumerate(layer.outputs[: pl.outputs]):
            self.port_dims(layer, pl, x_dims, plans, computed, port, first=k == 0)
            want = et.name if k == 0 and et is not None else pl.index_type if k == 1 else None
            got = element_type(port.precision)
            if got is not None and want is not None and got.name != want:
                what = f"the input's ({want})" if k == 0 else f"index_element_type {want}"
                self.finding("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                             f" {pl.op} gives {what}", port.line, layer)
            if port.dims != computed:
                self.outputs[(layer.id, port.id)] = computed
        return Judged(et, self.record(layer, x_dims, pl=pl, plans=plans, computed=computed))

    def family(self, layer: Layer, x_dims, in_type=None) -> Judged:
        """An adaptive pool, or a reduction that may be a global pool, once its shape input is known."""
        fl = self.family_layer(layer, x_dims)
        if fl is None:
            return Judged(None, None)
        self.report.count(fl.kind)
        self.attributes(layer, fl.op, fl.unknown, fl.lenient)
        et = in_type or input_precision(self, layer)
        self.family_types(layer, fl, et)
        self.extra_outputs(layer, fl.op, fl.outputs)
        computed = fl.output_dims(x_dims)
        how = fl.arithmetic(x_dims)
        for k, port in enumerate(layer.outputs[: fl.outputs]):
            self.family_port(layer, fl, port, et if k == 0 else None, computed, how)
        return Judged(et, self.record(layer, x_dims, family=fl, computed=computed, how=how))

    def family_layer(self, layer: Layer, x_dims):
        """Its FamilyLayer, read with its shape input's values (a Const's, or folded: fold.py); None where it is not
        known (said), is refused (said), or is a reduction that is not a global pool."""
        rank = None if x_dims is None else len(x_dims)
        shape_port = layer.inputs[1] if len(layer.inputs) >= 2 else None
        src = self.feeds.get((layer.id, shape_port.id)) if shape_port else None
        what = shape_input_name(layer)
        if src is not None and src[0] not in self.consts and src[0] not in self.keep_consts \
                and getattr(self.sigs.of(src[0]), "type", None) == "Const":
            self.relook.add(KeepConst(src[0]))      # (a Const not kept: judged in the next pass, with it kept)
            return None
        try:
            if shape_port is None:
                interpret_family(layer, self.file, rank, (), {}, self.doc.ir_version)   # raises: no inputs
            try:
                values, source = fold.shape_input(what, src, self.shape_ops, self.feeds, self.consts, self.bin,
                                                  self.file)
            except fold.Unknown as e:
                self.finding("unchecked", str(e), shape_port.line, layer)
                self.report.uncheck(layer.type, "their shape inputs are in a weights file that is not there"
                                    if e.missing else "their shape inputs are not known")
                return None
            early = read_model_values(source, self.bin, self.file)
            if early is not None:
                self.packed(layer, rank, source, early, values)
            return interpret_family(layer, self.file, rank, values, source.where(self.file), self.doc.ir_version)
        except IRError as e:
            if e.code == "bad-weights":
                e = e.located(**layer.where(self.file))
                self.finding(e.code, f"{e.reason} (the {what} of {layer.type} id={layer.id} name={layer.name!r})",
                             e.line, el={"id": e.layer_id, "name": e.layer_name, "type": e.layer_type})
            else:
                self.finding(e.code, e.reason, e.line or layer.line, layer)
            return None

    def family_types(self, layer: Layer, fl, et) -> None:
        """The input types the op takes, and the index types the plugin compiles (for a global one, only where an
        edge reads its indices)."""
        d = load("openvino")["ops"][fl.op]
        if et is not None and et.name not in d["input_types"]:
            by = "its op validation" if et.name in d.get("validation_refuses", ()) else "the CPU plugin, on any CPU"
            self.finding("bad-precision", f"{fl.op} on {et.name} is refused by {by} (it takes"
                         f" {', '.join(d['input_types'])})", layer.inputs[0].line, layer)
        if fl.outputs == 2:
            self.watch_indices(layer)
        if fl.outputs == 2 and fl.index_type not in d.get("compiled_index_types", (fl.index_type,)):
            why = (f"OpenVINO's CPU plugin does not compile {fl.op} with index_element_type {fl.index_type}, on any"
                   f" CPU (it takes {', '.join(d['compiled_index_types'])})")
            port = (layer.id, layer.outputs[1].id) if len(layer.outputs) > 1 else None
            if fl.out_sizes and all(n == 1 for n in fl.out_sizes):   # global: a ReduceMax unless indices are used
                if port is not None and port in self.read_from_waiting:
                    self.finding("bad-precision", f"{why} (an edge uses its indices)", layer.data_line, layer)
                elif port is not None:
                    self.index_ports[port] = ("bad-precision", f"{why}, where its indices output is used (a"
                                              " global one whose indices nothing reads becomes a ReduceMax)")
            else:
                self.finding("bad-precision", why, layer.data_line, layer)

    def family_port(self, layer: Layer, fl, port, et, computed, how) -> None:
        """One output port (`et`: the data output's type; None for the indices) against what the op gives."""
        want = (et.name if et is not None else None) if port is layer.outputs[0] else fl.index_type
        got = element_type(port.precision)
        if got is not None and want is not None and got.name != want:
            gives = "the input's" if port is layer.outputs[0] else "index_element_type"
            self.finding("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                         f" {fl.op} gives {gives} {want}", port.line, layer)
        if computed is None:
            return
        if port.dims and len(port.dims) != len(computed):
            self.finding("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {fl.op} gives rank"
                         f" {len(computed)} ({'; '.join(how)})", port.line, layer)
            self.outputs[(layer.id, port.id)] = computed
            return
        bad = [i for i, (dd, c) in enumerate(zip(port.dims, computed)) if not compatible(dd, c)]
        if bad:
            names = ["N", "C"] + list(axis_names(len(computed) - 2))
            self.finding("shape-mismatch", f"output port {port.id}: " + "; ".join(
                f"{names[i]}: computed {text(computed[i])}, declared {text(port.dims[i])}" for i in bad) +
                f" ({'; '.join(how)})", port.dim_lines[bad[0]], layer, fix=fix_of(layer, port, computed))
        if port.dims != computed:
            self.outputs[(layer.id, port.id)] = computed

    def attributes(self, layer, op, unknown, lenient) -> None:
        """What OpenVINO reads without a word: attributes the op does not have, values not written as their type."""
        names = load("openvino")["ops"][op]["attributes"]
        for name in unknown:
            near = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
            hint = f" (did you mean {near[0]}?)" if near else ""
            self.finding("unknown-attribute", f"{op} has no attribute {name}{hint}; OpenVINO ignores it",
                         layer.data_line, layer)
        for message in lenient:
            self.finding("lenient-attribute", f"{op}: {message}", layer.data_line, layer)

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

    def port_dims(self, layer, pl, x_dims, plans, computed, port, first=True) -> None:
        """A declared output port against the computed dims: a static dim must equal the computed value,
        or lie inside the computed interval. Where the spec text differs, a note on the `first` port only."""
        rank = pl.spec.ndim + 2
        if port.dims and len(port.dims) != rank:
            self.finding("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {pl.op} gives rank"
                         f" {rank}", port.line, layer)
            return
        if plans is None:
            return                                        # dynamic rank in: nothing to contradict
        problems, divergences, first_line, follows_spec = [], [], None, False
        axes = pl.spec.spatial_axes(rank)
        for i, declared in enumerate(port.dims):
            line = port.dim_lines[i]
            if i in axes:
                p = plans[axes.index(i)]
                how, spec_text = p.arithmetic, _spec_text_out(p, pl.spec.auto_pad)
            else:
                how, spec_text = f"{'N' if i == 0 else 'C'}: {text(x_dims[i])} from the input", None
            if not compatible(declared, computed[i]):
                inside = "" if isinstance(computed[i], int) else ", outside that interval"
                problems.append(f"{how}, declared {text(declared)}{inside}")
                follows_spec = follows_spec or spec_text == declared
                first_line = first_line or line
            elif first and spec_text is not None and isinstance(declared, int) and spec_text != declared:
                divergences.append(f"{p.name}: declared {declared} matches the OpenVINO runtime, but the spec text's"
                                   f" {pl.spec.auto_pad} formula gives {spec_text}")
        if problems:
            if follows_spec:
                problems[-1] += (f" (the declared dims follow the spec text's {pl.spec.auto_pad} formula; the OpenVINO"
                                 " runtime, which wins, computes the values above)")
            self.finding("shape-mismatch", f"output port {port.id}: " + "; ".join(problems), first_line, layer,
                         fix=fix_of(layer, port, computed))
        if divergences:
            self.finding("spec-divergence", f"output port {port.id}: " + "; ".join(divergences), port.line, layer)
