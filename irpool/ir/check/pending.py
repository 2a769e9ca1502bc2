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
