"""The rest of the pooling family as OpenVINO's converters write it: AdaptiveAvgPool-8 and AdaptiveMaxPool-8
(torch's AdaptiveAvgPool2d/AdaptiveMaxPool2d), and ReduceMean-1/ReduceMax-1 over exactly the spatial axes
(global pooling: torch's AdaptiveAvgPool2d(1), ONNX GlobalAveragePool, Keras GlobalAveragePooling2D). Their
shape input (output_shape, axes) is a Const whose values are in the .bin, or a shape subgraph fold.py folds;
this module reads the layer given those values, and says what it outputs, as OpenVINO's op validation does
(schemas/openvino.json)."""
from __future__ import annotations

from dataclasses import dataclass

from ...core import axis_names
from ...errors import IRError
from ...opdefs import load
from ..read.dims import DYNAMIC, text
from .pools import parse_attr, op_name
from ..read.layer_edge import Layer
from ..read.op_names import FAMILY_TYPES


@dataclass
class FamilyLayer:
    layer: Layer
    op: str                 # "ReduceMean-1"
    family: str             # adaptive | global
    reduction: str          # avg | max
    outputs: int
    values: tuple           # output_shape, or the axes as written
    out_sizes: tuple = ()   # adaptive: the output's spatial dims
    keep_dims: bool = False
    index_type: str = "i64"
    unknown: tuple = ()     # attribute names the op does not have (OpenVINO ignores them)
    lenient: tuple = ()     # values OpenVINO reads although they are not written as their type, in words
    folded_from: str = ""   # the layer whose output the values were folded from (fold.py), when not a Const

    @property
    def kind(self) -> str:
        """How reports count it: AdaptiveAvgPool, global ReduceMean, ..."""
        return self.layer.type if self.family == "adaptive" else f"global {self.layer.type}"

    def output_dims(self, x_dims) -> list | None:
        """What OpenVINO infers for output 0 (and AdaptiveMaxPool's indices) from the input dims; None: unknown rank.
        An output_shape value of -1 is a dynamic dim, one below it a dim of 0 (measured, 2026.4.1: -2, -3, -100,
        int64's lowest)."""
        if self.family == "adaptive":
            nc = list(x_dims[:2]) if x_dims is not None else [DYNAMIC, DYNAMIC]
            return nc + [o if o >= 0 else DYNAMIC if o == -1 else 0 for o in self.out_sizes]
        if x_dims is None:
            return None
        return list(x_dims[:2]) + [1] * (len(x_dims) - 2) * self.keep_dims

    def arithmetic(self, x_dims) -> list:
        """Per spatial axis, what decides its output, for messages and explain."""
        n = len(self.out_sizes) if self.family == "adaptive" else len(x_dims) - 2
        lines = []
        for i, name in enumerate(axis_names(n)):
            length = text(x_dims[2 + i]) if x_dims is not None else "?"
            folded = f" (folded from {self.folded_from})" if self.folded_from else ""
            if self.family == "adaptive":
                o = self.out_sizes[i]
                if o <= 0:
                    lines.append(f"{name}: output_shape[{i}] = {o}{folded}, " + ("no bins" if o == 0 else
                                 f"which OpenVINO reads as {'a dynamic dim' if o == -1 else 'a dim of 0'}"))
                    continue
                lines.append(f"{name}: output_shape[{i}] = {o}{folded}; {length} in {o} bins [floor(i*{length}/{o}),"
                             f" ceil((i+1)*{length}/{o}))")
            else:
                to = "1" if self.keep_dims else "nothing (keep_dims false)"
                lines.append(f"{name}: {length} reduced to {to} by {self.layer.type} over axes {list(self.values)}"
                             f"{folded}, every spatial axis: a global pool")
        return lines


