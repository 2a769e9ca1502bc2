"""irpool explain: the shape arithmetic of each pooling layer, axis by axis, as text."""
from __future__ import annotations

from ..core import plan
from ..errors import IRError
from .layers import interpret, is_pooling
from .parse import MAX_BYTES, parse


def _pooling_layers(net, path=""):
    """(path, layer) for every pooling layer of a net and of the bodies inside it, in document order."""
    for layer in net.layers:
        if is_pooling(layer):
            yield path, layer
        for tag, body in layer.bodies:
            where = f"{layer.type} id={layer.id} name={layer.name!r} <{tag}>"
            yield from _pooling_layers(body, f"{path} > {where}" if path else where)


def explain(source, layer_id: str | None = None, *, max_bytes: int = MAX_BYTES) -> str:
    net = parse(source, max_bytes=max_bytes)
    out = []
    layers = [(path, lay) for path, lay in _pooling_layers(net) if layer_id is None or lay.id == layer_id]
    if layer_id is not None and not layers:
        raise IRError(f"no pooling layer has id {layer_id}", file=net.file, code="no-such-layer")
    for path, layer in layers:
        head = f"layer id={layer.id} name={layer.name!r} {layer.type} ({layer.version}), line {layer.line}"
        head += f" in {path}" if path else ""
        try:
            pl = interpret(layer, net.file, len(layer.inputs[0].dims) or None if layer.inputs else -1)
            x = layer.inputs[0]
            s = pl.spec
            out.append(f"{head}: {pl.op}, auto_pad={s.auto_pad}, rounding_type={s.rounding}")
            out.append(f"  input [{','.join(map(str, x.raw_dims))}]")
            for p in plan(s, x.dims):
                pads = f"pads {p.pad_begin}+{p.pad_end}" if p.pad_begin is not None else "pads unknown"
                out.append(f"  {p.arithmetic}   (kernel {p.kernel}, stride {p.stride}, dilation {p.dilation},"
                           f" {pads})")
            for port in layer.outputs:
                out.append(f"  declared output port {port.id}: [{','.join(map(str, port.raw_dims))}]")
        except IRError as e:
            out.append(f"{head}: cannot be computed: {e.reason}")
    return "\n".join(out)
