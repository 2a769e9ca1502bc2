"""What OpenVINO's reader makes of a net's edges (xml_deserialize_util.cpp, parse_function), so that check refuses
what read_model refuses. The reader builds only the layers a Result or Assign depends on, walking the edges back
from them; it gives each layer as many inputs as it has edges, each edge filling the slot of its input port's
position among the layer's ports; and it builds the layers in the order of that walk, so a layer whose input
depends on its own output finds its producer missing. Measured with read_model (OpenVINO 2026.4.1): a cycle, two
edges into one port, an edge into a port past the edge count, and a layer (a Result, a pool, a Relu, any op)
without the edge one of its input ports needs each make it fail (a MaxPool without its input edge crashed it); layers no
output depends on are not built, and nothing about their edges matters.

Kept in flat memory while the edges stream: a byte a layer for its connected input ports, and every edge as
three int32 (producer row, consumer row, line), each the difference from the edge before and compressed (in an
OpenVINO-written file these differences repeat, so they compress to almost nothing), read back only when a
problem is possible (an edge that does not run forward in the file, two edges into one port, a port skipped or
left without its edge)."""
from __future__ import annotations

from array import array

import numpy as np

from ..read.table import Blocks

ROOTS = ("Result", "Assign")          # the layers the reader walks back from


class Rows:
    """Rows of three int32 appended in batches and read back whole: kept as each row's difference from the row
    before, zlib-compressed (Blocks), so that rows that grow by steady steps cost almost nothing."""

    def __init__(self):
        self.blocks = Blocks()
        self.pending = array("i")          # rows not yet encoded
        self.last = np.zeros(3, np.int64)  # the last row encoded

    def __len__(self) -> int:
        return (len(self.blocks) + 4 * len(self.pending)) // 12

    def add(self, rows) -> None:
        """`rows`: ints, three to a row (an array, a list or a tuple)."""
        self.pending.extend(rows)
        if len(self.pending) >= 3 * 4096:
            self.flush()

    def flush(self) -> None:
        if self.pending:
            r = np.frombuffer(self.pending, np.int32).reshape(-1, 3).astype(np.int64)
            self.blocks.append(np.diff(r, axis=0, prepend=self.last[None]).astype(np.int32).tobytes())
            self.last = r[-1]
            self.pending = array("i")

    def chunks(self, rows: int = 8192):
        """The rows as (n, 3) int32 arrays of at most about `rows` rows, in order."""
        self.flush()
        last, step = np.zeros(3, np.int64), 12 * rows
        for start in range(0, len(self.blocks), step):
            d = np.frombuffer(self.blocks.read(start, min(start + step, len(self.blocks))), np.int32)
            r = np.cumsum(d.reshape(-1, 3), axis=0, dtype=np.int64) + last
            last = r[-1]
            yield r.astype(np.int32)

    def all(self) -> np.ndarray:
        """Every row, as one (n, 3) int32 array (filled in place: no second copy of the rows while it is made)."""
        out, at = np.empty((len(self), 3), np.int32), 0
        for part in self.chunks(1 << 16):     # (a chunk decodes through int64: keep it small)
            out[at:at + len(part)] = part
            at += len(part)
        return out


