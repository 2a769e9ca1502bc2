"""irpool.check: what a pooling layer declares against what OpenVINO computes, as a list of findings."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from lxml import etree

from ..core import plan
from ..errors import IRError
from .layers import POOL_TYPES, check_dims, dtype_of, input_types, interpret, is_pooling
from .parse import (EDGE_ENDS, MAX_BYTES, Document, Layer, _edge, _layer, _lenient_dim, belongs, light_ports,
                    parse_dim)


@dataclass
class Finding:
    code: str            # shape-mismatch, bad-attribute, edge-mismatch, ...
    severity: str        # error | warning
    message: str
    line: int | None
    layer_id: str | None = None
    layer_name: str | None = None
    layer_type: str | None = None
    file: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def __str__(self) -> str:
        who = ""
        if self.layer_id is not None or self.layer_name is not None:
            who = f" layer id={self.layer_id} name={self.layer_name!r} ({self.layer_type})"
        return f"{self.file or '<string>'}:{self.line}: {self.severity}: [{self.code}]{who}: {self.message}"


@dataclass
class Report:
    file: str | None
    findings: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No error findings (warnings allowed)."""
        return not any(f.severity == "error" for f in self.findings)

    def errors(self) -> list:
        return [f for f in self.findings if f.severity == "error"]


_EDGE_XPATHS = [etree.XPath(f"edge/@{k}", smart_strings=False) for k in EDGE_ENDS]


class _Checker:
    """The state of one streaming check: what an edge needs to know of every layer read so far."""

    def __init__(self, doc: Document, report: Report):
        self.doc, self.file, self.add = doc, doc.file, report.findings.append
        self.seen = {}          # layer id -> (name, type, ((output port id, raw dims), ...), (input ...))
        self.shared = {}        # one copy of each distinct port list: memory grows with distinct shapes
        self.clean = {}         # key of a pooling or Parameter layer that gave no finding -> its ports
        self.deferred = []      # edges read before the layers they name

    def layers(self, holder, n) -> None:
        for el in holder[:n]:
            if not belongs(el, holder, self.doc.problems):
                continue
            lid = el.get("id")
            if lid in self.seen:
                self.add(Finding("duplicate-id", "error", f"layer id {lid} is used by more than one layer",
                                 el.sourceline, layer_id=lid, layer_name=el.get("name"), layer_type=el.get("type"),
                                 file=self.file))
            if _modelled(el.get("type")):
                key = (tuple(kv for kv in el.items() if kv[0] not in ("id", "name")),
                       tuple(etree.tostring(child, with_tail=False) for child in el))
                ports = self.clean.get(key)
                if ports is None:
                    self.layer(_layer(el, self.doc.problems), key)
                    continue
            else:
                ports = light_ports(el)
                if ports is None:
                    self.layer(_layer(el, self.doc.problems))
                    continue
            self.remember(lid, el.get("name"), el.get("type"), ports)

    def layer(self, layer: Layer, key=None) -> None:
        """A layer read in full: a pooling or Parameter layer, or one the light reading found odd. `key`:
        the layer as written but for its id and name; a key that gave no finding is not checked again."""
        problems, findings = len(self.doc.problems), []
        for ports in (layer.inputs, layer.outputs):
            ids = [p.id for p in ports]
            for pid in sorted({i for i in ids if ids.count(i) > 1}):
                findings.append(Finding("duplicate-id", "error", f"port id {pid} appears {ids.count(pid)} times",
                                        layer.line, **_who(layer, self.file)))
        if layer.type == "Parameter":
            _check_parameter(layer, self.file, findings.append)
        elif is_pooling(layer):
            _check_pooling(layer, self.file, findings.append)
        for f in findings:
            self.add(f)
        ports = ({p.id: p.raw_dims for p in layer.outputs}, {p.id: p.raw_dims for p in layer.inputs})
        if key is not None and not findings and len(self.doc.problems) == problems:
            self.clean[key] = ports
        self.remember(layer.id, layer.name, layer.type, ports)

    def remember(self, lid, name, layer_type, ports) -> None:
        if lid not in self.seen:
            outs, ins = (self.shared.setdefault(t, t) for t in (tuple(ports[0].items()), tuple(ports[1].items())))
            self.seen[lid] = (name, self.shared.setdefault(layer_type, layer_type), outs, ins)

    def edges(self, holder, n) -> None:
        ends = [x(holder) for x in _EDGE_XPATHS]
        if any(len(e) != len(holder) for e in ends):    # not every child an edge with 4 ends: read each in full
            edges = [_edge(el, self.doc.problems) if belongs(el, holder, self.doc.problems) else None
                     for el in holder[:n]]
            edges = [e and (e.from_layer, e.from_port, e.to_layer, e.to_port) for e in edges]
        else:
            edges = list(zip(*ends))[:n]
        for i, e in enumerate(edges):
            if e is None:
                continue
            if not self.seen:
                self.deferred.append(e + (holder[i].sourceline,))
                continue
            problem = self.edge_problem(*e[:4])
            if problem:
                self.edge_finding(problem, e[2], holder[i].sourceline)

    def edge_problem(self, fl, fp, tl, tp) -> str | None:
        src, dst = self.seen.get(fl), self.seen.get(tl)
        name = f"edge {fl}:{fp} -> {tl}:{tp}"
        if src is None or dst is None:
            return f"{name} names a layer that does not exist"
        a = next((dims for pid, dims in src[2] if pid == fp), None)
        b = next((dims for pid, dims in dst[3] if pid == tp), None)
        if a is None or b is None:
            side = f"output port {fp} of layer {fl}" if a is None else f"input port {tp} of layer {tl}"
            return f"{name}: {side} does not exist"
        if a != b:
            da, db = [_lenient_dim(t) for t in a], [_lenient_dim(t) for t in b]
            if len(da) != len(db) or any(x is not None and y is not None and x != y for x, y in zip(da, db)):
                return f"{name} joins dims [{','.join(map(str, a))}] to [{','.join(map(str, b))}]"
        return None

    def edge_finding(self, problem: str, to_layer: str, line: int) -> None:
        dst = self.seen.get(to_layer)
        who = {} if dst is None else dict(layer_id=to_layer, layer_name=dst[0], layer_type=dst[1])
        self.add(Finding("edge-mismatch", "error", problem, line, file=self.file, **who))


