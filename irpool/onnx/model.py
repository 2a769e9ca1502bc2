"""An .onnx model file as the ONNX front end sees it: its pooling nodes, in the main graph, in If/Loop/Scan
bodies (to any depth) and in model-local functions, each with the shape of its input and the declared shape
of each output. Weights are never parsed (wire.light); the onnx package reads what is left."""
from __future__ import annotations

import mmap
import os
from dataclasses import dataclass, field

from .. import given
from ..errors import IRError
from ..opdefs import load
from ..report import node_label
from ..streams import read_bytes
from . import wire
from .attributes import NHWC, OPS, graphs_of

EXTRA = ("reading .onnx files needs the optional extra onnx: pip install 'irpool[onnx]' (from a checkout of irpool:"
         " pip install '.[onnx]')")
_DEFAULT_DOMAINS = ("", "ai.onnx")


def onnx_package():
    """The onnx package, or one IRError naming the extra."""
    try:
        import onnx
    except ImportError:
        raise IRError(EXTRA, code="needs-extra") from None
    return onnx


def looks_onnx(name: str | None, head: bytes = b"") -> bool:
    """Whether a FILE argument is an ONNX model: named .onnx, or (standard input, a pipe) bytes that are not
    XML. An .xml file is IR whatever it holds."""
    if name and name.lower().endswith(".onnx"):
        return True
    if name and name.lower().endswith(".xml"):
        return False
    stripped = head.lstrip(b"\xef\xbb\xbf \t\r\n")
    return bool(stripped) and not stripped.startswith(b"<")


class Source:
    """The bytes of a model file: mapped (a path; never read whole) or read (standard input, bytes)."""

    def __init__(self, source, max_bytes: int):
        self.file, self._map, self.origin = None, None, source    # origin: the bytes, or the path to read again
        if isinstance(source, (bytes, bytearray, memoryview)):
            self.data = memoryview(source)
        elif hasattr(source, "read"):
            self.file = getattr(source, "name", None) if not hasattr(source, "buffer") else "<stdin>"
            data = self.origin = read_bytes(source, max_bytes + 1, self.file)
            self.data = memoryview(data)
        else:
            self.file = self.origin = os.fspath(source)
            try:
                with open(self.file, "rb") as f:
                    size = os.fstat(f.fileno()).st_size
                    if size > max_bytes:
                        raise IRError(f"larger than --max-bytes ({max_bytes} bytes)", file=self.file)
                    self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
            except OSError as e:
                raise IRError(f"cannot read it: {e.strerror or e}", file=self.file) from None
            self.data = memoryview(self._map) if self._map is not None else memoryview(b"")
        if len(self.data) > max_bytes:
            raise IRError(f"larger than --max-bytes ({max_bytes} bytes)", file=self.file)

    def close(self) -> None:
        try:
            self.data.release()
            if self._map is not None:
                self._map.close()
        except BufferError:             # a slice still held (an exception's frame): the collector closes it
            pass


def read(source, max_bytes: int):
    """(the ModelProto, the file's name) of a path, bytes or a binary stream, the file closed again."""
    model, name, _ = read_stripped(source, max_bytes)
    return model, name


def read_stripped(source, max_bytes: int):
    """read()'s model and name, and the Stripped values its light copy lacks (to read back one at a time)."""
    src = Source(source, max_bytes)
    try:
        return parse(src), src.file, Stripped(src.origin)
    finally:
        src.close()


