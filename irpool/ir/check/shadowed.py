"""A layer whose id a later <layer> takes again: what OpenVINO's reader still checks and keeps of it, though it
builds only the last layer of an id."""
from __future__ import annotations

from ..graph.built import ROOTS
from ..read.dims import port_dim
from ..read.element_types import spellings
from ..read.structure import line_of
from .found import Found


class Duplicates:
    """Duplicate layer ids (OpenVINO builds the last layer of an id): counted in one reading, judged in the next."""

    def __init__(self):
        self.counts = {}        # id -> how many layers have it (this reading)
        self.occurrences = {}   # id the reading before found duplicated -> how many layers with it were read so far
        self.rooted = set()     # ids of a shadowed Result or Assign: whatever layer takes the id is a root
        self.param_order = []   # Parameter ids in document order, shadowed ones too (the reader's input slots)
        self.param_slots = {}   # id of a shadowed Parameter -> the Parameter ids before it (what its layer may take)
        self.v10_params = []    # (id, line, element) of shadowed Parameters in IR v10

    def occurrence(self, lid) -> int:
        """One more layer of id `lid`, which the reading before found duplicated: how many so far."""
        k = self.occurrences[lid] = self.occurrences.get(lid, 0) + 1
        return k

    def again(self, lid) -> None:
        """A layer takes id `lid` again (judged in the next reading: the last layer of an id is built)."""
        self.counts[lid] = self.counts.get(lid, 1) + 1

    def parameter(self, lid) -> None:
        """A Parameter: its place among the reader's inputs."""
        self.param_order.append(lid)

    def shadowed_parameter(self, lid) -> None:
        """A shadowed Parameter: its place, and the Parameters before it (what a later layer of its id may take)."""
        self.param_slots[lid] = frozenset(self.param_order)
        self.param_order.append(lid)

    def root(self, lid) -> None:
        """A shadowed Result or Assign: whatever layer takes `lid` is a root."""
        self.rooted.add(lid)


def shadowed(el, lid, ltype, ir_version, dup: Duplicates) -> list:
    """A layer whose id a later <layer> takes again; what is wrong with it (found.Found). OpenVINO's reader keeps the
    last layer of an id and builds it alone: of this one it checks only what it checks of every layer (its <dim>s,
    its output precisions), but a Result or Assign still makes the id a root, and a Parameter a place among the
    inputs, where the later layer is built before the layers after it (`dup` notes both; measured:
    tests/ir/test_duplicate_ids.py)."""
    line, found = line_of(el), []
    for side in ("input", "output"):
        for holder in el.iterchildren(side):
            for p in holder.iterchildren("port"):
                if side == "output" and p.get("precision") not in spellings():
                    found.append(Found("bad-structure", f"output port {p.get('id')} precision={p.get('precision')!r}:"
                                       " read_model refuses the file, whatever layer takes this id later", line, el))
                found += _dims(side, p, el)
    found.append(Found("shadowed-layer", f"layer id {lid} is given again to a later layer: OpenVINO builds only the"
                       f" last layer with an id, and ignores this {ltype}", line, el))
    if ltype in ROOTS:
        dup.root(lid)
    elif ltype == "Parameter":
        if ir_version == "10":
            dup.v10_params.append((lid, line, el))
        dup.shadowed_parameter(lid)
    return found


def _dims(side, p, el) -> list:
    """The <dim>s of port `p` of a shadowed layer that read_model refuses."""
    found = []
    for d in p.iterchildren("dim"):
        try:
            port_dim(d.text)
        except ValueError as e:
            found.append(Found("bad-structure", f"{side} port {p.get('id')}: <dim>{d.text or ''}</dim> is not a"
                               f" dimension ({e}): read_model refuses the file, whatever layer takes this id later",
                               line_of(d), el))
    return found
