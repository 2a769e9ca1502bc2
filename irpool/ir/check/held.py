"""The CPU plugin's verdicts on a pool that wait for its consumers: what is refused unless an output is used (or is
refused if it is), the pools kept in a type that only an f32 consumer saves, the Converts fused into a pool. The
pooling room holds them as it judges a layer, the edges room settles them as edges read the outputs, and finish
says what is left."""
from __future__ import annotations

from array import array


class Held:
    """The verdicts held for the consumers of one net's pools."""

    def __init__(self):
        self.unless_used = {}   # (layer id, port id) -> (code, message, line, layer): refused unless it is used
        self.unless_read = {}   # such a port -> ids of the layers whose edges read it (finish: are they built?)
        self.f32_chain = {}     # layer id -> (code, message, line, layer): refused unless it feeds a layer run as f32
        self.index_ports = {}   # (layer id, port id) -> (code, why) OpenVINO refuses the layer if this output is used
        self.reference_ports = set()    # indices ports that make the plugin run the layer as a reference
        self.references = {}    # layer id -> ids of the layers that read such a port of it
        self.fused = []         # (pool id, Convert id, edge line) of pools that feed a Convert to bf16 (fused_convert)
        self.converts = array("i")   # rows of Converts to another type than bf16 (graph_verdicts.f32_chain)
        self.readers = []       # (finding index, consumer id) of verdicts said at an edge that uses an output

    def unless(self, port, verdict, readers=()) -> None:
        """`verdict` (code, message, line, layer): said in finish unless an edge reads output `port` into a layer
        OpenVINO's reader builds (`readers`: the ids of those that read it already)."""
        self.unless_used[port] = verdict
        if readers:
            self.unless_read[port] = list(readers)
        self.index_ports.setdefault(port, None)

    def if_used(self, port, why, keep=False) -> None:
        """`why` (code, message): said if an edge reads output `port`; `keep`: not over a verdict held there."""
        if not keep or not self.index_ports.get(port):
            self.index_ports[port] = why

    def watch(self, port) -> None:
        """Output `port` of a MaxPool-8/14 or AdaptiveMaxPool's indices: an edge from it makes the plugin run the
        layer as a reference implementation (edge_read says so)."""
        self.reference_ports.add(port)
        self.index_ports.setdefault(port, None)

    def f32(self, lid, verdict) -> None:
        """A pool kept in a type the tier has no kernel for: refused unless it feeds a layer run as f32."""
        self.f32_chain[lid] = verdict

    def edge_read(self, fl, fp, tl):
        """An edge reads output `fp` of layer `fl` into layer `tl`: what is refused where it is used (code, why), or
        None."""
        if (fl, fp) in self.unless_used:
            self.unless_read.setdefault((fl, fp), []).append(tl)
        if (fl, fp) in self.reference_ports:
            self.references.setdefault(fl, set()).add(tl)
        return self.index_ports.get((fl, fp))

    def fuse(self, fl, tl, line) -> None:
        """Pool `fl`'s data output goes to Convert `tl` to a type the plugin fuses into it (finish judges it)."""
        self.fused.append((fl, tl, line))

    def said_at(self, index, reader) -> None:
        """The finding at `index` was said at an edge into layer `reader` that uses the output (finish: whether
        read_model keeps that edge)."""
        self.readers.append((index, reader))

    def convert(self, row) -> None:
        """A Convert to another type than bf16 (at `row`): where the plugin runs a bf16 chain in f32."""
        self.converts.append(row)


def used_at(message, fl, fp, tl, tp) -> str:
    """A verdict held for output `fp` of layer `fl`, as said at the edge into `tl`:`tp` that uses it."""
    return f"{message} (edge {fl}:{fp} -> {tl}:{tp} uses it)"
