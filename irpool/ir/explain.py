"""irpool explain: everything that decides each pooling layer's output, axis by axis, as text or as data.

Pooling here is what OpenVINO's converters write for it: MaxPool and AvgPool, AdaptiveAvgPool and
AdaptiveMaxPool (their output_shape read from the .bin), and ReduceMean/ReduceMax over exactly the spatial axes,
which is how torch's AdaptiveAvgPool2d(1), ONNX GlobalAveragePool and Keras GlobalAveragePooling2D arrive.

It rides on check (check(explain=True)): so it streams as check does, sees the intervals check propagates
from Parameters, and reaches into If/Loop/TensorIterator bodies.
"""
from __future__ import annotations

from .. import drawing, select
from ..core.shape import axis_names, out_length
from .ops import negpads
from .check.passes import check
from .read.dims import DYNAMIC, compatible, text
from .read.ids import key
from ..limits import MAX_BYTES


def _same_pads(p, auto_pad: str) -> str:
    """How a same_* or valid axis got its pads."""
    if auto_pad == "valid":
        return "valid: no padding; pads_begin/pads_end are ignored"
    if p.length is None:
        return f"{auto_pad}: the pads depend on the input length, which is dynamic"
    dk, total = p.dilated_kernel, p.pad_begin + p.pad_end
    return (f"{auto_pad}: total = max(0, (ceil({p.length}/{p.stride}) - 1) * {p.stride} + {dk} - {p.length}) = {total}:"
            f" {p.pad_begin} before, {p.pad_end} after; pads_begin/pads_end are ignored")


def _attributes(pl) -> dict:
    s = pl.spec
    pads = pl.raw_pads or (s.pads_begin, s.pads_end)             # (negative ones as written: negpads.py)
    attrs = dict(kernel=list(s.kernel), strides=list(s.strides), dilations=list(s.dilations),
                 pads_begin=list(pads[0]), pads_end=list(pads[1]), auto_pad=s.auto_pad, rounding_type=s.rounding)
    if s.reduction == "avg":
        attrs["exclude-pad"] = s.count == "exclude_pad"
    if pl.outputs == 2:
        attrs.update(index_element_type=pl.index_type, axis=s.index_axis)
    return attrs


def _family_entry(rec) -> dict:
    """An adaptive pool or a global reduction: its shape input's values, and per axis what it outputs."""
    layer, fl, x_dims, computed = rec["layer"], rec["family"], rec["x_dims"], rec["computed"]
    attrs = {"output_shape" if fl.family == "adaptive" else "axes": list(fl.values)}
    attrs.update(index_element_type=fl.index_type) if fl.outputs == 2 else None
    attrs.update(keep_dims=fl.keep_dims) if fl.family == "global" else None
    e = dict(front_end="ir", layer_id=layer.id, layer_name=layer.name, layer_type=layer.type, version=layer.version,
             op=fl.op, kind=fl.kind, line=layer.line, path=rec["path"] or None,
             input=None if x_dims is None else [text(d) for d in x_dims], input_from=None, error=None,
             attributes=attrs, axes=[dict(axis=name, arithmetic=how) for name, how in zip(_names(fl, x_dims),
                                                                                         rec["how"])], outputs=[])
    names = ["N", "C"] + list(axis_names(len(computed) - 2)) if computed is not None else []
    for port in layer.outputs[: fl.outputs] if computed is not None else ():
        differs = ["rank"] if port.dims and len(port.dims) != len(computed) else \
            [names[i] for i, (d, c) in enumerate(zip(port.dims, computed)) if not compatible(d, c)]
        e["outputs"].append(dict(port=port.id, name=port.names, computed=[text(c) for c in computed],
                                 declared=[text(d) for d in port.dims] if port.dims else None, differs=differs))
    return e


def _names(fl, x_dims) -> tuple:
    """The names of the axes the family layer's arithmetic lines speak of."""
    return axis_names(len(fl.out_sizes) if fl.family == "adaptive" else len(x_dims) - 2 if x_dims else 0)


def _entry(rec) -> dict:
    if rec.get("family") is not None:
        return _family_entry(rec)
    layer, pl, plans = rec["layer"], rec["pl"], rec["plans"]
    x_dims = rec["x_dims"]
    e = dict(front_end="ir", layer_id=layer.id, layer_name=layer.name, layer_type=layer.type, version=layer.version,
             op=pl.op if pl else None, line=layer.line, path=rec["path"] or None,
             input=None if x_dims is None else [text(d) for d in x_dims], input_from=None, error=rec["error"],
             attributes=_attributes(pl) if pl else None, axes=[], outputs=[])
    crop = negpads.fit(pl, x_dims)[1] if pl and x_dims is not None and plans else None
    for i, p in enumerate(plans or ()):
        cut = crop[i] if crop else None
        pads_from = None if pl.spec.auto_pad == "explicit" else _same_pads(p, pl.spec.auto_pad)
        if cut is not None:
            pads_from = (f"pads {pl.raw_pads[0][i]}, {pl.raw_pads[1][i]} as OpenVINO reads them: it pools cells"
                         f" {cut.start}..{cut.stop - 1} of the input, padded {p.pad_begin}+{p.pad_end} (drawn so)")
        e["axes"].append(dict(axis=p.name, input=text(p.length) if p.length is not None else None,
                              kernel=p.kernel, stride=p.stride, dilation=p.dilation, dilated_kernel=p.dilated_kernel,
                              pads=None if p.pad_begin is None else [p.pad_begin, p.pad_end],
                              pads_from=pads_from,
                              output=text(p.out) if p.out is not None else text(p.bounds or DYNAMIC),
                              arithmetic=p.arithmetic, drawing=_drawing(p, pl.spec.rounding)))
    computed = rec["computed"]
    if computed is not None:
        names = ["N", "C"] + [p.name for p in plans or ()] if plans else []
        for port in layer.outputs[: pl.outputs]:
            differs = [names[i] if i < len(names) else str(i) for i, (d, c) in enumerate(zip(port.dims, computed))
                       if not compatible(d, c)]
            if port.dims and len(port.dims) != len(computed):
                differs = ["rank"]
            e["outputs"].append(dict(port=port.id, name=port.names, computed=[text(c) for c in computed],
                                     declared=[text(d) for d in port.dims] if port.dims else None, differs=differs))
    return e


