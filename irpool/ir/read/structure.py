"""Where things are in an IR document: an element's line (right past line 65535 too), which element a <net>'s
<layers> and <edges> hold, and the RELAX NG check of schemas/ir.rng, on one layer or on the net's skeleton.
Apart from the readers because both the per-element readers (layer_edge.py) and the streaming Document
(document.py) report by line and check structure, and what they report must agree."""
from __future__ import annotations

from copy import deepcopy as copy_of

from lxml import etree

from ... import opdefs

BIG_LINE = 65535          # libxml2 keeps an element's own line in 16 bits
HOLDS = {"layers": "layer", "edges": "edge"}


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


def belongs(el, holder, notes) -> bool:
    """Whether `el` is what its top-level holder holds (<layer> in <layers>, <edge> in <edges>); if not, a note
    (line, what): read_model reads only those there (ir_deserializer.cpp: FOREACH_CHILD by name) and ignores it."""
    want = HOLDS[holder.tag]
    if el.tag == want:
        return True
    notes.append((line_of(el), f"<{el.tag}> inside <{holder.tag}>, which OpenVINO ignores (it reads only the <{want}>"
                               " elements there)"))
    return False


_RNG = None


def _schema() -> etree.RelaxNG:
    global _RNG
    if _RNG is None:
        text = opdefs.read_bytes("ir.rng")
        _RNG = etree.RelaxNG(etree.fromstring(text))
    return _RNG


def validate(el, problems) -> None:
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


def skeleton(root, holders):
    """The net as its RELAX NG check sees it: what its <layers> and <edges> hold left out (those were read batch
    by batch), the rest copied with its lines (a document of at most BIG_LINE lines: libxml2 keeps an element's
    line in 16 bits, and a copy loses what line_of reads past that)."""
    bare = etree.Element(root.tag, dict(root.attrib))
    bare.text, bare.sourceline = root.text, root.sourceline
    for child in root:
        if any(child is h for h in holders) or child.tag in HOLDS:     # (a later <layers>, <edges>: OpenVINO's
            #                                                            reader ignores it, and so does irpool)
            copy = etree.SubElement(bare, child.tag, dict(child.attrib))
            copy.text, copy.tail, copy.sourceline = child.text, child.tail, child.sourceline
        else:
            bare.append(copy_of(child))
    return bare
