"""The CPU plugin's instruction-set tiers (schemas/openvino.json "cpu_tiers"): which tier a verdict and a run
are for, and how a rule measured per tier becomes one finding.

The plugin decides a few things by what oneDNN's `mayiuse` answers: whether bf16 and f16 are pooled natively,
the channel block of its layouts, which kernels exist for a type. A tier is a oneDNN ISA with those it
includes. One thing ONEDNN_MAX_CPU_ISA does not cap: the default inference precision (bf16 where the CPU has
avx512_bf16, "bf16_default"), so a CPU is its capped tier and that (a profile: schemas "machines"). check,
explain and run judge for one CPU (`host` by default: this machine's flags, capped by ONEDNN_MAX_CPU_ISA as
oneDNN caps them; a tier, as a real CPU of that tier; a profile by name) or for every tier (`all`). The choice
is held in a ContextVar for the length of a call (`judging`), so the rules in ir/ops/type_refusals.py ask `judge` and
`one()` rather than take it through every caller; a Program keeps its `selected()` choice for its runs.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from functools import lru_cache

from .errors import IRError
from .opdefs import load

ALL = "all"
HOST = "host"


@dataclass(frozen=True)
class Tier:
    name: str                 # as --cpu takes it: avx2, avx512-bf16, amx, ...
    onednn: str               # as ONEDNN_MAX_CPU_ISA takes it: AVX2, AVX512_CORE_BF16, ...
    isas: frozenset           # this tier and every tier it includes (what mayiuse answers yes to)
    bf16_default: bool = False    # compile_model infers in bf16 by default (the CPU's avx512_bf16, not capped)
    profile: str = ""         # the CPU profile it is ("amd-epyc-zen4", "host"), "" for a tier named alone

    def has(self, name: str) -> bool:
        return name in self.isas

    def native(self, type_name: str) -> bool:
        """Whether the plugin pools `type_name` natively here (else it converts the layer to f32)."""
        where = _table()["native"].get(type_name)
        return where is None or any(t in self.isas for t in where)

    @property
    def bf16_flushed(self) -> bool:
        """Whether f32 results below bf16's smallest normal value are stored as zeros (avx512_bf16's conversion)."""
        return any(t in self.isas for t in _table()["bf16_flushed"]["tiers"])

    @property
    def bf16_emulated(self) -> bool:
        """Whether f32 results are rounded to bf16 by the plugin's emulation (bits 16 and 15), not to even."""
        return self.name in _table()["bf16_emulated_rounding"]


@lru_cache(maxsize=None)
def _table() -> dict:
    return load("openvino")["cpu_tiers"]


@lru_cache(maxsize=None)
def tiers() -> tuple:
    """Every tier, lowest first (oneDNN's order)."""
    raw = _table()["tiers"]

    def closure(name):
        out = {name}
        for inc in raw[name]["includes"]:
            out |= closure(inc)
        return out
    bf16 = _table()["bf16_default"]["tier"]
    return tuple(Tier(n, d["onednn"], frozenset(closure(n)), bf16 in closure(n)) for n, d in raw.items())


def named(name: str) -> Tier:
    """A tier (a real CPU of that tier) or a CPU profile of schemas/openvino.json "machines" by name or alias."""
    for t in tiers():
        if t.name == name:
            return t
    key = _profile_key(name)
    if key:
        return profile(profiles()[key]["flags"], key)
    raise IRError(f"--cpu {name}: not a CPU tier or profile; the tiers are {', '.join(t.name for t in tiers())};"
                  f" the CPUs measured {', '.join(profiles())}; or host, all")


def profile(flags, name: str = "") -> Tier | None:
    """The CPU whose /proc/cpuinfo flags are `flags`, with no limit (a record's CPU: tests/ir/test_cpu_records.py)."""
    got = _host(frozenset(flags), None)
    return got and replace(got, profile=name or got.name)


@lru_cache(maxsize=None)
def profiles() -> dict:
    """The CPUs measured (schemas/openvino.json "machines"): {name: {flags, vendor, family, model, aliases, ...}}."""
    return {k: v for k, v in load("openvino")["machines"].items() if not k.startswith("_")}


def _profile_key(name: str) -> str | None:
    return next((k for k, v in profiles().items() if name == k or name in v.get("aliases", ())), None)


def seen_on(names) -> str:
    """The CPUs measured, named with their tier: 'amd-epyc-zen4 (avx512-bf16), ...'."""
    return ", ".join(f"{k} ({named(k).name})" for k in names)