class Stripped:
    """The values of the main graph's large tensors that wire.light left out, read back one tensor at a time
    where the folding of shape subgraphs needs one (folding.py): by seek, bounded, never the whole weights."""

    def __init__(self, origin):
        self.origin, self._spans = origin, None     # a path (read again) or the bytes themselves

    def has(self, key) -> bool:
        """Whether the tensor of ("initializer", name) or ("node", index) had its values left out."""
        return key in self.spans()

    def spans(self) -> dict:
        if self._spans is None:
            self._spans = {}
            try:
                src = Source(self.origin, 1 << 62)
                try:
                    self._spans = wire.stripped(src.data)
                finally:
                    src.close()
            except IRError:                 # (the file went away or changed: nothing is read back)
                pass
        return self._spans

    def array(self, key, most: int):
        """The tensor's values (a numpy array), or None: not left out, over `most` bytes, held outside the
        model (external data is never followed), or not readable as the TensorProto it was."""
        span = self.spans().get(key)
        if span is None or span[1] - span[0] > most:
            return None
        start, end = span
        try:
            if isinstance(self.origin, str):
                with open(self.origin, "rb") as f:
                    f.seek(start)
                    data = f.read(end - start)
            else:
                data = bytes(memoryview(self.origin)[start:end])
            return tensor_array(onnx_package().TensorProto.FromString(data))
        except Exception:                   # (OSError, a DecodeError: the file changed since it was read)
            return None


def tensor_array(t):
    """A TensorProto's values, or None where they are not in it (external data, a segment, values left out,
    a count that does not match its dims)."""
    from onnx import numpy_helper
    if t.data_location == 1 or t.external_data:           # (EXTERNAL: to_array would open a file by its name)
        return None
    try:
        return numpy_helper.to_array(t)
    except Exception:                        # (ValueError, TypeError: values that do not fit the dims)
        return None


def parse(src: Source):
    """The ModelProto of the model's graph (large tensors' values left out); IRError for bytes that are no
    ONNX model."""
    onnx = onnx_package()
    if not len(src.data):
        raise IRError("not an ONNX model: the file is empty", code="not-onnx", file=src.file)
    try:
        light = wire.light(src.data)
    except IRError as e:
        raise e.located(file=src.file) from None
    except RecursionError:          # (messages nested some hundreds deep: protobuf refuses past 100 too)
        raise IRError("not an ONNX model: its messages nest deeper than protobuf reads (onnxruntime refuses it:"
                      " INVALID_PROTOBUF)", code="not-onnx", file=src.file) from None
    model = onnx.ModelProto()
    try:
        model.ParseFromString(light)
    except Exception as e:                     # protobuf's DecodeError, or a RuntimeWarning-turned error
        raise IRError(f"not an ONNX model: {e}", code="not-onnx", file=src.file) from None
    if not model.HasField("graph"):
        raise IRError("not an ONNX model: it has no graph", code="not-onnx", file=src.file)
    bad = _not_utf8(model.graph)
    if bad is not None:
        raise IRError(f"a name in the model is not UTF-8 ({bad!r}): protobuf strings are UTF-8, and irpool reads only"
                      " those (onnxruntime loads it)", code="not-onnx", file=src.file)
    return model


def _not_utf8(graph):
    """The first name of `graph` (its subgraphs' too) that protobuf gives as bytes, not being UTF-8; None."""
    for vi in (*graph.input, *graph.output, *graph.value_info, *graph.initializer):
        if isinstance(vi.name, bytes):
            return vi.name
    for node in graph.node:
        for name in (node.name, node.op_type, node.domain, *node.input, *node.output):
            if isinstance(name, bytes):
                return name
        for a in node.attribute:
            for sub in graphs_of(a):
                bad = _not_utf8(sub)
                if bad is not None:
                    return bad
    return None


@dataclass
class Value:
    """What is known of a tensor: its shape (None: rank unknown; a dim is an int, a symbol str, or None),
    element type (onnx TensorProto code, 0 unknown), and whether that was declared, inferred or given."""
    shape: tuple | None
    elem_type: int = 0
    origin: str = "declared"
    where: tuple | None = None      # (graph path, name) of the ValueInfoProto that declares it
    kind: str = "tensor_type"       # its TypeProto's kind as declared: optional_type, sequence_type, ... (not a tensor)


