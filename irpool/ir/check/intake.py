"""Reading a net's layers as they stream in: each <layer> read light or in full (the quick path takes the common
layer in the fewest steps), its id, name and signature remembered (flat memory: signatures numbered, the rare new
ones spilled compressed), its odd <dim>s, what a Parameter, Const or Convert gives. Who a layer says it is
(identity.py), a Parameter (parameters.py), what a few types need besides (typed_layers.py) and a shadowed layer
(shadowed.py) are functions of their own, which return what they found, so that this module holds the reading that
every layer goes through."""
from __future__ import annotations

from dataclasses import replace

from lxml import etree

from ..read import ids
from ..ops.consts import bytes_problem, shape_count
from ..read.dims import plain_int, port_dim, text
from ..read.element_types import const_element_type, element_type
from ..ops.family import FAMILY_TYPES, is_family
from ..ops.fold import SHAPE_OPS
from ..graph.built import ROOTS
from ..ops.pools import POOL_TYPES, is_pooling
from ..read.op_names import no_op
from ..read.opsets import CRASHES, SHIPPED
from .found import Found
from .identity import id_problems
from .memos import BUILDS, Memo
from .parameters import check_output_precisions, parameter
from ..read.layer_edge import Layer, content_key, light_ports, op_type, op_type_of, read_layer
from ..read.structure import belongs, line_of
from .pooling import Outcome, emit
from .shadowed import shadowed
from .typed_layers import BODY_TYPES, by_type

_GRAPH_TYPES = frozenset(ROOTS + ("Parameter",))   # the layers graph/built.py is told of, with every layer with inputs


_PLAIN, _CONST, _OTHER = 0, 1, 2
_SPECIAL = frozenset(("Parameter", "Convert") + POOL_TYPES + FAMILY_TYPES + BODY_TYPES + ROOTS) | SHAPE_OPS


_CONST_TYPES = Memo(const_element_type)
_COUNTS = Memo(shape_count)       # a Const's shape -> how many values it holds (None: read_model refuses it)


def _kind(written) -> int:
    """_PLAIN: a layer type only the dims of whose ports check reads (what Intake.layer, by_type, source and the
    graph's roots never look at); _CONST: a Const; _OTHER: anything else, read on the full path."""
    if written == "Const":
        return _CONST
    return _OTHER if written is None or op_type_of(written) != written or written in _SPECIAL or no_op(written) \
        or written.lower() in CRASHES else _PLAIN


_KINDS = Memo(_kind)           # a type attribute as written -> _PLAIN, _CONST or _OTHER


_NOT_DIM = etree.XPath("count(layer/*/port/*) - count(layer/*/port/dim)")


def _only_dims(holder) -> bool:
    """Whether every child of every port of the batch's layers is a <dim> (one XPath count; a port's <rt_info>
    makes it False, and its ports are read child by child)."""
    return not _NOT_DIM(holder)


