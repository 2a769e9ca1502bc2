"""The size guards every reader and run share: a larger input is refused before a byte of it is parsed
(--max-bytes); an output larger than the memory this machine has free is refused before it is allocated (a pads_end
of 2^31 - 1 on a 1x1 input asks for 2^62 elements: numpy's error, or the kernel's OOM killer, otherwise)."""
from __future__ import annotations

import math

from .errors import IRError

MAX_BYTES = 1 << 30
_ASK_PAST = 1 << 28     # outputs and buffers of fewer bytes are not weighed against the memory free (no read of
#                         /proc/meminfo in a net of a million small pools)


def bytes_limit(max_bytes) -> int:
    """The Python API's `max_bytes`, a whole number of bytes; IRError for anything else (crash hunt 3: None and "5"
    ended in a TypeError)."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 0:
        raise IRError(f"max_bytes takes a whole number of bytes, 0 or more, got {max_bytes!r}")
    return max_bytes


def available_memory() -> int | None:
    """The bytes this machine can give a process now (Linux's MemAvailable; None where it is not known)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def output_fits(shape, bytes_per_element: int, work: int = 0) -> None:
    """IRError where an output of `shape` (`bytes_per_element` for all its outputs together), with `work` bytes of
    buffers besides (a padded copy of the input), would not fit in the memory this machine has free."""
    size = math.prod(int(d) for d in shape) * bytes_per_element + work
    if size <= _ASK_PAST:
        return
    free = available_memory()
    if free is not None and size > free:
        raise IRError(f"the output {list(shape)} and the buffers that make it (a padded copy of the input) would take"
                      f" {size / 2 ** 30:.3g} GiB, more than the {free / 2 ** 30:.3g} GiB of memory this machine has"
                      " free")
