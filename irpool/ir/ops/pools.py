"""Interpret one pooling <layer>: its op version, its <data> attributes (per schemas/openvino.json) and
OpenVINO's own refusals of them and of its input dims, translated into the core's PoolSpec. What the CPU plugin
refuses by element type is in type_refusals.py: reading a layer needs no CPU tier.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from ...core import PoolSpec
from ...core.spec import MAX_DIM
from ...errors import IRError
from ...opdefs import load
from . import negpads
from ..read.dims import plain_int
from ..read.element_types import element_type
from ..read.layer_edge import Layer
from ..read.op_names import POOL_TYPES
# An integer as OpenVINO's IR reader takes it (C++ stream extraction): leading spaces, an optional minus (no
# plus), digits; whatever follows the digits is ignored ("2.0" is 2, "0x2" is 0).
_INT_PREFIX = re.compile(r"\s*(-?\d+)", re.ASCII)     # (re.ASCII: "٢" and U+00A0 are refused, measured)
_PLAIN_INT = re.compile(r"\s*-?\d+\s*", re.ASCII)
_PLAIN_BOOL = ("true", "false", "1", "0")
_INT64 = 1 << 63
_CLAMPED = ("strides", "dilations")       # past 2**31 - 1, read as MAX_DIM (the same output for any input irpool reads)
_LOOSE_PADS = ("pads_begin", "pads_end")  # OpenVINO ignores them unless auto_pad is explicit
# The visitor reads a kernel into size_t (ir_deserializer.cpp: on_adapter, Shape; "-3" is 2**64 - 3). Past any
# input: shape inference refuses it on a static axis (read_model), takes it on a dynamic one (the output
# dim 1..), and the plugin compiles that and refuses every inference; 0 and -1 (2**64 - 1, the plugin's
# undefined dim) it refuses to compile (measured, 2026.4.1, AMD EPYC family 25 model 17).
_HUGE_KERNEL = ('kernel="{text}": OpenVINO reads it as {v} (an unsigned number), larger than any input: it'
                " refuses the layer on a static axis, and compiles it on a dynamic one to refuse every inference")


@dataclass
class PoolLayer:
    layer: Layer
    op: str              # "MaxPool-8"
    spec: PoolSpec
    outputs: int         # how many outputs the op has
    unknown: list        # attribute names the op does not have (OpenVINO ignores them)
    index_type: str      # index_element_type, as an IR element type name
    lenient: list        # values not written as their type that OpenVINO reads anyway, said in words
    raw_pads: tuple | None = None   # (pads_begin, pads_end) as written, where one is negative (ir/ops/negpads.py)

    @property
    def crashes_unless_indices_used(self) -> bool:
        """MaxPool-14 with ceil_torch and no dilations: OpenVINO 2026.4.1 crashes compiling it (a segmentation
        fault) when its indices output is not used (measured: the ceil_torch branch of its MaxPool-14 to
        MaxPool-8 conversion, convert_maxpool_downgrade.cpp)."""
        return (self.op == "MaxPool-14" and self.spec.rounding == "ceil_torch"
                and not self.layer.data.get("dilations", "").strip())


def is_pooling(layer: Layer) -> bool:
    return layer.type in POOL_TYPES


def op_name(layer: Layer, file: str | None) -> str:
    """MaxPool-8 etc. from the layer's type and opset, as OpenVINO resolves it."""
    opsets = load("openvino")["opsets"][layer.type]
    version = layer.version or ""                    # (as written: " opset1" is refused, measured)
    if version not in opsets:
        known = f"opset{min(int(k[5:]) for k in opsets)}..opset{max(int(k[5:]) for k in opsets)}"
        raise IRError(f'{layer.type} has version="{layer.version}", which OpenVINO does not know for it'
                      f" ({known})" if layer.version is not None else
                      f"{layer.type} has no version attribute (IR v10/v11 need one, e.g. opset8)",
                      code="unknown-opset", **layer.where(file))
    return f"{layer.type}-{opsets[version]}"


def _int(name: str, text: str, item: str, lenient: list) -> int:
    if plain_int(item):
        return int(item)                                # (the common case, in one step)
    m = _INT_PREFIX.match(item)
    if not m:
        raise IRError(f'{name}="{text}": "{item}" is not an integer')
    if not -_INT64 <= int(m.group(1)) < _INT64:       # (whatever auto_pad says: measured, 2026.4.1)
        raise IRError(f'{name}="{text}": "{item.strip()}" is past int64, which read_model cannot parse ("Cannot'
                      f' parse \'{item.strip()}\'")')
    if not _PLAIN_INT.fullmatch(item):
        lenient.append(f'{name}="{text}": OpenVINO reads "{item.strip()}" as {int(m.group(1))}')
    return int(m.group(1))


