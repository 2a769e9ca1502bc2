"""One net being checked: its state, and the rooms its checking is made of (intake, parameters, pooling, edges,
bodies, finish), each a mixin of its own module. The top level and every body is a Net of its own."""
from __future__ import annotations

from array import array
from types import SimpleNamespace

from ...codes import severity
from ...report import Finding, Report
from .bodies import Bodies
from ..ops.consts import Weights
from .edges import Edges
from .type_verdicts import TypeVerdicts
from .finish import Finish
from ..graph.built import Graph
from .intake import Intake
from .parameters import Parameters
from ..read.document import Document
from .pooling import Pooling
from ..graph.signatures import Signatures
from ..graph.waits import Waits


class Net(Intake, Parameters, Pooling, Edges, Bodies, Finish):
    """The state of checking one net: what an edge needs to know of every layer read so far, and the
    pooling layers that wait for the edges."""

    def __init__(self, doc: Document, report: Report, path: str = "", wait=frozenset()):
        self.doc, self.file, self.report, self.path = doc, doc.file, report, path
        self.all_wait = wait    # this pass's waits for every net (waits.py): a body's are InBody
        waits = Waits(wait, path)
        self.wait = waits.pools  # ids of pooling layers that wait for their producer although their input is static
        self.outer = waits.outer  # what the producers of a TensorIterator/Loop/If's inputs give (a previous pass)
        self.reshaped = None    # --shape's dims (reshape.Reshaped), top level only: a body's ids are its own
        self.relook = set()     # what the next pass should wait for (waits.py)
        self.keep_consts = waits.consts
        self.joins = {}         # (id, port) of those -> the edge-mismatch of the edge into it, and its line
        self.loose = []         # (message, line, who, consumer row) of edges with a missing end, judged in finish()
        self.build_time = []    # indices of findings that OpenVINO makes only if its reader builds their layer
        self.unless_used = {}   # (layer id, port id) -> (code, message, line, layer): refused unless that output is used
        self.f32_chain = {}     # layer id -> (code, message, line, layer): refused unless it feeds a layer run as f32
        self.reference_ports, self.references = set(), set()   # indices ports that make one, the layers they did
        self.out_types = {}     # (waiting layer id, port id) -> the element type it gives
        self.read_from_waiting = set()   # (layer id, port id) of the outputs of waiting layers that an edge reads
        self.sigs = Signatures()  # every layer read so far: its id, name and signature (signatures.py)
        self.seen = self.sigs.seen
        self.clean = {}         # content key of a pooling or Parameter layer that gave no finding -> (its ports,
        #                         explain's record of it)
        self.readings = {}      # what a pooling layer's attributes were read as (judge.read)
        self.early_edges = []   # edges read before any layer
        self.waiting = {}       # pooling layer id -> Layer whose declared input has a dynamic dim
        self.feeds = {}         # (layer id, input port id) -> (layer id, output port id), for waiting layers
        self.outputs = {}       # (layer id, port id) -> dims (None: dynamic rank) where the ports do not say it
        self.index_ports = {}   # (layer id, port id) -> (code, why) OpenVINO refuses the layer if this output is used
        self.types = TypeVerdicts()  # element-type verdicts that wait for the edges (check/type_verdicts.py)
        self.consts = {}        # Const layer id -> Const (its <data>), for the shape inputs of the pooling family
        self.shape_ops = {}     # layer id -> Layer of the ops fold.py folds into a shape input, and feeds their inputs
        self.weights = Weights(None)     # the weights file Consts lie in (consts.Weights)
        self.weightless = array("i")   # (row, line) of each Const read while the weights file is missing
        self.faulty_consts = set()     # ids of Consts whose <data> or bytes read_model refuses (said once, there)
        self.graph = Graph()    # what read_model makes of the edges: cycles, ports without their edge (graph/built.py)
        self.forced = {}        # body Parameter id -> (dims, what gives them, element type or None): the outer
        #                         input's, as read/body_ports.py says
        self.declared_differs = False   # a forced Parameter declares other dims: the body is also checked on those
        self.outer_feeds = []   # (producer id, port, TensorIterator/Loop/If id, port): what its bodies take
        self.holder_types = {}  # TensorIterator/Loop/If id -> {input port id: the precision it declares}
        # duplicate layer ids (OpenVINO builds the last layer of an id): counted in a first pass, judged in the next
        self.dups = {}          # id -> how many layers have it (this pass)
        self.shadow = waits.duplicates   # the same, known from the pass before
        self.occurrences = {}   # id in shadow -> how many layers with it were read so far
        self.rooted = set()     # ids of a shadowed Result or Assign: whatever layer takes the id is a root
        self.param_order = []   # Parameter ids in document order, shadowed ones too (the reader's input slots)
        self.param_slots = {}   # id of a shadowed Parameter -> the Parameter ids before it (what its layer may take)
        self.v10_params = []    # (id, line, element) of shadowed Parameters in IR v10
        self.fused = []         # (pool id, Convert id, edge line) of pools that feed a Convert to bf16 (fused_convert)
        self.converts = array("i")   # rows of Converts to another type than bf16 (say_f32_chain)

    def finding(self, code, message, line, layer=None, el=None, fix=None) -> None:
        """A finding, its severity from schemas/codes.json."""
        who = {}
        if layer is not None:
            who = dict(layer_id=layer.id, layer_name=layer.name, layer_type=layer.type)
        elif el is not None:
            who = dict(layer_id=el.get("id"), layer_name=el.get("name"), layer_type=el.get("type"))
        self.report.findings.append(Finding(code, severity(code), message, line, file=self.file,
                                            path=self.path or None, fix=fix, **who))

    def say(self, verdicts) -> None:
        """The CPU plugin's type verdicts (eltypes.Verdict): findings, or held for say_f32_chain where kept."""
        for v in verdicts:
            if v.kept:
                self.f32_chain[v.who["id"]] = (v.code, v.message, v.line, SimpleNamespace(**v.who))
            else:
                self.finding(v.code, v.message, v.line, el=v.who)
