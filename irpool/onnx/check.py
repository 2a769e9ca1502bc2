"""irpool.check of an .onnx model: each pooling node's declared output shapes against what onnxruntime's
kernel computes, what onnxruntime refuses, and where onnxruntime's kernel, its own graph resolution, ONNX's
shape inference and OpenVINO's ONNX frontend disagree (schemas/onnx.json "runtimes", each rule measured).

A node's input shape is, in order: what irpool computed for the pooling node that produces it, the model's
declaration (graph input, value_info, initializer), ONNX's shape inference of the rest of the model (asked
only for what is not declared, or with --shape); a node whose input stays unknown is `unchecked`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..codes import severity
from ..core import axis_names, plan
from ..errors import IRError
from ..limits import MAX_BYTES
from ..opdefs import load
from ..report import Finding, Report
from .folding import fold
from .graphs import refusals, unordered
from .model import PoolNode, Value, label, pool_nodes, read_stripped, shape_text, type_name
from .runtimes import empty_windows, value_differences
from .attributes import NHWC, node_attrs, of_op, pads_refusal, to_spec, unknown_attribute
from .ort_geometry import fit, ort_max_start
from .kernels import axes_refusal, op_refusal, ort_types

MOST_NAMED = 8          # a value-divergence names this many nodes of a kind, then counts the rest
@dataclass
class NodeJudged:
    """What check found of one node: the op version, its PoolSpec and per-axis plans (when computed), and
    the output shape onnxruntime's kernel gives (None where unknown)."""
    node: PoolNode
    op: str | None = None
    spec: object = None          # the PoolSpec the core runs (None: one irpool cannot run)
    base: object = None          # the PoolSpec of the attributes alone (OpenVINO's reading)
    plans: tuple = ()
    x_shape: tuple | None = None
    x_type: str | None = None    # X's element type, numpy-style (None: not declared)
    out: tuple | None = None
    error: str | None = None
    pooling: bool = True         # False: a ReduceMean/ReduceMax that is not over every spatial axis

    @property
    def kind(self) -> str:
        """How reports count it: MaxPool, ..., global ReduceMean (as the IR front end counts OpenVINO's)."""
        return f"global {self.node.node.op_type}" if self.node.axes is not None else self.node.node.op_type


def check(source, *, max_bytes: int = MAX_BYTES, shapes: dict | None = None, file: str | None = None,
          explain=None, read=None) -> Report:
    """The Report of an .onnx model (a path, bytes, or a binary file object). `shapes`: {graph input name:
    dims}, the input sizes to judge symbolic dims with (--shape). `read`: read_stripped's answer, where the caller
    has read the model (run, which refuses a model onnxruntime refuses)."""
    model, name, stripped = read or read_stripped(source, max_bytes)
    name = file or name
    report = Report(name)
    for f in refusals(model):
        f.file = name
        report.findings.append(f)
    static = _inputs_static(model, shapes)
    values = []                             # (node, kind) of every value divergence: one finding for the file
    cyclic = unordered(model.graph)         # (on a cycle or behind one: bad-graph says so; no shape is known there)
    for j in judge_all(model, shapes, stripped):
        report.count(j.kind)
        if j.node.graph == () and j.node.index in cyclic:
            report.uncheck(j.kind, "they are on a cycle of the graph, or behind one: no input shape is known there")
            continue
        if j.error is None and j.x_shape is not None and all(d is None for d in j.x_shape[2:]) and \
                j.node.axes is None:
            report.uncheck(j.kind, "their spatial input dims are symbolic, so their output dims are"
                           " not checked: give --shape NAME=dims for the model's inputs to check them" if not static
                           else "their spatial input dims are not known: the model's inputs are static, and neither"
                           " ONNX's inference nor irpool's folding of shape subgraphs carries their dims there")
        elif j.error and j.error[0] == "unchecked":
            report.uncheck(j.kind, "their input has no shape, declared or inferred" if j.node.axes is None else
                           "reductions whose input's rank is not known: global pools if their axes are the spatial"
                           " ones")
        for f in findings(j):
            f.file = name
            report.findings.append(f)
        if j.error is None:
            values += [(j.node, kind) for kind, _ in value_differences(j)]
        if explain is not None:
            explain(j)
    if values:
        report.findings.append(_values_finding(values, name))
    return report


