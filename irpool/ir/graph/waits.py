"""What one reading of a file learns for the next. check reads a file again where a layer should have waited
for something only the edges tell (net.relook); each kind of wait is a type of its own, so that where it is
made and where it is read are found by its name."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Pool:
    """A pooling layer judged as read (past pending._PATIENT, or fed by a Parameter whose element_type its port
    does not say) whose producer gives other dims or another type than its static declared input: it waits."""
    id: str


@dataclass(frozen=True)
class KeepConst:
    """A Const a family layer reads its shape input from, kept in the next reading: one that does not look like a
    shape input, read past the first check/kept._MOST_UNLIKE of those of its net (which are kept by reference)."""
    id: str


@dataclass(frozen=True)
class Duplicate:
    """A layer id `count` layers have: OpenVINO builds the last, the earlier ones are judged as shadowed."""
    id: str
    count: int


@dataclass(frozen=True)
class Outer:
    """What a producer gives input `port` of a TensorIterator, Loop or If, where its bodies should take it:
    `dims` (None: a dynamic rank), unless `declared` (the port's own dims stand); `type`, an element type name."""
    holder: str
    port: str
    dims: tuple | None
    declared: bool
    type: str | None


@dataclass(frozen=True)
class InBody:
    """A wait of the body at `path`."""
    path: str
    wait: object


class Waits:
    """The waits of one net (a body's: those under its path), sorted by kind; `all`, this reading's waits for
    every net (a body's are InBody); `relook`, what the next reading should wait for, which only later() adds to."""

    def __init__(self, waits, path: str = ""):
        self.all, self.relook = waits, set()
        mine = [w.wait for w in waits if isinstance(w, InBody) and w.path == path] if path else list(waits)
        self.pools = frozenset(w.id for w in mine if isinstance(w, Pool))
        self.consts = frozenset(w.id for w in mine if isinstance(w, KeepConst))
        self.duplicates = {w.id: w.count for w in mine if isinstance(w, Duplicate)}
        self.outer = [w for w in mine if isinstance(w, Outer)]

    def later(self, *waits) -> None:
        """What the next reading should wait for (a body's, already under its path)."""
        self.relook.update(waits)
