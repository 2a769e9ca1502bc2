"""onnxruntime's geometry of a pooling node (core/providers/cpu/nn/pool_attributes.h, pool_functors.h): its pads
and output lengths, and the PoolSpec on which the core computes exactly onnxruntime's windows (`fit`)."""
from __future__ import annotations

from dataclasses import replace

from ..core import PoolSpec
from ..core.shape import out_length
from ..errors import IRError


def trunc_div(a: int, b: int) -> int:
    """C++'s integer division (toward zero), as onnxruntime's output size takes it."""
    q = abs(a) // b
    return q if a >= 0 else -q


def ort_axis(length: int, k: int, s: int, d: int, pb: int, pe: int, auto: str, ceil: bool,
             negative_ok: bool = False) -> tuple:
    """(pad_begin, pad_end, output length) of one axis as onnxruntime's kernel computes them
    (core/providers/cpu/nn/pool_attributes.h, ComputeSizePadDilations and ComputeOutputSize): SAME pads
    from the undilated kernel, not clamped; C++ division; ceil_mode's last window dropped when it starts at
    or past L + pad_begin. IRError where onnxruntime fails running the node; negative SAME pads fail only
    where `negative_ok` is false (see _negative_ok)."""
    if auto in ("same_upper", "same_lower"):
        needed = (trunc_div(length + s - 1, s) - 1) * s + k - length
        pb = trunc_div(needed, 2) if auto == "same_upper" else trunc_div(needed + 1, 2)
        pe = needed - pb
        if (pb < 0 or pe < 0) and not negative_ok:
            raise IRError(f"SAME pads come out negative ({pb}, {pe}: a kernel of {k} with stride {s} on a length of"
                          f" {length}): onnxruntime fails running the node (\"padding values must be non-negative\")")
    elif auto == "valid":
        pb = pe = 0
    num = length + pb + pe - d * (k - 1) - 1
    out = trunc_div(num, s) + 1
    if ceil:
        out = -(-num // s) + 1 if num >= 0 else trunc_div(num, s) + 1
        if (out - 1) * s >= length + pb:
            out -= 1
    if out < 0:
        raise IRError(f"the output length comes out negative ({out}: a dilated kernel of {d * (k - 1) + 1} on"
                      f" {length} + {pb} + {pe}): onnxruntime refuses the node (\"Calculated output dimension is"
                      " negative\")")
    return pb, pe, out


def _negative_ok(spec: PoolSpec, op: str, max_start: str | None = None) -> bool:
    """Whether onnxruntime runs negative SAME pads (measured, onnxruntime 1.32.0, tests/onnx_frontend/test_onnx_model.py):
    LpPool, a MaxPool its own loop runs (dilated, Indices listed, storage_order=1, a type MLAS does not pool:
    ort_max_start "first"; crash hunt 3 found int8, uint8, double and Indices run), AveragePool-19 and later, and
    AveragePool-10/11 with ceil_mode and count_include_pad; the others fail at run time ("padding values must be
    non-negative")."""
    version = int(op.rsplit("-", 1)[1]) if "-" in op else 0
    own_loop = max_start == "first" or any(d > 1 for d in spec.dilations)
    return spec.reduction == "lp" or spec.reduction == "max" and own_loop or \
        spec.reduction == "avg" and (version >= 19 or spec.rounding != "floor" and spec.count == "include_onnx")


def _clips_at_pad_end(spec: PoolSpec, op: str) -> bool:
    """AveragePool-19 and later end a window at min(start + kernel * dilation, L + pad_end): with a negative end
    pad (SAME pads of an undilated kernel) a dilated window loses the input's last cells (its other kernels
    stop at L)."""
    return spec.reduction == "avg" and "-" in op and int(op.rsplit("-", 1)[1]) >= 19


def _core_out(length: int, dk: int, s: int, pb: int, pe: int, spec: PoolSpec) -> int:
    return out_length(length, dk, s, pb, pe, "floor" if spec.rounding == "floor" else "ceil_torch")


def fit(spec: PoolSpec, shape, strict: bool = True, op: str = "", cuts: list | None = None,
        max_start: str | None = None) -> tuple:
    """(the PoolSpec the core runs to give onnxruntime's windows on this input shape, onnxruntime's output
    spatial lengths; None where an axis is not known). Where onnxruntime's geometry is not the core's
    (SAME pads of a dilated kernel, a window larger than the padded input, which onnxruntime clips to the
    input), the spec takes explicit pads that give the same windows; IRError where onnxruntime fails. Where
    no spec gives onnxruntime's windows, IRError (code "unsupported"), or with strict=False (None, lengths).
    Given a list `cuts`, it gets per spatial axis the cells to cut off the input's end before the spec runs:
    AveragePool-19's windows stop at L + pad_end, so a negative end pad leaves the last cells out of every one.
    `max_start`: ort_max_start's loop of a MaxPool, where known (its own loop runs negative SAME pads, MLAS's not)."""
    axes = spec.spatial_axes(len(shape))
    outs, pads_b, pads_e, changed, unsupported = [], [], [], False, False
    for i, a in enumerate(axes):
        length = shape[a]
        k, s, d = spec.kernel[i], spec.strides[i], spec.dilations[i]
        if not isinstance(length, int) or length < 0:
            outs.append(None)
            pads_b.append(spec.pads_begin[i] if spec.auto_pad == "explicit" else 0)
            pads_e.append(spec.pads_end[i] if spec.auto_pad == "explicit" else 0)
            continue
        pb, pe, out = ort_axis(length, k, s, d, spec.pads_begin[i], spec.pads_end[i], spec.auto_pad,
                               spec.rounding != "floor", _negative_ok(spec, op, max_start))
        outs.append(out)
        cut = -pe if cuts is not None and pe < 0 and out and _clips_at_pad_end(spec, op) and length + pe > 0 else 0
        if cuts is not None:
            cuts.append(cut)
        length, pe = length - cut, pe + cut
        dk = d * (k - 1) + 1
        reach = max(0, pe)
        if out and _core_out(length, dk, s, pb, reach, spec) != out:     # windows larger than the padded input,
            reach = max(reach, (out - 1) * s + dk - length - pb)         # which onnxruntime clips to X
        why = "its pads come out negative" if pb < 0 or out and _core_out(length, dk, s, pb, reach, spec) != out \
            else "a window is larger than the padded input and count_include_pad=1" if reach != pe and \
            spec.count == "include_onnx" else "its end pad comes out negative and AveragePool-19 stops every window" \
            f" at L + pad_end = {length + pe} (pool_functors.h), short of the input's end" \
            if pe < 0 and out and _clips_at_pad_end(spec, op) and (out - 1) * s - pb + dk > length + pe else None
        if why:
            if not strict:
                unsupported = True
                continue
            raise IRError(f"axis {i}: {why} ({dk} on {length} + {pb} + {pe}): onnxruntime runs it, irpool does not"
                          " compute its windows", code="unsupported")
        changed = changed or reach != pe or spec.auto_pad in ("same_upper", "same_lower") and d > 1 or cut > 0
        pads_b.append(pb)
        pads_e.append(reach)
    if unsupported:
        return None, tuple(outs)
    if not changed or any(o is None for o in outs):
        return spec, tuple(outs)
    return replace(spec, auto_pad="explicit", pads_begin=tuple(pads_b), pads_end=tuple(pads_e)), tuple(outs)


def ort_max_start(spec: PoolSpec, dtype: str, listed_outputs: int) -> str:
    """Where onnxruntime's max window starts (onnxruntime/core/providers/cpu/nn/pool.cc; measured, 1.32.0): a
    float or float16 MaxPool that lists Y alone, without dilations above 1 or storage_order=1, and GlobalMaxPool,
    run MLAS's pooling, where NaN never wins ("lowest"); the others (Indices listed, dilations, storage_order,
    double) run onnxruntime's own loop, where a window's first tap inside the input starts it ("first")."""
    if dtype in ("float32", "float16") and listed_outputs == 1 and spec.storage_order == 0 \
            and all(d == 1 for d in spec.dilations):
        return "lowest"
    return "first"
