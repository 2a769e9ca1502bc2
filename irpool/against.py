"""`irpool run ... --against openvino|onnxruntime`: the same layer or node run in the installed runtime on the same
input, in a child process (against_child.py), and its outputs compared with irpool's bit for bit
(against_compare.py). A layer inside a model is run on the model cut at it: its data input made the model's input,
its outputs the model's outputs. The report names the runtime's version and the CPU, and, where the bits differ
in a way docs/exactness.md documents, which case it is (schemas/against.json)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from lxml import etree

from . import cpu as cpu_tiers
from .against_compare import compare, shown
from .errors import IRError
from .outputs import signals_as_exit
from .opdefs import load as load_schema

# runtime -> (the module it needs, its name in the report, how to install it)
RUNTIMES = {
    "openvino": ("openvino", "OpenVINO",
                 "pip install openvino (from irpool's checkout: pip install '.[against-openvino]')"),
    "onnxruntime": ("onnxruntime", "onnxruntime",
                    "pip install onnxruntime (from irpool's checkout: pip install '.[against-onnxruntime]')"),
}
HOW = {"openvino": "read_model + compile_model on CPU with INFERENCE_PRECISION_HINT=f32 + one inference",
       "onnxruntime": "an InferenceSession on the CPUExecutionProvider, default options"}


def _installed(module: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):        # (a module blocked in sys.modules as None)
        return False


def ready(runtime: str, file: str, cpu: str | None) -> None:
    """Refuse (exit 2) what --against cannot do, before anything is computed."""
    from .frontend import kind
    module, name, install = RUNTIMES[runtime]
    if not _installed(module):
        raise IRError(f"--against {runtime}: {name} is not installed: {install}", code="needs-extra")
    if file == "-":
        raise IRError(f"--against {runtime} reads the model from its file: give a path, not standard input")
    if kind(file) == "ir" and runtime == "onnxruntime":
        raise IRError(f"--against onnxruntime runs .onnx models; {file} is OpenVINO IR: use --against openvino")
    _isa_limit(cpu)


def _isa_limit(cpu: str | None) -> str | None:
    """The ONEDNN_MAX_CPU_ISA the runtime is run under for --cpu TIER (None for the host); a tier above this
    machine's cannot be run here."""
    name = cpu_tiers.choose(cpu)
    if name == cpu_tiers.HOST:
        return None
    if name == cpu_tiers.ALL:
        raise IRError("--cpu all: run computes for one CPU tier; name it (host, or a tier)")
    host = cpu_tiers.host()
    if host is None or name not in host.isas:
        raise IRError(f"--against --cpu {name}: this machine's CPU tier is {host.name if host else 'unknown'};"
                      f" the runtime can be run here at that tier or below it (ONEDNN_MAX_CPU_ISA), not at {name}")
    return cpu_tiers.named(name).onednn


def machine() -> str:
    """The CPU as lscpu names it, and the flags that decide the plugin's kernels and precisions."""
    info = {}
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if not line.strip():
                    break                           # (the first processor is every processor's model)
                key, _, value = line.partition(":")
                info[key.strip()] = value.strip()
    except OSError:
        return "unknown (no /proc/cpuinfo)"
    flags = set(info.get("flags", "").split())
    has = ", ".join(f"{f} {'yes' if f in flags else 'no'}" for f in ("avx512f", "avx512_bf16"))
    amx = "yes" if any(f.startswith("amx") for f in flags) else "no"
    return (f"{info.get('model name', '?')} ({info.get('vendor_id', '?')}, family {info.get('cpu family', '?')}"
            f" model {info.get('model', '?')}): {has}, amx {amx}")


def _write_inputs(folder: str, inputs: dict) -> dict:
    """The inputs as the child reads them: raw arrays (ml_dtypes' by their bits) and their type names."""
    arrays, spec = {}, []
    for i, (name, a) in enumerate(inputs.items()):
        a = np.asarray(a)
        arrays[f"a{i}"] = a if a.dtype.kind in "biufc" else a.view(np.dtype(f"u{a.dtype.itemsize}"))
        spec.append([name, f"a{i}", a.dtype.name])
    path = os.path.join(folder, "inputs.npz")
    np.savez(path, **arrays)
    return {"file": path, "arrays": spec}


