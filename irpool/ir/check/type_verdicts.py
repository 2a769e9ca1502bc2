"""The element-type verdicts check can give only once a pooling layer's edges are read (schemas/openvino.json
"type_layout"): a pool on nf4, u2 or f4e2m1 compiles or not by the layers that take its output, and OpenVINO
takes a Parameter's element_type, not its port's precision.

check/passes.py keeps a TypeVerdicts per net. It holds only the pooling layers whose verdict waits for their edges
(input port precision nf4, u2 or f4e2m1, rare in real files) and the Parameters whose element_type and port
precision differ: memory stays flat on files of any size.
"""
from __future__ import annotations

from functools import lru_cache
from types import SimpleNamespace
from typing import NamedTuple

from ...opdefs import load
from ..read.element_types import element_type, parameter_element_type
from ..ops.type_refusals import kept_in_type, layout_dependent, type_refusal


_PARAMETERS = 4096       # Parameters whose element type is kept for the pools they feed (real nets have few)


@lru_cache(maxsize=None)
def _waiting_types() -> frozenset:
    """The input port precisions whose pool verdict waits for the edges: the types some pooling layer is
    refused on (rare in real files), whose verdict may hang on the consumers or on the Parameter's element_type."""
    d = load("openvino")
    return frozenset(d["element_types"]) - set(d["ops"]["MaxPool-1"]["input_types"]) - {"_doc"} | \
        {t for op in d["ops"].values() for r in op.get("cpu_dependent", ()) if not set(r["when"]) - {"one_channel"}
         for t in r["types"]}


class Verdict(NamedTuple):
    """A refusal of the CPU plugin's for a pool's type; `kept`: it keeps the pool in a type it has no kernel for,
    which check says only where nothing the pool feeds is run as f32 (graph_verdicts.f32_chain)."""
    code: str
    message: str
    line: int
    who: dict             # id, name, type
    kept: bool


