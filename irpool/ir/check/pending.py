"""The pooling layers of a net that wait for the edges (their declared input has a dynamic dim, or a previous
reading found their producer gives other dims or another type), and what the edges tell of them and of the
layers they feed."""
from __future__ import annotations


class Pending:
    """What waits for the edges in one net, and the outputs whose dims or type the ports do not say."""

    def __init__(self):
        self.waiting = {}       # pooling layer id -> Layer whose declared input has a dynamic dim
        self.feeds = {}         # (layer id, input port id) -> (layer id, output port id), for waiting layers
        self.outputs = {}       # (layer id, port id) -> dims (None: dynamic rank) where the ports do not say it
        self.out_types = {}     # (waiting layer id, port id) -> the element type it gives
        self.read_from_waiting = set()   # (layer id, port id) of the outputs of waiting layers that an edge reads
        self.joins = {}         # (id, port) of waiting layers -> the edge-mismatch of the edge into it, and its line
        self.loose = []         # (message, line, who, consumer row) of edges with a missing end, judged in finish()
        self.early_edges = []   # edges read before any layer

    def wait(self, layer) -> None:
        """Pooling layer `layer` is judged once the edges are read (finish)."""
        self.waiting[layer.id] = layer

    def settle(self, lid, port):
        """Waiting layer `lid` is judged now: the edge-mismatch held for its input `port` (message, line), or None."""
        del self.waiting[lid]
        return self.joins.pop((lid, port), None)

    def feed(self, consumer, producer) -> None:
        """An edge from `producer` (id, port) into `consumer` (id, port), a waiting layer or a shape op."""
        self.feeds[consumer] = producer

    def read(self, port) -> None:
        """An edge reads output `port` (id, port id) of a layer, which waits if it is in waiting."""
        if port[0] in self.waiting:
            self.read_from_waiting.add(port)

    def join(self, port, message, line) -> None:
        """The edge into input `port` of a layer that waits for its producer joins other dims: said in finish."""
        self.joins[port] = (message, line)

    def loose_end(self, message, line, who, row) -> None:
        """An edge with a missing end, into the layer at `row` (None: none): judged in finish."""
        self.loose.append((message, line, who, row))

    def early(self, edge) -> None:
        """An edge (its ends and line) read before any layer."""
        self.early_edges.append(edge)

    def give(self, port, dims) -> None:
        """Output `port` (id, port id) gives `dims`, which its port does not say."""
        self.outputs[port] = dims

    def give_type(self, port, et) -> None:
        """Output `port` (id, port id) gives element type `et`, which its port may not say."""
        self.out_types[port] = et
