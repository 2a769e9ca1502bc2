"""--shape on an IR file: the dims OpenVINO's Model.reshape gives every port of the net, inferred from the
Parameters' given shapes through the ops irpool knows (schemas/openvino.json "reshape_ops": the rule of each
type), small integer tensors' values carried along where shape subgraphs (ShapeOf, Gather, Concat, ...) need
them. check then reads the file with those dims written in place of the dynamic ones (`Reshaped.edit`), so
every rule judges the pools on the shapes OpenVINO would run them on. An op irpool does not infer keeps the
dims its file declares where its inputs are what it declares; otherwise what follows it stays dynamic, and
the pools behind it are counted unchecked with why (`Reshaped.why`), never guessed."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..core import plan
from ..errors import IRError
from ..opdefs import load
from . import consts, negpads
from .consts import Const
from .dims import parse_shape, text
from .layers import interpret
from .parse import Document, Layer

MOST_VALUES = consts.MOST_VALUES       # values carried per tensor, at most: shape subgraphs hold a few


class Unknown(Exception):
    """Why a layer's outputs are not known to the inference: a sentence about the layer."""


@dataclass(frozen=True)
class Tensor:
    shape: tuple                       # ints
    value: object = None               # its values (an ndarray of this shape), for small tensors where known
    lost: str | None = None            # where a small tensor's value was not carried: the layer that dropped it


@dataclass
class Reshaped:
    """What --shape gives a net: dims per (layer id, port id) where known, and why a layer's are not."""
    ports: dict = field(default_factory=dict)         # layer id -> {port id: dims}
    gaps: dict = field(default_factory=dict)          # layer id -> why its outputs are not known
    given: dict = field(default_factory=dict)         # Parameter layer id -> its given dims
    refused: list = field(default_factory=list)       # (Layer, why) of the layers OpenVINO's reshape refuses

    def edit(self, el) -> None:
        """Write the known dims into a top-level <layer> element in place of its dynamic ones (a dim written as
        a number stays: it is the file's own, and check judges it)."""
        ports = self.ports.get(el.get("id"))
        if not ports:
            return
        given = self.given.get(el.get("id"))
        if given is not None:
            data = el.find("data")
            if data is not None and data.get("shape") is not None:
                written = [t.strip() for t in data.get("shape").split(",")]
                if len(written) == len(given):
                    data.set("shape", ",".join(t if t.isdigit() else str(g) for t, g in zip(written, given)))
        for section in el.iterchildren("input", "output"):
            for port in section.iterchildren("port"):
                dims = ports.get(port.get("id"))
                written = port.findall("dim")
                if dims is None or len(written) != len(dims):
                    continue
                for d, v in zip(written, dims):
                    if not (d.text or "").strip().isdigit():
                        d.text = str(v)

    def why(self, layer_id) -> str | None:
        """Why a layer's input dims stay as the file declares them under --shape (None: they are known)."""
        return self.gaps.get(layer_id)


def infer(doc: Document, shapes: dict, bin_path: str | None) -> Reshaped:
    """The dims of every top-level port of the net `doc` reads when its Parameters take `shapes` ({name: dims},
    a Parameter's name or one of its output's tensor names); IRError (exit 2) for a --shape that names no
    Parameter, has another rank, or contradicts a dim the Parameter declares as a number."""
    layers, feeds, order = {}, {}, []
    for item in doc.items():
        if isinstance(item, Layer):
            if item.id not in layers:
                order.append(item.id)
            layers[item.id] = item                    # (the last of an id is the one OpenVINO builds)
        else:
            feeds[(item.to_layer, item.to_port)] = (item.from_layer, item.from_port)
    if doc.is_snippet:
        raise IRError("--shape gives an input shape, and a bare <layer> has no Parameters: give its dims in"
                      " its <port>s", file=doc.file)
    result = Reshaped()
    result.given = _given(layers, shapes, doc.file)
    known = _Inference(layers, feeds, result, bin_path, doc.file, doc.ir_version)
    for lid in _topological(order, layers, feeds):
        known.layer(layers[lid])
    return result


