"""PoolSpec: everything a pooling layer means, independent of the file format it came from.

Both front ends (OpenVINO IR, ONNX) only translate their attributes into a PoolSpec; the shape
arithmetic (`shape.py`) and the execution (`pool.py`) read nothing else.
"""
from __future__ import annotations

import operator

from dataclasses import dataclass

from ..errors import IRError

ROUNDINGS = ("floor", "ceil", "ceil_torch")
AUTO_PADS = ("explicit", "same_upper", "same_lower", "valid")
REDUCTIONS = ("max", "avg", "lp")
# How an average counts its divisor:
#   exclude_pad       the number of input elements in the window (0 elements: 0, so 0/0 = NaN)
#   include_openvino  prod(kernel) when any resolved pad is non-zero, else the number of input elements
#   include_onnx      the window clipped to [-pad_begin, L + pad_end) (onnxruntime's count_include_pad=1)
#   exclude_onnx      the number of input elements; a window with none averages to 0 (onnxruntime)
COUNTS = ("exclude_pad", "include_openvino", "include_onnx", "exclude_onnx")
# Where a max window starts:
#   lowest  the dtype's lowest value with the (n, c) base index; a tap must beat it (OpenVINO)
#   first   its first tap inside the input; a later tap must be strictly greater (onnxruntime's
#           MaxPool loop, so a NaN first tap sticks); a window with no such tap as for `lowest`
MAX_STARTS = ("lowest", "first")
LAYOUTS = ("channels_first", "channels_last")
# In what order a sum adds a window's taps:
#   sequential  one at a time in row-major kernel order from +0.0, as the plugin's pooling and onnxruntime's
#               loop do: their last bits
#   any         numpy's pairwise sum where that is faster: where the order cannot show (an integer global max;
#               the float global ReduceMean/ReduceMax run in the plugin's order in core/reduce_order.py)
SUM_ORDERS = ("sequential", "any")
INDEX_DTYPES = ("int32", "int64")

# No number read from a file may exceed this: it keeps every product of dims and pads inside int64.
MAX_DIM = 2 ** 31 - 1


def _ints(name: str, value, n: int | None, *, minimum: int) -> tuple[int, ...]:
    try:
        vals = tuple(operator.index(v) for v in value)       # (2.9 is refused, not read as 2; numpy ints taken)
    except TypeError:
        raise IRError(f"{name} must be a list of integers, got {value!r}") from None
    if n is not None and len(vals) != n:
        raise IRError(f"{name} has {len(vals)} values but the kernel has {n} spatial axes")
    for v in vals:
        if v < minimum or v > MAX_DIM:
            raise IRError(f"{name} value {v} is out of range [{minimum}, {MAX_DIM}]")
    return vals


@dataclass(frozen=True)
class PoolSpec:
    kernel: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    dilations: tuple[int, ...] | None = None
    pads_begin: tuple[int, ...] | None = None
    pads_end: tuple[int, ...] | None = None
    rounding: str = "floor"
    auto_pad: str = "explicit"
    reduction: str = "max"
    count: str = "exclude_pad"
    p: float = 2.0
    index_axis: int = 0
    index_dtype: str = "int64"
    storage_order: int = 0          # ONNX MaxPool Indices: 1 makes the spatial part column-major
    layout: str = "channels_first"
    max_start: str = "lowest"
    sum_order: str = "sequential"

    def __post_init__(self):
        kernel = _ints("kernel", self.kernel, None, minimum=1)
        if not kernel:
            raise IRError("kernel must have at least one spatial axis")
        n = len(kernel)
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731 (frozen dataclass)
        set_("kernel", kernel)
        set_("strides", _ints("strides", self.strides if self.strides is not None else (1,) * n, n, minimum=1))
        set_("dilations", _ints("dilations", self.dilations if self.dilations is not None else (1,) * n, n,
                                minimum=1))
        set_("pads_begin", _ints("pads_begin", self.pads_begin if self.pads_begin is not None else (0,) * n,
                                 n, minimum=0))
        set_("pads_end", _ints("pads_end", self.pads_end if self.pads_end is not None else (0,) * n,
                               n, minimum=0))
        for name, allowed in (("rounding", ROUNDINGS), ("auto_pad", AUTO_PADS), ("reduction", REDUCTIONS),
                              ("count", COUNTS), ("layout", LAYOUTS), ("index_dtype", INDEX_DTYPES),
                              ("max_start", MAX_STARTS), ("sum_order", SUM_ORDERS)):
            if getattr(self, name) not in allowed:
                raise IRError(f"{name} must be one of {', '.join(allowed)}, got {getattr(self, name)!r}")
        if self.storage_order not in (0, 1):
            raise IRError(f"storage_order must be 0 or 1, got {self.storage_order!r}")
        if self.reduction == "lp":
            p = float(self.p)
            if not p > 0 or p != p or p == float("inf"):
                raise IRError(f"p must be a positive finite number, got {self.p!r}")
            set_("p", p)
        set_("index_axis", int(self.index_axis))

    @property
    def ndim(self) -> int:
        """Number of spatial axes."""
        return len(self.kernel)

    @property
    def dilated_kernel(self) -> tuple[int, ...]:
        return tuple((k - 1) * d + 1 for k, d in zip(self.kernel, self.dilations))

    def spatial_axes(self, rank: int) -> tuple[int, ...]:
        """Positions of the spatial axes in an input of this rank (after N, C; or after N for channels_last)."""
        start = 2 if self.layout == "channels_first" else 1
        return tuple(range(start, start + self.ndim))