@dataclass
class PoolNode:
    node: object                 # onnx.NodeProto
    index: int                   # its position in its graph
    graph: tuple                 # its graph's path (wire.rewrite's), None inside a function
    where: str | None            # its enclosing nodes, outermost first ("If 'cond' then_branch > ...")
    opset: int | None            # the version its domain is imported at (None: not imported)
    domain: str
    x: Value | None              # its input (None: not known at all)
    outputs: list = field(default_factory=list)    # [(name, Value or None: declared)]
    branch_output: bool = False  # its Y is an output of an If branch (onnxruntime allocates it as inferred)
    axes: tuple | None = None    # a ReduceMean/ReduceMax: its axes as written (a global pool if they are the spatial ones)
    owner: object = None         # the GraphProto it sits in (None inside a function)
    again: list = field(default_factory=list)    # [(k, name, Value)]: output k's name declared once more

    @property
    def name(self) -> str:
        return self.node.name or (self.node.output[0] if self.node.output else f"#{self.index}")


def dims_of(type_proto) -> tuple | None:
    t = type_proto.tensor_type if type_proto.HasField("tensor_type") else None
    if t is None or not t.HasField("shape"):
        return None
    return tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in t.shape.dim)


def _value(vi, path) -> Value:
    t = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
    return Value(dims_of(vi.type), t.elem_type if t is not None else 0, "declared", (path, vi.name),
                 vi.type.WhichOneof("value") or "tensor_type")


def _opsets(imports) -> dict:
    return {("" if o.domain in _DEFAULT_DOMAINS else o.domain): o.version for o in imports}


def label(n: "PoolNode") -> str:
    """A node as findings name it: its name, then its index in its graph and its op ('pool1' (#2, MaxPool))."""
    return node_label(n.name, n.index, n.node.op_type)


def describe(n: "PoolNode") -> str:
    """A pooling node as --layer's errors name it."""
    return f"node {label(n)}" + (f" in {n.where}" if n.where else "")


def pool_nodes(model, shapes: dict | None = None):
    """Every pooling node of the model with what is known of its input and outputs. `shapes` ({graph input
    name: dims}) overrides the main graph's input shapes (--shape)."""
    opsets = _opsets(model.opset_import)
    if shapes:
        _given_shapes_fit(model.graph, shapes)
    yield from _graph(model.graph, (), None, opsets, {}, shapes or {})
    for f in model.functions:
        f_opsets = {**opsets, **_opsets(f.opset_import)}
        scope = {name: None for name in f.input}
        for i, node in enumerate(f.node):
            yield from _node(node, i, None, f"function {f.domain + '.' if f.domain else ''}{f.name!r}",
                             f_opsets, scope, {})


def _given_shapes_fit(g, shapes: dict) -> None:
    """--shape names an input of the model, with its rank, and agrees with every dim it declares as a number
    (an IRError, exit 2, otherwise: a mistake in the command, not a finding in the model)."""
    weights = {t.name for t in g.initializer}
    inputs = {vi.name: _value(vi, ()) for vi in g.input if vi.name not in weights}
    for name, dims in shapes.items():
        if name not in inputs:
            raise given.unknown(name, inputs)
        declared = inputs[name].shape if inputs[name] is not None else None
        if declared is not None:
            shown = shape_text(declared)
            given.fits(name, dims, [(d, d) if isinstance(d, int) else (0, None) for d in declared], shown)


def _graph(g, path, where, opsets, outer: dict, shapes: dict):
    scope = dict(outer)
    for t in g.initializer:
        scope[t.name] = Value(tuple(t.dims), t.data_type, "initializer")
    for t in g.sparse_initializer:          # (named by its values tensor; its dense shape is its own dims)
        scope[t.values.name] = Value(tuple(t.dims), t.values.data_type, "initializer")
    for vi in g.input:
        v = _value(vi, path)
        if vi.name in shapes:
            v = Value(tuple(shapes[vi.name]), v.elem_type, "--shape")
        scope[vi.name] = v
    declared, again = {}, {}                # (again: a name declared twice; onnx's checker reads the last)
    for vi in list(g.value_info) + list(g.output):
        if vi.name in declared:
            again.setdefault(vi.name, []).append(_value(vi, path))
        else:
            declared[vi.name] = _value(vi, path)
    scope.update(declared)
    branch = {vi.name for vi in g.output} if where and where.endswith(("then_branch", "else_branch")) else ()
    axes = _small_ints(g)
    for i, node in enumerate(g.node):
        for p in _node(node, i, path, where, opsets, scope, shapes, branch, axes, again):
            if p.owner is None:             # (a body's pools have their body)
                p.owner = g
            yield p


