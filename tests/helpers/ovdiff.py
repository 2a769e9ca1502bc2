"""Random small IR nets and the edits hands and tools make to them, and OpenVINO's verdict on each file
(read_model + compile_model on the CPU, in child processes: a crash is a refusal), for test_differential.py.

A net is data (a list of layer dicts and edges) until `write` lays it out as IR v11 text with its .bin, so an
edit is a small change to the data or to the text. The declared dims of the unedited net are the ones
OpenVINO infers (`inferred`), so that only an edit can make them wrong.
"""
from __future__ import annotations

import copy
import json
import subprocess
import sys
import textwrap

import numpy as np

# Element types whose verdict does not depend on the CPU (nf4, u2, f4e2m1 and the f8 types do:
# tests/ir/test_eltypes.py judges them on the CPUs measured)
TYPES = ["f32", "f16", "i32", "i64", "u8", "i8", "u1", "string", "bf16", "boolean", "FP32", "bogus", "F32", "Bf16",
         "U8", "u3", "u6", "BOOL"]
PRECISION = {"f32": "FP32", "f16": "FP16", "i32": "I32", "i64": "I64", "u8": "U8", "i8": "I8", "bf16": "BF16"}


def _pool(rng, nd):
    op = str(rng.choice(["MaxPool", "AvgPool"]))
    version = int(rng.choice({"MaxPool": [1, 8, 14], "AvgPool": [1, 14, 16]}[op]))
    ints = lambda lo, hi: ",".join(str(int(v)) for v in rng.integers(lo, hi, size=nd))  # noqa: E731
    data = dict(strides=ints(1, 3), pads_begin=ints(0, 2), pads_end=ints(0, 2), kernel=ints(1, 4),
                rounding_type=str(rng.choice(["floor", "ceil"] + (["ceil_torch"] if version > 1 else []))),
                auto_pad=str(rng.choice(["explicit", "explicit", "valid", "same_upper", "same_lower"])))
    if (op, version) in (("MaxPool", 8), ("MaxPool", 14), ("AvgPool", 16)):
        data["dilations"] = ints(1, 3)
    if op == "MaxPool" and version > 1:
        data.update(index_element_type=str(rng.choice(["i32", "i64"])), axis="0")
    if op == "AvgPool":
        data["exclude-pad"] = str(rng.choice(["true", "false"]))
    return dict(type=op, version=f"opset{version}", data=data, outs=2 if op == "MaxPool" and version > 1 else 1)


def random_net(rng) -> dict:
    """Parameter -> a chain of 1 to 4 layers (pools, a global ReduceMean/ReduceMax or an adaptive pool with a
    Const), a MaxPool's indices sometimes to a Result of their own, and one or two Results. (No op irpool does
    not judge: a Relu's own type checks are not irpool's to emulate.)"""
    nd = int(rng.integers(1, 4))
    shape = [1, int(rng.integers(1, 5))] + [int(v) for v in rng.integers(4, 9, size=nd)]
    layers = [dict(type="Parameter", version="opset1", data=dict(shape=",".join(map(str, shape)), element_type="f32"),
                   outs=1, ins=0)]
    edges, tails = [], []
    src = (0, 0)
    for _ in range(int(rng.integers(1, 5))):
        kind = rng.random()
        if kind < 0.65:
            layer = _pool(rng, nd)
        elif kind < 0.82:
            axes = list(range(2, 2 + nd))
            layer = dict(type=str(rng.choice(["ReduceMean", "ReduceMax"])), version="opset1",
                         data=dict(keep_dims=str(rng.choice(["true", "false"]))), outs=1,
                         const=dict(element_type="i64", values=axes))
        else:
            layer = dict(type=str(rng.choice(["AdaptiveAvgPool", "AdaptiveMaxPool"])), version="opset8",
                         data=dict(index_element_type="i32") if rng.random() < 0.5 else None, outs=1,
                         const=dict(element_type="i64", values=[int(v) for v in rng.integers(1, 4, size=nd)]))
            if layer["type"] == "AdaptiveMaxPool":
                layer["outs"] = 2
                layer["data"] = dict(index_element_type="i32")
        layer["ins"] = 1
        k = len(layers)
        if "const" in layer:
            layers.append(dict(type="Const", version="opset1", const=layer.pop("const"), outs=1, ins=0))
            layer["ins"] = 2
            edges.append([k, 0, k + 1, 1])
            k += 1
        layers.append(layer)
        edges.append([src[0], src[1], k, 0])
        if layer["outs"] == 2 and rng.random() < 0.5:
            tails.append((k, 1))
        src = (k, 0)
        if layer["type"] in ("ReduceMean", "ReduceMax") and layer["data"]["keep_dims"] == "false":
            break                                        # (rank 2: nothing pools it further)
    tails.append(src)
    for src in tails:
        layers.append(dict(type="Result", version="opset1", data=None, outs=0, ins=1))
        edges.append([src[0], src[1], len(layers) - 1, 0])
    return dict(layers=layers, edges=edges, version="11")


