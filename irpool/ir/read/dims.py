"""Dims as IR writes them: a <dim> or Parameter shape entry is an int, or an interval (lo, hi) with hi None
when unbounded (-1, ?, a..b, a.., ..b); a shape is a list of them, or None when its rank is dynamic ("...",
or a port with no <dim>)."""
from __future__ import annotations

import re

from ...core.shape import interval_text
from ...core.spec import MAX_DIM

DYNAMIC = (0, None)
_INT64 = 1 << 63


_SIGNED = re.compile(r"-?[0-9]+")
_BLANKS = " \t\n\r\v\f"    # what C++ skips as space: an ASCII blank (not U+00A0, nor any other)
_UNDEFINED = "compile_model refuses it (\"Can't clone desc if new dims are undefined\")"


def _bound(t: str, past: int | None = 0) -> int | None:
    """A Parameter shape's integer as OpenVINO reads it (measured, 2026.4.1): a sign and digits, nothing else;
    one past an int64 is read as `past` (0 for a dim or a lower bound, unbounded for an upper bound)."""
    if not _SIGNED.fullmatch(t):
        raise ValueError(f"{t!r} is not an integer (read_model: \"Cannot parse dimension\")")
    v = int(t)
    if not -_INT64 <= v < _INT64:
        return past
    if v > MAX_DIM and v != _INT64 - 1:
        raise ValueError(f"{v} is too large (irpool reads dims up to {MAX_DIM})")
    return v


def parse_dim(text: str):
    """A Parameter shape's dim: an int >= 0, or (lo, hi) for OpenVINO's spellings of a dynamic dim, as
    read_model reads them (measured, 2026.4.1): "?" and -1 are dynamic, any other negative is 0, a negative
    lower bound is 0; ValueError where OpenVINO refuses it (an empty interval at compile time)."""
    t = (text or "").strip(_BLANKS)
    if not t:
        raise ValueError("empty")
    if t == "?":
        return DYNAMIC
    if ".." in t:
        lo_text, hi_text = (x.strip(_BLANKS) for x in t.split("..", 1))
        lo = _bound(lo_text) if lo_text else 0
        hi = _bound(hi_text, None) if hi_text else None
        if hi is not None and hi < 0:
            if lo >= 0:
                raise ValueError(f"the interval {t} is empty: {_UNDEFINED}")
            return 0                                   # ("-5..-3", "-1..-1": 0)
        lo = max(lo, 0)
        if hi is not None and hi < lo or lo == _INT64 - 1:
            raise ValueError(f"the interval {t} is empty: {_UNDEFINED}")
        return lo if lo == hi else (lo, hi)
    v = _bound(t)
    if v == _INT64 - 1:
        raise ValueError(f"{t}: {_UNDEFINED}")
    return DYNAMIC if v == -1 else max(v, 0)


def lenient_dim(text):
    """A port's <dim> as OpenVINO reads it (port_dim), one it refuses taken as fully dynamic (its own finding
    says why)."""
    try:
        return port_dim(text)[0]
    except ValueError:
        return DYNAMIC


_LEADING = re.compile(r"\s*([+-]?\d+)", re.ASCII)       # (re.ASCII: "٨" and U+00A0 are not C++'s digit and blank)
_PLAIN_DIM = re.compile(r"\s*(-1|\d+|\d+\.\.\d*)\s*", re.ASCII)


def _leading(t: str):
    """The integer at the start of `t`, as a C++ stream reads it (blanks, a sign, digits, the rest ignored);
    None where there is none or it does not fit an int64."""
    m = _LEADING.match(t)
    if m is None or not -_INT64 <= int(m.group(1)) < _INT64:
        return None
    return int(m.group(1))


def plain_int(t: str) -> bool:
    """Whether `t` is ASCII digits alone, few enough for an int64: what int(t) reads as OpenVINO reads it."""
    return len(t) < 19 and t.isdigit() and t.isascii()


def port_dim(text) -> tuple:
    """A port's <dim> as OpenVINO's reader reads it (measured, 2026.4.1): (the dim, whether it is written
    otherwise than OpenVINO writes dims). It takes the integer its text starts with ("8.9" and "8abc" are 8,
    "0x8" is 0) or an interval "a..b" whose `a` reads so ("1..?" is 1 and up); it refuses, with ValueError,
    a text that starts with no integer ("?", "..8", an empty <dim>), one below -1, or one past an int64."""
    t = text or ""
    if plain_int(t):
        return int(t), False                            # (the common case, in one step)
    lo_text, interval, hi_text = t.partition("..")
    lo = _leading(lo_text)
    if lo is None or lo < -1:
        raise ValueError("read_model refuses it (\"dimension (" + t + ") in node dim must be greater or equal to -1\")")
    odd = _PLAIN_DIM.fullmatch(t) is None
    if not interval:
        return (DYNAMIC if lo == -1 else lo), odd
    hi = _leading(hi_text)
    lo = max(lo, 0)
    if hi is None or hi < 0 or hi < lo:
        return (lo, None), odd or hi is not None
    return (lo if lo == hi else (lo, hi)), odd


def parse_shape(text: str) -> list | None:
    """A Parameter's shape attribute: a list of dims, [] for a scalar, None for a dynamic rank ("...")."""
    t = text.strip(_BLANKS).strip("[]").strip(_BLANKS)
    if t == "...":
        return None
    return [parse_dim(x) for x in t.split(",")] if t else []


def bounds(dim) -> tuple:
    return (dim, dim) if isinstance(dim, int) else dim


def compatible(a, b) -> bool:
    """Whether two dims can be the same length: an int equal to the other, or inside its interval."""
    (alo, ahi), (blo, bhi) = bounds(a), bounds(b)
    return (ahi is None or blo <= ahi) and (bhi is None or alo <= bhi)


def text(dim) -> str:
    return interval_text(bounds(dim)) if dim != DYNAMIC else "?"


def shape_text(dims) -> str:
    return "[...]" if dims is None else f"[{','.join(text(d) for d in dims)}]"
