"""Where the runtimes part ways on one pooling node (schemas/onnx.json "runtimes"): onnxruntime's kernel
(irpool's own semantics, ort_geometry.ort_axis), onnxruntime's graph resolution and ONNX's shape inference (one
rule: onnx/defs/nn/defs.cc convPoolShapeInference, per op version), and OpenVINO's ONNX frontend (the IR
core's arithmetic on the attributes, MaxPool's ceil_mode read as rounding ceil). Each difference is a
sentence with every runtime's number and what follows from it."""
from __future__ import annotations

import math
from collections import deque
from dataclasses import replace

from ..core import axis_names, plan
from ..core.mlas_pool import kind as mlas_kind
from ..errors import IRError
from ..opdefs import load
from .. import empty
from .attributes import NHWC, graphs_of, node_attrs
from .ort_geometry import ort_max_start, trunc_div
from .model import shape_text

RUNTIMES = ("onnxruntime", "onnxruntime-graph", "onnx", "openvino")


def _rules() -> dict:
    return load("onnx")["runtimes"]


def onnx_axis(length: int, k: int, s: int, d: int, pads, i: int, auto: str, ceil: bool, drop: bool) -> int:
    """One output dim as ONNX's shape inference computes it: `pads` as written (they win over auto_pad);
    SAME pads from the dilated kernel and L mod s, clamped at 0; C++ division; with ceil_mode, the last
    window dropped when it starts at or past L + pad_begin (`drop`, the opset-22 schemas), else a real ceil."""
    dk = (k - 1) * d + 1
    n = len(pads) // 2 if pads else 0
    if pads:
        pb, pe = pads[i], pads[i + n]
    elif auto in ("SAME_UPPER", "SAME_LOWER"):
        residual = length % s if s > 1 else 0
        total = max(0, dk - s if residual == 0 else dk - residual)
        small, big = total >> 1, total - (total >> 1)
        pb, pe = (small, big) if auto == "SAME_UPPER" else (big, small)
    else:
        pb = pe = 0
    num = length + pb + pe - dk
    if ceil and not drop:                   # (before the opset-22 schemas: a real ceil, negative too)
        return -(-num // s) + 1
    out = trunc_div(num + (s - 1 if ceil else 0), s) + 1
    if ceil and (out - 1) * s >= length + pb:
        out -= 1
    return out


def shapes(j) -> dict:
    """{runtime: output dims, or the reason it refuses the node}: onnxruntime's kernel ("onnxruntime"), its
    graph resolution ("onnxruntime-graph"), ONNX's shape inference of the node's op version ("onnx"),
    OpenVINO's ONNX frontend ("openvino"). Global pools and nodes not computed: the kernel's for all."""
    if j.base is None or j.out is None or j.node.domain:     # (com.ms.internal.nhwc: onnxruntime's own, unmeasured)
        return {k: j.out for k in RUNTIMES}
    rules, op_type = _rules(), j.node.node.op_type
    attrs = node_attrs(j.node.node)
    ceil = bool(attrs.get("ceil_mode", 0))
    drop = rules["shape_inference_ceil_mode"].get(j.op) == "ceil_torch"
    axes = j.base.spatial_axes(len(j.out))
    inferred = list(j.out)
    for i, a in enumerate(axes):
        length = j.x_shape[a]
        if isinstance(length, int):
            d = j.base.dilations[i] if "dilations" in load("onnx")["ops"][j.op]["attributes"] else 1
            inferred[a] = onnx_axis(length, j.base.kernel[i], j.base.strides[i], d, attrs.get("pads"), i,
                                    attrs.get("auto_pad", "NOTSET"), ceil, drop)
    rounding = rules["openvino_ceil_mode"].get(op_type, "ceil_torch") if ceil else "floor"
    try:
        ov = list(j.out)
        for a, p in zip(axes, plan(replace(j.base, rounding=rounding), j.x_shape)):
            ov[a] = p.out
        ov = tuple(ov)
    except IRError as e:
        ov = f"refuses it ({e.reason})"
    return {"onnxruntime": j.out, "onnxruntime-graph": tuple(inferred), "onnx": tuple(inferred), "openvino": ov}


def empty_windows(j) -> list:
    """empty-window messages: a MaxPool whose windows, as OpenVINO's ONNX frontend reads it, include some that
    hold no input element (ceil_mode's last window, which onnxruntime's kernel drops; a dilated window in the
    padding, which both give the lowest value), with the model outputs computed from them."""
    if j.base is None or j.out is None or j.node.domain or j.node.node.op_type != "MaxPool" or not j.plans:
        return []
    ceil = bool(node_attrs(j.node.node).get("ceil_mode", 0))
    rounding = _rules()["openvino_ceil_mode"]["MaxPool"] if ceil else "floor"
    try:
        ov = plan(replace(j.base, rounding=rounding), j.x_shape)
    except IRError:
        return []
    windows = empty.empty_windows(ov)
    if not windows:
        return []
    kernel = {p.name: p.out for p in j.plans}          # (onnxruntime's kernel drops only windows at the end)
    ours = {p.name: p.out for p in ov}
    dropped = [(name, list(range(kernel[name], ours[name]))[:empty.MOST_LISTED], ours[name] - kernel[name])
               for name, _, _ in windows if ours[name] > kernel[name]]
    same = sum(n for _, _, n in windows) > sum(n for _, _, n in dropped)
    why = "a last window that starts in the end padding, which onnxruntime's kernel drops"
    clause = "; onnxruntime's kernel gives them the same value" if not dropped else \
        f"; onnxruntime's kernel has none of them ({why})" if not same else \
        f"; onnxruntime's kernel has no {empty.windows_text(dropped)} ({why}) and gives the others the same value"
    reached = reaches(j.node) if j.node.graph == () else None
    return [empty.message(windows, j.x_type, reached, clause)]


def reaches(n) -> list | None:
    """[(model output, [nodes on the way])] of the main graph's outputs computed from the node's first output."""
    g = n.owner
    if g is None or not n.node.output:
        return None
    users = {}
    for node in g.node:
        for name in dict.fromkeys([*node.input, *_captured(node)]):
            users.setdefault(name, []).append(node)
    outputs = {o.name for o in g.output}
    start = n.node.output[0]
    came = {start: None}                    # tensor -> (the node that made it, the tensor it came from)
    queue, found = deque([start]), []
    while queue:
        t = queue.popleft()
        if t in outputs:
            via, at = [], t
            while came[at] is not None:
                via.append(f"{came[at][0].op_type} {(came[at][0].name or at)!r}")
                at = came[at][1]
            found.append((t, via[::-1]))
        for node in users.get(t, ()):
            for o in node.output:
                if o and o not in came:
                    came[o] = (node, t)
                    queue.append(o)
    return found


def _captured(node) -> set:
    """The outer names an If, Loop or Scan node's subgraphs read (their nodes' inputs that no subgraph makes): the
    node's outputs are computed from them too (crash hunt 3 found an output through an If said to be none)."""
    made, read = set(), set()
    stack = [sub for a in node.attribute for sub in graphs_of(a)]
    while stack:
        sub = stack.pop()
        made.update(vi.name for vi in (*sub.input, *sub.initializer))
        for inner in sub.node:
            made.update(inner.output)
            read.update(inner.input)
            stack += [g for a in inner.attribute for g in graphs_of(a)]
    return read - made - {""}


def _nan_rules(j) -> bool:
    """Where the NaN rules measured against OpenVINO apply: float32/float16 nodes of the ONNX domain
    (com.ms.internal.nhwc is onnxruntime's own, unmeasured)."""
    return j.node.domain != NHWC and j.x_type in ("float32", "float16")


def differences(j) -> list:
    """runtime-divergence messages: where another runtime gives this node other output dims (storage_order's
    Indices included: OpenVINO gives them another shape)."""
    if j.node.axes is not None and j.out is not None:
        return _keepdims_difference(j)
    p = _low_p(j) if j.out is not None else None
    if p is not None and not (p == 0 and j.node.node.op_type == "GlobalLpPool"):
        return [f"p={p}: OpenVINO's {_rules()['openvino_lp_p'][j.node.node.op_type]}; onnxruntime runs it:"
                f" {_rules()['onnxruntime_lp_p']}"]
    if j.base is None or j.out is None or j.node.node.op_type.startswith("Global"):
        return []
    out = _shape_differences(j)
    spec, n = j.spec, j.node
    if j.plans and spec.reduction == "max" and spec.storage_order == 1 and len(n.node.output) > 1 and \
            n.node.output[1] and spec.ndim > 1:
        out.append(f"storage_order=1: {_rules()['openvino_storage_order']}")
    return out


def value_differences(j) -> list:
    """value-divergence: [(kind, message in full)] where OpenVINO computes other values than onnxruntime on this
    node's shape (NaN, a mean's divisor, an LpPool's last window); `kind` keys schemas/onnx.json "value_divergence" (the short form)."""
    if j.out is not None and j.node.node.op_type == "GlobalMaxPool" and _nan_rules(j):
        return [("global_max_nan", f"NaN: {_rules()['openvino_global_max_nan']}")]
    if j.out is not None and j.node.node.op_type == "GlobalLpPool" and _low_p(j) == 0:
        return [("lp_zero", f"p=0: {_rules()['openvino_global_lp_zero']}")]
    if j.base is None or j.out is None or j.node.node.op_type.startswith("Global") or not j.plans:
        return []
    return _value_differences(j)


def _low_p(j):
    """An LpPool's or GlobalLpPool's p where it is 0 or below (irpool does not run it: attributes.lp_refusal), else
    None. Measured, onnxruntime 1.32.0 and OpenVINO 2026.4.1: p = 0, -1 and -2 at opsets 11 and 18."""
    if j.node.node.op_type not in ("LpPool", "GlobalLpPool"):
        return None
    p = node_attrs(j.node.node).get("p", 2)
    return p if isinstance(p, int) and p <= 0 else None


def _keepdims_difference(j) -> list:
    """A global ReduceMean/ReduceMax whose keepdims is neither 0 nor 1: onnxruntime and ONNX's inference keep the
    reduced axes for 1 alone, OpenVINO for any value but 0 (measured, onnxruntime 1.32.0, onnx 1.23.2, OpenVINO
    2026.4.1: keepdims 5, 2 and -1 at opsets 13 and 18)."""
    keep = node_attrs(j.node.node).get("keepdims", 1)
    if keep in (0, 1):
        return []
    kept = j.out[:2] + (1,) * (len(j.x_shape) - 2)
    return [f"keepdims={keep}: onnxruntime's kernel and ONNX's shape inference give {shape_text(j.out)} (they keep"
            f" the reduced axes for 1 alone); OpenVINO's ONNX frontend {shape_text(kept)} (any value but 0 keeps them)"]


def _shape_differences(j) -> list:
    """One finding for the node: each runtime's shape first, then why, once (explain has the long form)."""
    got = shapes(j)
    rules, op_type = _rules(), j.node.node.op_type
    names = dict(zip(j.base.spatial_axes(len(j.out)), axis_names(j.base.ndim)))
    kernel, inferred, ov = got["onnxruntime"], got["onnx"], got["openvino"]
    axes = [a for a in j.base.spatial_axes(len(kernel)) if kernel[a] is not None]
    onnx_differs = [a for a in axes if inferred[a] != kernel[a]]
    ov_differs = [] if isinstance(ov, str) else [a for a in axes if ov[a] != kernel[a]]
    if not onnx_differs and not ov_differs and not (isinstance(ov, str) and axes):
        return []
    said = [f"onnxruntime's kernel gives {shape_text(kernel)}"]
    if onnx_differs:
        said.append(f"ONNX's shape inference for {j.op} and onnxruntime's own graph resolution {shape_text(inferred)}")
    if isinstance(ov, str):
        said.append(f"OpenVINO's ONNX frontend {ov}")
    elif ov_differs:
        said.append(f"OpenVINO's ONNX frontend {shape_text(ov)}{_extra_cells(j, ov, kernel, ov_differs)}")
    text = "; ".join(said) + "."
    if onnx_differs:
        latest = max((k for k in rules["shape_inference_ceil_mode"] if k.startswith(op_type + "-")),
                     key=lambda k: int(k.rsplit("-", 1)[1]), default=None)
        text += (" Declared as the kernel's, a Shape of this output folds to ONNX's dims, onnx.checker's full_check"
                 " rejects them, and onnxruntime fails where a tensor re-uses this one's buffer (\"Shape mismatch"
                 " attempting to re-use buffer\").")
        if latest and latest != j.op and rules["shape_inference_ceil_mode"].get(latest) == "ceil_torch" \
                and rules["shape_inference_ceil_mode"].get(j.op) == "ceil" and ceil_only(j):
            text += f" {latest}'s inference agrees with the kernel: upgrading the model's opset changes this shape."
    why = {}                                     # (the same arithmetic on several axes is said once)
    for a in dict.fromkeys(onnx_differs + ov_differs):
        why.setdefault(f"{kernel[a]}{_why(j, a)}", []).append(str(names.get(a, a)))
    return [text + (" The kernel's arithmetic: " + "; ".join(f"{', '.join(axes)}: {how}" for how, axes in why.items())
                    if why else "")]




def _same_pads(j) -> tuple | None:
    """(OpenVINO's pads, onnxruntime's, in words; whether OpenVINO's windows start at other cells) of a SAME_UPPER or
    SAME_LOWER node; None for other auto_pads. OpenVINO pads by the dilated kernel (schemas/onnx.json
    "openvino_same_pads"), onnxruntime by the undilated one (its plans)."""
    auto = node_attrs(j.node.node).get("auto_pad", "NOTSET")
    if auto not in ("SAME_UPPER", "SAME_LOWER") or j.plans is None:
        return None
    pads = []
    for p in j.plans:
        total = max(0, (-(-p.length // p.stride) - 1) * p.stride + p.dilated_kernel - p.length)
        pads.append((total // 2, total - total // 2) if auto == "SAME_UPPER" else (total - total // 2, total // 2))
    return (", ".join(f"{b},{e}" for b, e in pads), ", ".join(f"{p.pad_begin},{p.pad_end}" for p in j.plans),
            any(p.pad_begin != q[0] for p, q in zip(j.plans, pads)))


def _extra_cells(j, ov, kernel, differs) -> str:
    """What OpenVINO's extra output cells of a MaxPool hold: the type's lowest value where their windows hold no input
    cell (past the end padding: empty-window), else other maxima (SAME pads by the dilated kernel)."""
    if j.node.node.op_type != "MaxPool" or not any(ov[a] > kernel[a] for a in differs):
        return ""
    same = _same_pads(j)
    if same is None:
        return " (its extra cells hold the lowest value of the type: empty-window)"
    theirs, ours, moved = same
    return (f" (it pads SAME by the dilated kernel, {theirs}, where onnxruntime pads by the undilated one, {ours}"
            f"{': its windows start at other cells' if moved else ''})")


def ceil_only(j) -> bool:
    """Whether the kernel and ONNX's inference part ways over ceil_mode alone (not SAME pads or clipped
    windows, which opset 22 keeps as they were)."""
    attrs = node_attrs(j.node.node)
    return bool(attrs.get("ceil_mode")) and attrs.get("auto_pad", "NOTSET") in ("NOTSET", "") and \
        all(p.out is not None for p in j.plans) and bool(j.plans)


def _why(j, a) -> str:
    for axis, p in zip(j.base.spatial_axes(len(j.out)), j.plans):
        if axis == a and p.arithmetic:
            return f" ({p.arithmetic.split(': ', 1)[-1]})"
    return ""


def _divisors(j, p, last: int, end: int) -> str:
    """The two divisors of a count_include_pad window that runs past the end padding on axis `p` (the other axes'
    windows whole): onnxruntime's, the taps inside the padded input; OpenVINO's, the whole kernel's. Cells are
    the input's (its first is 0), as explain draws them."""
    inside = sum(1 for t in range(p.kernel) if last + t * p.dilation < p.length + p.pad_end)
    others = [q.kernel for q in j.plans if q.name != p.name]
    ort = " * ".join(map(str, [inside] + others)) + (f" = {inside * math.prod(others)}" if others else "")
    whole = " * ".join(map(str, j.spec.kernel)) + (f" = {math.prod(j.spec.kernel)}" if others else "")
    pads = f"cell {p.length}" if p.pad_end == 1 else f"cells {p.length}..{p.length + p.pad_end - 1}"
    past = f"the end padding ({pads})" if p.pad_end > 0 else \
        f"the input's last cell {p.length - 1}"
    return (f"{p.name}: the last window, input cells {last}..{end - 1}, runs past {past}: onnxruntime divides"
            f" such a window by the taps inside the padded input, {ort} where the other axes' windows are whole,"
            f" OpenVINO by the whole kernel's {whole} taps: its mean there is smaller")


def _lp_taps(j, p) -> str:
    """An LpPool's last window on axis `p` that runs past the input's end, no pads (schemas/onnx.json
    "openvino_lp_pool"): the taps inside and the kernel's, in explain's cells."""
    last = (p.out - 1) * p.stride
    inside = sum(1 for t in range(p.kernel) if last + t * p.dilation < p.length)
    return (f"{p.name}: the last window, input cells {last}..{last + p.dilated_kernel - 1}, runs past the input's last"
            f" cell {p.length - 1} and holds {inside} of its {p.kernel} taps: OpenVINO scales its sum by"
            f" {p.kernel}/{inside} before the root (a mean of |x|^{j.spec.p:g} times the kernel's taps), onnxruntime"
            " does not: OpenVINO's value there is larger")


def _value_differences(j) -> list:
    rules, spec, n = _rules(), j.spec, j.node
    found = []
    if spec.reduction == "avg" and spec.count == "include_onnx" and any(p.pad_begin or p.pad_end for p in j.plans):
        for p in j.plans:
            if p.out is None or p.length is None or p.pad_begin is None:
                continue
            last = (p.out - 1) * p.stride - p.pad_begin
            end = last + p.dilated_kernel
            if end > p.length + p.pad_end:
                found.append(("mean", _divisors(j, p, last, end)))
    same = _same_pads(j)
    if same is not None and same[2] and not _shape_differences(j):
        found.append(("same_pads", f"SAME pads: OpenVINO pads by the dilated kernel, {same[0]}, onnxruntime by the"
                      f" undilated one, {same[1]}: the same number of windows, starting at other cells"))
    if spec.reduction == "lp" and not any(p.pad_begin or p.pad_end for p in j.plans):
        found += [("lp_sum", _lp_taps(j, p)) for p in j.plans if p.out is not None and p.length is not None
                  and (p.out - 1) * p.stride + p.dilated_kernel > p.length]
    start = ort_max_start(spec, j.x_type, len(n.node.output)) if spec.reduction == "max" and _nan_rules(j) else None
    if start == "first":
        found.append(("nan_first", f"NaN: {rules['openvino_nan_first']}"))
    elif start == "lowest" and (spec.ndim > 1 or mlas_kind(*zip(*((p.kernel, p.stride, p.pad_begin, p.pad_end,
                                                                    p.length) for p in j.plans))) == "global"):
        # (a 1-D window over the whole input runs MLAS's global kernel, whose NaN follows its lanes as in 2-D)
        found.append(("mlas_nan", f"NaN: {rules['onnxruntime_mlas_nan']}"))
    return found
