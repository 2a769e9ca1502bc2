"""Reading a caller's stream, for both front ends: a read that fails, or gives text where bytes were asked, is the
input's fault (an IRError naming the file), not an internal error."""
from __future__ import annotations

from .errors import IRError


def read_bytes(stream, n: int, file) -> bytes:
    """Up to `n` bytes of binary stream `stream`, which `file` names (None: it has no name)."""
    try:
        block = stream.read(n)
    except (OSError, ValueError) as e:
        raise IRError(f"cannot read it: {getattr(e, 'strerror', None) or e}", file=file) from None
    if not isinstance(block, (bytes, bytearray)):
        raise IRError(f"the stream gives {type(block).__name__}, not bytes: open it in binary mode (\"rb\")", file=file)
    return block
