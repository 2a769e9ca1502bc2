"""Opening what irpool reads as IR, safely: a path, an XML string, bytes or a stream, refused past --max-bytes
before a byte is parsed; a pipe copied aside (spooled) so it can be read again; a prolog that declares a DTD or
entities refused before lxml sees it."""
from __future__ import annotations

import io
import os
import re
import tempfile

from ...errors import IRError
from ...limits import MAX_BYTES
from ...streams import read_bytes

_PROLOG_PEEK = 1 << 16      # (a read of 1 MB costs its buffer: ~0.2 ms a file, measured)
DTD_REFUSED = "refused: the document declares a DTD or entities, which IR never needs"


_ROOT_TAG = re.compile(rb"<([A-Za-z_][-.\w:]*)")


def is_xml_text(source) -> bool:
    """Whether `source` is XML text, not a path: a str whose first character but blanks and a BOM is '<'."""
    return isinstance(source, str) and source.lstrip("\ufeff \t\r\n").startswith("<")


def open_source(source, max_bytes: int):
    """A seekable binary stream and a file name (None for strings and bytes) of a path, an XML string, bytes
    or a binary stream. A pipe, a terminal or standard input is copied aside as it is read (a spooled
    temporary file: memory stays flat), so the reader may look ahead and rewind."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        try:
            data, file = bytes(source), None
        except ValueError as e:                          # (a released memoryview)
            raise IRError(f"cannot read IR from this {type(source).__name__}: {e}") from None
    elif is_xml_text(source):
        data, file = _encoded(source), None
    elif hasattr(source, "read"):
        file, closed = getattr(source, "name", None), getattr(source, "closed", False)
        if closed or isinstance(source, io.TextIOBase):
            raise IRError("cannot read IR from a closed stream" if closed else
                          "cannot read IR from a text stream: open the file in binary mode (\"rb\")",
                          file=file if isinstance(file, str) else None)
        return _seekable(source, max_bytes, file if isinstance(file, str) else None), file
    elif isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            if os.path.isdir(path):
                raise IRError("is a folder, not an IR file", file=path)
            if not os.path.isfile(path):                   # a FIFO, /dev/stdin, <(...), a device: read as a stream,
                return _seekable(open(path, "rb"), max_bytes, path, copy=True), path     # up to max_bytes
            size = os.path.getsize(path)
            if size > max_bytes:
                raise IRError(f"file is {size} bytes, more than the {max_bytes} irpool reads (--max-bytes)",
                              file=path)
            return open(path, "rb"), path
        except OSError as e:
            raise IRError(f"cannot read it: {e.strerror or e}", file=path) from None
        except IRError:
            raise
        except ValueError:                  # (a NUL in the path: open() refuses it)
            raise IRError(f"not a file name: {path!r} holds a NUL character") from None
    else:
        raise IRError(f"cannot read IR from a {type(source).__name__}: give a path, an XML string, bytes or a"
                      " binary stream")
    if len(data) > max_bytes:
        raise IRError(f"the document is {len(data)} bytes, more than the {max_bytes} irpool reads")
    return io.BytesIO(data), file


_DECLARED = re.compile(r"\ufeff?\s*<\?xml\s[^>]*?encoding\s*=\s*[\"']([^\"']*)[\"']")


def _encoded(text: str) -> bytes:
    """XML text as the bytes a file of it holds: in the encoding its XML declaration names (UTF-8 if none), which
    libxml2 then reads it as."""
    m = _DECLARED.match(text)
    encoding = m.group(1) if m else "utf-8"
    try:
        return text.encode(encoding)
    except LookupError:
        raise IRError(f"the XML text declares encoding={encoding!r}, which Python does not know: give the document"
                      " as bytes, or without that declaration") from None
    except UnicodeEncodeError as e:
        what = ("which is not a character: a lone surrogate, no encoding writes it" if "surrogate" in e.reason else
                f"which its declared encoding {encoding} cannot write")
        raise IRError(f"the XML text holds {text[e.start]!r} at character {e.start}, {what}") from None


def opened_source(source, max_bytes: int = MAX_BYTES):
    """(a seekable binary stream, its file name) of `source`, for a reader that reads it more than once
    (Document's `opened`); the caller closes the stream."""
    return open_source(source, max_bytes)


def _seekable(stream, max_bytes: int, file, copy=False):
    """`stream` itself when it can seek (a caller's: borrowed, left open), else (or where `copy`: a device such as
    /dev/zero seeks, and never ends) a spooled copy of it, refused past max_bytes; a stream irpool opened is closed
    once copied, a caller's is not."""
    try:
        if not copy and stream.seekable():
            stream.seek(0, os.SEEK_CUR)
            return _Borrowed(stream)
    except (OSError, ValueError, AttributeError):
        pass
    spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)
    try:
        _copy(stream, spool, max_bytes, file)
    except BaseException:
        spool.close()
        raise
    finally:
        if copy:
            stream.close()
    spool.seek(0)
    return spool


