"""The CPU plugin's refusals of a pooling layer by its input element type, per CPU tier (irpool.cpu): the types
it has no kernel for, on every CPU or some, with one channel, a blocked layout, an empty window or a small
integer output (the rules as data in schemas/openvino.json); apart from pools.py, which reads the attributes."""
from __future__ import annotations

from functools import lru_cache

from ... import cpu
from ...opdefs import load
from ..read.element_types import element_type
from .pools import PoolLayer


def type_refusal(pl: PoolLayer, et, indices_used: bool = False, channels=None, static: bool = True,
                 consumers=None, hint_f32: bool = False) -> tuple[str, str] | None:
    """What OpenVINO's CPU plugin does with this layer on input element type `et`, as (code, reason), for the
    CPU tier or tiers irpool.cpu judges for: a `bad-precision` error where the plugin refuses it, a
    `cpu-dependent` warning or `cpu-tier` note where tiers differ (irpool.cpu.judge); None where it compiles.
    `channels`: the input's C when known; `static`: every input dim is known; `consumers`: the layer types
    that take the data output (None: not known yet, judged as a Result takes it; see layout_dependent).
    `hint_f32`: compiled with INFERENCE_PRECISION_HINT=f32, as run computes (default: compile_model's default)."""
    return cpu.judge(lambda tier: _type_refusal_on(tier, pl, et, indices_used, channels, static, consumers,
                                                   hint_f32), et.name in _tier_types())


def _type_refusal_on(tier, pl, et, indices_used, channels, static, consumers, hint_f32=False):
    """type_refusal on one tier. Below the tiers where bf16 (f16) is native the plugin pools the layer as f32
    (schemas/openvino.json cpu_tiers "native"), so the f32 rules hold there, but for the pools it keeps in bf16
    and has no kernel for ("no_kernel_where_not_native")."""
    if not tier.native(et.name):
        rule = load("openvino")["cpu_tiers"]["no_kernel_where_not_native"]
        if et.name in rule["types"] and pl.op in rule["ops"] and not (indices_used or hint_f32) and cpu.applies(rule, tier):
            return "bad-precision", (f"OpenVINO's CPU plugin has no {et.name} kernel for {pl.op} on a CPU that does"
                                     f" not pool {et.name} natively: compile_model refuses it (\"Supported primitive"
                                     " descriptors list is empty\") unless INFERENCE_PRECISION_HINT is f32"
                                     + (" or its indices output is used" if getattr(pl, "outputs", 1) == 2 else ""))
        et = element_type("f32")
    op = load("openvino")["ops"][pl.op]
    dilated = any(d > 1 for d in pl.spec.dilations)
    for rule in op.get("cpu_dependent", ()):
        if et.name in rule["types"] and all({"one_channel": channels == 1, "dilated": dilated}[w] for w in rule["when"]):
            if indices_used and et.name in op.get("not_with_indices", ()):
                break                                   # refused everywhere all the same
            what = f"{pl.op} on {et.name}{_condition(rule['when'])}"
            return cpu.measured(rule, tier, f"OpenVINO's CPU plugin does not compile {what} ({rule['why']})",
                                f"OpenVINO's CPU plugin compiles {what} only where the CPU has a kernel for it"
                                f" ({rule['why']})")
    if indices_used and et.name in op.get("not_with_indices", ()):
        return "bad-precision", (f"OpenVINO's CPU plugin does not compile {pl.op} on {et.name} when its indices"
                                 f" output is used (its reference implementation has no {et.name})")
    layout = load("openvino")["type_layout"]
    if et.name in layout["types"]:
        if not static or channels == 1 or not _layout_refuses(et.name, channels, consumers, dilated, tier):
            return None
        took = ", ".join(sorted(set(consumers))) if consumers else "a Result (its consumers not known yet)"
        block = _block(et.name, dilated, tier)
        dense = f", or its channels filled the {block}-channel blocks" if block else ""
        what = (f"OpenVINO's CPU plugin does not compile {pl.op} on {et.name} with {channels} channels when {took}"
                f" takes its output: it pools in f32 in a blocked layout and has no reorder back to {et.name} (it"
                f" compiles if only {'/'.join(layout['f32_consumers'])} or pools take the output{dense})")
        return cpu.measured(layout, tier, what, what)
    if et.name not in op["input_types"]:
        return "bad-precision", (f"OpenVINO's CPU plugin does not compile {pl.op} on {et.name} on any CPU"
                                 f" (it takes {', '.join(op['input_types'])})")
    return None


def kept_in_type(pl: PoolLayer, et) -> bool:
    """Whether the tier judged for (one tier: irpool.cpu) keeps this pool in `et` with no kernel for it, so
    that compile_model refuses it unless its output reaches a layer the plugin runs as f32 (a MaxPool-8/14 or
    AdaptiveMaxPool whose indices are used: measured under ONEDNN_MAX_CPU_ISA=AVX2, schemas/openvino.json
    cpu_tiers "no_kernel_where_not_native"); check waits for the edges to say it."""
    tier = cpu.one()
    rule = load("openvino")["cpu_tiers"]["no_kernel_where_not_native"]
    return tier is not None and et is not None and not tier.native(et.name) and et.name in rule["types"] \
        and pl.op in rule["ops"] and cpu.applies(rule, tier)


