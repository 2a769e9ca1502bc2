"""Which operand numpy's float maximum returns of a tie of -0.0 and +0.0, probed once per process and type.

np.maximum(a, b) of -0.0 and +0.0 returns one of them, and which one is not numpy's contract: its float32 and
float64 loops use the CPU's max instruction (x86's maxps and maxss return the second operand; Arm's FMAX orders
+0.0 above -0.0), its float16 loop compares in C and keeps the first (numpy 2.4 on x86). np.fmax differs within
one call: its vector loop keeps the second operand and the elements it leaves to scalar code the first (numpy 2.4
on x86, float32: fmax(+0.0, -0.0) over 6 elements gives +0.0 at the first and -0.0 at the others; over 17, -0.0
but at the last).

Where one operand wins in every loop, a max that combines a window's taps in the right order keeps the first
zero tap of the window (the element the plugin's strictly-greater scan keeps) at no cost: the core then pools
with np.maximum (NaN wins there, which tells the chunks with NaN apart: those are pooled again with np.fmax and
the zero signs repaired). The probe runs every kind of loop the core calls: contiguous operands of each length
up to past four 64-byte vectors (the unrolled body, the single vectors, the scalar tail), strided operands and
output (numpy's strided vector loads), and the output written over one operand, each element's signs both ways round.
"""
from __future__ import annotations

import functools

import numpy as np

_LENGTHS = tuple(range(1, 70)) + (139, 257, 1031)
_STRIDES = ((1, 1, 1), (2, 2, 1), (1, 3, 1), (3, 1, 2), (5, 7, 3))


@functools.lru_cache(maxsize=None)
def keeps(dtype) -> str | None:
    """"first" or "second": the operand np.maximum returns of a tie of -0.0 and +0.0 of this float type, the same
    in every loop probed; None where loops differ or the type is not a float."""
    dtype = np.dtype(dtype)
    return rule(np.maximum, dtype) if dtype.kind == "f" else None


def rule(op, dtype) -> str | None:
    """Which operand the binary ufunc `op` (called as op(a, b, out=...)) returns of every tie of -0.0 and +0.0 of
    `dtype` in the probe: "first", "second", or None where it is not always the same one."""
    second = first = True
    for n in _LENGTHS:
        for sa, sb, so in _STRIDES:
            # either sign first, scrambled by a multiplicative hash (numpy.random would cost 6 MB to import)
            scrambled = (np.arange(n, dtype=np.uint32) * np.uint32(2654435761) + np.uint32(n * sa)) >> 31 == 1
            for negative in (scrambled, ~scrambled):
                a, b, out = (np.zeros(n * s, dtype)[::s] for s in (sa, sb, so))
                a[negative] = -0.0
                b[~negative] = -0.0
                inplace = a.copy()          # (the fold writes over its first operand)
                for got in (op(a, b, out=out), op(inplace, b, out=inplace)):
                    signs = np.signbit(got)
                    second &= bool(np.array_equal(signs, ~negative))
                    first &= bool(np.array_equal(signs, negative))
                if not (first or second):
                    return None
    return "second" if second else "first"


def first_wins(arrays: list, dtype) -> list:
    """A window's taps (in row-major order) in the order that makes a chain of np.maximum keep the earliest of
    tied zeros: the first call takes the first two, each later call the result and the next; so the last tap
    first where the second operand wins."""
    return arrays[::-1] if keeps(dtype) == "second" else arrays
