"""The port maps of a TensorIterator, Loop or If, as OpenVINO's reader and the ops' validation take them
(measured with OpenVINO 2026.4.1 on 56 edited nets saved by save_model: tests/ir/test_bodies.py; the lookups are
`up_io_map.inputs/outputs.at(id)` in xml_deserialize_util.cpp, which hold a body's Parameters and Results only):
- a port map's <input> names a body Parameter; an <output> (a Loop's execution condition too) a body Result;
  a back edge comes from a body Result: anything else is refused, read_model saying only "unordered_map::at";
- a back edge's to-layer is never looked at: where none reaches a merged input's Parameter, the input is
  silently invariant (a warning here);
- a Loop needs its execution condition (<output ... purpose="execution_condition"/>), a Result of rank 0 or 1:
  without it compile_model refuses the Loop ("dynamic rank"); `special_body_ports` in its <data> is refused;
- a TensorIterator or Loop needs an <output> entry for each of its output ports; an If as many <output>
  entries in each branch, each Result mapped once, and one for each of its output ports.
"""
from __future__ import annotations

from . import ids
from .ids import key
from .structure import line_of

_MAPS = {"TensorIterator": (("body", "port_map"),), "Loop": (("body", "port_map"),),
         "If": (("then_body", "then_port_map"), ("else_body", "else_port_map"))}
_AT = "read_model refuses the file (\"unordered_map::at\")"


def problems(el) -> list:
    """[(code, message, line)] of what OpenVINO refuses (errors) or silently changes (warnings) in the port
    maps of TensorIterator/Loop/If element `el`."""
    kind, out = el.get("type"), []
    outputs = len([p for o in el.iterchildren("output") for p in o.iterchildren("port")])
    counts = []
    for body_tag, map_tag in _MAPS.get(kind, ()):
        body, pm = el.find(body_tag), el.find(map_tag)
        if body is None or pm is None:
            continue
        layers = {key(x.get("id")): _OPS.get((x.get("type") or "").lower(), x.get("type"))
                  for x in body.iterfind("layers/layer")}
        where = f"{map_tag} of {kind} id={el.get('id')}"
        out += _spellings(el, pm, where)

        def named(entry, want, what):
            lid = key(entry.get("internal_layer_id"))
            if layers.get(lid) != want:
                got = f"a {layers[lid]}" if lid in layers else "no layer of its body"
                out.append(("bad-structure", f"{where}: {what} internal_layer_id={lid} is {got}, not a {want}: {_AT}",
                            line_of(entry)))
        for entry in pm.iterchildren("input"):
            named(entry, "Parameter", "<input>")
        mapped, seen, condition = [], set(), None
        for entry in pm.iterchildren("output"):
            named(entry, "Result", "<output>")
            if entry.get("purpose") == "execution_condition":
                condition = entry
                continue
            mapped.append(entry)
            lid = key(entry.get("internal_layer_id"))
            if kind == "If" and lid in seen:
                out.append(("bad-structure", f"{where}: Result {lid} is mapped to two outputs: read_model refuses the"
                            " file (\"Result ... is already associated with another output\")", line_of(entry)))
            seen.add(lid)
        counts.append((map_tag, len(mapped), pm))
        if kind == "Loop":
            out += _loop(el, body, condition, layers, where)
        if kind in ("TensorIterator", "Loop"):
            if len(mapped) != outputs:
                out.append(("bad-structure", f"{where}: {len(mapped)} <output> entries for {outputs} output ports:"
                            " read_model refuses the file (\"Number of outputs must be the same as number of output"
                            " descriptions\")", line_of(pm)))
            out += _back_edges(el, layers, where)
    if kind == "If" and len(counts) == 2:
        out += _branches(el, counts, outputs)
    return out


def _branches(el, counts, outputs) -> list:
    """An If's two port maps: each must map as many outputs as the If has output ports, and at least one."""
    (_, then, pm), (_, other, _) = counts
    if then != other or not then or then != outputs:
        return [("bad-structure", f"If id={el.get('id')}: its then_port_map maps {then} outputs, its"
                 f" else_port_map {other}, and it has {outputs} output ports: read_model refuses the file"
                 " (each output must come from one Result of each branch: \"Incorrect associating\")",
                 line_of(pm))]
    return []