def _port_ids(layer):
    """Input port ids 0..ins-1, then output port ids ins..ins+outs-1, as OpenVINO's serializer numbers them."""
    ins = layer.get("in_ports", list(range(layer["ins"])))
    outs = layer.get("out_ports", list(range(layer["ins"], layer["ins"] + layer["outs"])))
    return ins, outs


def write(net: dict, path, inferred=None) -> None:
    """The net as IR text at `path`, its Consts in path's .bin. `inferred`: {layer index: [[dims of each
    output]]} to declare (default: every dim -1, of the Parameter's rank)."""
    rank = len(net["layers"][0]["data"]["shape"].split(",")) if net["layers"][0]["type"] == "Parameter" else 4
    blob, lines = bytearray(), ['<?xml version="1.0"?>', f'<net name="diff" version="{net["version"]}">', "<layers>"]

    def dims(d):
        return "".join(f"<dim>{x}</dim>" for x in d)
    out_dims = {}
    for i, layer in enumerate(net["layers"]):
        ins, outs = _port_ids(layer)
        declared = (inferred or {}).get(i) or [[-1] * rank] * len(outs)
        out_dims[i] = dict(zip(outs, declared + [[-1] * rank] * (len(outs) - len(declared))))
    for i, layer in enumerate(net["layers"]):
        if layer.get("dropped"):
            continue
        data = layer.get("data")
        if layer["type"] == "Const":
            c = layer["const"]
            raw = np.asarray(c["values"], dtype=np.int64 if c["element_type"] == "i64" else np.int32).tobytes()
            offset, size = c.get("offset", len(blob)), c.get("size", len(raw))
            data = dict(element_type=c["element_type"], shape=str(len(c["values"])), offset=str(offset),
                        size=str(size))
            blob += raw
            out_dims[i] = {p: [len(c["values"])] for p in out_dims[i]}
        attrs = "".join(f' {k}="{v}"' for k, v in (data or {}).items())
        body = layer.get("data_xml", f"<data{attrs}/>" if data is not None else "")
        ins, outs = _port_ids(layer)
        feeds = {e[3]: (e[0], e[1]) for e in net["edges"] if e[2] == i}
        inputs = ""
        for p in ins:
            src = feeds.get(p)
            d = out_dims.get(src[0], {}).get(src[1], [-1] * rank) if src else [-1] * rank
            inputs += f'<port id="{p}" precision="{layer.get("in_precision", "FP32")}">{dims(d)}</port>'
        if i == net.get("dims_at") and outs and out_dims[i][outs[0]]:
            out_dims[i][outs[0]] = out_dims[i][outs[0]][:-1] + [net["dims_edit"]]
        outputs = ""
        for k, p in enumerate(outs):
            prec = layer.get("precisions", {}).get(p, "I64" if layer["type"] == "Const" else
                                                   ("I32" if k == 1 and (data or {}).get("index_element_type") == "i32"
                                                    else "I64" if k == 1 else "FP32"))
            outputs += f'<port id="{p}" precision="{prec}">{dims(out_dims[i][p])}</port>'
        lines.append(f'<layer id="{layer.get("id", i)}" name="l{i}" type="{layer["type"]}" version="{layer["version"]}">'
                     + layer.get("head_xml", "") + body + (f"<input>{inputs}</input>" if ins else "") + (f"<output>{outputs}</output>" if outs
                                                                              else "") + layer.get("tail_xml", "")
                     + "</layer>")
    lines += ["</layers>", "<edges>"]
    lines += [f'<edge from-layer="{a}" from-port="{_port_ids(net["layers"][a])[1][b] if a < len(net["layers"]) and b < len(_port_ids(net["layers"][a])[1]) else b}"'
              f' to-layer="{c}" to-port="{_port_ids(net["layers"][c])[0][d] if c < len(net["layers"]) and d < len(_port_ids(net["layers"][c])[0]) else d}"/>'
              for a, b, c, d in net["edges"]]
    lines += ["</edges>", "</net>", ""]
    text = "\n".join(lines)
    for old, new in net.get("text_edits", []):
        text = text.replace(old, new, 1)
    path.write_text(text)
    path.with_suffix(".bin").write_bytes(bytes(blob))