@lru_cache(maxsize=None)
def _tier_types() -> frozenset:
    """The element types some rule judges differently by CPU tier (the rest are judged once)."""
    d = load("openvino")
    out = set(d["cpu_tiers"]["native"]) | set(d["type_layout"]["types"]) | set(d["empty_window"]["types"]) \
        | set(d["small_int_average"]["types"])
    for op in d["ops"].values():
        for rule in op.get("cpu_dependent", ()):
            out |= set(rule["types"])
    return frozenset(out)


def empty_window_refusal(pl: PoolLayer, et, dims, plans) -> tuple[str, str] | None:
    """(code, reason) where the CPU plugin has no kernel for an AvgPool on `et` with one channel and a window
    wholly outside the input, whatever exclude-pad says (schemas/openvino.json "empty_window", with the tiers
    measured)."""
    rule = load("openvino")["empty_window"]
    if et is None or et.name not in rule["types"] or pl.spec.reduction != "avg" \
            or dims is None or dims[1] != 1 or not any(_empty_window(p) for p in plans):
        return None
    what = f"{pl.op} on {et.name} with one channel where a window lies entirely outside the input"
    return cpu.judge(lambda tier: cpu.measured(
        rule, tier, f"OpenVINO's CPU plugin does not compile {what} ({rule['why']})",
        f"OpenVINO's CPU plugin compiles {what} only where the CPU has a kernel for it ({rule['why']})"))


def small_output_refusal(pl: PoolLayer, et, dims, plans) -> tuple[str, str] | None:
    """(code, reason) where the CPU plugin has no kernel, on some tiers, for an AvgPool on a type it pools as
    int32 with one channel and an output of fewer than 4 elements (schemas/openvino.json "small_int_average")."""
    rule = load("openvino")["small_int_average"]
    if et is None or et.name not in rule["types"] or pl.spec.reduction != "avg" or dims is None or dims[1] != 1 \
            or not isinstance(dims[0], int) or any(p.out is None for p in plans):
        return None
    n = dims[0]
    for p in plans:
        n *= p.out
    if n >= rule["fewer_than"]:
        return None
    what = f"{pl.op} on {et.name} with one channel and an output of {n} element{'s' if n != 1 else ''}"
    return cpu.judge(lambda tier: cpu.measured(
        rule, tier, f"OpenVINO's CPU plugin does not compile {what} ({rule['why']})",
        f"OpenVINO's CPU plugin compiles {what} only where the CPU has a kernel for it ({rule['why']})"))


def _empty_window(p) -> bool:
    """Whether a window of the axis lies entirely in its padding (the first, or the last)."""
    if p.length is None or p.out is None or p.pad_begin is None:
        return False
    return p.pad_begin >= p.dilated_kernel or (p.out - 1) * p.stride - p.pad_begin >= p.length


def layout_dependent(et, dims, dilated: bool = False) -> bool:
    """Whether type_refusal's verdict on a pool of element type `et` on input `dims` depends on the layers that
    take its data output (nf4, u2, f4e2m1 with a static input of more than one channel; schemas/openvino.json
    "type_layout"): check keeps such a layer until its edges are read."""
    if et is None or dims is None or et.name not in load("openvino")["type_layout"]["types"]:
        return False
    return all(isinstance(d, int) for d in dims) and dims[1] != 1 and _layout_refuses(et.name, dims[1], None,
                                                                                      dilated)


def _block(name: str, dilated: bool, tier) -> int | None:
    """The channel block f32 is pooled in on `tier`, where the type reorders from it unpadded (schemas
    "dense_block": the block of the first tier named that `tier` includes, highest first)."""
    block = load("openvino")["type_layout"]["dense_block"].get(name)
    if not block:
        return None
    return next((b for t, b in block["dilated" if dilated else "plain"].items() if tier.has(t)), None)


def _layout_refuses(name: str, channels, consumers, dilated: bool = False, tier=None) -> bool:
    layout = load("openvino")["type_layout"]
    if tier is None:                              # on some tier
        return any(_layout_refuses(name, channels, consumers, dilated, t) for t in cpu.tiers())
    block = _block(name, dilated, tier)
    if block and isinstance(channels, int) and channels % block == 0:
        return False
    takes_f32 = set(layout["f32_consumers"]) | set(layout["pass_through"])
    if consumers is None:
        return True                              # not known: judged as a Result takes the output
    return not set(consumers) <= takes_f32       # (none at all: nothing is reordered)


def _condition(when) -> str:
    cond = " and ".join({"one_channel": "one channel", "dilated": "a dilation above 1"}[w] for w in when)
    return " with " + cond if cond else ""