class Intake:
    """Every layer of a net as it is read (a mixin of check's NetCheck)."""

    def layers(self, holder, n) -> None:
        """A batch of <layers>' children, each read light where it can be (the common case) or in full."""
        problems = self.doc.problems
        quick = self.quick if not self.doc.is_snippet and not self.waits.duplicates else None
        plain = None if quick is None else _only_dims(holder)
        for el in holder[:n]:
            if quick is not None and quick(el, plain):
                continue
            if el.tag != "layer":
                belongs(el, holder, self.doc.notes)         # (a note, with its line)
                continue
            ltype = op_type(el)
            lid, found = id_problems(el, el.get("id"), ltype, self.doc.is_snippet)
            self.take(found)
            if lid in self.waits.duplicates:
                if self.dup.occurrence(lid) < self.waits.duplicates[lid]:
                    self.take(shadowed(el, lid, ltype, self.doc.ir_version, self.dup))
                    continue
            if ltype == "Parameter":
                self.dup.parameter(lid)
            new = self.seen.row(lid) is None
            if not new:
                self.dup.again(lid)      # (judged in the next pass, the last layer built)
                self.finding("duplicate-id", f"layer id {lid} is used by more than one layer", line_of(el), el=el)
            if ltype in BODY_TYPES:
                self.holder_read(el, lid)
            given, found = by_type(el, lid, ltype, self.kept, self.doc.ir_version, lid in self.waits.consts)
            self.take(found)
            if ltype in FAMILY_TYPES:
                self.layer(read_layer(el, problems))
                continue
            read = self.light(el, lid, ltype)
            if read is not None and new:
                ports, judged = read
                self.remember(lid, el.get("name"), ltype, ports, el)
                if ltype in POOL_TYPES:
                    self.types.keep(len(self.seen) - 1, judged)
                elif ltype == "Const":
                    self.const_read(given, el)
                elif ltype in ("Convert", "Parameter"):
                    data = el.find("data")
                    self.source(len(self.seen) - 1, ltype, data.attrib if data is not None else None)

    def quick(self, el, plain) -> bool:
        """A layer that only its ports' dims matter of (the common case: a layer irpool does not model, or a Const),
        new and clean as written, taken in the fewest steps (what layers() would do, less the lookups that find
        nothing); False, and nothing done, where it is anything else. `plain`: every port's children are <dim>s."""
        get = el.get
        lid, written = get("id"), get("type")
        kind = _KINDS[written]
        if kind == _OTHER or el.tag != "layer":
            return False
        name, version = get("name"), get("version")
        if lid is None or name is None or version not in SHIPPED or not BUILDS[version][written] \
                or not ids.plain(lid) or self.seen.row(lid) is not None:
            return False
        ports = light_ports(el, plain, checked=True)
        if ports is None:
            return False
        given = None
        if kind == _CONST:
            given = self.quick_const(el, lid, len(ports[0]) > 1 or ports[1])
            if given is None:
                return False
        self.remember(lid, name, written, ports, el)
        if given is not None:
            self.const_read(given, el)
        return True

    def quick_const(self, el, lid, odd_ports):
        """A Const on the quick path: the type it gives, where its <data> is clean as written (and it is kept if it
        may be a shape input); None, and nothing done, where the full path must read it (`odd_ports`: it has more
        than one output port, or an input)."""
        data = el.find("data")
        if data is None or odd_ports:
            return None                                     # (the full path says what is wrong)
        given = _CONST_TYPES[data.get("element_type")]
        offset, size = data.get("offset"), data.get("size")
        if given is None or offset is None or size is None or not plain_int(offset) or not plain_int(size):
            return None
        n = _COUNTS[data.get("shape")]
        if n is None or bytes_problem(n, int(offset), int(size), given, self.kept.weights) is not None:
            return None
        self.kept.written(el, lid, data, lid in self.waits.consts)
        return given

    def const_read(self, given, el) -> None:
        """The Const just remembered: the type it gives; where the weights file is missing, its row and line (read_model
        refuses the first Const it builds: finish says it once)."""
        row = len(self.seen) - 1
        self.types.keep(row, given)
        if self.kept.weights.missing:
            self.kept.weightless_const(row, line_of(el))

    def light(self, el, lid, ltype):
        """(its ports as (id, raw dims) pairs, the type a pool was judged on) of a layer read light: a Parameter or
        pool written as one already found clean (content_key), or a layer irpool does not model; None where it is
        read in full instead (self.layer has done all)."""
        if ltype == "Parameter" or ltype in POOL_TYPES:
            key = content_key(el)
            known = self.memos.clean.get(key)
            if known is None or self.seat_late(lid, ltype) or lid in self.inner.forced:
                self.layer(read_layer(el, self.doc.problems), key)
                return None
            ports, rec, judged = known
            if rec is not None:                         # explain: the same record, for this layer
                emit(self.report, rec | dict(layer=replace(rec["layer"], id=lid, name=el.get("name"),
                                                           line=line_of(el))))
            if ltype in POOL_TYPES:
                self.report.count(ltype)
            return ports, judged
        ports = light_ports(el)
        if ports is None:
            self.layer(read_layer(el, self.doc.problems))
            return None
        return ports, None

    def seat_late(self, lid, ltype) -> bool:
        """Whether pooling layer `lid` is judged in finish, on what its producer gives (a reading before found its
        producer contradicts it, or it is among the first that wait), rather than as read. It takes one of the
        _PATIENT seats if one is left and it has none (pending.patient_for): asked again, it answers alike."""
        return lid in self.waits.pools or ltype in POOL_TYPES and self.pending.patient_for(lid)

    def source(self, row, layer_type, data) -> None:
        """A Parameter, Const or Convert: the type it gives (types.source); a Convert to another type than bf16
        is where the plugin runs a bf16 chain in f32 (graph_verdicts.f32_chain)."""
        self.types.source(row, layer_type, data)
        et = self.types.source_type(row)
        if layer_type == "Convert" and et is not None and et.name != "bf16":
            self.held.convert(row)

    def layer(self, layer: Layer, key=None) -> None:
        """A layer read in full: a pooling or Parameter layer, or one the light reading found odd. `key`:
        the layer as written but for its id, name, rt_info and port names (content_key); a key that gave no
        finding is not checked again."""
        findings, problems = len(self.report.findings), len(self.doc.problems)
        judged = Outcome(None, None)
        self.take(check_output_precisions(layer, self.doc.is_snippet))
        for line, what in layer.notes:
            self.finding("lenient-attribute", what, line, layer)
        for ports in (layer.inputs, layer.outputs):
            ids = [p.id for p in ports]
            for pid in sorted({i for i in ids if ids.count(i) > 1}):
                self.finding("duplicate-id", f"port id {pid} appears {ids.count(pid)} times", layer.line, layer)
        indices = len(self.held.index_ports)
        # (an input port that names no type, which OpenVINO does not read anyway: its producer's, once the edges
        # are read, as for dims it does not know; its consumers collected, as for a type the layout decides)
        untyped = is_pooling(layer) and bool(layer.inputs) and element_type(layer.inputs[0].precision) is None
        waits = is_pooling(layer) and (self.types.waits(layer) or (self.seat_late(layer.id, layer.type) or untyped)
                                       and self.types.watch(layer))
        if layer.type == "Parameter":
            self.parameter(layer)
        elif is_family(layer) and not layer.inputs:
            judged = self.pooling(layer, None)              # (refused: it needs its inputs)
        elif is_family(layer):
            self.pending.wait(layer)                  # its shape input is known once the edges are read
        elif is_pooling(layer):
            self.report.count(layer.type)
            one = len(layer.inputs) == 1 or len(layer.inputs) > 1 and self.doc.ir_version == "10"
            x = layer.inputs[0].dims if one else []
            if one and (not x or not all(isinstance(d, int) for d in x) or self.seat_late(layer.id, layer.type) or untyped):
                self.pending.wait(layer)
                key = None                                  # its outcome depends on the edges
            else:
                judged = self.pooling(layer, x)
        ports = (tuple((p.id, p.raw_dims) for p in layer.outputs), tuple((p.id, p.raw_dims) for p in layer.inputs))
        if key is not None and len(self.report.findings) == findings and len(self.doc.problems) == problems \
                and len(self.held.index_ports) == indices and not waits and layer.id not in self.types.params:
            self.memos.keep_clean(key, (ports, judged.record, judged.type))
        if self.seen.row(layer.id) is None:
            self.remember(layer.id, layer.name, layer.type, ports, layer.line)
            if layer.type in ("Const", "Convert", "Parameter"):
                self.source(len(self.seen) - 1, layer.type, layer.data)
            elif is_pooling(layer) and layer.id not in self.pending.waiting:
                self.types.keep(len(self.seen) - 1, judged.type)

    def parameter(self, layer: Layer) -> None:
        """A Parameter read in full (parameters.parameter): the type it takes, the shape it gives, what is wrong."""
        taken, given, found = parameter(layer, self.inner, self.doc.ir_version)
        self.types.parameter(taken)
        if given is not None:
            self.pending.give((layer.id, layer.outputs[0].id), given[0])    # (its shape, not its port's <dim>s)
        self.take(found)

    def remember(self, lid, name, layer_type, ports, where=None) -> None:
        """A new layer id: its name and signature, (type, output ports, input ports) as (id, raw dims) pairs.
        `where`: its line, or its element."""
        sigs, key = self.sigs, (layer_type,) + ports
        number = sigs.numbers.get(key)
        if number is None:
            number = sigs.add(key)
            found = odd_dims(lid, name, layer_type, ports, where) if hasattr(where, "tag") else ()
            self.take(found)                    # (read light, light_ports: its dims are judged here)
            if found and number >= 0:
                sigs.mark_odd(number)
        elif number in sigs.odd:
            self.take(odd_dims(lid, name, layer_type, ports, where))
        row = self.seen.add(lid, name, number)
        if lid in self.dup.rooted and layer_type not in ROOTS:
            self.graph.root(row)                    # (a shadowed Result's id: the reader walks back from it)
        if layer_type in _GRAPH_TYPES or ports[1]:        # (any layer with input ports needs their edges)
            inputs = len(ports[1]) if self.doc.ir_version != "10" else \
                min(len(ports[1]), 0 if layer_type == "Const" else 1)    # (v10: extra ports; a Const takes none)
            self.graph.layer(row, layer_type, inputs, where if not hasattr(where, "tag") else line_of(where),
                             layer_type not in ROOTS and layer_type != "Parameter")


