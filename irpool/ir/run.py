"""irpool.run: execute a pooling snippet, or a net of Parameter, pooling and Result layers."""
from __future__ import annotations

import numpy as np

from ..core import pool
from ..errors import IRError
from .dims import compatible, parse_shape, shape_text
from .elements import element_type, of_dtype
from .layers import check_dims, interpret, is_pooling, type_refusal
from .parse import MAX_BYTES, REQUIRED, Layer, Net, parse

RUNNABLE = ("Parameter", "Result", "MaxPool", "AvgPool")


def load(source, *, max_bytes: int = MAX_BYTES) -> "Program":
    """A net or bare layer parsed, checked for running and ordered once, to run many times."""
    return Program(parse(source, max_bytes=max_bytes))


def run(source, inputs, *, max_bytes: int = MAX_BYTES, threads: int | None = None) -> dict:
    """Snippet: {output port id: array}. Net: {Result layer name: array}, in the order Results appear.

    `threads`: how many threads each pooling layer may use (None: every core). load(source).run(inputs)."""
    return load(source, max_bytes=max_bytes).run(inputs, threads)


def _execute(layer: Layer, file, x, threads, prepared: dict, indices: bool = True) -> list:
    """One pooling layer on an array, computed in the type OpenVINO's CPU plugin computes its type in.
    `prepared`: (layer id, rank) -> its PoolLayer, kept between runs. `indices`: whether a MaxPool's indices
    output is wanted (when nothing reads it, only the values are computed)."""
    x = np.asarray(x)
    pl = prepared.get((layer.id, x.ndim))
    if pl is None:
        pl = prepared[(layer.id, x.ndim)] = interpret(layer, file, x.ndim)
    declared = layer.inputs[0].dims
    if declared and (x.ndim != len(declared) or not all(compatible(d, n) for d, n in zip(declared, x.shape))):
        raise IRError(f"input array has shape {list(x.shape)}, input port {layer.inputs[0].id} declares"
                      f" [{','.join(map(str, layer.inputs[0].raw_dims))}]", code="bad-input",
                      **layer.where(file, layer.inputs[0].line))
    check_dims(pl, x.shape, file)
    et = of_dtype(x.dtype)
    why = f"irpool has no IR element type for arrays of {x.dtype}" if et is None else \
        type_refusal(pl, et, channels=x.shape[1])
    if not why and pl.spec.reduction == "avg" and not et.averages:
        why = f"irpool does not reproduce how OpenVINO's CPU plugin rounds an average to {et.name}"
    if why:
        raise IRError(why, code="unsupported", **layer.where(file, layer.inputs[0].line))
    try:
        if pl.outputs == 2 and indices:
            y, i = pool(et.to_compute(x), pl.spec, indices=True, threads=threads)
            return [et.from_compute(y), i.astype(element_type(pl.index_type).dtype(), copy=False)]
        return [et.from_compute(pool(et.to_compute(x), pl.spec, threads=threads))]
    except IRError as e:
        raise e.located(**layer.where(file)) from None


def _feed(layer: Layer, file, x, prepared: dict) -> np.ndarray:
    """Check an input array against its Parameter's shape (intervals and dynamic rank included) and type,
    read once per Parameter into `prepared`."""
    x = np.asarray(x)
    shape, et_text, et = prepared.get(layer.id) or prepared.setdefault(layer.id, _parameter(layer, file))
    if shape is not None and (len(shape) != x.ndim or not all(compatible(s, n) for s, n in zip(shape, x.shape))):
        raise IRError(f"input {layer.name!r} has shape {list(x.shape)}, the Parameter declares {shape_text(shape)}",
                      code="bad-input", **layer.where(file))
    if et is not None and x.dtype != et.dtype():
        raise IRError(f"input {layer.name!r} has element type {x.dtype}, the Parameter declares {et_text}"
                      f" ({et.dtype()})", code="bad-input", **layer.where(file))
    return x