@lru_cache(maxsize=None)
def _flags() -> frozenset | None:
    """This machine's CPU flags (/proc/cpuinfo), or None where they cannot be read (not Linux on x86)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == "flags":
                    return frozenset(value.split())
    except OSError:
        pass
    return None


def _cap() -> str | None:
    """The tier ONEDNN_MAX_CPU_ISA (else DNNL_MAX_CPU_ISA) limits oneDNN to; None: no limit (unset, or a
    name oneDNN does not take, which it ignores; measured on OpenVINO 2026.4.1)."""
    value = os.environ.get("ONEDNN_MAX_CPU_ISA")
    if value is None:
        value = os.environ.get("DNNL_MAX_CPU_ISA")
    if value is None:
        return None
    return next((t.name for t in tiers() if t.onednn == value.upper()), None)


def host() -> Tier | None:
    """This machine's tier as the plugin sees it: the highest whose flags it has (with those of every tier
    included), within the ONEDNN_MAX_CPU_ISA limit. None where the flags cannot be read."""
    return _host(_flags(), _cap())


@lru_cache(maxsize=64)
def _host(flags, cap) -> Tier | None:
    """The capped tier, with the uncapped CPU's bf16_default (config.cpp Config::readProperties: not capped)."""
    if flags is None:
        return None
    raw = _table()["tiers"]
    allowed = named(cap).isas if cap else None
    best = own = None
    for t in tiers():
        if all(f in flags for inc in t.isas for f in raw[inc]["flags"]):
            own = t
            if allowed is None or t.name in allowed:
                best = t
    return best and replace(best, bf16_default=own.bf16_default)


def describe(tier: Tier | None) -> str:
    if tier is None:
        return "every CPU tier (this machine's could not be read)"
    if selected() == HOST:
        var = "ONEDNN_MAX_CPU_ISA" if "ONEDNN_MAX_CPU_ISA" in os.environ else "DNNL_MAX_CPU_ISA"
        return f"{tier.name} (this machine{f', {var}={os.environ[var]}' if _cap() else ''})"
    return f"{tier.name} ({tier.profile})" if tier.profile else tier.name


# -- the CPU a call judges for: (selection, its one tier or None until asked) -----------------------------
_judged: ContextVar = ContextVar("irpool_cpu", default=(HOST, None))


def label(name: str | None) -> str:
    """What a --cpu choice judges for, in words: the tiers and CPUs `all` judges, a tier's or profile's name, or
    the host's tier."""
    name = choose(name)
    if name == ALL:
        return (f"all: the CPU tiers {_names([t.name for t in tiers()])}, among them the CPUs measured"
                f" {seen_on(profiles())}")
    if name != HOST:
        return describe_named(name) if isinstance(name, str) else f"{name.name} ({name.profile})"
    tier = host()
    return f"{tier.name} (host)" if tier else "all (host unknown)"


def describe_named(name: str) -> str:
    t = named(name)
    return f"{t.profile} ({t.name})" if t.profile else t.name


def choose(name) -> str | Tier:
    """A --cpu value checked: host, all, a tier's name or a CPU profile's (an alias becomes its name); a Tier
    (a CPU from its flags: profile()) is taken as it is."""
    if isinstance(name, Tier):
        return name
    if name is not None and not isinstance(name, str):
        raise IRError(f"cpu takes a tier's name (host, all, avx2, ...), got a {type(name).__name__}")
    name = (name or HOST).strip().lower()
    if name not in (HOST, ALL):
        return named(name).profile or name
    return name


@contextmanager
def judging(name: str | None):
    """Judge (and run) for `name` (host, all, a tier or a CPU profile) within the block."""
    choice = choose(name)
    token = _judged.set((choice, None))
    _judged.set((choice, one()))
    try:
        yield
    finally:
        _judged.reset(token)


def selected() -> str:
    return _judged.get()[0]


def one() -> Tier | None:
    """The one tier judged for; None with `all` (or a host whose flags cannot be read)."""
    choice, tier = _judged.get()
    if tier is not None or isinstance(choice, Tier):
        return tier or choice
    return None if choice == ALL else host() if choice == HOST else named(choice)


def uncapped() -> Tier | None:
    """The CPU judged for as code that reads the CPU itself sees it (not oneDNN's mayiuse): the host's own tier,
    past ONEDNN_MAX_CPU_ISA; a chosen CPU as chosen; the host for `all`."""
    choice = selected()
    if choice in (HOST, ALL):
        return _host(_flags(), None)
    return one()


def reduce_width() -> dict:
    """The global Reduce's vector width rule (cpu_tiers "reduce_width"): which OpenVINO versions the limit caps."""
    return _table()["reduce_width"]


def for_run() -> Tier | None:
    """The tier whose rounding run reproduces: the chosen one; host (the default) for `all`."""
    return one() or host()


