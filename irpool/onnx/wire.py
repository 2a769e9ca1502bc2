"""The protobuf wire format of an .onnx file, walked without the onnx package: so a model's weights are never
parsed (`light` copies the graph without the bytes of large tensors) and `--fix` rewrites a few ValueInfoProtos
while every other byte of the file, weights included, is copied as it was (`rewrite`).

Field numbers are onnx.proto's: ModelProto.graph 7, .functions 25; GraphProto.node 1, .initializer 5,
.sparse_initializer 15, .input 11, .output 12, .value_info 13; NodeProto.attribute 5; AttributeProto.t 5,
.g 6, .tensors 10, .graphs 11, .sparse_tensor 22, .sparse_tensors 23; FunctionProto.node 7; TensorProto.dims 1,
.data_type 2, .name 8, .doc_string 12, .external_data 13, .data_location 14 (the rest hold values).
"""
from __future__ import annotations

from ..errors import IRError

MODEL_GRAPH, MODEL_FUNCTIONS = 7, 25
GRAPH_NODE, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO, GRAPH_SPARSE = 1, 5, 11, 12, 13, 15
NODE_ATTRIBUTE, FUNCTION_NODE = 5, 7
ATTR_T, ATTR_G, ATTR_TENSORS, ATTR_GRAPHS, ATTR_SPARSE, ATTR_SPARSES = 5, 6, 10, 11, 22, 23
TENSOR_KEPT = frozenset((1, 2, 3, 8, 12, 13, 14, 16))     # a tensor's dims, type, name, doc and where its data lives
SMALL_TENSOR = 4096     # bytes: a tensor this small keeps its values (shape inference may need them)


