"""Translate an ONNX pooling node's attributes, per op version (schemas/onnx.json), into a PoolSpec.

Semantics follow onnxruntime where the ONNX text is silent (DESIGN section 3): ceil_mode=1 drops a last
window that starts in the end padding (ceil_torch); count_include_pad=1 divides by the window clipped to
the padded input; a max window starts at its first tap inside the input. Attributes are read as
onnxruntime reads them: auto_pad="" is NOTSET, all-zero pads beside another auto_pad are ignored. A
global pool is a pool whose kernel is the input's spatial shape.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core import PoolSpec, pool
from ..dtypes import narrow, widen
from ..errors import IRError
from ..opdefs import load

NHWC = "com.ms.internal.nhwc"
OPS = ("MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool")


def op_version(op_type: str, opset: int, domain: str = "") -> str:
    """The op definition a model importing `opset` of `domain` uses, e.g. "MaxPool-12"."""
    if op_type not in OPS:
        raise IRError(f"irpool runs ONNX {', '.join(OPS)}, not {op_type!r}")
    if domain not in ("", NHWC):
        raise IRError(f"{op_type}: domain {domain!r} is not one irpool knows (use '' or {NHWC!r})")
    if isinstance(opset, bool) or not isinstance(opset, (int, np.integer)) or opset < 1:
        raise IRError(f"{op_type}: opset must be a positive integer, got {opset!r}")
    ops = load("onnx")["ops"]
    prefix = f"{domain}:{op_type}-" if domain else f"{op_type}-"
    versions = sorted(int(k[len(prefix):]) for k in ops if k.startswith(prefix))
    if not versions:
        raise IRError(f"{op_type}: onnxruntime registers no {op_type} in the {domain} domain")
    usable = [v for v in versions if v <= opset]
    if not usable:
        raise IRError(f"{op_type} does not exist in opset {opset} of domain {domain or 'ai.onnx'!r}"
                      f" (first version: {versions[0]})")
    return f"{prefix}{usable[-1]}"


def node_attrs(node) -> dict:
    """The attributes of an onnx.NodeProto as a plain dict (without importing onnx)."""
    out = {}
    for a in node.attribute:
        # AttributeProto.type: 1 FLOAT, 2 INT, 3 STRING, 6 FLOATS, 7 INTS
        value = {1: lambda: a.f, 2: lambda: a.i, 3: lambda: a.s.decode("utf-8", "replace"),
                 6: lambda: list(a.floats), 7: lambda: list(a.ints)}.get(a.type)
        if value is None:
            raise IRError(f"{node.op_type}: attribute {a.name} has an ONNX type irpool does not read ({a.type})")
        out[a.name] = value()
    return out


def _value(op: str, name: str, value, kind: str):
    """Check one attribute's value against its declared ONNX type."""
    def bad(what):
        return IRError(f"{op}: attribute {name} must be {what}, got {value!r}")
    if kind == "ints":
        if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
            raise bad("a list of integers")
        vals = list(value)
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals):
            raise bad("a list of integers")
        return tuple(int(v) for v in vals)
    if kind == "floats":
        try:
            return tuple(float(v) for v in value)
        except (TypeError, ValueError):
            raise bad("a list of numbers") from None
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise bad("an integer")
        return int(value)
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise bad("a number")
        return float(value)
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        raise bad("a string")
    return value


def _global_kernel(op: str, shape, domain: str) -> tuple:
    """A global pool's kernel: the input's spatial shape."""
    if shape is None:
        raise IRError(f"{op}: a global pool's window is the input's spatial shape; give the shape")
    if len(shape) < 3:
        raise IRError(f"{op}: X must have rank 3 or more (N, C and a spatial axis), not {len(shape)}")
    spatial = tuple(shape[1:-1] if domain == NHWC else shape[2:])
    if 0 in spatial:
        raise IRError(f"{op}: X has shape {list(shape)}: an empty spatial axis leaves the window nothing to pool")
    return spatial


