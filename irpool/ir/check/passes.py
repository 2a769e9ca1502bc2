"""irpool.check: what each pooling layer declares against what OpenVINO computes, as a list of findings.

A net is checked by one NetCheck (check/state.py, its rooms each a module: intake, parameters, pooling, edges, bodies,
finish): the top level as it streams in, and the body of every TensorIterator, Loop and If (to any depth) by a
NetCheck of its own, through the same code. Layers come first, then edges. A pooling layer waits for the edges
(every one whose declared input has a dynamic dim, the first 256 of the rest: check/pending.py), and then takes its
input as OpenVINO's shape inference does, from its producer: a Parameter's shape (intervals and dynamic rank
included) or what another pooling layer computes. The file is read again only where a layer should have waited
and did not (graph/waits.py).
"""
from __future__ import annotations

from ...report import Finding, Report
from ..ops import consts
from ..shape import reshape
from ..read.body_ports import bodies_of, declared_inputs
from .kept import Kept
from .state import NetCheck
from ...limits import MAX_BYTES
from ..read.document import Document
from ..read.layer_edge import read_layer
from ..read.sources import opened_source


def check(source, *, max_bytes: int = MAX_BYTES, explain=False, bin=None, shapes=None) -> Report:  # noqa: A002
    """Check an IR file (a path, an XML string or bytes, a <net> or a bare <layer>): every pooling layer's
    attributes, types and declared output dims against what OpenVINO computes, every edge and every
    Parameter, bodies of TensorIterator, Loop and If included. Returns a Report; a file that cannot be read
    or is not IR raises IRError (`.reason`, `.file`, `.line`, `.code`).

        >>> report = irpool.check("model.xml")
        >>> report.ok, [f.code for f in report.findings]
        (False, ['shape-mismatch'])

    `bin`: the weights file the pooling family's shape inputs (Const layers) are read from (default: the .bin
    beside an .xml path; none for strings, bytes and standard input). `max_bytes`: a larger input is refused
    before it is read. `explain`: also record what decides each pooling layer (explain.py): True collects
    the records in `Report.explained`; a callable receives each as it is made. `shapes` ({Parameter name:
    dims}, --shape): check the net on the dims OpenVINO's reshape would give it (reshape.py).

    The file streams: each top-level layer is checked as it is read and then kept only as its ports' dims,
    for the edges, so memory stays flat on files of any size (docs/memory.md).
    """
    opened = opened_source(source, max_bytes)
    try:
        reshaped = None
        if shapes:
            doc = Document(source, opened=opened)
            reshaped = reshape.infer(doc, shapes, consts.bin_path(bin, doc.file))
        sink, wait, settled = explain if callable(explain) else [] if explain else None, frozenset(), False
        for n in range(_PASSES + 1):
            opened[0].seek(0)
            records = _Records() if sink is not None and not settled else None
            report, relook = _pass(source, opened, bin, wait, sink if settled else records, reshaped)
            if relook <= wait or n >= _PASSES - 1:
                if sink is None or settled:
                    return report
                if relook <= wait and not records.over:     # explain: the records of the reading that settled
                    report.explained = records.give(sink)
                    return report
                settled = True                       # (too many to hold: one more reading, that streams them)
            wait = wait | relook
        return report
    finally:
        opened[0].close()


class _Records:
    """explain's records of one reading, held until it is known to be the last (so that explain costs no reading
    of its own), as long as they are few: past _MOST_RECORDS, the reading after the last streams them (flat
    memory)."""

    def __init__(self):
        self.records, self.over = [], False

    def __call__(self, rec) -> None:
        if self.over:
            return
        if len(self.records) < _MOST_RECORDS:
            self.records.append(rec)
        else:
            self.over, self.records = True, []

    def give(self, sink):
        """The records in the file's order (the pools that wait for their producers, and the bodies, are judged in
        finish), to explain's list or callable; the sink."""
        self.records.sort(key=lambda rec: rec["layer"].line or 0)
        if isinstance(sink, list):
            sink.extend(self.records)
        else:
            for rec in self.records:
                sink(rec)
        return sink


_MOST_RECORDS = 1 << 10     # explain records held in memory, at most

_PASSES = 8     # readings at most: a layer that should have waited (waits.py) waits in the next


def _pass(source, opened, bin, wait, explained, reshaped=None):  # noqa: A002
    """One reading of the document; the Report and the ids of pooling layers that should have waited for
    their producer (`wait`: those that wait in this pass). `reshaped`: --shape's dims, written in as it reads."""
    doc = Document(source, opened=opened, edit=reshaped.edit if reshaped is not None else None)
    report = Report(doc.file, explained=explained)
    net = NetCheck(doc, report, wait=wait, kept=Kept(consts.Weights.at(consts.bin_path(bin, doc.file))),
                   reshaped=reshaped)
    for holder, n in doc.batches():
        if holder is None:
            net.layer(read_layer(n, doc.problems))
            declared = declared_inputs(n)
            for body in bodies_of(n):
                net.body(n, body, declared)
        elif holder.tag == "layers":
            net.layers(holder, n)
        else:
            net.edges(holder, n)
    net.finish()
    for layer, why in reshaped.refused if reshaped is not None else ():
        report.findings.append(Finding("bad-shape", "error", f"{layer.type} on the dims --shape gives: {why}; OpenVINO's"
                                       " reshape refuses the model there", layer.line, file=doc.file,
                                       layer_id=layer.id, layer_name=layer.name, layer_type=layer.type))
    for line, message in doc.problems:
        report.findings.append(Finding("bad-structure", "error", message, line, file=doc.file))
    for line, message in doc.notes:
        report.findings.append(Finding("lenient-attribute", "warning", message, line, file=doc.file))
    report.findings.sort(key=lambda f: (f.line or 0))
    return report, net.waits.relook
