"""Translate an ONNX pooling node's attributes, per op version (schemas/onnx.json), into a PoolSpec.

Semantics follow onnxruntime where the ONNX text is silent (DESIGN section 3): ceil_mode=1 drops a last
window that starts in the end padding (ceil_torch); count_include_pad=1 divides by the window clipped to
the padded input; a max window starts at its first tap inside the input. Attributes are read as
onnxruntime reads them: auto_pad="" is NOTSET, all-zero pads beside another auto_pad are ignored. A
global pool is a pool whose kernel is the input's spatial shape.
"""
from __future__ import annotations

import numpy as np

from ..core import PoolSpec
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


def graphs_of(attr) -> list:
    """The graphs an AttributeProto holds: its graph (an If's branch, a Loop's body) and its list of graphs."""
    return ([attr.g] if attr.HasField("g") else []) + list(attr.graphs)


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
        raise IRError(f"{op}: X must have rank 3 or more (N, C and a spatial axis), not {len(shape)}", code="bad-rank")
    spatial = tuple(shape[1:-1] if domain == NHWC else shape[2:])
    if 0 in spatial:
        raise IRError(f"{op}: X has shape {list(shape)}: an empty spatial axis leaves the window nothing to pool")
    return spatial


def _attributes(op: str, attrs: dict, defs: dict) -> dict:
    """`attrs` checked against the op version's definitions `defs`, with the defaults of those not given."""
    if not isinstance(attrs, dict):
        raise IRError(f"{op}: attributes must be a dict, got {type(attrs).__name__}")
    unknown = unknown_attribute(op, attrs, defs)
    if unknown:
        raise IRError(unknown)
    a = {k: _value(op, k, v, defs[k]["type"]) for k, v in attrs.items()}
    for name, definition in defs.items():
        if name not in a and "default" in definition:
            a[name] = definition["default"]
    return a


def _kernel(op: str, a: dict, rank: int | None) -> tuple:
    """kernel_shape, checked against X's rank (when known) and the lengths of strides and dilations."""
    if "kernel_shape" not in a:
        raise IRError(f"{op}: attribute kernel_shape is required")
    kernel = a["kernel_shape"]
    n = len(kernel)
    if rank is not None and rank != n + 2:
        raise IRError(f"{op}: kernel_shape has {n} axes, so X must have rank {n + 2}, not {rank}", code="bad-rank")
    for name in ("strides", "dilations"):
        if name in a and len(a[name]) != n:
            raise IRError(f"{op}: attribute {name} has {len(a[name])} values, kernel_shape has {n}")
    return kernel


def of_op(op: str, reason: str) -> str:
    """`reason` said of op version `op` (once: a reason that names it already stands)."""
    return reason if reason.startswith(op) else f"{op}: {reason}"


def unknown_attribute(op: str, attrs, defs: dict) -> str | None:
    """Why onnxruntime refuses a node with an attribute its op version does not define; None where there is none."""
    name = next((k for k in attrs if k not in defs), None)
    if name is None:
        return None
    has = f"it has {', '.join(sorted(defs))}" if defs else "it has none"
    return f"{op} has no attribute {name!r} ({has}): onnxruntime refuses the model (\"Unrecognized attribute\")"


def _pads(op: str, a: dict, n: int) -> tuple:
    """(the explicit pads or None, the PoolSpec auto_pad) of `n` spatial axes, as onnxruntime reads them."""
    pads = a.get("pads")
    if pads is not None and len(pads) != 2 * n:
        raise IRError(f"{op}: attribute pads has {len(pads)} values; {n} spatial axes need {2 * n}"
                      " (all begins, then all ends)")
    auto = a.get("auto_pad", "NOTSET")     # (global pools have none)
    auto_pads = load("onnx")["auto_pad"]
    if auto not in auto_pads:
        raise IRError(f"{op}: attribute auto_pad={auto!r} is not one of {', '.join(map(repr, auto_pads))}")
    if pads is not None and auto_pads[auto] != "explicit":
        kernel = a.get("kernel_shape") or ()
        if any(p >= kernel[i % n] for i, p in enumerate(pads)) if len(kernel) == n else False:
            raise IRError(f"{op}: pads {list(pads)} beside auto_pad={auto}: onnxruntime and OpenVINO pad as auto_pad"
                          " says, but onnxruntime still refuses a pad not smaller than the kernel (\"Pad should be"
                          " smaller than kernel\")")
        pads = None        # (ignored by both, measured: the same values as without them; onnx.checker takes them)
    return pads, auto_pads[auto]