def _given(layers: dict, shapes: dict, file) -> dict:
    """{Parameter layer id: dims} for --shape, each checked against what the Parameter declares."""
    params = {lid: lay for lid, lay in layers.items() if lay.type == "Parameter"}
    names = {}
    for lid, lay in params.items():
        for name in [lay.name] + [n.strip() for p in lay.outputs for n in (p.names or "").split(",")]:
            if name:
                names.setdefault(name, lid)
    given = {}
    for name, dims in shapes.items():
        lid = names.get(name)
        if lid is None:
            raise IRError(f"--shape {name}=...: the model has no input named {name!r} (its inputs: "
                          + (", ".join(repr(p.name) for p in params.values()) or "none") + ")", file=file)
        try:
            declared = parse_shape(params[lid].data.get("shape") or "")
        except ValueError:
            declared = None
        shown = "[" + ",".join(text(d) for d in declared) + "]" if declared is not None else "[...]"
        said = f"--shape {name}={','.join(map(str, dims))}"
        if declared is not None and len(dims) != len(declared):
            raise IRError(f"{said}: {len(dims)} dims, but input {name!r} is {shown}, of rank {len(declared)}",
                          file=file)
        for i, (d, g) in enumerate(zip(declared or (), dims)):
            lo, hi = (d, d) if isinstance(d, int) else d
            if not lo <= g <= (hi if hi is not None else g):
                raise IRError(f"{said}: dim {i} is {g}, but input {name!r} declares {shown}: --shape may only give"
                              " its dynamic dims, within their bounds", file=file)
        given[lid] = tuple(dims)
    return given


def _topological(order: list, layers: dict, feeds: dict) -> list:
    """The layer ids with each after its producers (Kahn's order; a layer in a cycle never comes)."""
    users, waiting = {}, {}
    for (to, _), (src, _) in feeds.items():
        if to in layers and src in layers:
            users.setdefault(src, []).append(to)
            waiting[to] = waiting.get(to, 0) + 1
    ready = [lid for lid in order if not waiting.get(lid)]
    out = []
    while ready:
        lid = ready.pop()
        out.append(lid)
        for u in users.get(lid, ()):
            waiting[u] -= 1
            if waiting[u] == 0:
                ready.append(u)
    return out


def _who(layer: Layer) -> str:
    return f"{layer.type} id={layer.id} name={layer.name!r}"


def _flag(layer: Layer, name: str) -> bool:
    return (layer.data.get(name) or "false").strip().lower() == "true"


def _ints(t: Tensor | None, what: str) -> list:
    return [int(v) for v in _value(t, what)]


def _axis(a: int, rank: int, what: str = "axis") -> int:
    if not -rank <= a < rank:
        raise Unknown(f"{what} {a} is outside a rank-{rank} input")
    return a % rank


def _broadcast(layer: Layer, shapes: list) -> tuple:
    mode = (layer.data.get("auto_broadcast") or "numpy").strip().lower()
    if mode == "none":
        if any(s != shapes[0] for s in shapes):
            raise Unknown(f"auto_broadcast=none with inputs {[list(s) for s in shapes]}")
        return shapes[0]
    if mode != "numpy":
        raise Unknown(f"auto_broadcast={mode!r}, which irpool's --shape does not infer")
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise Refused(f"its inputs {[list(s) for s in shapes]} do not broadcast") from None


_VALUES = {"Add": np.add, "Subtract": np.subtract, "Multiply": np.multiply, "Maximum": np.maximum,
           "Minimum": np.minimum, "FloorMod": np.mod, "Mod": np.fmod, "Equal": np.equal, "NotEqual": np.not_equal,
           "Less": np.less, "LessEqual": np.less_equal, "Greater": np.greater, "GreaterEqual": np.greater_equal}


