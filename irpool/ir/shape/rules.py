"""The rule of each layer type --shape infers (schemas/openvino.json "reshape_ops" names it): a layer and its
input Tensors (dims, and the values of small shape tensors where known) to its output Tensors, as OpenVINO's
shape inference gives them. A rule raises Unknown where irpool cannot know the output, Refused where OpenVINO's
reshape refuses the layer."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...core import plan
from ...core.shape import out_length
from ...errors import IRError
from ..ops import consts, negpads, shape_ops
from ..ops.pools import interpret
from ..read.layer_edge import Layer
from ..ops.shape_ops import Refused, Unknown

MOST_VALUES = consts.MOST_VALUES       # values carried per tensor, at most: shape subgraphs hold a few


@dataclass(frozen=True)
class Tensor:
    shape: tuple                       # ints
    value: object = None               # its values (an ndarray of this shape), for small tensors where known
    lost: str | None = None            # where a small tensor's value was not carried: the layer that dropped it


def who(layer: Layer) -> str:
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


_UNARY_VALUES = {"Floor": np.floor, "Ceiling": np.ceil, "Abs": np.abs, "Negative": np.negative, "Sqrt": np.sqrt}


def same(layer, ins):
    f, value = _UNARY_VALUES.get(layer.type), ins[0].value
    if value is not None and np.asarray(value).dtype.kind in "iub" and layer.type == "Sqrt":
        f = None                            # (an integer Sqrt's rounding is OpenVINO's own: not carried)
    value = np.asarray(f(value)).astype(np.asarray(value).dtype) if f is not None and value is not None and \
        len(ins) == 1 else None             # (the input's element type, as OpenVINO's: a Range-1 compares them)
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
    return [Tensor((len(ins[0].shape),), shape_ops.shape_of(layer, ins[0].shape))]


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
    axes = _value(ins[1], "axes").reshape(ins[1].shape) if len(ins) > 1 else None
    out = shape_ops.squeeze(ins[0].shape, axes)
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
    return out_length(x, d * (k - 1) + 1, s, pb, pe, "floor")        # (-1 where the kernel does not fit)


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
        value = np.asarray(f(ins[0].value, axis=tuple(sorted(axes)), keepdims=keep)).astype(ins[0].value.dtype) \
            if axes else ins[0].value
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


def range_(layer, ins):
    shape_ops.range_scalars([t.shape for t in ins])
    values = [_value(t, w).reshape(()) for t, w in zip(ins, ("start", "stop", "step"))]
    count = shape_ops.range_count(layer, values)
    return [Tensor((count,), shape_ops.range_values(layer, values, count) if count <= MOST_VALUES else None)]


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
         "range": range_, "tile": tile,
         "broadcast_to": broadcast_to}
