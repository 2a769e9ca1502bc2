"""What is said of a layer once the whole graph is read: a pool whose only consumer is a Convert the plugin fuses
into it, a pool kept in a type that nothing runs as f32, the Const whose missing weights read_model refuses first,
the Results an empty-window MaxPool reaches; what OpenVINO's reader makes of the graph (graph/built.py): its
refusals, and the layers it never builds. Functions of what they read, returning what they found (found.Found)."""
from __future__ import annotations

from dataclasses import replace

from ... import cpu
from ...codes import severity
from ...empty import reach_text
from ...opdefs import load
from ..read.ids import key
from .found import Found


def fused(held, seen, sigs, graph) -> list:
    """The pools whose only consumer is a Convert the plugin fuses into them (held.fused): refused on the tiers with
    no pooling kernel that gives its type."""
    rule = load("openvino")["fused_convert"]
    rows = {seen.row(fl) for fl, _, _ in held.fused}
    consumers = dict.fromkeys(rows, 0)
    for chunk in graph.edges.chunks():         # (one walk over the edges, whatever their number)
        for row in rows:
            consumers[row] += int((chunk[:, 0] == row).sum())
    found = []
    for fl, tl, line in held.fused:
        if consumers[seen.row(fl)] != 1:
            continue                        # (a second consumer keeps the Convert apart)
        info = sigs.info(fl)
        what = f"{info.type} whose output goes only to Convert {tl} (to bf16), which the CPU plugin fuses into it"
        said = cpu.judge(lambda tier: cpu.measured(
            rule, tier, f"OpenVINO's CPU plugin does not compile a {what} ({rule['why']})",
            f"OpenVINO's CPU plugin compiles a {what} only where bf16 is native ({rule['why']})"))
        if said:
            found.append(Found(*said, line, {"id": fl, "name": info.name, "type": info.type}))
    return found


def f32_chain(held, seen, graph) -> list:
    """The pools kept in a type the tier has no kernel for (held.f32_chain): refused, but where their output reaches
    a layer the plugin runs as f32 (a MaxPool-8/14 or AdaptiveMaxPool whose indices are used) or a Convert to
    another type than bf16: then the plugin runs the chain in f32. (IR v10's are not refused: Finish.held_verdicts.)"""
    live = graph.feeds(list(graph.roots), len(seen))    # (read_model drops a reader no Result depends on)
    roots = [seen.row(lid) for lid, readers in held.references.items()
             if any(_kept(seen, live, tl) for tl in readers)] + [row for row in held.converts if live[row]]
    reach = graph.feeds(roots, len(seen))
    found = []
    for lid, (code, message, line, layer) in held.f32_chain.items():
        row = seen.row(lid)
        if row is None or not reach[row]:
            found.append(Found(code, f"{message} (nothing it feeds is run as f32: a MaxPool-8/14 or AdaptiveMaxPool"
                               " whose indices are used, or a Convert to another type, would make the plugin run it"
                               " in f32)", line, layer, True))
    return found


def weightless(kept, seen, built) -> list:
    """A weights file that does not exist: read_model refuses the first Const it builds (`built`: by row), said once."""
    rows = kept.weightless
    first = next((k for k in range(0, len(rows), 2) if built[rows[k]]), None)
    if first is None:
        return []
    row = rows[first]
    return [Found("bad-weights", f"Const: the weights file {kept.weights.path} does not exist: read_model refuses the"
                  " file (\"Empty weights data in bin file or bin file cannot be found!\")", rows[first + 1],
                  {"id": seen.id(row), "name": seen.name(row), "type": "Const"})]


def with_reach(findings, seen, sigs, graph) -> list:
    """(index, finding) of each empty-window warning of the top level among `findings`, told the Results its MaxPool
    reaches (empty.py)."""
    out = []
    for k, f in enumerate(findings):
        row = seen.row(key(f.layer_id)) if f.code == "empty-window" and not f.path and f.layer_id else None
        if row is not None:
            reached = [(seen.name(r), []) for r in graph.roots if graph.feeds([r], len(seen))[row] and
                       sigs.at(seen.value[r]).type == "Result"]
            out.append((k, replace(f, message=f.message + reach_text(reached))))
    return out


def unbuilt(findings, late, built, seen) -> list:
    """(index, finding) of each error at an index in `late` (one read_model says only where it builds the layer) of
    a layer its reader never builds (`built`: by row) among `findings`, made an `unbuilt` warning."""
    out = []
    for k in late:
        f = findings[k]
        row = seen.row(key(f.layer_id))
        if row is not None and not built[row]:
            out.append((k, replace(f, code="unbuilt", severity=severity("unbuilt"), fix=None,
                                   message=f"{f.message}; but OpenVINO's reader never builds this layer (no Result"
                                   " depends on it), so it reads the file")))
    return out


def unbuilt_readers(findings, readers, built, seen) -> list:
    """(index, finding) of each verdict said at an edge that uses an output (held.readers) into a layer its reader
    never builds, made an `unbuilt` warning: read_model drops that layer and its edge, so nothing uses the output
    (measured: tests/ir/test_dead_readers.py). Where the layer itself is not built, unbuilt() said so already."""
    out = []
    for k, reader in readers:
        f = findings[k]
        own = seen.row(key(f.layer_id)) if f.layer_id is not None else None
        if f.code == "unbuilt" or _kept(seen, built, reader) or own is None or not built[own]:
            continue
        out.append((k, replace(f, code="unbuilt", severity=severity("unbuilt"), fix=None,
                               message=f"{f.message}; but OpenVINO's reader never builds layer {reader} (no Result"
                               " depends on it), so nothing uses that output")))
    return out


def read_by_unbuilt(held, seen, built) -> list:
    """The verdicts held unless an output is used (held.unless_read) whose every reader is a layer its reader never
    builds: read_model drops those layers with their edges, so the output is not used (measured:
    tests/ir/test_dead_readers.py)."""
    found = []
    for port, readers in held.unless_read.items():
        code, message, line, layer = held.unless_used[port]
        if layer.id not in held.f32_chain and not any(_kept(seen, built, tl) for tl in readers):
            found.append(Found(code, f"{message} (only layer {', '.join(dict.fromkeys(readers))} reads it, which"
                               " OpenVINO's reader never builds: no Result depends on it)", line, layer, True))
    return found


def _kept(seen, built, lid) -> bool:
    """Whether read_model keeps layer `lid` (`built`: a byte a row), so that an edge into it uses what it reads; a
    layer not read at all counts as kept (its edge is judged as a loose one)."""
    row = seen.row(key(lid))
    return row is None or bool(built[row])


def refusals(found, seen, sigs) -> list:
    """What read_model refuses in the graph (graph/built.py problems: (row, message, line))."""
    return [Found("bad-graph", message, line, {"id": seen.id(row), "name": seen.name(row),
                                               "type": sigs.at(seen.value[row]).type}) for row, message, line in found]


def loose_edges(loose, built) -> list:
    """The edges with a missing end (pending.loose): an error into a layer the reader builds, else a warning."""
    found = []
    for message, line, el, row in loose:
        if row is not None and built[row]:
            found.append(Found("edge-mismatch", message, line, el))
        else:
            found.append(Found("unbuilt", f"{message}; OpenVINO's reader never builds"
                               f" {'this layer' if row is not None else 'the layer it names'} (no Result depends on"
                               " it), so it reads the file", line, el))
    return found