def _divide(layer: Layer, a, b):
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        if np.any(b == 0):
            raise Unknown("it divides by zero")
        if (layer.data.get("m_pythondiv") or layer.data.get("pythondiv") or "true").strip().lower() == "false":
            return np.trunc(a / b).astype(np.result_type(a, b))
        return a // b
    return a / b


# ---- the rules: (layer, input Tensors) -> output Tensors, one per output port ----

_UNARY_VALUES = {"Floor": np.floor, "Ceiling": np.ceil, "Abs": np.abs, "Negative": np.negative, "Sqrt": np.sqrt}


def same(layer, ins):
    f, value = _UNARY_VALUES.get(layer.type), ins[0].value
    value = f(value) if f is not None and value is not None and len(ins) == 1 else None
    return [Tensor(ins[0].shape, value)] * max(len(layer.outputs), 1)


def broadcast(layer, ins):
    shape = _broadcast(layer, [t.shape for t in ins])
    value = None
    if all(t.value is not None for t in ins) and (layer.type in _VALUES or layer.type == "Divide"):
        a, b = (np.asarray(t.value) for t in ins[:2])
        value = _divide(layer, a, b) if layer.type == "Divide" else _VALUES[layer.type](a, b)
    return [Tensor(shape, value)]


def select(layer, ins):
    return [Tensor(_broadcast(layer, [t.shape for t in ins]))]


def convert(layer, ins):
    value, dest = ins[0].value, (layer.data.get("destination_type") or "").strip().lower()
    if value is not None:
        dtype = consts.NUMBERS.get(dest)
        value = np.trunc(value).astype(dtype) if dtype is not None and np.asarray(value).dtype.kind == "f" \
            and np.dtype(dtype).kind in "iu" else value.astype(dtype) if dtype is not None else None
    return [Tensor(ins[0].shape, value)]


def shape_of(layer, ins):
    return [Tensor((len(ins[0].shape),), np.array(ins[0].shape, dtype=np.int64))]


def concat(layer, ins):
    rank = len(ins[0].shape)
    try:
        axis = _axis(int(layer.data.get("axis", "0")), rank)
    except ValueError:
        raise Unknown(f"axis={layer.data.get('axis')!r}") from None
    if any(len(t.shape) != rank or t.shape[:axis] + t.shape[axis + 1:] != ins[0].shape[:axis] + ins[0].shape[axis + 1:]
           for t in ins):
        raise Refused(f"its inputs {[list(t.shape) for t in ins]} do not join on axis {axis}")
    shape = ins[0].shape[:axis] + (sum(t.shape[axis] for t in ins),) + ins[0].shape[axis + 1:]
    value = np.concatenate([t.value for t in ins], axis) if all(t.value is not None for t in ins) else None
    return [Tensor(shape, value)]


def gather(layer, ins):
    data, idx = ins[0], ins[1]
    rank = len(data.shape)
    axis = _axis(_ints(ins[2], "axis")[0], rank)
    batch = int(layer.data.get("batch_dims", "0") or 0)
    batch = batch + len(idx.shape) if batch < 0 else batch
    shape = data.shape[:axis] + idx.shape[batch:] + data.shape[axis + 1:]
    value = None
    if data.value is not None and idx.value is not None and batch == 0:
        n = data.shape[axis]
        if np.any((idx.value < -n) | (idx.value >= n)):
            raise Unknown(f"it gathers indices {np.asarray(idx.value).tolist()} of a dim of {n}")
        value = np.take(data.value, np.asarray(idx.value) % n, axis=axis)
    return [Tensor(shape, value)]


def unsqueeze(layer, ins):
    axes = _ints(ins[1], "axes")
    rank = len(ins[0].shape) + len(axes)
    at = sorted(_axis(a, rank) for a in axes)
    shape = list(ins[0].shape)
    for a in at:
        shape.insert(a, 1)
    value = ins[0].value.reshape(shape) if ins[0].value is not None else None
    return [Tensor(tuple(shape), value)]