def _small_ints(g) -> dict:
    """{name: tuple of ints} of the graph's small int64 initializers and Constants: what a reduction's axes
    input can be (a reduction whose axes come from anything else is not read as a pool)."""
    from onnx import numpy_helper
    out = {}
    tensors = [(t.name, t) for t in g.initializer] + [
        (n.output[0], a.t) for n in g.node if n.op_type == "Constant" and n.domain in _DEFAULT_DOMAINS and n.output
        for a in n.attribute if a.name == "value" and a.HasField("t")]
    for name, t in tensors:
        if t.data_type == 7 and len(t.dims) == 1 and 0 < t.dims[0] <= 8 and not t.data_location:
            try:
                out[name] = tuple(int(v) for v in numpy_helper.to_array(t))
            except ValueError:               # (values that do not fit their dims)
                pass
    return out


def reduction_axes(node, opset, axes_values: dict) -> tuple | None:
    """A ReduceMean/ReduceMax's axes (schemas/onnx.json "global_reductions": an attribute, or from its
    axes_input version on the second input), or None: not such a node, or its axes are not written."""
    rule = load("onnx")["global_reductions"].get(node.op_type)
    if rule is None or node.domain not in _DEFAULT_DOMAINS or opset is None:
        return None
    if opset >= rule["axes_input"]:
        return axes_values.get(node.input[1]) if len(node.input) > 1 and node.input[1] else None
    written = [list(a.ints) for a in node.attribute if a.name == "axes"]
    return tuple(written[0]) if written and written[0] else None


def _node(node, i, path, where, opsets, scope, shapes, branch=(), axes_values=None, again=None):
    domain = "" if node.domain in _DEFAULT_DOMAINS else node.domain
    axes = reduction_axes(node, opsets.get(""), axes_values or {})
    if (node.op_type in OPS and domain in ("", NHWC)) or axes is not None:
        x = scope.get(node.input[0]) if node.input and node.input[0] else None
        outs = [(name, scope.get(name)) for name in node.output]
        yield PoolNode(node, i, path, where, opsets.get(domain), domain, x, outs,
                       bool(node.output) and node.output[0] in branch, axes,
                       again=[(k, name, v) for k, name in enumerate(node.output) for v in (again or {}).get(name, ())])
    label = node.name or (node.output[0] if node.output else f"#{i}")
    for a, attr in enumerate(node.attribute):
        subs = [attr.g] if attr.HasField("g") else list(attr.graphs)
        for s, sub in enumerate(subs):
            inner = f"{node.op_type} {label!r} {attr.name}"
            inner = f"{where} > {inner}" if where else inner
            sub_path = None if path is None else path + ((i, a, s),)
            yield from _graph(sub, sub_path, inner, opsets, scope, {})


def shape_text(dims) -> str:
    """An ONNX shape as every message writes it: numbers, a named dim by its name, an unknown one as ?."""
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


_NUMPY_NAMES = {"FLOAT": "float32", "DOUBLE": "float64", "FLOAT16": "float16", "BFLOAT16": "bfloat16"}


def type_name(code: int) -> str:
    """An ONNX TensorProto element type code as the numpy-style name schemas/onnx.json lists."""
    import onnx
    try:
        name = onnx.TensorProto.DataType.Name(code)
    except ValueError:
        return f"type {code}"
    return _NUMPY_NAMES.get(name, name.lower())
