"""`irpool explain model.onnx`: for each pooling node, its input and where that shape came from, each output
dim under each runtime side by side (onnxruntime's kernel with its arithmetic, onnxruntime's graph and ONNX's
shape inference, OpenVINO's ONNX frontend), the declared dims, and each spatial axis drawn."""
from __future__ import annotations

from .. import drawing, select
from ..core import axis_names
from ..limits import MAX_BYTES
from ..report import node_label
from .check import judge_all
from .model import describe, read_stripped
from .program import index as _index
from .runtimes import differences, shapes, value_differences
from .attributes import node_attrs


def entries(source, layer: str | None = None, *, max_bytes: int = MAX_BYTES, shapes_given=None) -> list:
    model, file, stripped = read_stripped(source, max_bytes)
    judged = judge_all(model, shapes_given, stripped)
    if layer is None:
        return [_entry(j) for j in judged]
    found = select.pick(layer, judged, lambda j: _index(j.node), lambda j: (j.node.node.name, *j.node.node.output),
                        lambda j: describe(j.node), file, "pooling node", "index")
    return [_entry(j) for j in found]



def _dims(shape) -> list:
    return [str(d) if isinstance(d, int) else "?" for d in shape]


def _entry(j) -> dict:
    """The node in explain's one form (docs/cli.md "explain --json"): the IR front end's fields, a node's index as
    its id, its opset as its version, no line; per axis what each runtime gives."""
    n = j.node
    e = dict(front_end="onnx", layer_id=str(n.index), layer_name=n.name, layer_type=n.node.op_type,
             version=None if n.opset is None else str(n.opset), op=j.op, line=None, path=n.where,
             input=None if j.x_shape is None else _dims(j.x_shape), input_from=n.x.origin if n.x else None,
             attributes=dict(node_attrs(n.node), **({} if n.axes is None else {"axes": list(n.axes)})), error=j.error[1] if j.error else None, axes=[], outputs=[],
             divergences=[])
    if j.error or j.out is None:
        return e
    e["divergences"] = [dict(code="runtime-divergence", message=m) for m in differences(j)] + \
        [dict(code="value-divergence", message=m) for _, m in value_differences(j)]
    got = shapes(j)
    if j.base is not None:
        names = axis_names(j.base.ndim)
        plans = dict(zip(j.base.spatial_axes(len(j.out)), j.plans))
        for i, a in enumerate(j.base.spatial_axes(len(j.out))):
            p = plans.get(a)
            per = {k: (v if isinstance(v, str) else v[a]) for k, v in got.items()}
            ax = dict(axis=names[i], input=j.x_shape[a], onnxruntime=per["onnxruntime"],
                      arithmetic=p.arithmetic if p else None, onnx=per["onnx"], openvino=per["openvino"], drawing=[])
            if p is not None and p.out is not None and p.length is not None:
                more = [k for k in ("onnx", "openvino") if isinstance(per[k], int) and per[k] > p.out]
                note = None
                if more:
                    note = (f"starts at cell {p.out * p.stride - p.pad_begin}, in the end padding: onnxruntime's kernel"
                            f" drops it (ceil_mode); {' and '.join(_who(k, j) for k in more)} keep it")
                ax["drawing"] = drawing.axis(names[i], p.length, p.kernel, p.stride, p.dilation, p.pad_begin,
                                             p.pad_end, p.out, note)
            e["axes"].append(ax)
    names = _axis_names(j, len(j.out))
    for k, (name, declared) in enumerate(n.outputs[:2]):
        if name:
            shape = None if declared is None or declared.shape is None else declared.shape
            differs = ["rank"] if shape is not None and len(shape) != len(j.out) else [
                names[i] for i, (d, c) in enumerate(zip(shape or (), j.out))
                if isinstance(d, int) and isinstance(c, int) and d != c]
            e["outputs"].append(dict(port=str(k), name=name, computed=_dims(j.out),
                                     declared=None if shape is None else _dims(shape), differs=differs))
    return e


def _axis_names(j, rank: int) -> list:
    """N, C and the spatial axes' names at their places in the output (channels last for com.ms.internal.nhwc)."""
    names = [str(i) for i in range(rank)]
    if j.base is None or rank < 3:
        return names
    spatial = j.base.spatial_axes(rank)
    for a, name in zip(spatial, axis_names(j.base.ndim)):
        names[a] = name
    names[0] = "N"
    names[next(i for i in range(1, rank) if i not in spatial)] = "C"
    return names


def _who(key: str, j) -> str:
    return f"ONNX's {j.op} shape inference (and onnxruntime's graph)" if key == "onnx" else "OpenVINO"


def _said(length) -> str:
    return "not known (a symbolic dim: give --shape NAME=dims)" if length is None else str(length)


def render(e: dict) -> str:
    head = f"node {node_label(e['layer_name'], e['layer_id'], e['layer_type'])}" + (f" = {e['op']}" if e["op"] else "")
    head += f", in {e['path']}" if e["path"] else ""
    if e["error"]:
        return f"{head}\n  not computed: {e['error']}"
    attrs = "  ".join(f"{k} {','.join(map(str, v)) if isinstance(v, list) else v}" for k, v in e["attributes"].items())
    shown = f"[{','.join(e['input'])}]" if e["input"] is not None else "unknown"
    lines = [head, f"  {attrs}" if attrs else "  (no attributes)", f"  input {shown} ({e['input_from']})"]
    for ax in e["axes"]:
        lines.append(f"  {ax['arithmetic'] or ax['axis'] + ': ' + str(ax['onnxruntime'])}   (onnxruntime's kernel)")
        if ax["onnx"] is not None or ax["openvino"] is not None:
            lines.append(f"      ONNX's inference and onnxruntime's graph: {_said(ax['onnx'])};"
                         f" OpenVINO: {_said(ax['openvino'])}")
        lines.extend(f"      {line}" for line in ax["drawing"])
    for o in e["outputs"]:
        declared = f"[{','.join(o['declared'])}]" if o["declared"] is not None else "no shape"
        mark = "   <- differs" if o["differs"] else ""
        lines.append(f"  output {o['name']!r}: onnxruntime [{','.join(o['computed'])}], declared {declared}{mark}")
    lines.extend(f"  {d['code']}: {d['message']}" for d in e.get("divergences", ()))
    return "\n".join(lines)