# -- edits -------------------------------------------------------------------------------------------------
def _pools(net):
    return [i for i, x in enumerate(net["layers"]) if x["type"] in ("MaxPool", "AvgPool")]


def _edit_graph(rng, net):
    e, layers = net["edges"], net["layers"]
    kind = str(rng.choice(["drop edge", "edge twice", "edge from later", "edge to missing layer",
                           "edge from missing port", "drop parameter", "drop result", "extra port",
                           "unused parameter", "duplicate id"]))
    if kind == "duplicate id":                        # (OpenVINO builds the last layer of an id, and ignores the rest)
        k = int(rng.integers(0, len(layers)))
        twin = copy.deepcopy(layers[k])
        twin["id"] = layers[k].get("id", k)
        if twin["type"] in ("MaxPool", "AvgPool") and rng.random() < 0.5:
            twin["data"]["kernel"] = ",".join(["1"] * len(twin["data"]["kernel"].split(",")))
        layers.append(twin)
        return f"{kind} of {layers[k]['type']}"
    if kind == "unused parameter":                    # (OpenVINO builds every Parameter, used or not)
        et = str(rng.choice(["u3", "u6", "u1", "u2", "string", "nf4", "f32"]))
        layers.append(dict(type="Parameter", version="opset1", data=dict(shape="1,2", element_type=et), outs=1,
                           ins=0))
        return f"{kind} {et}"
    if not e:
        return None
    k = int(rng.integers(0, len(e)))
    if kind == "drop edge":
        e.pop(k)
    elif kind == "edge twice":
        e.append(list(e[k]))
    elif kind == "edge from later":
        a, _, c, d = e[k]
        later = [i for i in range(c + 1, len(layers)) if layers[i]["outs"]]
        if later:
            e[k] = [int(rng.choice(later)), 0, c, d]
    elif kind == "edge to missing layer":
        e.append([e[k][0], e[k][1], 99, 0])
    elif kind == "edge from missing port":
        e[k] = [e[k][0], 7, e[k][2], e[k][3]]
    elif kind == "drop parameter":
        layers[0]["dropped"] = True                    # (its edges stay, naming a layer that is not there)
    elif kind == "drop result":
        rs = [i for i, x in enumerate(layers) if x["type"] == "Result"]
        i = int(rng.choice(rs))
        net["edges"] = [x for x in e if x[2] != i]
    else:
        i = int(rng.integers(1, len(layers)))
        x = layers[i]
        ins, outs = _port_ids(x)
        if rng.random() < 0.5:
            x["in_ports"] = ins + [max(ins + outs, default=0) + 1]
        else:
            x["out_ports"] = outs + [max(ins + outs, default=0) + 1]
    return kind