def int_list(name: str, text: str, lenient: list) -> list:
    """A comma list of ints as OpenVINO's reader reads one (a pool's ints, a Const's shape): "" is empty, one
    trailing comma is allowed and an empty item elsewhere is not, each item read as _int reads it."""
    items = text.split(",") if text else []
    if items and items[-1] == "" and len(items) > 1:
        items.pop()
    if "" in items:
        raise IRError(f'{name}="{text}": an empty item in the list')
    return [_int(name, text, item, lenient) for item in items]


def parse_attr(name: str, text: str, definition: dict, spatial: int | None, lenient: list | None = None):
    """One <data> attribute, read as OpenVINO's IR reader reads it (checked against read_model in the tests).
    A value OpenVINO reads although it is not written as its type is said in words in `lenient`."""
    lenient = [] if lenient is None else lenient
    t = definition["type"]
    if t == "ints":
        vals = int_list(name, text, lenient)
        if name in _LOOSE_PADS:
            return tuple(vals)                          # judged once auto_pad is known (interpret)
        for i, v in enumerate(vals):
            if name == "kernel" and (v < -1 or v > MAX_DIM):
                lenient.append(_HUGE_KERNEL.format(text=text, v=v % (1 << 64)))
                vals[i] = MAX_DIM                       # (larger than any input irpool reads, as OpenVINO's is)
            elif name in _CLAMPED and MAX_DIM < v < _INT64:
                vals[i] = MAX_DIM                       # OpenVINO takes it; past any input, it acts as MAX_DIM
            elif v < definition.get("min", 0) or v > MAX_DIM:
                raise IRError(f'{name}="{text}": {v} is out of range [{definition.get("min", 0)}, {MAX_DIM}]')
        if vals and spatial is not None and len(vals) != spatial:
            raise IRError(f'{name}="{text}" has {len(vals)} values; the kernel has {spatial} spatial axes')
        return tuple(vals)
    if t == "int":
        v = _int(name, text, text, lenient)
        if abs(v) > MAX_DIM:
            raise IRError(f'{name}="{text}" is out of range')
        return v
    if t == "bool":
        if text.lower() not in _PLAIN_BOOL:            # "", "yes", " true": the op keeps its default
            lenient.append(f'{name}="{text}": OpenVINO reads only true, false, 1 and 0 (any case), and keeps the'
                           f' default, {str(definition["default"]).lower()}, for anything else')
            return definition["default"]
        return text.lower() in ("true", "1")
    v = text.lower()                                    # enums and element types: any case, no spaces
    if t == "element" and v == v.strip() and element_type(v) is not None and (
            definition["values"] == "any" or element_type(v).name in definition["values"]):
        return element_type(v).name
    if definition["values"] == "any":
        raise IRError(f'{name}="{text}" is not an element type OpenVINO reads')
    if v not in definition["values"]:
        raise IRError(f'{name}="{text}" is not one of {", ".join(definition["values"])}')
    return v


