"""The pooling layers of a net that wait for the edges, and what the edges tell of them and of the layers they feed.
A pool waits where its declared input has a dynamic dim, and otherwise while the net has fewer than _PATIENT that
wait (`patient`): judged in finish on what its producer gives, producers first, so that a producer that contradicts
its declared input costs no second reading of the file. Past that (files of thousands of pools: their Layers would
be kept, about 5 KB each), a pool is judged as it is read, on its declared input, and one whose producer
contradicts it waits in the next reading (graph/waits.Pool), where up to _PATIENT_AGAIN wait: a chain of pools
that each contradict the next is then judged in two readings, not one more a pool (check stops at passes._PASSES)."""
from __future__ import annotations


class Pending:
    """What waits for the edges in one net, and the outputs whose dims or type the ports do not say."""

    def __init__(self, again: bool = False):
        """`again`: a reading before found pools of this net that should have waited (graph/waits.Pool)."""
        self.most_patient = _PATIENT_AGAIN if again else _PATIENT
        self.waiting = {}       # pooling layer id -> its Layer, judged in finish on what its producer gives
        self.feeds = {}         # (layer id, input port id) -> (layer id, output port id), for waiting layers
        self.outputs = {}       # (layer id, port id) -> dims (None: dynamic rank) where the ports do not say it
        self.out_types = {}     # (waiting layer id, port id) -> the element type it gives
        self.read_from_waiting = {}   # (layer id, port id) of a waiting layer's output -> [(to id, to port, line)]
        self.joins = {}         # (id, port) of waiting layers -> the edge-mismatch of the edge into it, and its line
        self.loose = []         # (message, line, who, consumer row) of edges with a missing end, judged in finish()
        self.early_edges = []   # edges read before any layer
        self.patient = set()    # ids of the pooling layers that wait for their producer though their input is static
        self.fed_by_waiting = []   # (producer id, port id, consumer id): pools judged as read, fed by a waiting layer

    def wait(self, layer) -> None:
        """Pooling layer `layer` is judged once the edges are read (finish)."""
        self.waiting[layer.id] = layer

    def patient_for(self, lid) -> bool:
        """Whether pooling layer `lid` waits for its producer although its declared input is static: while fewer
        than _PATIENT do (its Layer is kept until finish)."""
        if lid not in self.patient and len(self.patient) < self.most_patient:
            self.patient.add(lid)
        return lid in self.patient

    def after_wait(self, edge) -> None:
        """An edge (producer id, port id, consumer id) from a waiting layer into a pool judged as read: whether
        the pool should have waited is known in finish."""
        self.fed_by_waiting.append(edge)

    def settle(self, lid, port):
        """Waiting layer `lid` is judged now: the edge-mismatch held for its input `port` (message, line), or None."""
        del self.waiting[lid]
        return self.joins.pop((lid, port), None)

    def feed(self, consumer, producer) -> None:
        """An edge from `producer` (id, port) into `consumer` (id, port), a waiting layer or a shape op."""
        self.feeds[consumer] = producer

    def read(self, port, to, line) -> None:
        """An edge (at `line`) reads output `port` (id, port id) of a layer into `to` (id, port id): kept where the
        layer waits, for what finish says of each edge that uses an output (output_verdicts.if_used)."""
        if port[0] in self.waiting:
            self.read_from_waiting.setdefault(port, []).append((*to, line))

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


_PATIENT = 256      # pooling layers with a static input that wait for their producer, at most, in one net
_PATIENT_AGAIN = 1 << 14    # the same, in a reading after one that found pools that should have waited