def _one_node(program, x: np.ndarray, folder: str) -> str:
    """An .onnx file of the one pooling node `program` runs: its input X typed and shaped as `x`, its outputs the
    model's outputs, its domain imported at the model's version."""
    from onnx import helper, save
    n = program.pool
    inp = helper.make_tensor_value_info(n.node.input[0], helper.np_dtype_to_tensor_dtype(x.dtype), list(x.shape))
    outs = [helper.make_empty_tensor_value_info(o) for o in program.output_names]
    graph = helper.make_graph([n.node], "irpool_against_node", [inp], outs)
    opsets = [helper.make_opsetid(n.domain, n.opset)] + ([helper.make_opsetid("", 19)] if n.domain else [])
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = helper.find_min_ir_version_for(opsets, ignore_unknown=True)
    path = os.path.join(folder, "node.onnx")
    save(model, path)
    return path


def _request(runtime, file, program, inputs, layer, bin, folder) -> dict:  # noqa: A002
    """What the child runs: the model file, the layer to cut it at, the inputs keyed as the runtime takes them."""
    from .frontend import kind
    if kind(file) == "onnx":
        x = np.asarray(next(iter(inputs.values())))
        return {"model": _one_node(program, x, folder), "cut": None,
                "inputs": _write_inputs(folder, {program.pool.node.input[0]: x})}
    from .ir.ops.consts import bin_path
    if program.snippet is not None and layer is None:
        x = np.asarray(next(iter(inputs.values())))
        return {"model": _in_a_net(file, x, program.output_names, folder), "cut": None,
                "inputs": _write_inputs(folder, {"0": x})}
    weights = bin_path(bin, file)
    cut = None if layer is None else {"name": program.snippet.name, "type": program.snippet.type}
    return {"model": os.path.abspath(file), "weights": weights if weights and os.path.isfile(weights) else None,
            "cut": cut, "inputs": _write_inputs(folder, inputs)}


def _bare(file: str) -> bool:
    """Whether `file` is a bare <layer> (its root element; the file was read by irpool already), which OpenVINO reads
    only in a net (_in_a_net)."""
    for _, el in etree.iterparse(file, events=("start",), resolve_entities=False, no_network=True):
        return el.tag == "layer"
    return False


def _in_a_net(file: str, x: np.ndarray, names: list, folder: str) -> str:
    """A bare <layer> file, which OpenVINO does not read, as the net it reads: a Parameter "0" typed and shaped
    as `x` feeding the layer's first input port, a Result named by each output port's id (as irpool keys them)."""
    from .ir.read.element_types import of_dtype
    layer = etree.parse(file).getroot()
    element = of_dtype(x.dtype)
    if element is None:
        raise IRError(f"--against: OpenVINO has no element type for an input of {x.dtype}")
    dims = "".join(f"<dim>{d}</dim>" for d in x.shape)
    lid = layer.get("id")
    free = int(lid) + 1 if lid and lid.isdigit() else 0           # (read_model takes numeric ids only)
    parts = [f'<net name="irpool_against" version="11"><layers><layer id="{free}" name="0" type="Parameter"'
             f' version="opset1"><data shape="{",".join(map(str, x.shape))}" element_type="{element.name}"/>'
             f'<output><port id="0" precision="{element.precision}">{dims}</port></output></layer>']
    for port in layer.findall("output/port"):
        port.set("precision", port.get("precision") or "FP32")    # (read_model needs one; the op's type wins)
    parts += [etree.tostring(layer, encoding="unicode", with_tail=False)]
    first = layer.find("input/port").get("id")
    edges = [f'<edge from-layer="{free}" from-port="0" to-layer="{lid}" to-port="{first}"/>']
    for i, port in enumerate(layer.findall("output/port")):
        rid = free + 1 + i
        dims = "".join(etree.tostring(d, encoding="unicode", with_tail=False) for d in port.findall("dim"))
        parts.append(f'<layer id="{rid}" name="{names[i] if i < len(names) else rid}" type="Result" version="opset1">'
                     f'<input><port id="0">{dims}</port></input></layer>')
        edges.append(f'<edge from-layer="{lid}" from-port="{port.get("id")}" to-layer="{rid}" to-port="0"/>')
    path = os.path.join(folder, "layer_in_a_net.xml")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts) + "</layers><edges>" + "".join(edges) + "</edges></net>")
    return path


_CHILD = "import sys; sys.path.insert(0, sys.argv.pop(1)); from irpool.against_child import main; main()"