def squeeze(layer, ins):
    shape = ins[0].shape
    if len(ins) > 1:
        drop = {_axis(a, len(shape)) for a in _ints(ins[1], "axes")}
        drop = {a for a in drop if shape[a] == 1}          # (a dim other than 1 is kept, as opset1 does)
    else:
        drop = {a for a, d in enumerate(shape) if d == 1}
    out = tuple(d for a, d in enumerate(shape) if a not in drop)
    return [Tensor(out, ins[0].value.reshape(out) if ins[0].value is not None else None)]


def reshape(layer, ins):
    target, shape = _ints(ins[1], "target shape"), ins[0].shape
    zero = _flag(layer, "special_zero")
    out = [shape[i] if v == 0 and zero else v for i, v in enumerate(target)]
    if any(v < -1 for v in out) or out.count(-1) > 1:
        raise Unknown(f"its target shape is {target}")
    total = int(np.prod(shape, dtype=np.int64))
    if -1 in out:
        rest = int(np.prod([v for v in out if v != -1], dtype=np.int64))
        if rest == 0 or total % rest:
            raise Unknown(f"its target shape {target} does not divide {list(shape)}")
        out[out.index(-1)] = total // rest
    if int(np.prod(out, dtype=np.int64)) != total:
        raise Refused(f"its target shape {target} does not hold {list(shape)}")
    value = ins[0].value.reshape(out) if ins[0].value is not None else None
    return [Tensor(tuple(out), value)]


def transpose(layer, ins):
    shape = ins[0].shape
    order = _ints(ins[1], "order") or list(range(len(shape)))[::-1]
    if sorted(order) != list(range(len(shape))):
        raise Unknown(f"its order {order} is not a permutation of {len(shape)} axes")
    value = np.transpose(ins[0].value, order) if ins[0].value is not None else None
    return [Tensor(tuple(shape[a] for a in order), value)]