def _values_finding(values: list, file) -> Finding:
    """The file's one value-divergence warning: each kind in short (schemas/onnx.json "value_divergence") with
    the nodes it holds for; explain --layer NODE says it in full."""
    short = load("onnx")["runtimes"]["value_divergence"]
    kinds = {}
    for n, kind in values:
        named = kinds.setdefault(kind, [])
        if label(n) not in named:                       # (a node said once per kind, however many axes)
            named.append(label(n))
    parts = []
    for kind, nodes in kinds.items():
        shown = ", ".join(nodes[:MOST_NAMED]) + (f" and {len(nodes) - MOST_NAMED} more" if len(nodes) > MOST_NAMED
                                                   else "")
        parts.append(f"{short[kind]}: {shown}")
    count = len({id(n) for n, _ in values})
    return Finding("value-divergence", severity("value-divergence"), f"OpenVINO computes other values than"
                   f" onnxruntime on {count} node{'s' * (count != 1)}: " + "; ".join(parts) + " (irpool explain"
                   " FILE --layer NODE says why in full)", None, file=file, front_end="onnx")


def judge_all(model, shapes=None, stripped=None) -> list:
    """NodeJudged, for every pooling node in order, its input taken as the module docstring says. Where a pool's
    output is not what the model declares, the nodes after it are judged again on the shapes ONNX's
    inference carries from onnxruntime's dims (a wrong dim upstream is the upstream node's finding).
    `stripped` (model.Stripped) reads back large tensors the folding of shape subgraphs needs."""
    nodes = list(pool_nodes(model, shapes))
    inferred = _inferred(model, nodes, shapes, stripped)
    produced, judged = {}, []
    for k, n in enumerate(nodes):
        x_name = n.node.input[0] if n.node.input else ""
        if x_name in produced and n.graph == produced[x_name][0]:
            n.x = produced[x_name][1]
        elif _unknown(n.x, shapes) and inferred is not None and inferred[k] is not None and \
                inferred[k].x is not None:
            n.x = Value(inferred[k].x.shape, inferred[k].x.elem_type or (n.x.elem_type if n.x else 0), "inferred",
                        kind=n.x.kind if n.x else "tensor_type")
        j = judge(n)
        if j.out is not None:
            for out_name in n.node.output[:1]:
                produced[out_name] = (n.graph, Value(j.out, n.x.elem_type if n.x else 0, "computed"))
        judged.append(j)
    return [j for j in _carried(model, judged, produced) if j.pooling]


def _carried(model, judged, produced) -> list:
    """The main graph's pools judged again where their input, carried by ONNX's inference from every
    pool's computed output, differs from the input they were judged on."""
    computed = {name: v for name, (path, v) in produced.items() if path == () and
                all(isinstance(d, int) for d in v.shape)}
    moved = [j for j in judged if j.node.graph == () and j.out is not None and j.node.outputs and
             j.node.outputs[0][1] is not None and j.node.outputs[0][1].shape != j.out]
    if not moved or len(judged) < 2:
        return judged
    import onnx
    m = onnx.ModelProto()
    m.CopyFrom(model)
    del m.graph.value_info[:]
    for vi in m.graph.output:
        vi.type.tensor_type.ClearField("shape")
    for name, v in computed.items():
        m.graph.value_info.append(onnx.helper.make_tensor_value_info(name, v.elem_type or 1, list(v.shape)))
    try:
        again = list(pool_nodes(onnx.shape_inference.infer_shapes(m, data_prop=True)))
    except Exception:                       # (what ONNX's inference refuses: the first verdicts stand)
        return judged
    if len(again) != len(judged):
        return judged
    out = []
    for j, n in zip(judged, again):
        x = n.x
        if j.node.graph == () and x is not None and x.shape is not None and j.node.x is not None and \
                j.node.x.origin != "computed" and all(isinstance(d, int) for d in x.shape) and x.shape != j.x_shape:
            j.node.x = Value(x.shape, x.elem_type, "carried from onnxruntime's dims upstream")
            j = judge(j.node)
        out.append(j)
    return out