class Graph:
    def __init__(self):
        self.ports = bytearray()      # row -> bit i set when the layer's input port i (in document order) has an edge
        self.wide = {}                # row -> the bits of its ports 8 and up
        self.edges = Rows()           # (producer row, consumer row, line) of every edge
        self.backward = False         # an edge from a layer not listed before its consumer: a cycle is possible
        self.doubles = []             # (consumer row, port id, line) of an edge into a port that had one already
        self.roots = array("i")       # rows of Result and Assign layers, in document order
        self.params = array("i")      # rows of Parameter layers (the reader builds them first)
        self.needs = Rows()           # (row, number of input ports, line) of layers whose every port needs an edge

    def layer(self, row: int, layer_type: str, inputs: int, line, needs_all: bool) -> None:
        """A new layer: a root, a Parameter, or a layer whose op needs an edge into each of its `inputs` ports."""
        if layer_type in ROOTS:
            self.roots.append(row)
        elif layer_type == "Parameter":
            self.params.append(row)
        if needs_all or layer_type == "Result":
            self.needs.add((row, min(inputs, 8), line or 0))

    def root(self, row: int) -> None:
        """A layer that takes a shadowed Result's or Assign's id: a root, whatever its type (check/shadowed.py)."""
        self.roots.append(row)

    def grow(self, layers: int) -> None:
        """Room in `ports` for every layer read so far (`layers`), before their edges."""
        self.ports.extend(bytes(layers - len(self.ports)))

    def edge(self, src: int, dst: int, position: int, port_id, line, rows: list) -> None:
        """An edge from layer row `src` into the input port `port_id` of row `dst`, at `position` among its ports;
        `rows`: its batch's triples."""
        rows.extend((src, dst, line or 0))
        if src >= dst:
            self.backward = True
        if position < 8:
            bit, had = 1 << position, self.ports[dst]
            if not had & bit:
                self.ports[dst] = had | bit
                return
        else:
            bit, had = 1 << position - 8, self.wide.get(dst, 0)
            if not had & bit:
                self.wide[dst] = had | bit
                return
        self.doubles.append((dst, port_id, line))

    def batch(self, rows: list) -> None:
        """A batch's edges, as (producer row, consumer row, line) triples."""
        if rows:
            self.edges.add(rows)

    def problems(self, rows: int, layer_id, port_ids, ask=False) -> tuple:
        """([(consumer row, message, line)] of each problem read_model would refuse, in the layers an output
        depends on; and which rows it builds, a byte a row, or None where nothing needed the walk and `ask` is
        false). `rows`: how many layers the net has; `layer_id(row)`, and `port_ids(row)`: its input port ids in
        document order. Flat memory on a net of millions of layers too: arrays, no object a layer."""
        ports, wide = self.ports, self.wide
        ports.extend(bytes(max(0, rows - len(ports))))
        mask = lambda row: ports[row] | wide.get(row, 0) << 8  # noqa: E731
        have = np.frombuffer(ports, np.uint8)
        gaps = set(np.flatnonzero(have & (have + np.uint8(1))).tolist())
        gaps |= {r for r in wide if mask(r) & (mask(r) + 1)}
        unfed = [(r, n, line) for r, n, line in _unfed(self.needs, have) if r not in gaps]
        del have
        if not (self.backward or self.doubles or gaps or unfed or ask):
            return [], None
        src, lines, starts = self._into(rows)
        built, found = bytearray(rows), []
        for p in self.params:
            built[p] = 1
        for row in _walk(self.params, self.roots, src, starts, rows):   # as the reader builds them
            k = next((k for k in range(starts[row], starts[row + 1]) if not built[src[k]]), None)
            if k is not None:
                found.append((row, "its input depends on its own output (a cycle): read_model refuses the file"
                                   f" (\"Attempt to access node {layer_id(src[k])} that not in graph\")",
                              lines[k] or None))
            built[row] = 1
        for row, pid, line in self.doubles:
            if built[row]:
                found.append((row, f"input port {pid} has more than one edge: read_model refuses the file (\"has"
                                   " incorrect input\")", line))
        for row in sorted(gaps):
            if built[row]:
                found.append((row, f"{_ports(port_ids(row), range(mask(row).bit_length()), mask(row))} no edge"
                                   " while a later port has one: read_model gives a layer as many inputs as it has"
                                   " edges, and refuses the file (\"is inconsistent\")",
                              lines[starts[row + 1] - 1] or None))
        for row, n, line in unfed:
            if built[row]:
                found.append((row, f"{_ports(port_ids(row), range(n), mask(row))} no edge: read_model refuses the"
                                   " file (\"index '0' out of range\", \"Argument has 0 outputs\"; a MaxPool"
                                   " without its input edge crashed OpenVINO 2026.4.1's in one session)", line))
        return found, built

    def _into(self, rows: int) -> tuple:
        """The edges into each layer, in document order: (producer rows, lines, starts), the edges into row r
        being starts[r] to starts[r + 1]."""
        e = self.edges.all()
        by_dst = np.argsort(e[:, 1], kind="stable")
        src, lines = array("i", e[by_dst, 0].tobytes()), array("i", e[by_dst, 2].tobytes())
        counts = np.bincount(e[:, 1], minlength=rows)[:rows]       # (no sorted copy of the consumers, no arange)
        del e, by_dst
        starts = array("q", bytes(8))
        starts.extend(array("q", np.cumsum(counts, dtype=np.int64).tobytes()))
        return src, lines, starts

    def feeds(self, targets, rows: int) -> bytearray:
        """A byte a row: 1 for the rows whose output reaches one of the rows `targets` through the edges (the
        targets themselves included). Read only where check asks (a rare rule): the edges are walked once."""
        reach = bytearray(rows)
        todo = [t for t in targets if t is not None and t < rows]
        for t in todo:
            reach[t] = 1
        if not todo:
            return reach
        src, _, starts = self._into(rows)
        while todo:
            row = todo.pop()
            for k in range(starts[row], starts[row + 1]):
                r = src[k]
                if not reach[r]:
                    reach[r] = 1
                    todo.append(r)
        return reach


def _unfed(needs: Rows, have: np.ndarray):
    """(row, inputs, line) of each layer in `needs` whose first `inputs` ports do not all have an edge (`have`:
    the bits of the connected ports, a byte a layer), read a block of records at a time."""
    for rec in needs.chunks():
        full = (1 << rec[:, 1]) - 1
        for r, n, line in rec[have[rec[:, 0]] & full != full].tolist():
            yield r, n, line or None


def _ports(ids, positions, mask) -> str:
    """'input port 0 has', 'input ports 0, 2 have': the ports at `positions` whose bit in `mask` is clear."""
    left = [ids[i] for i in positions if not mask >> i & 1]
    return f"input port {left[0]} has" if len(left) == 1 else f"input ports {', '.join(left)} have"


def _walk(params, roots, src, starts, rows: int) -> array:
    """The reader's depth-first walk back from each root in turn (its stack discipline, so that a cycle is met
    where read_model meets it), after the Parameters: the rows in the order it builds them."""
    done, order, seen = bytearray(rows), array("i", params), array("i", bytes(4 * rows))   # seen: the root's number
    for p in params:
        done[p] = 1
    for number, root in enumerate(roots, 1):
        stack = array("i", (root,))          # (a chain's walk is as deep as the net: 4 bytes a row, not an int object)
        while stack:
            row = stack[-1]
            if done[row]:
                stack.pop()
            elif seen[row] == number:
                done[row] = 1
                order.append(row)
                stack.pop()
            else:
                seen[row] = number
                stack.extend(s for s in src[starts[row]:starts[row + 1]] if not done[s])
    return order
