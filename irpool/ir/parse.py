"""Read OpenVINO IR XML (a whole <net> or a bare <layer>) into plain objects that keep line numbers.

Parsing is safe for files from anywhere: no DTD, no entities, no network; a document that declares a DTD
or entities is refused before lxml sees it. Structure is checked against schemas/ir.rng; what fails it
becomes a `bad-structure` problem on the net, with the line, and the reading goes on where it can.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from importlib import resources

from lxml import etree

from ..core.spec import MAX_DIM
from ..errors import IRError

MAX_BYTES = 1 << 30       # a larger file is refused before it is read
_DOCTYPE = re.compile(rb"<!\s*(DOCTYPE|ENTITY)", re.IGNORECASE)   # only the prolog can hold one
_ROOT = re.compile(rb"<[A-Za-z_]")


@dataclass
class Port:
    id: str
    dims: list            # int, or None for a dynamic dim (-1, ?)
    precision: str | None
    names: str | None
    line: int
    raw_dims: list = field(default_factory=list)   # as written, for messages
    dim_lines: list = field(default_factory=list)  # the line of each <dim>


@dataclass
class Layer:
    id: str | None
    name: str | None
    type: str | None
    version: str | None
    line: int
    data: dict            # <data> attributes as written (strings)
    data_line: int
    inputs: list          # [Port]
    outputs: list         # [Port]

    def where(self, file: str | None, line: int | None = None) -> dict:
        """The location fields of an IRError or Finding for this layer."""
        return dict(file=file, line=line or self.line, layer_id=self.id, layer_name=self.name,
                    layer_type=self.type)


@dataclass
class Edge:
    from_layer: str
    from_port: str
    to_layer: str
    to_port: str
    line: int


@dataclass
class Net:
    file: str | None
    is_snippet: bool
    ir_version: str | None
    layers: list
    edges: list
    problems: list        # [(line, message)] from the structure schema and the reading itself

    def layer(self, layer_id: str) -> Layer | None:
        return self._by_id.get(layer_id)

    def __post_init__(self):
        self._by_id = {}
        for lay in self.layers:
            self._by_id.setdefault(lay.id, lay)


_RNG = None


def _schema() -> etree.RelaxNG:
    global _RNG
    if _RNG is None:
        text = resources.files("irpool.schemas").joinpath("ir.rng").read_bytes()
        _RNG = etree.RelaxNG(etree.fromstring(text))
    return _RNG


def _parser() -> etree.XMLParser:
    return etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                           huge_tree=False, remove_comments=True, remove_pis=True, collect_ids=False)


def read_source(source) -> tuple[bytes, str | None]:
    """The XML bytes and a file name (None for strings and bytes) of a path, an XML string or bytes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return bytes(source), None
    if isinstance(source, str) and source.lstrip().startswith("<"):
        return source.encode("utf-8"), None
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        try:
            size = os.path.getsize(path)
            if size > MAX_BYTES:
                raise IRError(f"file is {size} bytes, more than the {MAX_BYTES} irpool reads", file=path)
            with open(path, "rb") as f:
                return f.read(), path
        except OSError as e:
            raise IRError(f"cannot read: {e.strerror or e}", file=path) from None
    raise IRError(f"cannot read IR from a {type(source).__name__}: give a path, an XML string or bytes")


def parse(source) -> Net:
    """Parse IR into a Net; raises IRError when the input is not XML or not IR at all."""
    data, file = read_source(source)
    if not data.strip():
        raise IRError("empty file: not IR", file=file)
    root_start = _ROOT.search(data)
    if _DOCTYPE.search(data[: root_start.start() if root_start else len(data)]):
        raise IRError("refused: the document declares a DTD or entities, which IR never needs", file=file)
    try:
        root = etree.fromstring(data, _parser())
    except etree.XMLSyntaxError as e:
        raise IRError(f"not well-formed XML: {e.msg}", file=file, line=e.lineno) from None
    if root is None or not isinstance(root.tag, str):
        raise IRError("no XML element found: not IR", file=file)
    if root.tag not in ("net", "layer"):
        raise IRError(f"root element is <{root.tag}>, not <net> or <layer>: not OpenVINO IR", file=file,
                      line=root.sourceline)
    problems = []
    rng = _schema()
    if not rng.validate(root):
        seen = set()
        for err in rng.error_log:
            key = (err.line, err.message)
            if key not in seen:
                seen.add(key)
                problems.append((err.line, f"structure: {err.message}"))
    if root.tag == "layer":
        return Net(file, True, None, [_layer(root, problems)], [], problems)
    layers = [_layer(el, problems) for el in root.iterfind("layers/layer")]
    edges = []
    for el in root.iterfind("edges/edge"):
        vals = [el.get(k) for k in ("from-layer", "from-port", "to-layer", "to-port")]
        if None not in vals:
            edges.append(Edge(*vals, line=el.sourceline))
    return Net(file, False, root.get("version"), layers, edges, problems)


def _layer(el, problems) -> Layer:
    data_el = el.find("data")
    data = dict(data_el.attrib) if data_el is not None else {}
    inputs = [_port(p, problems) for p in el.iterfind("input/port")]
    outputs = [_port(p, problems) for p in el.iterfind("output/port")]
    return Layer(el.get("id"), el.get("name"), el.get("type"), el.get("version"), el.sourceline, data,
                 data_el.sourceline if data_el is not None else el.sourceline, inputs, outputs)


def parse_dim(text: str):
    """A <dim> or shape entry: an int >= 0, or None for dynamic (-1, ?, an interval a..b)."""
    t = (text or "").strip()
    if not t:
        raise ValueError("empty")
    if t in ("?", "-1") or ".." in t:
        return None
    v = int(t)
    if v < 0 or v > MAX_DIM:
        raise ValueError("out of range")
    return v


def _port(el, problems) -> Port:
    dims, raw, lines = [], [], []
    for d in el.iterfind("dim"):
        raw.append(d.text)
        lines.append(d.sourceline)
        try:
            dims.append(parse_dim(d.text))
        except ValueError:
            problems.append((d.sourceline, f"port {el.get('id')}: <dim>{d.text}</dim> is not a dimension"
                                           " (an integer >= 0, or -1 for dynamic)"))
            dims.append(None)
    return Port(el.get("id"), dims, el.get("precision"), el.get("names"), el.sourceline, raw, lines)