def interpret(layer: Layer, file: str | None, rank: int | None = -1, ir_version: str | None = None) -> PoolLayer:
    """The layer's PoolSpec; IRError (with code and location) for anything OpenVINO would refuse.

    `rank`: the input's rank, None when it is dynamic; by default the number of the input port's <dim>s.
    `ir_version` "10": ports past the op's own are allowed (OpenVINO's reader makes a port of each <port>
    from IR v11 on, and refuses those the op has not: "node index is out of range")."""
    op = op_name(layer, file)
    definition = load("openvino")["ops"][op]
    where = layer.where(file, layer.data_line)
    if not layer.inputs or len(layer.inputs) > 1 and ir_version != "10":
        raise IRError(f"{op} takes exactly one input port, the layer has {len(layer.inputs)}",
                      code="bad-structure", **layer.where(file))
    if rank == -1:
        rank = len(layer.inputs[0].dims)
    if rank is not None and not 3 <= rank <= 5:
        raise IRError(f"{op} takes an input of rank 3, 4 or 5; input port {layer.inputs[0].id} has rank {rank}",
                      code="bad-rank", **layer.where(file, layer.inputs[0].line))
    defs, lenient = definition["attributes"], []
    attrs = _attributes(layer, op, defs, rank, lenient, where)
    raw_pads = _pads(layer, op, attrs, lenient, where)
    if op == "AvgPool-16" and not attrs.get("dilations"):
        raise IRError(f"{op} without dilations (or with an empty list): OpenVINO 2026.4.1 reads it, and crashes"
                      " compiling it (a segmentation fault, whatever the input)", code="bad-attribute", **where)
    unknown = [k for k in layer.data if k not in defs]
    index_type = attrs.get("index_element_type", "i64")
    try:
        spec = PoolSpec(kernel=attrs["kernel"], strides=attrs["strides"], dilations=attrs.get("dilations") or None,
                        pads_begin=attrs.get("pads_begin") or None, pads_end=attrs.get("pads_end") or None,
                        rounding=attrs["rounding_type"], auto_pad=attrs["auto_pad"],
                        reduction=definition["reduction"],
                        count="exclude_pad" if attrs.get("exclude-pad", True) else "include_openvino",
                        index_axis=attrs.get("axis", 0), index_dtype="int32" if index_type == "i32" else "int64")
    except IRError as e:
        raise IRError(f"{op}: {e.reason}", code="bad-attribute", **where) from None
    if "axis" in attrs and rank is not None and not -rank <= attrs["axis"] < rank:
        raise IRError(f"{op}: axis {attrs['axis']} is out of the range [{-rank}, {rank - 1}] of an input of"
                      f" rank {rank}", code="bad-attribute", **where)
    return PoolLayer(layer, op, spec, definition["outputs"], unknown, index_type, lenient, raw_pads)


def _attributes(layer: Layer, op: str, defs: dict, rank, lenient: list, where: dict) -> dict:
    """The op's attributes as OpenVINO reads them, its defaults where they are not written."""
    attrs, spatial = {}, None
    for name in ["kernel"] + [n for n in defs if n != "kernel"]:         # the kernel sets the lists' length
        d = defs[name]
        try:
            if name in layer.data:
                attrs[name] = parse_attr(name, layer.data[name], d, spatial, lenient)
            elif d.get("required"):
                raise IRError(f"required attribute {name} is missing")
            elif "default" in d:
                attrs[name] = d["default"]
            if name == "kernel":
                spatial = len(attrs["kernel"])
                if rank is not None and spatial != rank - 2:
                    raise IRError(f'kernel="{layer.data["kernel"]}" has {spatial} values; an input of rank {rank}'
                                  f" has {rank - 2} spatial axes")
        except IRError as e:
            raise IRError(f"{op}: {e.reason}", code="bad-attribute", **where) from None
    return attrs


def _pads(layer: Layer, op: str, attrs: dict, lenient: list, where: dict):
    """Pads as OpenVINO takes them (attrs made non-negative in place); the pads as written where one is negative
    (negpads.py), else None."""
    raw_pads, spatial = None, len(attrs["kernel"])
    if attrs["auto_pad"] == "explicit" and any(v < 0 for n in _LOOSE_PADS for v in attrs.get(n) or ()):
        raw_pads = tuple(tuple(attrs.get(n) or (0,) * spatial) for n in _LOOSE_PADS)   # (negpads.py)
        for n in _LOOSE_PADS:
            if any(v < -MAX_DIM for v in attrs.get(n) or ()):
                raise IRError(f'{op}: {n}="{layer.data[n]}" is out of range [-{MAX_DIM}, {MAX_DIM}]',
                              code="bad-attribute", **where)
            attrs[n] = tuple(max(v, 0) for v in attrs.get(n) or ())
        lenient.append(", ".join(f'{n}="{layer.data[n]}"' for n in _LOOSE_PADS if n in layer.data)
                       + ": a negative pad, which no converter writes: OpenVINO reads it (as an unsigned number"
                       " its shape inference takes back) and shifts the windows, where it takes the layer at all"
                       " (irpool follows it, measured), and its CPU plugin has corrupted its heap running such a"
                       " MaxPool-1 on CPU tier avx2")
    for name in _LOOSE_PADS:
        vals = attrs.get(name) or ()
        bad = [v for v in vals if not 0 <= v <= MAX_DIM]
        if bad and attrs["auto_pad"] == "explicit":
            raise IRError(f'{op}: {name}="{layer.data[name]}": {bad[0]} is out of range [0, {MAX_DIM}] (with'
                          ' auto_pad explicit, OpenVINO refuses it)', code="bad-attribute", **where)
        if bad:
            lenient.append(f'{name}="{layer.data[name]}": out of range, but auto_pad {attrs["auto_pad"]} makes'
                           " OpenVINO ignore it")
            attrs[name] = tuple(0 for _ in vals)
    return raw_pads


