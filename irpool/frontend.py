"""The one place that picks a front end by file kind: an .onnx model goes to irpool.onnx, anything else to
the IR front end. irpool.check, irpool.run, irpool.explain and the command line all ask here."""
from __future__ import annotations

import os

from . import cpu as cpu_tiers
from .errors import IRError
from .given import valid
from .limits import MAX_BYTES, bytes_limit


def kind(source) -> str:
    """"onnx" or "ir": a path by its name (.onnx), bytes and streams by their first bytes (XML starts
    with '<', or is in UTF-16, UTF-32 or EBCDIC; a model file never is). A str that is not a path is XML text."""
    from .onnx.model import looks_onnx
    from .ir.read.sources import is_xml_text, wide_encoding
    if isinstance(source, os.PathLike) or isinstance(source, str) and not is_xml_text(source):
        return "onnx" if looks_onnx(os.fspath(source)) else "ir"
    head, name = _head(source), getattr(source, "name", None)
    if head is None or wide_encoding(head) is not None:
        return "ir"
    return "onnx" if looks_onnx(name if isinstance(name, str) else None, head) else "ir"


def _head(source) -> bytes | None:
    """The first 64 bytes of bytes or of a binary stream (which is left where it was); None where there are none to
    read here (XML text, a closed or text stream, a released memoryview: open_source says what is wrong)."""
    try:
        if isinstance(source, (bytes, bytearray, memoryview)):
            return bytes(source[:64])
        if getattr(source, "closed", False):
            return None
        if getattr(source, "peek", None) is not None:
            head = source.peek(64)[:64]
        elif hasattr(source, "seekable") and source.seekable():
            at = source.tell()
            head = source.read(64)
            source.seek(at)
        else:
            return None
    except (ValueError, OSError):
        return None
    return head if isinstance(head, bytes) else None


IR_FIX_SHAPES = ("--fix writes the dims an IR file declares for its own inputs, and --shape checks it on others:"
                 " run check --shape to see, and --fix without --shape to fix")


def check(source, *, max_bytes: int = MAX_BYTES, explain=False, bin=None, shapes=None, file=None,  # noqa: A002
          cpu: str | None = None):
    """irpool.check on either front end. `shapes` ({input name: dims}, --shape): check on those input shapes
    (an ONNX input's or an IR Parameter's name; IR: as OpenVINO's reshape gives every port, ir/shape/reshape.py).
    `cpu`: the CPU tier OpenVINO's verdicts are judged for: "host" (default: this machine, with
    ONEDNN_MAX_CPU_ISA as the plugin takes it), a tier's name ("avx2", "avx512-bf16", "amx", ...: irpool.cpu),
    or "all" (a cpu-dependent warning names the tiers that refuse a layer)."""
    with cpu_tiers.judging(cpu):
        return _check(source, bytes_limit(max_bytes), explain, bin, valid(shapes), file)


def _check(source, max_bytes, explain, bin, shapes, file):  # noqa: A002
    if kind(source) == "onnx":
        from .onnx.check import check as onnx_check
        return onnx_check(source, max_bytes=max_bytes, shapes=shapes, file=file)
    from .ir.check.passes import check as ir_check
    return ir_check(source, max_bytes=max_bytes, explain=explain, bin=bin, shapes=shapes)


def load(source, *, max_bytes: int = MAX_BYTES, layer: str | None = None, bin=None,  # noqa: A002
         cpu: str | None = None):
    """irpool.load on either front end: an IR Program, or one node of an .onnx model (layer= its id or name, as
    irpool.select reads it: "id:8" and "name:8" say which where "8" is one layer's id and another's name).
    `cpu`: the CPU tier whose verdicts and rounding an IR program follows ("host" by default; not "all")."""
    max_bytes = bytes_limit(max_bytes)
    if kind(source) == "onnx":
        from .onnx.program import load as onnx_load
        return onnx_load(source, layer=layer, max_bytes=max_bytes)
    if cpu_tiers.choose(cpu) == cpu_tiers.ALL:
        raise IRError("--cpu all: run computes for one CPU tier; name it (host, or a tier)")
    from .ir.run.program import load as ir_load
    with cpu_tiers.judging(cpu):
        return ir_load(source, max_bytes=max_bytes, layer=layer, bin=bin)


