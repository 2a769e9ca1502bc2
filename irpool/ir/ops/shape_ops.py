"""The rule of each shape op irpool evaluates (ShapeOf, Squeeze, Range) on known values, as OpenVINO 2026.4.1's
shape inference gives it, refusals included: fold.py calls it to fold a family layer's shape input, and
shape/rules.py for --shape, so the two cannot disagree. Measured with read_model, compile_model and
Model.reshape (tests/ir/test_fold.py, tests/ir/test_reshape.py); each refusal names the source line that
raises it. Values are numpy arrays of the element type OpenVINO gives (ShapeOf-3 output_type i32: int32)."""
from __future__ import annotations

import numpy as np

from ...opdefs import load
from . import consts
from ..read.layer_edge import Layer


class Unknown(Exception):
    """Why irpool cannot know an op's output: a sentence about the op."""


class Refused(Unknown):
    """OpenVINO refuses the op on these inputs (read_model, or Model.reshape): `code` is the finding's."""

    def __init__(self, message: str, code: str = "bad-shape"):
        super().__init__(message)
        self.code = code


def version(layer: Layer):
    """The op version read_model makes of a shape op's IR version (None: one it does not know)."""
    return load("openvino")["shape_ops"].get(layer.type, {}).get("opsets", {}).get(layer.version)


def shape_of(layer: Layer, dims) -> np.ndarray:
    """ShapeOf's value: the dims, as i64 (ShapeOf-1) or output_type, read case-blind ("I32" is read; " i32" and
    any type but i32 and i64 refused: core/src/op/shape_of.cpp, v3::ShapeOf::validate_and_infer_types)."""
    written = layer.data.get("output_type") if version(layer) == 3 else None
    et = "i64" if written is None else written.lower()
    if et not in ("i32", "i64"):
        raise Refused(f"output_type={written!r}: OpenVINO's ShapeOf-3 gives i32 or i64 and read_model refuses"
                      " any other", code="bad-attribute")
    return np.array(list(dims), dtype=consts.SHAPE_TYPES[et])


def squeeze(shape: tuple, axes) -> tuple:
    """Squeeze's output dims: without axes, or with none, every dim of 1 goes; with axes, each named dim of 1
    goes and a named dim that is not 1 stays (Squeeze-1 and -15 alike, duplicates and negative axes
    read). An axis outside the rank, or axes of rank 2 or more, is refused (core/shape_inference/include/
    squeeze_shape_inference.hpp, shape_infer: normalize_axes and the axes rank check)."""
    rank = len(shape)
    if axes is not None and np.ndim(axes) > 1:
        raise Refused(f"its axes input has rank {np.ndim(axes)}: OpenVINO takes a scalar or 1-D axes")
    if axes is None or np.size(axes) == 0:
        return tuple(d for d in shape if d != 1)
    flat = [int(a) for a in np.asarray(axes).reshape(-1)]
    bad = [a for a in flat if not -rank <= a < rank]
    if bad:
        raise Refused(f"axis {bad[0]} is outside the range [{-rank}, {rank - 1}] of its rank-{rank} input")
    drop = {a % rank for a in flat}
    return tuple(d for i, d in enumerate(shape) if i not in drop or d != 1)


def range_type(layer: Layer, start, stop, step):
    """The numpy dtype of a Range's output: Range-4's output_type; Range-1's inputs' one type (three types
    that differ are refused: core/src/op/range.cpp, v0::Range::validate_and_infer_types). None: a type irpool
    does not know."""
    if version(layer) == 4:
        name = (layer.data.get("output_type") or "").strip().lower()
        if name == "boolean":           # (range.cpp:72: m_output_type.is_integral_number() || m_output_type.is_real())
            raise Refused("output_type=boolean: Range-4 gives integral numbers or reals, and read_model refuses any"
                          " other type", code="bad-attribute")
        return consts.NUMBERS.get(name)
    types = {np.asarray(v).dtype for v in (start, stop, step)}
    if len(types) > 1:
        raise Refused(f"its start, stop and step are {', '.join(str(np.asarray(v).dtype) for v in (start, stop, step))}:"
                      " Range-1 takes one element type and read_model refuses others", code="bad-precision")
    return types.pop()


def range_scalars(shapes: list) -> None:
    """Range's inputs are scalars, refused otherwise before any value is looked at (range_shape_inference.hpp,
    range_shape_infer: "'start' input is not a scalar"; a shape [1] too)."""
    for shape, what in zip(shapes, ("start", "stop", "step")):
        if len(shape) != 0:
            raise Refused(f"its {what} input has shape {list(shape)}: Range takes scalars and read_model refuses it")


def range_count(layer: Layer, values: list) -> int:
    """The number of values a Range gives from its scalar inputs' values, as core/shape_inference/include/
    range_shape_inference.hpp (range_shape_infer) counts them: a step of 0 and a start, stop or step not finite
    refused; the three truncated first where the output type is integral; max(ceil((stop - start) / step), 0).
    Unknown where a truncated step is 0 (the count is then inf cast to uint32: whatever this CPU makes of it)."""
    start, stop, step = (float(np.asarray(v).reshape(())) for v in values)
    for v, what in ((start, "start"), (stop, "stop"), (step, "step")):
        if not np.isfinite(v) or what == "step" and v == 0:
            raise Refused(f"its {what} is {v:g}: OpenVINO refuses a Range whose {what} is"
                          f" {'0, ' if what == 'step' else ''}NaN or infinite")
    dtype = range_type(layer, *values)
    if dtype is None:
        raise Unknown(f"output_type={layer.data.get('output_type')!r}, a type irpool does not know")
    if np.dtype(dtype).kind in "iub":
        start, stop, step = np.trunc(start), np.trunc(stop), np.trunc(step)
        if step == 0:
            raise Unknown(f"its step {float(np.asarray(values[2])):g} truncates to 0 for output type {np.dtype(dtype)}")
    span = 0.0 if (step > 0 and start >= stop) or (step < 0 and start <= stop) else stop - start
    count = float(np.ceil(abs(span) / abs(step)))
    if count >= 2 ** 32:
        raise Unknown(f"it gives {count:g} values, more than OpenVINO's count (a uint32) holds")
    return int(count)


def range_values(layer: Layer, values: list, count: int) -> np.ndarray:
    """A Range's `count` values: start + i * step, start and step cast to the output type first."""
    dtype = np.dtype(range_type(layer, *values))
    start, step = (np.asarray(v).reshape(()).astype(dtype) for v in (values[0], values[2]))
    return (start + np.arange(count, dtype=dtype) * step).astype(dtype)