def to_spec(op_type: str, attrs: dict, *, opset: int, domain: str = "", rank: int | None = None,
            shape=None) -> PoolSpec:
    """The PoolSpec of one node; IRError naming the op, its version and the attribute for any refusal.

    `shape` (or just `rank`) of X, when known, is checked; a global pool needs `shape`."""
    op = op_version(op_type, opset, domain)
    d = load("onnx")["ops"][op]
    defs = d["attributes"]
    if not isinstance(attrs, dict):
        raise IRError(f"{op}: attributes must be a dict, got {type(attrs).__name__}")
    for name in attrs:
        if name not in defs:
            raise IRError(f"{op} has no attribute {name!r} (it has {', '.join(sorted(defs))})")
    a = {k: _value(op, k, v, defs[k]["type"]) for k, v in attrs.items()}
    for name, definition in defs.items():
        if name not in a and "default" in definition:
            a[name] = definition["default"]
    rank = len(shape) if shape is not None else rank
    if op_type.startswith("Global"):
        a["kernel_shape"] = _global_kernel(op, shape, domain)
    if "kernel_shape" not in a:
        raise IRError(f"{op}: attribute kernel_shape is required")
    kernel = a["kernel_shape"]
    n = len(kernel)
    if rank is not None and rank != n + 2:
        raise IRError(f"{op}: kernel_shape has {n} axes, so X must have rank {n + 2}, not {rank}")
    for name in ("strides", "dilations"):
        if name in a and len(a[name]) != n:
            raise IRError(f"{op}: attribute {name} has {len(a[name])} values, kernel_shape has {n}")
    pads = a.get("pads")
    if pads is not None and len(pads) != 2 * n:
        raise IRError(f"{op}: attribute pads has {len(pads)} values; {n} spatial axes need {2 * n}"
                      " (all begins, then all ends)")
    auto = a.get("auto_pad", "NOTSET")     # (global pools have none)
    auto_pads = load("onnx")["auto_pad"]
    if auto not in auto_pads:
        raise IRError(f"{op}: attribute auto_pad={auto!r} is not one of {', '.join(map(repr, auto_pads))}")
    if pads is not None and auto_pads[auto] != "explicit" and not any(pads):
        pads = None                         # onnxruntime ignores all-zero pads beside auto_pad; exporters write them
    if pads is not None and auto_pads[auto] != "explicit":
        raise IRError(f"{op}: attributes pads and auto_pad={auto} cannot be used together")
    for name in ("ceil_mode", "count_include_pad", "storage_order"):
        if a.get(name, 0) not in (0, 1):
            raise IRError(f"{op}: attribute {name} must be 0 or 1, got {a[name]}")
    if a.get("activation") or a.get("activation_params"):
        raise IRError(f"{op}: a fused activation ({a.get('activation')!r}) is not something irpool runs")
    reduction = load("onnx")["reductions"][op_type]
    p = a.get("p", 2)
    if reduction == "lp" and defs["p"]["type"] == "int" and p < 1:
        raise IRError(f"{op}: attribute p must be at least 1, got {p}")
    try:
        return PoolSpec(kernel=kernel, strides=a.get("strides"), dilations=a.get("dilations"),
                        pads_begin=pads[:n] if pads else None, pads_end=pads[n:] if pads else None,
                        rounding="ceil_torch" if a.get("ceil_mode", 0) else "floor",
                        auto_pad=auto_pads[auto], reduction=reduction,
                        count="include_onnx" if a.get("count_include_pad", 0) else "exclude_onnx",
                        p=p, storage_order=a.get("storage_order", 0),
                        layout="channels_last" if domain == NHWC else "channels_first", max_start="first")
    except IRError as e:
        raise IRError(f"{op}: {e.reason}") from None


def pads_refusal(spec: PoolSpec) -> str | None:
    """onnxruntime's refusal of explicit pads not smaller than the kernel (defect E of docs/onnx.md: the
    node-level irpool.onnx.run computes them as the spec says; a model file is judged as onnxruntime runs it)."""
    if spec.auto_pad == "explicit" and any(p >= k for p, k in zip(spec.pads_begin + spec.pads_end, spec.kernel * 2)):
        return (f"pads {list(spec.pads_begin + spec.pads_end)} are not all smaller than kernel_shape"
                f" {list(spec.kernel)}: onnxruntime refuses the node (\"Pad should be smaller than kernel\")")
    return None