def _copy(stream, spool, max_bytes: int, file) -> None:
    """`stream` into `spool`, up to max_bytes."""
    total = 0
    while block := read_bytes(stream, 1 << 20, file):
        total += len(block)
        if total > max_bytes:
            raise IRError(f"the input is more than the {max_bytes} bytes irpool reads (--max-bytes)", file=file)
        spool.write(block)


class _Borrowed:
    """A caller's seekable stream, read as it is and left open: the caller gave it, the caller closes it."""

    def __init__(self, stream):
        self.read, self.seek, self.tell = stream.read, stream.seek, stream.tell

    def close(self) -> None:
        pass


def check_prolog(stream, file, head: bytes) -> bytes | None:
    """Refuse empty input and any DTD or entity declaration before the root element, however many comments
    and processing instructions come first (they stream by, not kept); the root's tag (None if there is
    none, and lxml will judge). `stream` is at its start; `head`, its first bytes (which tell its encoding)."""
    wide = wide_encoding(head)
    try:
        return _scan_prolog(stream if wide is None else _Transcoded(stream, wide), file)
    finally:
        stream.seek(0)


# Encodings libxml2 tells by their first bytes (a byte order mark, or "<" and "<?" as each writes them: XML 1.0
# appendix F) in which "<!DOCTYPE" is not its ASCII bytes. (One an XML declaration names is ASCII-compatible:
# the declaration could not be read otherwise.)
_WIDE = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\x00<", "utf-32-be"),
         (b"<\x00\x00\x00", "utf-32-le"), (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"), (b"\x00<", "utf-16-be"),
         (b"<\x00", "utf-16-le"), (b"\x4c\x6f\xa7\x94", "cp037"))


def wide_encoding(head: bytes) -> str | None:
    """The encoding a document's first bytes say it is in, where it is not an ASCII-compatible one (UTF-16, UTF-32,
    EBCDIC); None otherwise."""
    return next((enc for start, enc in _WIDE if head.startswith(start)), None)


def push_encoding(head: bytes) -> str | None:
    """The encoding to give libxml2's push parser for a document that starts with `head`: UTF-32's, where a byte
    order mark says it (the push parser does not tell it by that mark and refuses the file, where read_model reads
    it: measured, tests/ir/test_encodings.py); None otherwise (libxml2 tells)."""
    return {b"\xff\xfe\x00\x00": "UTF-32LE", b"\x00\x00\xfe\xff": "UTF-32BE"}.get(head[:4])


class _Transcoded:
    """A stream read as UTF-8 bytes (a byte order mark becomes UTF-8's), for the prolog's scan of a UTF-16,
    UTF-32 or EBCDIC document."""

    def __init__(self, stream, encoding: str):
        import codecs
        self._stream, self._decoder = stream, codecs.getincrementaldecoder(encoding)(errors="replace")

    def read(self, n: int) -> bytes:
        block = self._stream.read(n)
        return self._decoder.decode(block, final=not block).encode("utf-8")


def _scan_prolog(stream, file) -> bytes | None:
    """check_prolog on a stream of ASCII-compatible bytes."""
    data = stream.read(_PROLOG_PEEK)
    pos, blank = (3 if data.startswith(b"\xef\xbb\xbf") else 0), True
    while True:
        while pos < len(data) and data[pos] in b" \t\r\n":
            pos += 1
        if len(data) - pos < 16:                            # enough to tell a comment, a PI or a tag apart
            more = stream.read(_PROLOG_PEEK)
            if more:
                data, pos = data[pos:] + more, 0
                continue
            if pos >= len(data):
                break
        blank = False
        end = b"-->" if data.startswith(b"<!--", pos) else b"?>" if data.startswith(b"<?", pos) else None
        if end is None:
            break
        i = data.find(end, pos + 2)
        while i < 0:                                        # a long comment: read on, keep only its tail
            more = stream.read(_PROLOG_PEEK)
            if not more:
                break
            data, pos = data[-2:] + more, 0
            i = data.find(end)
        if i < 0:
            data, pos = b"", 0
            break
        pos = i + len(end)
    rest = data[pos:]
    if blank and not rest.strip():
        raise IRError("empty file: not IR", file=file)
    if rest[:2] == b"<!" and rest[:4] != b"<!--":
        raise IRError(DTD_REFUSED, file=file,
                      code="refused")
    m = _ROOT_TAG.match(rest)
    return m.group(1) if m else None


def no_dtd(root, file):
    """`root`, if its document has no DTD (check_prolog refuses one before lxml reads it: this is for an
    encoding it did not tell)."""
    if root.getroottree().docinfo.internalDTD is not None:
        raise IRError(DTD_REFUSED, file=file, code="refused")
    return root


def lines_over(stream, limit: int) -> bool:
    """Whether the document has more than `limit` lines (read ahead in blocks, then rewound)."""
    lines = 0
    try:
        while lines <= limit:
            block = stream.read(1 << 18)
            if not block:
                return False
            lines += block.count(b"\n")
        return True
    finally:
        stream.seek(0)