def interpret_family(layer: Layer, file, rank: int | None, values, const_where: dict,
                     ir_version: str | None = None) -> FamilyLayer | None:
    """The layer, given its shape input's values; None for a reduction that is not pooling (its axes are not
    exactly the spatial axes of a rank 3-5 input). IRError (with code and location) for what OpenVINO refuses.
    `ir_version` "10": ports past the op's own are allowed (layers.interpret says why)."""
    op = op_name(layer, file)
    d = load("openvino")["ops"][op]
    where = layer.where(file, layer.data_line)
    if len(layer.inputs) < 2 or len(layer.inputs) > 2 and ir_version != "10":
        raise IRError(f"{op} takes two input ports (data, {d['shape_input']}), the layer has {len(layer.inputs)}",
                      code="bad-structure", **layer.where(file))
    attrs, lenient = {}, []
    for name, definition in d["attributes"].items():
        try:
            attrs[name] = parse_attr(name, layer.data[name], definition, None, lenient) if name in layer.data \
                else definition["default"]
        except IRError as e:
            raise IRError(f"{op}: {e.reason}", code="bad-attribute", **where) from None
    values = tuple(int(v) for v in values)
    common = dict(layer=layer, op=op, family=d["family"], reduction=d["reduction"], outputs=d["outputs"], values=values,
                  unknown=tuple(k for k in layer.data if k not in d["attributes"]), lenient=tuple(lenient),
                  folded_from="" if const_where.get("layer_type", "Const") == "Const" else
                  f"{const_where['layer_type']} id={const_where['layer_id']}")
    if d["family"] == "adaptive":
        if rank is not None and not 3 <= rank <= 5:
            raise IRError(f"{op} takes an input of rank 3, 4 or 5; input port {layer.inputs[0].id} has rank {rank}",
                          code="bad-rank", **layer.where(file, layer.inputs[0].line))
        if rank is not None and len(values) != rank - 2:
            raise IRError(f"{op}: output_shape {list(values)} has {len(values)} values; an input of rank {rank} has"
                          f" {rank - 2} spatial axes", code="bad-attribute", **const_where)
        return FamilyLayer(**common, out_sizes=values, index_type=attrs.get("index_element_type", "i64"))
    if rank is not None:
        bad = [a for a in values if not -rank <= a < rank]
        if bad:
            raise IRError(f"{op}: axes {list(values)}: {bad[0]} is out of the range [{-rank}, {rank - 1}] of an input"
                          f" of rank {rank}", code="bad-attribute", **const_where)
    if not values and not attrs["keep_dims"] and rank is not None:
        raise IRError(f"{op} over no axes (an empty axes Const) with keep_dims false: the CPU plugin refuses it, on any"
                      " CPU (\"gets incorrect number of input/output dimensions\": intel_cpu/src/nodes/reduce.cpp,"
                      " Reduce::Reduce, an output of the input's rank; measured, 2026.4.1)", code="bad-shape", **where)
    if rank is None or not 3 <= rank <= 5 or {a % rank for a in values} != set(range(2, rank)):
        return None
    return FamilyLayer(**common, keep_dims=bool(attrs["keep_dims"]))


def validation_refusal(layer: Layer, file, et) -> str | None:
    """What the op's validation refuses of its input's element type `et` whatever its shape input (ReduceMean or
    ReduceMax on boolean: "Element type of data input must be numeric", measured, 2026.4.1): for a layer not
    judged as a pool (a reduction over other axes, a shape input not known)."""
    try:
        op = op_name(layer, file)
    except IRError:
        return None                                     # (said where the layer is read)
    d = load("openvino")["ops"][op]
    if et is None or et.name not in d.get("validation_refuses", ()):
        return None
    return (f"{op} on {et.name} is refused by its op validation, whatever its {shape_input_name(layer)} (it takes"
            f" {', '.join(d['input_types'])})")


def index_type_refusal(fl) -> str | None:
    """Why the CPU plugin does not compile an AdaptiveMaxPool with its index_element_type (schemas/openvino.json
    compiled_index_types: i32 alone), on any CPU; None where it does, or for an op without indices. check makes it
    a verdict where the indices are used (a global one whose indices nothing reads is a ReduceMax); run refuses."""
    compiled = load("openvino")["ops"][fl.op].get("compiled_index_types")
    if fl.outputs != 2 or compiled is None or fl.index_type in compiled:
        return None
    return (f"OpenVINO's CPU plugin does not compile {fl.op} with index_element_type {fl.index_type}, on any CPU (it"
            f" takes {', '.join(compiled)})")


def is_family(layer: Layer) -> bool:
    return layer.type in FAMILY_TYPES


def shape_input_name(layer: Layer) -> str:
    """What a family layer's second input is called: output_shape (adaptive pools) or axes (reductions)."""
    return "output_shape" if layer.type.startswith("Adaptive") else "axes"
