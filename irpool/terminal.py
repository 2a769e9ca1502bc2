"""What the command line does on a terminal and nowhere else: colour (NO_COLOR and FORCE_COLOR honoured, as
no-color.org and force-color.org say; NO_COLOR wins when both are set) and a progress line on stderr."""
from __future__ import annotations

import os
import time

_COLOURS = {"error": "1;31", "warning": "1;33", "note": "1;36", "ok": "32", "fixed": "1;32", "bold": "1"}


def wants_colour(stream) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return _is_terminal(stream) and os.environ.get("TERM") != "dumb"


def _is_terminal(stream) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class Paint:
    """paint("error", text): the text in the colour of its kind, or as it is when colour is off."""

    def __init__(self, on: bool):
        self.on = on

    def __call__(self, kind: str, text: str) -> str:
        return f"\x1b[{_COLOURS[kind]}m{text}\x1b[0m" if self.on and kind in _COLOURS else text


class Progress:
    """`[k/N] file` on one stderr line, rewritten at most ten times a second, when stderr is a terminal and
    the walk is long (at least `LONG` files); `clear()` before anything else is printed to the terminal."""
    LONG = 100

    def __init__(self, total: int, stream):
        self.total, self.stream = total, stream
        self.on = total >= self.LONG and _is_terminal(stream) and os.environ.get("TERM") != "dumb"
        self.shown, self.last = False, 0.0

    def update(self, done: int, name: str) -> None:
        now = time.monotonic()
        if not self.on or (now - self.last < 0.1 and done < self.total):
            return
        self.last = now
        head = f"[{done}/{self.total}] "
        room = max(10, _columns() - 1 - len(head))
        self.stream.write("\r\x1b[K" + head + (name if len(name) <= room else "..." + name[3 - room:]))
        self.stream.flush()
        self.shown = True

    def clear(self) -> None:
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def _columns() -> int:
    try:
        return os.get_terminal_size(2).columns
    except OSError:
        return 80
