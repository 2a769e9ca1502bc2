"""The body of a TensorIterator or Loop, and the branches of an If: each a net of its own, checked by the same
code, its Parameters given what the outer layer's producers give (read/body_ports.py): in finish, where they are
known (Inner.defer), or as read past what check keeps, the dims a reading before found (graph/waits.Outer)."""
from __future__ import annotations

import copy
from itertools import islice
from dataclasses import replace

from ...report import Report
from ..read import portmaps
from ..read.body_ports import back_edges, bodies_of, declared_inputs, mapped_inputs, parameter_shapes
from ..read.dims import DYNAMIC
from ..read.element_types import element_type
from ..read.ids import key
from ..graph.waits import InBody
from .found import Found
from .kept import Kept


class Inner:
    """What a net knows of the bodies it holds, or, for a body, of the layer that holds it."""

    def __init__(self, forced=None):
        self.forced = forced or {}   # body Parameter id -> (dims, what gives them, element type or None): the outer
        #                              input's, as read/body_ports.py says
        self.declared_differs = False   # a forced Parameter declares other dims: the body is also checked on those
        self.outer_feeds = []   # (producer id, port, TensorIterator/Loop/If id, port): what its bodies take
        self.holder_types = {}  # TensorIterator/Loop/If id -> {input port id: the precision it declares}
        self.mapped = {}        # TensorIterator/Loop/If id -> the input port ids a body Parameter takes
        self.deferred = []      # (id, element, declared inputs) of the TensorIterators, Loops and Ifs whose bodies wait
        self.deferred_size = 0  # the elements they hold

    def holder(self, lid, types) -> None:
        """A TensorIterator, Loop or If: the precisions its input ports declare."""
        self.holder_types[lid] = types

    def outer_feed(self, fl, fp, tl, tp) -> None:
        """An edge from (fl, fp) into input tp of TensorIterator/Loop/If tl: what its bodies take (finish)."""
        self.outer_feeds.append((fl, fp, tl, tp))

    def defer(self, lid, el, declared) -> bool:
        """Whether the bodies of TensorIterator/Loop/If `el` (id `lid`) wait for finish, where what its producers
        give is known (Finish.outer_inputs): while the holders kept hold fewer than _MOST_DEFERRED elements.
        Either way, the input ports its bodies take are noted (mapped)."""
        self.mapped.setdefault(lid, set()).update(*(mapped_inputs(el, b.tag) for b in bodies_of(el)))
        room = _MOST_DEFERRED - self.deferred_size
        size = sum(1 for _ in islice(el.iter(), room + 1))     # (counted no further than the room left)
        if size > room:
            return False
        self.deferred.append((lid, el, declared))
        self.deferred_size += size
        return True

    def differs(self) -> None:
        """A body Parameter declares other dims or another type than the outer input gives it."""
        self.declared_differs = True


_MOST_DEFERRED = 1 << 16     # elements of the TensorIterators, Loops and Ifs whose bodies wait for finish, at most


class Bodies:
    def holder_read(self, el, lid) -> None:
        """A TensorIterator, Loop or If as read: its port maps as read_model reads them, the precisions its input
        ports declare, and its bodies, checked now or in finish (Inner.defer)."""
        self.take(Found(code, message, line, el, True) for code, message, line in portmaps.problems(el))
        declared = declared_inputs(el)
        self.inner.holder(lid, declared[1])
        if not self.inner.defer(key(el.get("id")), el, declared):
            for body in bodies_of(el):
                self.body(el, body, declared)

    def body(self, el, body, declared, given=None) -> None:
        """A TensorIterator/Loop <body> or an If branch: a net of its own, checked by the same code, its Parameters
        given what the outer layer's inputs give (read/body_ports.py: its producers' dims where a previous pass found them
        to differ from the layer's declared input). Where a Parameter declares other dims, the body is checked on
        those too, as read_model does first, for what it refuses there. `declared`: the outer layer's input dims
        and precisions (bodies.declared_inputs). `given`: the Outer records of what its producers give, where
        they are known (finish), else what a previous pass found (Waits.outer)."""
        holder = f"{el.get('type')} id={el.get('id')} name={el.get('name')!r}"
        outer, types = dict(declared[0]), dict(declared[1])
        if el.get("type") == "TensorIterator":
            types = {}                          # (it keeps its body Parameters' declared element types: read/body_ports.py)
        for w in self.waits.outer if given is None else given:    # (what the producers give)
            if w.holder == key(el.get("id")):
                if not w.declared:
                    outer[w.port] = None if w.dims is None else list(w.dims)
                if w.type is not None and el.get("type") != "TensorIterator":
                    types[w.port] = w.type
        where = f"{holder} <{body.tag}>"
        path = f"{self.path} > {where}" if self.path else where
        forced = {pid: (dims, f"input port {port} of {holder}", element_type(types.get(port)))
                  for pid, (dims, port) in parameter_shapes(el, body.tag, outer).items()}
        merged = {pid: src for pid, src in back_edges(el, body).items() if pid in forced and src}
        if merged:                              # a Loop's back edges: what the body gives them, on the initial shapes
            probe = self._body_net(body, path, forced, scratch=True)     # (its waits are the body's)
            for pid, src in merged.items():
                dims, source, et = forced[pid]
                got = probe.producers.produced(*src)
                if got not in ((), None) and len(got) == len(dims) and got != dims:
                    forced[pid] = ([d if d == g else DYNAMIC for d, g in zip(dims, got)],
                                   f"{source} (dynamic where the back edge from layer {src[0]} gives other dims)", et)
        sub = self._body_net(body, path, forced)
        if not sub.inner.declared_differs:
            return
        declared = self._body_net(body, f"{path} (as declared)", {}, scratch=True)
        said = {(f.code, f.line) for f in self.report.findings}
        self.add(replace(f, path=path, message=f"{f.message} (read_model checks the body on the shapes its Parameters"
                         " declare before it gives them the inputs' shapes)") for f in declared.report.findings
                 if f.code in ("bad-shape", "bad-rank", "bad-attribute") and f.layer_type != "Parameter"
                 and (f.code, f.line) not in said)   # (what the ops' shape inference refuses: the plugin compiles
        #                                              the body with the inputs' shapes and types)

    def _body_net(self, body, path, forced, scratch=False):
        """A body checked as a net of its own, its Parameters given `forced`; `scratch`: into a report and a list
        of problems of its own, for what check only reads from it (nothing it finds is said twice)."""
        doc, report = self.doc, self.report
        if scratch:
            doc, report = copy.copy(doc), Report(self.file)
            doc.problems, doc.notes = [], []
        sub = type(self)(doc, report, path, self.waits.all, Kept(self.kept.weights), Inner(forced))
        for tag in ("layers", "edges"):         # (the first of each, as read_model reads a body: pugixml's child())
            holder = next(body.iterchildren(tag), None)
            if holder is not None:
                (sub.layers if tag == "layers" else sub.edges)(holder, len(holder))
        sub.finish()
        # what should wait in the next pass, under the body's path (a body within it has put its own path on)
        self.waits.later(*(w if isinstance(w, InBody) else InBody(sub.path, w) for w in sub.waits.relook))
        return sub
