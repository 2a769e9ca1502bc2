"""One <layer> or <edge> element read: the Layer, Port and Edge that checking and running take, the quick read of
a layer irpool does not model (light_ports), and what makes two layers alike (content_key). Apart from the
streaming Document (document.py) because check and run read elements one at a time, without a Document."""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from lxml import etree

from . import ids
from .dims import DYNAMIC, port_dim, text
from .element_types import spellings
from .op_names import FAMILY_TYPES, POOL_TYPES
from .structure import line_of, validate

REQUIRED = ("id", "name", "type", "version")       # on every layer of a net, or read_model refuses the file
EDGE_ENDS = ("from-layer", "from-port", "to-layer", "to-port")


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
            counted = tag == "output" and op_type(el) in POOL_TYPES + FAMILY_TYPES     # (their extra ports: check)
            sections[tag] = _first_of_an_id(ports, notes) if counted else ports
    if odd:
        validate(el, problems)
    return Layer(ids.key(el.get("id")), el.get("name"), op_type(el), el.get("version"), line_of(el), data, data_line,
                 sections.get("input", []), sections.get("output", []), notes)


def _first_of_an_id(ports: list, notes: list) -> list:
    """A pooling layer's output ports as OpenVINO's reader takes them: an edge from port id P reads the first output
    port of that id, and none reads a later one (measured, 2026.4.1, IR v10 and v11: a MaxPool-8 whose indices port
    repeats its values port's id reads, compiles and runs, the edge giving the values), so a later one keeps its
    place but takes an id no edge names. (Another op's: a duplicate-id, as check knows no op's output count; one
    port past the count is refused, as read_model refuses it: "node index is out of range".)"""
    seen, out = set(), []
    for p in ports:
        if p.id in seen:
            n = sum(q.id == p.id for q in ports)
            notes.append((p.line, f"output port id {p.id} appears {n} times: OpenVINO's reader takes an edge from port"
                                  f" {p.id} for the first of them, and no edge reads the others"))
            p = replace(p, id=f"{p.id} (again, line {p.line})")
        seen.add(p.id)
        out.append(p)
    return out


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