def _inputs_static(model, shapes) -> bool:
    """Whether every input of the main graph has numeric dims (or --shape gives them): --shape cannot help."""
    weights = {t.name for t in model.graph.initializer}
    for vi in model.graph.input:
        t = vi.type.tensor_type if vi.type.HasField("tensor_type") else None
        if vi.name in weights or shapes and vi.name in shapes:
            continue
        if t is None or not t.HasField("shape") or not all(d.HasField("dim_value") for d in t.shape.dim):
            return False
    return True


def _unknown(x: Value | None, shapes) -> bool:
    return x is None or x.shape is None or bool(shapes) and any(not isinstance(d, int) for d in x.shape)


def _inferred(model, nodes, shapes, stripped=None):
    """The same nodes as ONNX's shape inference sees them (only when some input is not known), else None."""
    if not any(_unknown(n.x, shapes) for n in nodes):
        return None
    import onnx
    m = model
    if shapes:
        m = onnx.ModelProto()
        m.CopyFrom(model)
        for vi in m.graph.input:
            if vi.name in shapes and vi.type.HasField("tensor_type"):
                shape = vi.type.tensor_type.shape
                shape.ClearField("dim")
                for d in shapes[vi.name]:
                    shape.dim.add().dim_value = d
    def infer(m):
        return onnx.shape_inference.infer_shapes(m, data_prop=True)
    try:
        m = infer(m)
    except Exception:                       # a model ONNX's inference refuses: what is declared is all there is
        return None
    again = list(pool_nodes(m))
    if _inputs_static(model, shapes) and \
            any(_unknown(n.x, shapes) or any(not isinstance(d, int) for d in n.x.shape[2:]) for n in again):
        m = fold(m, infer, stripped)        # (shape subgraphs ONNX's inference does not follow: folding.py)
        again = list(pool_nodes(m))
    by_place = {(a.graph, a.where, a.index): a for a in again}     # (folding may make a reduction's axes known)
    return [by_place.get((n.graph, n.where, n.index)) for n in nodes]


def judge(n: PoolNode) -> NodeJudged:
    """onnxruntime's verdict on one node: the spec and output shape, or the reason it refuses it."""
    j = NodeJudged(n)
    op_type = n.node.op_type
    if n.axes is not None:
        return _reduction(j)
    j.error, j.op = op_refusal(n)
    if j.error:
        return j
    x = n.x
    j.error = _input_refusal(j, x)
    if j.error:
        return j
    dims = j.x_shape = tuple(d if isinstance(d, int) else None for d in x.shape)
    j.x_type = type_name(x.elem_type) if x.elem_type else None
    j.error = axes_refusal(j.op, j.node, len(dims))
    if j.error:
        return j
    try:
        attrs = node_attrs(n.node)
        if op_type.startswith("Global"):
            return _global(j, dims)
        j.base = to_spec(op_type, attrs, opset=n.opset, domain=n.domain, rank=len(dims), any_p=True)
        refusal = pads_refusal(j.base)
        if refusal:
            raise IRError(refusal)
        loop = ort_max_start(j.base, j.x_type, len(n.node.output)) if j.x_type and j.base.reduction == "max" else None
        j.spec, lengths = fit(j.base, dims, strict=False, op=j.op, max_start=loop)
        out = list(dims)
        for a, length in zip(j.base.spatial_axes(len(dims)), lengths):
            out[a] = length
        j.out = tuple(out)
        if j.spec is not None and 0 not in lengths:       # (an empty output has no windows to show)
            j.plans = plan(j.spec, dims)
    except IRError as e:
        code = e.code if e.code in ("bad-shape", "bad-rank") else "bad-attribute"    # (as raised: core/shape.py)
        j.error = (code, of_op(j.op, e.reason))
        return j
    return j


