"""Differential fuzzing of irpool's IR reader: mutate IR files, ask irpool.check and OpenVINO's read_model (and
compile_model on CPU where check refuses a file read_model reads), and list where they part:

  quiet pass      read_model refuses the file, check reports no error (irpool should have refused it)
  false refusal   read_model reads it and compile_model compiles it, check reports an error
  excluded        check's only errors are declared dims that disagree with the inferred ones (shape-mismatch,
                  edge-mismatch "... joins dims ..."): read_model recomputes dims, irpool refuses them on purpose

Bases: a hand-written net (Parameter, Const weights, Convolution, ReLU, MaxPool, Result; 48 zero bytes of
weights); four that openvino's Python API builds and saves (MaxPool-8, AvgPool-14, ReduceMean with an axes
Const, AdaptiveAvgPool with an output_shape Const; a TensorIterator, a Loop, an If, each pooling in its body);
with --models DIR, each converted model there (x.xml beside x.bin; its first Parameter, Const, two pools and
their edges). Families: spelling (blanks, signs, leading zeros, non-ASCII digits and blanks, huge numbers,
empty, float, case), element-type, const (offset, size, shape, element_type), bin, removal, dup-attribute,
dup-element, structure, dims, port-map, back-edge, body-id, rt_info, names; in a fixed order that takes each
(base, family) in turn, so --limit N samples them all.

Run:    nice -n 19 python tests/tools/fuzz_reader.py --out /tmp/fz [--limit N] [--models DIR]
        (OpenVINO in one child process, restarted after a crash, 30 s a file; a crash or timeout is a refusal)
Takes:  the built-in bases make 23,026 files, about 2.5 minutes on a 2-core AMD EPYC (--limit 300: seconds);
        a converted model adds 3,000 to 5,000 files (googlenet 3,158), at about the same rate.
Writes: DIR/results.jsonl (a line a file), DIR/diverged/ (each divergent file and its .bin, numbered as in
        results.jsonl), DIR/openvino.log; prints the CPU, the OpenVINO version, the counts, and per class
        (verdict, family, layer type) its count and one repro.

Found by the two scripts this replaces (2026-11-27, OpenVINO 2026.4.1, AMD EPYC family 26 model 2, avx512f):
round 1 (attributes and text of a hand-written net, googlenet, light_shufflenet, densenet121) 6,839 files, 569
quiet passes; round 2 (Const weights and the .bin, precisions, TensorIterator/Loop/If bodies) 2,485 files, 466.
After that day's fixes 188 and 190 remained: attributes and element types of non-pooling layers; ordinary Const
weights against the .bin; rt_info values; TensorIterator iteration arithmetic; a pool's input type behind a
producer irpool does not model; float output_shape Consts; XML pugixml reads and lxml refuses (duplicated
attributes, which are false refusals). This tool's first full run, on its built-in bases with irpool as it stood that
evening: 23,026 files, 758 quiet passes (const 222, spelling 283 of them 77 unknown layer types, element-type 104,
port-map 78), 936 false refusals (862 duplicated attributes), 787 excluded; OpenVINO crashed on 49 (irpool
refuses them all). On 2026-11-28, with every Const's bytes and element_type read as read_model reads them:
23,091 files, 620 quiet passes (const 88: Convolution's own validation of its weights' type and shape, string
Consts; bin 0), 922 false refusals (862 duplicated attributes), 790 excluded; with the types each opset has read
too, 587 quiet passes (spelling 260). Later that day, with a body Parameter's element_type "undefined" given the
outer input's type: 918 false refusals (102 s).
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "helpers"))

TIMEOUT = 30
POOLS = ("MaxPool", "AvgPool", "ReduceMean", "ReduceMax", "AdaptiveAvgPool", "AdaptiveMaxPool")
DIVERGENT = ("quiet-pass", "false-refusal", "irpool-exception")
TAG = re.compile(r"<(net|layer|data|port|edge|input|output)\b([^>]*?)/?>")
ATTR = re.compile(r'([\w\-:.]+)="([^"]*)"')
LAYER = re.compile(r"<layer\b[^>]*?(/?)>|</layer>")
DIM = re.compile(r"<dim>([^<]*)</dim>")
HUGE = [str(2 ** 31), str(2 ** 32), str(2 ** 63 - 1), str(2 ** 63), str(2 ** 64)]
ET = ("f32 f16 bf16 f64 i64 i32 i16 i8 u64 u32 u8 u4 u1 i4 nf4 u2 u3 u6 f4e2m1 f8e8m0 f8e4m3 f8e5m2 string boolean "
      "bool dynamic undefined FP32 float32 int64 foo").split()
ENUMS = {"element_type": ET, "index_element_type": ET,
         "precision": "FP32 FP16 BF16 FP64 I64 I32 I8 U8 U1 BOOL STRING F8E4M3 NF4 UNSPECIFIED DYNAMIC f32 FOO".split(),
         "rounding_type": ["floor", "ceil", "ceil_torch", "ceil torch", "round"],
         "auto_pad": ["explicit", "same_upper", "same_lower", "valid", "notset", "same"],
         "exclude-pad": ["true", "false", "True", "yes", "1", "0", "on"], "axis": ["-5", "-4", "-1", "4"],
         "names": ["a,b", "a, b", "a,,b", ",", "a\\,b", "x", "r1", "\u00e9t\u00e9", "a" * 300],
         "version": ["opset1", "opset8", "opset14", "opset99", "experimental", "10", "12"],
         "type": ["Foo", "maxpool", "Relu", "ReLU"]}
FAMILY = {"precision": "element-type", "element_type": "element-type", "index_element_type": "element-type",
          "names": "names"}
OTHER = {"floor": "ceil", "ceil": "floor", "explicit": "valid", "true": "false", "false": "true"}
RT = {k: f'<attribute name="{n}" version="{v}" value="{x}"/>' for k, n, v, x in (
    ("fused_names", "fused_names", "0", "a,b"), ("unknown-attr", "foo_bar", "0", "x"),
    ("bad-version", "fused_names", "x", "a"), ("old_api_map_order", "old_api_map_order", "0", "0,2,1,x"),
    ("old_api_map_element_type", "old_api_map_element_type", "0", "foo"),
    ("primitives_priority", "primitives_priority", "0", "cpu:foo"))}
RT.update({"no-name": '<attribute version="0" value="x"/>', "no-value": '<attribute name="fused_names" version="0"/>',
           "info-elem": '<info name="x" value="y"/>', "text-inside": "garbage", "nested": '<a><b value="1"/></a>'})


def _port(pid, *dims):
    return f'<port id="{pid}" precision="FP32">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


SMALL = f"""<?xml version="1.0"?>
<net name="small" version="11">
<layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3,8,8" element_type="f32"/>
<output>{_port(0, 1, 3, 8, 8).replace('">', '" names="x">', 1)}</output></layer>
<layer id="1" name="w" type="Const" version="opset1"><data element_type="f32" shape="4,3,1,1" offset="0" size="48"/>
<output>{_port(0, 4, 3, 1, 1)}</output></layer>
<layer id="2" name="conv" type="Convolution" version="opset1">
<data strides="1,1" dilations="1,1" pads_begin="0,0" pads_end="0,0" auto_pad="explicit"/>
<input>{_port(0, 1, 3, 8, 8)}{_port(1, 4, 3, 1, 1)}</input><output>{_port(2, 1, 4, 8, 8)}</output></layer>
<layer id="3" name="relu" type="ReLU" version="opset1">
<input>{_port(0, 1, 4, 8, 8)}</input><output>{_port(1, 1, 4, 8, 8)}</output></layer>
<layer id="4" name="pool" type="MaxPool" version="opset1">
<data strides="2,2" pads_begin="0,0" pads_end="0,0" kernel="2,2" rounding_type="floor" auto_pad="explicit"/>
<input>{_port(0, 1, 4, 8, 8)}</input><output>{_port(1, 1, 4, 4, 4)}</output></layer>
<layer id="5" name="out" type="Result" version="opset1"><input>{_port(0, 1, 4, 4, 4)}</input></layer>
</layers>
<edges>
""" + "".join(f'<edge from-layer="{a}" from-port="{p}" to-layer="{b}" to-port="{q}"/>\n'
              for a, p, b, q in ((0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0), (3, 1, 4, 0), (4, 1, 5, 0))) + """</edges>
