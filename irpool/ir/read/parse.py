"""Read OpenVINO IR XML (a whole <net> or a bare <layer>) as a stream of layers and edges with line numbers.

Safe for files from anywhere: a document whose prolog declares a DTD or entities is refused before lxml
reads it, and lxml runs with entities, DTD loading and network off. The file is read with iterparse and
each top-level layer is dropped from memory once it is handed over, so checking a 200 MB IR stays in
bounded memory. Structure is judged by schemas/ir.rng: on the net's skeleton once the layers are gone,
and on any layer the reader finds odd (a missing id or type, a repeated section); what fails it becomes
a `bad-structure` problem with its line, and reading goes on where it can.
"""
from __future__ import annotations

from copy import deepcopy as copy_of
from dataclasses import dataclass, field

from lxml import etree

from ... import opdefs
from ...errors import IRError
from ...limits import MAX_BYTES
from . import ids
from .dims import DYNAMIC, port_dim, text
from .element_types import spellings
from .sources import check_prolog, lines_over, no_dtd, open_source


@dataclass
class Port:
    id: str
    precision: str | None
    names: str | None
    line: int
    raw_dims: tuple       # as written, for messages and the edge check
    dim_lines: tuple      # the line of each <dim>
    dims: list            # int, or None for a dynamic (or unreadable) dim


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
    notes: list = field(default_factory=list)   # (line, what): what OpenVINO reads otherwise than it is written

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
    _by_id: dict = field(default_factory=dict, repr=False)

    def layer(self, layer_id: str) -> Layer | None:
        return self._by_id.get(layer_id)

    def __post_init__(self):
        for lay in self.layers:
            self._by_id.setdefault(lay.id, lay)


BIG_LINE = 65535          # libxml2 keeps an element's own line in 16 bits


def line_of(el) -> int | None:
    """An element's line, right past line 65535 too.

    There libxml2 takes an element's line from the text after its start tag (for an empty element, from
    its tail), or from the child or sibling element that follows at once, and a text reports the line it
    ends on: that text's newlines are taken off again."""
    line = el.sourceline
    if line is None or line < BIG_LINE:
        return line
    for _ in range(5):                                # libxml2 follows at most this many steps
        if el.text is not None or len(el):
            if el.text is not None:
                return line - el.text.count("\n")
            el = el[0]
        elif el.tail is not None:
            return line - el.tail.count("\n")
        elif el.getnext() is not None:
            el = el.getnext()
        else:
            break
    return line


_RNG = None


def _schema() -> etree.RelaxNG:
    global _RNG
    if _RNG is None:
        text = opdefs.read_bytes("ir.rng")
        _RNG = etree.RelaxNG(etree.fromstring(text))
    return _RNG


def _validate(el, problems) -> None:
    """RELAX NG on one subtree (a layer, or the skeleton); its errors become problems."""
    rng = _schema()
    if rng.validate(el):
        return
    seen = set()
    for err in rng.error_log:
        key = (err.line or line_of(el), err.message)
        if key not in seen:
            seen.add(key)
            problems.append((key[0], f"structure: {err.message}"))


def _skeleton(root, holders):
    """The net as its RELAX NG check sees it: what its <layers> and <edges> hold left out (those were read batch
    by batch), the rest copied with its lines (a document of at most BIG_LINE lines: libxml2 keeps an element's
    line in 16 bits, and a copy loses what line_of reads past that)."""
    skeleton = etree.Element(root.tag, dict(root.attrib))
    skeleton.text, skeleton.sourceline = root.text, root.sourceline
    for child in root:
        if any(child is h for h in holders) or child.tag in _HOLDS:     # (a later <layers>, <edges>: OpenVINO's
            #                                                             reader ignores it, and so does irpool)
            copy = etree.SubElement(skeleton, child.tag, dict(child.attrib))
            copy.text, copy.tail, copy.sourceline = child.text, child.tail, child.sourceline
        else:
            skeleton.append(copy_of(child))
    return skeleton


PARSER_OPTIONS = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                       huge_tree=False, remove_comments=True, remove_pis=True, collect_ids=False)
IR_VERSIONS = ("10", "11")
BODIES = ("body", "then_body", "else_body")       # a TensorIterator/Loop body, an If's two branches: nets
REQUIRED = ("id", "name", "type", "version")       # on every layer of a net, or read_model refuses the file


# what libxml2 refuses and OpenVINO's reader (pugixml) reads (measured, 2026.4.1): said, so that nobody takes the
# refusal for OpenVINO's
_NOT_CHECKED = "; irpool reads well-formed XML only, so it has not checked this file)"
_PUGIXML_READS = (("redefined", " (read_model reads it anyway, taking the first value" + _NOT_CHECKED),
                  ("Extra content at the end of the document",
                   " (read_model reads it anyway, ignoring what follows the root element" + _NOT_CHECKED))

