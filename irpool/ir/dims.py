"""Dims as IR writes them: a <dim> or Parameter shape entry is an int, or an interval (lo, hi) with hi None
when unbounded (-1, ?, a..b, a.., ..b); a shape is a list of them, or None when its rank is dynamic ("...",
or a port with no <dim>)."""
from __future__ import annotations

from ..core.shape import interval_text
from ..core.spec import MAX_DIM

DYNAMIC = (0, None)


def _bound(t: str) -> int:
    if not t.isdigit():
        raise ValueError(f"{t!r} is not an integer >= 0")
    v = int(t)
    if v > MAX_DIM:
        raise ValueError(f"{v} is too large (irpool reads dims up to {MAX_DIM})")
    return v


def parse_dim(text: str):
    """An int >= 0, or (lo, hi) for OpenVINO's spellings of a dynamic dim; ValueError if it is neither."""
    t = (text or "").strip()
    if not t:
        raise ValueError("empty")
    if t in ("?", "-1"):
        return DYNAMIC
    if ".." in t:
        lo, hi = (x.strip() for x in t.split("..", 1))
        lo, hi = _bound(lo) if lo else 0, _bound(hi) if hi else None
        if hi is not None and hi < lo:
            raise ValueError(f"the interval {t} is empty")
        return lo if lo == hi else (lo, hi)
    return _bound(t)


def lenient_dim(text):
    """parse_dim, with an unreadable dim taken as fully dynamic (its own finding says why)."""
    try:
        return parse_dim(text)
    except ValueError:
        return DYNAMIC


def parse_shape(text: str) -> list | None:
    """A Parameter's shape attribute: a list of dims, [] for a scalar, None for a dynamic rank ("...")."""
    t = text.strip().strip("[]").strip()
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
