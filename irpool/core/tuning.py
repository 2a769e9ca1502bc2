"""How the pooling core picks its paths and sizes its chunks: one Tuning, read once per pool() call and kept by
its geometry and run (so the threads a call runs on see the same). Tests and benchmarks take a path with
`using(...)`, a context variable, never by patching the core's globals. The measurements behind each default
are in docs/speed.md ("The core's tuning")."""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Tuning:
    chunk_bytes: int = 1 << 20          # phase buffer per chunk: about half an L2
    thread_chunk_bytes: int = 1 << 20   # chunk size on threads
    parallel_bytes: int = 4 << 20       # an input under this stays on the calling thread
    word_copy_bytes: int = 32 << 10     # word-wide copies pay off on chunks this large
    direct_bytes: int = 256 << 10       # below this the direct path's Python costs more than it saves
    direct: bool | None = None          # None: direct.py where geometry.use_direct says it pays; True: wherever
    #                                     it takes the spec (with direct_bytes=0: every input); False: never
    pre_reduce: bool = True             # the last axis reduced first where its windows overlap (geometry.py)
    ordered_ties: bool = True           # a float max by np.maximum in the tap order that keeps the first tied zero
    #                                     (ties.py); False runs the zero-sign repair (zero_signs.py) instead
    gather_below: int = 64              # zero signs: windows looked up at their positions below 1/gather_below open
    codes_above: int = 4                # ... and every tap at once on codes above 1/codes_above open


_CURRENT = contextvars.ContextVar("irpool_core_tuning", default=Tuning())


def current() -> Tuning:
    return _CURRENT.get()


@contextlib.contextmanager
def using(**changes):
    """The core with these fields changed, for the calls made inside (tests: `using(direct=True, direct_bytes=0)`)."""
    token = _CURRENT.set(replace(_CURRENT.get(), **changes))
    try:
        yield
    finally:
        _CURRENT.reset(token)
