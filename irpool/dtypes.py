"""Element types numpy lacks (bfloat16, the float8 and float4 types, int4, uint4), through the optional
`ml_dtypes` package (the `ml-dtypes` extra).

The core stays numpy-only: a front end hands it the input widened to a numpy type that holds every value
exactly (float32 for the narrow floats, int8/uint8 for the 4-bit integers), and narrows what comes back
with ml_dtypes' own cast (round to nearest even), as the runtimes compute these types.
"""
from __future__ import annotations

import numpy as np

from .errors import IRError

EXTRA = "ml-dtypes"
# ml_dtypes name -> the numpy type it is computed in
WIDE = {"bfloat16": "float32", "float8_e4m3fn": "float32", "float8_e5m2": "float32",
        "float8_e4m3fnuz": "float32", "float8_e5m2fnuz": "float32", "float8_e8m0fnu": "float32",
        "float4_e2m1fn": "float32", "int4": "int8", "uint4": "uint8"}


def ml_dtype(name: str) -> np.dtype:
    """The numpy dtype of an ml_dtypes type; one IRError naming the extra when ml_dtypes is missing."""
    try:
        import ml_dtypes
    except ImportError:
        raise IRError(f"element type {name} needs the optional extra {EXTRA} (the ml_dtypes package):"
                      f" pip install 'irpool[{EXTRA}]' (from a checkout of irpool: pip install '.[{EXTRA}]')",
                      code="unsupported") from None
    return np.dtype(getattr(ml_dtypes, name))


def dtype_named(name: str) -> np.dtype:
    """A numpy dtype by name, numpy's own or one of ml_dtypes'."""
    return ml_dtype(name) if name in WIDE else np.dtype(name)


def widen(x: np.ndarray) -> np.ndarray:
    """`x` as the core computes it: unchanged for numpy's own types, widened for ml_dtypes' ones."""
    wide = WIDE.get(x.dtype.name)
    return x if wide is None else x.astype(wide)


def narrow(y: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A result computed from `widen`ed input, back in the input's type (nearest even)."""
    return y if y.dtype == dtype else y.astype(dtype)