def _parameter(layer: Layer, file) -> tuple:
    """(shape, element type as written, ElementType) of a Parameter; IRError for what cannot be fed."""
    try:
        shape = parse_shape(layer.data["shape"]) if "shape" in layer.data else \
            (layer.outputs[0].dims if layer.outputs else None)
    except ValueError:
        raise IRError(f'Parameter shape="{layer.data.get("shape")}" is not a shape', code="bad-attribute",
                      **layer.where(file, layer.data_line)) from None
    et_text = layer.data.get("element_type") or (layer.outputs[0].precision if layer.outputs else None)
    et = element_type(et_text)
    if et_text is not None and (et is None or et.numpy is None):
        raise IRError(f"Parameter element_type {et_text!r} is not one irpool can make arrays of", code="unsupported",
                      **layer.where(file, layer.data_line))
    return shape, et_text, et


def _bind_inputs(params: list, file, inputs) -> dict:
    """Parameter layer id -> array, from a name/tensor-name mapping or a lone array."""
    if not isinstance(inputs, dict):
        if len(params) != 1:
            raise IRError(f"the net has {len(params)} Parameters; give inputs as a dict by name", file=file,
                          code="bad-input")
        return {params[0].id: inputs}
    names = {}
    for p in params:
        keys = {p.name} | {n.strip() for port in p.outputs for n in (port.names or "").split(",") if n.strip()}
        for k in keys:
            names[k] = p
    unknown = [k for k in inputs if k not in names]
    if unknown:
        raise IRError(f"no Parameter is named {', '.join(map(repr, unknown))}; the net's inputs are"
                      f" {', '.join(repr(p.name) for p in params)}", file=file, code="bad-input")
    bound = {}
    for k, v in inputs.items():
        bound[names[k].id] = v
    missing = [p for p in params if p.id not in bound]
    if missing:
        raise IRError(f"no input given for Parameter {missing[0].name!r}", code="bad-input",
                      **missing[0].where(file))
    return bound