_FEED = 1 << 18           # bytes handed to the parser at a time
_FIRST_FEED = 1 << 20     # the first time: most models' whole file, read as one batch


def _release(parser) -> None:
    """Let the document a pull parser read be freed when irpool drops it, not when Python's cycle collector next
    runs: lxml makes a cycle of them (the document holds its parser, whose tag filter holds the document), which
    kept every checked tree until a collection freed several at once (DenseNet-121 in a loop: every third check
    7-10 ms slower). A tiny document read next takes the filter's hold."""
    try:
        parser.feed(b"<r/>")
        parser.close()
    except etree.XMLSyntaxError:
        pass


class Document:
    """An IR document being read. `file` is known at once; `is_snippet` from the prolog and for sure once
    reading is done, `ir_version` once reading has begun; `problems` fills in as it goes. `batches()` hands over the top-level layers and edges in
    batches of whole elements and drops each batch from memory when the caller asks for the next."""

    def __init__(self, source, *, max_bytes: int = MAX_BYTES, opened=None, edit=None):
        """`opened`: (a seekable stream at its start, its file name) that `source` was opened as already by
        `opened_source`; the caller then closes it (so that it can be read again). `edit`: called with each
        top-level <layer> element before it is handed over (--shape writes its dims there: reshape.py)."""
        self._keep = opened is not None
        self._edit = edit
        self._stream, self.file = opened or open_source(source, max_bytes)
        try:
            root_tag = check_prolog(self._stream, self.file)
        except BaseException:
            self._close()
            raise
        if root_tag is not None and root_tag not in (b"net", b"layer"):
            self._close()
            raise IRError(f"root element is <{root_tag.decode('utf-8', 'replace')}>, not <net> or <layer>:"
                          " not OpenVINO IR", file=self.file, code="not-ir")
        self.is_snippet = root_tag == b"layer"
        self.ir_version = None
        self.problems = []
        self.notes = []                 # (line, what): what OpenVINO reads otherwise than it is written
        # Past line 65535 libxml2 finds an element's line from the blank text beside it (see line_of), so
        # a longer document keeps its blank text; a shorter one drops it, which parses twice as fast.
        self.keep_blank = lines_over(self._stream, BIG_LINE)

    def _close(self) -> None:
        if not self._keep:
            self._stream.close()

    def _parse_error(self, e) -> IRError:
        said = next((why for what, why in _PUGIXML_READS if what in e.msg), "")
        return IRError(f"not well-formed XML: {e.msg}{said}", file=self.file, line=e.lineno)

    def _version(self, root) -> None:
        """The <net> version: OpenVINO 2022.1 and later read IR v10 and v11 only."""
        v = root.get("version")
        read = ids.number(v)                # a number as an id is: "010", "+11" and " 11" are 11 (measured)
        self.ir_version = read or v
        if v is not None and read is None:
            raise IRError(ids.refusal("net", "version", v), file=self.file, line=line_of(root),
                          code="unsupported-version")
        if v is None or self.ir_version not in IR_VERSIONS:
            old = " (IR v7 and older: OpenVINO 2022.1 and later do not read them)" \
                if v is not None and int(self.ir_version) < 10 else ""
            raise IRError(f'<net version="{v}">: OpenVINO reads IR versions 10 and 11 only{old}'
                          if v is not None else "<net> has no version attribute: OpenVINO reads IR v10 and v11",
                          file=self.file, line=line_of(root), code="unsupported-version")

    def _holder(self, el, holders) -> None:
        """A <net>'s <layers> or <edges> just begun: the first of each is a holder (read_model reads only that,
        pugixml's child()), a later one a note. A bare <layer>'s own <layers>, <edges> or <net> are no net's."""
        parent = el.getparent()
        if parent.getparent() is not None or parent.tag != "net" or el.tag not in _HOLDS:
            return
        if not holders:
            self._version(parent)
        if all(h.tag != el.tag for h in holders):
            holders.append(el)
        else:
            self.notes.append((line_of(el), f"a second <{el.tag}> element, which OpenVINO ignores (it reads the first)"))

    def batches(self):
        """Yield (holder, n): the first n children of a top-level <layers> or <edges> are complete.
        A bare <layer> comes as (None, the layer)."""
        parser = etree.XMLPullParser(events=("start",), tag=("net", "layers", "edges"),
                                     remove_blank_text=not self.keep_blank, **PARSER_OPTIONS)
        holders, root, top = [], None, None
        try:
            ahead = self._stream.read(_FIRST_FEED)
            while True:
                # (read one chunk ahead: the batch that ends the file is known to be the last, and is not deleted)
                chunk, ahead = ahead, self._stream.read(_FEED) if ahead else b""
                try:
                    if chunk:
                        parser.feed(chunk)
                    if not ahead:
                        root = parser.close()
                except etree.XMLSyntaxError as e:
                    raise self._parse_error(e) from None
                for _, el in parser.read_events():
                    if el.getparent() is None:
                        top = no_dtd(el, self.file)
                    else:
                        self._holder(el, holders)
                for k, holder in enumerate(holders):
                    n = len(holder) if root is not None or k < len(holders) - 1 else len(holder) - 1
                    if n > 0:
                        if self._edit is not None and holder.tag == "layers":
                            for el in holder[:n]:
                                self._edit(el)
                        yield holder, n
                        if root is None or self.keep_blank:     # (a short file's last batch goes with the document:
                            del holder[:n]                      # deleting a slice costs ~1.5 us an element)
                for other in top if top is not None else ():
                    # <rt_info> and the like: irpool reads none of it. Its complete children go as they come
                    # (keeping the last, which may still be arriving): memory stays flat, and the skeleton's
                    # RELAX NG check does not meet 16 MB of them (measured: quadratic, 244 s).
                    if len(other) > 1 and not any(other is h for h in holders):
                        del other[:-1]
                if root is not None:
                    break
        finally:
            self._close()
            if root is not None:
                _release(parser)
        if root is None or not isinstance(root.tag, str) or root.tag not in ("net", "layer"):
            raise IRError("no <net> or <layer> root element: not OpenVINO IR", file=self.file, code="not-ir")
        no_dtd(root, self.file)
        self.is_snippet = root.tag == "layer"       # the prolog peek may not have seen the root
        if self.is_snippet:
            yield None, root
        else:
            if not holders:
                self._version(root)
            _validate(root if self.keep_blank else _skeleton(root, holders), self.problems)

    def elements(self):
        """Yield each top-level <layer> and <edge> element in document order (one that does not belong where it
        is written is a problem, not yielded); a bare <layer> as itself."""
        for holder, n in self.batches():
            if holder is None:
                yield n
                continue
            for el in holder[:n]:
                if belongs(el, holder, self.notes):
                    yield el

    def items(self):
        """Yield each top-level Layer and Edge in document order."""
        for el in self.elements():
            if el.tag == "layer":
                yield read_layer(el, self.problems)
            else:
                edge = read_edge(el, self.problems)
                if edge is not None:
                    yield edge