</net>
"""


def build_ov_bases(folder: Path) -> list[str]:
    """Four bases written by openvino's own serializer (uncompressed): the layout read_model is used to."""
    import numpy as np
    import openvino as ov
    from openvino import opset1 as o1, opset5 as o5, opset8 as o8, opset14 as o14

    def save(name, results, params):
        ov.save_model(ov.Model(results, params, name), str(folder / f"{name}.xml"), compress_to_fp16=False)
        return name

    def body_pool():
        p = o1.parameter([1, 2, 4, 4], np.float32, name="bp")
        return p, o1.max_pool(p, [2, 2], [0, 0], [0, 0], [2, 2], name="bmp")
    x = o1.parameter([1, 3, 8, 8], np.float32, name="x")
    w = o1.constant((np.arange(12, dtype=np.float32) / 8).reshape(4, 3, 1, 1), name="w")
    relu = o1.relu(o1.convolution(x, w, [1, 1], [0, 0], [0, 0], [1, 1], name="conv"), name="relu")
    mp8 = o8.max_pool(relu, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2], "floor", "explicit", "i32", 0, name="mp8")
    ap = o14.avg_pool(mp8.output(0), [1, 1], [0, 0], [0, 0], [2, 2], True, "floor", "explicit", name="ap14")
    rm = o1.reduce_mean(ap, o1.constant(np.array([2, 3], np.int64), name="axes"), True, name="rmean")
    aap = o8.adaptive_avg_pool(mp8.output(0), o1.constant(np.array([2, 2], np.int32), name="osh"), name="aap")
    names = [save("syn_pool", [o1.result(rm), o1.result(aap), o1.result(mp8.output(1))], [x])]
    xt, (bp, bmp) = o1.parameter([3, 2, 4, 4], np.float32, name="xt"), body_pool()
    bo, ti = o1.result(bmp, name="bo"), o1.tensor_iterator()
    ti.set_body(ov.Model([bo], [bp], "ti_body"))
    ti.set_sliced_input(bp, xt.output(0), 0, 1, 1, -1, 0)
    names.append(save("syn_ti", [o1.result(ti.get_concatenated_slices(bo.output(0), 0, 1, 1, -1, 0))], [xt]))
    xl, (bp, bmp) = o1.parameter([3, 2, 4, 4], np.float32, name="xl"), body_pool()
    acc = o1.parameter([1, 2, 2, 2], np.float32, name="acc")
    bo, bc = o1.result(o1.add(acc, bmp), name="bo"), o1.result(o1.constant(np.array(True)), name="bc")
    loop = o5.loop(o1.constant(np.array(3, np.int64), name="trip"), o1.constant(np.array(True), name="cond"))
    loop.set_function(ov.Model([bc, bo], [bp, acc], "loop_body"))
    loop.set_special_body_ports([-1, 0])
    loop.set_sliced_input(bp, xl.output(0), 0, 1, 1, -1, 0)
    loop.set_merged_input(acc, o1.constant(np.zeros([1, 2, 2, 2], np.float32), name="init").output(0), bo.output(0))
    names.append(save("syn_loop", [o1.result(loop.get_iter_value(bo.output(0), -1))], [xl]))
    xi, c = o1.parameter([1, 2, 4, 4], np.float32, name="xi"), o1.parameter([], np.bool_, name="c")
    (tp, tmp), ep = body_pool(), o1.parameter([1, 2, 4, 4], np.float32, name="ep")
    iff = o8.if_op(c)
    iff.set_then_body(ov.Model([o1.result(tmp)], [tp], "then"))
    iff.set_else_body(ov.Model([o1.result(o1.avg_pool(ep, [2, 2], [0, 0], [0, 0], [2, 2], True))], [ep], "else"))
    iff.set_input(xi.output(0), tp, ep)
    out = iff.set_output(iff.get_then_body().get_results()[0], iff.get_else_body().get_results()[0])
    return names + [save("syn_if", [o1.result(out)], [xi, c])]


