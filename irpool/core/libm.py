"""The C library's powf, for the few Lp roots whose rounding to float32 is the library's own call.

onnxruntime's LpPool takes powf(sum, 1.0f / p) (pool_base.h, LpPool::Finalize). glibc's powf is within 0.82 ulp,
not correctly rounded: it differed from the double-precision root rounded once in 125 of 200,000 random sums
(p = 3), each within 0.0015 ulp of the midpoint of two float32 values (measured, this machine's glibc). So a root
is computed in double precision and rounded, and only those within _NEAR of a midpoint are asked of powf itself,
through ctypes: the same function onnxruntime calls, on any CPU (glibc picks its FMA variant or not by the CPU)."""
from __future__ import annotations

import ctypes
import ctypes.util

import numpy as np

_NEAR = 1 / 64      # ulp: a root this near a midpoint of two float32 values is taken from powf
_POWF = []          # the C library's powf, once loaded (None where there is none)


def _powf():
    if not _POWF:
        fn = None
        for name in ("libm.so.6", None):     # (None: ask find_library, which may run ldconfig: only if needed)
            try:
                fn = ctypes.CDLL(name or ctypes.util.find_library("m")).powf
            except (OSError, AttributeError, TypeError):     # (TypeError: find_library found none)
                continue
            if fn is not None:
                fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float, ctypes.c_float]
                break
        _POWF.append(fn)
    return _POWF[0]


def rooted(total: np.ndarray, inverse: np.float32, out: np.ndarray) -> None:
    """powf(total, inverse) into `out` for a float32 `total`, as the C library rounds it (correctly rounded where it
    has none); a block at a time, so that its double-precision copies stay small."""
    flat_t, flat_o = total.reshape(-1), out.reshape(-1)
    for i in range(0, flat_t.size, _BLOCK):
        flat_o[i:i + _BLOCK] = _rooted(flat_t[i:i + _BLOCK], inverse)


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


_BLOCK = 1 << 14        # sums rooted at a time