def _input_refusal(j: NodeJudged, x) -> tuple | None:
    """(code, why) where the node's input X cannot be judged: not a tensor (onnxruntime refuses the model), no
    shape known, or a type onnxruntime has no kernel for."""
    if x is not None and x.kind != "tensor_type":
        return ("bad-graph", f"its input {j.node.node.input[0]!r} is declared {x.kind.replace('_type', '')}, not a"
                " tensor: onnxruntime refuses the model ('Type Error: ... of input parameter ... is invalid')")
    if x is None or x.shape is None:
        n = j.node.node
        why = "its input has no declared shape" if x is not None else f"its input {n.input[0]!r} is" \
            " declared nowhere" if n.input and n.input[0] else "it has no input"
        return ("unchecked", f"{why}, and ONNX's shape inference of the model gives none: its output cannot be"
                " computed")
    types = ort_types(j.op, j.node.opset)[0]
    if x.elem_type and type_name(x.elem_type) not in types:
        return ("bad-precision", f"onnxruntime has no {j.op} kernel for X of type {type_name(x.elem_type)}"
                f" ({j.op} takes {', '.join(types)})")
    return None


def _global(j: NodeJudged, dims) -> NodeJudged:
    """A global pool: every spatial dim becomes 1 (a rank under 3, or an attribute its version lacks, refused)."""
    unknown = unknown_attribute(j.op, node_attrs(j.node.node), load("onnx")["ops"][j.op]["attributes"])
    if unknown:
        j.error = ("bad-attribute", unknown)
        return j
    if len(dims) < 3:
        j.error = ("bad-rank", f"{j.op}: X must have rank 3 or more (N, C and a spatial axis), not {len(dims)}")
        return j
    last = j.node.domain == NHWC
    j.out = (dims[0],) + (1,) * (len(dims) - 2) + (dims[-1],) if last else dims[:2] + (1,) * (len(dims) - 2)
    return j


def _reduction(j: NodeJudged) -> NodeJudged:
    """A ReduceMean/ReduceMax (schemas/onnx.json "global_reductions"): a global pool where its axes are every
    spatial axis of a rank 3-5 input (its output N, C, and a 1 per spatial axis with keepdims), else no pool."""
    n = j.node
    rule = load("onnx")["global_reductions"][n.node.op_type]
    j.op = f"{n.node.op_type}-{max(v for v in rule['versions'] if v <= n.opset)}"
    if n.x is None or n.x.shape is None:
        j.error = ("unchecked", "its input's rank is not known (declared nowhere, and ONNX's shape inference of the"
                   " model gives none), so whether it reduces every spatial axis, a global pool, is not known")
        return j
    rank = len(n.x.shape)
    if not 3 <= rank <= 5 or len(n.axes) != rank - 2 or \
            sorted(a % rank for a in n.axes if -rank <= a < rank) != list(range(2, rank)):
        j.pooling = False
        return j
    dims = j.x_shape = tuple(d if isinstance(d, int) else None for d in n.x.shape)
    j.x_type = type_name(n.x.elem_type) if n.x.elem_type else None
    j.out = dims[:2] + (1,) * (rank - 2) if node_attrs(n.node).get("keepdims", 1) == 1 else dims[:2]   # (as ORT)
    return j


def _finding(n: PoolNode, code: str, message: str, fix=None) -> Finding:
    return Finding(code, severity(code), message, None, str(n.index), n.name, n.node.op_type, path=n.where, fix=fix,
                   front_end="onnx")