def _window_out(layer, x, k, s, d, pb, pe) -> int:
    auto = (layer.data.get("auto_pad") or "explicit").strip().lower()
    if auto in ("same_upper", "same_lower"):
        return -(-x // s)
    if auto == "valid":
        pb = pe = 0
    return (x + pb + pe - d * (k - 1) - 1) // s + 1


def _csv(layer, name, n, default):
    t = layer.data.get(name)
    if t is None or not t.strip():
        return [default] * n
    try:
        v = [int(x) for x in t.split(",")]
    except ValueError:
        raise Unknown(f"{name}={t!r}") from None
    if len(v) != n:
        raise Unknown(f"{name}={t!r} for {n} spatial axes")
    return v


def convolution(layer, ins):
    x, w = ins[0].shape, ins[1].shape
    grouped = layer.type == "GroupConvolution"
    k = w[3:] if grouped else w[2:]
    n = len(x) - 2
    if len(k) != n:
        raise Unknown(f"its weights {list(w)} do not fit input {list(x)}")
    s, d = _csv(layer, "strides", n, 1), _csv(layer, "dilations", n, 1)
    pb, pe = _csv(layer, "pads_begin", n, 0), _csv(layer, "pads_end", n, 0)
    out = [_window_out(layer, x[2 + i], k[i], s[i], d[i], pb[i], pe[i]) for i in range(n)]
    if any(o < 1 for o in out):
        raise Refused(f"its kernel does not fit the padded input: the output would be {out}")
    return [Tensor((x[0], w[0] * w[1] if grouped else w[0], *out))]


def backprop(layer, ins):
    x, w = ins[0].shape, ins[1].shape
    grouped = layer.type == "GroupConvolutionBackpropData"
    k = w[3:] if grouped else w[2:]
    n = len(x) - 2
    if len(ins) > 2 or len(k) != n or (layer.data.get("auto_pad") or "explicit").strip().lower() not in ("explicit",
                                                                                                      "valid"):
        raise Unknown("irpool infers a transposed convolution only with explicit pads and no output_shape input")
    s, d = _csv(layer, "strides", n, 1), _csv(layer, "dilations", n, 1)
    pb, pe = _csv(layer, "pads_begin", n, 0), _csv(layer, "pads_end", n, 0)
    op = _csv(layer, "output_padding", n, 0)
    if (layer.data.get("auto_pad") or "").strip().lower() == "valid":
        pb = pe = [0] * n
    out = [s[i] * (x[2 + i] - 1) + d[i] * (k[i] - 1) + 1 - pb[i] - pe[i] + op[i] for i in range(n)]
    return [Tensor((x[0], w[0] * w[2] if grouped else w[1], *out))]


def matmul(layer, ins):
    a, b = list(ins[0].shape), list(ins[1].shape)
    if _flag(layer, "transpose_a") and len(a) > 1:
        a[-2], a[-1] = a[-1], a[-2]
    if _flag(layer, "transpose_b") and len(b) > 1:
        b[-2], b[-1] = b[-1], b[-2]
    one_a, one_b = len(a) == 1, len(b) == 1
    a, b = ([1] + a if one_a else a), (b + [1] if one_b else b)
    if a[-1] != b[-2]:
        raise Refused(f"it multiplies {list(ins[0].shape)} by {list(ins[1].shape)}")
    try:
        batch = list(np.broadcast_shapes(tuple(a[:-2]), tuple(b[:-2])))
    except ValueError:
        raise Unknown(f"its batch dims {a[:-2]} and {b[:-2]} do not broadcast") from None
    out = batch + ([] if one_a else [a[-2]]) + ([] if one_b else [b[-1]])
    return [Tensor(tuple(out))]


def pool(layer, ins, file=None, ir_version=None):
    dims = list(ins[0].shape)
    try:
        pl = interpret(layer, file, rank=len(dims), ir_version=ir_version)
        spec, crop = negpads.fit(pl, dims)
        plans = plan(spec, negpads.cut(dims, crop))
    except IRError as e:
        raise Refused(e.reason) from None
    out = tuple(dims[:2] + [p.out for p in plans])
    if any(not isinstance(o, int) or o < 1 for o in out[2:]):
        raise Refused(f"its output would be {list(out)}")
    return [Tensor(out)] * max(len(layer.outputs), 1)


def adaptive(layer, ins):
    sizes = _ints(ins[1], "output_shape")
    return [Tensor(ins[0].shape[:2] + tuple(sizes))] * max(len(layer.outputs), 1)


def reduce(layer, ins):
    shape = ins[0].shape
    axes = {_axis(a, len(shape)) for a in _ints(ins[1], "axes")} if len(shape) else set()
    keep = _flag(layer, "keep_dims")
    out = tuple(1 if a in axes else d for a, d in enumerate(shape) if keep or a not in axes)
    value = None
    if ins[0].value is not None and layer.type in ("ReduceProd", "ReduceSum", "ReduceMax", "ReduceMin"):
        f = {"ReduceProd": np.prod, "ReduceSum": np.sum, "ReduceMax": np.max, "ReduceMin": np.min}[layer.type]
        value = f(ins[0].value, axis=tuple(sorted(axes)), keepdims=keep) if axes else ins[0].value
    return [Tensor(out, value)]


def interpolate(layer, ins):
    shape = list(ins[0].shape)
    rank = len(shape)
    mode = (layer.data.get("shape_calculation_mode") or "sizes").strip().lower()
    version = (layer.version or "").strip().lower()
    if version == "opset1":
        axes = [_axis(int(a), rank) for a in (layer.data.get("axes") or "").split(",") if a.strip()]
        values, mode = _ints(ins[1], "target shape"), "sizes"
    elif version == "opset4":
        values = _ints(ins[1], "sizes") if mode == "sizes" else np.asarray(_value(ins[2], "scales"), np.float32)
        axes = [_axis(a, rank) for a in _ints(ins[3], "axes")] if len(ins) > 3 else list(range(rank))
    elif version == "opset11":
        values = _ints(ins[1], "sizes") if mode == "sizes" else np.asarray(_value(ins[1], "scales"), np.float32)
        axes = [_axis(a, rank) for a in _ints(ins[2], "axes")] if len(ins) > 2 else list(range(rank))
    else:
        raise Unknown(f"version={layer.version!r}")
    pb, pe = _csv(layer, "pads_begin", rank, 0), _csv(layer, "pads_end", rank, 0)
    padded = [d + b + e for d, b, e in zip(shape, pb, pe)]
    values = list(values)
    if len(values) != len(axes):
        raise Unknown(f"it gives {len(values)} {mode} for {len(axes)} axes")
    out = list(padded)
    for a, v in zip(axes, values):
        out[a] = int(v) if mode == "sizes" else int(np.floor(np.float32(padded[a]) * np.float32(v) + np.float32(1e-5)))
    return [Tensor(tuple(out))]


def _value(t, what):
    if t is None or t.value is None:
        where = f"through {t.lost}, whose values irpool does not carry" if t is not None and t.lost else \
            "from the data, not from shapes"
        raise Unknown(f"its {what} input is computed {where}")
    return np.asarray(t.value).reshape(-1)


def pad(layer, ins):
    shape = ins[0].shape
    pb, pe = _ints(ins[1], "pads_begin"), _ints(ins[2], "pads_end")
    if len(pb) != len(shape) or len(pe) != len(shape):
        raise Unknown(f"pads {pb}, {pe} for a rank-{len(shape)} input")
    return [Tensor(tuple(d + b + e for d, b, e in zip(shape, pb, pe)))]


def split(layer, ins):
    shape = ins[0].shape
    axis = _axis(_ints(ins[1], "axis")[0], len(shape))
    if layer.type == "Split":
        n = int(layer.data.get("num_splits", "0") or 0)
        if n < 1 or shape[axis] % n:
            raise Refused(f"num_splits={n} does not divide a dim of {shape[axis]}")
        lengths = [shape[axis] // n] * n
    else:
        lengths = _ints(ins[2], "split_lengths")
        if lengths.count(-1) == 1:
            lengths[lengths.index(-1)] = shape[axis] - sum(v for v in lengths if v != -1)
        if sum(lengths) != shape[axis] or any(v < 0 for v in lengths):
            raise Unknown(f"split_lengths {lengths} of a dim of {shape[axis]}")
    values = np.split(ins[0].value, np.cumsum(lengths)[:-1], axis) if ins[0].value is not None else [None] * len(lengths)
    return [Tensor(shape[:axis] + (v,) + shape[axis + 1:], part) for v, part in zip(lengths, values)]


def _sliced(shape, value, index):
    """The shape (and value) numpy's indexing gives: the same clamping as OpenVINO's slicing ops."""
    try:
        probe = np.broadcast_to(np.empty((), np.bool_), shape)[index]
    except (IndexError, TypeError, ValueError) as e:
        raise Unknown(f"its slice does not fit {list(shape)}: {e}") from None
    return Tensor(tuple(probe.shape), value[index] if value is not None else None)


def strided_slice(layer, ins):
    begin, end = _ints(ins[1], "begin"), _ints(ins[2], "end")
    strides = _ints(ins[3], "strides") if len(ins) > 3 else [1] * len(begin)
    masks = {m: [int(v) for v in (layer.data.get(m) or "").replace(" ", "").split(",") if v] for m in
             ("begin_mask", "end_mask", "new_axis_mask", "shrink_axis_mask", "ellipsis_mask")}

    def bit(m, i):
        return i < len(masks[m]) and masks[m][i] == 1
    index = []
    for i, (b, e) in enumerate(zip(begin, end)):
        s = strides[i] if i < len(strides) else 1
        if s == 0:
            raise Unknown("a stride of 0")
        if bit("new_axis_mask", i):
            index.append(np.newaxis)
        elif bit("ellipsis_mask", i):
            index.append(Ellipsis)
        elif bit("shrink_axis_mask", i):
            index.append(b)
        else:
            index.append(slice(None if bit("begin_mask", i) else b, None if bit("end_mask", i) else e, s))
    return [_sliced(ins[0].shape, ins[0].value, tuple(index))]


def slice_(layer, ins):
    start, stop, step = (_ints(ins[k], w) for k, w in ((1, "start"), (2, "stop"), (3, "step")))
    rank = len(ins[0].shape)
    axes = [_axis(a, rank) for a in _ints(ins[4], "axes")] if len(ins) > 4 else list(range(len(start)))
    index = [slice(None)] * rank
    for a, b, e, s in zip(axes, start, stop, step):
        if s == 0:
            raise Unknown("a step of 0")
        index[a] = slice(b, e, s)
    return [_sliced(ins[0].shape, ins[0].value, tuple(index))]


def range_(layer, ins):
    start, stop, step = (float(_value(t, w)[0]) for t, w in zip(ins, ("start", "stop", "step")))
    if step == 0:
        raise Unknown("a step of 0")
    count = max(0, int(np.ceil((stop - start) / step)))
    if count > MOST_VALUES:
        return [Tensor((count,))]
    dtype = consts.NUMBERS.get((layer.data.get("output_type") or "").strip().lower()) or \
        np.asarray(ins[0].value).dtype
    return [Tensor((count,), (start + step * np.arange(count)).astype(dtype))]


def tile(layer, ins):
    shape, reps = list(ins[0].shape), _ints(ins[1], "repeats")
    n = max(len(shape), len(reps))
    shape, reps = [1] * (n - len(shape)) + shape, [1] * (n - len(reps)) + reps
    return [Tensor(tuple(d * r for d, r in zip(shape, reps)))]


def broadcast_to(layer, ins):
    target, mode = tuple(_ints(ins[1], "target shape")), (layer.data.get("mode") or "numpy").strip().lower()
    if mode == "numpy":
        shape = target
    elif mode == "bidirectional":
        try:
            shape = tuple(np.broadcast_shapes(ins[0].shape, target))
        except ValueError:
            raise Unknown(f"{list(ins[0].shape)} does not broadcast with {list(target)}") from None
    else:
        raise Unknown(f"mode={mode!r}, which irpool's --shape does not infer")
    value = np.broadcast_to(ins[0].value, shape).copy() if ins[0].value is not None and \
        int(np.prod(shape)) <= MOST_VALUES else None
    return [Tensor(shape, value)]


RULES = {"same": same, "broadcast": broadcast, "select": select, "convert": convert, "shape_of": shape_of,
         "concat": concat, "gather": gather, "unsqueeze": unsqueeze, "squeeze": squeeze, "reshape": reshape,
         "transpose": transpose, "convolution": convolution, "backprop": backprop, "matmul": matmul, "pool": pool,
         "adaptive": adaptive, "reduce": reduce, "interpolate": interpolate, "pad": pad, "split": split,
         "strided_slice": strided_slice, "slice": slice_, "range": range_, "tile": tile,
         "broadcast_to": broadcast_to}


class _Inference:
    """Walks the net in order, each layer's outputs from its inputs' (Tensor per (layer id, port id))."""

    def __init__(self, layers, feeds, result: Reshaped, bin_path, file, ir_version):
        self.layers, self.feeds, self.result = layers, feeds, result
        self.bin_path, self.file, self.ir_version = bin_path, file, ir_version
        self.out = {}
        self.rules = load("openvino")["reshape_ops"]["rules"]

    def layer(self, layer: Layer) -> None:
        ins, gap = [], None
        for p in layer.inputs:
            src = self.feeds.get((layer.id, p.id))
            t = self.out.get(src) if src is not None else None
            if t is None and gap is None:
                gap = self.result.gaps.get(src[0]) if src is not None else \
                    f"input port {p.id} of {_who(layer)} is fed by no edge"
                gap = gap or f"its input comes from layer {src[0]}, which --shape does not reach"
            ins.append(t)
        try:
            if gap is not None:
                raise _Upstream(gap)
            outs = self.outputs(layer, ins)
        except _Upstream as e:
            self.result.gaps[layer.id] = str(e)
            outs = self.declared(layer, ins)
        except Refused as e:
            self.result.gaps[layer.id] = f"it follows {_who(layer)}, which OpenVINO refuses on these shapes"
            if self.rules.get(layer.type) != "pool":        # (a pool's refusal is check's own finding)
                self.result.refused.append((layer, str(e)))
            outs = None
        except Unknown as e:
            self.result.gaps[layer.id] = f"irpool does not infer the output of {_who(layer)}: {e}"
            outs = self.declared(layer, ins)
        ports = self.result.ports.setdefault(layer.id, {})
        for p, t in zip(layer.inputs, ins):
            if t is not None:
                ports[p.id] = t.shape
        if outs is None:
            return
        for p, t in zip(layer.outputs, outs):
            self.out[(layer.id, p.id)] = _lost(layer, ins, t)
            ports[p.id] = t.shape
        if outs:
            self.result.gaps.pop(layer.id, None)

    def outputs(self, layer: Layer, ins: list) -> list:
        if layer.type == "Parameter":
            return self.parameter(layer)
        if layer.type == "Const":
            return self.const(layer)
        rule = self.rules.get(layer.type)
        if rule is None:
            raise Unknown(f"irpool's --shape does not know {layer.type} layers")
        if rule == "pool":
            return pool(layer, ins, self.file, self.ir_version)
        try:
            outs = RULES[rule](layer, ins)
        except (IndexError, AttributeError) as e:
            raise Unknown(f"its inputs are not what a {layer.type} takes ({e})") from None
        if any(v < 0 for t in outs for v in t.shape):
            raise Unknown(f"its output would be {[list(t.shape) for t in outs]}")
        return outs

    def declared(self, layer: Layer, ins: list) -> list | None:
        """An op irpool does not infer: its declared output dims where its inputs are what it declares and its
        outputs are written as numbers (OpenVINO's inference gives the same from the same); else None."""
        if not layer.outputs or any(t is None or tuple(t.shape) != tuple(p.dims) for t, p in zip(ins, layer.inputs)):
            return None
        if not all(isinstance(d, int) for p in layer.outputs for d in p.dims):
            return None
        return [Tensor(tuple(p.dims)) for p in layer.outputs]

    def parameter(self, layer: Layer) -> list:
        given = self.result.given.get(layer.id)
        if given is not None:
            return [Tensor(given)]
        dims = layer.outputs[0].dims if layer.outputs else None
        if dims is None or not all(isinstance(d, int) for d in dims):
            raise _Upstream(f"input {layer.name!r} has dynamic dims that --shape does not give")
        return [Tensor(tuple(dims))]

    def const(self, layer: Layer) -> list:
        try:
            shape = tuple(int(t) for t in (layer.data.get("shape") or "").split(",") if t.strip())
        except ValueError:
            raise Unknown(f"shape={layer.data.get('shape')!r}") from None
        value = consts.small_value(Const(layer.id, layer.name, layer.data_line, layer.data), self.bin_path, self.file)
        return [Tensor(shape, value)]


def _lost(layer: Layer, ins: list, t: Tensor) -> Tensor:
    """`t`, saying where its value was lost when it is small and unknown: at this layer, where every input
    had its value, else where the first input without one lost it (None: it comes from the data)."""
    if t.value is not None or t.lost or len(t.shape) > 1 or int(np.prod(t.shape)) > MOST_VALUES or \
            layer.type in ("Parameter", "Const"):
        return t
    if all(i is not None and i.value is not None for i in ins):
        return replace(t, lost=f"{_who(layer)} ({layer.type} layers' values are not carried)")
    return replace(t, lost=next((i.lost for i in ins if i is not None and i.value is None), None))


class Refused(Unknown):
    """A pooling layer OpenVINO refuses on the inferred dims (check says why, at the layer)."""


class _Upstream(Exception):
    """A layer's input is not known: the why of the layer it comes from."""
