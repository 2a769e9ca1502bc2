"""irpool.run: execute a pooling snippet, a net of Parameter, pooling and Result layers, or one pooling-family
layer of any net (layer=)."""
from __future__ import annotations

from array import array
from dataclasses import replace

import numpy as np

from ... import cpu, select
from ...errors import IRError
from ...opdefs import load as load_defs
from ..ops import consts, fold
from ..read import ids
from ..ops.consts import Const
from .producers import Producers
from .execute import bind_inputs, declared_parameter, execute, execute_family, feed, shape_input
from ..ops.family import FAMILY_TYPES, is_family
from ..ops.pools import POOL_TYPES, is_pooling, op_name
from ...limits import MAX_BYTES
from ..read.element_types import element_type, stored_bits
from ..read.layer_edge import REQUIRED, Layer, content_key, op_type, read_edge, read_layer
from ..read.document import Document
from ..read.structure import line_of
from ..read.table import LayerTable

RUNNABLE = ("Parameter", "Result", "MaxPool", "AvgPool")


def load(source, *, max_bytes: int = MAX_BYTES, layer: str | None = None, bin=None) -> "Program":  # noqa: A002
    """A Program: a net or bare layer parsed, checked for running and ordered once, to run many times; every
    refusal that needs no input is raised here (IRError, with file, line and layer).

        >>> program = irpool.load("model.xml")
        >>> program.output_names
        ['pooled', 'argmax']
        >>> outputs = program.run({"image": x})

    `layer`: the id or name ("id:8", "name:8" to say which: irpool.select) of one pooling-family layer of the
    net (MaxPool, AvgPool, AdaptiveAvgPool, AdaptiveMaxPool, or a ReduceMean/ReduceMax over the spatial axes), run
    alone on its data input whatever else the net holds (its outputs keyed by output port id, as for a bare
    <layer>); its shape input's Const is read from `bin` (default: the .bin beside an .xml path)."""
    doc = Document(source, max_bytes=max_bytes)
    program = Program(doc) if layer is None else Program.one_layer(doc, layer, bin)
    program.cpu_tier = cpu.selected()
    return program


def run(source, inputs, *, max_bytes: int = MAX_BYTES, threads: int | None = None, layer: str | None = None,
        bin=None) -> dict:  # noqa: A002
    """Run a net of Parameter, pooling and Result layers, a bare pooling <layer>, or one pooling-family layer of
    any net (`layer=` its id or name), as OpenVINO's CPU plugin computes it (INFERENCE_PRECISION_HINT=f32).

        >>> irpool.run("model.xml", {"image": x})          # a net: {Result layer name: array}
        {'pooled': array(...), 'argmax': array(...)}
        >>> irpool.run("layer.xml", x)                      # a bare layer, or layer=: {output port id: array}
        {'1': array(...), '2': array(...)}

    `inputs`: {Parameter name: array}, or one array for a bare layer. `threads`: how many threads each pooling
    layer may use (None: every core). The same as load(source, layer=, bin=).run(inputs, threads)."""
    return load(source, max_bytes=max_bytes, layer=layer, bin=bin).run(inputs, threads)


