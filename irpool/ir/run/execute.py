"""Running one pooling-family layer on an array as the CPU plugin does: the input checked against what the layer
(or the Parameter feeding it) takes, once per shape and type a program sees; its spec run on the core."""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ... import cpu
from ... import empty
from ...core import PoolSpec, adaptive_pool, plan, pool
from ...core.reduce_order import global_reduce
from ...errors import IRError
from ...opdefs import load as load_defs
from ..ops import fold, negpads
from ..ops.inference import dynamic_bins_refusal, indices_refusal
from ..read.dims import compatible, parse_shape, shape_text
from ..read.element_types import BF16_MAX, element_type, of_dtype, stored_bits
from ..ops.family import index_type_refusal, interpret_family, shape_input_name
from ..ops.pools import check_dims, interpret
from ..ops.type_refusals import type_refusal
from ..read.layer_edge import Layer

_CHECKED = 1024       # input shapes and types remembered as checked, per program, at most


def checked_before(prepared: dict, key, check):
    """What check() gave for `key` (a layer or Parameter, an input shape and type) in an earlier run of this
    program, or check() now; kept in `prepared` under a key no layer id can be (ids are strings)."""
    seen = prepared.setdefault(("checked",), {})
    if key not in seen:
        if len(seen) >= _CHECKED:
            seen.clear()
        seen[key] = check()
    return seen[key]




def execute(layer: Layer, file, x, threads, prepared: dict, indices: bool = True, key=None,
             declared: bool = True) -> list:
    """One pooling layer on an array, computed in the type OpenVINO's CPU plugin computes its type in.
    `prepared`: (layer id, rank) -> its PoolLayer, and the input shapes and types already checked, kept between
    runs. `indices`: whether a MaxPool's indices output is wanted (when nothing reads it, only the values are
    computed). `key`: what the layer's interpretation is kept under (its group's number; default its id)."""
    x = _declared_bits(layer, x) if declared else np.asarray(x)
    key = ("layer", layer.id, x.ndim) if key is None else ("group", key, x.ndim)
    pl = prepared.get(key)
    if pl is None:
        if declared:                            # (an input of another rank is the input's fault, not the layer's)
            _check_declared_input(layer, file, x)
        pl = prepared[key] = interpret(layer, file, x.ndim)
    read = not declared and indices and pl.outputs == 2      # (in a net, where an edge reads the indices)
    et = checked_before(prepared, key + (x.shape, x.dtype, read), lambda: _checked(layer, file, x, pl, declared, read))
    spec, crop = negpads.fit(pl, x.shape)
    planned = spec if crop is None else None        # (a cut input's windows are negpads'; _bf16_empty skips them)

    def run_on(xc, indices):
        if crop is None:
            return pool(xc, spec, indices=indices, threads=threads)
        return negpads.run(lambda *a, **k: pool(*a, threads=threads, **k), xc, pl, spec, crop, indices)
    try:
        if pl.outputs == 2 and indices:
            why = indices_refusal(pl)
            if why is not None:                         # (the plugin fails running it: inference.py)
                raise IRError(why, code="fails-at-inference")
            y, i = run_on(et.to_compute(x), True)
            return [et.from_compute(_bf16_empty(y, et, planned, x.shape)),
                    i.astype(element_type(pl.index_type).dtype(), copy=False)]
        return [et.from_compute(_bf16_empty(run_on(et.to_compute(x), False), et, planned, x.shape))]
    except IRError as e:
        raise e.located(**layer.where(file)) from None


def _checked(layer: Layer, file, x: np.ndarray, pl, declared: bool = True, indices_read: bool = False):
    """The ElementType a pooling layer runs an array in, once its shape and type are known to fit the layer.
    `declared`: the array must fit the layer's input port, as the only declaration a layer run alone has (in a
    net, OpenVINO takes what the producer gives, whatever the port declares). `indices_read`: in a net, an edge
    reads the indices (a bf16 MaxPool-8/14 the plugin then refuses where bf16 is native: stop 61's final run)."""
    if declared:
        _check_declared_input(layer, file, x)
    check_dims(pl, x.shape, file)
    et = of_dtype(x.dtype)
    why = f"irpool has no IR element type for arrays of {x.dtype}" if et is None else None
    if et is not None:
        refusal = type_refusal(pl, et, indices_read, channels=x.shape[1], hint_f32=True)   # (as with the hint)
        if refusal and (refusal[0] == "bad-precision" or et.compute is None):
            why = refusal[1]                # (a type some CPUs compile runs where irpool knows how it pools)
    if not why and pl.spec.reduction == "avg" and not et.averages:
        why = f"irpool does not reproduce how OpenVINO's CPU plugin rounds an average to {et.name}"
    if why:
        raise IRError(why, code="unsupported", **layer.where(file, layer.inputs[0].line))
    return et


