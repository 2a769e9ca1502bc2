"""Output dims and resolved pads: the arithmetic OpenVINO's runtime and onnxruntime actually do.

Per spatial axis (d = dilation, dk = (k-1)*d + 1):
  same_upper/same_lower: total = max(0, (ceil(L/s) - 1)*s + dk - L); same_upper puts total//2 first,
  same_lower puts total - total//2 first; valid: pads 0; explicit: the given pads.
  num = L + pb + pe - dk (negative: an error), q = ceil(num/s) for ceil and ceil_torch, else floor(num/s);
  floor and ceil give q + 1; ceil_torch gives q + 1 if q*s < L + pb (the last window starts inside the
  input or the begin padding), else q.
An interval length lo..hi (hi None: unbounded) gives an interval, as OpenVINO's shape inference does:
each bound through the formula above with num clamped at 0, the lower bound at least 1; with same_*
pads the output is fully dynamic. Each axis also carries the sentence that shows this arithmetic, for
`check` and `explain`.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..errors import IRError
from .spec import PoolSpec

AXIS_NAMES = {1: ("H",), 2: ("H", "W"), 3: ("D", "H", "W")}


def axis_names(n: int) -> tuple[str, ...]:
    return AXIS_NAMES.get(n, tuple(f"S{i}" for i in range(n)))


def _ceil_div(a: int, b: int) -> int:
    return -((-a) // b)


@dataclass(frozen=True)
class AxisPlan:
    """One spatial axis: input length, the resolved pads, the output length and how it was reached."""
    name: str
    length: int | None          # None: dynamic (an interval: see `bounds`)
    kernel: int
    stride: int
    dilation: int
    pad_begin: int | None       # None: depends on a dynamic length (same_*)
    pad_end: int | None
    out: int | None             # None: not one value
    arithmetic: str
    bounds: tuple | None = None  # the output as an interval (lo, hi or None); None: fully dynamic

    @property
    def dilated_kernel(self) -> int:
        return (self.kernel - 1) * self.dilation + 1


def resolve_pads(spec: PoolSpec, axis: int, length: int | None) -> tuple[int | None, int | None]:
    """Pads actually applied on one axis: auto_pad decides, the explicit pads only when it is explicit."""
    if spec.auto_pad == "explicit":
        return spec.pads_begin[axis], spec.pads_end[axis]
    if spec.auto_pad == "valid":
        return 0, 0
    if length is None:
        return None, None
    s, dk = spec.strides[axis], spec.dilated_kernel[axis]
    total = max(0, (_ceil_div(length, s) - 1) * s + dk - length)
    small = total // 2
    return (small, total - small) if spec.auto_pad == "same_upper" else (total - small, small)


def as_interval(dim) -> tuple:
    """A dim (int, None or -1 for dynamic, or (lo, hi)) as (lo, hi), hi None when unbounded."""
    if dim is None:
        return (0, None)
    if isinstance(dim, tuple):
        return dim
    return (0, None) if int(dim) < 0 else (int(dim), int(dim))


def interval_text(bounds) -> str:
    lo, hi = bounds
    return str(lo) if lo == hi else f"{lo}..{'' if hi is None else hi}"


def out_length(length: int, dk: int, s: int, pb: int, pe: int, rounding: str) -> int:
    """One axis's output length, the formula every runtime here shares: floor((L + pb + pe - dk) / s) + 1, or
    ceil(...) + 1, which ceil_torch (ONNX's ceil_mode as onnxruntime and OpenVINO run it) makes one less where
    that last window would start at or past L + pb. -1 where the dilated kernel dk does not fit."""
    num = length + pb + pe - dk
    if num < 0:
        return -1
    if rounding == "floor":
        return num // s + 1
    q = _ceil_div(num, s)
    return q + 1 if rounding == "ceil" or q * s < length + pb else q


def _bound_out(spec: PoolSpec, length: int, k: int, s: int, d: int, pb: int, pe: int) -> int:
    return max(out_length(length, (k - 1) * d + 1, s, pb, pe, spec.rounding), 1)


def _interval_axis(spec: PoolSpec, axis: int, bounds: tuple, name: str) -> AxisPlan:
    """An axis whose input is an interval lo..hi: OpenVINO's interval shape inference."""
    k, s, d = spec.kernel[axis], spec.strides[axis], spec.dilations[axis]
    text = interval_text(bounds)
    if spec.auto_pad in ("same_upper", "same_lower"):
        return AxisPlan(name, None, k, s, d, None, None, None,
                        f"{name}: input {text} with {spec.auto_pad}: OpenVINO leaves the output dynamic")
    pb, pe = resolve_pads(spec, axis, None)
    lo = _bound_out(spec, bounds[0], k, s, d, pb, pe)
    hi = None if bounds[1] is None else _bound_out(spec, bounds[1], k, s, d, pb, pe)
    dk = (k - 1) * d + 1
    how = "floor" if spec.rounding == "floor" else "ceil"
    out = interval_text((lo, hi))
    drop = ", less a last window starting at or past the input" if spec.rounding == "ceil_torch" else ""
    return AxisPlan(name, None, k, s, d, pb, pe, lo if lo == hi else None,
                    f"{name}: {how}(({text} + {pb} + {pe} - {dk}) / {s}) + 1{drop} = {out}", (lo, hi))


def plan_axis(spec: PoolSpec, axis: int, length, name: str) -> AxisPlan:
    if isinstance(length, tuple):
        if length[0] != length[1]:
            return _interval_axis(spec, axis, length, name)
        length = length[0]
    k, s, d = spec.kernel[axis], spec.strides[axis], spec.dilations[axis]
    dk = (k - 1) * d + 1
    pb, pe = resolve_pads(spec, axis, length)
    if length is None:
        return _interval_axis(spec, axis, (0, None), name)
    num = length + pb + pe - dk
    dk_text = str(dk) if d == 1 else f"{dk} (kernel {k} dilated by {d})"
    expr = f"({length} + {pb} + {pe} - {dk_text}) / {s}"
    if num < 0:
        raise IRError(f"{name}: the kernel does not fit the padded input: {length} + {pb} + {pe} - {dk} = {num} < 0"
                      f" (dilated kernel {dk} is larger than the padded length {length + pb + pe})", code="bad-shape")
    out = out_length(length, dk, s, pb, pe, spec.rounding)
    if spec.rounding == "floor":
        return AxisPlan(name, length, k, s, d, pb, pe, out, f"{name}: floor({expr}) + 1 = {out}", (out,) * 2)
    q = _ceil_div(num, s)
    if out == q + 1:
        return AxisPlan(name, length, k, s, d, pb, pe, out, f"{name}: ceil({expr}) + 1 = {out}", (out,) * 2)
    return AxisPlan(name, length, k, s, d, pb, pe, q,
                    f"{name}: ceil({expr}) + 1 = {q + 1}, less the last window, which would start at input"
                    f" cell {q} * {s}{f' - {pb}' if pb else ''} = {q * s - pb}, past the input's last cell"
                    f" {length - 1}: {q}", (q, q))


def _dim(d):
    """int for a static dim; (lo, hi) for a dynamic one (None, a negative int, or an interval)."""
    lo, hi = as_interval(d)
    return lo if lo == hi else (lo, hi)


def plan(spec: PoolSpec, input_shape) -> tuple[AxisPlan, ...]:
    """Plan every spatial axis of an input shape (dims may be None or negative for dynamic, or (lo, hi))."""
    shape = tuple(_dim(d) for d in input_shape)
    axes = spec.spatial_axes(len(shape))
    if len(shape) != spec.ndim + 2:
        raise IRError(f"input has rank {len(shape)} but the kernel has {spec.ndim} spatial axes"
                      f" (rank {spec.ndim + 2} expected)", code="bad-rank")
    names = axis_names(spec.ndim)
    return tuple(plan_axis(spec, i, shape[a], names[i]) for i, a in enumerate(axes))


def output_shape(spec: PoolSpec, input_shape) -> tuple[int | None, ...]:
    """The output shape; None where a dim is dynamic and cannot be known."""
    shape = [_dim(d) for d in input_shape]
    shape = [d if isinstance(d, int) else None for d in shape]
    for a, p in zip(spec.spatial_axes(len(shape)), plan(spec, input_shape)):
        shape[a] = p.out
    return tuple(shape)
