"""`irpool check --fix`: rewrite the declared <dim>s that check computes for certain and finds wrong, and
nothing else.

A shape-mismatch finding carries what to write (Finding.fix). The file is changed as bytes, not re-serialised:
the content of each <dim> element is located in the raw text (skipping comments, CDATA and processing
instructions; a DTD is refused before anything is read), matched one to one with lxml's <dim> elements, and
only the digits between <dim> and </dim> are replaced, so line endings, spacing, comments and attribute order
stay as they were. An input <dim> joined by an edge to a fixed output dim is fixed too when it held the same
wrong value. Check runs again after each round, until nothing is left to fix (a fix can make a later layer's
declared output wrong)."""
from __future__ import annotations

import re

from lxml import etree

from ..core import axis_names
from ..errors import IRError
from ..report import Fixed
from .check.passes import check
from .read.dims import lenient_dim
from .read.ids import key
from ..limits import MAX_BYTES
from .read.document import PARSER_OPTIONS
from .read.structure import line_of

_TOKENS = re.compile(rb"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<dim(?=[\s/>])(?:[^>\"']|\"[^\"]*\"|'[^']*')*>", re.S)
#   (a <dim>'s start tag ends at the first > outside its quoted attribute values: x=">" is well-formed XML)
_CONTENT = re.compile(rb"(?P<close></dim\s*>)|<!--.*?-->|<\?.*?\?>|<!\[CDATA\[(?P<cdata>.*?)\]\]>|(?P<other><)|(?P<text>[^<]+)",
                      re.S)    # (what a <dim> holds: its value's text and CDATA, comments and PIs, up to </dim>)
_ROUNDS = 64



def fix(data: bytes, *, file: str | None = None, bin=None, max_bytes: int = MAX_BYTES) -> tuple:  # noqa: A002
    """(the fixed document, [Fixed], check's Report of the fixed document); the same bytes and [] when there is
    nothing to fix. `file`: the name used in errors; `bin`: the weights file (the pooling family's shape
    inputs)."""
    done = []
    for _ in range(_ROUNDS):
        report = check(data, max_bytes=max_bytes, bin=bin)
        wanted = [f for f in report.findings if f.fix]
        if not wanted:
            return data, done, report
        edits = _Edits(data, file)
        fed = {id(t) for f in wanted for t, _ in _joined(edits.layer(f), f.fix["port"])}
        for f in wanted:
            if id(edits.layer(f)) not in fed:       # (a layer fed by a port fixed now waits for the next round)
                edits.port(f)
        if not edits.changes:
            return data, done, report
        data = edits.apply()
        done += edits.fixed
    return data, done, check(data, max_bytes=max_bytes, bin=bin)


