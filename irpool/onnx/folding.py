"""The shape subgraphs ONNX's inference does not follow, folded. TorchScript's exporter computes a Pad's pads
(F.pad with a list, transformers' "same" padding) through ConstantOfShape, Slice, Transpose, Reshape and Cast;
ONNX's data propagation follows few of these, so every dim after the Pad is lost and the pools behind it
look symbolic although the model's inputs are static. Here each node of the main graph whose inputs are all
known (Constants, initializers, the Shape of a tensor whose dims are known) and whose output is small is
evaluated with onnx's reference implementation at the model's opset, and becomes a Constant in place (the
same output name, the same node number), and ONNX's inference runs again. Values are computed, never
guessed: a node the reference refuses stays as it is.

A tensor over wire.SMALL_TENSOR bytes has no values in the model irpool reads (wire.light); where a node to fold
takes one (a Gather from a table, a Shape-sized slice of a weight), the tensor alone is read back from the file
(model.Stripped: by seek, at most MOST_READ bytes) and only where the node's outputs are known to be small.
A value not read (larger, external data, not a tensor) leaves its users unfolded: the pools behind them are
counted unchecked, as their dims stay unknown."""
from __future__ import annotations

import numpy as np

MOST_VALUES = 64      # a folded tensor holds at most this many values: shape subgraphs are small
MOST_READ = 1 << 22   # bytes: a large tensor read back for a fold is at most this large
MOST_ROUNDS = 4       # inference and folding alternate at most this often (each round can fold more Shapes)
FOLDABLE = frozenset({
    "Abs", "Add", "Cast", "Ceil", "Concat", "ConstantOfShape", "Div", "Equal", "Expand", "Floor", "Gather",
    "Greater", "Identity", "Less", "Max", "Min", "Mod", "Mul", "Neg", "Not", "Range", "ReduceMax", "ReduceMin",
    "ReduceProd", "ReduceSum", "Reshape", "Shape", "Size", "Slice", "Split", "Sqrt", "Squeeze", "Sub",
    "Transpose", "Unsqueeze", "Where"})


def fold(model, infer, stripped=None):
    """`model` (inferred already) with its foldable nodes made Constants and inferred again by `infer` (a
    ModelProto -> ModelProto), as often as that finds more; the model itself where nothing folds. `stripped`
    (model.Stripped) reads back the values the model was read without."""
    for _ in range(MOST_ROUNDS):
        folded = _fold_once(model, stripped)
        if folded is None:
            return model
        try:
            model = infer(folded)
        except Exception:                   # (ONNX's inference refuses what was folded: keep what it had)
            return model
    return model


def _static_shapes(graph) -> dict:
    shapes = {}
    for vi in list(graph.input) + list(graph.value_info) + list(graph.output):
        t = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
        if t is not None and t.HasField("shape") and all(d.HasField("dim_value") for d in t.shape.dim):
            shapes[vi.name] = tuple(d.dim_value for d in t.shape.dim)
    return shapes


def _fold_once(model, stripped):
    """A copy of `model` with the nodes that can be evaluated made Constants, or None where none can."""
    import onnx
    from onnx import numpy_helper
    g = model.graph
    opsets = {o.domain or "": o.version for o in model.opset_import}
    shapes = _static_shapes(g)
    known = _Known(stripped)
    for t in g.initializer:
        known.tensor(t.name, t, ("initializer", t.name))
    changed = {}
    for i, node in enumerate(g.node):
        if node.domain not in ("", "ai.onnx"):
            continue
        if node.op_type == "Constant":
            known.constant(node, i)
            continue
        if node.op_type == "Shape" and node.input and node.input[0] in shapes:
            outs = _shape(node, shapes[node.input[0]])
        elif node.op_type in FOLDABLE and all(not n or n in known for n in node.input):
            feeds = known.feeds(node, shapes)
            outs = None if feeds is None or _too_large(node, feeds) else _run(node, feeds, opsets)
        else:
            continue
        if outs is None or any(np.asarray(o).size > MOST_VALUES for o in outs):
            continue
        for name, o in zip(node.output, outs):
            known.values[name] = np.asarray(o)
        if len(node.output) == 1:
            changed[i] = np.asarray(outs[0])
    if not changed:
        return None
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for i, value in changed.items():
        node = m.graph.node[i]
        name = node.output[0]
        replacement = onnx.helper.make_node("Constant", [], [name], name=node.name,
                                            value=numpy_helper.from_array(value, name))
        node.CopyFrom(replacement)
    return m


