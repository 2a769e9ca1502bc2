"""IR element types: the names OpenVINO writes (Parameter element_type, port precision), their array types,
and the type OpenVINO's CPU plugin pools each in (schemas/openvino.json "element_types", measured on 2026.4).

`run` hands the core the input in its compute type and converts the result back, so a uint32 max compares
as int32 and an int64 keeps only its low 32 bits, exactly as the plugin does.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ... import cpu
from ...dtypes import dtype_named
from ...errors import IRError
from ...opdefs import load

_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)     # the smallest normal f32 (and bf16) value
BF16_MAX = float(np.uint32(0x7F7F0000).view(np.float32))     # bf16's largest finite value


@dataclass(frozen=True)
class ElementType:
    name: str                 # as Parameter element_type writes it: f32, bf16, boolean, ...
    precision: str            # as a port precision writes it: FP32, BF16, BOOL, ...
    numpy: str | None         # numpy (or ml_dtypes) type name; None: no array type
    compute: str | None       # the type the CPU plugin pools it in; None: it does not pool it
    saturate: bool            # f64: clipped to float32's range on the way in and out
    averages: bool            # False: run does not reproduce how the plugin rounds an average to it
    bits: int                 # openvino.Type's bitwidth (a Const's size is held against it)

    def dtype(self) -> np.dtype:
        """The array dtype (an IRError naming the ml-dtypes extra for types numpy lacks, without it)."""
        return _dtype(self.numpy)

    def to_compute(self, x: np.ndarray) -> np.ndarray:
        if self.saturate:
            x = np.clip(x, -_F32_MAX, _F32_MAX)           # NaN stays NaN
        return x if x.dtype.name == self.compute else x.astype(self.compute)

    def from_compute(self, y: np.ndarray, reduce: str | None = None, x_shape=None) -> np.ndarray:
        """Back from the compute type, as the plugin converts on the CPU tier run for (irpool.cpu): bf16
        pooled as f32 below the tiers where it is native is rounded by the plugin's emulation, not to even.
        `reduce`: a Reduce's bf16 output ("max" or "avg"), saturated where bf16 is native (_bf16_saturated); where
        avx512_bf16 flushes values below bf16's smallest normal one, a ReduceMax of a planar input of `x_shape`
        flushes only the outputs it stores 16 at a time (reduce_max_gathered; None: none)."""
        dtype = self.dtype()
        if self.name == "bf16" and y.dtype == np.float32:
            tier = cpu.for_run()
            if tier is not None and not tier.native("bf16") and tier.bf16_emulated:
                return cpu.round_bf16(y).view(dtype)
            if tier is not None and tier.bf16_flushed:      # (its conversion takes denormals as 0)
                tiny = np.abs(y) < _F32_TINY
                if reduce == "max":
                    tiny &= reduce_max_gathered(x_shape).reshape(y.shape) if x_shape else False
                y = np.where(tiny, np.copysign(np.float32(0), y), y)
            if reduce and (tier is None or tier.native("bf16")):
                return _bf16_saturated(y, dtype)
        y = y if y.dtype == dtype else y.astype(dtype)   # integers wrap, sign-extending from int32
        if self.saturate:
            np.clip(y, -_F32_MAX, _F32_MAX, out=y)
        return y


def reduce_max_gathered(x_shape) -> np.ndarray:
    """Which outputs (in order: N, C) a ReduceMax over the spatial axes of a planar input of `x_shape` stores 16
    at a time through the bf16 conversion, and the rest one at a time, truncated (schemas/openvino.json cpu_tiers
    bf16_flushed.reduce_max_gather: Reduce::reduce_PLN's gather path)."""
    block = load("openvino")["cpu_tiers"]["bf16_flushed"]["reduce_max_gather"]["block"]
    dims = [1, x_shape[0], 1, x_shape[1], x_shape[2]] if len(x_shape) == 3 else \
        [x_shape[0], x_shape[1], 1, *x_shape[2:]] if len(x_shape) == 4 else list(x_shape)
    ib, ic, id_, ih, iw = dims
    reduced_d, reduced_h = len(x_shape) == 5 and id_ > 1, len(x_shape) > 3 and ih > 1
    reduced_w = iw > 1 or (reduced_h and iw == 1)
    planes = ic * (1 if reduced_d else id_) * (1 if reduced_h else ih)
    gathered = np.zeros((ib, planes), bool)
    if not reduced_d and reduced_w and (ih * iw if reduced_h else iw) < block:
        gathered[:, : (planes // block) * block] = True
    return gathered.ravel()


def _bf16_saturated(y: np.ndarray, dtype) -> np.ndarray:
    """f32 to bf16 as the plugin's Reduce gives it where bf16 is native: to even, but a finite value past bf16's
    range (its max's f32 identity, lowest) is bf16's lowest or largest, not an infinity (measured: a ReduceMax of
    [-inf] gives 0xff7f on AMD EPYC family 25 model 17, avx512_bf16, where irpool gave -inf: stop 61's
    differential run; not measured on a native tier without avx512_bf16)."""
    r = y.astype(dtype)
    over = np.isfinite(y) & np.isinf(r)
    if over.any():
        r[over] = np.copysign(BF16_MAX, y[over]).astype(dtype)
    return r


@lru_cache(maxsize=None)
def _dtype(name: str) -> np.dtype:
    return dtype_named(name)


@lru_cache(maxsize=None)
def _table() -> dict:
    table = {}
    for name, d in load("openvino")["element_types"].items():
        if name.startswith("_"):
            continue
        et = ElementType(name, d["precision"], d["numpy"], d.get("compute"), bool(d.get("saturate")),
                         d.get("averages", True), d["bits"])
        table[name] = table[d["precision"].lower()] = et
    return table


@lru_cache(maxsize=None)
def spellings() -> frozenset:
    """The precision texts OpenVINO's reader takes on an output port (measured on every spelling below, 2026.4.1):
    an element type's name ("f32", "bin", "undefined") or its precision ("FP32", "BOOL", "UNSPECIFIED"), or
    the name in capitals where that is not a float, boolean or dynamic ("I64", "U1", "NF4", "F8E4M3"), in that
    case exactly ("fp32", "F32", "bool", "DYNAMIC" and "FP32 " are refused)."""
    names = {et.name for et in _table().values()}
    capitals = {n.upper() for n in names if n not in ("f16", "f32", "f64", "boolean", "dynamic")}
    return frozenset(names | {et.precision for et in _table().values()} | capitals | {"bin", "undefined"})


@lru_cache(maxsize=None)
def _const_names() -> frozenset:
    """The names a Const's element_type is matched against, in any case (then refused unless const_spellings)."""
    return frozenset({et.name for et in _table().values()} | {"undefined"})


@lru_cache(maxsize=None)
def const_spellings() -> frozenset:
    """The element_type texts read_model takes on a Const (measured on each, 2026.4.1): what spellings() takes
    whose lower case names an element type ("f32", "I64", "BF16", "undefined" for dynamic); a precision name
    ("FP32", "BOOL", "bin") is "not a member of enum element::Type_t", another case of a name ("F32", "Boolean",
    "Bf16", "DYNAMIC") an "Unsupported element type"."""
    return frozenset(s for s in spellings() if s.lower() in _const_names())


def const_element_type(text: str | None) -> ElementType | None:
    """The type a Const's element_type names as read_model reads it (const_spellings), or None."""
    if text not in const_spellings():
        return None
    return _table()["dynamic" if text == "undefined" else text.lower()]


def const_refusal(text: str) -> str:
    """read_model's words for a Const's element_type it refuses."""
    return f"Unsupported element type: {text}" if text.lower() in _const_names() else \
        f"{text} is not a member of enum element::Type_t"


def element_type(text: str | None) -> ElementType | None:
    """The element type an element_type or precision attribute names (any case); None if OpenVINO has none."""
    return _table().get((text or "").strip().lower())


def parameter_element_type(text: str | None) -> ElementType | None:
    """The type a Parameter's element_type names as read_model reads it there: a name in any case ("f32", "F32",
    "Bf16"), and "undefined" in any case for dynamic (measured, 2026.4.1); None if none (or not written)."""
    return element_type("dynamic" if text is not None and text.lower() == "undefined" else text)


@lru_cache(maxsize=None)
def of_dtype(dtype: np.dtype) -> ElementType | None:
    """The IR element type of an array dtype (numpy's or ml_dtypes')."""
    return next((et for et in _table().values() if et.numpy == np.dtype(dtype).name), None)


def stored_bits(x: np.ndarray, et: ElementType | None) -> np.ndarray:
    """`x` as the declared type `et` where numpy kept only its bytes: np.save writes an ml_dtypes array (bf16,
    float8, int4) as raw void ('|V2', '|V1'), and np.load gives that back, so a .npy is the only file such an
    input can arrive in and it arrives untyped. Any other array is returned as it is (its type is judged)."""
    if x.dtype.type is not np.void or x.dtype.fields is not None or et is None or et.numpy is None:
        return x
    try:
        want = et.dtype()
    except IRError:                     # (no ml-dtypes: the type's refusal says so where it is judged)
        return x
    return x.view(want) if want.type is not np.void and want.itemsize == x.dtype.itemsize else x