def judge(on_tier, sensitive: bool = True):
    """One verdict from `on_tier(tier) -> (code, reason) | None`, for the tier or tiers selected.

    One tier: its verdict; where other tiers differ, the reason says so, and where it passes here but some
    tier refuses it, a `cpu-tier` note names them. `all`: an error where every tier refuses, a `cpu-dependent`
    warning naming the refusing tiers where some do. `sensitive` False: the verdict is the same on every tier
    (no need to ask each)."""
    judged = one()
    if not sensitive:
        return on_tier(judged or tiers()[-1])
    verdicts = {t.name: on_tier(t) for t in tiers()}
    refusing = [n for n, v in verdicts.items() if v and v[0] != "cpu-dependent"]
    if judged is not None:
        mine = on_tier(judged)          # (the judged CPU itself: its bf16_default may differ from its tier's)
        if mine is None:
            if not refusing:
                return None
            return "cpu-tier", (f"compiles on CPU tier {describe(judged)}, but {_first(verdicts, refusing)[1]}; it"
                                f" is refused on {_names(refusing)} (--cpu all judges every tier)")
        others = [n for n, v in verdicts.items() if not v]
        if mine[0] == "cpu-dependent" or not others:
            return mine
        return mine[0], f"{mine[1]}, on CPU tier {describe(judged)}; it compiles on {_names(others)}"
    if len(refusing) == len(verdicts):
        return _first(verdicts, refusing)
    if not refusing:
        return next((v for v in verdicts.values() if v), None)
    compiling = [n for n, v in verdicts.items() if not v]
    unknown = [n for n, v in verdicts.items() if v and v[0] == "cpu-dependent"]
    return "cpu-dependent", (f"{_first(verdicts, refusing)[1]}: refused on CPU tiers {_names(refusing)};"
                             f" compiles on {_names(compiling) if compiling else 'none measured'}"
                             + (f"; not measured on {_names(unknown)}" if unknown else ""))


def _first(verdicts, names):
    return verdicts[names[0]]


def _names(names) -> str:
    """Consecutive tiers of oneDNN's order as ranges: 'sse41 to avx2-vnni, amx'."""
    order = [t.name for t in tiers()]
    idx = sorted(order.index(n) for n in names)
    runs, start = [], None
    for i, k in enumerate(idx):
        if start is None:
            start = k
        if i + 1 == len(idx) or idx[i + 1] != k + 1:
            runs.append(order[start] if start == k else f"{order[start]} to {order[k]}")
            start = None
    return ", ".join(runs)


def measured(rule: dict, tier: Tier, refused: str, depends: str):
    """A rule measured per tier (refused_on, compiled_on): its verdict on `tier`. A tier measured either way
    gets that; a tier not measured a cpu-dependent warning where some tier compiles the case, else an error
    naming the tiers tried (docs/design.md: the verdict is OpenVINO's). A rule that needs the bf16 default
    inference precision compiles on a CPU without it, whatever its tier."""
    if tier.name in rule["compiled_on"] or not applies(rule, tier):
        return None
    if not rule["compiled_on"]:
        return "bad-precision", f"{refused}, on every CPU tier measured ({_names(rule['refused_on'])})"
    if tier.name in rule["refused_on"]:
        return "bad-precision", refused
    return "cpu-dependent", (f"{depends}: not measured on {tier.name}; refused on {_names(rule['refused_on'])},"
                             f" compiled on {_names(rule['compiled_on'])}")


def applies(rule: dict, tier: Tier) -> bool:
    """Whether a rule holds on `tier` at all: one marked "needs": "bf16_default" only where compile_model infers in
    bf16 by default (cpu_tiers "bf16_default": config.cpp Config::readProperties, not capped by the limit)."""
    return rule.get("needs") != "bf16_default" or tier.bf16_default


def round_bf16(y):
    """float32 -> bfloat16 bits as the plugin's emulation rounds them (bf16_emulated_rounding): add bit 16
    shifted down to bit 15, then truncate; integer arithmetic that wraps as the JIT code's does."""
    import numpy as np
    u = np.ascontiguousarray(y, dtype=np.float32).view(np.uint32)
    return ((u + ((u & np.uint32(0x10000)) >> np.uint32(1))) >> np.uint32(16)).astype(np.uint16)


def rules_text() -> str:
    """Each CPU-dependent rule (cpu_tiers "rules"): the source line that decides it, whether ONEDNN_MAX_CPU_ISA caps
    it, and the CPUs it was seen on; for `irpool codes cpu-dependent` and the docs."""
    out = []
    for r in _table()["rules"]:
        capped = {True: "capped by ONEDNN_MAX_CPU_ISA", False: "NOT capped by ONEDNN_MAX_CPU_ISA"}.get(
            r["capped"], f"capped {r['capped']}")
        out.append(f"- {r['rule']} (schemas/openvino.json {r['where']}): {r['source']}; {capped}; seen on"
                   f" {seen_on(r['seen_on'])}")
    return "\n".join(out)
