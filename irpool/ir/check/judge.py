"""The rules of one MaxPool or AvgPool, apart from the streaming check's bookkeeping (pooling.py): read() takes its
<data> on its input's rank, computed() the dims it outputs on its input dims; reading_findings() and dims_findings()
say what of the layer that record contradicts, as found.Found that leave the layer to the caller (attributes
OpenVINO reads without a word; a refusal of its shape or windows, each output port's dims and precision), check
saying the CPU plugin's type verdicts between the two. Nothing of the net is read or written here; explain's record
is made of a Judged."""
from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, replace

from ... import empty
from ...core import axis_names, plan
from ...core.spec import MAX_DIM
from ...errors import IRError
from ...opdefs import load
from ..ops import negpads
from ..read.dims import DYNAMIC, compatible, text
from ..read.element_types import element_type
from ..ops.pools import check_dims, interpret
from ..ops.type_refusals import empty_window_refusal, small_output_refusal
from ..read.layer_edge import Layer
from .found import Found


@dataclass(frozen=True)
class Judged:
    """What judging one MaxPool or AvgPool found: its reading `pl` (None where its attributes are refused, and
    `error` says why), the element type `et` it is judged on, the per-axis plans and the dims it outputs (None
    where not computed: `error` says why where OpenVINO refuses its shape), and the plugin's refusal of its
    windows or output on those dims, (code, why)."""
    layer: Layer
    x_dims: list | None
    pl: object = None
    et: object = None
    plans: list | None = None
    computed: list | None = None
    error: IRError | None = None
    refusal: tuple | None = None


def read(layer: Layer, x_dims, file, ir_version, readings: dict | None = None) -> Judged:
    """Its attributes read on its input's rank (None: dynamic) and checked against its input dims. `readings`:
    the caller's dict of what such attributes were read as (a model's pools share a few; its ids, names and dims
    are not in the key, and a refusal is never kept: its error names the layer)."""
    rank = None if x_dims is None else len(x_dims)
    key = (layer.type, layer.version, tuple(layer.data.items()), len(layer.inputs), rank, ir_version)
    known = readings.get(key) if readings is not None else None
    try:
        if known is not None:
            pl = replace(known, layer=layer)
        else:
            pl = interpret(layer, file, rank, ir_version)
            if readings is not None:
                if len(readings) >= _READINGS:
                    readings.clear()
                readings[key] = pl
        check_dims(pl, x_dims, file)
    except IRError as e:
        return Judged(layer, x_dims, error=e)
    return Judged(layer, x_dims, pl=pl)


_READINGS = 1 << 10       # readings a caller's dict keeps, at most


def computed(j: Judged, et) -> Judged:
    """The record of a layer read, with what it outputs on its input dims when judged on element type `et`."""
    pl, x_dims = j.pl, j.x_dims
    if x_dims is None:                               # dynamic rank in: rank k + 2 out, every dim dynamic
        return replace(j, et=et, computed=[DYNAMIC] * (pl.spec.ndim + 2))
    try:
        spec, crop = negpads.fit(pl, x_dims)
        plans = plan(spec, negpads.cut(x_dims, crop))
    except IRError as e:
        return replace(j, et=et, error=e)
    out = list(x_dims)
    for a, p in zip(pl.spec.spatial_axes(len(x_dims)), plans):
        out[a] = p.out if p.out is not None else (p.bounds or DYNAMIC)
    refusal = empty_window_refusal(pl, et, x_dims, plans) or small_output_refusal(pl, et, x_dims, plans)
    return replace(j, et=et, plans=plans, computed=out, refusal=refusal)


def reading_findings(j: Judged) -> list:
    """Why its attributes are refused, or what in them OpenVINO reads without a word."""
    if j.pl is None:
        return [Found(j.error.code, j.error.reason, j.error.line or j.layer.line)]
    return attribute_findings(j.pl.op, j.pl.unknown, j.pl.lenient, j.layer.data_line)


