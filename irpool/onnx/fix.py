"""`check --fix` of an .onnx model: the declared dims of pooling outputs that onnxruntime's kernel computes
otherwise are rewritten, and nothing else: every other byte of the file is copied as it was (wire.rewrite),
so weights, external data references and unknown fields stay untouched and are never parsed."""
from __future__ import annotations

from ..report import Fixed, Report
from .attributes import node_attrs
from .check import check
from .model import Source, dims_of, parse
from .runtimes import ceil_only
from .runtimes import shapes as runtime_shapes
from .wire import rewrite


def _fixed(f) -> Fixed:
    """A declared output rewritten."""
    dims = ", ".join(f"dim {i}: {v}" for i, v in f.fix["dims"])
    return Fixed(None, f"fixed output {f.fix['name']!r} of node {f.layer_name!r} ({f.layer_type}): {dims}")


def _edit(dims):
    def apply(data: bytes) -> bytes:
        import onnx
        vi = onnx.ValueInfoProto.FromString(data)
        shape = vi.type.tensor_type.shape
        for i, v in dims:
            d = shape.dim[i]
            d.dim_value = v                 # (a dim_param there is replaced: a oneof)
        return vi.SerializeToString()
    return apply


def _rewritten(j, pads) -> Fixed:
    """A node rewritten so that every runtime gives the kernel's windows."""
    old = node_attrs(j.node.node).get("pads")
    return Fixed(None, f"fixed node {j.node.name!r} ({j.node.node.op_type}): ceil_mode 1 -> 0, pads"
                       f" {','.join(map(str, old)) if old else 'none'} -> {','.join(map(str, pads))} (the windows"
                       " onnxruntime's kernel computes, so the same values, and a shape every runtime and ONNX's"
                       " inference agree on)")


def fix(source, *, max_bytes: int, file: str | None = None, shapes=None) -> tuple:
    """(the bytes fixed, the same bytes where nothing is; [Fixed]; the Report of the fixed model) of an .onnx model.

    A ceil_mode node whose windows onnxruntime's kernel and ONNX's inference count differently has no declared
    dim that pleases both (a Shape folds ONNX's, onnx.checker's full check and onnxruntime's load compare the
    declared dims with it): it is rewritten to ceil_mode=0 with the end pads that make floor count exactly the
    kernel's windows, where that keeps every value (a MaxPool; an AveragePool that does not count the pad; each
    end pad below the kernel, as onnxruntime requires), and every declared dim ONNX's inference then gives
    otherwise follows it. Where no rewrite keeps the values the node and its dims are left as they are
    (docs/onnx.md); a model with a bad-graph error is left as it is."""
    judged = []
    report: Report = check(source, max_bytes=max_bytes, shapes=shapes, file=file, explain=judged.append)
    refused = any(f.code == "bad-graph" for f in report.findings)   # (onnxruntime refuses the graph: what flows where,
    #   and so which dims are right, is not known; crash hunt 3 found --fix rewriting dims anew at every run)
    for f in report.findings if refused else ():
        f.fix = None
    todo = [f for f in report.findings if f.code == "shape-mismatch" and f.fix]
    rewrites, keep = _ceil_rewrites(judged) if not refused else ([], set())
    src = Source(source, max_bytes)
    try:
        todo = [f for f in todo if (f.path, f.layer_id) not in keep]
        if not todo and not rewrites:
            return bytes(src.data), [], _left(report, keep)
        edits = {(tuple(tuple(t) for t in f.fix["graph"]), f.fix["name"]): _edit([tuple(d) for d in f.fix["dims"]])
                 for f in todo}
        for j, pads in rewrites:
            edits[(j.node.graph, ("node", j.node.index))] = _node_edit(pads)
        fixed = _written(src.data, edits)
        if rewrites:                                  # (the dims ONNX's inference now gives, where declared)
            for key, dims in _inference_follows(fixed).items():
                edits.setdefault(key, _edit(dims))
            fixed = _written(src.data, edits)
    finally:
        src.close()
    done = [_rewritten(j, pads) for j, pads in rewrites] + [_fixed(f) for f in todo]
    return fixed, done, _left(check(fixed, max_bytes=max_bytes, shapes=shapes, file=file), keep)