def layer_spans(text):
    """(start, end, id, type) of every layer, a body's too, in file order."""
    out, stack = [], []
    for m in LAYER.finditer(text):
        if m.group(0) == "</layer>":
            s, lid, typ = stack.pop()
            out.append((s, m.end(), lid, typ))
            continue
        a = dict(ATTR.findall(m.group(0)))
        if m.group(1):                                   # <layer .../>
            out.append((m.start(), m.end(), a.get("id", "?"), a.get("type", "?")))
        else:
            stack.append((m.start(), a.get("id", "?"), a.get("type", "?")))
    return sorted(out)


class Base:
    """A file the mutations start from, and the regions whose attributes they change: all of a small base; of a
    converted model, its first Parameter, first Const, first two pools, their edges and the <net> tag."""

    def __init__(self, name, xml: Path, binp: Path, whole=True):
        self.name, self.bin, self.whole = name, binp, whole
        self.text, self.binsize = xml.read_text(encoding="utf-8"), binp.stat().st_size
        self.layers = layer_spans(self.text)
        first = lambda types, k: [sp for sp in self.layers if sp[3] in types][:k]  # noqa: E731
        self.picked = self.layers if whole else first(("Parameter",), 1) + first(("Const",), 1) + first(POOLS, 2)
        ids = {sp[2] for sp in self.picked}
        self.edges = [m.span() for m in re.finditer(r"<edge\b[^>]*/>", self.text)
                      if whole or set(re.findall(r'(?:from|to)-layer="([^"]*)"', m.group(0))) & ids]
        net = re.search(r"<net\b[^>]*>", self.text).span()
        self.regions = [(0, len(self.text))] if whole else [sp[:2] for sp in self.picked] + self.edges + [net]
        self.blocks = [(m.start(), m.end(), m.group(1))
                       for m in re.finditer(r"<(\w*port_map|back_edges)>.*?</\1>", self.text, re.S)]

    def where(self, pos):
        """The innermost layer holding `pos`, as type#id ("-" outside the layers)."""
        inner = max((sp for sp in self.layers if sp[0] <= pos < sp[1]), default=None)
        return f"{inner[3]}#{inner[2]}" if inner else "-"

    def family(self, pos, tag, attr, where):
        block = next((name for lo, hi, name in self.blocks if lo <= pos < hi), "")
        return ("back-edge" if block == "back_edges" else "port-map" if block else "const"
                if where.startswith("Const#") and tag == "data" else FAMILY.get(attr, "spelling"))