class Program:
    """A net (or a bare layer) checked for running and ordered once, made by irpool.load: `run(inputs,
    threads=None)` gives what irpool.run gives, each call; `output_names` the keys of what it gives.

    Every refusal that does not depend on the inputs is raised here, by irpool.load, with its layer and
    line. The net is read as a stream and kept in flat arrays (LayerTable): per layer its id, name, line,
    the output it reads and a group, where a group is one Layer read in full for all the layers that say the
    same thing but for their names (content_key). Memory grows with the distinct layers, not the layers."""

    def __init__(self, doc: Document):
        self.file, self.prepared, self.snippet = doc.file, {}, None
        self.family = None      # one_layer: a family layer's (shape input values, where its Const is)
        self.table, self.groups, self.params = LayerTable(), [], []
        self.lines, self.source = array("i"), array("i")   # row -> line (-1: none); -> producer row * 4 + port
        self.results = array("i")                           # the Result rows, in file order
        self._keys, self._result_names, self._other_ports, pending, error = {}, {}, set(), [], None
        for el in doc.elements():
            if el.getparent() is None:                  # a bare <layer>
                self.snippet = read_layer(el, doc.problems)
            elif el.tag == "layer":
                error = error or self._add(el, doc.problems)
            else:
                edge = read_edge(el, doc.problems)
                if edge is not None:
                    error = error or self._edge(edge, pending)
        for edge in pending:
            error = error or self._edge(edge, None)
        if doc.problems:
            line, message = doc.problems[0]
            raise IRError(message, file=self.file, line=line, code="bad-structure")
        if error is not None:
            raise error
        if self.snippet is not None:
            if is_family(self.snippet):
                raise IRError(f"a bare {self.snippet.type} layer has no Const for its shape input: run it out of its"
                              " net with --layer (Python: layer=)", code="unsupported", **self.snippet.where(self.file))
            if not is_pooling(self.snippet):
                raise IRError(f"irpool runs MaxPool and AvgPool layers, not {self.snippet.type}", code="unsupported",
                              **self.snippet.where(self.file))
            return
        self.readers = array("i", bytes(4 * len(self.table)))   # row -> how many layers read its output 0
        self.other_readers = {}                                 # producer row * 4 + port -> the same, ports 1-3
        for row, src in enumerate(self.source):
            if src >= 0:
                if src & 3:
                    self.other_readers[src] = self.other_readers.get(src, 0) + 1
                else:
                    self.readers[src >> 2] += 1
            elif self.table.value[row] >= 0:
                layer = self._view(row)
                raise IRError(f"input port {layer.inputs[0].id} is not fed by any edge", code="edge-mismatch",
                              **layer.where(self.file, layer.inputs[0].line))
        self.order = self._in_order()

    @classmethod
    def one_layer(cls, doc: Document, key: str, bin=None) -> "Program":  # noqa: A002
        """One pooling-family layer of a net, found by id (or, failing that, by name), to run alone on its data
        input; its shape input is a Const read from the weights file, or folded from one (fold.py)."""
        sel = select.parse(key, ids.key)                # (an id as read_model reads it: "04" is 4)
        by_id, by_name, pooling, found_consts, shape_ops, shape_edges, read_ports = [], [], [], {}, {}, {}, set()
        producers = Producers()
        wanted, n_pooling = None, 0     # wanted: the layers whose input edges are kept (known once edges come)
        for el in doc.elements():
            producers.see(el)
            if el.getparent() is None:                  # a bare <layer>
                by_id.append(read_layer(el, doc.problems))
            elif el.tag == "edge":
                wanted = wanted if wanted is not None else {layer.id for layer in by_id + by_name} | shape_ops.keys()
                if ids.key(el.get("from-layer")) in wanted:
                    read_ports.add((ids.key(el.get("from-layer")), ids.key(el.get("from-port"))))
                if ids.key(el.get("to-layer")) in wanted:
                    edge = read_edge(el, doc.problems)
                    if edge is not None:
                        shape_edges[(edge.to_layer, edge.to_port)] = (edge.from_layer, edge.from_port)
            else:
                if el.get("type") == "Const" and Const.may_be_shape(el):     # (weights: never a shape input)
                    found_consts[ids.key(el.get("id"))] = Const.of(el)
                elif el.get("type") in fold.SHAPE_OPS and len(shape_ops) < fold.MOST_KEPT:
                    shape_ops[ids.key(el.get("id"))] = read_layer(el, [])      # (kept to fold a shape input: fold.py)
                if op_type(el) in POOL_TYPES or el.get("type") in FAMILY_TYPES:
                    n_pooling += 1
                    if len(pooling) < select.SHOWN:
                        pooling.append(f"id={el.get('id')} name={el.get('name')!r} ({el.get('type')})")
                if sel.id is not None and ids.key(el.get("id")) == sel.id:
                    by_id.append(read_layer(el, doc.problems))
                elif sel.name is not None and el.get("name") == sel.name:
                    by_name.append(read_layer(el, doc.problems))
        if doc.problems:
            line, message = doc.problems[0]
            raise IRError(message, file=doc.file, line=line, code="bad-structure")
        found = select.choose(sel, by_id, by_name, lambda x: f"layer id={x.id} name={x.name!r} ({x.type}, line"
                              f" {x.line})", doc.file)
        if not found:
            raise select.missing(sel, "layer", pooling, n_pooling, doc.file, listing="pooling layers")
        if len(found) > 1:
            raise IRError(f"{len(found)} layers have {'id' if by_id else 'name'} {sel.sought!r} (ids"
                          f" {', '.join(layer.id for layer in found)}, lines {', '.join(str(layer.line) for layer in found)});"
                          " give an id that is used once", file=doc.file, code="no-such-layer")
        layer = found[0]
        unread = frozenset() if doc.is_snippet else \
            frozenset(p.id for p in layer.outputs[1:] if (layer.id, ids.key(p.id)) not in read_ports)
        shape_parts = (found_consts, shape_ops, shape_edges, consts.bin_path(bin, doc.file))
        return cls._of_layer(doc, layer, sel.sought, shape_parts, producers, unread)

    @classmethod
    def _of_layer(cls, doc: Document, layer: Layer, sought: str, shape_parts: tuple, producers,
                  unread=frozenset()) -> "Program":
        """The Program of `layer`, found by one_layer; a family layer's shape input, its producer's layout and its
        outputs past the first that no edge reads (`unread`: an AdaptiveMaxPool's unread indices make it a
        ReduceMax, execute.py)."""
        if not is_pooling(layer) and not is_family(layer):
            raise IRError(f"layer {sought!r} is a {layer.type}; irpool runs {', '.join(POOL_TYPES + FAMILY_TYPES)} layers",
                          code="unsupported", **layer.where(doc.file))
        program = cls.__new__(cls)
        program.file, program.prepared, program.snippet, program.family = doc.file, {}, layer, None
        if is_family(layer):
            program.family = shape_input(layer, doc.file, *shape_parts)
            program.layout = producers.layout(ids.key(layer.id))
            program.unread = unread
        return program

    def _add(self, el, problems):
        """Take in one <layer> of the net; the IRError that refuses it, if any."""
        lid, name, ltype = el.get("id"), el.get("name"), op_type(el)
        line = line_of(el)
        where = dict(file=self.file, line=line, layer_id=lid, layer_name=name, layer_type=ltype)
        missing = [a for a in REQUIRED if el.get(a) is None]
        if missing:
            return IRError(f"<layer> lacks {', '.join(missing)}, which OpenVINO requires on every layer",
                           code="bad-structure", **where)
        lid = ids.number(lid)
        if lid is None:
            return IRError(ids.refusal("layer", "id", el.get("id")), code="bad-structure", **where)
        if self.table.row(lid) is not None:
            return IRError(f"layer id {lid} is used twice: OpenVINO builds only the last layer with an id (irpool"
                           " check says which it ignores); irpool runs only nets whose ids are unique",
                           code="unsupported", **where)
        if ltype not in RUNNABLE:
            return IRError(f"irpool runs nets of Parameter, MaxPool, AvgPool and Result layers, not {ltype}; to run"
                           " one pooling layer of this net, name it: irpool run FILE --layer ID|NAME -i 0=x.npy"
                           " (Python: irpool.run(source, x, layer=...))", code="unsupported", **where)
        if ltype == "Parameter":
            value = -1 - len(self.params)
            self.params.append(read_layer(el, problems))
        else:
            key = content_key(el)
            value = self._keys.get(key)
            if value is None:
                value = self._keys[key] = len(self.groups)
                self.groups.append(read_layer(el, problems))
            if not self.groups[value].inputs:
                return IRError(f"{ltype} layer has no input port", code="bad-structure", **where)
            if ltype == "Result":
                first = self._result_names.get(name)
                if first is not None:
                    return IRError(f"two Result layers are named {name!r} (ids {self.table.id(first)}, line"
                                   f" {self.lines[first]}, and {lid}): run returns outputs by Result name and would"
                                   " lose one", code="duplicate-name", **where)
                self._result_names[name] = len(self.table)
                self.results.append(len(self.table))
        self.table.add(lid, name, value)
        self.lines.append(-1 if line is None else line)
        self.source.append(-1)
        return None

    def _outputs(self, row) -> list:
        value = self.table.value[row]
        return self.params[-1 - value].outputs if value < 0 else self.groups[value].outputs

    def _edge(self, e, pending):
        """Take in one edge (into `pending` while a layer it names is not read yet); an IRError, if any."""
        def refused(what):
            return IRError(what, file=self.file, line=e.line, code="edge-mismatch")
        a, b = self.table.row(e.from_layer), self.table.row(e.to_layer)
        if a is None or b is None:
            if pending is not None:
                pending.append(e)
                return None
            return refused(f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port} names a missing layer")
        value = self.table.value[b]
        feeds_input = value >= 0 and e.to_port == self.groups[value].inputs[0].id
        if self.source[b] >= 0 if feeds_input else (b, e.to_port) in self._other_ports:
            return refused(f"input port {e.to_port} of layer {e.to_layer} is fed by two edges")
        if not feeds_input:
            self._other_ports.add((b, e.to_port))
            return None
        port = next((k for k, p in enumerate(self._outputs(a)) if p.id == e.from_port), None)
        if port is None or port > 3:
            return refused(f"edge {e.from_layer}:{e.from_port} -> {e.to_layer}:{e.to_port} leaves from output port"
                           f" {e.from_port}, which layer {e.from_layer} does not declare")
        self.source[b] = 4 * a + port
        return None

    def _view(self, row) -> Layer:
        """Layer `row` as a Layer: its group's, with its own id, name and lines (the group's lines moved by
        the difference of the layers' first lines: exact for files laid out alike, as OpenVINO writes them)."""
        value = self.table.value[row]
        if value < 0:
            return self.params[-1 - value]
        t = self.groups[value]
        line = self.lines[row] if self.lines[row] >= 0 else None
        d = line - t.line if line is not None and t.line is not None else 0
        if not d and t.id == self.table.id(row):
            return t
        moved = lambda ports: [replace(p, line=p.line + d, dim_lines=tuple(x + d for x in p.dim_lines))  # noqa: E731
                               for p in ports]
        return replace(t, id=self.table.id(row), name=self.table.name(row), line=line, data_line=t.data_line + d,
                       inputs=moved(t.inputs), outputs=moved(t.outputs))

    def _in_order(self) -> array:
        """The rows, each after the row it reads (a depth-first walk: time linear in layers and edges)."""
        state, order, source = bytearray(len(self.table)), array("i"), self.source     # 1 on the path, 2 placed
        for first in range(len(state)):
            stack = [first]
            while stack:
                row = stack[-1]
                if state[row] == 2:
                    stack.pop()
                    continue
                state[row] = 1
                before = source[row] >> 2 if source[row] >= 0 else -1
                if before >= 0 and state[before] != 2:
                    if state[before] == 1:
                        raise IRError("the layer's input depends on its own output (a cycle)", code="bad-graph",
                                      **self._view(row).where(self.file))
                    stack.append(before)
                    continue
                state[row] = 2
                order.append(row)
                stack.pop()
        return order

    @property
    def output_names(self) -> list:
        """The keys of what run() returns, known before running: Result names, or output port ids."""
        if self.snippet is None:
            return [self.table.name(row) for row in self.results]
        layer = self.snippet
        n = load_defs("openvino")["ops"][op_name(layer, self.file)]["outputs"]
        return ([p.id for p in layer.outputs] + [str(i + 1) for i in range(len(layer.outputs), n)])[:n]

    cpu_tier = cpu.HOST     # the --cpu choice it was loaded under (irpool.cpu)
    layout = "planar"       # one_layer: the layout the plugin gives a global pool in its net (producer_layout)
    unread = frozenset()    # one_layer: the output ports past the first that no edge reads (execute._to_reduce)

    def run(self, inputs, threads: int | None = None) -> dict:
        """As irpool.run: {Result name: array} for a net, {output port id: array} for a bare layer."""
        with cpu.judging(self.cpu_tier):
            return self._run(inputs, threads)

    def _run(self, inputs, threads: int | None = None) -> dict:
        if self.snippet is not None:
            return self._run_snippet(inputs, threads)
        file, table, source = self.file, self.table, self.source
        bound = bind_inputs(self.params, file, inputs)
        uses, other_uses = array("i", self.readers), dict(self.other_readers)
        values, results = {}, {}     # values: producer row * 4 + port -> array, freed after its last reader
        for row in self.order:
            value = table.value[row]
            if value < 0:
                layer = self.params[-1 - value]
                if uses[row]:
                    values[4 * row] = feed(layer, file, bound[layer.id], self.prepared)
                continue
            src = source[row]
            if src not in values:
                raise IRError("the layer's input is never computed (an edge from a port that gives nothing)",
                              code="edge-mismatch", **self._view(row).where(file))
            x = values[src]
            if src & 3:
                other_uses[src] -= 1
                left = other_uses[src]
            else:
                uses[src >> 2] -= 1
                left = uses[src >> 2]
            if not left:
                del values[src]
            group = self.groups[value]
            if group.type == "Result":
                results[row] = x
                continue
            wanted = len(group.outputs) > 1 and 4 * row + 1 in self.other_readers
            try:
                outs = execute(group, file, x, threads, self.prepared, indices=wanted, key=value, declared=False)
            except IRError:
                execute(self._view(row), file, x, threads, {}, indices=wanted, declared=False)   # raises, naming it
                raise
            del x
            for port, arr in enumerate(outs[:4]):
                if (other_uses.get(4 * row + port) if port else uses[row]):
                    values[4 * row + port] = arr
        return {table.name(row): results[row] for row in self.results}

    def typed(self, inputs) -> dict:
        """The inputs as run takes them: an .npy's untyped bytes of an ml_dtypes array (bf16, float8, int4) as the
        type its Parameter declares (a bare layer's: its input port's), for --against, which hands them on."""
        if self.snippet is not None:
            et = element_type(self.snippet.inputs[0].precision) if self.snippet.inputs else None
            return {k: stored_bits(np.asarray(a), et) for k, a in inputs.items()}
        bound, params = bind_inputs(self.params, self.file, inputs), {p.id: p for p in self.params}
        declared = {id(a): declared_parameter(params[pid], self.file, self.prepared)[2] for pid, a in bound.items()}
        return {k: stored_bits(np.asarray(a), declared.get(id(a))) for k, a in inputs.items()}

    def _run_snippet(self, inputs, threads) -> dict:
        layer = self.snippet
        if isinstance(inputs, dict):
            if set(inputs) - {"0", layer.inputs[0].id if layer.inputs else "0"} or len(inputs) != 1:
                raise IRError(f"a bare layer takes one input array (or {{'0': array}}), got keys {sorted(inputs)}",
                              code="bad-input", **layer.where(self.file))
            inputs = next(iter(inputs.values()))
        if self.family is not None:
            outs = execute_family(layer, self.file, inputs, self.family, threads, self.layout, self.unread)
        else:
            outs = execute(layer, self.file, inputs, threads, self.prepared)
        ids = [p.id for p in layer.outputs] + [str(i + 1) for i in range(len(layer.outputs), len(outs))]
        return dict(zip(ids, outs))