def _left(report, keep) -> Report:
    """The report, its shape-mismatch findings on the nodes --fix leaves saying why."""
    for f in report.findings:
        if f.code == "shape-mismatch" and (f.path, f.layer_id) in keep:
            f.fix = None
            f.message += ("; --fix leaves it: no declared dim pleases both onnxruntime's kernel and ONNX's inference,"
                          " and no rewrite of the node keeps its values (an average that counts the pad, or an end"
                          " pad that would reach the kernel)")
    return report


def _written(data, edits) -> bytes:
    parts = []
    rewrite(data, edits, lambda p: parts.append(bytes(p)))
    return b"".join(parts)


def _ceil_rewrites(judged) -> tuple:
    """([(NodeJudged, new pads)] of the ceil_mode nodes to rewrite, {(path, layer id)} of those to leave whole), from
    check's NodeJudged records."""
    rewrites, keep = [], set()
    for j in judged:
        if j.error or not j.plans or j.node.domain or not ceil_only(j):
            continue
        got = runtime_shapes(j)
        if got["onnx"] == got["onnxruntime"]:
            continue
        pads = _floor_pads(j)
        if pads is None:
            keep.add((j.node.where, str(j.node.index)))
        else:
            rewrites.append((j, pads))
    return rewrites, keep


def _floor_pads(j):
    """The pads (begin..., end...) with which floor rounding counts the kernel's windows, keeping every value;
    None where none does."""
    spec = j.spec
    if spec.reduction == "avg" and spec.count not in ("exclude_pad", "exclude_onnx"):
        return None                                   # (the divisor would count the grown pad)
    ends = []
    for p, k in zip(j.plans, spec.kernel):
        if p.out is None or p.length is None or p.pad_begin is None:
            return None
        low = (p.out - 1) * p.stride + p.dilated_kernel - p.length - p.pad_begin
        high = p.out * p.stride + p.dilated_kernel - p.length - p.pad_begin - 1
        end = max(low, 0)
        if end > high or end >= k or p.pad_begin >= k:
            return None
        ends.append(end)
    return [p.pad_begin for p in j.plans] + ends


def _node_edit(pads):
    def apply(data: bytes) -> bytes:
        import onnx
        node = onnx.NodeProto.FromString(data)
        kept = [a for a in node.attribute if a.name not in ("ceil_mode", "pads")]
        del node.attribute[:]
        node.attribute.extend(kept + [onnx.helper.make_attribute("pads", list(pads))])
        return node.SerializeToString()
    return apply


def _inference_follows(data: bytes) -> dict:
    """{(graph path, name): [(dim index, value)]} of the main graph's declared values whose numeric dims ONNX's
    shape inference of the rewritten model gives otherwise."""
    import onnx
    model = parse(Source(data, len(data)))
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    for vi in list(bare.graph.output) + list(bare.graph.value_info):     # (inference keeps what is declared)
        vi.type.tensor_type.ClearField("shape")
    inferred = onnx.shape_inference.infer_shapes(bare, data_prop=True).graph
    said = {vi.name: dims_of(vi.type) for vi in list(inferred.value_info) + list(inferred.output)}
    out = {}
    for vi in list(model.graph.value_info) + list(model.graph.output):
        mine, theirs = dims_of(vi.type), said.get(vi.name)
        if mine is None or theirs is None or len(mine) != len(theirs):
            continue
        dims = [(i, t) for i, (m, t) in enumerate(zip(mine, theirs)) if isinstance(t, int) and m != t]
        if dims:
            out[((), vi.name)] = dims
    return out


def text_lines(data: bytes) -> list:
    """A line per declared value of every graph (`graph-path name: type[dims]`), what --diff compares: the
    model's bytes are no text, and a fix changes only these."""
    model = parse(Source(data, len(data)))
    lines = []

    def walk(g, where):
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            dims = dims_of(vi.type)
            shape = "?" if dims is None else ",".join("?" if d is None else str(d) for d in dims)
            lines.append(f"{where}{vi.name}: [{shape}]\n")
        for node in g.node:
            for attr in node.attribute:
                for sub in [attr.g] if attr.HasField("g") else attr.graphs:
                    walk(sub, f"{where}{node.name or node.output[0]}.{attr.name}/")
    walk(model.graph, "")
    return lines
