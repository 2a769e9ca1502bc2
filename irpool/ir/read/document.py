"""Read OpenVINO IR XML (a whole <net> or a bare <layer>) as a stream of layers and edges with line numbers.

Safe for files from anywhere: a document whose prolog declares a DTD or entities is refused before lxml
reads it, and lxml runs with entities, DTD loading and network off. The file is read with iterparse and
each top-level layer is dropped from memory once it is handed over, so checking a 200 MB IR stays in
bounded memory. Structure is judged by schemas/ir.rng: on the net's skeleton once the layers are gone,
and on any layer the reader finds odd (a missing id or type, a repeated section); what fails it becomes
a `bad-structure` problem with its line, and reading goes on where it can. One element is read by
layer_edge.py, lines and the structure check are structure.py's.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from ...errors import IRError
from ...limits import MAX_BYTES
from . import ids
from .layer_edge import Layer, read_edge, read_layer
from .sources import check_prolog, lines_over, no_dtd, open_source, push_encoding
from .structure import BIG_LINE, HOLDS, belongs, line_of, skeleton, validate


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


PARSER_OPTIONS = dict(resolve_entities=False, no_network=True, load_dtd=False, dtd_validation=False,
                       huge_tree=False, remove_comments=True, remove_pis=True, collect_ids=False)
IR_VERSIONS = ("10", "11")


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


def _drop_unread(top, holders) -> None:
    """<rt_info> and the like: irpool reads none of it. Its complete children go as they come (keeping the last,
    which may still be arriving): memory stays flat, and the skeleton's RELAX NG check does not meet 16 MB of them
    (measured: quadratic, 244 s)."""
    for other in top if top is not None else ():
        if len(other) > 1 and not any(other is h for h in holders):
            del other[:-1]


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
            head = self._stream.read(4)         # (what tells the encoding: the prolog's scan and the parser's)
            self._stream.seek(0)
            self._encoding = push_encoding(head)
            root_tag = check_prolog(self._stream, self.file, head)
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
        msg = e.msg.replace("\n", "")          # (libxml2 ends some in a newline: "detecting EBCDIC\n, line 1")
        return IRError(f"not well-formed XML: {msg}{said}", file=self.file, line=e.lineno)

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
        if parent.getparent() is not None or parent.tag != "net" or el.tag not in HOLDS:
            return
        if not holders:
            self._version(parent)
        if all(h.tag != el.tag for h in holders):
            holders.append(el)
        else:
            self.notes.append((line_of(el), f"a second <{el.tag}> element, which OpenVINO ignores (it reads the first)"))

    def _fed(self, parser):
        """Feed `parser` the file a chunk at a time, yielding after each: None, and the root element once the file
        has ended. (It reads one chunk ahead: the batch that ends the file is known to be the last, and is not
        deleted.)"""
        root = None
        ahead = self._stream.read(_FIRST_FEED)
        while True:
            chunk, ahead = ahead, self._stream.read(_FEED) if ahead else b""
            try:
                if chunk:
                    parser.feed(chunk)
                if not ahead:
                    root = parser.close()
            except etree.XMLSyntaxError as e:
                raise self._parse_error(e) from None
            yield root

    def _started(self, parser, holders, top):
        """The elements `parser` has begun since it was last asked: the root element (returned, once it has begun)
        or a <net>'s <layers> and <edges> (added to `holders`)."""
        for _, el in parser.read_events():
            if el.getparent() is None:
                top = no_dtd(el, self.file)
            else:
                self._holder(el, holders)
        return top

    def _complete(self, holders, ended):
        """Yield (holder, n) for the complete children of each holder (all of them once the file has `ended`, else
        all but the last holder's last, which may still be arriving), each edited first, and drop them after."""
        for k, holder in enumerate(holders):
            n = len(holder) if ended or k < len(holders) - 1 else len(holder) - 1
            if n > 0:
                if self._edit is not None and holder.tag == "layers":
                    for el in holder[:n]:
                        self._edit(el)
                yield holder, n
                if not ended or self.keep_blank:     # (a short file's last batch goes with the document:
                    del holder[:n]                   # deleting a slice costs ~1.5 us an element)

    def _ended(self, root, holders) -> None:
        """The document read: its root must be <net> or <layer>; a net's version and skeleton are checked."""
        if root is None or not isinstance(root.tag, str) or root.tag not in ("net", "layer"):
            raise IRError("no <net> or <layer> root element: not OpenVINO IR", file=self.file, code="not-ir")
        no_dtd(root, self.file)
        self.is_snippet = root.tag == "layer"       # the prolog peek may not have seen the root
        if not self.is_snippet:
            if not holders:
                self._version(root)
            validate(root if self.keep_blank else skeleton(root, holders), self.problems)

    def batches(self):
        """Yield (holder, n): the first n children of a top-level <layers> or <edges> are complete.
        A bare <layer> comes as (None, the layer)."""
        parser = etree.XMLPullParser(events=("start",), tag=("net", "layers", "edges"), encoding=self._encoding,
                                     remove_blank_text=not self.keep_blank, **PARSER_OPTIONS)
        holders, root, top = [], None, None
        try:
            for root in self._fed(parser):
                top = self._started(parser, holders, top)
                yield from self._complete(holders, ended=root is not None)
                _drop_unread(top, holders)
                if root is not None:
                    break
        finally:
            self._close()
            if root is not None:
                _release(parser)
        self._ended(root, holders)
        if self.is_snippet:
            yield None, root

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


def parse(source, *, max_bytes: int = MAX_BYTES) -> Net:
    """The whole document as a Net (every layer in full); raises IRError when it is not XML or not IR."""
    doc = Document(source, max_bytes=max_bytes)
    layers, edges = [], []
    for item in doc.items():
        (layers if isinstance(item, Layer) else edges).append(item)
    return Net(doc.file, doc.is_snippet, doc.ir_version, layers, edges, doc.problems)
