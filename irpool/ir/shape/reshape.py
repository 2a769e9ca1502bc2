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

from ...errors import IRError
from ...opdefs import load
from ..ops import consts
from ..ops.consts import Const
from ...given import fits, unknown
from ..read.dims import MAX_DIM, bounds, parse_shape, shape_text
from ..read.ids import key
from ..read.document import Document
from ..read.layer_edge import Layer
from .rules import MOST_VALUES, RULES as _RULES, Refused, Tensor, Unknown, pool, who
from .slices import RULES as _SLICES

RULES = {**_RULES, **_SLICES}       # (each layer type's rule: schemas/openvino.json "reshape_ops")


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
        ports = self.ports.get(key(el.get("id")))
        if not ports:
            return
        given = self.given.get(key(el.get("id")))
        if given is not None:
            data = el.find("data")
            if data is not None and data.get("shape") is not None:
                written = [t.strip() for t in data.get("shape").split(",")]
                if len(written) == len(given):
                    data.set("shape", ",".join(t if t.isdigit() else str(g) for t, g in zip(written, given)))
        for section in el.iterchildren("input", "output"):
            for port in section.iterchildren("port"):
                dims = ports.get(key(port.get("id")))
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
    for name, dims in shapes.items():
        if any(d > MAX_DIM for d in dims):
            raise IRError(f"--shape {name}={','.join(map(str, dims))}: irpool reads IR dims up to {MAX_DIM}",
                          file=doc.file)
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
            raise unknown(name, [p.name for p in params.values()], file)
        try:
            declared = parse_shape(params[lid].data.get("shape") or "")
        except ValueError:
            declared = None
        if declared is not None:
            fits(name, dims, [bounds(d) for d in declared], shape_text(declared), file)
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
                    f"input port {p.id} of {who(layer)} is fed by no edge"
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
            self.result.gaps[layer.id] = f"it follows {who(layer)}, which OpenVINO refuses on these shapes"
            if self.rules.get(layer.type) != "pool":        # (a pool's refusal is check's own finding)
                self.result.refused.append((layer, str(e)))
            outs = None
        except Unknown as e:
            self.result.gaps[layer.id] = f"irpool does not infer the output of {who(layer)}: {e}"
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
        try:
            with np.errstate(all="ignore"):         # (a value out of range is the rule's to judge, not numpy's to print)
                if rule == "pool":
                    return pool(layer, ins, self.file, self.ir_version)
                outs = RULES[rule](layer, ins)
        except _ODD_INPUT as e:
            raise Unknown(f"its inputs or attributes are not what a {layer.type} takes"
                          f" ({type(e).__name__}: {e})") from None
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
        value = consts.small_value(Const(layer.id, layer.name, layer.data_line, layer.data), shape, self.bin_path,
                                   self.file)
        return [Tensor(shape, value)]


def _lost(layer: Layer, ins: list, t: Tensor) -> Tensor:
    """`t`, saying where its value was lost when it is small and unknown: at this layer, where every input
    had its value, else where the first input without one lost it (None: it comes from the data)."""
    if t.value is not None or t.lost or len(t.shape) > 1 or int(np.prod(t.shape)) > MOST_VALUES or \
            layer.type in ("Parameter", "Const"):
        return t
    if all(i is not None and i.value is not None for i in ins):
        return replace(t, lost=f"{who(layer)} ({layer.type} layers' values are not carried)")
    return replace(t, lost=next((i.lost for i in ins if i is not None and i.value is None), None))


_ODD_INPUT = (IndexError, AttributeError, KeyError, ArithmeticError, ValueError, TypeError)   # what a rule raises on
#   inputs and attributes it was not written for (an attribute "x" where a number goes, a stride 0, a NaN scale, an
#   empty Const reduced, boolean arithmetic): found by an independent crash hunt, each an internal error before


class _Upstream(Exception):
    """A layer's input is not known: the why of the layer it comes from."""
