"""The shape subgraphs ONNX's inference does not follow, folded. TorchScript's exporter computes a Pad's pads
(F.pad with a list, transformers' "same" padding) through ConstantOfShape, Slice, Transpose, Reshape and Cast;
ONNX's data propagation follows few of these, so every dim after the Pad is lost and the pools behind it
look symbolic although the model's inputs are static. Here each node of the main graph whose inputs are all
known (Constants, initializers, the Shape of a tensor whose dims are known) and whose output is small is
evaluated with onnx's reference implementation at the model's opset, and becomes a Constant in place (the
same output name, the same node number), and ONNX's inference runs again. Values are computed, never
guessed: a node the reference refuses stays as it is."""
from __future__ import annotations

import numpy as np

MOST_VALUES = 64      # a folded tensor holds at most this many values: shape subgraphs are small
MOST_ROUNDS = 4       # inference and folding alternate at most this often (each round can fold more Shapes)
FOLDABLE = frozenset({
    "Abs", "Add", "Cast", "Ceil", "Concat", "ConstantOfShape", "Div", "Equal", "Expand", "Floor", "Gather",
    "Greater", "Identity", "Less", "Max", "Min", "Mod", "Mul", "Neg", "Not", "Range", "ReduceMax", "ReduceMin",
    "ReduceProd", "ReduceSum", "Reshape", "Shape", "Size", "Slice", "Split", "Sqrt", "Squeeze", "Sub",
    "Transpose", "Unsqueeze", "Where"})


def fold(model, infer):
    """`model` (inferred already) with its foldable nodes made Constants and inferred again by `infer` (a
    ModelProto -> ModelProto), as often as that finds more; the model itself where nothing folds."""
    for _ in range(MOST_ROUNDS):
        folded = _fold_once(model)
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


def _fold_once(model):
    """A copy of `model` with the nodes that can be evaluated made Constants, or None where none can."""
    import onnx
    from onnx import numpy_helper
    g = model.graph
    opsets = {o.domain or "": o.version for o in model.opset_import}
    shapes = _static_shapes(g)
    known = {t.name: numpy_helper.to_array(t) for t in g.initializer if np.prod(t.dims) <= MOST_VALUES}
    changed = {}
    for i, node in enumerate(g.node):
        if node.domain not in ("", "ai.onnx"):
            continue
        if node.op_type == "Constant":
            value = _constant(node)
            if value is not None:
                known[node.output[0]] = value
            continue
        if node.op_type == "Shape" and node.input and node.input[0] in shapes:
            outs = _shape(node, shapes[node.input[0]])
        elif node.op_type in FOLDABLE and all(not n or n in known for n in node.input):
            outs = _run(node, {n: known[n] for n in node.input if n}, opsets)
        else:
            continue
        if outs is None or any(np.asarray(o).size > MOST_VALUES for o in outs):
            continue
        for name, o in zip(node.output, outs):
            known[name] = np.asarray(o)
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


def _constant(node):
    from onnx import numpy_helper
    for a in node.attribute:
        if a.name == "value" and a.HasField("t"):
            value = numpy_helper.to_array(a.t)
            return value if value.size <= MOST_VALUES else None
        if a.name in ("value_int", "value_float"):
            return np.array(a.i if a.name == "value_int" else a.f)
        if a.name in ("value_ints", "value_floats"):
            return np.array(list(a.ints) if a.name == "value_ints" else list(a.floats))
    return None


def _shape(node, dims):
    start = next((a.i for a in node.attribute if a.name == "start"), 0)
    end = next((a.i for a in node.attribute if a.name == "end"), None)
    return [np.array(dims[start:end], dtype=np.int64)]


def _run(node, feeds: dict, opsets: dict):
    """The node's outputs by onnx's reference implementation at the model's opsets, or None."""
    from onnx.reference import ReferenceEvaluator
    try:
        return ReferenceEvaluator(node, opsets=opsets).run(None, feeds)
    except Exception:                       # (a node the reference cannot run stays as it is)
        return None
