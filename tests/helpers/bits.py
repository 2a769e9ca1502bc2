"""Equal means equal bits: the sign of zero too (NaN payloads aside: a NaN equals any NaN)."""
from __future__ import annotations

import numpy as np


def _float_like(a: np.ndarray) -> bool:
    return a.dtype.kind == "f" or a.dtype.kind == "V" or "float" in a.dtype.name


def assert_same_bits(got, want, what="") -> None:
    """Same shape, dtype and bits, element by element; NaN where the other has NaN, whatever its payload."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, (what, got.shape, want.shape, got.dtype, want.dtype)
    if not _float_like(got):
        np.testing.assert_array_equal(got, want, err_msg=str(what))
        return
    unsigned = np.dtype(f"u{got.dtype.itemsize}")
    g, w = got.view(unsigned), want.view(unsigned)
    g_nan, w_nan = np.isnan(got.astype(np.float64)), np.isnan(want.astype(np.float64))
    differ = (g != w) & ~(g_nan & w_nan)
    if differ.any():
        at = np.argwhere(differ)[:5]
        shown = [(tuple(int(i) for i in p), got[tuple(p)].item(), want[tuple(p)].item()) for p in at]
        raise AssertionError(f"{int(differ.sum())} of {got.size} elements differ in their bits (position, got, want):"
                             f" {shown}; {what}")

