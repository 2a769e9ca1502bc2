"""`check --fix` of an .onnx model: the declared dims of pooling outputs that onnxruntime's kernel computes
otherwise are rewritten, and nothing else: every other byte of the file is copied as it was (wire.rewrite),
so weights, external data references and unknown fields stay untouched and are never parsed."""
from __future__ import annotations

from ..report import Report
from .check import check
from .model import Source
from .wire import rewrite


class Fixed:
    """One declared output rewritten (what the text format prints as `fixed ...`)."""

    def __init__(self, f):
        self.line, self.finding = None, f
        dims = ", ".join(f"dim {i}: {v}" for i, v in f.fix["dims"])
        self.message = f"fixed output {f.fix['name']!r} of node {f.layer_name!r} ({f.layer_type}): {dims}"


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


def fix(source, *, max_bytes: int, file: str | None = None, shapes=None) -> tuple:
    """(bytes fixed or None when nothing is, [Fixed], the Report of the fixed model) of an .onnx model."""
    report: Report = check(source, max_bytes=max_bytes, shapes=shapes, file=file)
    todo = [f for f in report.findings if f.code == "shape-mismatch" and f.fix]
    if not todo:
        return None, [], report
    edits = {}
    for f in todo:
        key = (tuple(tuple(t) for t in f.fix["graph"]), f.fix["name"])
        edits[key] = _edit([tuple(d) for d in f.fix["dims"]])
    src = Source(source, max_bytes)
    parts = []
    try:
        rewrite(src.data, edits, lambda p: parts.append(bytes(p)))
    finally:
        src.close()
    fixed = b"".join(parts)
    return fixed, [Fixed(f) for f in todo], check(fixed, max_bytes=max_bytes, shapes=shapes, file=file)


def text_lines(data: bytes) -> list:
    """A line per declared value of every graph (`graph-path name: type[dims]`), what --diff compares: the
    model's bytes are no text, and a fix changes only these."""
    from .model import Source, _dims, parse
    model = parse(Source(data, len(data)))
    lines = []

    def walk(g, where):
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            dims = _dims(vi.type)
            shape = "?" if dims is None else ",".join("?" if d is None else str(d) for d in dims)
            lines.append(f"{where}{vi.name}: [{shape}]\n")
        for node in g.node:
            for attr in node.attribute:
                for sub in [attr.g] if attr.HasField("g") else attr.graphs:
                    walk(sub, f"{where}{node.name or node.output[0]}.{attr.name}/")
    walk(model.graph, "")
    return lines