def _trunc_div(a: int, b: int) -> int:
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
        needed = (_trunc_div(length + s - 1, s) - 1) * s + k - length
        pb = _trunc_div(needed, 2) if auto == "same_upper" else _trunc_div(needed + 1, 2)
        pe = needed - pb
        if (pb < 0 or pe < 0) and not negative_ok:
            raise IRError(f"SAME pads come out negative ({pb}, {pe}: a kernel of {k} with stride {s} on a length of"
                          f" {length}): onnxruntime fails running the node (\"padding values must be non-negative\")")
    elif auto == "valid":
        pb = pe = 0
    num = length + pb + pe - d * (k - 1) - 1
    out = _trunc_div(num, s) + 1
    if ceil:
        out = -(-num // s) + 1 if num >= 0 else _trunc_div(num, s) + 1
        if (out - 1) * s >= length + pb:
            out -= 1
    if out < 0:
        raise IRError(f"the output length comes out negative ({out}: a dilated kernel of {d * (k - 1) + 1} on"
                      f" {length} + {pb} + {pe}): onnxruntime refuses the node (\"Calculated output dimension is"
                      " negative\")")
    return pb, pe, out


def _negative_ok(spec: PoolSpec, op: str) -> bool:
    """Whether onnxruntime runs negative SAME pads (measured, onnxruntime 1.32.0, tests/test_onnx_model.py):
    LpPool, a dilated MaxPool, AveragePool-19 and later, and AveragePool-10/11 with ceil_mode and
    count_include_pad; the others fail at run time ("padding values must be non-negative")."""
    version = int(op.rsplit("-", 1)[1]) if "-" in op else 0
    return spec.reduction == "lp" or spec.reduction == "max" and any(d > 1 for d in spec.dilations) or \
        spec.reduction == "avg" and (version >= 19 or spec.rounding != "floor" and spec.count == "include_onnx")


def _clips_at_pad_end(spec: PoolSpec, op: str) -> bool:
    """AveragePool-19 and later end a window at min(start + kernel * dilation, L + pad_end): with a negative end
    pad (SAME pads of an undilated kernel) a dilated window loses the input's last cells (its other kernels
    stop at L)."""
    return spec.reduction == "avg" and "-" in op and int(op.rsplit("-", 1)[1]) >= 19


def _core_out(length: int, dk: int, s: int, pb: int, pe: int, spec: PoolSpec) -> int:
    num = length + pb + pe - dk
    if num < 0:
        return -1
    if spec.rounding == "floor":
        return num // s + 1
    q = -(-num // s)
    return q + 1 if q * s < length + pb else q


def fit(spec: PoolSpec, shape, strict: bool = True, op: str = "", cuts: list | None = None) -> tuple:
    """(the PoolSpec the core runs to give onnxruntime's windows on this input shape, onnxruntime's output
    spatial lengths; None where an axis is not known). Where onnxruntime's geometry is not the core's
    (SAME pads of a dilated kernel, a window larger than the padded input, which onnxruntime clips to the
    input), the spec takes explicit pads that give the same windows; IRError where onnxruntime fails. Where
    no spec gives onnxruntime's windows, IRError (code "unsupported"), or with strict=False (None, lengths).
    Given a list `cuts`, it gets per spatial axis the cells to cut off the input's end before the spec runs:
    AveragePool-19's windows stop at L + pad_end, so a negative end pad leaves the last cells out of every one."""
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
                               spec.rounding != "floor", _negative_ok(spec, op))
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


class Node:
    """One ONNX pooling node with its attributes read once (irpool.onnx.compile): run it on many inputs.
    Refusals that need no input are raised when it is made; the others at run, as irpool.onnx.run raises them."""

    def __init__(self, op_type, attrs=None, *, opset: int, domain: str = "", outputs: int = 1,
                 as_onnxruntime: bool = False):
        if hasattr(op_type, "attribute") and hasattr(op_type, "op_type"):
            node = op_type
            if attrs is not None:
                raise IRError(f"{node.op_type}: give the attributes in the NodeProto or in attrs, not both")
            attrs, domain, op_type = node_attrs(node), node.domain or domain, node.op_type
            outputs = len([o for o in node.output if o]) if outputs == 1 else outputs
            self.listed = len(node.output)          # (onnxruntime counts an empty name too)
        else:
            self.listed = outputs
        self.op_type, self.attrs, self.opset, self.domain = op_type, {} if attrs is None else attrs, opset, domain
        self.as_onnxruntime = as_onnxruntime
        self.op = op_version(op_type, opset, domain)
        d = load("onnx")["ops"][self.op]
        if outputs not in range(1, d["outputs"] + 1):
            raise IRError(f"{self.op} has {d['outputs']} output(s), {outputs} asked for")
        self.outputs = outputs
        self.types = d.get("onnxruntime_types", d["types"]) if as_onnxruntime else d["types"]   # (a model's: as ORT)
        self.specs = {}          # input rank (or, for a global pool, shape) -> PoolSpec
        if not op_type.startswith("Global"):
            spec = to_spec(op_type, self.attrs, opset=opset, domain=domain)
            self.specs[spec.ndim + 2] = spec

    def spec(self, shape) -> PoolSpec:
        key = tuple(shape) if self.op_type.startswith("Global") else len(shape)
        spec = self.specs.get(key)
        if spec is None:             # a global pool's new shape, or a rank that the kernel refuses (raises)
            spec = self.specs[key] = to_spec(self.op_type, self.attrs, opset=self.opset, domain=self.domain,
                                             shape=shape)
        return spec

    def run(self, x, threads: int | None = None) -> list:
        """[Y] or [Y, Indices] for input `x`."""
        if x is None:
            raise IRError(f"{self.op}: no input X given")
        x = np.asarray(x)
        if x.dtype.name not in self.types:
            raise IRError(f"{self.op} does not take X of element type {x.dtype} (it takes {', '.join(self.types)})")
        try:
            spec = self.spec(x.shape)
            if self.as_onnxruntime:                     # a model file's node: onnxruntime's geometry, defects too
                refusal = pads_refusal(spec)
                if refusal:
                    raise IRError(refusal)
                cuts = []
                spec, outs = fit(spec, x.shape, op=self.op, cuts=cuts)
                if spec.reduction == "max" and self.domain != NHWC:
                    spec = replace(spec, max_start=ort_max_start(spec, x.dtype.name, self.listed))
                if 0 in outs:                           # onnxruntime gives an empty output
                    return self._empty(x, spec, outs)
                if any(cuts):                           # cells no window of onnxruntime's reads
                    index = [slice(None)] * x.ndim
                    for a, cut in zip(spec.spatial_axes(x.ndim), cuts):
                        index[a] = slice(0, x.shape[a] - cut)
                    x = x[tuple(index)]
            if self.outputs == 2:
                y, indices = pool(widen(x), spec, indices=True, threads=threads)
                return [narrow(y, x.dtype), indices]
            return [narrow(pool(widen(x), spec, threads=threads), x.dtype)]
        except IRError as e:
            raise IRError(f"{self.op}: {e.reason}") from None


    def _empty(self, x, spec, outs) -> list:
        shape = list(x.shape)
        for a, o in zip(spec.spatial_axes(len(shape)), outs):
            shape[a] = o
        y = np.empty(shape, x.dtype)
        if self.outputs == 2:
            ishape = shape if spec.layout == "channels_first" else [shape[0], shape[-1]] + shape[1:-1]
            return [y, np.empty(ishape, np.int64)]
        return [y]


def compile(op_type, attrs=None, *, opset: int, domain: str = "", outputs: int = 1) -> Node:  # noqa: A001
    """A Node: an ONNX pooling node with its attributes read once, to run on many inputs with `.run(x,
    threads=None)`, which gives [Y] or [Y, Indices]. `op_type` may be an onnx.NodeProto.

        >>> node = irpool.onnx.compile("MaxPool", {"kernel_shape": [2, 2]}, opset=12, outputs=2)
        >>> y, indices = node.run(x)
    """
    return Node(op_type, attrs, opset=opset, domain=domain, outputs=outputs)


def run(op_type, x=None, attrs=None, *, opset: int, domain: str = "", outputs: int = 1,
        threads: int | None = None) -> list:
    """Execute one ONNX pooling node on `x` as onnxruntime does: [Y], or [Y, Indices] with outputs=2.

        >>> (y,) = irpool.onnx.run("AveragePool", x, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, opset=19)
        >>> y, idx = irpool.onnx.run("MaxPool", x_nhwc, {"kernel_shape": [2, 2]}, opset=12,
        ...                          domain="com.ms.internal.nhwc", outputs=2)

    `op_type` may be an onnx.NodeProto; its op_type, domain and attributes are then read from it. Anything
    the op, its version or onnxruntime refuses raises IRError. The same as compile(...).run(x)."""
    return Node(op_type, attrs, opset=opset, domain=domain, outputs=outputs).run(x, threads)