def _bf16_empty(y, et, spec, shape):
    """A bf16 MaxPool that has a window with no input cell, or a dilation, where bf16 is native: every window below
    bf16's lowest (an empty one, whose f32 lowest rounds to -inf, and one of -inf or NaN taps) gives bf16's lowest,
    0xff7f; in another layer -inf stays -inf (measured on AMD EPYC family 25 model 17, with no limit and under
    AVX512_CORE; stop 61's differential runs and review found irpool's -inf in each). oneDNN (v3.13, the plugin's
    fork) refuses its JIT kernel there (src/cpu/x64/jit_uni_pooling.hpp:70 "does not support dilations";
    jit_uni_pool_kernel.cpp:377-380, a pad at least the kernel), and its C++ poolings start a window at
    numeric_limits<bfloat16_t>::lowest() (ref_pooling.cpp:173-174, nchw_pooling.cpp:378/398, nstl.hpp:245), kept
    on a strict '>' (ref_pooling.cpp:114); the JIT kernel starts at f32's lowest (jit_uni_pool_kernel.cpp:971),
    which rounds to -inf. Below the native tiers the layer is f32 (precision_support.cpp:34-38)."""
    tier = cpu.for_run()
    if spec is None or et.name != "bf16" or spec.reduction != "max" or not (tier is None or tier.native("bf16")):
        return y                    # (spec None: negative pads, a cut input: not measured there)
    if all(d == 1 for d in spec.dilations) and not empty.empty_windows(plan(spec, shape)):
        return y
    lowest = np.float32(-BF16_MAX)
    y[~(y >= lowest)] = lowest
    return y


def _declared_bits(layer: Layer, x) -> np.ndarray:
    """A layer run alone's input, an ml_dtypes array's bytes (an .npy) taken as its input port's precision."""
    x = np.asarray(x)
    return stored_bits(x, element_type(layer.inputs[0].precision)) if layer.inputs else x


def _check_declared_input(layer: Layer, file, x: np.ndarray) -> None:
    """The input array must fit the dims the layer's input port declares (intervals and -1 fit anything within),
    and its precision, where it names one: as a Parameter's in a whole net (and onnxruntime's inputs). A layer
    with no input port declares nothing (what it lacks is said where it is read)."""
    if not layer.inputs:
        return
    et = element_type(layer.inputs[0].precision)
    try:
        want = et.dtype() if et is not None else None
    except IRError:
        want = None                             # (a type numpy lacks without ml-dtypes: run says so itself)
    if want is not None and x.dtype != want:
        raise IRError(f"input array has element type {x.dtype}, input port {layer.inputs[0].id} declares"
                      f" {layer.inputs[0].precision} ({want}){_set_tensor(x, et)}", code="bad-input",
                      **layer.where(file, layer.inputs[0].line))
    declared = layer.inputs[0].dims
    if declared and (x.ndim != len(declared) or not all(compatible(d, n) for d, n in zip(declared, x.shape))):
        raise IRError(f"input array has shape {list(x.shape)}, input port {layer.inputs[0].id} declares"
                      f" [{','.join(map(str, layer.inputs[0].raw_dims))}]", code="bad-input",
                      **layer.where(file, layer.inputs[0].line))


def shape_input(layer: Layer, file, found: dict, ops: dict, edges: dict, bin_path) -> tuple:
    """(values, where) of a family layer's shape input: the Const that feeds it, read from the weights file, or
    the shape subgraph fold.py folds (ops: its layers by id; edges: (layer id, port id) -> (layer id, port id))."""
    what = shape_input_name(layer)
    if len(layer.inputs) != 2:
        interpret_family(layer, file, None, (), {})                 # raises: not two inputs
    src = edges.get((layer.id, layer.inputs[1].id))
    try:
        values, source = fold.shape_input(what, src, ops, edges, found, bin_path, file)
    except fold.UnknownInput as e:
        raise IRError(str(e), code="unchecked" if e.missing else "unsupported",
                      **layer.where(file, layer.inputs[1].line)) from None
    return values, source.where(file)


def reduce_lanes(layout: str = "planar") -> int:
    """The float lanes of the plugin's Reduce kernel on the CPU run for: 16 with avx512_core, 8 with avx2, else 4
    (reduce.cpp, Reduce::create_reduce_kernel: `mayiuse(avx512_core)`, then avx2, then sse41); channels-last adds
    in the channel block of that width (Reduce::createPrimitive: blk_size). ONEDNN_MAX_CPU_ISA reaches only the
    planar kernel, and only on the OpenVINO versions in schemas/openvino.json cpu_tiers reduce_width (measured:
    2026.4.0; not 2026.4.1, the default); a --cpu tier is taken as named."""
    capped = layout == "planar" and _openvino_version() in cpu.reduce_width()["capped_on_openvino"]
    tier = cpu.for_run() if capped else cpu.uncapped()
    if tier is None:
        return 16
    return 16 if tier.has("avx512") else 8 if tier.has("avx2") else 4


