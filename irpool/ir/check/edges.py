"""The edges of a net: most stream by on a fast path (both ends declare the same dims); the others are looked at
for what they join, what they feed a waiting pooling layer, and the element types they carry."""
from __future__ import annotations

from lxml import etree

from ...opdefs import load
from ..read import ids
from ..read.ids import PORTS, plain
from .typed_layers import BODY_TYPES
from ..ops.pools import POOL_TYPES
from ..read.structure import BIG_LINE, belongs, line_of
from ..read.layer_edge import EDGE_ENDS, read_edge
from ..graph.waits import Pool
from .found import Found
from .held import used_at

_EDGE_XPATHS = [etree.XPath(f"edge/@{k}", smart_strings=False) for k in EDGE_ENDS]


_WATCHED = frozenset(("Convert",) + POOL_TYPES)   # consumers whose edges may need a look at the type their producer gives


def _stops(waiting, shape_ops, param_slots, index_ports, outputs, most=1 << 8) -> tuple:
    """(consumer ids, producer ids, whether to look (producer, port) up in index_ports and outputs too) of the
    edges that need Edges.edge, for a batch of edges (no edge changes what they are made of: their layers were read,
    or judged, before them). Two sets while the dicts are small; past `most` entries, the dicts looked up in turn (a
    set a batch would cost a file of many waiting layers its time again and again)."""
    if len(waiting) + len(shape_ops) + len(param_slots) + len(index_ports) + len(outputs) <= most:
        return (waiting.keys() | shape_ops.keys() | param_slots.keys(),
                waiting.keys() | {fl for fl, _ in index_ports} | {fl for fl, _ in outputs}, False)
    return _Any(waiting, shape_ops, param_slots), waiting, True


class _Any:
    """`x in _Any(a, b, ...)`: x in any of them."""
    def __init__(self, *holders):
        self.holders = holders

    def __contains__(self, x) -> bool:
        return any(x in h for h in self.holders)


