"""The CPU plugin's verdicts on a pool that wait for its consumers: what is refused unless an output is used (or is
refused if it is), the pools kept in a type that only an f32 consumer saves, the Converts fused into a pool. The
pooling room holds them as it judges a layer, the edges room settles them as edges read the outputs, and finish
says what is left."""
from __future__ import annotations

from array import array


class Held:
    """The verdicts held for the consumers of one net's pools."""

    def __init__(self):
        self.unless_used = {}   # (layer id, port id) -> (code, message, line, layer): refused unless that output is used
        self.f32_chain = {}     # layer id -> (code, message, line, layer): refused unless it feeds a layer run as f32
        self.index_ports = {}   # (layer id, port id) -> (code, why) OpenVINO refuses the layer if this output is used
        self.reference_ports, self.references = set(), set()   # indices ports that make one, the layers they did
        self.fused = []         # (pool id, Convert id, edge line) of pools that feed a Convert to bf16 (fused_convert)
        self.converts = array("i")   # rows of Converts to another type than bf16 (say_f32_chain)
