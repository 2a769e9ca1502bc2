"""What onnxruntime refuses of a model's graphs before it runs a node (its Graph::Resolve and model loader,
measured with onnxruntime 1.32.0: tests/cli/test_no_quiet_pass.py), so that check never calls `ok` a model no session
loads: an ai.onnx opset past the newest it knows, a main-graph input with no type, a name two nodes (or a node
and an input) define, a node input nothing defines, a cycle, an If without both branches. The IR front end
judges its graphs the same way (ir/graph/built.py). Each refusal is a `bad-graph` error naming the node."""
from __future__ import annotations

from ..codes import severity
from ..report import Finding
from .attributes import graphs_of

NEWEST_OPSET = 28        # the newest ai.onnx opset onnxruntime 1.32.0 loads (29: "ValidateOpsetForDomain")


def refusals(model) -> list:
    """bad-graph Findings, in the order onnxruntime would meet them (model, then graphs outermost first)."""
    out = []
    for imp in model.opset_import:
        if imp.domain in ("", "ai.onnx") and imp.version > NEWEST_OPSET:
            out.append(_said(f"the model imports ai.onnx opset {imp.version}; onnxruntime 1.32.0 loads opsets up to"
                             f" {NEWEST_OPSET} and refuses it (\"ValidateOpsetForDomain\")"))
    _graph(model.graph, frozenset(), None, out, main=True)
    return out


def _said(message, node=None, index=None, where=None) -> Finding:
    who = dict(layer_id=str(index), layer_name=node.name or (node.output[0] if node.output else f"#{index}"),
               layer_type=node.op_type) if node is not None else {}
    return Finding("bad-graph", severity("bad-graph"), message, None, path=where, front_end="onnx", **who)


def _graph(g, outer: frozenset, where, out: list, main: bool = False) -> None:
    inputs = {vi.name for vi in g.input} | {t.name for t in g.initializer} | \
        {t.values.name for t in g.sparse_initializer}       # (a sparse initializer is named by its values tensor)
    if main:
        for vi in g.input:
            if not vi.type.WhichOneof("value"):
                out.append(_said(f"model input {vi.name!r} has no type: onnxruntime refuses the model (\"does not have"
                                 " type information\")"))
            elif vi.type.HasField("tensor_type") and not vi.type.tensor_type.elem_type:
                out.append(_said(f"model input {vi.name!r} has element type UNDEFINED (0): onnxruntime refuses the"
                                 " model (\"Invalid tensor data type 0\")"))
    seen = set()
    for vi in g.input:
        if vi.name in seen:
            out.append(_said(f"graph input {vi.name!r} is declared twice: onnxruntime refuses the model (\"Duplicate"
                             " definition-site\")", where=where))
        seen.add(vi.name)
    made = {}
    for i, node in enumerate(g.node):
        for name in node.output:
            if not name:
                continue
            if name in made or name in inputs:
                out.append(_said(f"{name!r} is defined twice (by this node and by "
                                 + (f"node #{made[name]}" if name in made else "a graph input or initializer")
                                 + "): onnxruntime refuses the model (\"Duplicate definition of name\")",
                                 node, i, where))
            made.setdefault(name, i)
    known = outer | inputs | made.keys()
    for i, node in enumerate(g.node):
        for name in node.input:
            if name and name not in known:
                out.append(_said(f"its input {name!r} is no graph input, initializer or node output: onnxruntime"
                                 " refuses the model (\"is not a graph input, initializer, or output of a previous"
                                 " node\")", node, i, where))
        if node.op_type == "If" and node.domain in ("", "ai.onnx"):
            branches = {a.name for a in node.attribute}
            for b in ("then_branch", "else_branch"):
                if b not in branches:
                    out.append(_said(f"an If without its {b}: onnxruntime refuses the model (a required attribute"
                                     " is missing)", node, i, where))
        label = node.name or (node.output[0] if node.output else f"#{i}")
        for a in node.attribute:
            for sub in graphs_of(a):
                inner = f"{node.op_type} {label!r} {a.name}"
                _graph(sub, known, f"{where} > {inner}" if where else inner, out)
    cycle = _cycle(g, made, inputs | outer)
    if cycle is not None:
        out.append(_said("the graph is not acyclic (this node depends on its own output): onnxruntime refuses the"
                         " model", g.node[cycle], cycle, where))


def _cycle(g, made: dict, given) -> int | None:
    """A node on a cycle, or None."""
    stuck = _unordered(g, made, given)
    return min(stuck) if stuck else None


def unordered(g) -> set:
    """The main graph's nodes on a cycle or behind one, which no order runs (their inputs' shapes are not known)."""
    inputs = {vi.name for vi in g.input} | {t.name for t in g.initializer}
    made = {}
    for i, node in enumerate(g.node):
        for name in node.output:
            if name:
                made.setdefault(name, i)
    return _unordered(g, made, inputs)


def _unordered(g, made: dict, given) -> set:
    """The nodes Kahn's algorithm over the edges from each name's producer leaves unordered."""
    users, need = {}, []
    for i, node in enumerate(g.node):
        deps = {made[n] for n in node.input if n and n in made and n not in given}
        need.append(len(deps))
        for d in deps:
            users.setdefault(d, []).append(i)
    ready = [i for i, k in enumerate(need) if k == 0]
    while ready:
        i = ready.pop()
        for u in users.get(i, ()):
            need[u] -= 1
            if need[u] == 0:
                ready.append(u)
    return {i for i, k in enumerate(need) if k > 0}
