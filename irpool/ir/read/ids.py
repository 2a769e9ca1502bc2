"""Ids as read_model reads them: a layer's id, a port's id and an edge's four ends are numbers (OpenVINO's
get_uint64_attr: std::stoll in base 10, the whole text, not negative), so "03", "+3" and " 3" name layer 3, and
"3 ", "-3", "٣" (a digit, but not an ASCII one) or 2^63 make it refuse the file (measured, 2026.4.1:
tests/ir/test_ids.py). Every id irpool keeps is the number's plain text, so what OpenVINO joins, irpool joins."""
from __future__ import annotations

import re

_STOLL = re.compile(r"[ \t\n\r\v\f]*([+-]?)([0-9]+)")     # what std::stoll reads, when it reads all of it
_LIMIT = 1 << 63                                          # stoll's: a bigger number is out of its range
PORTS = frozenset(str(i) for i in range(4096))            # the port ids a port needs no more look at


def plain(text) -> bool:
    """Whether `text` is a number written as OpenVINO writes ids (no sign, space or leading zero): the common case,
    which needs no reading."""
    return text.isdigit() and text.isascii() and (len(text) == 1 or text[0] != "0") and len(text) < 19


def plain_ends(ends) -> bool:
    """Whether every end of a batch of edges ([from-layers], [from-ports], [to-layers], [to-ports]) is written
    plainly, but for the length of a layer's id (one past 2^63 names a layer refused for it, or none): the common
    case, judged in a few calls that each look at the whole batch (some 40 µs for 1,000 edges)."""
    if not set(ends[1]).union(ends[3]) <= PORTS:
        return False
    layers = "\0" + "\0".join(ends[0]) + "\0" + "\0".join(ends[2]) + "\0"
    if not layers.isascii():
        return False
    layers = layers.encode()        # (bytes: each look below a pass in C)
    return not layers.translate(None, b"0123456789\0") and b"\0\0" not in layers \
        and layers.count(b"\x000") == layers.count(b"\x000\x00")           # (no id but 0 starts with 0)


def integer(text) -> int | None:
    """A signed number as read_model reads one (get_int64_attr: std::stoll, the whole text); None where it refuses
    it (or where there is none)."""
    m = _STOLL.fullmatch(text or "")
    if m is None:
        return None
    value = int(m.group(2)) * (-1 if m.group(1) == "-" else 1)
    return value if -_LIMIT <= value < _LIMIT else None


def number(text) -> str | None:
    """The id read_model reads `text` as (get_uint64_attr: integer, not negative), written plainly; None where it
    refuses it (or where there is none)."""
    if text is None or plain(text):
        return text
    value = integer(text)
    return None if value is None or value < 0 else str(value)


def key(text):
    """What irpool knows an id by: the number read_model reads, or the text as written where it refuses it (a
    finding says so)."""
    return number(text) or text


def refusal(tag: str, attr: str, text: str, signed: bool = False) -> str:
    """Why read_model refuses <tag attr="text"> (number(text) is None, or integer(text) where `signed`), in
    OpenVINO's words."""
    m = _STOLL.match(text)                                  # (what stoll reads before it stops)
    if m is None or not -_LIMIT <= int(m.group(0)) < _LIMIT:
        said = "\"Converting input model stoll\": no ASCII digit where it starts, or a number past 2^63 - 1"
    else:
        said = f'node <{tag}> has attribute "{attr}" = "{text}" which is not a{"" if signed else "n un"}signed 64' \
               " bit integer"
    return f'<{tag}> {attr}="{text}": read_model reads it as a{" signed" if signed else ""} number (ASCII digits,' \
           f" below 2^63, nothing after them) and refuses the file ({said})"


def edge(ends: tuple) -> tuple:
    """An edge's (from-layer, from-port, to-layer, to-port) as read_model reads them, and the first end it refuses
    (an index into `ends`, or None)."""
    read = tuple(number(t) for t in ends)
    bad = next((i for i, t in enumerate(read) if t is None), None)
    return read, bad