class TypeVerdicts:
    def __init__(self):
        self.pending = {}       # pool id -> record: op, element type, dims, line, who, data port, consumers
        self.params = {}        # Parameter id -> (element type it declares, its output port's precision's type)
        self.kinds = {}         # Parameter id -> its element type, for the first _PARAMETERS Parameters
        self.sources = bytearray()  # layer row -> 1 + index in _names of the type its output gives, or 0
        self._names, self._codes = [], {}

    # -- what check/passes.py calls ----------------------------------------------------------------------------
    def parameter(self, layer) -> None:
        """A Parameter whose element_type names another type than its output port's precision: OpenVINO takes
        the element_type (the port's precision only has to name a type)."""
        et = parameter_element_type(layer.data.get("element_type"))
        port = element_type(layer.outputs[0].precision) if layer.outputs else None
        if et is not None and port is not None and et.name != port.name:
            self.params[layer.id] = (et, port)
        if et is not None and len(self.kinds) < _PARAMETERS:
            self.kinds[layer.id] = et

    def source(self, row: int, layer_type: str, data) -> None:
        """A Parameter's or Const's element_type, a Convert's destination_type: the type OpenVINO gives their
        output whatever its port's precision says, and so the type of a pool or reduction they feed."""
        data = data or {}
        self.keep(row, element_type(data.get("destination_type")) if layer_type == "Convert" else
                  parameter_element_type(data.get("element_type")) if layer_type == "Parameter" else
                  element_type(data.get("element_type")))

    def differ(self, ra: int, rb: int, producer: str, consumer: str) -> bool:
        """Whether the edge from layer row `ra` into row `rb` (a pool or Convert) needs check/passes.py's look at the
        type: a pool judged on another type than its producer gives; a Convert of a pool or of a string."""
        codes = self.sources
        ca = codes[ra] if ra < len(codes) else 0
        if consumer == "Convert":
            return producer in ("MaxPool", "AvgPool") or bool(ca) and self._names[ca - 1] == "string"
        return bool(ca) and ca != (codes[rb] if rb < len(codes) else 0)

    def keep(self, row: int, et) -> None:
        """The type layer row `row` gives (a pooling layer: the type it was judged on), in one byte a layer."""
        if et is None:
            return
        code = self._codes.get(et.name)
        if code is None:
            self._names.append(et.name)
            code = self._codes[et.name] = len(self._names)
        if len(self.sources) <= row:
            self.sources.extend(bytes(max(row + 1 - len(self.sources), 4096)))
        self.sources[row] = code

    def source_type(self, row):
        """The type `source` kept for layer row `row`, or None."""
        code = self.sources[row] if row is not None and row < len(self.sources) else 0
        return element_type(self._names[code - 1]) if code else None

    def waits(self, layer) -> bool:
        """Called for a pooling layer when read: whether its type verdict may need its consumers. A layer kept
        here must not be cached as clean (check/passes.py's content-key cache)."""
        et = element_type(layer.inputs[0].precision) if layer.inputs else None
        if et is not None and et.name in _waiting_types():
            self.pending.setdefault(layer.id, dict(port=layer.outputs[0].id if layer.outputs else None,
                                                   consumers=[]))
            return True
        return False

    def watch(self, layer) -> bool:
        """A pooling layer whose type check/passes.py learns only from its producer (it waits for its edges): its
        consumers are collected as for the layers `waits` keeps."""
        self.pending.setdefault(layer.id, dict(port=layer.outputs[0].id if layer.outputs else None, consumers=[]))
        return True

    def pool(self, pl, et, x_dims, line, layer) -> bool:
        """A pooling layer checked on input dims `x_dims`: True when its verdict waits for its consumers (given
        in finish), False when check/passes.py judges it now with type_refusal."""
        rec = self.pending.get(layer.id)
        if rec is None and not layout_dependent(et, x_dims, any(d > 1 for d in pl.spec.dilations)):
            return False
        rec = self.pending.setdefault(layer.id, dict(port=layer.outputs[0].id if layer.outputs else None,
                                                      consumers=[]))
        rec.update(op=pl.op, spec=pl.spec, et=et, dims=list(x_dims) if x_dims is not None else [], line=line,
                   who={"id": layer.id, "name": layer.name, "type": layer.type})
        return True

    def wants(self, from_layer, to_layer) -> bool:
        """Whether this edge must reach edge() (check/passes.py's fast path skips most edges)."""
        if not self.pending and not self.params:
            return False                         # (most files: nothing waits)
        return from_layer in self.pending or from_layer in self.params or to_layer in self.pending

    def edge(self, fl, fp, tl, tp, line, consumer, consumer_waits: bool) -> list:
        """An edge: the consumer of a waiting pool, or a Parameter whose element_type OpenVINO takes. `consumer`:
        what is known of layer `tl` (signatures.Known, or None); `consumer_waits`: check judges it once the edges
        are read. The Verdicts it gives."""
        rec, said = self.pending.get(fl), []
        if rec is not None and fp == rec["port"]:
            rec["consumers"].append(consumer.type if consumer else "?")
            if "retyped" in rec and tl not in self.pending:       # a pool on a pool keeps the type
                said += self._retype(tl, consumer, line, *rec["retyped"])
        if tl in self.pending:
            self.pending[tl]["producer"] = fl              # its type is its producer's (finish)
        elif fl in self.params and not consumer_waits:     # (a waiting one is judged on the Parameter's type)
            et, port = self.params[fl]
            said += self._retype(tl, consumer, line, et, port, f"Parameter {fl}")
        return said

    def finish(self) -> list:
        """The verdicts that waited for the edges."""
        said, known = [], {}
        for rec in self.pending.values():
            if "op" not in rec:
                continue
            pl = SimpleNamespace(op=rec["op"], spec=rec["spec"])
            dims = rec["dims"]
            et = self._type(rec, known)
            refusal = type_refusal(pl, et, channels=dims[1] if len(dims) > 1 else None,
                                   static=all(isinstance(d, int) for d in dims), consumers=rec["consumers"])
            if refusal:                 # (a pool kept in its type: check's finish says it, if nothing runs it as f32)
                kept = refusal[0] == "bad-precision" and kept_in_type(pl, et)
                said.append(Verdict(refusal[0], refusal[1], rec["line"], rec["who"], kept))
        self.pending.clear()
        return said

    def _type(self, rec, known: dict):
        """A waiting pool's input type as OpenVINO infers it: its Parameter's element_type, through the pools
        between (a pool gives its input's type); else its input port's precision. `known`: pool id -> the type it
        gives, found by the walks before (a chain of n pools takes n steps, not n * n / 2)."""
        seen = []
        while True:
            src = rec.get("producer")
            if src in known:
                et = known[src]
                break
            if src in self.kinds:
                et = self.kinds[src]
                break
            if src in self.params:
                et = self.params[src][0]
                break
            up = self.pending.get(src)
            if up is None or "op" not in up:
                et = rec["et"]
                break
            if src in seen:
                return rec["et"]                    # (a cycle: what it gives depends on where the walk began)
            seen.append(src)
            rec = up
        for pool in seen:
            known[pool] = et
        return et

    # -- a pool that takes another type than its port says ----------------------------------------------
    def _retype(self, tl, info, line, et, port, source) -> list:
        """Pool `tl` (`info`: what is known of it), judged on `port` when read, takes `et` from `source` (a Parameter
        whose element_type differs from its port's precision, or a pool on one): where it is a MaxPool or AvgPool,
        judge it on `et`, as OpenVINO does, where that differs from the verdict on the port's precision. The
        layer's version and attributes are not kept: MaxPool is judged as MaxPool-1 and AvgPool as AvgPool-1 (the
        rules that do not depend on dilations or on the indices output)."""
        if info is None or info.type not in ("MaxPool", "AvgPool"):
            return []
        ins = info.inputs
        raw = ins[0][1] if ins else ()
        try:
            dims = [int(d) for d in raw] if raw else None
        except ValueError:
            dims = None
        if dims is not None and any(d < 0 for d in dims):
            dims = None
        pl = SimpleNamespace(op=f"{info.type}-1", spec=SimpleNamespace(dilations=()))
        channels = dims[1] if dims and len(dims) > 1 else None
        static = dims is not None
        said = type_refusal(pl, et, channels=channels, static=static)
        before = type_refusal(pl, port, channels=channels, static=static)
        if said == before or said is None:
            return []
        if layout_dependent(et, dims):
            outs = info.outputs
            self.pending[tl] = dict(op=pl.op, spec=pl.spec, et=et, dims=dims, line=line,
                                    who={"id": tl, "name": info.name, "type": info.type},
                                    port=outs[0][0] if outs else None, consumers=[], retyped=(et, port, source))
            return []
        why = f"{said[1]} (OpenVINO takes {source}'s element_type {et.name}, not the port precision {port.precision})"
        return [Verdict(said[0], why, line, {"id": tl, "name": info.name, "type": info.type},
                        said[0] == "bad-precision" and kept_in_type(pl, et))]
