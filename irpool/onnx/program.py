"""`irpool run model.onnx --layer NODE`: one pooling node of a model file, run alone on the given input as
onnxruntime's kernel computes it, its outputs keyed by the node's output names."""
from __future__ import annotations

import numpy as np

from ..errors import IRError
from .. import select
from .model import describe, pool_nodes, read_stripped, shape_text
from .kernels import op_refusal
from .node import Node, Reduction


def find(model, layer: str | None, file: str | None, stripped=None):
    """The PoolNode `layer` selects (irpool.select: its index in the main graph, else its name or an output's
    name)."""
    nodes = list(pool_nodes(model))
    if layer is None:
        raise IRError("an .onnx model is run one pooling node at a time: give --layer NODE (its name or output"
                      f" name); its pooling nodes: {_names(nodes)}", file=file)
    found = select.pick(layer, nodes, index, lambda n: (n.node.name, *n.node.output), describe, file, "pooling node",
                        "index")
    if len(found) > 1:                  # (as IR refuses a name two layers have: never a silent pick)
        raise IRError(f"{len(found)} pooling nodes have the name {layer!r} ({', '.join(describe(x) for x in found)}):"
                      " give its index (--layer id:N)", file=file, code="no-such-layer")
    n = found[0]
    if n.x is None or n.x.shape is None or not n.x.elem_type:       # (X as check knows it: inferred, computed)
        from .check import judge_all
        same = (n.graph, n.where, n.index)
        n = next((j.node for j in judge_all(model, None, stripped) if (j.node.graph, j.node.where, j.node.index) == same), n)
    return n


def index(n) -> str | None:
    """A node's id for --layer: its index in the main graph (None: a node inside a body or function)."""
    return str(n.index) if n.where is None and n.graph == () else None


def _names(nodes) -> str:
    names = [repr(n.name) for n in nodes[:20]] + (["..."] if len(nodes) > 20 else [])
    return ", ".join(names) or "none"


class NodeProgram:
    """One node, read once: `run(inputs, threads)` gives {output name: array}."""

    def __init__(self, n, file):
        self.file, self.pool = file, n
        if n.opset is None:
            raise IRError(f"the model imports no opset of domain {n.domain or 'ai.onnx'!r}", file=file,
                          layer_id=str(n.index), layer_name=n.name, layer_type=n.node.op_type)
        refusal = op_refusal(n)[0] if n.axes is None else None
        if refusal is not None and refusal[0] == "bad-graph":          # (a node onnxruntime's loader refuses)
            raise IRError(refusal[1], file=file, code=refusal[0], layer_id=str(n.index), layer_name=n.name,
                          layer_type=n.node.op_type)
        try:
            self.node = Node(n.node, opset=n.opset, as_onnxruntime=True) if n.axes is None else \
                Reduction(n.node, n.opset, n.axes)
        except IRError as e:
            raise self._located(e) from None
        self.output_names = [o for o in n.node.output[:self.node.outputs] if o]

    def _fits(self, x: np.ndarray, x_name: str) -> None:
        """The array must be what the model gives X (its element type, its rank and numeric dims: declared, else
        ONNX's shape inference's), as onnxruntime refuses any other input ("Unexpected input data type", "Got
        invalid dimensions"): a float64 array is not run as a float32 model's node in float64."""
        from .model import type_name
        v = self.pool.x
        if v is None:
            return
        def model(what) -> str:
            return f"the model declares {what}" if v.origin == "declared" else f"the model gives it {what} ({v.origin})"
        if v.elem_type and type_name(v.elem_type) != x.dtype.name:
            raise self._located(IRError(f"input {x_name!r} has element type {x.dtype}, {model(type_name(v.elem_type))}"
                                        f"{_unexpected(x, v.elem_type)}", code="bad-input"))
        if v.shape is not None and (len(v.shape) != x.ndim or any(
                isinstance(d, int) and d != n for d, n in zip(v.shape, x.shape))):
            raise self._located(IRError(f"input {x_name!r} has shape {list(x.shape)},"
                                        f" {model(shape_text(v.shape))}", code="bad-input"))

    def _located(self, e: IRError) -> IRError:
        n = self.pool
        return e.located(file=self.file, layer_id=str(n.index), layer_name=n.name, layer_type=n.node.op_type)

    def typed(self, inputs) -> dict:
        """The inputs as --against hands them on: as given (onnxruntime runs no pool on an ml_dtypes type)."""
        return inputs

    def run(self, inputs, threads: int | None = None) -> dict:
        x_name = self.pool.node.input[0] if self.pool.node.input else "0"
        if isinstance(inputs, dict):
            keys = [k for k in ("0", 0, x_name) if k in inputs]          # (0 as a number is 0 too)
            if len(inputs) != 1 or not keys:
                raise self._located(IRError(f"give the node's input X as 0 or {x_name!r}, once; got"
                                            f" {', '.join(map(repr, inputs)) or 'nothing'}", code="bad-input"))
            x = inputs[keys[0]]
        else:
            x = inputs
        x = np.asarray(x)
        self._fits(x, x_name)
        try:
            outs = self.node.run(x, threads)
        except IRError as e:
            raise self._located(e) from None
        return dict(zip(self.output_names, outs))


def _unexpected(x: np.ndarray, elem_type: int) -> str:
    """How onnxruntime refuses an input of another element type (InferenceSession.run; measured, 1.32:
    tests/cli/test_inputs.py)."""
    import onnx
    try:
        got = onnx.TensorProto.DataType.Name(onnx.helper.np_dtype_to_tensor_dtype(x.dtype)).lower()
    except (KeyError, TypeError, ValueError):
        return ""
    want = onnx.TensorProto.DataType.Name(elem_type).lower()
    return f", as onnxruntime refuses it (\"Unexpected input data type. Actual: (tensor({got})) , expected:" \
           f" (tensor({want}))\")"




def load(source, *, layer: str | None, max_bytes: int) -> NodeProgram:
    model, file, stripped = read_stripped(source, max_bytes)
    program = NodeProgram(find(model, layer, file, stripped), file)
    _loadable(model, file, stripped)
    return program


def _loadable(model, file, stripped) -> None:
    """An IRError where onnxruntime refuses the model (check's first bad-graph error: a node's declared types, an
    input that is no tensor, a name defined twice, ...): no session loads it, so no node of it is run (crash hunt 3
    and stop 61 found run computing such nodes)."""
    from .check import check
    refused = next((f for f in check(None, read=(model, file, stripped)).findings if f.code == "bad-graph"), None)
    if refused is not None:
        where = f"node {refused.layer_name!r} ({refused.layer_type}): " if refused.layer_type else ""
        raise IRError(f"{where}{refused.message}", file=file, code="bad-graph")