def check(source, *, max_bytes: int = MAX_BYTES) -> Report:
    """Check every pooling layer, every edge and every Parameter of an IR file, string or bytes.

    Streams: layers are checked as they are read and then kept only as their ports' raw dims, for the
    edges; a pooling or Parameter layer identical (but for id and name) to one found clean is not checked again.
    """
    doc = Document(source, max_bytes=max_bytes)
    report = Report(doc.file)
    checker = _Checker(doc, report)
    for holder, n in doc.batches():
        if holder is None:
            checker.layer(_layer(n, doc.problems))
        elif holder.tag == "layers":
            checker.layers(holder, n)
        else:
            checker.edges(holder, n)
    for fl, fp, tl, tp, line in checker.deferred:
        problem = checker.edge_problem(fl, fp, tl, tp)
        if problem:
            checker.edge_finding(problem, tl, line)
    for line, message in doc.problems:
        report.findings.append(Finding("bad-structure", "error", message, line, file=doc.file))
    report.findings.sort(key=lambda f: (f.line or 0))
    return report


def _modelled(layer_type) -> bool:
    return layer_type == "Parameter" or layer_type in POOL_TYPES


def _who(layer: Layer, file) -> dict:
    return dict(layer_id=layer.id, layer_name=layer.name, layer_type=layer.type, file=file)


def _from_error(e: IRError, layer: Layer, file) -> Finding:
    return Finding(e.code, "error", e.reason, e.line or layer.line, **_who(layer, file))


def _spec_text_out(p, auto_pad: str):
    """The output length by the OpenVINO spec's own formulas, where they differ from the runtime."""
    if p.length is None:
        return None
    if auto_pad in ("same_upper", "same_lower"):
        return p.length                      # the spec: "H_out = H"
    if auto_pad == "valid":
        return math.ceil((p.length - p.dilated_kernel + 1) / p.stride)
    return p.out


def _check_pooling(layer: Layer, file, add) -> None:
    try:
        pl = interpret(layer, file)
        check_dims(pl, layer.inputs[0].dims, file)
    except IRError as e:
        add(_from_error(e, layer, file))
        return
    for name in pl.unknown:
        add(Finding("unknown-attribute", "warning", f"{pl.op} has no attribute {name}; OpenVINO ignores it",
                    layer.data_line, **_who(layer, file)))
    x = layer.inputs[0]
    in_type = dtype_of(x.precision)
    if x.precision is not None and (in_type is None or
                                    not any(dtype_of(t) == in_type for t in input_types(pl.op))):
        add(Finding("bad-precision", "error", f"{pl.op} does not take input precision {x.precision}"
                    f" (it takes {', '.join(input_types(pl.op))})", x.line, **_who(layer, file)))
    try:
        plans = plan(pl.spec, x.dims)
    except IRError as e:
        add(Finding("bad-shape", "error", f"{pl.op}: {e.reason}", x.line, **_who(layer, file)))
        return
    if len(layer.outputs) != pl.outputs:
        add(Finding("bad-structure", "error", f"{pl.op} has {pl.outputs} output port(s), the layer declares"
                    f" {len(layer.outputs)}", layer.line, **_who(layer, file)))
    index_type = {"int32": "i32", "int64": "i64"}[pl.spec.index_dtype]
    for k, port in enumerate(layer.outputs[: pl.outputs]):
        _check_port_dims(layer, pl, x, plans, port, file, add)
        want_type = in_type if k == 0 else dtype_of(index_type)
        if port.precision is not None and want_type is not None and dtype_of(port.precision) != want_type:
            what = "the input's" if k == 0 else f"index_element_type {index_type}"
            add(Finding("precision-mismatch", "error", f"output port {port.id} declares precision {port.precision};"
                        f" {pl.op} gives {what} ({want_type})", port.line, **_who(layer, file)))