_GARBAGE = ["", "abc", "-1", "4294967297", "2.5", "+2", " 3", "0", "9223372036854775808", "-9223372036854775809",
            "99999999999999999999"]


def _edit_attribute(rng, net):
    layers = [i for i, x in enumerate(net["layers"]) if x.get("data") and x["type"] not in ("Parameter", "Const")]
    if not layers:
        return None
    x = net["layers"][int(rng.choice(layers))]
    name = str(rng.choice(sorted(x["data"]) + ["dilations", "keep_dims", "exclude-pad", "index_element_type"]))
    choice = rng.random()
    if choice < 0.25 and name in x["data"]:
        del x["data"][name]
        return f"drop {name}"
    values = {"rounding_type": ["floor", "ceil", "ceil_torch", "CEIL", "round"],
              "auto_pad": ["explicit", "valid", "same_upper", "same_lower", "notset", "VALID"],
              "exclude-pad": ["true", "false", "", "yes", "1", "True"],
              "keep_dims": ["true", "false", "", "yes", "0"],
              "index_element_type": ["i32", "i64", "f16", "i8", "u64", "bogus", ""]}.get(name)
    if values is None:
        n = len(x["data"].get("kernel", "1,1").split(","))
        values = [",".join([str(int(rng.integers(0, 4)))] * n), ",".join(["1"] * (n + 1))] + _GARBAGE
        if name.startswith("pads"):                   # (OpenVINO takes some negative pads: irpool/ir/ops/negpads.py)
            values.append(",".join(str(int(v)) for v in rng.integers(-3, 2, size=n)))
    x["data"][name] = str(rng.choice(values))
    return f"{name} value"


def _edit_version(rng, net):
    pools = _pools(net)
    if not pools:
        return None
    x = net["layers"][int(rng.choice(pools))]
    if rng.random() < 0.3:                             # OpenVINO reads a pooling type name in any case
        x["type"] = str(rng.choice([x["type"].lower(), x["type"].upper()]))
        return "type name"
    x["version"] = str(rng.choice(["opset1", "opset8", "opset14", "opset16", "opset99"]))
    return "version"


def _edit_shape(rng, net):
    """A Parameter shape's dim as hands write them: negative, past int64, intervals in any order."""
    dims = net["layers"][0]["data"]["shape"].split(",")
    k = int(rng.integers(0, len(dims)))
    n = int(dims[k]) if dims[k].isdigit() else 4       # (an earlier edit may have made it an interval)
    dims[k] = str(rng.choice(["-3", "-0", "99999999999999999999", "-1..9", f"2..{n + 3}", "+3", "?", "1..", f"..{n}"]))
    net["layers"][0]["data"]["shape"] = ",".join(dims)
    return f"parameter shape {dims[k]}"


def _edit_type(rng, net):
    if rng.random() < 0.2:                             # (OpenVINO takes the producer's type, not the port's)
        x = net["layers"][int(rng.integers(1, len(net["layers"])))]
        x["in_precision"] = str(rng.choice(["F8E4M3", "U1", "BOOL", "STRING", "NF4", "FP16", "I64", "BOGUS"]))
        return "input precision"
    if rng.random() < 0.5:
        net["layers"][0]["data"]["element_type"] = str(rng.choice(TYPES))
        return "parameter element_type"
    i = int(rng.integers(0, len(net["layers"])))
    ins, outs = _port_ids(net["layers"][i])
    if not outs:
        return None
    net["layers"][i].setdefault("precisions", {})[outs[0]] = str(rng.choice(["FP32", "FP16", "fp32", "F32", "U8",
                                                                             "BOGUS", "f32", "I64"]))
    return "output precision"


def _edit_dims(rng, net):
    net["dims_at"] = int(rng.integers(0, len(net["layers"])))
    net["dims_edit"] = str(rng.choice(["?", "-1", "1..5", "", "7", "0", "3.5", "..4"]))
    return f"declared dim {net['dims_edit']!r}"


