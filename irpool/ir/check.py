"""irpool.check: what each pooling layer declares against what OpenVINO computes, as a list of findings.

A net is checked by one _Net scope: the top level as it streams in, and the body of every TensorIterator,
Loop and If (to any depth) by a _Net of its own, through the same code. Layers come first, then edges. A
pooling layer whose declared input has a dynamic dim waits for the edges, and then takes its input as
OpenVINO's shape inference does, from its producer: a Parameter's shape (intervals and dynamic rank
included) or what another pooling layer computes.
"""
from __future__ import annotations

import copy
import difflib
import marshal
import math
import re
from array import array
from dataclasses import replace

from lxml import etree

from .. import cpu
from ..codes import severity
from ..core import axis_names, plan
from ..errors import IRError
from ..opdefs import load
from ..report import Finding, Report, pooling_summary  # noqa: F401 (re-exported)
from . import consts, fold, negpads, portmaps, reshape
from .fold import MOST_KEPT, SHAPE_OPS
from .consts import Const
from .bodies import back_edges, declared_inputs, parameter_shapes
from .dims import DYNAMIC, compatible, lenient_dim, parse_shape, port_dim, shape_text, text
from .elements import element_type, spellings
from .family import FAMILY_TYPES, interpret_family, is_family, shape_input_name
from .eltypes import TypeVerdicts
from .graph import ROOTS, Graph
from .layers import (POOL_TYPES, check_dims, empty_window_refusal, interpret, is_pooling, kept_in_type, op_name,
                     small_output_refusal, type_refusal)
from .parse import (BIG_LINE, BODIES, EDGE_ENDS, MAX_BYTES, REQUIRED, Document, Layer, read_edge, read_layer, op_type,
                    belongs, content_key, light_ports, line_of, opened_source)
from .table import Blocks, LayerTable


_EDGE_XPATHS = [etree.XPath(f"edge/@{k}", smart_strings=False) for k in EDGE_ENDS]
BODY_TYPES = ("TensorIterator", "Loop", "If")      # the ops whose <layer> holds nets
_CLEAN_KEYS = 4096        # content keys remembered as clean, at most
_SIGNATURES = 1 << 12     # distinct signatures kept as objects; past that, each new one goes to `spill`
_GRAPH_TYPES = frozenset(ROOTS + ("Parameter",))   # the layers graph.py is told of, with every layer with inputs


_U64_ID = re.compile(r"\s*\+?[0-9]+")   # a layer id as pugixml's as_ullong takes it whole ("01", "+1", " 1")
_WATCHED = ("Convert",) + POOL_TYPES   # consumers whose edges may need a look at the type their producer gives


def _with_dicts(sig) -> tuple:
    """A signature and, for the edges, its output and input ports as {id: raw dims} and its input ports'
    positions as {id: position}."""
    ins = sig[2]
    positions = {ins[0][0]: 0} if len(ins) == 1 else {pid: i for i, (pid, _) in reversed(list(enumerate(ins)))}
    return sig + (dict(sig[1]), dict(ins), positions)      # (a port id written twice: its first position)