def dims_findings(j: Judged) -> list:
    """Why OpenVINO refuses its shape or windows, and what its output ports declare against what it computes."""
    layer, pl, e, said = j.layer, j.pl, j.error, []
    if pl is None:
        return []
    x = layer.inputs[0]
    if e is not None:
        stand_in = f" ({MAX_DIM} stands for the kernel as written, larger than any input: the lenient-attribute" \
            " warning says how OpenVINO reads it)" if MAX_DIM in pl.spec.kernel and "kernel" in pl.layer.data else ""
        return [Found("bad-shape", f"{pl.op}: {e.reason}{stand_in}", x.line)]
    if j.refusal:
        said.append(Found(*j.refusal, x.line))
    windows = empty.empty_windows(j.plans) if j.plans and pl.spec.reduction == "max" else []
    if windows:                 # (graph_verdicts.with_reach adds the Results computed from them)
        said.append(Found("empty-window", empty.message(windows, j.et.numpy if j.et else None), layer.data_line))
    for k, port in enumerate(layer.outputs[: pl.outputs]):
        said += port_findings(j, port, first=k == 0)
        want = j.et.name if k == 0 and j.et is not None else pl.index_type if k == 1 else None
        got = element_type(port.precision)
        if got is not None and want is not None and got.name != want:
            what = f"the input's ({want})" if k == 0 else f"index_element_type {want}"
            said.append(Found("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                             f" {pl.op} gives {what}", port.line))
    return said


def attribute_findings(op: str, unknown, lenient, line) -> list:
    """What OpenVINO reads without a word: attributes the op does not have, values not written as their type."""
    names = load("openvino")["ops"][op]["attributes"]
    said = []
    for name in unknown:
        near = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
        hint = f" (did you mean {near[0]}?)" if near else ""
        said.append(Found("unknown-attribute", f"{op} has no attribute {name}{hint}; OpenVINO ignores it", line))
    return said + [Found("lenient-attribute", f"{op}: {message}", line) for message in lenient]


def port_findings(j: Judged, port, first=True) -> list:
    """A declared output port against the computed dims: a static dim must equal the computed value, or lie
    inside the computed interval. Where the spec text differs, a note on the `first` port only."""
    layer, pl, x_dims, plans, computed = j.layer, j.pl, j.x_dims, j.plans, j.computed
    rank = pl.spec.ndim + 2
    if port.dims and len(port.dims) != rank:
        return [Found("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {pl.op} gives rank {rank}",
                     port.line)]
    if plans is None:
        return []                                         # dynamic rank in: nothing to contradict
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
    said = []
    if problems:
        if follows_spec:
            problems[-1] += (f" (the declared dims follow the spec text's {pl.spec.auto_pad} formula; the OpenVINO"
                             " runtime, which wins, computes the values above)")
        said.append(Found("shape-mismatch", f"output port {port.id}: " + "; ".join(problems), first_line,
                           fix=fix_of(layer, port, computed)))
    if divergences:
        said.append(Found("spec-divergence", f"output port {port.id}: " + "; ".join(divergences), port.line))
    return said


def family_port_findings(layer: Layer, fl, port, et, computed, how) -> list:
    """An adaptive pool's or global reduction's output port (`et`: the data output's type; None for the indices)
    against what the op gives (`fl`: its family.FamilyLayer; `how`: the arithmetic, in words)."""
    said = []
    want = (et.name if et is not None else None) if port is layer.outputs[0] else fl.index_type
    got = element_type(port.precision)
    if got is not None and want is not None and got.name != want:
        gives = "the input's" if port is layer.outputs[0] else "index_element_type"
        said.append(Found("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                         f" {fl.op} gives {gives} {want}", port.line))
    if computed is None:
        return said
    if port.dims and len(port.dims) != len(computed):
        return said + [Found("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {fl.op} gives rank"
                            f" {len(computed)} ({'; '.join(how)})", port.line)]
    bad = [i for i, (dd, c) in enumerate(zip(port.dims, computed)) if not compatible(dd, c)]
    if bad:
        names = ["N", "C"] + list(axis_names(len(computed) - 2))
        said.append(Found("shape-mismatch", f"output port {port.id}: " + "; ".join(
            f"{names[i]}: computed {text(computed[i])}, declared {text(port.dims[i])}" for i in bad) +
            f" ({'; '.join(how)})", port.dim_lines[bad[0]], fix=fix_of(layer, port, computed)))
    return said


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