def _edit_const(rng, net):
    consts = [x for x in net["layers"] if x["type"] == "Const"]
    if not consts:
        return None
    c = consts[int(rng.integers(0, len(consts)))]["const"]
    what = str(rng.choice(["size +8", "size -4", "offset past end"]))
    if what == "size +8":
        c["size"] = 8 * len(c["values"]) + 8
    elif what == "size -4":
        c["size"] = 8 * len(c["values"]) - 4
    else:
        c["offset"] = 4096
    return f"const {what}"


def _edit_xml(rng, net):
    what = str(rng.choice(["version 010", "version 12", "version +11", "data twice", "second input", "second output",
                           "empty output first"]))
    if what.startswith("version"):
        net["version"] = what.split()[1]
    elif what != "data twice":             # OpenVINO reads the first <input> and <output> of a layer
        x = net["layers"][int(rng.integers(0, len(net["layers"])))]
        tag = "input" if what == "second input" else "output"
        port = f'<port id="{40 + int(rng.integers(0, 9))}" precision="FP32"><dim>1</dim></port>'
        if what == "empty output first":
            x["head_xml"] = "<output/>"
        else:
            x["tail_xml"] = f"<{tag}>{port if rng.random() < 0.5 else ''}</{tag}>"
    else:
        pools = _pools(net)
        if not pools:
            return None
        x = net["layers"][int(rng.choice(pools))]
        attrs = "".join(f' {k}="{v}"' for k, v in x["data"].items())
        x["data_xml"] = f"<data{attrs}/><data{attrs.replace('kernel=', 'kernel_=')}/>"
    return what


EDITS = {"graph": _edit_graph, "attribute": _edit_attribute, "version": _edit_version, "type": _edit_type,
         "dims": _edit_dims, "const": _edit_const, "xml": _edit_xml, "shape": _edit_shape}


def edited(rng, net) -> tuple:
    """A copy of `net` with 0 to 3 random edits; (the net, [the edits' names])."""
    net, said = copy.deepcopy(net), []
    for _ in range(int(rng.choice([0, 1, 1, 2, 3]))):
        group = str(rng.choice(sorted(EDITS)))
        name = EDITS[group](rng, net)
        if name:
            said.append(f"{group}: {name}")
    return net, said


# -- OpenVINO's verdict ------------------------------------------------------------------------------------
_ORACLE = textwrap.dedent("""
    import json, sys, openvino as ov
    core = ov.Core()
    for path in sys.argv[1:]:
        try:
            model = core.read_model(path)
            shapes = {op.get_friendly_name(): [str(op.get_output_partial_shape(i)) for i in range(op.get_output_size())]
                      for op in model.get_ordered_ops()}
        except Exception as e:
            print(json.dumps(["refused", "read_model: " + str(e).strip().splitlines()[-1][:200]]), flush=True)
            continue
        try:
            core.compile_model(model, "CPU")
            print(json.dumps(["ok", shapes]), flush=True)
        except Exception as e:
            print(json.dumps(["refused", "compile: " + str(e).strip().splitlines()[-1][:200]]), flush=True)
""")


def openvino_verdicts(paths) -> list:
    """["ok", {layer name: [output shapes]}] or ["refused", message] for each file, read_model + compile in
    child processes; a crash refuses the file it stopped on, and the next process goes on after it."""
    out = []
    while len(out) < len(paths):
        r = subprocess.run([sys.executable, "-c", _ORACLE, *map(str, paths[len(out):])], capture_output=True,
                           text=True)
        out += [json.loads(line) for line in r.stdout.splitlines()]
        if r.returncode and len(out) < len(paths):
            out.append(["refused", f"crashed (exit status {r.returncode})"])
    return out


def inferred_dims(shapes: dict, net: dict) -> dict:
    """{layer index: [[dims of each output]]} from read_model's shapes by layer name (`l{index}`)."""
    out = {}
    for i in range(len(net["layers"])):
        got = shapes.get(f"l{i}")
        if got:
            out[i] = [[d if d != "?" else -1 for d in s.strip("[]").split(",")] if s.strip("[]") else [] for s in got]
    return out