def spellings(v):
    """Other spellings of a value: blanks, signs, leading zeros, non-ASCII digits and blanks, huge numbers, empty,
    float, case (in a list, the first number is respelled)."""
    head, sep, rest = v.partition(",")
    first, lead = head.strip(), head[:len(head) - len(head.lstrip())]
    out = [" " + v, v + " ", "+" + v, "", "  ", "&#9;" + v, v + "&#9;", v + ",", v + ",1", "\u00a0" + v,
           v + "\u00a0", v.upper(), v.lower(), v.capitalize()]
    if sep:
        out += [head, v.replace(" ", ""), head + ",," + rest, v.replace(", ", ",&#9;")]
    if not re.fullmatch(r"-?\d+", first):
        return out + ["-1", HUGE[0], "2.0", "\u0663"]
    return out + [lead + x + sep + rest for x in ["0" + first, "-" + first if first != "0" else "-1", "-1",
                                                  first + ".0", "\u0663", "\uff13", "0x" + first, "1e1", "0", "-0",
                                                  "?", "1.." + first, *HUGE]]


def values(b: Base, fam, attr, val, tag_text):
    """The values an attribute is set to: its spellings, the values of its kind, and for a Const's data and a
    body's port maps numbers that point elsewhere (past the .bin's end, at another layer)."""
    vals = ([] if attr == "name" else spellings(val)) + ENUMS.get(attr, [])
    if fam == "const":
        a = dict(ATTR.findall(tag_text))
        off, size = int(a.get("offset", 0)), int(a.get("size", 0))
        parts = [p.strip() for p in a.get("shape", "").split(",") if p.strip()]
        vals += {"offset": [b.binsize, b.binsize - 1, b.binsize - size + 1, off + 1, off + 4, -8],
                 "size": [0, size - 1, size + 1, size // 2, size * 2, b.binsize + 1],
                 "shape": [",".join(parts + ["1"]), ",".join(["1"] + parts), ",".join(parts[:-1]), "?", "1..2",
                           ",".join(str(2 * int(p)) for p in parts) or "2"]}.get(attr, [])
    if fam in ("port-map", "back-edge"):
        vals += [str(i) for i in range(8)] + ["99"]
    return [v for v in dict.fromkeys(map(str, vals)) if v != val]


def mutations(b: Base) -> dict:
    """{family: [(label, splices, .bin action)]} of one base, in a fixed order; a splice is (start, end, text)."""
    out, text, seen = defaultdict(list), b.text, set()

    def add(fam, where, elem, attr, orig, new, splices, binact="normal"):
        out[fam].append((dict(family=fam, base=b.name, layer=where, elem=elem, attr=attr, orig=orig, new=new),
                         splices, binact))
    for lo, hi in b.regions:
        for t in TAG.finditer(text, lo, hi):
            for a in ATTR.finditer(t.group(2)):
                (s, e), tag, attr, val = (t.start(2) + a.start(2), t.start(2) + a.end(2)), t.group(1), *a.groups()
                if s in seen:
                    continue
                seen.add(s)
                where = b.where(s)
                fam = b.family(s, tag, attr, where)
                for v in values(b, fam, attr, val, t.group(0)):
                    add(fam, where, tag, attr, val, v, [(s, e, v)])
                k, other = s - len(attr) - 3, OTHER.get(val, "7")     # k: the blank before the attribute
                add("removal", where, tag, attr, val, None, [(k, e + 1, "")])
                add("dup-attribute", where, tag, attr, val, val, [(e + 1, e + 1, f' {attr}="{val}"')])
                add("dup-attribute", where, tag, attr, val, other, [(k + 1, k + 1, f'{attr}="{other}" ')])
        for d in list(DIM.finditer(text, lo, hi))[::3]:
            for v in values(b, "dims", "dim", d.group(1), ""):
                add("dims", b.where(d.start()), "dim", "#text", d.group(1), v, [d.span(1) + (v,)])
    for lo, hi, lid, typ in b.picked:
        where, own = f"{typ}#{lid}", text.find("<layer", lo + 1, hi)
        own = hi if own < 0 else own                        # the layer without its body's layers
        for el in ("data", "input", "output"):
            m = re.compile(rf"<{el}\b[^>]*/>" if el == "data" else rf"<{el}>.*?</{el}>", re.S).search(text, lo, own)
            if not m:
                continue
            add("dup-element", where, el, "-", "-", "dup", [(m.end(), m.end(), m.group(0))])
            add("structure", where, el, "-", "-", "removed", [m.span() + ("",)])
            add("structure", where, el, "-", "-", "empty", [m.span() + (f"<{el}/>",)])
            p = re.compile(r"<port\b[^>]*?(/>|>.*?</port>)", re.S).search(text, *m.span())
            d = p and DIM.search(text, *p.span())
            if p:
                add("dup-element", where, "port", "-", el, "dup", [(p.end(), p.end(), p.group(0))])
            if d:
                add("dims", where, "port", "-", el, "drop-dim", [d.span() + ("",)])
                add("dims", where, "port", "-", el, "extra-dim", [(d.end(), d.end(), "<dim>1</dim>")])
        add("dup-element", where, "layer", "-", "-", "dup", [(hi, hi, text[lo:hi])])
        add("structure", where, "layer", "-", "-", "removed", [(lo, hi, "")])
    for s, e in b.edges:
        add("dup-element", b.where(s), "edge", "-", text[s:e], "dup", [(e, e, text[s:e])])
        add("structure", b.where(s), "edge", "-", text[s:e], "removed", [(s, e, "")])
    if b.whole:
        s, e = text.rindex("<edges>"), text.rindex("</edges>") + len("</edges>")
        add("structure", "-", "edges", "-", "-", "removed", [(s, e, "")])
        add("structure", "-", "edges", "-", "-", "empty", [(s, e, "<edges/>")])
    for m in re.finditer(r"<(body|then_body|else_body)>.*?</\1>", text, re.S):
        add("structure", b.where(m.start()), m.group(1), "-", "-", "removed", [m.span() + ("",)])
        pool = next((sp for sp in b.layers if sp[3] in POOLS and m.start() < sp[0] < m.end()), None)
        if pool:                                            # its id respelled at the layer and at the edges naming it
            lid = pool[2]
            spots = [x.span(1) for x in re.finditer(rf'(?:<layer id|from-layer|to-layer)="({lid})"', m.group(0))]
            for v in [f" {lid}", f"+{lid}", f"0{lid}", f"{lid} ", f"{lid}.0", "", f"-{lid}", "\u0661", f"0x{lid}",
                      str(2 ** 63), "99"]:
                add("body-id", f"{pool[3]}#{lid}", "layer+edges", "id", lid, v,
                    [(m.start() + s, m.start() + e, v) for s, e in spots])
    pool = next((sp for sp in b.picked if sp[3] in POOLS), None)
    if pool:                                                # rt_info in a pool, and in its output port
        lo, hi, lid, typ = pool
        m = re.compile(r"<data\b[^>]*/>|<input>").search(text, lo, hi)
        at = m.end() if m.group(0).startswith("<data") else m.start()
        p = re.compile(r"<port\b[^>]*?(/?)>").search(text, text.index("<output>", lo), hi)
        for k, v in RT.items():
            add("rt_info", f"{typ}#{lid}", "rt_info", "-", "-", k, [(at, at, f"<rt_info>{v}</rt_info>")])
            add("rt_info", f"{typ}#{lid}", "port-rt_info", "-", "-", k, [
                (p.end() - 2, p.end(), f"><rt_info>{v}</rt_info></port>") if p.group(1) else
                (p.end(), p.end(), f"<rt_info>{v}</rt_info>")])
    for act in ("missing", "empty", "dir", "longer"):
        add("bin", "-", "bin", "-", "-", act, [], act)
    for lo, hi, lid, typ in (sp for sp in b.picked if sp[3] == "Const"):
        a = dict(ATTR.findall(re.compile(r"<data\b[^>]*>").search(text, lo, hi).group(0)))
        end = int(a.get("offset", 0)) + int(a.get("size", 0))
        for cut in (end - 1, end) if end else ():
            add("bin", f"Const#{lid}", "bin", "-", "-", f"cut at {cut}", [], f"cut:{cut}")
    return out


def schedule(bases):
    """Every base as it is, then the mutations, taking each (base, family) in turn: any prefix samples them all."""
    streams = []
    for b in bases:
        yield b, dict(family="base", base=b.name, layer="-", elem="-", attr="-", orig="-", new="-"), [], "normal"
        streams += [iter([(b, *m) for m in ms]) for ms in mutations(b).values()]
    while streams:
        for it in list(streams):
            item = next(it, None)
            if item is None:
                streams.remove(it)
            else:
                yield item


def apply(text, splices):
    for s, e, new in sorted(splices, reverse=True):
        text = text[:s] + new + text[e:]
    return text


def place_bin(dst: Path, src: Path, act: str):
    """The .bin beside a file as the mutation has it: the base's (linked), none, empty, a folder, cut, longer."""
    if dst.is_dir() and not dst.is_symlink():
        dst.rmdir()
    elif dst.exists() or dst.is_symlink():
        dst.unlink()
    if act == "normal":
        dst.symlink_to(src.resolve())
    elif act == "dir":
        dst.mkdir()
    elif act != "missing":
        with open(src, "rb") as f:
            dst.write_bytes(b"" if act == "empty" else f.read(int(act[4:])) if act.startswith("cut:")
                            else f.read() + bytes(7))


def _child(conn, log):
    """OpenVINO's side, in its own process: read_model, then compile_model on CPU if asked; stderr into `log`."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    os.dup2(fd, 1), os.dup2(fd, 2)
    import openvino as ov
    core = ov.Core()
    for path, compile_too in iter(conn.recv, None):
        try:
            model = core.read_model(path)
            conn.send(("read", ""))
            if compile_too:
                core.compile_model(model, "CPU")
                conn.send(("compiles", ""))
        except Exception as e:                     # noqa: BLE001 (any refusal is a verdict here)
            conn.send(("refused", str(e)))


class OpenVINO:
    """read_model and compile_model in one spawned child: a crash or a hang there is a refusal, not the end of
    the run (a new child takes the next file)."""

    def __init__(self, log: Path):
        self.log, self.proc, self.notes = str(log), None, Counter()

    def ask(self, path, compile_too):
        """(read or refused, message, crash/timeout note or "", compiles/refused/None, its message)."""
        if self.proc is None:
            ctx = mp.get_context("spawn")
            self.conn, child = ctx.Pipe()
            self.proc = ctx.Process(target=_child, args=(child, self.log), daemon=True)
            self.proc.start()
        self.conn.send((str(path), compile_too))
        deadline = time.monotonic() + TIMEOUT
        verdict, msg, note = self._answer(deadline)
        if verdict != "read" or not compile_too:
            return verdict, msg, note, None, ""
        comp, cmsg, cnote = self._answer(deadline)
        return verdict, msg, cnote, comp, cmsg

    def _answer(self, deadline):
        ready = self.conn.poll(max(0.0, deadline - time.monotonic()))
        if ready:
            try:
                return (*self.conn.recv(), "")
            except EOFError:
                pass
        self.proc.kill()                            # our own child, by its handle
        self.proc.join()
        note = f"crash (exit code {self.proc.exitcode})" if ready else f"timeout ({TIMEOUT} s)"
        self.notes[note.split()[0]] += 1
        self.proc = None
        return "refused", note, note

    def close(self):
        if self.proc is not None:
            self.conn.send(None)
            self.proc.join(5)


def irpool_errors(path):
    """check's errors as (code, message), an IRError as one; and the text of any other exception check raised."""
    import irpool
    from irpool.errors import IRError
    try:
        report = irpool.check(str(path))
    except IRError as e:
        return [(f"IRError:{e.code}", str(e))], ""
    except Exception as e:                         # noqa: BLE001 (a crash of check is a finding of its own)
        return [], f"{type(e).__name__}: {e}"
    return [(f.code, f.message) for f in report.findings if f.severity == "error"], ""


def verdict(errs, exc, ov, comp):
    """The file's class. Errors that are only declared dims disagreeing with inferred ones are excluded:
    read_model never reads those dims. A file compile_model refuses is one irpool may refuse."""
    if exc:
        return "irpool-exception"
    if ov == "refused" or not errs:
        return "quiet-pass" if ov == "refused" and not errs else "agree"
    if all(c == "shape-mismatch" or (c == "edge-mismatch" and " joins dims " in m) for c, m in errs):
        return "excluded"
    return "false-refusal" if comp == "compiles" else "agree"


def cpu_line():
    """lscpu's model name, family, model and AVX-512 (the CPU plugin's kernels are chosen by it)."""
    info = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        info = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in out.splitlines())}
    except (OSError, subprocess.CalledProcessError):
        pass
    from plugin import measured_cpu
    known = measured_cpu()
    return (f"{info.get('Model name', '?')}, family {info.get('CPU family', '?')} model {info.get('Model', '?')}, "
            f"avx512f {'yes' if 'avx512f' in info.get('Flags', '').split() else 'no'}"
            + (f" (schemas/openvino.json: {known})" if known else ""))


