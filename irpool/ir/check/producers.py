"""What a producer gives its consumers, as OpenVINO's shape inference takes it: the dims an output gives (what check
computed for it, else what it declares), its element type, whether it contradicts what a pool was judged on, what
an edge joins. Read-only: it reads the net's signatures (graph/signatures.py), the pools' outputs (pending.py) and
the types (type_verdicts.py), and writes nothing; edges, finish and bodies ask it."""
from __future__ import annotations

from typing import NamedTuple

from ..read.dims import compatible, lenient_dim
from ..ops.pools import POOL_TYPES
from ..read.layer_edge import Layer


class EdgeProblem(NamedTuple):
    """What is wrong with an edge (Producers.edge_problem)."""
    message: str
    joins: bool           # it joins dims that differ (else an end is missing)


class Producers:
    """The answers of one net (a body's are its own: its `path` makes join_fix give none)."""

    def __init__(self, sigs, pending, types, path: str = ""):
        self.sigs, self.seen, self.pending, self.types, self.path = sigs, sigs.seen, pending, types, path

    def contradicts(self, fl, fp, tl) -> bool:
        """Whether output `fp` of layer `fl` gives pooling layer `tl`, judged on its declared input, other dims or
        another type than that input declares."""
        dst = self.sigs.of(tl)
        judged = self.types.source_type(self.seen.row(tl))
        src = self.sigs.of(fl) if judged is not None else None
        given = self.given_type(fl, fp) if src and src.outputs and fp == src.outputs[0][0] else None
        if given is not None and given.name != judged.name:
            return True                     # judged on its input port's precision; OpenVINO takes the producer's
        want = self.produced(fl, fp)
        have = [lenient_dim(t) for t in dst.inputs[0][1]]
        return want not in ((), None) and bool(have) and \
            (len(have) != len(want) or not all(map(compatible, have, want)))

    def given_type(self, fl, fp):
        """The element type output `fp` of layer `fl` gives, where check knows it: a waiting pool's, a
        Parameter's or Const's element_type, a Convert's destination_type, the type a pool was judged on."""
        return self.pending.out_types.get((fl, fp)) or self.types.kinds.get(fl) \
            or self.types.source_type(self.seen.row(fl))

    def produced(self, fl, fp):
        """The dims output `fp` of layer `fl` gives, as OpenVINO infers them: what check computed for it, else
        what it declares; () where neither is known (None: a dynamic rank)."""
        if (fl, fp) in self.pending.outputs:
            return self.pending.outputs[(fl, fp)]
        src = self.sigs.of(fl)
        raw = src and src.out_dims.get(fp)
        return [lenient_dim(t) for t in raw] if raw else ()

    def join_fix(self, fl, fp, tl, tp) -> dict | None:
        """What --fix writes into the input port an edge joins to a Parameter or pooling layer's output: the dims
        irpool computes for that output (the consumer is found by its id: `layer_line` None)."""
        src, dst = self.sigs.of(fl), self.sigs.of(tl)
        if src.type not in ("Parameter",) + POOL_TYPES or self.path:
            return None
        want = self.produced(fl, fp)
        have = [lenient_dim(t) for t in dst.in_dims[tp]]
        if want is None or len(want) != len(have):
            return None
        dims = [[i, w] for i, (h, w) in enumerate(zip(have, want)) if isinstance(w, int) and not compatible(h, w)]
        return dict(layer_line=None, port=tp, dims=dims, side="input") if dims else None

    def edge_problem(self, fl, fp, tl, tp) -> EdgeProblem | None:
        src, dst = self.sigs.of(fl), self.sigs.of(tl)
        name = f"edge {fl}:{fp} -> {tl}:{tp}"
        if src is None or dst is None:
            return EdgeProblem(f"{name} names a layer that does not exist", joins=False)
        a = next((dims for pid, dims in src.outputs if pid == fp), None)
        b = next((dims for pid, dims in dst.inputs if pid == tp), None)
        if a is None or b is None:
            side = f"output port {fp} of layer {fl}" if a is None else f"input port {tp} of layer {tl}"
            return EdgeProblem(f"{name}: {side} does not exist", joins=False)
        if a != b and a and b:                        # (a port with no <dim> may be a dynamic rank)
            da, db = [lenient_dim(t) for t in a], [lenient_dim(t) for t in b]
            if len(da) != len(db) or not all(compatible(x, y) for x, y in zip(da, db)):
                return EdgeProblem(f"{name} joins dims [{','.join(map(str, a))}] to [{','.join(map(str, b))}]",
                                   joins=True)
        return None

    def input_dims(self, layer: Layer, src):
        """A waiting layer's input as OpenVINO infers it: from its producer where that says more."""
        declared = layer.inputs[0].dims or None
        got = () if src is None else self.produced(*src)
        return declared if got == () else got