EDGE_ENDS = ("from-layer", "from-port", "to-layer", "to-port")
_HOLDS = {"layers": "layer", "edges": "edge"}


def belongs(el, holder, notes) -> bool:
    """Whether `el` is what its top-level holder holds (<layer> in <layers>, <edge> in <edges>); if not, a note
    (line, what): read_model reads only those there (ir_deserializer.cpp: FOREACH_CHILD by name) and ignores it."""
    want = _HOLDS[holder.tag]
    if el.tag == want:
        return True
    notes.append((line_of(el), f"<{el.tag}> inside <{holder.tag}>, which OpenVINO ignores (it reads only the <{want}>"
                               " elements there)"))
    return False


def read_edge(el, problems) -> Edge | None:
    vals = [el.get(k) for k in EDGE_ENDS]
    if None in vals:
        missing = [k for k, v in zip(EDGE_ENDS, vals) if v is None]
        problems.append((line_of(el), f"structure: <edge> lacks {', '.join(missing)}"))
        return None
    read, bad = ids.edge(vals)
    if bad is not None:
        problems.append((line_of(el), ids.refusal("edge", EDGE_ENDS[bad], vals[bad])))
        return None
    return Edge(*read, line=line_of(el))


_POOL_NAMES = {"maxpool": "MaxPool", "avgpool": "AvgPool"}


def op_type(el) -> str | None:
    """A <layer>'s type as OpenVINO makes it: the pooling ops' names in any case ("maxpool", "AVGPOOL": read as
    MaxPool and AvgPool, measured, 2026.4.1); other names as written."""
    return op_type_of(el.get("type"))


def op_type_of(t: str | None) -> str | None:
    """op_type of a type attribute as written."""
    return _POOL_NAMES.get(t.lower(), t) if t is not None else None


