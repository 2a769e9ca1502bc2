"""What an edge needs to know of every layer read so far, in flat memory: its id and name (LayerTable) and a
signature number; the signature itself, its type and its ports with their dims as written, kept once for
every layer that shares it (the first _SIGNATURES as objects, later new ones spilled compressed)."""
from __future__ import annotations

import marshal
from typing import NamedTuple

from ..read.table import Blocks, LayerTable

_SIGNATURES = 1 << 12     # distinct signatures kept as objects; past that, each new one goes to `spill`


class Signature(NamedTuple):
    type: str
    outputs: tuple        # ((port id, raw dims), ...), in the file's order
    inputs: tuple
    out_dims: dict        # port id -> raw dims
    in_dims: dict
    positions: dict       # input port id -> its position among the input ports (a port written twice: its first)


class Known(NamedTuple):
    """A layer read so far: its name and its signature's fields."""
    name: str | None
    type: str
    outputs: tuple
    inputs: tuple
    out_dims: dict
    in_dims: dict
    positions: dict


def _signature(key) -> Signature:
    layer_type, outs, ins = key
    out_dims = dict(reversed(outs))        # (an output port id written twice: its first, as OpenVINO reads it)
    if len(ins) == 1:
        return Signature(layer_type, outs, ins, out_dims, dict(ins), {ins[0][0]: 0})
    positions = {}
    for i, (pid, _) in enumerate(ins):
        if pid not in positions:                # (a port written twice: its first)
            positions[pid] = i
    return Signature(layer_type, outs, ins, out_dims, dict(ins), positions)


class Signatures:
    def __init__(self):
        self.seen = LayerTable()  # every layer: its id, name and signature number
        self.numbers = {}         # (type, outputs, inputs) -> its number
        self.by_number = []       # signature number -> Signature, for the first _SIGNATURES
        self.spill = Blocks()     # the signatures of later layers with signatures not seen before, as bytes
        self.unspilled = {}       # a few spilled signatures read back
        self.odd = set()          # numbers whose <dim>s were odd: judged again at each layer that has them

    def add(self, key) -> int:
        """The number of signature `key` = (type, outputs, inputs), not in `numbers` (the caller looked)."""
        if len(self.by_number) < _SIGNATURES:
            number = self.numbers[key] = len(self.by_number)
            self.by_number.append(_signature(key))
            return number
        data = marshal.dumps(key)         # a file of ever-new shapes: one record a layer, compressed (flat memory)
        return -1 - self.spill.append(len(data).to_bytes(4, "little") + data)

    def mark_odd(self, number) -> None:
        """Signature `number` has odd <dim>s: each layer that has it is judged again (intake.odd_dims)."""
        self.odd.add(number)

    def at(self, number) -> Signature:
        if number >= 0:
            return self.by_number[number]
        sig = self.unspilled.get(number)
        if sig is None:
            start = -1 - number
            size = int.from_bytes(self.spill.read(start, start + 4), "little")
            sig = _signature(marshal.loads(self.spill.read(start + 4, start + 4 + size)))
            if len(self.unspilled) >= 256:
                self.unspilled.clear()
            self.unspilled[number] = sig
        return sig

    def of(self, lid) -> Signature | None:
        row = self.seen.row(lid)
        return None if row is None else self.at(self.seen.value[row])

    def info(self, lid) -> Known | None:
        row = self.seen.row(lid)
        return None if row is None else Known(self.seen.name(row), *self.at(self.seen.value[row]))
