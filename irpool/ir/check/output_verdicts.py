"""The CPU plugin's verdicts on a pooling layer that depend on whether its outputs are used: its type on the CPU
tier, output ports past the op's, indices that must or must not be read, the index types it compiles. Functions
of the layer and of what the edges told so far (pending.read_from_waiting): a verdict on an output that the
edges already read (a layer that waited for them) is returned, said at each edge that uses it; any other is held
(held.py) for the edges room and finish. They return what they found (found.Found)."""
from __future__ import annotations

from ... import cpu
from ...opdefs import load
from ..ops import negpads
from ..ops.family import index_type_refusal
from ..ops.inference import CODE, indices_refusal
from ..ops.type_refusals import kept_in_type, type_refusal
from .found import Found
from .held import used_at


def if_used(layer, port, why, pending, held, keep=False) -> list:
    """`why` (code, message), refused where output `port` of `layer` is used: said at each edge that uses it where
    the layer waited for its edges, else held for them (Held.if_used; `keep`: not over a verdict held there)."""
    if port in pending.read_from_waiting:
        return [Found(why[0], used_at(why[1], *port, tl, tp), line, layer, reader=tl)
                for tl, tp, line in pending.read_from_waiting[port]]
    held.if_used(port, why, keep)
    return []


def type_verdicts(layer, pl, et, x_dims, line, types, pending, held) -> list:
    """What the CPU plugin does with a pooling layer on element type `et` (ir/ops/type_refusals.py type_refusal,
    per CPU tier): said now; or once the edges say whether its indices output is used; or in finish, where its
    output may reach a layer the plugin runs as f32 (kept_in_type)."""
    channels, found = x_dims[1] if x_dims else None, []
    refusal = None if types.pool(pl, et, x_dims, line, layer) else type_refusal(
        pl, et, channels=channels, static=x_dims is not None and all(isinstance(d, int) for d in x_dims))
    two = pl.outputs == 2 and len(layer.outputs) == 2
    port = (layer.id, layer.outputs[1].id) if two else None
    if refusal and two and refusal != type_refusal(pl, et, indices_used=True, channels=channels):
        if kept_in_type(pl, et):                    # (bf16 below AVX-512: its used indices make it f32)
            held.f32(layer.id, (*refusal, line, layer))
        if port not in pending.read_from_waiting:
            held.unless(port, (*refusal, line, layer))
        refusal = None
    elif refusal and refusal[0] == "bad-precision" and kept_in_type(pl, et):
        held.f32(layer.id, (*refusal, line, layer))           # (said in finish, if it is)
    elif refusal:
        found.append(Found(*refusal, line, layer))
    if not two:
        return found
    watch_indices(layer, pending, held)
    if refusal and refusal[0] == "bad-precision":
        return found
    used = type_refusal(pl, et, indices_used=True)
    if used and used != type_refusal(pl, et):
        found += if_used(layer, port, used, pending, held)
    return found


def extra_outputs(layer, op: str, outputs: int, ir_version, pending, held) -> list:
    """Output ports past the op's `outputs`. From IR v11 on read_model refuses the file. In IR v10 an edge
    names an output by its position among the ports (measured, 2026.4.1): an edge from a port at or past
    the op's count is refused, said where the edges use it."""
    if len(layer.outputs) <= outputs:                  # (fewer: OpenVINO reads them)
        return []
    why = (f"{op} has {outputs} output port(s), the layer declares {len(layer.outputs)}: read_model refuses the"
           " file (\"node index is out of range\")")
    if ir_version != "10":
        return [Found("bad-structure", why, layer.line, layer)]
    found = []
    for port in layer.outputs[outputs:]:
        why_used = ("bad-structure", f"{why}, and in IR v10 an edge from its output at position"
                                     f" {layer.outputs.index(port)}")
        found += if_used(layer, (layer.id, port.id), why_used, pending, held, keep=True)
    return found


def hold_unless_used(layer, pl, x_dims, pending, held) -> None:
    """A MaxPool with rounding_type ceil_torch and no dilations crashes compile_model unless its indices output
    is used, and one with negative pads is refused (negpads.py): held, said in finish if no edge reads it (a
    layer that waited for its edges: none has read it, or this is not held)."""
    port = (layer.id, layer.outputs[1].id if len(layer.outputs) > 1 else None)
    readers = [tl for tl, _, _ in pending.read_from_waiting.get(port, ())]
    why = negpads.compile_refusal(pl, x_dims) if pl.outputs == 2 else None
    if why:
        held.unless(port, ("bad-attribute", f"{pl.op}: {why}", layer.data_line, layer), readers)
    if pl.crashes_unless_indices_used:
        held.unless(port, ("bad-attribute", f"{pl.op} with rounding_type ceil_torch and no dilations: OpenVINO"
                           " 2026.4.1 reads it, and crashes compiling it (a segmentation fault) when its indices"
                           " output is not used", layer.data_line, layer), readers)


def watch_indices(layer, pending, held) -> None:
    """A MaxPool-8/14 or AdaptiveMaxPool with an indices port: on a tier that does not pool bf16 natively, an
    edge from it makes the plugin run the layer (a reference implementation) and what feeds it in f32."""
    tier = cpu.one()
    if tier is None or tier.native("bf16") or len(layer.outputs) < 2:
        return
    port = (layer.id, layer.outputs[1].id)
    held.watch(port)
    for tl, _, _ in pending.read_from_waiting.get(port, ()):
        held.edge_read(*port, tl)


def fails_if_used(layer, pl, pending, held) -> list:
    """A MaxPool whose every inference fails where its indices are used (ops/inference.py): said where they are."""
    why = indices_refusal(pl)
    if why is None or len(layer.outputs) < 2:
        return []
    return if_used(layer, (layer.id, layer.outputs[1].id), (CODE, why), pending, held, keep=True)


def family_types(layer, fl, et, pending, held) -> list:
    """The input types a family op takes, and the index types the plugin compiles (for a global one, only where an
    edge reads its indices)."""
    d, found = load("openvino")["ops"][fl.op], []
    if et is not None and et.name not in d["input_types"]:
        by = "its op validation" if et.name in d.get("validation_refuses", ()) else "the CPU plugin, on any CPU"
        found.append(Found("bad-precision", f"{fl.op} on {et.name} is refused by {by} (it takes"
                           f" {', '.join(d['input_types'])})", layer.inputs[0].line, layer))
    if fl.outputs == 2:
        watch_indices(layer, pending, held)
    why = index_type_refusal(fl)
    if why is not None:
        port = (layer.id, layer.outputs[1].id) if len(layer.outputs) > 1 else None
        if fl.out_sizes and all(n == 1 for n in fl.out_sizes):   # global: a ReduceMax unless indices are used
            if port is not None:
                found += if_used(layer, port, ("bad-precision", f"{why}, where its indices output is used (a global"
                                               " one whose indices nothing reads becomes a ReduceMax)"), pending, held)
        else:
            found.append(Found("bad-precision", why, layer.data_line, layer))
    return found
