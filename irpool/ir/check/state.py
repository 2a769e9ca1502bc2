"""One net being checked: its state, and the stages its checking is made of (intake, edges, bodies, finish), each a
mixin of its own module; a pooling layer (pooling.py), what a layer says it is (identity.py), a Parameter
(parameters.py), a layer of a few types (typed_layers.py), a shadowed layer (shadowed.py), the verdicts on a pool's
outputs (output_verdicts.py) and what the whole graph decides (graph_verdicts.py) are functions that return what they
found (found.py), which take() makes findings. The top level and every body is a NetCheck of its own."""
from __future__ import annotations

from types import SimpleNamespace

from ...codes import severity
from ...report import Finding, Report
from .bodies import Bodies, Inner
from .held import Held
from .kept import Kept
from .memos import Memos
from .pending import Pending
from .shadowed import Duplicates
from .edges import Edges
from .type_verdicts import TypeVerdicts
from .finish import Finish
from ..graph.built import Graph
from .intake import Intake
from ..read.document import Document
from .pooling import Seat, judge_pool
from .producers import Producers
from ..graph.signatures import Signatures
from ..graph.waits import Waits


class NetCheck(Intake, Edges, Bodies, Finish):
    """The state of checking one net: what an edge needs to know of every layer read so far, and the
    pooling layers that wait for the edges."""

    def __init__(self, doc: Document, report: Report, path: str = "", wait=frozenset(), kept=None, inner=None,
                 reshaped=None):
        """`kept`: its weights file; `inner`: a body's Parameters' dims and types; `reshaped`: --shape's dims."""
        self.doc, self.file, self.report, self.path = doc, doc.file, report, path
        self.waits = Waits(wait, path)   # what the reading before learned, and what the next should (waits.py)
        self.reshaped = reshaped   # --shape's dims (reshape.Reshaped), top level only: a body's ids are its own
        self.sigs = Signatures()  # every layer read so far: its id, name and signature (signatures.py)
        self.seen = self.sigs.seen
        self.graph = Graph()    # what read_model makes of the edges: cycles, ports without their edge (graph/built.py)
        self.types = TypeVerdicts()  # element-type verdicts that wait for the edges (check/type_verdicts.py)
        self.build_time = []    # indices of findings that OpenVINO makes only if its reader builds their layer
        #                         (written here alone, by take and say: a Found's or a verdict's build_time)
        self.held = Held()      # verdicts that wait for a pool's consumers (held.py)
        self.pending = Pending(bool(self.waits.pools))  # pools that wait for the edges, what they tell (pending.py)
        self.dup = Duplicates()   # duplicate ids and the layers they shadow (shadowed.py)
        self.kept = kept or Kept()    # Consts and shape ops kept for shape inputs, the weights file (kept.py)
        self.inner = inner or Inner()  # the bodies' inputs, or a body's (bodies.py)
        self.memos = Memos()    # layers written alike, judged once (memos.py)
        self.producers = Producers(self.sigs, self.pending, self.types, path)   # what a producer gives (producers.py)
        self.seat = Seat(doc, path, self.memos, self.types, self.pending, self.held, self.kept,
                         self.sigs, self.waits, reshaped, report)    # what judging a pool reads (pooling.py)

    def finding(self, code, message, line, layer=None, el=None, fix=None) -> None:
        """A finding, its severity from schemas/codes.json."""
        who = {}
        if layer is not None:
            who = dict(layer_id=layer.id, layer_name=layer.name, layer_type=layer.type)
        elif el is not None:
            who = dict(layer_id=el.get("id"), layer_name=el.get("name"), layer_type=el.get("type"))
        self.report.findings.append(Finding(code, severity(code), message, line, file=self.file,
                                            path=self.path or None, fix=fix, **who))

    def take(self, found) -> None:
        """What a room found (found.Found): findings, build-time ones marked so (finish)."""
        for f in found:
            if f.reader is not None:
                self.held.said_at(len(self.report.findings), f.reader)
            if f.build_time:
                self.build_time.append(len(self.report.findings))
            if hasattr(f.who, "get"):
                self.finding(f.code, f.message, f.line, el=f.who, fix=f.fix)
            else:
                self.finding(f.code, f.message, f.line, f.who, fix=f.fix)

    def pooling(self, layer, x_dims, in_type=None):
        """A pooling layer judged (pooling.judge_pool) on input dims `x_dims` and type `in_type`: its Outcome."""
        judged, found = judge_pool(self.seat, layer, x_dims, in_type)
        self.take(found)
        return judged

    def say(self, verdicts, build_time=False) -> None:
        """The CPU plugin's type verdicts (eltypes.Verdict): findings (`build_time`: read_model's only where its reader
        builds the layer), or held for graph_verdicts.f32_chain where kept."""
        for v in verdicts:
            if v.kept:
                self.held.f32(v.who["id"], (v.code, v.message, v.line, SimpleNamespace(**v.who)))
                continue
            if build_time:
                self.build_time.append(len(self.report.findings))
            self.finding(v.code, v.message, v.line, el=v.who)

    def amend(self, changes) -> None:
        """Findings said before, made anew where the whole graph tells more (graph_verdicts: (index, Finding))."""
        findings = self.report.findings
        for k, f in changes:
            findings[k] = f

    def add(self, findings) -> None:
        """Findings a scratch NetCheck made (bodies.py), as they are."""
        self.report.findings.extend(findings)
