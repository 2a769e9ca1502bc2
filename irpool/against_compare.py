"""Two arrays compared bit for bit, as `irpool run --against` reports them: pure numpy, no runtime.

Equal means equal bits, the sign of zero included; a NaN equals any NaN (payloads aside, as tests/helpers/bits.py
holds them). Of the elements that differ, those where one side alone is NaN and those that are zeros of other
signs are counted apart; the rest are measured in ulps (the distance between the two values' places in the
type's ordered bit patterns, -0.0 and +0.0 one place), or, for integers such as indices, by their difference.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FIRST = 5           # how many differing positions a comparison keeps


@dataclass
class Comparison:
    size: int                     # elements compared
    differ: int = 0               # elements whose bits differ (NaN against NaN never does)
    nan: int = 0                  # ... of them, one side NaN and the other not
    zero_sign: int = 0            # ... of them, -0.0 against +0.0
    largest: int = 0              # the largest difference of the others: in ulps (floats), in units (integers)
    floating: bool = True
    positions: list = field(default_factory=list)   # [(index tuple, ours, theirs)] of the first FIRST differing
    problem: str | None = None    # the arrays cannot be compared element by element (shape or type differs)

    @property
    def equal(self) -> bool:
        return self.problem is None and self.differ == 0

    @property
    def kinds(self) -> set:
        """How the arrays differ: "shape", "type", "nan", "zero_sign", "ulps" (floats) or "values" (integers)."""
        if self.problem is not None:
            return {self.problem.split(":")[0]}
        out = {k for k, n in (("nan", self.nan), ("zero_sign", self.zero_sign)) if n}
        if self.differ - self.nan - self.zero_sign:
            out.add("ulps" if self.floating else "values")
        return out


def _float_bits(dtype: np.dtype) -> int | None:
    """How many bits a float type's values use (4 for float4_e2m1fn, held in a byte); None: not a float."""
    if dtype.kind == "f":
        return np.finfo(dtype).bits
    if dtype.kind != "V" and "float" not in dtype.name:
        return None
    try:
        import ml_dtypes
        return ml_dtypes.finfo(dtype).bits
    except (ImportError, ValueError, TypeError):
        return dtype.itemsize * 8


def _ordered(a: np.ndarray, bits: int, signed: bool) -> np.ndarray:
    """Each value's place among the type's values, as int64: -0.0 and +0.0 both 0, the next up 1, down -1."""
    raw = a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.uint64)
    if not signed:
        return raw.astype(np.int64)
    sign = np.uint64(1) << np.uint64(bits - 1)
    magnitude = (raw & (sign - np.uint64(1))).astype(np.int64)
    return np.where(raw & sign, -magnitude, magnitude)


def _distance(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """|x - y| of int64 arrays, exact as uint64 (float64's places span more than int64 holds)."""
    d = x.astype(np.uint64) - y.astype(np.uint64)
    return np.where(x >= y, d, np.uint64(0) - d)


def compare(ours, theirs, first: int = FIRST) -> Comparison:
    """irpool's array `ours` against the runtime's `theirs`."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    if ours.shape != theirs.shape:
        return Comparison(ours.size, problem=f"shape: irpool gives {list(ours.shape)}, the runtime"
                                            f" {list(theirs.shape)}")
    if ours.dtype != theirs.dtype:
        return Comparison(ours.size, problem=f"type: irpool gives {ours.dtype}, the runtime {theirs.dtype}")
    bits = _float_bits(ours.dtype)
    unsigned = np.dtype(f"u{ours.dtype.itemsize}") if bits else None
    if bits is None:
        differ = ours != theirs
        nan = zero = np.zeros(ours.shape, bool)
        rest = differ
    else:
        wide_o, wide_t = ours.astype(np.float64), theirs.astype(np.float64)
        nan_o, nan_t = np.isnan(wide_o), np.isnan(wide_t)
        differ = (ours.view(unsigned) != theirs.view(unsigned)) & ~(nan_o & nan_t)
        nan = differ & (nan_o != nan_t)
        zero = differ & (wide_o == 0) & (wide_t == 0)
        rest = differ & ~nan & ~zero
    c = Comparison(int(ours.size), int(differ.sum()), int(nan.sum()), int(zero.sum()), floating=bits is not None)
    if rest.any():
        if bits is None:
            o, t = ours[rest].astype(np.int64), theirs[rest].astype(np.int64)
        else:
            signed = not ours.dtype.name.endswith("fnu")        # (float8_e8m0fnu has no sign bit)
            o, t = _ordered(ours[rest], bits, signed), _ordered(theirs[rest], bits, signed)
        c.largest = int(_distance(o, t).max())
    for flat in np.flatnonzero(differ)[:first]:
        at = tuple(int(i) for i in np.unravel_index(flat, ours.shape))
        c.positions.append((at, ours[at], theirs[at]))
    return c


def shown(value) -> str:
    """A value as the report shows it: its shortest decimal, and a float's bits in hex."""
    v = np.asarray(value)[()]
    if _float_bits(v.dtype) is None:
        return str(v.item())
    raw = int(v.view(np.dtype(f"u{v.dtype.itemsize}")).item())
    return f"{str(v)} (0x{raw:0{2 * v.dtype.itemsize}x})"