def _varint(buf, i: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if i >= end or shift > 63:
            raise IRError("not an ONNX model: the protobuf ends inside a number", code="not-onnx")
        b = buf[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _encode_varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def fields(buf, start: int, end: int, group: int = 0):
    """(field number, wire type, where the field starts, where its value starts, where it ends) of each field
    of the message in buf[start:end]; IRError on bytes that are no protobuf message. `group`: the fields of group
    field `group`, up to and including its end tag (wire type 4)."""
    i = start
    while i < end:
        key, j = _varint(buf, i, end)
        number, kind = key >> 3, key & 7
        if number == 0:
            raise IRError("not an ONNX model: a protobuf field numbered 0", code="not-onnx")
        if kind == 4 and group:
            if number != group:
                raise IRError(f"not an ONNX model: protobuf group {group} ends as group {number}", code="not-onnx")
            yield number, kind, i, j, j
            return
        if kind == 0:
            _, k = _varint(buf, j, end)
        elif kind == 1:
            k = j + 8
        elif kind == 5:
            k = j + 4
        elif kind == 2:
            size, j = _varint(buf, j, end)
            k = j + size
        elif kind == 3:
            k = _group_end(buf, j, end, number)
        else:
            raise IRError(f"not an ONNX model: protobuf wire type {kind} ({_BAD_KINDS[kind]})", code="not-onnx")
        if k > end:
            raise IRError("not an ONNX model: a protobuf field runs past the end of the file (truncated?)",
                          code="not-onnx")
        yield number, kind, i, j, k
        i = k


def _group_end(buf, i: int, end: int, number: int) -> int:
    """Where the group field `number` whose fields start at `i` ends (after its end tag). onnx.proto has no groups,
    but protobuf keeps one as an unknown field, and onnx.load and onnxruntime read the model (measured)."""
    for _, kind, _, _, k in fields(buf, i, end, group=number):
        if kind == 4:
            return k
    raise IRError(f"not an ONNX model: protobuf group {number} has no end (truncated?)", code="not-onnx")


_BAD_KINDS = {4: "the end of a group that did not begin", 6: "which protobuf does not have",
              7: "which protobuf does not have"}


class _Pieces:
    """Bytes to write: slices of the source and new bytes, with their total size, so a message rebuilt from
    its fields needs no copy of the parts it keeps."""

    def __init__(self):
        self.parts, self.size = [], 0

    def add(self, part) -> None:
        if len(part):
            self.parts.append(part)
            self.size += len(part)

    def nest(self, number: int, inner: "_Pieces") -> None:
        self.add(_encode_varint(number << 3 | 2) + _encode_varint(inner.size))
        self.parts.extend(inner.parts)
        self.size += inner.size


def _rebuild(buf, start: int, end: int, visit) -> _Pieces | None:
    """The message buf[start:end] with `visit(number, kind, value_start, value_end)` deciding each field:
    None keeps its bytes, False drops it, a _Pieces replaces its value. None overall when nothing changed."""
    out, changed = _Pieces(), False
    for number, kind, i, j, k in fields(buf, start, end):
        new = visit(number, kind, j, k)
        if new is None:
            out.add(buf[i:k])
        elif new is False:
            changed = True
        else:
            changed = True
            out.nest(number, new)
    return out if changed else None


def light(buf) -> bytes:
    """The model without the values of tensors larger than SMALL_TENSOR bytes (initializers and Constant
    attributes, in every graph and body): what the graph needs, for any size of weights."""
    top = _Light(buf).model()
    return bytes(buf) if top is None else b"".join(bytes(p) for p in top.parts)


class _Light:
    """light()'s walk, one method a message kind (methods, not closures that call each other: such closures are a
    reference cycle, which kept the mapped model until Python's cycle collector ran)."""

    def __init__(self, buf):
        self.buf = buf

    def model(self):
        return _rebuild(self.buf, 0, len(self.buf), lambda n, kind, a, b: self.graph(a, b)
                        if n == MODEL_GRAPH and kind == 2 else self.function(a, b)
                        if n == MODEL_FUNCTIONS and kind == 2 else None)

    def tensor(self, j, k):
        if k - j <= SMALL_TENSOR:
            return None
        return _rebuild(self.buf, j, k, lambda n, kind, a, b: None if n in TENSOR_KEPT else False)

    def graph(self, j, k):
        return _rebuild(self.buf, j, k, lambda n, kind, a, b: self.tensor(a, b) if n == GRAPH_INITIALIZER and kind == 2
                        else self.node(a, b) if n == GRAPH_NODE and kind == 2
                        else False if n == GRAPH_SPARSE and b - a > SMALL_TENSOR else None)

    def node(self, j, k):
        return _rebuild(self.buf, j, k, lambda n, kind, a, b: self.attribute(a, b)
                        if n == NODE_ATTRIBUTE and kind == 2 else None)

    def attribute(self, j, k):
        return _rebuild(self.buf, j, k, lambda n, kind, a, b: self.tensor(a, b)
                        if n in (ATTR_T, ATTR_TENSORS) and kind == 2
                        else self.graph(a, b) if n in (ATTR_G, ATTR_GRAPHS) and kind == 2
                        else False if n in (ATTR_SPARSE, ATTR_SPARSES) and b - a > SMALL_TENSOR else None)

    def function(self, j, k):
        return _rebuild(self.buf, j, k, lambda n, kind, a, b: self.node(a, b)
                        if n == FUNCTION_NODE and kind == 2 else None)


def stripped(buf) -> dict:
    """Where light() left values out in the main graph: {("initializer", name) or ("node", node index): (start,
    end) of the tensor's bytes} for each initializer and node attribute tensor over SMALL_TENSOR bytes, so that
    one of them can be read back alone (TensorProto's bytes, by seek) when the folding needs its values."""
    out, index = {}, 0
    for n, kind, _, j, k in fields(buf, 0, len(buf)):
        if n != MODEL_GRAPH or kind != 2:
            continue
        for m, kd, _, a, b in fields(buf, j, k):
            if kd == 2 and m == GRAPH_INITIALIZER and b - a > SMALL_TENSOR:
                out[("initializer", _field_text(buf, a, b, 8))] = (a, b)
            elif kd == 2 and m == GRAPH_NODE:
                for f, fk, _, c, d in fields(buf, a, b):
                    if f == NODE_ATTRIBUTE and fk == 2:
                        out.update({("node", index): (e, g) for t, tk, _, e, g in fields(buf, c, d)
                                    if t == ATTR_T and tk == 2 and g - e > SMALL_TENSOR})
                index += 1
    return out


def _field_text(buf, start: int, end: int, number: int) -> str:
    """A message's string field `number`, read from its bytes ('' where it has none)."""
    for n, kind, _, j, k in fields(buf, start, end):
        if n == number and kind == 2:
            return bytes(buf[j:k]).decode("utf-8", "replace")
    return ""


def value_name(buf, start: int, end: int) -> str:
    """A ValueInfoProto's name (field 1), read from its bytes."""
    return _field_text(buf, start, end, 1)


def rewrite(buf, edits: dict, write) -> int:
    """Write the model with some ValueInfoProtos and NodeProtos replaced, every other byte as it was: `edits`
    maps (graph path, value name) or (graph path, ("node", node index)) to a function given the proto's bytes
    and giving the new bytes; a graph path is () for the main graph and (node index, attribute index, graph
    index), ... for a body. `write` gets the pieces in order; returns how many protos were replaced."""
    walk = _Rewrite(buf, edits)
    top = _rebuild(buf, 0, len(buf), lambda n, kind, a, b: walk.graph(a, b, ()) if n == MODEL_GRAPH and kind == 2
                   else None)
    for part in ([buf] if top is None else top.parts):
        write(part)
    return walk.done


class _Rewrite:
    """rewrite()'s walk (methods, not closures that call each other: no reference cycle holds the model)."""

    def __init__(self, buf, edits: dict):
        self.buf, self.edits, self.done = buf, edits, 0
        self.graphs = {path for path, _ in edits}

    def _edited(self, key, a, b):
        """The proto buf[a:b] as its edit gives it, or None where `key` has no edit."""
        edit = self.edits.get(key)
        if edit is None:
            return None
        new = _Pieces()
        new.add(edit(bytes(self.buf[a:b])))
        self.done += 1
        return new

    def graph(self, j, k, path):
        nodes, graphs = iter(range(1 << 30)), self.graphs

        def visit(n, kind, a, b):
            if kind != 2:
                return None
            if n in (GRAPH_INPUT, GRAPH_OUTPUT, GRAPH_VALUE_INFO) and path in graphs:
                new = self._edited((path, value_name(self.buf, a, b)), a, b)
                if new is not None:
                    return new
            if n != GRAPH_NODE:
                return None
            index = next(nodes)
            new = self._edited((path, ("node", index)), a, b) if path in graphs else None
            if new is not None:
                return new
            if any(p[:len(path)] == path and len(p) > len(path) for p in graphs):
                return self.node(a, b, path, index)
            return None
        return _rebuild(self.buf, j, k, visit)

    def node(self, j, k, path, index):
        attrs = iter(range(1 << 30))

        def visit(n, kind, a, b):
            if n != NODE_ATTRIBUTE or kind != 2:
                return None
            at = next(attrs)
            subs = iter(range(1 << 30))
            return _rebuild(self.buf, a, b, lambda m, kd, c, d: self.graph(c, d, path + ((index, at, next(subs)),))
                            if m in (ATTR_G, ATTR_GRAPHS) and kd == 2 else None)
        return _rebuild(self.buf, j, k, visit)