@lru_cache(maxsize=1)
def _openvino_version() -> str | None:
    """The installed openvino's version (2026.4.0), read from its metadata without importing it; None: none."""
    try:
        from importlib.metadata import PackageNotFoundError, version
        return version("openvino")
    except (ImportError, PackageNotFoundError):
        return None


def execute_family(layer: Layer, file, x, shape_input: tuple, threads, layout: str = "planar",
                   unread=frozenset()) -> list:
    """An adaptive pool, or a reduction over the spatial axes, on the one core (values and, for AdaptiveMaxPool,
    indices). `layout`: what the plugin gives a global reduction in its graph (planar after a Parameter,
    channels_last after a Convolution: ir/run/program.py's producer_layout); its order of additions follows it.
    `unread`: the layer's output ports no edge reads."""
    x = _declared_bits(layer, x)
    _check_declared_input(layer, file, x)       # (an input of another rank is the input's fault, not the layer's)
    values, const_where = shape_input
    fl = interpret_family(layer, file, x.ndim, values, const_where)
    if fl is None:
        raise IRError(f"{layer.type} over axes {[int(v) for v in values]} of an input of rank {x.ndim} is not a"
                      " pooling: irpool runs reductions over exactly the spatial axes 2..rank-1", code="unsupported",
                      **layer.where(file))
    if (why := dynamic_bins_refusal(fl)) is not None:      # (the plugin fails running it: inference.py)
        raise IRError(why, code="fails-at-inference", **layer.where(file, layer.data_line))
    et = of_dtype(x.dtype)
    runs = load_defs("openvino")["ops"][fl.op]["run_types"]
    if et is None or et.name not in runs:
        raise IRError(f"irpool runs {fl.op} on {', '.join(runs)} (measured against the CPU plugin), not on"
                      f" {et.name if et else x.dtype}", code="unsupported", **layer.where(file, layer.inputs[0].line))
    xc = et.to_compute(x)                   # in the type the plugin computes it in (as for MaxPool, measured)
    try:
        if fl.family == "adaptive" and _to_reduce(fl, layer, unread):
            reduce = "ReduceMean-1" if fl.reduction == "avg" else "ReduceMax-1"
            if et.name not in load_defs("openvino")["ops"][reduce]["run_types"]:
                why = " (the plugin's integer mean truncates)" if fl.reduction == "avg" else ""
                raise IRError(f"the plugin runs this {layer.type} to one cell as a {reduce.split('-')[0]}, which irpool"
                              f" does not run on {et.name}{why}", code="unsupported")
            return [_global_pool(fl.reduction, et, x, xc, threads, layout)]
        why = index_type_refusal(fl)
        if why is not None:
            raise IRError(why, code="bad-precision")
        if fl.family == "adaptive":
            bins = [max(o, 0) for o in fl.out_sizes]      # (below -1: a dim of 0, as OpenVINO reads it: family.py)
            if fl.outputs == 2:
                y, i = adaptive_pool(xc, bins, "max", indices=True, index_dtype=element_type(fl.index_type).dtype())
                return [et.from_compute(y), i]
            return [et.from_compute(adaptive_pool(xc, bins, fl.reduction))]
        y = _global_pool(fl.reduction, et, x, xc, threads, layout)
        return [y if fl.keep_dims else y.reshape(x.shape[:2])]
    except IRError as e:
        raise e.located(**layer.where(file)) from None


def _to_reduce(fl, layer: Layer, unread) -> bool:
    """Whether the plugin runs an adaptive pool as a ReduceMean/ReduceMax over the spatial axes (keep_dims), in that
    op's order and NaN rule: every output dim 1, and for AdaptiveMaxPool no edge reading its indices
    (transformations/common_optimizations/adaptive_pool_to_reduce.cpp, AdaptivePoolToReduce; measured: the ResNet
    head AdaptiveAvgPool(1, 1) differed from irpool's bin loop in 44 of 64 channels, and a NaN before a larger tap
    is forgotten, as a ReduceMax forgets it)."""
    if any(o != 1 for o in fl.out_sizes):
        return False
    return fl.reduction == "avg" or all(p.id in unread for p in layer.outputs[1:])


