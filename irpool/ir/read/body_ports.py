"""What a TensorIterator, Loop or If gives the Parameters of its bodies.

OpenVINO ignores a body Parameter's declared shape and element type (and its output port's dims, and the outer
layer's declared input dims and precision): it gives the Parameter the shape and type the outer input really has
(its producer's: check/passes.py takes them in its next pass where they differ from what the outer layer declares),
through the port map, with the axis of a sliced input cut to `part_size` (a merged input: its initial value's,
where a Loop may make a dim dynamic: back_edges); but a TensorIterator keeps the element type its
body Parameter declares (measured on a sliced input: f16, i32, u8 and f64 run so; dynamic, or none, is then
refused by the CPU plugin). It validates the body once with the declared shapes first, so a declared
shape that no body op takes is still refused. Measured with read_model and compile_model on OpenVINO 2026.4.1
(AMD EPYC family 25 model 17): Loop invariant inputs, TensorIterator sliced inputs (stride, start and end do not
change the body's shape), If branches, Loop and TensorIterator merged inputs.
"""
from __future__ import annotations

from .dims import lenient_dim
from .ids import key

PORT_MAPS = {"body": "port_map", "then_body": "then_port_map", "else_body": "else_port_map"}


def bodies_of(el) -> list:
    """A TensorIterator's or Loop's <body>, an If's <then_body> and <else_body>: the first of each, as read_model
    reads them (pugixml's child(); a second one is ignored, measured, 2026.4.1)."""
    return [b for b in (next(el.iterchildren(tag), None) for tag in PORT_MAPS) if b is not None]


def declared_inputs(el) -> tuple[dict, dict]:
    """{input port id: dims} of the outer layer as it declares them (None: no <dim>, a dynamic rank), and {input
    port id: its precision} (the element type a body Parameter takes, where the port names one)."""
    dims, types = {}, {}
    for section in el.iterchildren("input"):        # (the first, as read_model reads it)
        for port in section.iterchildren("port"):
            pid = key(port.get("id"))
            dims.setdefault(pid, [lenient_dim(d.text) for d in port.iterchildren("dim")] or None)
            types.setdefault(pid, port.get("precision"))
        break
    return dims, types


def _port_map(el, body_tag: str):
    """The port map of `body_tag` (the first, as read_model reads it), or None."""
    return next(el.iterchildren(PORT_MAPS.get(body_tag, "port_map")), None)


def mapped_inputs(el, body_tag: str) -> set:
    """The outer input port ids the port map of `body_tag` gives a body Parameter (what its bodies can take)."""
    pm = _port_map(el, body_tag)
    return set() if pm is None else {key(inp.get("external_port_id")) for inp in pm.iterchildren("input")}


def parameter_shapes(el, body_tag: str, outer: dict) -> dict:
    """{body Parameter layer id: (dims, outer port id)} for the port map's inputs whose outer dims are known (a
    merged input's: its initial value's)."""
    pm = _port_map(el, body_tag)
    if pm is None:
        return {}
    shapes = {}
    for inp in pm.iterchildren("input"):
        port, internal = key(inp.get("external_port_id")), key(inp.get("internal_layer_id"))
        dims = outer.get(port)
        if dims is None or internal is None or internal in shapes:
            continue
        dims = list(dims)
        if inp.get("axis") is not None:
            try:
                axis, part = int(inp.get("axis")), int(inp.get("part_size", "1"))
            except ValueError:
                continue                        # (not read by OpenVINO either: its own refusal)
            if not 0 <= axis < len(dims) or part < 0:
                continue
            dims[axis] = part
        shapes[internal] = (dims, port)
    return shapes


def back_edges(el, body) -> dict:
    """A Loop's merged inputs that its outputs also give: {body Parameter id: (producer id, port) of the body
    Result its back edge comes from}. read_model makes such a Parameter's dim dynamic where that Result's differs
    from the initial value's, keeping the initial shape where the ranks differ; where the Result is not one of
    the Loop's outputs, and in a TensorIterator, it keeps the initial shape (measured: 2x2 pools on [1,1,12,8],
    the back edge [1,1,11,5]: [1,1,?,?] with the Result an output, [1,1,12,8] without)."""
    if el.get("type") != "Loop":
        return {}
    results = {key(e.get("to-layer")): (key(e.get("from-layer")), key(e.get("from-port")))
               for edges in body.iterchildren("edges") for e in edges.iterchildren("edge")}
    outputs = {key(o.get("internal_layer_id")) for pm in el.iterchildren("port_map") for o in pm.iterchildren("output")}
    return {key(e.get("to-layer")): results.get(key(e.get("from-layer")))
            for edges in el.iterchildren("back_edges") for e in edges.iterchildren("edge")
            if key(e.get("from-layer")) in outputs}
