"""What a net's check can say only once every layer and edge is read: the pooling layers that waited for their
producers, what the bodies take, the verdicts that wait for the consumers, and what read_model's reader builds."""
from __future__ import annotations

from array import array

from ..read.body_ports import bodies_of
from ..read.dims import lenient_dim
from ..read.element_types import element_type
from . import graph_verdicts
from .found import Found
from .judge import fix_of
from ..graph.waits import Duplicate, Outer, Pool

_DECLARED = ("shape-mismatch", "edge-mismatch")   # declared dims: wrong whether or not OpenVINO builds the layer


class Finish:
    def finish(self) -> None:
        """Edges read before the layers, then every waiting pooling layer, producers first, then what read_model
        would refuse in the graph."""
        self.waits.later(*(Duplicate(lid, n) for lid, n in self.dup.counts.items()))
        for lid, line, el in self.dup.v10_params:
            if getattr(self.sigs.of(lid), "type", None) == "Parameter":
                self.finding("duplicate-id", f"a later Parameter takes id {lid} again: read_model of IR v10 refuses"
                             " two inputs of one id (their names collide, model_reader.cpp)", line, el=el)
        self.early_edges_now()
        for lid in list(self.pending.waiting):
            self.waiting_chain(lid)
        self.waits.later(*(Pool(tl) for fl, fp, tl in self.pending.fed_by_waiting if self.producers.contradicts(fl, fp, tl)))
        self.outer_inputs()
        self.held_verdicts()
        if self.doc.is_snippet:
            for message, line, el, _ in self.pending.loose:
                self.finding("edge-mismatch", message, line, el=el)
            return
        self.reader_verdicts()
        self.amend(graph_verdicts.with_reach(self.report.findings, self.seen, self.sigs, self.graph))

    def early_edges_now(self) -> None:
        """The edges read before any layer, now that the layers are known."""
        graph, rows = self.graph, array("i")
        graph.grow(len(self.seen))
        for fl, fp, tl, tp, line in self.pending.early_edges:
            self.edge(fl, fp, tl, tp, line)
            ra, rb = self.seen.row(fl), self.seen.row(tl)
            positions = {} if rb is None else self.sigs.at(self.seen.value[rb]).positions
            if ra is not None and tp in positions:
                graph.edge(ra, rb, positions[tp], tp, line, rows)
        graph.batch(rows)

    def waiting_chain(self, lid) -> None:
        """Waiting pooling layer `lid`, after the waiting layers that feed it: each on its producer's dims and type."""
        stack = [lid]
        while stack:
            cur = stack[-1]
            layer = self.pending.waiting.get(cur)
            if layer is None:
                stack.pop()
                continue
            src = self.pending.feeds.get((cur, layer.inputs[0].id))
            if src is not None and src[0] in self.pending.waiting and src[0] not in stack:
                stack.append(src[0])
                continue
            stack.pop()
            x = self.producers.input_dims(layer, src)
            joined = self.pending.settle(cur, layer.inputs[0].id)
            if joined:
                port = layer.inputs[0]
                self.finding("edge-mismatch", joined[0], joined[1], layer, fix=fix_of(layer, port, x or [], "input"))
            # its type: what a waiting layer before it gives, or its Parameter's element_type
            judged = self.pooling(layer, x, self.producers.given_type(*src) if src else None)
            if judged.type is not None and layer.outputs:
                self.pending.give_type((cur, layer.outputs[0].id), judged.type)

    def outer_inputs(self) -> None:
        """What the producers of a TensorIterator/Loop/If's inputs give, where it is not what the ports declare:
        the bodies that waited (Inner.defer) are checked now on it; those checked as read take it in the next pass."""
        given = {lid: [] for lid, _, _ in self.inner.deferred}
        for feed in self.inner.outer_feeds:
            w = self.outer_given(*feed)
            if w is not None and w.holder in given:
                given[w.holder].append(w)
            elif w is not None:
                self.waits.later(w)
        for lid, el, declared in self.inner.deferred:
            for body in bodies_of(el):
                self.body(el, body, declared, given[lid])

    def outer_given(self, fl, fp, tl, tp):
        """The Outer record of what output `fp` of layer `fl` gives input `tp` of TensorIterator/Loop/If `tl`,
        where it is not what the port declares and a body Parameter takes it; else None."""
        if tp not in self.inner.mapped.get(tl, ()):
            return None                             # (an input no body Parameter takes: an If's condition, a Loop's)
        want, dst = self.producers.produced(fl, fp), self.sigs.of(tl)
        have = [lenient_dim(t) for t in dst.in_dims[tp]] if dst and dst.in_dims.get(tp) else None
        et = self.types.params[fl][0] if fl in self.types.params else self.producers.given_type(fl, fp)
        declared = element_type(self.inner.holder_types.get(tl, {}).get(tp))
        et = et.name if et is not None and (declared is None or declared.name != et.name) \
            and dst and dst.type != "TensorIterator" else None    # (which keeps its Parameters' declared types)
        declared = want == () or want == have
        if not declared or et is not None:
            return Outer(tl, tp, None if declared or want is None else tuple(want), declared, et)
        return None

    def held_verdicts(self) -> None:
        """The CPU plugin's verdicts that waited for the consumers: element types (check/type_verdicts.py), outputs refused
        unless used, pools kept in a type where nothing runs them as f32, Converts fused into a pool."""
        self.say(self.types.finish(), build_time=True)
        held = self.held
        self.take(Found(code, message, line, layer, True) for port, (code, message, line, layer)
                  in held.unless_used.items() if port not in held.unless_read and layer.id not in held.f32_chain)
        if self.held.f32_chain and self.doc.ir_version != "10":     # (in IR v10 every output the reader builds
            self.take(graph_verdicts.f32_chain(self.held, self.seen, self.graph))   # reaches a Result, which its
            #                                                       reading converts to f32: measured under
            #                                                       ONEDNN_MAX_CPU_ISA=AVX2, tests/ir/test_eltypes.py)
        if self.held.fused and self.doc.ir_version != "10":     # (v10's reading converts every bf16 output to f32)
            self.take(graph_verdicts.fused(self.held, self.seen, self.sigs, self.graph))

    def reader_verdicts(self) -> None:
        """What OpenVINO's reader makes of the graph (graph/built.py): its refusals; the errors of layers it never builds
        become `unbuilt` warnings, and so do edges with a missing end into them."""
        seen, findings = self.seen, self.report.findings
        late = [k for k in self.build_time if findings[k].severity == "error" and findings[k].code not in _DECLARED]
        found, built = self.graph.problems(len(seen), seen.id,
                                           lambda r: [pid for pid, _ in self.sigs.at(seen.value[r]).inputs],
                                           ask=bool(self.pending.loose or late or self.kept.weightless
                                                    or self.held.readers or self.held.unless_read))
        if self.held.unless_read:
            self.take(graph_verdicts.read_by_unbuilt(self.held, seen, built))
            late = [k for k in self.build_time if findings[k].severity == "error" and findings[k].code not in _DECLARED]
        self.amend(graph_verdicts.unbuilt(findings, late, built, seen))
        self.amend(graph_verdicts.unbuilt_readers(findings, self.held.readers, built, seen))
        self.take(graph_verdicts.weightless(self.kept, self.seen, built))
        self.take(graph_verdicts.refusals(found, seen, self.sigs))
        self.take(graph_verdicts.loose_edges(self.pending.loose, built))
