"""What a layer of a few types needs kept or judged as it is read, beyond its ports: a TensorIterator, Loop or If
its bodies, a Const its element type, <data> and ports, a Result its ports, a shape op itself, an op read_model
crashes building its refusal (a mixin of check's NetCheck)."""
from __future__ import annotations

from ..read import portmaps
from ..read.ids import key
from ..read.body_ports import bodies_of, declared_inputs
from ..ops.consts import data_problem
from ..read.element_types import const_element_type, const_refusal
from ..ops.fold import MOST_KEPT, SHAPE_OPS
from ..read.opsets import build_crash
from ..read.layer_edge import read_layer
from ..read.structure import line_of

BODY_TYPES = ("TensorIterator", "Loop", "If")      # the ops whose <layer> holds nets


class TypedLayers:
    def by_type(self, el, lid, ltype):
        """What a TensorIterator, Loop or If (its bodies), a Const (its type and, if it may be a shape input, its
        <data>), a Result, or a shape op needs kept or judged; a Const's element type."""
        if ltype in BODY_TYPES:
            for code, message, line in portmaps.problems(el):
                self.build_time.append(len(self.report.findings))
                self.finding(code, message, line, el=el)
            declared = declared_inputs(el)
            self.inner.holder(lid, declared[1])
            if not self.inner.defer(key(el.get("id")), el, declared):
                for body in bodies_of(el):
                    self.body(el, body, declared)
        elif ltype == "Const":
            data = el.find("data")
            given = self.const_type(el, data)
            problem = data_problem(data, given, self.kept.weights)
            if problem is not None:
                self.build_time.append(len(self.report.findings))  # (read_model judges it where it builds it)
                self.kept.faulty(lid)
                self.finding(problem[0], f"Const {problem[1]}", line_of(data if data is not None else el), el=el)
            self.keep_const(el, lid, data)
            self.port_count(el)
            return given
        elif ltype == "Result":
            self.port_count(el)
        elif ltype in SHAPE_OPS and len(self.kept.shape_ops) < MOST_KEPT:
            self.kept.shape_op(lid, read_layer(el, []))        # (its problems are found below, as for any layer)
        crash = build_crash(el, ltype)
        if crash is not None:
            self.build_time.append(len(self.report.findings))  # (read_model judges it where it builds it)
            self.finding("bad-structure", crash, line_of(el), el=el)
        return None

    def const_type(self, el, data):
        """A Const's element_type (`data`: its <data>) must name a type as OpenVINO reads it there
        (elements.const_spellings: "u8 ", "u9", "FP32", "F32": read_model refuses the file, used or not); the
        type, or None."""
        text = data.get("element_type") if data is not None else None
        et = const_element_type(text)
        if text is not None and et is None:
            self.finding("bad-attribute", f'Const element_type="{text}" is not an element type as OpenVINO names them:'
                         f' read_model refuses the file ("{const_refusal(text)}")', line_of(data), el=el)
        return et

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
