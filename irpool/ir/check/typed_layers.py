"""What a layer of a few types needs kept or judged as it is read, beyond its ports: a Const its element type,
<data> and ports, a Result its ports, a shape op itself, an op read_model crashes building its refusal; functions
that return what they found (found.Found). A TensorIterator, Loop or If's bodies are the bodies room's
(Bodies.holder_read)."""
from __future__ import annotations

from ..ops.consts import data_problem
from ..read.element_types import const_element_type, const_refusal
from ..ops.fold import MOST_KEPT, SHAPE_OPS
from ..read.opsets import build_crash
from ..read.layer_edge import read_layer
from ..read.structure import line_of
from .found import Found

BODY_TYPES = ("TensorIterator", "Loop", "If")      # the ops whose <layer> holds nets


def by_type(el, lid, ltype, kept, ir_version, wanted=False) -> tuple:
    """What a Const (its type and, if it may be a shape input or is `wanted` as one, its <data>: `kept`), a Result,
    or a shape op (kept) needs; an op read_model crashes building. (a Const's element type or None, what is wrong)."""
    given, found = None, []
    if ltype == "Const":
        data = el.find("data")
        given, found = const_type(el, data)
        problem = data_problem(data, given, kept.weights)
        if problem is not None:
            kept.faulty(lid)
            found.append(Found(problem[0], f"Const {problem[1]}", line_of(data if data is not None else el), el, True))
        kept.written(el, lid, data, wanted)
        found += port_count(el, ir_version)
        return given, found
    if ltype == "Result":
        found += port_count(el, ir_version)
    elif ltype in SHAPE_OPS and len(kept.shape_ops) < MOST_KEPT:
        kept.shape_op(lid, read_layer(el, []))        # (its problems are found below, as for any layer)
    crash = build_crash(el, ltype)
    if crash is not None:
        found.append(Found("bad-structure", crash, line_of(el), el, True))
    return given, found


def const_type(el, data) -> tuple:
    """A Const's element_type (`data`: its <data>) must name a type as OpenVINO reads it there
    (elements.const_spellings: "u8 ", "u9", "FP32", "F32": read_model refuses the file, used or not): (the type or
    None, what is wrong)."""
    text = data.get("element_type") if data is not None else None
    et = const_element_type(text)
    if text is not None and et is None:
        return et, [Found("bad-attribute", f'Const element_type="{text}" is not an element type as OpenVINO names'
                          f' them: read_model refuses the file ("{const_refusal(text)}")', line_of(data), el)]
    return et, []


def port_count(el, ir_version) -> list:
    """A Const has one output port and no input, a Result at most one output port (measured, 2026.4.1): from
    IR v11 on, read_model makes a port of each <port> of the first <input> and <output> and refuses the ones
    the op has not ("node index is out of range"), where it builds the layer."""
    if ir_version == "10":
        return []
    outs = next((len(h) for h in el.iterchildren("output")), 0)        # (the first of each: OpenVINO's)
    ins = next((len(h) for h in el.iterchildren("input")), 0)
    if el.get("type") == "Const" and (outs > 1 or ins):
        said = f"a Const has one output port and no input, the layer declares {outs} and {ins}"
    elif el.get("type") == "Result" and outs > 1:
        said = f"a Result takes at most one output port, the layer declares {outs}"
    else:
        return []
    return [Found("bad-structure", f"{said}: read_model refuses the file (\"node index is out of range\")",
                  line_of(el), el, True)]
