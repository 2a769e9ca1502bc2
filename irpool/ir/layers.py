"""Interpret one pooling <layer>: its op version, its <data> attributes (per schemas/openvino.json) and
OpenVINO's own refusals, translated into the core's PoolSpec.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..core import PoolSpec
from ..core.spec import MAX_DIM
from ..errors import IRError
from ..opdefs import load
from .parse import Layer

POOL_TYPES = ("MaxPool", "AvgPool")
# IR element type names (Parameter element_type, port precision) -> numpy dtype names
ELEMENT_TYPES = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "u8": "uint8",
                 "i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32", "i64": "int64",
                 "u64": "uint64", "boolean": "bool", "bf16": None,
                 "fp16": "float16", "fp32": "float32", "fp64": "float64", "bool": "bool"}


def dtype_of(name: str | None) -> str | None:
    """numpy dtype name of an IR element type or port precision (FP32, f32, I64, ...); None if unknown."""
    return ELEMENT_TYPES.get((name or "").strip().lower())


@dataclass
class PoolLayer:
    layer: Layer
    op: str              # "MaxPool-8"
    spec: PoolSpec
    outputs: int         # how many outputs the op has
    unknown: list        # attribute names the op does not have (OpenVINO ignores them)


def is_pooling(layer: Layer) -> bool:
    return layer.type in POOL_TYPES


def op_name(layer: Layer, file: str | None) -> str:
    """MaxPool-8 etc. from the layer's type and opset, as OpenVINO resolves it."""
    opsets = load("openvino")["opsets"][layer.type]
    version = (layer.version or "").strip()
    if version not in opsets:
        known = f"opset{min(int(k[5:]) for k in opsets)}..opset{max(int(k[5:]) for k in opsets)}"
        raise IRError(f'{layer.type} has version="{layer.version}", which OpenVINO does not know for it'
                      f" ({known})" if layer.version is not None else
                      f"{layer.type} has no version attribute (IR v10/v11 need one, e.g. opset8)",
                      code="unknown-opset", **layer.where(file))
    return f"{layer.type}-{opsets[version]}"


def _parse_attr(name: str, text: str, definition: dict, rank: int | None):
    t = definition["type"]
    if t == "ints":
        items = [s.strip() for s in text.split(",")] if text.strip() else []
        vals = []
        for s in items:
            try:
                v = int(s)
            except ValueError:
                raise IRError(f'{name}="{text}": "{s}" is not an integer') from None
            if v < definition.get("min", 0) or v > MAX_DIM:
                raise IRError(f'{name}="{text}": {v} is out of range [{definition.get("min", 0)}, {MAX_DIM}]')
            vals.append(v)
        if rank is not None and len(vals) != rank - 2:
            raise IRError(f'{name}="{text}" has {len(vals)} values; an input of rank {rank} has {rank - 2}'
                          " spatial axes")
        return tuple(vals)
    if t == "int":
        try:
            v = int(text.strip())
        except ValueError:
            raise IRError(f'{name}="{text}" is not an integer') from None
        if abs(v) > MAX_DIM:
            raise IRError(f'{name}="{text}" is out of range')
        return v
    if t == "bool":
        v = text.strip().lower()
        if v in ("true", "1"):
            return True
        if v in ("false", "0"):
            return False
        raise IRError(f'{name}="{text}" is not a boolean (true or false)')
    v = text.strip().lower()          # enum: OpenVINO compares case-insensitively
    if v not in definition["values"]:
        raise IRError(f'{name}="{text}" is not one of {", ".join(definition["values"])}')
    return v


def interpret(layer: Layer, file: str | None) -> PoolLayer:
    """The layer's PoolSpec; IRError (with code and location) for anything OpenVINO would refuse."""
    op = op_name(layer, file)
    definition = load("openvino")["ops"][op]
    where = layer.where(file, layer.data_line)
    if len(layer.inputs) != 1:
        raise IRError(f"{op} takes exactly one input port, the layer has {len(layer.inputs)}",
                      code="bad-structure", **layer.where(file))
    rank = len(layer.inputs[0].dims)
    if not 3 <= rank <= 5:
        raise IRError(f"{op} takes an input of rank 3, 4 or 5; input port {layer.inputs[0].id} has rank {rank}",
                      code="bad-rank", **layer.where(file, layer.inputs[0].line))
    attrs = {}
    for name, d in definition["attributes"].items():
        if name in layer.data:
            try:
                attrs[name] = _parse_attr(name, layer.data[name], d, rank)
            except IRError as e:
                raise IRError(f"{op}: {e.reason}", code="bad-attribute", **where) from None
        elif d.get("required"):
            raise IRError(f"{op}: required attribute {name} is missing", code="bad-attribute", **where)
        elif "default" in d:
            attrs[name] = d["default"]
    unknown = [k for k in layer.data if k not in definition["attributes"]]
    try:
        spec = PoolSpec(kernel=attrs["kernel"], strides=attrs["strides"], dilations=attrs.get("dilations"),
                        pads_begin=attrs.get("pads_begin") or None, pads_end=attrs.get("pads_end") or None,
                        rounding=attrs["rounding_type"], auto_pad=attrs["auto_pad"],
                        reduction=definition["reduction"],
                        count="exclude_pad" if attrs.get("exclude-pad", True) else "include_openvino",
                        index_axis=attrs.get("axis", 0),
                        index_dtype={"i32": "int32", "i64": "int64"}[attrs.get("index_element_type", "i64")])
    except IRError as e:
        raise IRError(f"{op}: {e.reason}", code="bad-attribute", **where) from None
    if "axis" in attrs and not -rank <= attrs["axis"] < rank:
        raise IRError(f"{op}: axis {attrs['axis']} is out of the range [{-rank}, {rank - 1}] of an input of"
                      f" rank {rank}", code="bad-attribute", **where)
    return PoolLayer(layer, op, spec, definition["outputs"], unknown)


def check_dims(pl: PoolLayer, dims, file: str | None) -> None:
    """OpenVINO's refusals that depend on the input dims; a dynamic dim (None) is not judged, as OpenVINO
    judges it only once the shape is known (at inference)."""
    spec = pl.spec
    if spec.reduction == "avg" and spec.count == "exclude_pad" and spec.auto_pad == "explicit":
        for i, (k, pb, pe) in enumerate(zip(spec.dilated_kernel, spec.pads_begin, spec.pads_end)):
            if dims[2 + i] is not None and not (k > pb and k > pe):
                raise IRError(f"{pl.op}: with exclude-pad, the (dilated) kernel {k} of spatial axis {i} must be"
                              f" larger than its pads ({pb}, {pe}): a window would lie entirely in the padding",
                              code="bad-attribute", **pl.layer.where(file, pl.layer.data_line))


def input_types(op: str) -> list:
    return load("openvino")["ops"][op]["input_types"]