def findings(j: NodeJudged) -> list:
    n = j.node
    if j.error:
        return [_finding(n, *j.error)]
    from .runtimes import shapes as runtime_shapes
    out = []
    inferred = runtime_shapes(j)["onnx"] if n.branch_output and j.out is not None and not n.domain else j.out
    if inferred != j.out:
        out.append(_finding(n, "bad-graph", f"its output {n.node.output[0]!r} is its If branch's output, which"
                         " onnxruntime allocates with the dims ONNX's inference gives ("
                         f"{shape_text(inferred)}), and its kernel computes {shape_text(j.out)}: onnxruntime"
                         " fails running the If whenever this branch runs (\"The output OrtValue provided ... has"
                         " shape\")"))
    out += [f for k, (name, declared) in enumerate(n.outputs) if k < 2 and name
            for f in _declared(j, k, name, declared)]
    out += [f for k, name, declared in n.again if k < 2 for f in _declared(j, k, name, declared, again=True)]
    out.extend(divergences(j))
    out += [_finding(n, "empty-window", m) for m in empty_windows(j)]
    return out


def _declared(j: NodeJudged, k: int, name: str, declared: Value | None, again: bool = False) -> list:
    """shape-mismatch where the declared shape of output k (Y, Indices) differs from the kernel's; bad-graph where
    its declared element type is not the op's (onnxruntime refuses the model: crash hunt 3 found it ok). `again`:
    a later declaration of its name (onnxruntime reads the first, onnx's checker the last: both are judged)."""
    want_type = "int64" if k else j.x_type
    if declared is not None and declared.elem_type and want_type and type_name(declared.elem_type) != want_type \
            and not again:                              # (a later entry's type: onnxruntime runs it, measured)
        return [_finding(j.node, "bad-graph", f"output {name!r} ({'Indices' if k else 'Y'}) declares"
                         f" {type_name(declared.elem_type)}; {j.op} gives {want_type}: onnxruntime refuses the model"
                         " (\"Type Error: Type ... does not match expected type\")")]
    if declared is None or declared.shape is None or j.out is None:
        return []
    want = j.out
    if k == 1 and j.spec is not None and j.node.domain == NHWC:      # Indices keep the NCHW shape
        want = (want[0], want[-1]) + want[1:-1]
    what = f"output {name!r} ({'Indices' if k else 'Y'})" + (", declared again later in the graph" if again else "")
    if len(declared.shape) != len(want):
        return [_finding(j.node, "shape-mismatch", f"{what} declares rank {len(declared.shape)}; {j.op} gives rank"
                         f" {len(want)} ({shape_text(want)})")]
    wrong = [(i, w) for i, (d, w) in enumerate(zip(declared.shape, want))
             if isinstance(d, int) and isinstance(w, int) and d != w]
    if not wrong:
        return []
    names = _axis_names(j, len(want))
    parts = []
    for i, w in wrong:
        p = _plan_of(j, i)
        how = p.arithmetic if p is not None else f"{names.get(i, f'axis {i}')}: {w}"
        parts.append(f"{how}, declared {declared.shape[i]}")
    origin = "" if j.node.x.origin == "declared" else f" (input {shape_text(j.x_shape)}, {j.node.x.origin})"
    fix = None
    if declared.where is not None and declared.where[0] is not None and not again:
        fix = dict(graph=[list(t) for t in declared.where[0]], name=name, dims=[[i, w] for i, w in wrong])
    return [_finding(j.node, "shape-mismatch", f"{what}{origin}: " + "; ".join(parts), fix)]


def _axis_names(j: NodeJudged, rank: int) -> dict:
    if j.base is None:
        return {}
    return dict(zip(j.base.spatial_axes(rank), axis_names(j.base.ndim)))


def _plan_of(j: NodeJudged, axis: int):
    if not j.plans:
        return None
    for a, p in zip(j.spec.spatial_axes(len(j.out)), j.plans):
        if a == axis:
            return p
    return None




def divergences(j: NodeJudged) -> list:
    """runtime-divergence findings: where another runtime gives this node another shape or other values."""
    from .runtimes import differences
    return [_finding(j.node, "runtime-divergence", m) for m in differences(j)]
