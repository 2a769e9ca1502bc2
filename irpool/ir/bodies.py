"""What a TensorIterator, Loop or If gives the Parameters of its bodies.

OpenVINO ignores a body Parameter's declared shape and element type (and its output port's dims, and the outer
layer's declared input dims): it gives the Parameter the shape and type the outer input really has, through the
port map, with the axis of a sliced input cut to `part_size`; but a TensorIterator keeps the element type its
body Parameter declares (measured on a sliced input: f16, i32, u8 and f64 run so; dynamic, or none, is then
refused by the CPU plugin). It validates the body once with the declared shapes first, so a declared
shape that no body op takes is still refused. Measured with read_model and compile_model on OpenVINO 2026.4.1
(AMD EPYC family 25 model 17): Loop invariant inputs, TensorIterator sliced inputs (stride, start and end do not
change the body's shape), If branches; a Loop input merged with a back edge whose dims differ becomes dynamic
there, which irpool does not follow (it leaves such a Parameter as declared).
"""
from __future__ import annotations

from .dims import lenient_dim

PORT_MAPS = {"body": "port_map", "then_body": "then_port_map", "else_body": "else_port_map"}


def declared_inputs(el) -> tuple[dict, dict]:
    """{input port id: dims} of the outer layer as it declares them (None: no <dim>, a dynamic rank), and {input
    port id: its precision} (the element type a body Parameter takes, where the port names one)."""
    dims, types = {}, {}
    for section in el.iterchildren("input"):
        for port in section.iterchildren("port"):
            pid = port.get("id")
            dims.setdefault(pid, [lenient_dim(d.text) for d in port.iterchildren("dim")] or None)
            types.setdefault(pid, port.get("precision"))
    return dims, types


def parameter_shapes(el, body_tag: str, outer: dict) -> dict:
    """{body Parameter layer id: (dims, outer port id)} for the port map's inputs whose outer dims are known."""
    pm = next(el.iterchildren(PORT_MAPS.get(body_tag, "port_map")), None)
    if pm is None:
        return {}
    merged = set()
    if el.get("type") == "Loop":                # (a back edge into a Parameter: its dims may become dynamic)
        for edges in el.iterchildren("back_edges"):
            merged |= {e.get("to-layer") for e in edges.iterchildren("edge")}
    shapes = {}
    for inp in pm.iterchildren("input"):
        port, internal = inp.get("external_port_id"), inp.get("internal_layer_id")
        dims = outer.get(port)
        if dims is None or internal is None or internal in merged or internal in shapes:
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
