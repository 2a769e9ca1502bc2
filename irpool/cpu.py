"""The CPU plugin's instruction-set tiers (schemas/openvino.json "cpu_tiers"): which tier a verdict and a run
are for, and how a rule measured per tier becomes one finding.

The plugin decides a few things by what oneDNN's `mayiuse` answers: whether bf16 and f16 are pooled natively,
the channel block of its layouts, which kernels exist for a type. A tier is a oneDNN ISA with those it
includes. check, explain and run judge for one tier (`host` by default: this machine's flags, capped by
ONEDNN_MAX_CPU_ISA as oneDNN caps them) or for every tier (`all`). The choice is held here for the length of
a call (`judging`), so the rules in ir/layers.py ask `judge` and `one()` rather than take it through every
caller; a Program keeps its `selected()` choice for its runs.
"""
from __future__ import annotations

import os
from contextlib import contextmanager
from dataclasses import dataclass
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

    def has(self, name: str) -> bool:
        return name in self.isas

    def native(self, type_name: str) -> bool:
        """Whether the plugin pools `type_name` natively here (else it converts the layer to f32)."""
        where = _table()["native"].get(type_name)
        return where is None or any(t in self.isas for t in where)

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
    return tuple(Tier(n, d["onednn"], frozenset(closure(n))) for n, d in raw.items())


def named(name: str) -> Tier:
    for t in tiers():
        if t.name == name:
            return t
    raise IRError(f"--cpu {name}: not a CPU tier; the tiers are {', '.join(t.name for t in tiers())}, or host, all")


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
    if flags is None:
        return None
    raw = _table()["tiers"]
    allowed = named(cap).isas if cap else None
    best = None
    for t in tiers():
        if all(f in flags for inc in t.isas for f in raw[inc]["flags"]) and (allowed is None or t.name in allowed):
            best = t
    return best


def describe(tier: Tier | None) -> str:
    if tier is None:
        return "every CPU tier (this machine's could not be read)"
    if _selection == HOST:
        var = "ONEDNN_MAX_CPU_ISA" if "ONEDNN_MAX_CPU_ISA" in os.environ else "DNNL_MAX_CPU_ISA"
        return f"{tier.name} (this machine{f', {var}={os.environ[var]}' if _cap() else ''})"
    return tier.name


# -- the tier a call judges for -------------------------------------------------------------------------
_selection: str = HOST


def label(name: str | None) -> str:
    """What a --cpu choice judges for, in words: "all", a tier's name, or the host's tier."""
    name = choose(name)
    if name != HOST:
        return name
    tier = host()
    return f"{tier.name} (host)" if tier else "all (host unknown)"


def choose(name: str | None) -> str:
    """A --cpu value checked: host, all, or a tier's name."""
    name = (name or HOST).strip().lower()
    if name not in (HOST, ALL):
        named(name)
    return name


_resolved: tuple = ()            # (selection, its one tier) while judging: one() asks the machine once a call


@contextmanager
def judging(name: str | None):
    """Judge (and run) for tier `name` (host, all or a tier) within the block."""
    global _selection, _resolved
    before = _selection, _resolved
    _selection, _resolved = choose(name), ()
    _resolved = (_selection, one())
    try:
        yield
    finally:
        _selection, _resolved = before


def selected() -> str:
    return _selection


def one() -> Tier | None:
    """The one tier judged for; None with `all` (or a host whose flags cannot be read)."""
    if _resolved and _resolved[0] == _selection:
        return _resolved[1]
    return None if _selection == ALL else host() if _selection == HOST else named(_selection)


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
        mine = verdicts[judged.name]
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
    naming the tiers tried (docs/design.md: the verdict is OpenVINO's)."""
    if tier.name in rule["compiled_on"]:
        return None
    if not rule["compiled_on"]:
        return "bad-precision", f"{refused}, on every CPU tier measured ({_names(rule['refused_on'])})"
    if tier.name in rule["refused_on"]:
        return "bad-precision", refused
    return "cpu-dependent", (f"{depends}: not measured on {tier.name}; refused on {_names(rule['refused_on'])},"
                             f" compiled on {_names(rule['compiled_on'])}")


def round_bf16(y):
    """float32 -> bfloat16 bits as the plugin's emulation rounds them (bf16_emulated_rounding): add bit 16
    shifted down to bit 15, then truncate; integer arithmetic that wraps as the JIT code's does."""
    import numpy as np
    u = np.ascontiguousarray(y, dtype=np.float32).view(np.uint32)
    return ((u + ((u & np.uint32(0x10000)) >> np.uint32(1))) >> np.uint32(16)).astype(np.uint16)