class Program:
    """A net (or a bare layer) checked for running and ordered once; `run` binds inputs and executes.

    Every refusal that does not depend on the inputs is raised here, by irpool.load, with its layer and
    line; the interpretation of each pooling layer is kept per input rank."""

    def __init__(self, net: Net):
        self.net, self.file = net, net.file
        self.prepared = {}
        if net.problems:
            line, message = net.problems[0]
            raise IRError(message, file=net.file, line=line, code="bad-structure")
        if net.is_snippet:
            layer = net.layers[0]
            if not is_pooling(layer):
                raise IRError(f"irpool runs MaxPool and AvgPool layers, not {layer.type}", code="unsupported",
                              **layer.where(net.file))
            return
        file, seen, results = net.file, set(), {}
        for layer in net.layers:
            missing = [a for a in REQUIRED if getattr(layer, a) is None]
            if missing:
                raise IRError(f"<layer> lacks {', '.join(missing)}, which OpenVINO requires on every layer",
                              code="bad-structure", **layer.where(file))
            if layer.id in seen:
                raise IRError(f"layer id {layer.id} is used twice", code="duplicate-id", **layer.where(file))
            seen.add(layer.id)
            if layer.type == "Result" and layer.name in results:
                first = results[layer.name]
                raise IRError(f"two Result layers are named {layer.name!r} (ids {first.id}, line {first.line}, and"
                              f" {layer.id}): run returns outputs by Result name and would lose one",
                              code="duplicate-name", **layer.where(file))
            results.setdefault(layer.name, layer)
            if layer.type not in RUNNABLE:
                raise IRError(f"irpool runs nets of Parameter, MaxPool, AvgPool and Result layers, not {layer.type}",
                              code="unsupported", **layer.where(file))
        self.params = [lay for lay in net.layers if lay.type == "Parameter"]
        feeds = {}          # (to-layer, to-port) -> (from-layer, from-port)
        for e in net.edges:
            if net.layer(e.from_layer) is None or net.layer(e.to_layer) is None:
                raise IRError(f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port} names a missing layer",
                              file=file, line=e.line, code="edge-mismatch")
            if (e.to_layer, e.to_port) in feeds:
                raise IRError(f"input port {e.to_port} of layer {e.to_layer} is fed by two edges", file=file,
                              line=e.line, code="edge-mismatch")
            feeds[(e.to_layer, e.to_port)] = (e.from_layer, e.from_port)
        self.source = {}    # layer id -> (layer id, output port id) its one input comes from
        for layer in net.layers:
            if layer.type == "Parameter":
                continue
            if not layer.inputs:
                raise IRError(f"{layer.type} layer has no input port", code="bad-structure", **layer.where(file))
            src = feeds.get((layer.id, layer.inputs[0].id))
            if src is None:
                raise IRError(f"input port {layer.inputs[0].id} is not fed by any edge", code="edge-mismatch",
                              **layer.where(file, layer.inputs[0].line))
            self.source[layer.id] = src
        self.readers = {}   # (layer id, output port id) -> how many layers read it
        for src in self.source.values():
            self.readers[src] = self.readers.get(src, 0) + 1
        self.order = _in_order(net, self.source)

    def run(self, inputs, threads: int | None = None) -> dict:
        """As irpool.run: {Result name: array} for a net, {output port id: array} for a bare layer."""
        if self.net.is_snippet:
            return self._run_snippet(inputs, threads)
        file, net = self.file, self.net
        bound = _bind_inputs(self.params, file, inputs)
        uses = dict(self.readers)
        values, results = {}, {}     # values: (layer id, output port id) -> array, freed after its last reader
        for layer in self.order:
            if layer.type == "Parameter":
                port = layer.outputs[0].id if layer.outputs else "0"
                values[(layer.id, port)] = _feed(layer, file, bound[layer.id], self.prepared)
                continue
            src = self.source[layer.id]
            if src not in values:
                raise IRError("the layer's input is never computed (an edge from a port that gives nothing)",
                              code="edge-mismatch", **layer.where(file))
            x = values[src]
            uses[src] -= 1
            if not uses[src]:
                del values[src]
            if layer.type == "Result":
                results[layer.id] = x
            else:
                wanted = len(layer.outputs) > 1 and bool(self.readers.get((layer.id, layer.outputs[1].id)))
                outs = _execute(layer, file, x, threads, self.prepared, indices=wanted)
                del x
                for port, arr in zip(layer.outputs, outs):
                    if uses.get((layer.id, port.id)):
                        values[(layer.id, port.id)] = arr
        return {lay.name: results[lay.id] for lay in net.layers if lay.type == "Result"}

    def _run_snippet(self, inputs, threads) -> dict:
        net, layer = self.net, self.net.layers[0]
        if isinstance(inputs, dict):
            if set(inputs) - {"0", layer.inputs[0].id if layer.inputs else "0"} or len(inputs) != 1:
                raise IRError(f"a bare layer takes one input array (or {{'0': array}}), got keys {sorted(inputs)}",
                              code="bad-input", **layer.where(net.file))
            inputs = next(iter(inputs.values()))
        outs = _execute(layer, net.file, inputs, threads, self.prepared)
        ids = [p.id for p in layer.outputs] + [str(i + 1) for i in range(len(layer.outputs), len(outs))]
        return dict(zip(ids, outs))



def _in_order(net: Net, source: dict) -> list:
    """The layers, each after the layer it reads (a depth-first walk: time linear in layers and edges)."""
    state, order = {}, []                 # layer id -> 1 on the walk's path, 2 placed
    for first in net.layers:
        stack = [first]
        while stack:
            layer = stack[-1]
            if state.get(layer.id) == 2:
                stack.pop()
                continue
            state[layer.id] = 1
            src = source.get(layer.id)
            before = net.layer(src[0]) if src else None
            if before is not None and state.get(before.id) != 2:
                if state.get(before.id) == 1:
                    raise IRError("the layer's input depends on its own output (a cycle)", code="edge-mismatch",
                                  **layer.where(net.file))
                stack.append(before)
                continue
            state[layer.id] = 2
            order.append(layer)
            stack.pop()
    return order