def odd_dims(lid, name, layer_type, ports, el) -> list:
    """The <dim>s of a layer read light (`ports`, its (id, raw dims) pairs, output ports first) that read_model
    refuses (an error) or reads otherwise than they are written (a warning), as _port judges those of a layer read in
    full (found.Found)."""
    texts = {t for holder in ports for _, dims in holder for t in dims}
    texts.discard("-1")                                 # (a dynamic dim, as OpenVINO writes it)
    joined = "" if None in texts else "".join(texts)
    if not texts or joined.isdigit() and joined.isascii() and (len(joined) < 19 or max(map(len, texts)) < 19):
        return []                                       # (the common case, in one step)
    found, who = [], dict(id=lid, name=name, type=layer_type)
    for side, holder in zip(("output", "input"), ports):
        for pid, dims in holder:
            for t in dims:
                if t is not None and plain_int(t):
                    continue
                try:
                    dim, odd = port_dim(t)
                except ValueError as e:
                    found.append(Found("bad-structure", f"{side} port {pid}: <dim>{t or ''}</dim> is not a dimension:"
                                       f" {e}", _dim_line(el, side, pid, t), who))
                    continue
                if odd:
                    found.append(Found("lenient-attribute", f"{side} port {pid}: OpenVINO reads <dim>{t}</dim> as"
                                       f" {text(dim)}", _dim_line(el, side, pid, t), who))
    return found


def _dim_line(el, side, pid, t) -> int | None:
    """The line of the first <dim> of port `pid` on `side` of layer `el` that holds `t` (the layer's, if none does:
    odd_dims reads ports light, without their elements' lines, and looks only where a dim is odd)."""
    for holder in el.iterchildren(side):
        for port in holder.iterchildren("port"):
            if port.get("id") == pid:
                for d in port.iterchildren("dim"):
                    if d.text == t:
                        return line_of(d)
    return line_of(el)