class _Net:
    """The state of checking one net: what an edge needs to know of every layer read so far, and the
    pooling layers that wait for the edges."""

    def __init__(self, doc: Document, report: Report, path: str = "", wait=frozenset()):
        self.doc, self.file, self.report, self.path = doc, doc.file, report, path
        self.all_wait = wait    # this pass's waits for every net: a body's are ("body", its path, what waits)
        if path:
            wait = frozenset(w[2] for w in wait if isinstance(w, tuple) and w[0] == "body" and w[1] == path)
        self.wait = wait        # ids of pooling layers that wait for their producer although their input is static
        self.reshaped = None    # --shape's dims (reshape.Reshaped), top level only: a body's ids are its own
        self.relook = set()     # ids of pooling layers whose producer gives other dims than their declared input,
        #                         and ("const", id) of the Consts kept in the next pass (a family layer reads one)
        self.keep_consts = {x[1] for x in wait if isinstance(x, tuple) and x[0] == "const"}
        self.joins = {}         # (id, port) of those -> the edge-mismatch of the edge into it, and its line
        self.loose = []         # (message, line, who, consumer row) of edges with a missing end, judged in finish()
        self.bad_dims = set()   # signature numbers whose <dim>s odd_dims judged, to judge again at each layer
        self.build_time = []    # indices of findings that OpenVINO makes only if its reader builds their layer
        self.unless_used = {}   # (layer id, port id) -> (code, message, line, layer): refused unless that output is used
        self.f32_chain = {}     # layer id -> (code, message, line, layer): refused unless it feeds a layer run as f32
        self.reference_ports, self.references = set(), set()   # indices ports that make one, the layers they did
        self.in_type = None     # the element type a waiting layer's producer gives it, while it is checked
        self.last_type = None   # the input element type the layer checked last was judged on
        self.out_types = {}     # (waiting layer id, port id) -> the element type it gives
        self.read_from_waiting = set()   # (layer id, port id) of the outputs of waiting layers that an edge reads
        self.seen = LayerTable()  # every layer: its id, name and signature (type, output ports, input ports)
        self.signatures = {}    # (type, ((output port id, raw dims), ...), (input ...)) -> its number
        self.by_number = []     # signature number -> signature + its ports as dicts, for the first _SIGNATURES
        self.spill = Blocks()   # the signatures of later layers with signatures not seen before, as bytes
        self.unspilled = {}     # a few spilled signatures read back
        self.clean = {}         # content key of a pooling or Parameter layer that gave no finding -> (its ports,
        #                         explain's record of it)
        self.early_edges = []   # edges read before any layer
        self.waiting = {}       # pooling layer id -> Layer whose declared input has a dynamic dim
        self.feeds = {}         # (layer id, input port id) -> (layer id, output port id), for waiting layers
        self.outputs = {}       # (layer id, port id) -> dims (None: dynamic rank) where the ports do not say it
        self.index_ports = {}   # (layer id, port id) -> (code, why) OpenVINO refuses the layer if this output is used
        self.types = TypeVerdicts()  # element-type verdicts that wait for the edges (eltypes.py)
        self.last_record = None  # explain: what the layer read last recorded
        self.consts = {}        # Const layer id -> Const (its <data>), for the shape inputs of the pooling family
        self.shape_ops = {}     # layer id -> Layer of the ops fold.py folds into a shape input, and feeds their inputs
        self.bin = None         # the weights file those are read from (None: none known)
        self.graph = Graph()    # what read_model makes of the edges: cycles, ports without their edge (graph.py)
        self.forced = {}        # body Parameter id -> (dims, what gives them, element type or None): the outer
        #                         input's, as bodies.py says
        self.declared_differs = False   # a forced Parameter declares other dims: the body is also checked on those
        self.outer_feeds = []   # (producer id, port, TensorIterator/Loop/If id, port): what its bodies take
        self.holder_types = {}  # TensorIterator/Loop/If id -> {input port id: the precision it declares}
        # duplicate layer ids (OpenVINO builds the last layer of an id): counted in a first pass, judged in the next
        self.dups = {}          # id -> how many layers have it (this pass)
        self.shadow = {w[1]: w[2] for w in wait if isinstance(w, tuple) and w[0] == "dup"}   # the same, known
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

    # -- layers -----------------------------------------------------------------------------------------
    def layers(self, holder, n) -> None:
        problems, seen, snippet = self.doc.problems, self.seen, self.doc.is_snippet
        for el in holder[:n]:
            if el.tag != "layer":
                belongs(el, holder, problems)               # (a problem, with its line)
                continue
            lid, ltype, name = el.get("id"), op_type(el), el.get("name")
            if (lid is None or ltype is None or name is None or el.get("version") is None) and not snippet:
                missing = [a for a in REQUIRED if el.get(a) is None]
                self.finding("bad-structure", f"<layer> lacks {', '.join(missing)}: OpenVINO requires id, name, type"
                             " and version on every layer, and refuses the file", line_of(el), el=el)
            elif lid is not None and not snippet and not (lid.isdigit() or _U64_ID.fullmatch(lid) and int(lid) < 1 << 64):
                self.finding("bad-structure", f'<layer id="{lid}">: read_model reads a layer id as an unsigned'
                             " 64-bit number, and refuses the file", line_of(el), el=el)
            if lid in self.shadow:
                k = self.occurrences[lid] = self.occurrences.get(lid, 0) + 1
                if k < self.shadow[lid]:
                    self.shadowed(el, lid, ltype)
                    continue
            if ltype == "Parameter":
                self.param_order.append(lid)
            new = seen.row(lid) is None
            if not new:
                self.dups[lid] = self.dups.get(lid, 1) + 1      # (judged in the next pass, the last layer built)
                self.finding("duplicate-id", f"layer id {lid} is used by more than one layer", line_of(el), el=el)
            if ltype in BODY_TYPES:
                for code, message, line in portmaps.problems(el):
                    self.build_time.append(len(self.report.findings))
                    self.finding(code, message, line, el=el)
                declared = declared_inputs(el)
                self.holder_types[lid] = declared[1]
                for body in el.iterchildren(*BODIES):
                    self.body(el, body, declared)
            elif ltype == "Const":
                data = el.find("data")
                given = self.const_type(el, data)
                if lid in self.keep_consts or Const.may_be_shape(el, data):
                    self.consts[lid] = Const.of(el)     # (weights are never a shape input: not kept, flat memory)
                self.port_count(el)
            elif ltype == "Result":
                self.port_count(el)
            elif ltype in SHAPE_OPS and len(self.shape_ops) < MOST_KEPT:
                self.shape_ops[lid] = read_layer(el, [])        # (its problems are found below, as for any layer)
            elif ltype in FAMILY_TYPES:
                self.layer(read_layer(el, problems))
                continue
            if ltype == "Parameter" or ltype in POOL_TYPES:
                key = content_key(el)
                known = self.clean.get(key)
                if known is None or lid in self.wait or lid in self.forced:
                    self.layer(read_layer(el, problems), key)
                    continue
                ports, rec, judged = known
                if rec is not None:                         # explain: the same record, for this layer
                    self.emit(rec | dict(layer=replace(rec["layer"], id=lid, name=name, line=line_of(el))))
                if ltype in POOL_TYPES:
                    self.report.count(ltype)
            else:
                ports = light_ports(el)
                if ports is None:
                    self.layer(read_layer(el, problems))
                    continue
            if new:
                self.remember(lid, name, ltype, ports, el)
                if ltype in POOL_TYPES:
                    self.types.keep(len(self.seen) - 1, judged)
                elif ltype == "Const":
                    self.types.keep(len(self.seen) - 1, given)
                elif ltype in ("Convert", "Parameter"):
                    data = el.find("data")
                    self.source(len(self.seen) - 1, ltype, data.attrib if data is not None else None)

    def source(self, row, layer_type, data) -> None:
        """A Parameter, Const or Convert: the type it gives (types.source); a Convert to another type than bf16
        is where the plugin runs a bf16 chain in f32 (say_f32_chain)."""
        self.types.source(row, layer_type, data)
        et = self.types.source_type(row)
        if layer_type == "Convert" and et is not None and et.name != "bf16":
            self.converts.append(row)

    def packed(self, layer, rank, const, early, values) -> None:
        """A u4/i4 Const as a shape input: read_model's shape inference takes its elements as whole signed bytes
        and compile_model unpacks them (consts.read): what the first refuses, read_model refuses; where the two
        read other values, a warning says what each makes of them (the compiled model's is judged)."""
        et, where = const.element_type, const.where(self.file)
        early, values = [int(v) for v in early], [int(v) for v in values]
        try:
            if load("openvino")["ops"][op_name(layer, self.file)]["family"] != "adaptive":   # (which takes any)
                interpret_family(layer, self.file, rank, early, where, self.doc.ir_version)
        except IRError as e:
            raise IRError(f"read_model's shape inference reads this {et} Const's elements as whole signed bytes"
                          f" ({early}): {e.reason}", code=e.code, line=e.line, file=e.file,
                          layer_id=e.layer_id, layer_name=e.layer_name, layer_type=e.layer_type) from None
        if early != values:
            what = shape_input_name(layer)
            self.finding("lenient-attribute", f"its {what} {'are' if what == 'axes' else 'is'} an {et} Const, whose elements"
                         f" read_model's shape inference reads as whole signed bytes ({early}) and compile_model"
                         f" unpacks ({values}): the model read_model gives and the one compiled differ; irpool"
                         " judges the compiled one", layer.data_line, layer)

    def maybe_fused(self, fl, fp, tl, line) -> None:
        """An edge into a Convert: from a string Parameter or Const, which the plugin cannot convert; from a
        pool's data output, to a type the plugin fuses into the pool (schemas/openvino.json "fused_convert"):
        judged in finish, once every consumer of the pool is known."""
        src, dst = self.signature(fl), self.signature(tl)
        if src and dst and dst[0] == "Convert" and src[0] in ("Parameter", "Const"):
            et = self.given_type(fl, fp)
            if et is not None and et.name == "string":
                info = self.info(tl)
                self.build_time.append(len(self.report.findings))
                self.finding("bad-precision", f"a Convert of the string {src[0]} {fl}: OpenVINO's CPU plugin has no such"
                             " conversion and refuses the model (\"Cannot fallback on ngraph reference"
                             " implementation\")", line, el={"id": tl, "name": info[0], "type": info[1]})
        if src and dst and src[0] in POOL_TYPES and dst[0] == "Convert" and src[1] and fp == src[1][0][0]:
            et = self.types.source_type(self.seen.row(tl))
            if et is not None and et.name in load("openvino")["fused_convert"]["destination_types"]:
                self.fused.append((fl, tl, line))

    def say_fused(self) -> None:
        """The pools whose only consumer is a Convert the plugin fuses into them: refused on the tiers with no
        pooling kernel that gives its type."""
        rule = load("openvino")["fused_convert"]
        rows = {self.seen.row(fl) for fl, _, _ in self.fused}
        consumers = dict.fromkeys(rows, 0)
        for chunk in self.graph.edges.chunks():         # (one walk over the edges, whatever their number)
            for row in rows:
                consumers[row] += int((chunk[:, 0] == row).sum())
        for fl, tl, line in self.fused:
            if consumers[self.seen.row(fl)] != 1:
                continue                        # (a second consumer keeps the Convert apart)
            info = self.info(fl)
            what = f"{info[1]} whose output goes only to Convert {tl} (to bf16), which the CPU plugin fuses into it"
            said = cpu.judge(lambda tier: cpu.measured(
                rule, tier, f"OpenVINO's CPU plugin does not compile a {what} ({rule['why']})",
                f"OpenVINO's CPU plugin compiles a {what} only where bf16 is native ({rule['why']})"))
            if said:
                self.finding(*said, line, el={"id": fl, "name": info[0], "type": info[1]})

    def const_type(self, el, data):
        """A Const's element_type (`data`: its <data>) must name a type as OpenVINO names them, in any case but
        with no space around it ("u8 ", " u8", "u9", "FP32": read_model refuses the file, used or not); the type,
        or None."""
        text = data.get("element_type") if data is not None else None
        et = element_type(text)
        if text is not None and (et is None or text.lower() != et.name):
            self.finding("bad-attribute", f'Const element_type="{text}" is not an element type as OpenVINO names them:'
                         f' read_model refuses the file ("{text} is not a member of enum element::Type_t")',
                         line_of(data), el=el)
            return None
        return et

    def shadowed(self, el, lid, ltype) -> None:
        """A layer whose id a later <layer> takes again. OpenVINO's reader keeps the last layer of an id and builds
        it alone: of this one it checks only what it checks of every layer (its <dim>s, its output precisions),
        but a Result or Assign still makes the id a root, and a Parameter a place among the inputs, where the
        later layer is built before the layers after it (measured: tests/test_duplicate_ids.py)."""
        line = line_of(el)
        for side in ("input", "output"):
            for holder in el.iterchildren(side):
                for p in holder.iterchildren("port"):
                    if side == "output" and p.get("precision") not in spellings():
                        self.finding("bad-structure", f"output port {p.get('id')} precision={p.get('precision')!r}:"
                                     " read_model refuses the file, whatever layer takes this id later", line, el=el)
                    for d in p.iterchildren("dim"):
                        try:
                            port_dim(d.text)
                        except ValueError as e:
                            self.finding("bad-structure", f"{side} port {p.get('id')}: <dim>{d.text or ''}</dim> is"
                                         f" not a dimension ({e}): read_model refuses the file, whatever layer takes"
                                         " this id later", line_of(d), el=el)
        self.finding("shadowed-layer", f"layer id {lid} is given again to a later layer: OpenVINO builds only the"
                     f" last layer with an id, and ignores this {ltype}", line, el=el)
        if ltype in ROOTS:
            self.rooted.add(lid)
        elif ltype == "Parameter":
            if self.doc.ir_version == "10":
                self.v10_params.append((lid, line, el))
            self.param_slots[lid] = frozenset(self.param_order)
            self.param_order.append(lid)

    def type_verdicts(self, layer: Layer, pl, et, x_dims, line) -> None:
        """What the CPU plugin does with a pooling layer on element type `et` (ir/layers.py type_refusal, per CPU
        tier): said now; or once the edges say whether its indices output is used; or in finish, where its
        output may reach a layer the plugin runs as f32 (kept_in_type)."""
        channels = x_dims[1] if x_dims else None
        refusal = None if self.types.pool(pl, et, x_dims, line, layer) else type_refusal(
            pl, et, channels=channels, static=x_dims is not None and all(isinstance(d, int) for d in x_dims))
        two = pl.outputs == 2 and len(layer.outputs) == 2
        port = (layer.id, layer.outputs[1].id) if two else None
        if refusal and two and refusal != type_refusal(pl, et, indices_used=True, channels=channels):
            if kept_in_type(pl, et):                    # (bf16 below AVX-512: its used indices make it f32)
                self.f32_chain[layer.id] = (*refusal, line, layer)
            if port not in self.read_from_waiting:
                self.unless_used[port] = (*refusal, line, layer)
                self.index_ports.setdefault(port, None)
            refusal = None
        elif refusal and refusal[0] == "bad-precision" and kept_in_type(pl, et):
            self.f32_chain[layer.id] = (*refusal, line, layer)           # (said in finish, if it is)
        elif refusal:
            self.finding(*refusal, line, layer)
        if not two:
            return
        self.watch_indices(layer)
        if refusal and refusal[0] == "bad-precision":
            return
        used = type_refusal(pl, et, indices_used=True)
        if used and used != type_refusal(pl, et):
            if port in self.read_from_waiting:          # (a waiting layer: its edges are read)
                self.finding(used[0], f"{used[1]} (an edge uses its output port {port[1]})", layer.outputs[1].line,
                             layer)
            else:
                self.index_ports[port] = used           # (code, why): said if an edge uses it

    def extra_outputs(self, layer: Layer, op: str, outputs: int) -> None:
        """Output ports past the op's `outputs`. From IR v11 on read_model refuses the file. In IR v10 an edge
        names an output by its position among the ports (measured, 2026.4.1): an edge from a port at or past
        the op's count is refused, said when the edges are read (index_ports)."""
        if len(layer.outputs) <= outputs:                  # (fewer: OpenVINO reads them)
            return
        why = (f"{op} has {outputs} output port(s), the layer declares {len(layer.outputs)}: read_model refuses the"
               " file (\"node index is out of range\")")
        if self.doc.ir_version != "10":
            self.finding("bad-structure", why, layer.line, layer)
            return
        for port in layer.outputs[outputs:]:
            key = (layer.id, port.id)
            if key in self.read_from_waiting:
                self.finding("bad-structure", f"{why} (an edge uses port {port.id})", layer.line, layer)
            elif self.index_ports.get(key) is None:
                self.index_ports[key] = ("bad-structure", f"{why}, and in IR v10 an edge from its output at"
                                         f" position {layer.outputs.index(port)}")

    def watch_indices(self, layer: Layer) -> None:
        """A MaxPool-8/14 or AdaptiveMaxPool with an indices port: on a tier that does not pool bf16 natively, an
        edge from it makes the plugin run the layer (a reference implementation) and what feeds it in f32."""
        tier = cpu.one()
        if tier is None or tier.native("bf16") or len(layer.outputs) < 2:
            return
        port = (layer.id, layer.outputs[1].id)
        self.reference_ports.add(port)
        self.index_ports.setdefault(port, None)
        if port in self.read_from_waiting:
            self.references.add(layer.id)

    def say_f32_chain(self) -> None:
        """The pools kept in a type the tier has no kernel for (kept_in_type): refused, but where their output
        reaches a layer the plugin runs as f32 (a MaxPool-8/14 or AdaptiveMaxPool whose indices are used) or a
        Convert to another type than bf16: then the plugin runs the chain in f32. In IR v10 every output the
        reader builds reaches a Result, which v10's reading converts to f32, so none is refused (measured under
        ONEDNN_MAX_CPU_ISA=AVX2, 2026.4.1: tests/test_eltypes.py)."""
        if self.doc.ir_version == "10":
            return
        roots = [self.seen.row(lid) for lid in self.references] + list(self.converts)
        reach = self.graph.feeds(roots, len(self.seen))
        for lid, (code, message, line, layer) in self.f32_chain.items():
            row = self.seen.row(lid)
            if row is None or not reach[row]:
                self.build_time.append(len(self.report.findings))
                self.finding(code, f"{message} (nothing it feeds is run as f32: a MaxPool-8/14 or AdaptiveMaxPool"
                             " whose indices are used, or a Convert to another type, would make the plugin run it in"
                             " f32)", line, layer)

    def port_count(self, el) -> None:
        """A Const has one output port and no input, a Result at most one output port (measured, 2026.4.1): from
        IR v11 on, read_model makes a port of each <port> of the first <input> and <output> and refuses the ones
        the op has not ("node index is out of range"), where it builds the layer."""
        if self.doc.ir_version == "10":
            return
        outs = next((len(h) for h in el.iterchildren("output")), 0)        # (the first of each: OpenVINO's)
        ins = next((len(h) for h in el.iterchildren("input")), 0)
        if el.get("type") == "Const" and (outs > 1 or ins):
            said = f"a Const has one output port and no input, the layer declares {outs} and {ins}"
        elif el.get("type") == "Result" and outs > 1:
            said = f"a Result takes at most one output port, the layer declares {outs}"
        else:
            return
        self.build_time.append(len(self.report.findings))
        self.finding("bad-structure", f"{said}: read_model refuses the file (\"node index is out of range\")",
                     line_of(el), el=el)

    def body(self, el, body, declared) -> None:
        """A TensorIterator/Loop <body> or an If branch: a net of its own, checked by the same code, its Parameters
        given what the outer layer's inputs give (bodies.py: its producers' dims where a previous pass found them
        to differ from the layer's declared input). Where a Parameter declares other dims, the body is checked on
        those too, as read_model does first, for what it refuses there. `declared`: the outer layer's input dims
        and precisions (bodies.declared_inputs)."""
        holder = f"{el.get('type')} id={el.get('id')} name={el.get('name')!r}"
        outer, types = dict(declared[0]), dict(declared[1])
        if el.get("type") == "TensorIterator":
            types = {}                          # (it keeps its body Parameters' declared element types: bodies.py)
        for w in self.wait:                     # (what a previous pass found the producers give)
            if isinstance(w, tuple) and w[0] == "outer" and w[1] == el.get("id"):
                if w[3] != "declared":
                    outer[w[2]] = None if w[3] is None else list(w[3])
                if w[4] is not None and el.get("type") != "TensorIterator":
                    types[w[2]] = w[4]
        where = f"{holder} <{body.tag}>"
        path = f"{self.path} > {where}" if self.path else where
        forced = {pid: (dims, f"input port {port} of {holder}", element_type(types.get(port)))
                  for pid, (dims, port) in parameter_shapes(el, body.tag, outer).items()}
        merged = {pid: src for pid, src in back_edges(el, body).items() if pid in forced and src}
        if merged:                              # a Loop's back edges: what the body gives them, on the initial shapes
            probe = self._body_net(body, path, forced, scratch=True)     # (its waits are the body's)
            for pid, src in merged.items():
                dims, source, et = forced[pid]
                got = probe.produced(*src)
                if got not in ((), None) and len(got) == len(dims) and got != dims:
                    forced[pid] = ([d if d == g else DYNAMIC for d, g in zip(dims, got)],
                                   f"{source} (dynamic where the back edge from layer {src[0]} gives other dims)", et)
        sub = self._body_net(body, path, forced)
        if not sub.declared_differs:
            return
        declared = self._body_net(body, f"{path} (as declared)", {}, scratch=True)
        said = {(f.code, f.line) for f in self.report.findings}
        for f in declared.report.findings:      # (what the ops' shape inference refuses: the plugin compiles the
            #                                     body with the inputs' shapes and types)
            if f.code in ("bad-shape", "bad-rank") and f.layer_type != "Parameter" and (f.code, f.line) not in said:
                self.report.findings.append(replace(f, path=path, message=f"{f.message} (read_model checks the body"
                                                    " on the shapes its Parameters declare before it gives them the"
                                                    " inputs' shapes)"))

    def _body_net(self, body, path, forced, scratch=False) -> _Net:
        """A body checked as a net of its own, its Parameters given `forced`; `scratch`: into a report and a list
        of problems of its own, for what check only reads from it (nothing it finds is said twice)."""
        doc, report = self.doc, self.report
        if scratch:
            doc, report = copy.copy(doc), Report(self.file)
            doc.problems = []
        sub = _Net(doc, report, path, self.all_wait)
        sub.bin, sub.forced = self.bin, forced
        for holder in body.iterchildren("layers", "edges"):
            (sub.layers if holder.tag == "layers" else sub.edges)(holder, len(holder))
        sub.finish()
        # what should wait in the next pass, under the body's path (a body within it has put its own path on)
        self.relook |= {w if isinstance(w, tuple) and w[0] == "body" else ("body", sub.path, w) for w in sub.relook}
        return sub

    def layer(self, layer: Layer, key=None) -> None:
        """A layer read in full: a pooling or Parameter layer, or one the light reading found odd. `key`:
        the layer as written but for its id, name, rt_info and port names (content_key); a key that gave no
        finding is not checked again."""
        findings, problems = len(self.report.findings), len(self.doc.problems)
        self.last_record = self.last_type = None
        _check_output_precisions(self, layer)
        for line, what in layer.notes:
            self.finding("lenient-attribute", what, line, layer)
        for ports in (layer.inputs, layer.outputs):
            ids = [p.id for p in ports]
            for pid in sorted({i for i in ids if ids.count(i) > 1}):
                self.finding("duplicate-id", f"port id {pid} appears {ids.count(pid)} times", layer.line, layer)
        indices = len(self.index_ports)
        waits = is_pooling(layer) and (self.types.waits(layer) or layer.id in self.wait and self.types.watch(layer))
        if layer.type == "Parameter":
            self.parameter(layer)
        elif is_family(layer) and not layer.inputs:
            self.pooling(layer, None)                       # (refused: it needs its inputs)
        elif is_family(layer):
            self.waiting[layer.id] = layer                  # its shape input is known once the edges are read
        elif is_pooling(layer):
            self.report.count(layer.type)
            one = len(layer.inputs) == 1 or len(layer.inputs) > 1 and self.doc.ir_version == "10"
            x = layer.inputs[0].dims if one else []
            if one and (not x or not all(isinstance(d, int) for d in x) or layer.id in self.wait):
                self.waiting[layer.id] = layer
                key = None                                  # its outcome depends on the edges
            else:
                self.pooling(layer, x)
        ports = (tuple((p.id, p.raw_dims) for p in layer.outputs), tuple((p.id, p.raw_dims) for p in layer.inputs))
        if key is not None and len(self.report.findings) == findings and len(self.doc.problems) == problems \
                and len(self.index_ports) == indices and not waits and layer.id not in self.types.params:
            if len(self.clean) >= _CLEAN_KEYS:
                self.clean.clear()                          # a file of ever-new layers: memory stays flat
            self.clean[key] = (ports, self.last_record, self.last_type)
        if self.seen.row(layer.id) is None:
            self.remember(layer.id, layer.name, layer.type, ports, layer.line)
            if layer.type in ("Const", "Convert", "Parameter"):
                self.source(len(self.seen) - 1, layer.type, layer.data)
            elif is_pooling(layer) and layer.id not in self.waiting:
                self.types.keep(len(self.seen) - 1, self.last_type)

    def remember(self, lid, name, layer_type, ports, where=None) -> None:
        """A new layer id: its name and signature, (type, output ports, input ports) as (id, raw dims) pairs.
        `where`: its line, or its element."""
        sig = (layer_type,) + ports
        number = self.signatures.get(sig)
        light = hasattr(where, "tag")           # read light (light_ports): its dims are judged here
        if number is None and len(self.by_number) < _SIGNATURES:
            number = self.signatures[sig] = len(self.by_number)
            self.by_number.append(_with_dicts(sig))
            if light and self.odd_dims(lid, name, layer_type, ports, where):
                self.bad_dims.add(number)
        elif number is None:        # a file of ever-new shapes: one record a layer, compressed (flat memory)
            data = marshal.dumps(sig)
            number = -1 - self.spill.append(len(data).to_bytes(4, "little") + data)
            if light:
                self.odd_dims(lid, name, layer_type, ports, where)
        elif number in self.bad_dims:
            self.odd_dims(lid, name, layer_type, ports, where)
        row = self.seen.add(lid, name, number)
        if lid in self.rooted and layer_type not in ROOTS:
            self.graph.roots.append(row)                    # (a shadowed Result's id: the reader walks back from it)
        if layer_type in _GRAPH_TYPES or ports[1]:        # (any layer with input ports needs their edges)
            inputs = len(ports[1]) if self.doc.ir_version != "10" else \
                min(len(ports[1]), 0 if layer_type == "Const" else 1)    # (v10: extra ports; a Const takes none)
            self.graph.layer(row, layer_type, inputs, where if not hasattr(where, "tag") else line_of(where),
                             layer_type not in ROOTS and layer_type != "Parameter")

    def odd_dims(self, lid, name, layer_type, ports, el) -> bool:
        """The <dim>s of a layer read light that read_model refuses (an error) or reads otherwise than they are
        written (a warning), as _port judges those of a layer read in full; whether there were any."""
        texts = [t for holder in ports for _, dims in holder for t in dims]
        if not texts or None not in texts and "".join(texts).isdigit():
            return False                                    # (the common case, in one step)
        found = False
        for side, holder in zip(("output", "input"), ports):
            for pid, dims in holder:
                for t in dims:
                    if t is not None and t.isdigit():
                        continue
                    try:
                        dim, odd = port_dim(t)
                    except ValueError as e:
                        self.finding("bad-structure",
                                     f"{side} port {pid}: <dim>{t or ''}</dim> is not a dimension: {e}",
                                     line_of(el), el=dict(id=lid, name=name, type=layer_type))
                        found = True
                        continue
                    if odd:
                        self.finding("lenient-attribute", f"{side} port {pid}: OpenVINO reads <dim>{t}</dim> as"
                                     f" {text(dim)}", line_of(el), el=dict(id=lid, name=name, type=layer_type))
                        found = True
        return found

    def signature(self, lid):
        """(type, output ports, input ports, the same two as dicts, input port positions) of a layer read so
        far, or None."""
        row = self.seen.row(lid)
        return None if row is None else self._signature(self.seen.value[row])

    def _signature(self, number):
        if number >= 0:
            return self.by_number[number]
        sig = self.unspilled.get(number)
        if sig is None:
            start = -1 - number
            size = int.from_bytes(self.spill.read(start, start + 4), "little")
            sig = _with_dicts(marshal.loads(self.spill.read(start + 4, start + 4 + size)))
            if len(self.unspilled) >= 256:
                self.unspilled.clear()
            self.unspilled[number] = sig
        return sig

    def info(self, lid):
        """(name, type, output ports, input ports, ...) of a layer read so far, or None."""
        row = self.seen.row(lid)
        return None if row is None else (self.seen.name(row),) + self._signature(self.seen.value[row])

    def parameter(self, layer: Layer) -> None:
        et_text = layer.data.get("element_type")
        et = element_type(et_text)
        given = self.forced[layer.id][2] if layer.id in self.forced else None    # a body's: the outer input's type
        if given is not None and (et_text is None or et is not None and et_text == et.name):
            if et_text != given.name:           # (OpenVINO reads the declared type, checks the body on it, then
                self.declared_differs = True    # takes the input's)
                said = f"element_type={et_text}" if et_text is not None else "has no element_type"
                self.finding("precision-mismatch", f"Parameter {said}: OpenVINO gives this body"
                             f" Parameter {given.name}, what {self.forced[layer.id][1]} receives", layer.data_line,
                             layer)
            layer = replace(layer, data={**layer.data, "element_type": given.name})
            et_text, et = given.name, given
        if et_text is None:
            self.finding("bad-attribute", "Parameter has no element_type: OpenVINO reads it as dynamic, which the CPU"
                         " plugin does not compile (\"Cannot allocate memory for incompatible descriptors\")",
                         layer.data_line, layer)
        elif et is None:
            self.finding("bad-attribute", f'Parameter element_type="{et_text}" is not an element type OpenVINO'
                         " reads", layer.data_line, layer)
        elif et_text.lower() != et.name:               # (a name in any case is read: F32, Bf16; FP32 is not)
            self.finding("bad-attribute", f'Parameter element_type="{et_text}" is not written as OpenVINO names'
                         f' element types ("{et.name}", in any case): read_model refuses the file ("is not a member'
                         ' of enum element::Type_t")', layer.data_line, layer)
        elif et.name in _PARAMETER_REFUSED:
            self.finding("bad-precision", f"Parameter element_type={et.name}: {_PARAMETER_REFUSED[et.name]}",
                         layer.data_line, layer)
        if (len(layer.outputs) > 1 or layer.inputs) and self.doc.ir_version != "10":
            self.finding("bad-structure", f"a Parameter has one output port and no input, the layer declares"
                         f" {len(layer.outputs)} and {len(layer.inputs)}: read_model refuses the file (\"node index is"
                         " out of range\")", layer.line, layer)
        _check_precisions(self, layer)
        self.types.parameter(layer)
        if "shape" not in layer.data:
            return
        try:
            shape = parse_shape(layer.data["shape"])
        except ValueError as e:
            self.finding("bad-attribute", f'Parameter shape="{layer.data["shape"]}" is not a shape: {e}',
                         layer.data_line, layer)
            return
        if not layer.outputs:
            return
        port = layer.outputs[0]
        if layer.id in self.forced:
            shape = self._forced_shape(layer, shape)
        self.outputs[(layer.id, port.id)] = shape          # OpenVINO takes the shape, not the port's <dim>s
        if shape is None:
            self.finding("bad-rank", f'Parameter shape="{layer.data["shape"]}" is of dynamic rank, which the CPU plugin'
                         " does not compile, whatever reads it (\"CPU plug-in doesn't support Parameter operation with"
                         ' dynamic rank")', layer.data_line, layer)
            return
        what = "Parameter shape" if layer.id not in self.forced else "the shape OpenVINO gives this Parameter"
        if len(port.dims) != len(shape):
            self.finding("shape-mismatch", f"{what} has rank {len(shape)}, its output port {port.id} has"
                         f" rank {len(port.dims)}", port.line, layer)
            return
        for i, (s, d) in enumerate(zip(shape, port.dims)):
            if not compatible(s, d):
                self.finding("shape-mismatch", f"{what} dim {i} is {text(s)}, its output port {port.id}"
                             f" declares {text(d)}", port.dim_lines[i], layer)

    def _forced_shape(self, layer: Layer, declared):
        """A body Parameter's shape as OpenVINO gives it (the outer input's). A declared shape other than that is
        checked too (body(): read_model validates the body on it first); one that does not fit it is a finding."""
        dims, source, _ = self.forced[layer.id]
        self.declared_differs |= declared != dims
        if declared is None or len(declared) != len(dims) or not all(map(compatible, declared, dims)):
            self.finding("shape-mismatch", f'Parameter shape="{layer.data["shape"]}": OpenVINO gives this body'
                         f" Parameter {shape_text(dims)}, what {source} receives (it checks the body on the declared"
                         " shape first, then takes the input's)", layer.data_line, layer)
        return dims

    # -- pooling ------------------------------------------------------------------------------------------
    def pooling(self, layer: Layer, x_dims) -> None:
        """Check a pooling layer on input dims `x_dims` (None: dynamic rank); remember what it outputs. Its
        errors but for declared dims are OpenVINO's only where its reader builds the layer (finish())."""
        start = len(self.report.findings)
        self._pooling(layer, x_dims)
        self.build_time.extend(range(start, len(self.report.findings)))

    def _pooling(self, layer: Layer, x_dims) -> None:
        if is_family(layer):
            return self.family(layer, x_dims)
        rank = None if x_dims is None else len(x_dims)
        try:
            pl = interpret(layer, self.file, rank, self.doc.ir_version)
            check_dims(pl, x_dims, self.file)
        except IRError as e:
            self.finding(e.code, e.reason, e.line or layer.line, layer)
            self.record(layer, x_dims, error=e.reason)
            return
        self.attributes(layer, pl.op, pl.unknown, pl.lenient)
        x = layer.inputs[0]
        et = self.in_type or _check_precisions(self, layer)
        self.last_type = et
        if et is not None:
            self.type_verdicts(layer, pl, et, x_dims, x.line)
        self.extra_outputs(layer, pl.op, pl.outputs)
        port = layer.outputs[1].id if len(layer.outputs) > 1 else None
        if pl.crashes_unless_indices_used and (layer.id, port) not in self.read_from_waiting:
            self.unless_used[(layer.id, port)] = (
                "bad-attribute", f"{pl.op} with rounding_type ceil_torch and no dilations: OpenVINO 2026.4.1 reads"
                " it, and crashes compiling it (a segmentation fault) when its indices output is not used",
                layer.data_line, layer)
            self.index_ports.setdefault((layer.id, port), None)   # (so that the edges from it are looked at)
        if x_dims is None or all(_unbounded(d) for d in x_dims[2:]):
            gap = self.reshaped.why(layer.id) if self.reshaped is not None else None
            self.report.uncheck(layer.type, "their spatial input dims are dynamic and unbounded, so their output"
                                " dims are not checked: give the model's input shapes with --shape NAME=dims"
                                if gap is None else f"--shape does not reach their input: {gap}")
        if x_dims is None:                               # dynamic rank in: rank k + 2 out, every dim dynamic
            plans, computed = None, [DYNAMIC] * (pl.spec.ndim + 2)
        else:
            try:
                spec, crop = negpads.fit(pl, x_dims)
                plans = plan(spec, negpads.cut(x_dims, crop))
            except IRError as e:
                self.finding("bad-shape", f"{pl.op}: {e.reason}", x.line, layer)
                self.record(layer, x_dims, pl=pl, error=e.reason)
                return
            computed = list(x_dims)
            for a, p in zip(pl.spec.spatial_axes(rank), plans):
                computed[a] = p.out if p.out is not None else (p.bounds or DYNAMIC)
            refusal = empty_window_refusal(pl, et, x_dims, plans) or small_output_refusal(pl, et, x_dims, plans)
            if refusal:
                self.finding(*refusal, x.line, layer)
        for k, port in enumerate(layer.outputs[: pl.outputs]):
            self.port_dims(layer, pl, x_dims, plans, computed, port, first=k == 0)
            want = et.name if k == 0 and et is not None else pl.index_type if k == 1 else None
            got = element_type(port.precision)
            if got is not None and want is not None and got.name != want:
                what = f"the input's ({want})" if k == 0 else f"index_element_type {want}"
                self.finding("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                             f" {pl.op} gives {what}", port.line, layer)
            if port.dims != computed:
                self.outputs[(layer.id, port.id)] = computed
        self.record(layer, x_dims, pl=pl, plans=plans, computed=computed)

    def family(self, layer: Layer, x_dims) -> None:
        """An adaptive pool, or a reduction that may be a global pool, once its shape input is known."""
        rank = None if x_dims is None else len(x_dims)
        shape_port = layer.inputs[1] if len(layer.inputs) >= 2 else None
        src = self.feeds.get((layer.id, shape_port.id)) if shape_port else None
        what = shape_input_name(layer)
        if src is not None and src[0] not in self.consts and src[0] not in self.keep_consts \
                and (self.signature(src[0]) or ("",))[0] == "Const":
            self.relook.add(("const", src[0]))      # (a Const not kept: judged in the next pass, with it kept)
            return
        try:
            if shape_port is None:
                interpret_family(layer, self.file, rank, (), {}, self.doc.ir_version)   # raises: no inputs
            try:
                values, source = fold.shape_input(what, src, self.shape_ops, self.feeds, self.consts, self.bin,
                                                  self.file)
            except fold.Unknown as e:
                self.finding("unchecked", str(e), shape_port.line, layer)
                self.report.uncheck(layer.type, "their shape inputs are in a weights file that is not there"
                                    if e.missing else "their shape inputs are not known")
                return
            early = read_model_values(source, self.bin, self.file)
            if early is not None:
                self.packed(layer, rank, source, early, values)
            fl = interpret_family(layer, self.file, rank, values, source.where(self.file), self.doc.ir_version)
        except IRError as e:
            if e.code == "bad-weights":
                e = e.located(**layer.where(self.file))
                self.finding(e.code, f"{e.reason} (the {what} of {layer.type} id={layer.id} name={layer.name!r})",
                             e.line, el={"id": e.layer_id, "name": e.layer_name, "type": e.layer_type})
            else:
                self.finding(e.code, e.reason, e.line or layer.line, layer)
            return
        if fl is None:
            return                                          # a reduction, but not a global pool: not pooling
        self.report.count(fl.kind)
        self.attributes(layer, fl.op, fl.unknown, fl.lenient)
        d = load("openvino")["ops"][fl.op]
        et = self.in_type or _check_precisions(self, layer)
        self.last_type = et
        if et is not None and et.name not in d["input_types"]:
            by = "its op validation" if et.name in d.get("validation_refuses", ()) else "the CPU plugin, on any CPU"
            self.finding("bad-precision", f"{fl.op} on {et.name} is refused by {by} (it takes"
                         f" {', '.join(d['input_types'])})", layer.inputs[0].line, layer)
        if fl.outputs == 2:
            self.watch_indices(layer)
        if fl.outputs == 2 and fl.index_type not in d.get("compiled_index_types", (fl.index_type,)):
            why = (f"OpenVINO's CPU plugin does not compile {fl.op} with index_element_type {fl.index_type}, on any"
                   f" CPU (it takes {', '.join(d['compiled_index_types'])})")
            port = (layer.id, layer.outputs[1].id) if len(layer.outputs) > 1 else None
            if fl.out_sizes and all(n == 1 for n in fl.out_sizes):   # global: a ReduceMax unless indices are used
                if port is not None and port in self.read_from_waiting:
                    self.finding("bad-precision", f"{why} (an edge uses its indices)", layer.data_line, layer)
                elif port is not None:
                    self.index_ports[port] = ("bad-precision", f"{why}, where its indices output is used (a"
                                              " global one whose indices nothing reads becomes a ReduceMax)")
            else:
                self.finding("bad-precision", why, layer.data_line, layer)
        self.extra_outputs(layer, fl.op, fl.outputs)
        computed = fl.output_dims(x_dims)
        how = fl.arithmetic(x_dims)
        for k, port in enumerate(layer.outputs[: fl.outputs]):
            want = (et.name if et is not None else None) if k == 0 else fl.index_type
            got = element_type(port.precision)
            if got is not None and want is not None and got.name != want:
                gives = "the input's" if k == 0 else "index_element_type"
                self.finding("precision-mismatch", f"output port {port.id} declares precision {port.precision};"
                             f" {fl.op} gives {gives} {want}", port.line, layer)
            if computed is None:
                continue
            if port.dims and len(port.dims) != len(computed):
                self.finding("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {fl.op} gives rank"
                             f" {len(computed)} ({'; '.join(how)})", port.line, layer)
                self.outputs[(layer.id, port.id)] = computed
                continue
            bad = [i for i, (dd, c) in enumerate(zip(port.dims, computed)) if not compatible(dd, c)]
            if bad:
                names = ["N", "C"] + list(axis_names(len(computed) - 2))
                self.finding("shape-mismatch", f"output port {port.id}: " + "; ".join(
                    f"{names[i]}: computed {text(computed[i])}, declared {text(port.dims[i])}" for i in bad) +
                    f" ({'; '.join(how)})", port.dim_lines[bad[0]], layer, fix=_fix(layer, port, computed))
            if port.dims != computed:
                self.outputs[(layer.id, port.id)] = computed
        self.record(layer, x_dims, family=fl, computed=computed, how=how)

    def attributes(self, layer, op, unknown, lenient) -> None:
        """What OpenVINO reads without a word: attributes the op does not have, values not written as their type."""
        names = load("openvino")["ops"][op]["attributes"]
        for name in unknown:
            near = difflib.get_close_matches(name, names, n=1, cutoff=0.7)
            hint = f" (did you mean {near[0]}?)" if near else ""
            self.finding("unknown-attribute", f"{op} has no attribute {name}{hint}; OpenVINO ignores it",
                         layer.data_line, layer)
        for message in lenient:
            self.finding("lenient-attribute", f"{op}: {message}", layer.data_line, layer)

    def record(self, layer, x_dims, **what) -> None:
        """For check(explain=True): what decides a pooling layer's output, or why it cannot be computed."""
        if self.report.explained is not None:
            self.last_record = dict(layer=layer, path=self.path, x_dims=x_dims, pl=None, plans=None, computed=None,
                                    error=None, family=None) | what
            self.emit(self.last_record)

    def emit(self, rec) -> None:
        sink = self.report.explained
        (sink if callable(sink) else sink.append)(rec)

    def port_dims(self, layer, pl, x_dims, plans, computed, port, first=True) -> None:
        """A declared output port against the computed dims: a static dim must equal the computed value,
        or lie inside the computed interval. Where the spec text differs, a note on the `first` port only."""
        rank = pl.spec.ndim + 2
        if port.dims and len(port.dims) != rank:
            self.finding("shape-mismatch", f"output port {port.id} has rank {len(port.dims)}, {pl.op} gives rank"
                         f" {rank}", port.line, layer)
            return
        if plans is None:
            return                                        # dynamic rank in: nothing to contradict
        problems, divergences, first_line, follows_spec = [], [], None, False
        axes = pl.spec.spatial_axes(rank)
        for i, declared in enumerate(port.dims):
            line = port.dim_lines[i]
            if i in axes:
                p = plans[axes.index(i)]
                how, spec_text = p.arithmetic, _spec_text_out(p, pl.spec.auto_pad)
            else:
                how, spec_text = f"{'N' if i == 0 else 'C'}: {text(x_dims[i])} from the input", None
            if not compatible(declared, computed[i]):
                inside = "" if isinstance(computed[i], int) else ", outside that interval"
                problems.append(f"{how}, declared {text(declared)}{inside}")
                follows_spec = follows_spec or spec_text == declared
                first_line = first_line or line
            elif first and spec_text is not None and isinstance(declared, int) and spec_text != declared:
                divergences.append(f"{p.name}: declared {declared} matches the OpenVINO runtime, but the spec text's"
                                   f" {pl.spec.auto_pad} formula gives {spec_text}")
        if problems:
            if follows_spec:
                problems[-1] += (f" (the declared dims follow the spec text's {pl.spec.auto_pad} formula; the OpenVINO"
                                 " runtime, which wins, computes the values above)")
            self.finding("shape-mismatch", f"output port {port.id}: " + "; ".join(problems), first_line, layer,
                         fix=_fix(layer, port, computed))
        if divergences:
            self.finding("spec-divergence", f"output port {port.id}: " + "; ".join(divergences), port.line, layer)

    # -- edges --------------------------------------------------------------------------------------------
    def edges(self, holder, n) -> None:
        ends = [x(holder) for x in _EDGE_XPATHS]
        if any(len(e) != len(holder) for e in ends):    # not every child an edge with 4 ends: read each in full
            edges = [read_edge(el, self.doc.problems) if belongs(el, holder, self.doc.problems) else None
                     for el in holder[:n]]
            edges = [e and (e.from_layer, e.from_port, e.to_layer, e.to_port) for e in edges]
        else:
            edges = list(zip(*ends))[:n]
        waiting, index_ports, shape_ops, outputs = self.waiting, self.index_ports, self.shape_ops, self.outputs
        row, value, signature, graph, types = self.seen.row, self.seen.value, self._signature, self.graph, self.types
        out_types, param_slots = self.out_types, self.param_slots
        ports = graph.ports
        ports.extend(bytes(len(self.seen) - len(ports)))
        rows = array("i")                               # (producer row, consumer row, line) of each edge
        for el, e in zip(holder[:n], edges):            # (holder[i] would walk the children from the start)
            if e is None:
                continue
            if not len(self.seen):
                self.early_edges.append(e + (line_of(el),))
                continue
            fl, fp, tl, tp = e
            ra, rb = row(fl), row(tl)
            if ra is not None and rb is not None:
                a, b = signature(value[ra]), signature(value[rb])
                i = b[5].get(tp)
                if i is not None:                       # graph.edge, its common case written out (a third faster)
                    line = el.sourceline
                    if i < 8 and ra < rb and not ports[rb] >> i & 1 and line is not None and line < BIG_LINE:
                        ports[rb] |= 1 << i
                        rows.extend((ra, rb, line))
                    else:
                        graph.edge(ra, rb, i, tp, line_of(el), rows)
                if tl not in waiting and tl not in shape_ops and (fl, fp) not in index_ports and fl not in waiting \
                        and tl not in param_slots and not (b[0] in _WATCHED and types.differ(ra, rb, a[0], b[0])) \
                        and (fl, fp) not in outputs and not types.wants(fl, tl) and (fl, fp) not in out_types \
                        and a[3].get(fp, 0) == b[4].get(tp, 1):
                    continue                                                    # both ends declare the same dims
            self.edge(fl, fp, tl, tp, line_of(el))
        graph.batch(rows)

    def edge(self, fl, fp, tl, tp, line) -> None:
        slot = self.param_slots.get(tl)
        if slot is not None and fl not in slot and (self.signature(tl) or ("Parameter",))[0] != "Parameter":
            info = self.info(tl)
            self.finding("bad-graph", f"layer {tl} takes the place of an earlier Parameter of that id, where"
                         f" OpenVINO's reader builds it among the inputs, before layer {fl}, which feeds it: read_model"
                         " refuses the file (\"Attempt to access node ... that not in graph\"), or crashes when the"
                         " layer feeds itself", line, el={"id": tl, "name": info and info[0], "type": info and info[1]})
        self.maybe_fused(fl, fp, tl, line)
        if self.types.wants(fl, tl):
            self.types.edge(self, fl, fp, tl, tp, line)
        self.pass_type(fl, fp, tl)
        if tl in self.waiting or tl in self.shape_ops:
            self.feeds[(tl, tp)] = (fl, fp)
        else:
            self.producer(fl, fp, tl, tp)
        why = self.index_ports.get((fl, fp))
        self.unless_used.pop((fl, fp), None)
        if (fl, fp) in self.reference_ports:
            self.references.add(fl)
        if fl in self.waiting:
            self.read_from_waiting.add((fl, fp))
        if why:
            src = self.info(fl)
            self.finding(why[0], f"{why[1]} (edge {fl}:{fp} -> {tl}:{tp} uses it)", line,
                         el={"id": fl, "name": src and src[0], "type": src and src[1]})
        problem = self.edge_problem(fl, fp, tl, tp)
        if problem and tl in self.wait and " joins dims " in problem:
            self.joins[(tl, tp)] = (problem, line)          # said in finish(), with what --fix writes
        elif problem:
            dst = self.info(tl)
            el = {"id": tl, "name": dst[0], "type": dst[1]} if dst else None
            if " joins dims " in problem:
                self.finding("edge-mismatch", problem, line, el=el, fix=self.join_fix(fl, fp, tl, tp))
            else:                           # a missing end: an error only where the reader builds the consumer
                self.loose.append((problem, line, el, self.seen.row(tl)))

    def pass_type(self, fl, fp, tl) -> None:
        """A pool fed by a Parameter whose element_type its port does not declare (or by such a pool) gives that
        type on: remembered for the family layers that wait for the edges (finish() gives it them)."""
        et = self.types.params[fl][0] if fl in self.types.params else self.out_types.get((fl, fp))
        if et is None:
            return
        dst = self.signature(tl)
        if dst is not None and dst[0] in POOL_TYPES and dst[1]:
            self.out_types[(tl, dst[1][0][0])] = et

    def producer(self, fl, fp, tl, tp) -> None:
        """A pooling layer checked on its declared input, which its producer contradicts: OpenVINO computes it
        from the producer's dims, so check takes it again, waiting for them (check's next pass). A TensorIterator,
        Loop or If gives its bodies what the producer gives: judged in finish()."""
        dst = self.signature(tl)
        if dst is not None and dst[0] in BODY_TYPES:
            self.outer_feeds.append((fl, fp, tl, tp))
            return
        if dst is None or dst[0] not in POOL_TYPES or not dst[2] or dst[2][0][0] != tp:
            return
        if fl in self.waiting or fl in self.types.params:
            self.relook.add(tl)                 # its producer's output is known once the edges are read, or its type
            return                              # is a Parameter's element_type that the ports do not declare
        judged = self.types.source_type(self.seen.row(tl))
        src = self.signature(fl) if judged is not None else None
        given = self.given_type(fl, fp) if src and src[1] and fp == src[1][0][0] else None
        if given is not None and given.name != judged.name:
            self.relook.add(tl)                 # judged on its input port's precision; OpenVINO takes the producer's
            return
        want = self.produced(fl, fp)
        have = [lenient_dim(t) for t in dst[2][0][1]]
        if want not in ((), None) and have and (len(have) != len(want) or not all(map(compatible, have, want))):
            self.relook.add(tl)

    def given_type(self, fl, fp):
        """The element type output `fp` of layer `fl` gives, where check knows it: a waiting pool's, a
        Parameter's or Const's element_type, a Convert's destination_type, the type a pool was judged on."""
        return self.out_types.get((fl, fp)) or self.types.kinds.get(fl) or self.types.source_type(self.seen.row(fl))

    def produced(self, fl, fp):
        """The dims output `fp` of layer `fl` gives, as OpenVINO infers them: what check computed for it, else
        what it declares; () where neither is known (None: a dynamic rank)."""
        if (fl, fp) in self.outputs:
            return self.outputs[(fl, fp)]
        src = self.signature(fl)
        raw = src and src[3].get(fp)
        return [lenient_dim(t) for t in raw] if raw else ()

    def join_fix(self, fl, fp, tl, tp) -> dict | None:
        """What --fix writes into the input port an edge joins to a Parameter or pooling layer's output: the dims
        irpool computes for that output (the consumer is found by its id: `layer_line` None)."""
        src, dst = self.signature(fl), self.signature(tl)
        if src[0] not in ("Parameter",) + POOL_TYPES or self.path:
            return None
        want = self.produced(fl, fp)
        have = [lenient_dim(t) for t in dst[4][tp]]
        if want is None or len(want) != len(have):
            return None
        dims = [[i, w] for i, (h, w) in enumerate(zip(have, want)) if isinstance(w, int) and not compatible(h, w)]
        return dict(layer_line=None, port=tp, dims=dims, side="input") if dims else None

    def edge_problem(self, fl, fp, tl, tp) -> str | None:
        src, dst = self.signature(fl), self.signature(tl)
        name = f"edge {fl}:{fp} -> {tl}:{tp}"
        if src is None or dst is None:
            return f"{name} names a layer that does not exist"
        a = next((dims for pid, dims in src[1] if pid == fp), None)
        b = next((dims for pid, dims in dst[2] if pid == tp), None)
        if a is None or b is None:
            side = f"output port {fp} of layer {fl}" if a is None else f"input port {tp} of layer {tl}"
            return f"{name}: {side} does not exist"
        if a != b and a and b:                        # (a port with no <dim> may be a dynamic rank)
            da, db = [lenient_dim(t) for t in a], [lenient_dim(t) for t in b]
            if len(da) != len(db) or not all(compatible(x, y) for x, y in zip(da, db)):
                return f"{name} joins dims [{','.join(map(str, a))}] to [{','.join(map(str, b))}]"
        return None

    def finish(self) -> None:
        """Edges read before the layers, then every waiting pooling layer, producers first, then what read_model
        would refuse in the graph."""
        self.relook |= {("dup", lid, n) for lid, n in self.dups.items()}
        for lid, line, el in self.v10_params:
            if (self.signature(lid) or ("",))[0] == "Parameter":
                self.finding("duplicate-id", f"a later Parameter takes id {lid} again: read_model of IR v10 refuses"
                             " two inputs of one id (their names collide, model_reader.cpp)", line, el=el)
        graph, rows = self.graph, array("i")
        graph.ports.extend(bytes(len(self.seen) - len(graph.ports)))
        for fl, fp, tl, tp, line in self.early_edges:
            self.edge(fl, fp, tl, tp, line)
            ra, rb = self.seen.row(fl), self.seen.row(tl)
            positions = {} if rb is None else self._signature(self.seen.value[rb])[5]
            if ra is not None and tp in positions:
                graph.edge(ra, rb, positions[tp], tp, line, rows)
        graph.batch(rows)
        for lid in list(self.waiting):
            stack = [lid]
            while stack:
                cur = stack[-1]
                layer = self.waiting.get(cur)
                if layer is None:
                    stack.pop()
                    continue
                src = self.feeds.get((cur, layer.inputs[0].id))
                if src is not None and src[0] in self.waiting and src[0] not in stack:
                    stack.append(src[0])
                    continue
                stack.pop()
                del self.waiting[cur]
                x = self.input_dims(layer, src)
                joined = self.joins.pop((cur, layer.inputs[0].id), None)
                if joined:
                    port = layer.inputs[0]
                    self.finding("edge-mismatch", joined[0], joined[1], layer, fix=_fix(layer, port, x or [], "input"))
                # its type: what a waiting layer before it gives, or its Parameter's element_type
                self.in_type = self.given_type(*src) if src else None
                self.last_type = None
                self.pooling(layer, x)
                if self.last_type is not None and layer.outputs:
                    self.out_types[(cur, layer.outputs[0].id)] = self.last_type
                self.in_type = None
        for fl, fp, tl, tp in self.outer_feeds:     # (its bodies take what the producer gives: the next pass)
            want, dst = self.produced(fl, fp), self.signature(tl)
            have = [lenient_dim(t) for t in dst[4][tp]] if dst and tp in dst[4] and dst[4][tp] else None
            et = self.types.params[fl][0] if fl in self.types.params else self.given_type(fl, fp)
            declared = element_type(self.holder_types.get(tl, {}).get(tp))
            et = et.name if et is not None and (declared is None or declared.name != et.name) \
                and dst and dst[0] != "TensorIterator" else None    # (which keeps its Parameters' declared types)
            dims = "declared" if want == () or want == have else None if want is None else tuple(want)
            if dims != "declared" or et is not None:
                self.relook.add(("outer", tl, tp, dims, et))
        start = len(self.report.findings)
        self.types.finish(self)                             # (element types that wait for the edges: eltypes.py)
        self.build_time.extend(range(start, len(self.report.findings)))
        for code, message, line, layer in self.unless_used.values():
            if layer.id not in self.f32_chain:
                self.build_time.append(len(self.report.findings))
                self.finding(code, message, line, layer)
        if self.f32_chain:
            self.say_f32_chain()
        if self.fused and self.doc.ir_version != "10":     # (v10's reading converts every bf16 output to f32)
            self.say_fused()
        if self.doc.is_snippet:
            for message, line, el, _ in self.loose:
                self.finding("edge-mismatch", message, line, el=el)
            return
        seen, findings = self.seen, self.report.findings
        late = [k for k in self.build_time if findings[k].severity == "error" and findings[k].code not in _DECLARED]
        found, built = graph.problems(len(seen), seen.id,
                                      lambda r: [pid for pid, _ in self._signature(seen.value[r])[2]],
                                      ask=bool(self.loose or late))
        for k in late:
            f, row = findings[k], seen.row(findings[k].layer_id)
            if row is not None and not built[row]:
                findings[k] = replace(f, code="unbuilt", severity=severity("unbuilt"), fix=None, message=f"{f.message};"
                                      " but OpenVINO's reader never builds this layer (no Result depends on it), so"
                                      " it reads the file")
        for row, message, line in found:
            self.finding("bad-graph", message, line, el={"id": seen.id(row), "name": seen.name(row),
                                                         "type": self._signature(seen.value[row])[0]})
        for message, line, el, row in self.loose:
            if row is not None and built[row]:
                self.finding("edge-mismatch", message, line, el=el)
            else:
                self.finding("unbuilt", f"{message}; OpenVINO's reader never builds"
                             f" {'this layer' if row is not None else 'the layer it names'} (no Result depends on it),"
                             " so it reads the file", line, el=el)

    def input_dims(self, layer: Layer, src):
        """A waiting layer's input as OpenVINO infers it: from its producer where that says more."""
        declared = layer.inputs[0].dims or None
        got = () if src is None else self.produced(*src)
        return declared if got == () else got


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
            report, relook = _pass(source, opened, bin, wait, sink if settled or sink is None else None, reshaped)
            if relook <= wait or n >= _PASSES - 1:
                if sink is None or settled:
                    return report
                settled = True                       # explain: one more pass, that records
            wait = wait | relook
        return report
    finally:
        opened[0].close()


_DECLARED = ("shape-mismatch", "edge-mismatch")   # declared dims: wrong whether or not OpenVINO builds the layer
_PASSES = 8     # passes at most: a pool whose producer contradicts its declared input waits for it in the next


def _pass(source, opened, bin, wait, explained, reshaped=None):  # noqa: A002
    """One reading of the document; the Report and the ids of pooling layers that should have waited for
    their producer (`wait`: those that wait in this pass). `reshaped`: --shape's dims, written in as it reads."""
    doc = Document(source, opened=opened, edit=reshaped.edit if reshaped is not None else None)
    report = Report(doc.file, explained=explained)
    net = _Net(doc, report, wait=wait)
    net.reshaped = reshaped
    net.bin = consts.bin_path(bin, doc.file)
    for holder, n in doc.batches():
        if holder is None:
            net.layer(read_layer(n, doc.problems))
            for body in n.iterchildren(*BODIES):
                net.body(n, body)
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
    report.findings.sort(key=lambda f: (f.line or 0))
    return report, net.relook


# Parameter element types the CPU plugin refuses whatever reads the Parameter (OpenVINO 2026.4.1, measured on AMD EPYC
# family 25 model 17; the refusals are the plugin's own input checks, which do not branch on the CPU)
_PARAMETER_REFUSED = {
    "u1": "the CPU plugin does not compile a u1 input (\"Input image format u1 is not supported yet\")",
    "u3": "the CPU plugin does not compile a u3 input, used or not (\"Input image format u3 is not supported yet\")",
    "u6": "the CPU plugin does not compile a u6 input, used or not (\"Input image format u6 is not supported yet\")",
    "dynamic": "the CPU plugin does not compile an input of dynamic element type (\"Cannot allocate memory for"
               " incompatible descriptors\")",
}


def read_model_values(source, bin_path, file):
    """A packed (u4/i4) Const's values as read_model reads them, or None for any other shape input."""
    if not isinstance(source, consts.Const) or source.element_type not in consts.PACKED:
        return None
    return consts.read(source, bin_path, file, as_read_model=True)


def _unbounded(d) -> bool:
    """A dim with no upper bound (?, -1, 2..)."""
    return not isinstance(d, int) and (not isinstance(d, tuple) or d[1] is None)


def _check_precisions(net: _Net, layer: Layer):
    """An input port's precision that names no element type (OpenVINO does not read it: a warning); the
    input's type (or None). Output ports are judged for every layer in _Net.layer."""
    for port in layer.inputs:
        if port.precision is not None and element_type(port.precision) is None:
            net.finding("lenient-attribute", f'input port {port.id} precision="{port.precision}" is not an element'
                        " type; OpenVINO does not read an input port's precision", port.line, layer)
    return element_type(layer.inputs[0].precision) if layer.inputs else None


def _check_output_precisions(net: _Net, layer: Layer) -> None:
    """Every output port must have a precision OpenVINO's reader takes, spelled as it spells them."""
    for port in layer.outputs:
        if port.precision is None and not net.doc.is_snippet:     # (a bare <layer>: a fragment, as specs write)
            net.finding("bad-structure", f"output port {port.id} has no precision: read_model refuses the file"
                        " (\"node <port> is missing mandatory attribute: precision\")", port.line, layer)
        elif port.precision is not None and port.precision not in spellings():
            et = element_type(port.precision)
            near = f' (OpenVINO spells it "{et.precision}" or "{et.name}")' if et else ""
            net.finding("bad-precision", f'output port {port.id} precision="{port.precision}": read_model refuses the'
                        f' file ("Unsupported element type: {port.precision}"){near}', port.line, layer)


def _fix(layer: Layer, port, computed, side="output") -> dict | None:
    """What --fix writes for a shape-mismatch (an output port), or for an edge-mismatch into a pooling layer
    (its input port, as its producer gives it): every declared dim of the port that a known value contradicts."""
    if len(port.dims) != len(computed):
        return None
    dims = [[i, c] for i, (d, c) in enumerate(zip(port.dims, computed)) if isinstance(c, int) and not compatible(d, c)]
    fix = dict(layer_line=layer.line, port=port.id, dims=dims) if dims else None
    if fix and side != "output":
        fix["side"] = side
    return fix


def _spec_text_out(p, auto_pad: str):
    """The output length by the OpenVINO spec's own formulas, where they differ from the runtime."""
    if p.length is None:
        return None
    if auto_pad in ("same_upper", "same_lower"):
        return p.length                      # the spec: "H_out = H"
    if auto_pad == "valid":
        return math.ceil((p.length - p.dilated_kernel + 1) / p.stride)
    return p.out