class _Edits:
    """The <dim> contents to replace in one round, by their place among the document's <dim>s."""

    def __init__(self, data: bytes, file):
        self.data, self.file, self.changes, self.fixed = data, file, {}, []
        tree = etree.fromstring(data, etree.XMLParser(**PARSER_OPTIONS))
        if tree.getroottree().docinfo.encoding.lower().replace("-", "") not in ("utf8", "ascii", "usascii",
                                                                                 "iso88591", "latin1"):
            raise IRError(f"--fix rewrites UTF-8 (or ASCII) files only; this one is"
                          f" {tree.getroottree().docinfo.encoding}", file=file)
        dims = list(tree.iter("dim"))
        self.spans = _dim_spans(data)
        if len(dims) != len(self.spans):
            raise IRError(f"--fix cannot locate the <dim> elements in the file's bytes ({len(dims)} elements,"
                          f" {len(self.spans)} found)", file=file)
        self.place = {el: i for i, el in enumerate(dims)}
        self.layers = {}
        for el in tree.iter("layer"):
            self.layers.setdefault((line_of(el), key(el.get("id"))), el)
        self.top = {key(el.get("id")): el for el in tree.iterfind("layers/layer")}

    def layer(self, finding):
        """The finding's layer: by its line and id, or (`layer_line` None) by its id among the top-level layers."""
        if finding.fix["layer_line"] is None:
            return self.top.get(key(finding.layer_id))
        return self.layers.get((finding.fix["layer_line"], key(finding.layer_id)))

    def port(self, finding) -> None:
        """The dims of a finding's output port, and the input dims its edges join to them; or of an input port
        (an edge-mismatch into a pooling layer)."""
        fix = finding.fix
        layer = self.layer(finding)
        side = fix.get("side", "output")
        port = _port(layer, side, fix["port"])
        if port is None:
            return
        dims = port.findall("dim")
        names = ["N", "C"] + list(axis_names(len(dims) - 2)) if len(dims) >= 2 else []
        old = {i: (dims[i].text or "").strip() for i, _ in fix["dims"] if i < len(dims)}
        said, line = self._set(port, fix["dims"], names)
        if said:
            self.fixed.append(Fixed(line, f"fixed [{finding.code}] {_who(layer)}: {side} port {fix['port']}: {said}"
                                          + (" (as its producer gives it)" if side == "input" else "")))
        if side != "output":
            return
        for target, tport in _joined(layer, fix["port"]):
            tdims = tport.findall("dim")
            if len(tdims) != len(dims):
                continue
            same = [[i, v] for i, v in fix["dims"] if i in old and (tdims[i].text or "").strip() != str(v)
                    and lenient_dim(tdims[i].text or "") == lenient_dim(old[i])]
            said, line = self._set(tport, same, names)
            if said:
                self.fixed.append(Fixed(line, f"fixed {_who(target)}: input port {tport.get('id')}:"
                                                        f" {said} (as the edge from layer {layer.get('id')} port"
                                                        f" {fix['port']} now says)"))

    def _set(self, port, pairs, names) -> tuple:
        """Schedule the port's dims `pairs` ([index, value]); what changes, in words, and its first line."""
        dims, said, line = port.findall("dim"), [], None
        for i, value in pairs:
            el = dims[i] if i < len(dims) else None
            runs = self.spans[self.place[el]] if el is not None else None
            if runs is None or (el.text or "").strip() == str(value):
                continue
            for k, span in enumerate(runs):
                self.changes[span] = str(value).encode() if k == 0 else b""
            said.append(f"{names[i] if i < len(names) else i} {(el.text or '').strip()} -> {value}")
            line = line or line_of(el)
        return ", ".join(said), line

    def apply(self) -> bytes:
        out, at = [], 0
        for (start, end), value in sorted(self.changes.items()):
            out += [self.data[at:start], value]
            at = end
        return b"".join(out) + self.data[at:]


def _dim_spans(data: bytes) -> list:
    """For each <dim> element in document order, the byte spans of the value it is read as: each run of its text
    and CDATA, without surrounding spaces (OpenVINO reads them as one, across a comment or a processing instruction
    inside, which stay where they are: measured, tests/ir/test_fix_markup.py); None where it cannot be rewritten
    (no text, or an element inside)."""
    spans = []
    for m in _TOKENS.finditer(data):
        tag = m.group(0)
        if tag.startswith(b"<dim"):
            spans.append(None if tag.endswith(b"/>") else _content(data, m.end()))
    return spans


def _content(data: bytes, at: int):
    """_dim_spans' spans of the content that starts at byte `at`, up to its </dim>."""
    runs = []
    for m in _CONTENT.finditer(data, at):
        if m.start() != at or m.lastgroup == "other":
            return None
        if m.lastgroup == "close":
            return tuple(runs) or None
        if m.lastgroup in ("text", "cdata"):
            start, end = m.span(m.lastgroup)
            value = data[start:end]
            if value.strip():
                runs.append((start + len(value) - len(value.lstrip()), end - (len(value) - len(value.rstrip()))))
        at = m.end()
    return None


def _port(layer, side: str, pid):
    if layer is None:
        return None
    pid = key(pid)
    return next((p for holder in layer.iterchildren(side) for p in holder.iterchildren("port")
                 if key(p.get("id")) == pid), None)


def _joined(layer, pid):
    """(layer, input port) of every edge from the layer's output port `pid`, in the same net."""
    layers = layer.getparent() if layer is not None else None
    net = layers.getparent() if layers is not None else None
    if net is None:
        return
    by_id = {key(el.get("id")): el for el in layers.iterchildren("layer")}
    for edges in net.iterchildren("edges"):
        for e in edges.iterchildren("edge"):
            if key(e.get("from-layer")) == key(layer.get("id")) and key(e.get("from-port")) == key(pid):
                target = by_id.get(key(e.get("to-layer")))
                port = _port(target, "input", e.get("to-port"))
                if port is not None:
                    yield target, port


def _who(layer) -> str:
    return f"layer id={layer.get('id')} name={layer.get('name')!r} ({layer.get('type')})"