_UNSIGNED = ("axis", "internal_layer_id")       # an <input>'s, read as get_uint64_attr reads them (an <output>'s
_SIGNED = ("external_port_id", "start", "end", "stride", "part_size")   # axis: signed) (measured, 2026.4.1)
_OPS = {"parameter": "Parameter", "result": "Result"}    # read in any case, as every op's type but Const's


def _spellings(el, pm, where) -> list:
    """The port map's numbers and back edges' ends that read_model cannot read (ids.py), and a negative
    external_port_id (an index: "vector::_M_range_check"), but a Loop's current_iteration or execution_condition
    (a purpose, and -1) and an If's input; a back edge without an end."""
    out = []
    for entry in pm.iterchildren("input", "output"):
        for name in _UNSIGNED + _SIGNED:
            text = entry.get(name)
            signed = name in _SIGNED or name == "axis" and entry.tag == "output"
            read = None if text is None else ids.integer(text) if signed else ids.number(text)
            if text is not None and read is None:
                out.append(("bad-structure", f"{where}: {ids.refusal(entry.tag, name, text, signed)}", line_of(entry)))
            elif name == "external_port_id" and read is not None and read < 0 and entry.get("purpose") is None \
                    and not (entry.tag == "input" and pm.tag != "port_map"):     # (an If's input: read, measured)
                out.append(("bad-structure", f"{where}: <{entry.tag}> external_port_id={text}: a port's index, which"
                            " read_model refuses negative (\"vector::_M_range_check\")", line_of(entry)))
    for edges in el.iterchildren("back_edges"):
        for e in edges.iterchildren("edge"):
            for name in ("from-layer", "to-layer"):
                text = e.get(name)
                if text is None:
                    out.append(("bad-structure", f"{where}: a back edge without {name}: read_model refuses the file"
                                " (\"node <edge> is missing mandatory attribute\")", line_of(e)))
                elif ids.number(text) is None:
                    out.append(("bad-structure", f"{where}: a back edge's {ids.refusal('edge', name, text)}",
                                line_of(e)))
    return out


def _loop(el, body, condition, layers, where) -> list:
    data = el.find("data")
    out = []
    if data is not None and data.get("special_body_ports") is not None:
        out.append(("bad-attribute", f"Loop id={el.get('id')}: <data special_body_ports=...>: read_model refuses the"
                    " file (\"Attribute adapter can not be found for special_body_ports\"); the execution condition"
                    " is a port map <output purpose=\"execution_condition\">", line_of(data)))
    if condition is None:
        out.append(("bad-structure", f"{where}: no <output purpose=\"execution_condition\">: read_model leaves the"
                    " Loop's outputs of dynamic rank, and compile_model refuses it (\"CPU plug-in doesn't support Loop"
                    " operation with dynamic rank\")", line_of(el)))
        return out
    lid = key(condition.get("internal_layer_id"))
    result = next((x for x in body.iterfind("layers/layer") if key(x.get("id")) == lid), None)
    if layers.get(lid) == "Result" and result is not None:
        port = result.find("input/port")
        rank = len(port.findall("dim")) if port is not None else 0
        if rank > 1:
            out.append(("bad-structure", f"{where}: the execution condition comes from Result {lid} of rank {rank}:"
                        " read_model refuses the file (\"Rank of BodyExecutionCondition output must be equal to 0"
                        " or 1\")", line_of(condition)))
    return out


def _back_edges(el, layers, where) -> list:
    out = []
    for edges in el.iterchildren("back_edges"):
        for e in edges.iterchildren("edge"):
            src, dst = key(e.get("from-layer")), key(e.get("to-layer"))
            if src is None or dst is None:
                continue                                    # (refused: _spellings says so)
            if layers.get(src) != "Result":
                got = f"a {layers[src]}" if src in layers else "no layer of its body"
                out.append(("bad-structure", f"{where}: a back edge comes from layer {src}, {got}, not a Result: {_AT}",
                            line_of(e)))
            elif layers.get(dst) != "Parameter":
                got = f"a {layers[dst]}" if dst in layers else "no layer of its body"
                out.append(("lenient-attribute", f"{where}: a back edge goes to layer {dst}, {got}, not a Parameter:"
                            " OpenVINO reads it and carries nothing from one iteration to the next (the input it"
                            " meant to update stays invariant)", line_of(e)))
    return out
