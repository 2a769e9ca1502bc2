"""irpool.check: what a pooling layer declares against what OpenVINO computes, as a list of findings."""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import asdict, dataclass, field

from ..core import plan
from ..errors import IRError
from .layers import check_dims, dtype_of, input_types, interpret, is_pooling
from .parse import Layer, Net, parse, parse_dim


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


def check(source) -> Report:
    """Check every pooling layer, every edge and every Parameter of an IR file, string or bytes."""
    net = parse(source)
    report = Report(net.file)
    add = report.findings.append
    for line, message in net.problems:
        add(Finding("bad-structure", "error", message, line, file=net.file))
    for lid, n in Counter(lay.id for lay in net.layers).items():
        if n > 1 and lid is not None:
            dup = [lay for lay in net.layers if lay.id == lid][1]
            add(Finding("duplicate-id", "error", f"layer id {lid} is used by {n} layers", dup.line,
                        **_who(dup, net.file)))
    for layer in net.layers:
        for ports in (layer.inputs, layer.outputs):
            for pid, n in Counter(p.id for p in ports).items():
                if n > 1:
                    add(Finding("duplicate-id", "error", f"port id {pid} appears {n} times", layer.line,
                                **_who(layer, net.file)))
        if layer.type == "Parameter":
            _check_parameter(layer, net.file, add)
        elif is_pooling(layer):
            _check_pooling(layer, net.file, add)
    if not net.is_snippet:
        _check_edges(net, add)
    report.findings.sort(key=lambda f: (f.line or 0))
    return report


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


def _check_edges(net: Net, add) -> None:
    for e in net.edges:
        src, dst = net.layer(e.from_layer), net.layer(e.to_layer)
        problem = None
        if src is None or dst is None:
            problem = f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port} names a layer that does not exist"
        else:
            sp = next((p for p in src.outputs if p.id == e.from_port), None)
            dp = next((p for p in dst.inputs if p.id == e.to_port), None)
            if sp is None or dp is None:
                side = f"output port {e.from_port} of layer {e.from_layer}" if sp is None else \
                    f"input port {e.to_port} of layer {e.to_layer}"
                problem = f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port}: {side} does not exist"
            elif len(sp.dims) != len(dp.dims) or any(a is not None and b is not None and a != b
                                                     for a, b in zip(sp.dims, dp.dims)):
                problem = (f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port} joins dims"
                           f" [{','.join(map(str, sp.raw_dims))}] to [{','.join(map(str, dp.raw_dims))}]")
        if problem:
            add(Finding("edge-mismatch", "error", problem, e.line, file=net.file,
                        **({} if dst is None else dict(layer_id=dst.id, layer_name=dst.name, layer_type=dst.type))))