def _same_pads_kernel(pl: PoolLayer, dims, file: str | None) -> None:
    """A kernel read past any input (_HUGE_KERNEL) with auto_pad same_upper/same_lower, as OpenVINO 2026.4.1 takes
    it (measured, AMD EPYC family 25 model 17, MaxPool-1/8 and AvgPool-1/14 alike): from 2**32 up to 2**63 the
    plugin has no primitive for it on any axis ("Supported primitive descriptors list is empty"; 2**31 compiles);
    from 2**63 (written negative) read_model refuses it on a static axis and compile_model on a bounded one, and
    only an unbounded dynamic axis compiles."""
    if pl.spec.auto_pad not in ("same_upper", "same_lower") or MAX_DIM not in pl.spec.kernel:
        return
    written = [v % (1 << 64) for v in int_list("kernel", pl.layer.data.get("kernel", ""), [])]
    for i, v in enumerate(written):
        d = dims[2 + i] if 2 + i < len(dims) else 0
        unbounded = isinstance(d, tuple) and d[1] is None          # (a static dim is an int, an interval a tuple)
        if (1 << 32) <= v < (1 << 63) or (v >= (1 << 63) and not unbounded):
            raise IRError(f'{pl.op}: kernel="{pl.layer.data.get("kernel")}" is read as {v} on spatial axis {i}: with'
                          f" auto_pad {pl.spec.auto_pad} OpenVINO 2026.4.1 refuses it there (measured: from 2**32 on"
                          " any axis, from 2**63 on all but an unbounded dynamic one)", code="bad-attribute",
                          **pl.layer.where(file, pl.layer.data_line))


def check_dims(pl: PoolLayer, dims, file: str | None) -> None:
    """OpenVINO's refusals that depend on the input dims (a dynamic dim, an interval, is not judged, as OpenVINO
    judges it only once the shape is known, at inference), and exclude-pad's, which compile makes whatever
    the dims."""
    spec = pl.spec
    if spec.reduction == "avg" and spec.count == "exclude_pad" and spec.auto_pad == "explicit":
        for i, (k, pb, pe) in enumerate(zip(spec.dilated_kernel, spec.pads_begin, spec.pads_end)):
            if not (k > pb and k > pe):                 # (read_model on a static axis, compile on a dynamic one)
                raise IRError(f"{pl.op}: with exclude-pad, the (dilated) kernel {k} of spatial axis {i} must be"
                              f" larger than its pads ({pb}, {pe}): a window would lie entirely in the padding",
                              code="bad-attribute", **pl.layer.where(file, pl.layer.data_line))
    why = negpads.read_refusal(pl, dims)
    if why:
        raise IRError(f"{pl.op}: {why}", code="bad-attribute", **pl.layer.where(file, pl.layer.data_line))
    if dims is None:
        return
    _same_pads_kernel(pl, dims, file)
    for axis, what in ((0, "Batch size"), (1, "Channel count")):
        if dims[axis] == 0:
            raise IRError(f"{pl.op}: {what} is zero: OpenVINO refuses an input of shape"
                          f" [{','.join(str(d) if isinstance(d, int) else '?' for d in dims)}]",
                          code="bad-shape", **pl.layer.where(file, pl.layer.inputs[0].line))
    if spec.auto_pad in ("explicit", "valid"):
        for i, (k, pb, pe) in enumerate(zip(spec.dilated_kernel, spec.pads_begin, spec.pads_end)):
            d = dims[2 + i]
            hi = d[1] if isinstance(d, tuple) else None
            pads = pb + pe if spec.auto_pad == "explicit" else 0
            if hi is not None and hi + pads < k:        # (a static dim is the core's to judge, with the arithmetic)
                raise IRError(f"{pl.op}: spatial axis {i} is at most {hi} long, {hi + pads} padded, smaller than the"
                              f" (dilated) kernel {k} whatever the input: compile_model refuses it (\"Kernel after"
                              " dilation has size ... larger than the data shape after padding\")",
                              code="bad-shape", **pl.layer.where(file, pl.layer.inputs[0].line))
