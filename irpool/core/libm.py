"""The C library's powf, for the few Lp roots whose rounding to float32 is the library's own call.

onnxruntime's LpPool takes powf(sum, 1.0f / p) (pool_base.h, LpPool::Finalize). glibc's powf is within 0.82 ulp,
not correctly rounded: it differed from the double-precision root rounded once in 125 of 200,000 random sums
(p = 3), each within 0.0015 ulp of the midpoint of two float32 values (measured, this machine's glibc). So a root
is computed in double precision and rounded, and only those within _NEAR of a midpoint are asked of powf itself,
through ctypes: the same function onnxruntime calls, on any CPU (glibc picks its FMA variant or not by the CPU)."""
from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache

import numpy as np

_NEAR = 1 / 64      # ulp: a root this near a midpoint of two float32 values is taken from powf
_BLOCK = 1 << 14    # sums rooted at a time: its double-precision copies stay small


@lru_cache(maxsize=None)
def _powf():
    """The C library's powf (None where there is none: the correctly rounded root stands)."""
    for name in ("libm.so.6", None):     # (None: ask find_library, which may run ldconfig: only if needed)
        try:
            fn = ctypes.CDLL(name or ctypes.util.find_library("m")).powf
        except (OSError, AttributeError, TypeError):     # (TypeError: find_library found none)
            continue
        fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
        return fn
    return None


def rooted(total: np.ndarray, inverse: np.float32) -> np.ndarray:
    """powf(total, inverse) of a float32 array, as the C library rounds it, a block at a time."""
    flat, out = total.reshape(-1), np.empty(total.size, np.float32)
    for i in range(0, flat.size, _BLOCK):
        out[i:i + _BLOCK] = _rooted(flat[i:i + _BLOCK], inverse)
    return out.reshape(total.shape)


def _rooted(t: np.ndarray, inverse: np.float32) -> np.ndarray:
    z = np.power(t.astype(np.float64), float(inverse))
    r = z.astype(np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        lo = r.astype(np.float64)
        other = np.nextafter(r, np.where(z > lo, np.float32(np.inf), np.float32(-np.inf))).astype(np.float64)
        near = np.abs(z - (lo + other) / 2) < _NEAR * np.abs(other - lo)
    near &= np.isfinite(z) & np.isfinite(other)
    powf = _powf()
    if powf is not None and near.any():
        for i in np.flatnonzero(near):
            r[i] = powf(float(t[i]), float(inverse))
    return r