def run(source, inputs, *, max_bytes: int = MAX_BYTES, threads: int | None = None, layer: str | None = None,
        bin=None, cpu: str | None = None) -> dict:  # noqa: A002
    """irpool.run on either front end: load(...).run(inputs, threads)."""
    if inputs is None:
        raise IRError("run takes the inputs: an array, or {input name: array}; got None")
    return load(source, max_bytes=max_bytes, layer=layer, bin=bin, cpu=cpu).run(inputs, threads)


def explain(source, layer: str | None = None, *, max_bytes: int = MAX_BYTES, bin=None, shapes=None,  # noqa: A002
            cpu: str | None = None) -> str:
    """irpool.explain on either front end: a text block per pooling layer (node), as `irpool explain` prints."""
    entries = []
    each_entry(source, entries.append, layer, max_bytes=bytes_limit(max_bytes), bin=bin, shapes=valid(shapes), cpu=cpu)
    return "\n".join(render(e) for e in sorted(entries, key=lambda e: e["line"] or 0))


def each_entry(source, sink, layer: str | None = None, *, max_bytes: int = MAX_BYTES, bin=None,  # noqa: A002
               shapes=None, cpu: str | None = None) -> int:
    """explain's entries, in the one form both front ends give (docs/cli.md, "explain --json"), handed to `sink`
    one by one (an IR file's as check reaches them); how many. `layer`: one layer's id or name (select.py)."""
    if kind(source) == "onnx":
        from .onnx.explain import entries
        found = entries(source, layer, max_bytes=max_bytes, shapes_given=shapes)
        for e in found:
            sink(e)
        return len(found)
    from .ir.explain import each_entry as ir_each_entry
    with cpu_tiers.judging(cpu):
        return ir_each_entry(source, sink, layer, max_bytes=max_bytes, bin=bin, shapes=shapes)


def render(entry: dict) -> str:
    """An explain entry as text, by the front end that made it."""
    if entry["front_end"] == "onnx":
        from .onnx.explain import render as onnx_render
        return onnx_render(entry)
    from .ir.explain import render as ir_render
    return ir_render(entry)


def fix(data: bytes, *, path=None, file: str | None = None, bin=None, max_bytes: int = MAX_BYTES,  # noqa: A002
        shapes=None, cpu: str | None = None) -> tuple:
    """check --fix on either front end: (the fixed bytes, the same bytes where nothing is fixed; [report.Fixed];
    the Report of the fixed document). `path`: where `data` was read (its kind, and the IR weights file beside
    it; None for standard input); `file`: its name in findings. Nothing is written here."""
    if _kind(data, path) == "onnx":
        from .onnx.fix import fix as onnx_fix
        return onnx_fix(data, max_bytes=max_bytes, file=file, shapes=valid(shapes))
    if shapes:
        raise IRError(IR_FIX_SHAPES)
    from .ir.ops.consts import bin_path
    from .ir.fix import fix as ir_fix
    with cpu_tiers.judging(cpu):
        return ir_fix(data, file=file, bin=None if path is None else bin_path(bin, path), max_bytes=max_bytes)


def _kind(data: bytes, path) -> str:
    """The kind of a file read as `data` from `path` (by its name), or from standard input (by its bytes)."""
    return kind(path) if path is not None else kind(data)


def diff_lines(data: bytes, path=None) -> list:
    """The lines --diff compares: an IR file's own, or an .onnx model's declared values (onnx/fix.text_lines)."""
    if _kind(data, path) == "onnx":
        from .onnx.fix import text_lines
        return text_lines(data)
    return data.decode("utf-8", "surrogateescape").splitlines(True)


def suffix(data: bytes, path=None) -> str:
    """The suffix a file of this kind is written with."""
    return ".onnx" if _kind(data, path) == "onnx" else ".xml"
