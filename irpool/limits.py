"""The size guard every reader shares: a larger input is refused before a byte of it is parsed (--max-bytes)."""
MAX_BYTES = 1 << 30