class _Known:
    """The values known so far: small ones (`values`), and large ones read back only when a node needs them
    (`large`: name -> where, for model.Stripped), so no weight is read for nothing."""

    def __init__(self, stripped):
        self.stripped, self.values, self.large = stripped, {}, {}

    def __contains__(self, name) -> bool:
        return name in self.values or name in self.large

    def tensor(self, name, t, key) -> None:
        """A TensorProto's values under `name`: read now if small, remembered if large or left out."""
        from .model import tensor_array
        if self.stripped is not None and self.stripped.has(key):
            self.large[name] = key
        elif int(np.prod(t.dims)) > MOST_VALUES:
            self.large[name] = t                # (its values are in the model: at most wire.SMALL_TENSOR bytes)
        else:
            value = tensor_array(t)
            if value is not None:
                self.values[name] = value

    def constant(self, node, i) -> None:
        for a in node.attribute:
            if a.name == "value" and a.HasField("t"):
                self.tensor(node.output[0], a.t, ("node", i))
            elif a.name in ("value_int", "value_float"):
                self.values[node.output[0]] = np.array(a.i if a.name == "value_int" else a.f)
            elif a.name in ("value_ints", "value_floats") and len(a.ints) + len(a.floats) <= MOST_VALUES:
                self.values[node.output[0]] = np.array(list(a.ints) if a.name == "value_ints" else list(a.floats))

    def feeds(self, node, shapes) -> dict | None:
        """The node's inputs by name; None where a large one is needed for outputs not known to be small, or
        cannot be read back."""
        feeds = {n: self.values[n] for n in node.input if n and n in self.values}
        large = [n for n in node.input if n and n not in feeds]
        if not large:
            return feeds
        if not all(o in shapes and int(np.prod(shapes[o])) <= MOST_VALUES for o in node.output):
            return None
        from .model import tensor_array
        for n in large:
            where = self.large[n]
            value = self.stripped.array(where, MOST_READ) if isinstance(where, tuple) else tensor_array(where)
            if value is None:
                return None
            feeds[n] = value
        return feeds


def _shape(node, dims):
    start = next((a.i for a in node.attribute if a.name == "start"), 0)
    end = next((a.i for a in node.attribute if a.name == "end"), None)
    return [np.array(dims[start:end], dtype=np.int64)]


def _too_large(node, feeds: dict) -> bool:
    """Whether a Range, ConstantOfShape or Expand would make more than MOST_VALUES values: known from its inputs
    before it runs (a Range(0, 1e9) took 40 s and 16 GB to be found too large after: crash hunt 3). The other
    foldable ops make outputs no larger than their inputs' (at most MOST_VALUES values, or broadcasts of them)."""
    args = [feeds.get(n) for n in node.input]
    try:
        if node.op_type == "Range" and len(args) == 3 and all(a is not None for a in args):
            start, limit, delta = (float(np.asarray(a).reshape(-1)[0]) for a in args)
            count = np.ceil((limit - start) / delta) if delta else np.inf
            return not count <= MOST_VALUES          # (NaN and inf too)
        if node.op_type in ("ConstantOfShape", "Expand") and args and args[-1] is not None:
            dims = [int(d) for d in np.asarray(args[-1]).reshape(-1)]
            given = np.asarray(args[0]).shape if node.op_type == "Expand" and args[0] is not None else ()
            width = max(len(dims), len(given))
            dims, given = [1] * (width - len(dims)) + dims, [1] * (width - len(given)) + list(given)
            return int(np.prod([max(d, g) for d, g in zip(dims, given)], dtype=object)) > MOST_VALUES
    except (ValueError, TypeError, OverflowError, IndexError):
        return True                          # (inputs the reference would refuse too)
    return False


def _run(node, feeds: dict, opsets: dict):
    """The node's outputs by onnx's reference implementation at the model's opsets, or None. The node goes in
    a FunctionProto: given a bare NodeProto, ReferenceEvaluator ignores `opsets` and runs the newest opset's
    op (onnx 1.23 reference_evaluator.py: ReferenceEvaluator.__init__), so an opset-11 Unsqueeze with its axes
    attribute was refused and a shape subgraph stayed unfolded."""
    from onnx import helper
    from onnx.reference import ReferenceEvaluator
    try:
        f = helper.make_function("irpool.fold", "node", [n for n in node.input if n], list(node.output), [node],
                                 [helper.make_opsetid(d, v) for d, v in opsets.items()])
        return ReferenceEvaluator(f).run(None, feeds, attributes={})
    except Exception:                       # (a node the reference cannot run stays as it is)
        return None