def _ask(runtime: str, request: dict, folder: str, isa: str | None) -> dict:
    """Run the child (under ONEDNN_MAX_CPU_ISA=`isa`, if any); its answer: {"version", "outputs": [[names, array,
    type]], "refused"?, "crashed"?}."""
    request = dict(request, runtime=runtime, answer=os.path.join(folder, "answer"))
    path = os.path.join(folder, "request.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(request, f)
    env = dict(os.environ)
    if isa:
        env["ONEDNN_MAX_CPU_ISA"] = isa
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    proc = subprocess.run([sys.executable, "-c", _CHILD, package_parent, path], env=env, capture_output=True,
                          text=True)
    if proc.returncode or not os.path.isfile(request["answer"] + ".json"):
        tail = " ".join(proc.stderr.split())[-400:]
        return {"version": "?", "outputs": [], "crashed": f"exit status {proc.returncode}: {tail}"}
    with open(request["answer"] + ".json", encoding="utf-8") as f:
        answer = json.load(f)
    with np.load(request["answer"] + ".npz", allow_pickle=False) as data:
        for entry in answer["outputs"]:
            from .dtypes import dtype_named
            a = data[entry[1]]
            entry[1] = a if a.dtype.name == entry[2] else a.view(dtype_named(entry[2]))
    return answer


def against(runtime: str, file: str, program, inputs: dict, ours: dict, *, layer=None, bin=None,  # noqa: A002
            cpu=None, out=None) -> int:
    """Run `runtime` on what irpool ran (`ours`: its outputs) and print the comparison: 0 equal bits, 1 not."""
    out = out or sys.stdout
    if layer is not None and program_kind(file) == "ir" and _bare(file):
        layer = None            # (--layer on a bare <layer> names the layer itself: run in a net, as without it)
    if layer is not None and getattr(program, "layout", "planar") != "planar":
        ours = _as_cut(program, inputs, ours, out)
    isa = _isa_limit(cpu) if runtime == "openvino" else None     # (oneDNN's limit: OpenVINO's alone)
    with signals_as_exit(), tempfile.TemporaryDirectory(prefix="irpool-against-") as folder:   # (SIGTERM: removed)
        answer = _ask(runtime, _request(runtime, file, program, inputs, layer, bin, folder), folder, isa)
    name = RUNTIMES[runtime][1]
    print(f"against {name} {answer['version']}: {HOW[runtime]}" + (f", ONEDNN_MAX_CPU_ISA={isa}" if isa else "")
          + _what_ran(program, file, layer),
          file=out)
    print(f"CPU: {machine()}", file=out)
    for what in ("refused", "crashed"):
        if what in answer:
            print(f"{name} {'refuses it' if what == 'refused' else 'crashed'}: {answer[what]}", file=out)
            return 1
    ours = _undropped(ours, answer.get("dropped"), name, out)
    comparisons = _pair(ours, answer["outputs"], layer is not None or program_kind(file) == "onnx")
    for key, c in comparisons:
        _print_one(key, c, name, out)
    kinds = set().union(*(c.kinds for _, c in comparisons if c is not None)) if comparisons else set()
    if any(c is None for _, c in comparisons):
        kinds.add("shape")
    if not kinds:
        print(f"irpool and {name} agree bit for bit", file=out)
        return 0
    case = documented(runtime, program_kind(file), context(program, ours, inputs), kinds)
    print(f"documented: {case}" if case else "not one of the documented differences (schemas/against.json): please"
          " report it", file=out)
    return 1


def _undropped(ours: dict, dropped, name: str, out) -> dict:
    """Our outputs but those the runtime's cut left out (against_child._compiled_cut: the model reads none of them,
    and the plugin refuses the cut that gives them), each said not compared, and why."""
    if not dropped:
        return ours
    for key in list(ours)[dropped["from"]:]:
        print(f"{key}: not compared: the model reads no edge from this output, and {name} refuses the layer cut with"
              f" it as an output ({dropped['why']}); the layer is compared without it", file=out)
    return dict(list(ours.items())[: dropped["from"]])


def _as_cut(program, inputs, ours: dict, out) -> dict:
    """The runtime is given the layer cut from its model, its data input a Parameter, and the plugin keeps a global
    ReduceMean/ReduceMax after a Parameter planar (schemas/openvino.json reduce_layout), where in the model its
    producer made it channels-last: the comparison is with what irpool computes for the graph the runtime ran."""
    layout, program.layout = program.layout, "planar"
    try:
        cut = inputs.run(program, None)
    finally:
        program.layout = layout
    if all(a.tobytes() == cut[k].tobytes() for k, a in ours.items()):
        return ours                                     # (an adaptive pool: the order is the layout's own)
    print(f"(in its model this layer's input is {layout.replace('_', '-')}, which changes the order of its additions;"
          " the runtime is given it cut from the model, where its input is planar: compared in that order)", file=out)
    return cut


def program_kind(file: str) -> str:
    from .frontend import kind
    return kind(file)


def _what_ran(program, file: str, layer) -> str:
    if program_kind(file) == "onnx":
        return f"; node {program.pool.name!r} ({program.pool.node.op_type}) as a one-node model"
    s = program.snippet
    if s is None:
        return ""
    return f"; the model cut at layer id={s.id} name={s.name!r} ({s.type})" if layer is not None else \
        f"; the bare layer id={s.id} name={s.name!r} ({s.type}) in a net"


def _pair(ours: dict, theirs: list, by_order: bool) -> list:
    """[(output name, Comparison or None where the runtime gives no such output)]: by order for a cut layer or a
    node, else by Result name (or a name of its tensor)."""
    out = []
    for i, (key, a) in enumerate(ours.items()):
        if by_order:
            match = theirs[i] if i < len(theirs) else None
        else:
            match = next((t for t in theirs if key in t[0]), None)
        out.append((key, None if match is None else compare(a, match[1])))
    return out


def _print_one(key: str, c, name: str, out) -> None:
    if c is None:
        print(f"{key}: {name} gives no such output", file=out)
        return
    if c.problem is not None:
        print(f"{key}: {c.problem.replace('the runtime', name)}", file=out)
        return
    if c.equal:
        print(f"{key}: {'equal bits' if c.floating else 'equal'} ({c.size} elements)", file=out)
        return
    parts = []
    rest = c.differ - c.nan - c.zero_sign
    if rest:
        unit = (" ulp" if c.largest == 1 else " ulps") if c.floating else ""
        parts.append(f"{rest} by up to {c.largest}{unit}")
    if c.nan:
        parts.append(f"{c.nan} NaN on one side only")
    if c.zero_sign:
        parts.append(f"{c.zero_sign} -0.0 against +0.0")
    print(f"{key}: {c.differ} of {c.size} elements differ: {', '.join(parts)}", file=out)
    for at, o, t in c.positions:
        print(f"  at {list(at)}: irpool {shown(o)}, {name} {shown(t)}", file=out)


def context(program, ours: dict, inputs=None) -> dict:
    """What a documented case is told apart by: the op type, its opset, how many outputs, its spatial ranks, an ONNX
    node's attributes, what the inputs hold (NaN, a zero: crash hunt 3 found cases named whose conditions did not
    hold)."""
    attrs = {}
    if hasattr(program, "pool"):
        from .onnx.attributes import node_attrs
        op, opset, attrs = program.pool.node.op_type, program.pool.opset, node_attrs(program.pool.node)
    elif program.snippet is not None:
        op, opset = program.snippet.type, None
    else:
        op, opset = None, None
    arrays = [np.asarray(a) for a in (inputs or {}).values()]
    holds = {"nan"} if any(a.dtype.kind == "f" and np.isnan(a).any() for a in arrays) else set()
    holds |= {"zero"} if any(a.dtype.kind in "fiu" and (a == 0).any() for a in arrays) else set()
    first = np.asarray(next(iter(ours.values()))) if ours else np.zeros(0)
    spatial = {f"{first.ndim - 2}d"} if first.ndim > 2 else set()
    if first.ndim > 2 and all(d == 1 for d in first.shape[2:]):
        spatial.add("global")
    return {"type": op, "opset": opset, "outputs": len(ours), "spatial": spatial, "attrs": attrs, "holds": holds,
            "dtypes": {a.dtype.name for a in arrays}}


def documented(runtime: str, front_end: str, ctx: dict, kinds: set) -> str | None:
    """The documented case (schemas/against.json) that allows every way the outputs differ, in words."""
    for case in load_schema("against")["cases"]:
        if (case["runtime"], case["front_end"]) != (runtime, front_end) or ctx["type"] not in case["types"]:
            continue
        if "below_opset" in case and not (ctx["opset"] is not None and ctx["opset"] < case["below_opset"]):
            continue
        if case.get("outputs", ctx["outputs"]) != ctx["outputs"]:
            continue
        if "spatial" in case and not ctx["spatial"] & set(case["spatial"]) or not _conditions_hold(case, ctx):
            continue
        if kinds <= set(case["kinds"]):
            return f"{_text(case)} ({case['see']})"
    return None


def _conditions_hold(case: dict, ctx: dict) -> bool:
    """A case's attrs, nonzero and input_has, against the node and the inputs (schemas/against.json's _about)."""
    attrs = ctx.get("attrs", {})
    return all(attrs.get(k, 0) == v for k, v in case.get("attrs", {}).items()) and \
        all(any(attrs.get(k) or ()) for k in case.get("nonzero", ())) and \
        ("input_has" not in case or bool(ctx.get("holds", set()) & set(case["input_has"]))) and \
        ("dtypes" not in case or bool(ctx.get("dtypes", set()) & set(case["dtypes"])))


def _text(case: dict) -> str:
    if "text" in case:
        return case["text"]
    schema, _, path = case["from"].partition(":")
    value = load_schema(schema)
    for key in path.split("."):
        value = value[key]
    return value