def _drawing(p, rounding: str) -> list:
    """The axis drawn (drawing.axis), with the window ceil_torch drops where ceil would keep it."""
    if p.length is None or p.out is None or p.pad_begin is None:
        return []
    extra = None
    if rounding == "ceil_torch":
        if out_length(p.length, p.dilated_kernel, p.stride, p.pad_begin, p.pad_end, "ceil") != p.out:
            extra = (f"starts at cell {p.out * p.stride - p.pad_begin}, in the end padding: rounding_type ceil_torch"
                     " drops it, ceil would keep it")
    return drawing.axis(p.name, p.length, p.kernel, p.stride, p.dilation, p.pad_begin, p.pad_end, p.out, extra)


def each_entry(source, sink, layer: str | None = None, *, max_bytes: int = MAX_BYTES, bin=None,  # noqa: A002
               shapes=None) -> int:
    """Hand `sink` one dict per pooling layer as check reaches it (bodies included; a layer whose input
    waits for the edges comes after the others): its attributes with defaults applied, input, each axis's
    pads and arithmetic, each output port's computed and declared dims; `error` when it cannot be computed.
    `layer` selects by id or name (irpool.select; id:/name: to say which); `shapes`: --shape (check's). Keeps
    nothing: memory stays as check's.
    Returns how many were handed."""
    sel = select.parse(layer, key) if layer is not None else None
    count, by_id, by_name, known = 0, [], [], []

    def take(rec):
        nonlocal count
        count += 1
        lay = rec["layer"]
        if sel is None:
            sink(_entry(rec))
            return
        if len(known) < select.SHOWN:
            known.append(f"id={lay.id} name={lay.name!r} ({lay.type})")
        if sel.id == lay.id:
            by_id.append(_entry(rec))
        elif sel.name == lay.name:
            by_name.append(_entry(rec))
    report = check(source, max_bytes=max_bytes, explain=take, bin=bin, shapes=shapes)
    if sel is None:
        return count
    chosen = select.choose(sel, by_id, by_name, lambda e: f"layer id={e['layer_id']} name={e['layer_name']!r}"
                           f" ({e['layer_type']}, line {e['line']})", report.file)
    if not chosen:
        raise select.missing(sel, "pooling layer", known, count, report.file)
    for e in chosen:
        sink(e)
    return len(chosen)


def explain_entries(source, layer: str | None = None, *, max_bytes: int = MAX_BYTES, bin=None,  # noqa: A002
                    shapes=None) -> list:
    """each_entry's dicts as a list, in document order."""
    entries = []
    each_entry(source, entries.append, layer, max_bytes=max_bytes, bin=bin, shapes=shapes)
    return sorted(entries, key=lambda e: e["line"] or 0)


def render(e: dict) -> str:
    head = f"layer id={e['layer_id']} name={e['layer_name']!r} {e['layer_type']} ({e['version']})"
    head += f" = {e['op']}" if e["op"] else ""
    head += f", line {e['line']}" + (f", in {e['path']}" if e["path"] else "")
    if e["error"]:
        return f"{head}\n  cannot be computed: {e['error']}"
    a = e["attributes"]
    lines = [head, "  " + "  ".join(f"{k} {','.join(map(str, v)) if isinstance(v, list) else str(v).lower()}"
                                    for k, v in a.items()),
             f"  input [{','.join(e['input'])}]" if e["input"] is not None else "  input: dynamic rank"]
    for ax in e["axes"]:
        if "kernel" not in ax:                       # the pooling family: bins, or a reduced axis
            lines.append(f"  {ax['arithmetic']}")
            continue
        pads = f"pads {ax['pads'][0]}+{ax['pads'][1]}" if ax["pads"] else "pads unknown"
        lines.append(f"  {ax['arithmetic']}   (kernel {ax['kernel']}, stride {ax['stride']}, dilation"
                     f" {ax['dilation']}, {pads})")
        if ax["pads_from"]:
            lines.append(f"      {ax['pads_from']}")
        lines.extend(f"      {line}" for line in ax.get("drawing") or ())
    for o in e["outputs"]:
        declared = f"[{','.join(o['declared'])}]" if o["declared"] is not None else "no dims"
        mark = f"   <- differs: {', '.join(o['differs'])}" if o["differs"] else ""
        lines.append(f"  output port {o['port']}: computed [{','.join(o['computed'])}], declared {declared}{mark}")
    return "\n".join(lines)


def explain(source, layer: str | None = None, *, max_bytes: int = MAX_BYTES, bin=None,  # noqa: A002
            shapes=None) -> str:
    """The text of explain_entries: a block per pooling layer."""
    return "\n".join(render(e) for e in explain_entries(source, layer, max_bytes=max_bytes, bin=bin, shapes=shapes))


__all__ = ["each_entry", "explain", "explain_entries", "render"]