def _check_port_dims(layer, pl, x, plans, port, file, add) -> None:
    if len(port.dims) != len(x.dims):
        add(Finding("shape-mismatch", "error", f"output port {port.id} has rank {len(port.dims)}, the input has"
                    f" rank {len(x.dims)}", port.line, **_who(layer, file)))
        return
    problems, divergences, first_line, follows_spec = [], [], None, False
    axes = pl.spec.spatial_axes(len(x.dims))
    for i in range(len(x.dims)):
        declared = port.dims[i]
        line = port.dim_lines[i] if i < len(port.dim_lines) else port.line
        if i in axes:
            p = plans[axes.index(i)]
            computed, text, spec_text = p.out, p.arithmetic, _spec_text_out(p, pl.spec.auto_pad)
        else:
            computed = spec_text = x.dims[i]
            text = f"{'N' if i == 0 else 'C'}: {computed} from the input"
        if declared is None or computed is None:
            continue                              # a dynamic dim is never flagged
        if declared != computed:
            problems.append(f"{text}, declared {declared}")
            follows_spec = follows_spec or spec_text == declared
            first_line = first_line or line
        elif spec_text is not None and spec_text != computed:
            divergences.append(f"{p.name}: declared {declared} matches the OpenVINO runtime, but the spec text's"
                               f" {pl.spec.auto_pad} formula gives {spec_text}")
    if problems:
        if follows_spec:
            problems[-1] += (f" (the declared dims follow the spec text's {pl.spec.auto_pad} formula; the OpenVINO"
                             " runtime, which wins, computes the values above)")
        add(Finding("shape-mismatch", "error", f"output port {port.id}: " + "; ".join(problems), first_line,
                    **_who(layer, file)))
    if divergences:
        add(Finding("spec-divergence", "warning", f"output port {port.id}: " + "; ".join(divergences), port.line,
                    **_who(layer, file)))


def parameter_shape(layer: Layer) -> list | None:
    """A Parameter's data shape as [int | None | (lo, hi)], or None when it has none; ValueError if unreadable."""
    text = layer.data.get("shape")
    if text is None:
        return None
    text = text.strip().strip("[]")
    if text in ("", "..."):
        return [] if text == "" else None
    dims = []
    for t in text.split(","):
        t = t.strip()
        if ".." in t:
            lo, hi = t.split("..", 1)
            dims.append((int(lo) if lo else 0, int(hi) if hi else None))
        else:
            dims.append(parse_dim(t))
    return dims


def _check_parameter(layer: Layer, file, add) -> None:
    try:
        shape = parameter_shape(layer)
    except ValueError:
        add(Finding("bad-attribute", "error", f'Parameter shape="{layer.data.get("shape")}" is not a shape',
                    layer.data_line, **_who(layer, file)))
        return
    et = layer.data.get("element_type")
    if et is not None and dtype_of(et) is None:
        add(Finding("bad-attribute", "error", f'Parameter element_type="{et}" is not an element type irpool knows',
                    layer.data_line, **_who(layer, file)))
    if shape is None or not layer.outputs:
        return
    port = layer.outputs[0]
    if len(port.dims) != len(shape):
        add(Finding("shape-mismatch", "error", f"Parameter shape has rank {len(shape)}, its output port {port.id}"
                    f" has rank {len(port.dims)}", port.line, **_who(layer, file)))
        return
    for i, (s, d) in enumerate(zip(shape, port.dims)):
        if isinstance(s, int) and d is not None and s != d:
            add(Finding("shape-mismatch", "error", f"Parameter shape dim {i} is {s}, its output port {port.id}"
                        f" declares {d}", port.dim_lines[i], **_who(layer, file)))
