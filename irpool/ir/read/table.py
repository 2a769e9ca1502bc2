"""LayerTable: what a net's reader keeps of each layer (its id, its name and one small number), in flat
arrays, so that a file of millions of layers is read in flat memory.

A dict of id strings to tuples took ~230 bytes a layer (a 1 GB IR: ~1.5 million layers, 350 MB); the
table takes ~16 bytes a layer plus its name, compressed (names like "block3/conv2/BiasAdd" share most of
their bytes: zlib takes them to a fifth or less). Ids written as plain decimal numbers (what OpenVINO
writes) index an array; any other id goes to a dict.
"""
from __future__ import annotations

import zlib
from array import array
from bisect import bisect_right

_SLACK = 1 << 20          # a numeric id up to 2 * rows + this indexes the array; a larger one goes to the dict
_SMALL = 1 << 16          # a net of fewer layers keeps its ids in a dict
_BLOCK = 1 << 16          # Blocks compresses this many bytes at a time
_NAMES = 1 << 12          # Names compresses this many names at a time


class Blocks:
    """Bytes appended and read back by offset, kept zlib-compressed a block at a time (the block being
    filled stays open; the last one read stays decompressed)."""

    def __init__(self):
        self._open = bytearray()
        self._blocks = []              # compressed, in order
        self._firsts = array("q")      # the offset each block starts at
        self._base = 0                 # the offset the open block starts at
        self._last = (-1, b"")

    def __len__(self) -> int:
        return self._base + len(self._open)

    def append(self, data: bytes) -> int:
        """Append `data`; the offset it starts at."""
        start = self._base + len(self._open)
        self._open += data
        if len(self._open) >= _BLOCK:
            self._blocks.append(zlib.compress(bytes(self._open), 1))
            self._firsts.append(self._base)
            self._base += len(self._open)
            self._open = bytearray()
        return start

    def read(self, start: int, end: int) -> bytes:
        out = b""
        while start < end:
            if start >= self._base:
                return out + bytes(self._open[start - self._base: end - self._base])
            k = bisect_right(self._firsts, start) - 1
            if self._last[0] != k:
                self._last = (k, zlib.decompress(self._blocks[k]))
            block, first = self._last[1], self._firsts[k]
            piece = block[start - first: end - first]
            out += piece
            start += len(piece)
        return out


class Names:
    """Strings appended and read back by number, kept zlib-compressed _NAMES at a time, joined by NUL (which XML
    text never holds); the block being filled stays a list (an append is a list's), the last block read stays
    split."""

    def __init__(self):
        self._open = []                # the names of the block being filled
        self._blocks = []              # compressed, in order
        self._last = (-1, [])

    def append(self, name: str) -> None:
        self._open.append(name)
        if len(self._open) == _NAMES:
            data = "\0".join(self._open).encode("utf-8", "surrogatepass")
            self._blocks.append(zlib.compress(data, 1))
            self._open = []

    def __getitem__(self, k: int) -> str:
        block, at = divmod(k, _NAMES)
        if block == len(self._blocks):
            return self._open[at]
        if self._last[0] != block:
            self._last = (block, zlib.decompress(self._blocks[block]).decode("utf-8", "surrogatepass").split("\0"))
        return self._last[1][at]


class LayerTable:
    def __init__(self):
        self._by_num = array("i")      # int(id) -> row + 1 (0: no such layer)
        self._by_text = {}             # any other id -> row
        self._num = array("i")         # row -> int(id), -1 when the id is in _by_text
        self._text = {}                # row -> id, for those
        self._identity = False         # past _SMALL rows: every id is its row, so the two arrays above stay empty
        self.value = array("h")        # row -> the caller's number (a signature, a group); int32 once one needs it
        self._names = Names()          # row -> its name ("" for a layer with no name attribute)
        self._nameless = set()         # rows of layers with no name attribute

    def __len__(self) -> int:
        return len(self.value)

    @staticmethod
    def _numeric(lid):
        """int(lid) for an id written as a plain decimal number of at most 9 digits, else None."""
        if lid.isascii() and lid.isdigit() and (len(lid) == 1 or lid[0] != "0") and len(lid) < 10:
            return int(lid)
        return None

    def row(self, lid) -> int | None:
        """The row of layer id `lid`, or None."""
        row = self._by_text.get(lid)
        if row is not None or lid is None:
            return row
        if self._identity:
            n = self._numeric(lid)
            return n if n is not None and n < len(self.value) else None
        if not self._by_num:
            return None
        n = self._numeric(lid)
        return self._by_num[n] - 1 if n is not None and n < len(self._by_num) and self._by_num[n] else None

    def finder(self):
        """The fastest callable from an id to its row (or None) while no layer is added: the dict's own get while
        every id is in it."""
        return self._by_text.get if len(self.value) <= _SMALL else self.row

    def add(self, lid, name, value: int) -> int:
        """A new layer's row (the caller has made sure `lid` is not in the table yet). The first _SMALL
        layers go to a dict (fastest); past that, numeric ids go to the array, or to none while every id is
        its row (as OpenVINO writes them: ~9 bytes a layer fewer)."""
        row = len(self.value)
        if row == _SMALL:
            self._to_array()
        n = self._numeric(lid) if lid is not None and row >= _SMALL else None
        if self._identity and n != row:
            self._materialize(row)
        if n is not None and n > 2 * row + _SLACK:
            n = None
        if self._identity:
            pass
        elif n is not None:
            self._set(n, row)
        else:
            self._by_text[lid] = row
            self._num.append(-1)
            self._text[row] = lid
        if not -32768 <= value < 32768 and self.value.typecode == "h":
            self.value = array("i", self.value)
        self.value.append(value)
        if name is None:
            self._nameless.add(row)
            name = ""
        self._names.append(name)
        return row

    def _set(self, n: int, row: int) -> None:
        if n >= len(self._by_num):
            self._by_num.extend(array("i", bytes(4 * (n + 1 - len(self._by_num) + (n >> 3)))))
        self._by_num[n] = row + 1
        self._num.append(n)

    def _to_array(self) -> None:
        """Move the numeric ids of the first _SMALL rows from the dict to the array (or to none: every id its
        row)."""
        by_text, self._by_text, self._num, self._text = self._by_text, {}, array("i"), {}
        if all(lid == str(row) for lid, row in by_text.items()):
            self._identity = True
            return
        for lid, row in by_text.items():             # (in row order: dicts keep insertion order)
            n = self._numeric(lid) if lid is not None else None
            if n is not None and n <= 2 * row + _SLACK:
                self._set(n, row)
            else:
                self._by_text[lid] = row
                self._num.append(-1)
                self._text[row] = lid

    def _materialize(self, rows: int) -> None:
        """The first id that is not its row: the rows before it go to the arrays after all."""
        self._identity = False
        self._by_num = array("i", range(1, rows + 1))
        self._num = array("i", range(rows))

    def id(self, row: int):
        if self._identity:
            return str(row)
        n = self._num[row]
        return str(n) if n >= 0 else self._text[row]

    def name(self, row: int):
        return None if row in self._nameless else self._names[row]