def read_layer(el, problems) -> Layer:
    """A <layer> in full (but for the nets of a body: check reads those, as nets of their own)."""
    data, data_line, sections, odd = {}, line_of(el), {}, el.get("id") is None or el.get("type") is None
    notes = []
    for child in el:
        tag = child.tag
        if tag == "data" and "data" in sections:     # OpenVINO reads the first <data> and ignores the others
            notes.append((line_of(child), "a second <data> element, which OpenVINO ignores (it reads the first)"))
        elif tag == "data":
            sections["data"] = ()
            data, data_line = dict(child.attrib), line_of(child)
        elif (tag == "input" or tag == "output") and tag in sections:     # OpenVINO reads the first of each
            notes.append((line_of(child), f"a second <{tag}> element, which OpenVINO ignores (it reads the first)"))
        elif tag == "input" or tag == "output":
            ports = []
            for p in child:
                if p.tag != "port" or p.get("id") is None:
                    odd = True
                    continue
                ports.append(_port(p, problems, el, notes))
            sections[tag] = ports
    if odd:
        _validate(el, problems)
    return Layer(ids.key(el.get("id")), el.get("name"), op_type(el), el.get("version"), line_of(el), data, data_line,
                 sections.get("input", []), sections.get("output", []), notes)


def content_key(el) -> tuple:
    """What a <layer> says but for its id and name, its <rt_info> and its ports' tensor names: two layers
    with the same key check and run alike (OpenVINO writes a name in each of these, so a key that kept
    them would be different for every layer)."""
    parts = [tuple([kv for kv in el.items() if kv[0] != "id" and kv[0] != "name"])]
    for child in el:
        tag = child.tag
        if tag == "input" or tag == "output":
            parts.append(tag)
            for p in child:
                parts.append((p.tag, tuple([kv for kv in p.items() if kv[0] != "names"]),
                              tuple([(d.tag, d.text, tuple(d.items())) for d in p])))
        elif tag != "rt_info":
            parts.append(etree.tostring(child, with_tail=False))
    return tuple(parts)


def light_ports(el, plain=False, checked=False):
    """((output port id, raw dims), ...), ((input port id, raw dims), ...) of a layer irpool does not model,
    read in the fewest steps; None when anything about it is odd, and the caller should read it in full.
    `plain`: every child of its ports is a <dim> (a third faster); `checked`: its id and type are there."""
    if not checked and (el.get("id") is None or el.get("type") is None):
        return None
    outs = ins = None
    spelled, known = spellings(), ids.PORTS
    for section in el.iterchildren("input", "output"):
        out = section.tag == "output"
        if (outs if out else ins) is not None:
            return None
        ports = []
        for p in section:
            pid = p.get("id")
            if pid not in known or p.tag != "port" or out and p.get("precision") not in spelled:
                return None
            ports.append((pid, tuple([d.text for d in p] if plain else [d.text for d in p.iterchildren("dim")])))
        if len(ports) > 1 and len({pid for pid, _ in ports}) != len(ports):
            return None
        outs, ins = (tuple(ports), ins) if out else (outs, tuple(ports))
    return outs or (), ins or ()


def _port(el, problems, layer, notes=None) -> Port:
    """A <port>; `notes` collects (line, what) of each <dim> written otherwise than OpenVINO writes dims but
    read by it."""
    dims, raw, lines = [], [], []
    for d in el.iterchildren("dim"):
        raw.append(d.text)
        lines.append(line_of(d))
        try:
            dim, odd = port_dim(d.text)
        except ValueError as e:
            problems.append((line_of(d), f"layer id={layer.get('id')} name={layer.get('name')!r} port {el.get('id')}:"
                                         f" <dim>{d.text if d.text is not None else ''}</dim> is not a dimension: {e}"
                                         " (an integer >= 0, -1 for dynamic, or an interval a..b)"))
            dim, odd = DYNAMIC, False
        if odd and notes is not None:
            notes.append((line_of(d), f"OpenVINO reads <dim>{d.text}</dim> as {text(dim)}"))
        dims.append(dim)
    pid = el.get("id")
    read = ids.number(pid)
    if read is None and pid is not None:
        problems.append((line_of(el), f"layer id={layer.get('id')} name={layer.get('name')!r}: "
                                      + ids.refusal("port", "id", pid)))
    return Port(read or pid, el.get("precision"), el.get("names"), line_of(el), tuple(raw), tuple(lines), dims)


def parse(source, *, max_bytes: int = MAX_BYTES) -> Net:
    """The whole document as a Net (every layer in full); raises IRError when it is not XML or not IR."""
    doc = Document(source, max_bytes=max_bytes)
    layers, edges = [], []
    for item in doc.items():
        (layers if isinstance(item, Layer) else edges).append(item)
    return Net(doc.file, doc.is_snippet, doc.ir_version, layers, edges, doc.problems)