def _global_pool(reduction: str, et, x, xc, threads, layout: str):
    """A global ReduceMean/ReduceMax in the plugin's order for its layout (channels-last only where the Reduce node
    has it: rank 4 or 5, more than one channel) and vector width; an integer max in any order (the same bits)."""
    if xc.dtype in (np.float32, np.float16) and xc.size:    # (f16: the plugin reduces in f32 and converts back)
        cl = layout == "channels_last" and x.ndim in (4, 5) and x.shape[1] > 1
        order = "channels_last" if cl else "planar"
        y = global_reduce(xc.astype(np.float32, copy=False), reduction, order, reduce_lanes(order))
        return et.from_compute(y.astype(xc.dtype, copy=False).reshape(x.shape[:2] + (1,) * (x.ndim - 2)),
                               reduce=reduction, x_shape=None if cl else x.shape)
    spec = PoolSpec(kernel=x.shape[2:], reduction=reduction, count="exclude_pad", sum_order="any")
    return et.from_compute(pool(xc, spec, threads=threads))


def feed(layer: Layer, file, x, prepared: dict) -> np.ndarray:
    """Check an input array against its Parameter's shape (intervals and dynamic rank included) and type,
    read once per Parameter into `prepared` (an .npy's bytes of an ml_dtypes array taken as its type)."""
    x = np.asarray(x)
    if x.dtype.type is np.void:
        x = stored_bits(x, declared_parameter(layer, file, prepared)[2])
    checked_before(prepared, ("fed", layer.id, x.shape, x.dtype), lambda: _fits(layer, file, x, prepared))
    return x


def _fits(layer: Layer, file, x: np.ndarray, prepared: dict) -> bool:
    """An input array's shape and type against its Parameter's: True, or an IRError."""
    shape, et_text, et = declared_parameter(layer, file, prepared)
    if shape is not None and (len(shape) != x.ndim or not all(compatible(s, n) for s, n in zip(shape, x.shape))):
        raise IRError(f"input {layer.name!r} has shape {list(x.shape)}, the Parameter declares {shape_text(shape)}",
                      code="bad-input", **layer.where(file))
    if et is not None and x.dtype != et.dtype():
        raise IRError(f"input {layer.name!r} has element type {x.dtype}, the Parameter declares {et_text}"
                      f" ({et.dtype()}){_set_tensor(x, et)}", code="bad-input", **layer.where(file))
    return True


def _set_tensor(x: np.ndarray, et) -> str:
    """How OpenVINO refuses a tensor of another type for an input (InferRequest::set_tensor; measured, 2026.4.1:
    tests/cli/test_inputs.py), as onnxruntime's refusal is quoted for an .onnx model (onnx/program.py)."""
    got = of_dtype(x.dtype)
    return (f", as OpenVINO refuses it (\"Failed to set tensor for input with precision: {got.name}, since the model"
            f" input tensor precision is: {et.name}\")") if got is not None else ""


def declared_parameter(layer: Layer, file, prepared: dict) -> tuple:
    """_parameter's answer, read once per Parameter into `prepared`."""
    return prepared.get(layer.id) or prepared.setdefault(layer.id, _parameter(layer, file))


def _parameter(layer: Layer, file) -> tuple:
    """(shape, element type as written, ElementType) of a Parameter; IRError for what cannot be fed."""
    try:
        shape = parse_shape(layer.data["shape"]) if "shape" in layer.data else \
            (layer.outputs[0].dims if layer.outputs else None)
    except ValueError:
        raise IRError(f'Parameter shape="{layer.data.get("shape")}" is not a shape', code="bad-attribute",
                      **layer.where(file, layer.data_line)) from None
    et_text = layer.data.get("element_type") or (layer.outputs[0].precision if layer.outputs else None)
    et = element_type(et_text)
    if et_text is not None and (et is None or et.numpy is None):
        raise IRError(f"Parameter element_type {et_text!r} is not one irpool can make arrays of", code="unsupported",
                      **layer.where(file, layer.data_line))
    return shape, et_text, et


def bind_inputs(params: list, file, inputs) -> dict:
    """Parameter layer id -> array, from a name/tensor-name mapping or a lone array."""
    if not isinstance(inputs, dict):
        if len(params) != 1:
            raise IRError(f"the net has {len(params)} Parameters; give inputs as a dict by name", file=file,
                          code="bad-input")
        return {params[0].id: inputs}
    names = {}
    for p in params:
        keys = {p.name} | {n.strip() for port in p.outputs for n in (port.names or "").split(",") if n.strip()}
        for k in keys:
            names[k] = p
    unknown = [k for k in inputs if k not in names]
    if unknown:
        raise IRError(f"no Parameter is named {', '.join(map(repr, unknown))}; the net's inputs are"
                      f" {', '.join(repr(p.name) for p in params)}", file=file, code="bad-input")
    bound = {}
    for k, v in inputs.items():
        bound[names[k].id] = v
    missing = [p for p in params if p.id not in bound]
    if missing:
        raise IRError(f"no input given for Parameter {missing[0].name!r}", code="bad-input",
                      **missing[0].where(file))
    return bound