class Edges:
    def maybe_fused(self, fl, fp, tl, line) -> None:
        """An edge into a Convert: from a string Parameter or Const, which the plugin cannot convert; from a
        pool's data output, to a type the plugin fuses into the pool (schemas/openvino.json "fused_convert"):
        judged in finish, once every consumer of the pool is known."""
        src, dst = self.sigs.of(fl), self.sigs.of(tl)
        if src and dst and dst.type == "Convert" and src.type in ("Parameter", "Const"):
            et = self.producers.given_type(fl, fp)
            if et is not None and et.name == "string":
                info = self.sigs.info(tl)
                self.take([Found("bad-precision", f"a Convert of the string {src.type} {fl}: OpenVINO's CPU plugin has"
                                 " no such conversion and refuses the model (\"Cannot fallback on ngraph reference"
                                 " implementation\")", line, {"id": tl, "name": info.name, "type": info.type}, True)])
        if src and dst and src.type in POOL_TYPES and dst.type == "Convert" and src.outputs and fp == src.outputs[0][0]:
            et = self.types.source_type(self.seen.row(tl))
            if et is not None and et.name in load("openvino")["fused_convert"]["destination_types"]:
                self.held.fuse(fl, tl, line)

    def edges(self, holder, n) -> None:
        ends = [x(holder) for x in _EDGE_XPATHS]
        if any(len(e) != len(holder) for e in ends):    # not every child an edge with 4 ends: read each in full
            edges = [read_edge(el, self.doc.problems) if belongs(el, holder, self.doc.notes) else None
                     for el in holder[:n]]
            edges, each = [e and (e.from_layer, e.from_port, e.to_layer, e.to_port) for e in edges], False
        else:
            edges, each = list(zip(*ends))[:n], not ids.plain_ends(ends)
        odd = self.stream(zip(holder[:n], edges), each)     # (holder[i] would walk the children from the start)
        if odd:
            self.stream(odd, False)

    def stream(self, pairs, each) -> list:
        """The (element, ends) pairs of a batch of edges; where `each`, those with an end not written plainly
        ("03", "+3": ids.py), as read_model reads them, to stream again (refused: a problem)."""
        waiting, outputs = self.pending.waiting, self.pending.outputs
        index_ports, shape_ops = self.held.index_ports, self.kept.shape_ops
        row, value, signature, graph, types = self.seen.finder(), self.seen.value, self.sigs.at, self.graph, self.types
        kept, before_layers = self.sigs.by_number, not len(self.seen)
        out_types, param_slots = self.pending.out_types, self.dup.param_slots
        graph.grow(len(self.seen))
        ports = graph.ports
        rows, odd = [], []                              # (producer row, consumer row, line) of each edge
        stop_to, stop_from, by_port = _stops(waiting, shape_ops, param_slots, index_ports, outputs)
        for el, e in pairs:
            if e is None:
                continue
            if (before_layers or each and not (plain(e[0]) and e[1] in PORTS and plain(e[2]) and e[3] in PORTS)) \
                    and (not self.plain_edge(el, e, odd) or before_layers):
                continue
            fl, fp, tl, tp = e
            ra, rb = row(fl), row(tl)
            if ra is not None and rb is not None:
                na, nb = value[ra], value[rb]
                a = kept[na] if na >= 0 else signature(na)
                b = kept[nb] if nb >= 0 else signature(nb)
                i = b.positions.get(tp)
                if i is not None:                       # graph.edge, its common case written out (a third faster)
                    line = el.sourceline
                    if i < 8 and ra < rb and not ports[rb] >> i & 1 and line is not None and line < BIG_LINE:
                        ports[rb] |= 1 << i
                        rows += (ra, rb, line)
                    else:
                        graph.edge(ra, rb, i, tp, line_of(el), rows)
                if a.out_dims.get(fp, 0) == b.in_dims.get(tp, 1) and tl not in stop_to and fl not in stop_from \
                        and not (by_port and ((fl, fp) in index_ports or (fl, fp) in outputs)) \
                        and not (out_types and (fl, fp) in out_types) \
                        and (b.type not in _WATCHED or not types.differ(ra, rb, a.type, b.type)) \
                        and not ((types.pending or types.params) and types.wants(fl, tl)):
                    continue                                                    # both ends declare the same dims
            elif not each and (len(fl) > 18 or len(tl) > 18) and not self.plain_edge(el, e, odd):
                continue                                # (a number past 2^63: plain_ends lets it by)
            self.edge(fl, fp, tl, tp, line_of(el))
        graph.batch(rows)
        return odd

    def plain_edge(self, el, e, odd) -> bool:
        """Whether edge `e` is written as OpenVINO writes edges (or, before the layers, kept for later); if not,
        it goes to `odd` as read_model reads it, or is refused (a problem)."""
        read, bad = ids.edge(e)
        if bad is not None:
            self.doc.problems.append((line_of(el), ids.refusal("edge", EDGE_ENDS[bad], e[bad])))
            return False
        if not len(self.seen):
            self.pending.early(read + (line_of(el),))
            return False
        if read != e:
            odd.append((el, read))
            return False
        return True

    def edge(self, fl, fp, tl, tp, line) -> None:
        slot = self.dup.param_slots.get(tl)
        if slot is not None and fl not in slot and getattr(self.sigs.of(tl), "type", "Parameter") != "Parameter":
            info = self.sigs.info(tl)
            self.finding("bad-graph", f"layer {tl} takes the place of an earlier Parameter of that id, where"
                         f" OpenVINO's reader builds it among the inputs, before layer {fl}, which feeds it: read_model"
                         " refuses the file (\"Attempt to access node ... that not in graph\"), or crashes when the"
                         " layer feeds itself", line, el={"id": tl, "name": info and info.name, "type": info and info.type})
        self.maybe_fused(fl, fp, tl, line)
        if self.types.wants(fl, tl):
            self.say(self.types.edge(fl, fp, tl, tp, line, self.sigs.info(tl), tl in self.pending.waiting))
        self.pass_type(fl, fp, tl)
        if tl in self.pending.waiting or tl in self.kept.shape_ops:
            self.pending.feed((tl, tp), (fl, fp))
        else:
            self.producer(fl, fp, tl, tp)
        why = self.held.edge_read(fl, fp, tl)
        self.pending.read((fl, fp), (tl, tp), line)
        if why:
            src = self.sigs.info(fl)                  # (OpenVINO's only where its reader builds the pool: build-time)
            self.take([Found(why[0], used_at(why[1], fl, fp, tl, tp), line,
                             {"id": fl, "name": src and src.name, "type": src and src.type}, True, reader=tl)])
        problem = self.producers.edge_problem(fl, fp, tl, tp)
        late = tl in self.pending.waiting and (tl in self.waits.pools or tl in self.pending.patient)
        if problem and problem.joins and late:
            self.pending.join((tl, tp), problem.message, line)  # said in finish(), with what --fix writes
        elif problem:
            dst = self.sigs.info(tl)
            el = {"id": tl, "name": dst.name, "type": dst.type} if dst else None
            if problem.joins:
                self.finding("edge-mismatch", problem.message, line, el=el, fix=self.producers.join_fix(fl, fp, tl, tp))
            else:                           # a missing end: an error only where the reader builds the consumer
                self.pending.loose_end(problem.message, line, el, self.seen.row(tl))

    def pass_type(self, fl, fp, tl) -> None:
        """A pool fed by a Parameter whose element_type its port does not declare (or by such a pool) gives that
        type on: remembered for the family layers that wait for the edges (finish() gives it them)."""
        et = self.types.params[fl][0] if fl in self.types.params else self.pending.out_types.get((fl, fp))
        if et is None:
            return
        dst = self.sigs.of(tl)
        if dst is not None and dst.type in POOL_TYPES and dst.outputs:
            self.pending.give_type((tl, dst.outputs[0][0]), et)

    def producer(self, fl, fp, tl, tp) -> None:
        """A pooling layer checked on its declared input, which its producer contradicts: OpenVINO computes it
        from the producer's dims, so check takes it again, waiting for them (check's next pass). A TensorIterator,
        Loop or If gives its bodies what the producer gives: judged in finish()."""
        dst = self.sigs.of(tl)
        if dst is not None and dst.type in BODY_TYPES:
            self.inner.outer_feed(fl, fp, tl, tp)
            return
        if dst is None or dst.type not in POOL_TYPES or not dst.inputs or dst.inputs[0][0] != tp:
            return
        if fl in self.types.params:
            self.waits.later(Pool(tl))      # its type is a Parameter's element_type that the ports do not declare
        elif fl in self.pending.waiting:
            self.pending.after_wait((fl, fp, tl))   # its producer's output is known in finish (contradicts())
        elif self.producers.contradicts(fl, fp, tl):
            self.waits.later(Pool(tl))