def summary(rows, seconds, notes, out: Path):
    import irpool
    import openvino as ov
    n = Counter(r["verdict"] for r in rows)
    print(f"\nCPU: {cpu_line()}\nOpenVINO {ov.__version__}; irpool {irpool.__version__}; results in {out}")
    print(f"{len(rows)} files in {seconds:.0f} s: {n['agree']} agree (compile_model alone refuses "
          f"{sum(r['verdict'] == 'agree' and r['compile'] == 'refused' for r in rows)}), {n['quiet-pass']} quiet "
          f"passes, {n['false-refusal']} false refusals, {n['excluded']} excluded (declared dims only), "
          f"{n['irpool-exception']} irpool exceptions; OpenVINO crashed on {notes['crash']} and timed out on "
          f"{notes['timeout']} (counted as refusals)")
    classes = defaultdict(list)
    for r in (r for r in rows if r["verdict"] in DIVERGENT):
        classes[(r["verdict"], r["family"], r["layer"].split("#")[0])].append(r)
    for (kind, fam, typ), rs in sorted(classes.items(), key=lambda kv: (kv[0][0], -len(kv[1]), kv[0])):
        r = rs[0]
        said = (" ".join(re.sub(r"Exception from \S+:\d+:|(?<=failed) at \S+:\d+(?=:)", "", r["ov_msg"]).split())[:160]
                if r["ov"] == "refused" else f"read; compile_model: {r['compile']}")
        codes = ",".join(sorted({c for c, _ in r["ir_errs"]})) or r["ir_exc"][:120] or "no error"
        print(f"{len(rs):6}  {kind} / {fam} / {typ}\n        e.g. {r['base']} {r['layer']} <{r['elem']}> {r['attr']}:"
              f" {r['orig']!r} -> {r['new']!r} | OpenVINO: {said} | irpool: {codes} | {r['file']}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, help="folder for results.jsonl and the files (default: a new temporary one)")
    ap.add_argument("--limit", type=int, default=0, help="stop after N files (0: all)")
    ap.add_argument("--models", type=Path, help="a folder of converted models (x.xml beside x.bin) to mutate too")
    args = ap.parse_args(argv)
    out = args.out or Path(tempfile.mkdtemp(prefix="fuzz_reader-"))
    folders = {k: out / k for k in ("bases", "work", "diverged")}
    for f in folders.values():
        f.mkdir(parents=True, exist_ok=True)
    (folders["bases"] / "small.xml").write_text(SMALL, encoding="utf-8")
    (folders["bases"] / "small.bin").write_bytes(bytes(48))
    bases = [Base(k, folders["bases"] / f"{k}.xml", folders["bases"] / f"{k}.bin")
             for k in ["small"] + build_ov_bases(folders["bases"])]
    bases += [Base(x.stem, x, x.with_suffix(".bin"), whole=False) for x in
              (sorted(args.models.glob("*.xml")) if args.models else []) if x.with_suffix(".bin").exists()]
    ov, rows, placed, t0 = OpenVINO(out / "openvino.log"), [], {}, time.time()
    try:
        with open(out / "results.jsonl", "w", encoding="utf-8") as results:
            for n, (b, label, splices, binact) in enumerate(schedule(bases), 1):
                if args.limit and n > args.limit:
                    break
                xml, text = folders["work"] / f"{b.name}.xml", apply(b.text, splices)
                xml.write_text(text, encoding="utf-8")
                if placed.get(b.name) != binact:
                    place_bin(xml.with_suffix(".bin"), b.bin, binact)
                    placed[b.name] = binact
                errs, exc = irpool_errors(xml)
                compile_too = verdict(errs, exc, "read", "compiles") == "false-refusal"
                ovv, msg, note, comp, cmsg = ov.ask(xml, compile_too)
                kind, kept = verdict(errs, exc, ovv, comp), ""
                if kind in DIVERGENT:                      # kept with its .bin: the repro
                    kept = folders["diverged"] / f"{n:05d}-{b.name}.xml"
                    kept.write_text(text, encoding="utf-8")
                    place_bin(kept.with_suffix(".bin"), b.bin, binact)
                rows.append(dict(n=n, **label, verdict=kind, ov=ovv, ov_msg=msg[:600], ov_note=note, compile=comp,
                                 compile_msg=cmsg[:300], ir_errs=[(c, m[:300]) for c, m in errs], ir_exc=exc[:300],
                                 file=str(kept)))
                results.write(json.dumps(rows[-1], ensure_ascii=False) + "\n")
                if n % 1000 == 0:
                    print(f"{n} files, {time.time() - t0:.0f} s", flush=True)
    except KeyboardInterrupt:
        print("interrupted: the files done so far")
    finally:
        ov.close()
    summary(rows, time.time() - t0, ov.notes, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