def _switches(op: str, a: dict) -> None:
    """The 0/1 attributes, and the fused activation irpool does not run."""
    for name in ("ceil_mode", "count_include_pad", "storage_order"):
        if a.get(name, 0) not in (0, 1):
            raise IRError(f"{op}: attribute {name} must be 0 or 1, got {a[name]}")
    if a.get("activation") or a.get("activation_params"):
        raise IRError(f"{op}: a fused activation ({a.get('activation')!r}) is not something irpool runs")


def to_spec(op_type: str, attrs: dict, *, opset: int, domain: str = "", rank: int | None = None,
            shape=None, any_p: bool = False) -> PoolSpec:
    """The PoolSpec of one node; IRError naming the op, its version and the attribute for any refusal.

    `shape` (or just `rank`) of X, when known, is checked; a global pool needs `shape`. `any_p`: an Lp pool's p
    below 1, which irpool does not run (lp_refusal), is taken as 1, for check's shapes (p does not change them)."""
    op = op_version(op_type, opset, domain)
    defs = load("onnx")["ops"][op]["attributes"]
    a = _attributes(op, attrs, defs)
    rank = len(shape) if shape is not None else rank
    if op_type.startswith("Global"):
        a["kernel_shape"] = _global_kernel(op, shape, domain)
    kernel = _kernel(op, a, rank)
    n = len(kernel)
    pads, auto_pad = _pads(op, a, n)
    _switches(op, a)
    reduction = load("onnx")["reductions"][op_type]
    p = a.get("p", 2)
    if reduction == "lp" and not p > 0:
        if not any_p:
            raise IRError(lp_refusal(op, p))
        p = 1
    try:
        return PoolSpec(kernel=kernel, strides=a.get("strides"), dilations=a.get("dilations"),
                        pads_begin=pads[:n] if pads else None, pads_end=pads[n:] if pads else None,
                        rounding="ceil_torch" if a.get("ceil_mode", 0) else "floor",
                        auto_pad=auto_pad, reduction=reduction,
                        count="include_onnx" if a.get("count_include_pad", 0) else "exclude_onnx",
                        p=p, storage_order=a.get("storage_order", 0),
                        layout="channels_last" if domain == NHWC else "channels_first", max_start="first")
    except IRError as e:
        raise IRError(of_op(op, e.reason)) from None


def lp_refusal(op: str, p) -> str:
    """Why run refuses an Lp pool of p = 0 or below: onnxruntime runs it, leaving the padding out of each window's
    sum (where |0|^p would count), which irpool's core, whose padding holds zeros, does not."""
    return (f"{op}: p={p:g}: irpool runs Lp pools of p > 0 only (onnxruntime computes (sum of |x|^p over the"
            " window's taps inside the input)^(1.0f / p), inf for p = 0 and two taps or more; OpenVINO refuses"
            " p < 0, and p = 0 but in GlobalLpPool)")


def pads_refusal(spec: PoolSpec) -> str | None:
    """onnxruntime's refusal of explicit pads not smaller than the kernel (defect E of docs/onnx.md: the
    node-level irpool.onnx.run computes them as the spec says; a model file is judged as onnxruntime runs it)."""
    if spec.auto_pad == "explicit" and any(p >= k for p, k in zip(spec.pads_begin + spec.pads_end, spec.kernel * 2)):
        return (f"pads {list(spec.pads_begin + spec.pads_end)} are not all smaller than kernel_shape"
                f" {list(spec.kernel)}: onnxruntime refuses the node (\"Pad should be smaller than kernel\")")
    return None
