"""The runtime's side of `irpool run --against`, run in a child process (a crash in the runtime is a report, not
the end of irpool): read a request (the model, the layer to cut at, the inputs), run OpenVINO's CPU plugin or an
onnxruntime session on it, and write the outputs and the runtime's version. Only openvino, onnxruntime and numpy
are imported here: no irpool rule is used to compute the runtime's answer.

    python -c "from irpool.against_child import main; main()" REQUEST.json
"""
from __future__ import annotations

import json
import sys

import numpy as np


def _openvino_cut(ov, model, cut: dict, x: np.ndarray, unread: bool = True):
    """`model` cut at one layer (found by its IR name, then type): a new Parameter in place of the layer's data
    input (it feeds whatever read that tensor, so a shape subgraph computed from it, as Model Optimizer 2021.4
    wrote, still folds), the layer's outputs the model's outputs (but an AdaptiveMaxPool's indices that nothing reads:
    the plugin then runs it as a ReduceMax; with `unread` false, no output past the first that nothing reads); its
    other inputs (shape Consts) kept."""
    named = [n for n in model.get_ordered_ops() if n.get_friendly_name() == cut["name"]]
    if len(named) > 1:
        named = [n for n in named if n.get_type_name() == cut["type"]]
    if len(named) != 1:
        raise LookupError(f"read_model gives {len(named)} operations named {cut['name']!r} of type {cut['type']}"
                          " (OpenVINO keeps a layer's name, not its id): cannot tell which to cut at")
    node = named[0]
    outputs = [o for i, o in enumerate(node.outputs())
               if i == 0 or o.get_target_inputs() or (unread and not _to_reduce(node))]
    source = node.input(0).get_source_output()
    element = source.get_element_type()
    if element.is_dynamic():
        element = ov.Type(x.dtype)
    param = ov.opset1.parameter(list(x.shape), element, name="0")
    for target in list(source.get_target_inputs()):
        target.replace_source_output(param.output(0))
    return ov.Model(outputs, [param], "irpool_against_cut")


def _to_reduce(node) -> bool:
    """An AdaptiveMaxPool whose output dims are all 1: with its indices unread the plugin runs it as a ReduceMax
    (AdaptivePoolToReduce), and irpool's run too; its cut keeps them unread."""
    shape = node.get_output_partial_shape(0)
    return node.get_type_name() == "AdaptiveMaxPool" and shape.rank.is_static and \
        all(d.is_static and d.get_length() == 1 for d in list(shape)[2:])


def _feed_openvino(model, inputs: dict) -> dict:
    """{Parameter: array}: each Parameter's input by its name or one of its tensor names (as irpool takes -i)."""
    fed = {}
    for p in model.get_parameters():
        names = {p.get_friendly_name(), *p.output(0).get_names()}
        key = next((k for k in inputs if k in names), None)
        if key is None:
            raise LookupError(f"no input given for Parameter {p.get_friendly_name()!r}")
        fed[p.output(0)] = inputs[key]
    return fed


def run_openvino(request: dict, inputs: dict) -> tuple:
    """read_model + compile_model on CPU with INFERENCE_PRECISION_HINT=f32 (what irpool's run computes: see
    docs/exactness.md) + one inference: [(output name, (array, type name))]."""
    import openvino as ov
    core = ov.Core()

    def read():
        weights = request.get("weights")
        return core.read_model(request["model"], weights) if weights else core.read_model(request["model"])
    model, cut, extra = read(), request.get("cut"), {}
    if cut is not None:
        model, compiled, extra = _compiled_cut(ov, core, read, cut, next(iter(inputs.values())))
        names = [[str(i)] for i in range(len(model.outputs))]
    else:
        names = [[r.get_friendly_name(), *r.input(0).get_source_output().get_names()] for r in model.get_results()]
        compiled = core.compile_model(model, "CPU", _HINT)
    request_ = compiled.create_infer_request()
    fed = _feed_openvino(model, inputs) if cut is None else {model.get_parameters()[0].output(0): _only(inputs)}
    for port, array in fed.items():
        request_.set_tensor(port, _ov_tensor(ov, array, port.get_element_type()))
    request_.infer()
    outs = [_from_ov(ov, request_.get_output_tensor(i)) for i in range(len(compiled.outputs))]
    return list(zip(names, outs)), extra


_HINT = {"INFERENCE_PRECISION_HINT": "f32"}


def _compiled_cut(ov, core, read, cut: dict, x) -> tuple:
    """(cut model, compiled, what the answer adds): the layer with every output it has, or, where the plugin refuses
    that (a bf16 MaxPool-8's indices where bf16 is native), with those the model reads: the answer's "dropped" says
    how many outputs were left out, and why."""
    model = _openvino_cut(ov, read(), cut, x)
    try:
        return model, core.compile_model(model, "CPU", _HINT), {}
    except RuntimeError as e:
        narrow = _openvino_cut(ov, read(), cut, x, unread=False)
        if len(narrow.outputs) == len(model.outputs):
            raise
        dropped = {"from": len(narrow.outputs), "why": " ".join(str(e).split())[:1000]}
        return narrow, core.compile_model(narrow, "CPU", _HINT), {"dropped": dropped}


def _ov_tensor(ov, array: np.ndarray, element):
    """The input as an OpenVINO tensor of the Parameter's type (bf16 by its bits: numpy has no bfloat16)."""
    if element == ov.Type.bf16 and array.dtype.name == "bfloat16":
        t = ov.Tensor(element, ov.Shape(list(array.shape)))
        t.data.view(np.uint16)[...] = np.ascontiguousarray(array).view(np.uint16)
        return t
    return ov.Tensor(np.ascontiguousarray(array))


def _from_ov(ov, tensor) -> tuple:
    """(array, element type name as numpy or ml_dtypes names it): bf16 comes back by its bits."""
    data = np.array(tensor.data, copy=True)
    if tensor.element_type == ov.Type.bf16:
        return data.view(np.uint16), "bfloat16"
    return data, data.dtype.name


def _only(inputs: dict) -> np.ndarray:
    return next(iter(inputs.values()))


def run_onnxruntime(request: dict, inputs: dict) -> tuple:
    """An InferenceSession on the CPUExecutionProvider, default options: [(output name, (array, type name))]."""
    import onnxruntime as ort
    ort.set_default_logger_severity(3)
    session = ort.InferenceSession(request["model"], providers=["CPUExecutionProvider"])
    feed = {i.name: inputs.get(i.name, _only(inputs)) for i in session.get_inputs()}
    names = [o.name for o in session.get_outputs()]
    outs = session.run(names, feed)
    return [([n], (np.asarray(a), np.asarray(a).dtype.name)) for n, a in zip(names, outs)], {}


def _version(runtime: str) -> str:
    if runtime == "openvino":
        import openvino as ov
        return ov.get_version()
    import onnxruntime as ort
    return ort.__version__


def _read_inputs(spec: dict) -> dict:
    """The inputs the parent wrote: raw arrays with their type names (ml_dtypes' by their bits, never pickled)."""
    arrays = {}
    with np.load(spec["file"], allow_pickle=False) as data:
        for name, key, dtype in spec["arrays"]:
            a = data[key]
            if a.dtype.name != dtype:
                import ml_dtypes
                a = a.view(getattr(ml_dtypes, dtype))
            arrays[name] = a
    return arrays


def main() -> None:
    with open(sys.argv[1], encoding="utf-8") as f:
        request = json.load(f)
    inputs = _read_inputs(request["inputs"])
    answer = {"outputs": [], "version": _version(request["runtime"])}
    try:
        run = run_openvino if request["runtime"] == "openvino" else run_onnxruntime
        outs, extra = run(request, inputs)
        answer.update(extra)
    except Exception as e:          # noqa: BLE001 (each runtime raises its own types: its refusal is the answer)
        answer["refused"] = " ".join(str(e).split())[:2000]
        outs = []
    arrays = {}
    for i, (name, (array, dtype)) in enumerate(outs):
        arrays[f"a{i}"] = array
        answer["outputs"].append([name, f"a{i}", dtype])
    np.savez(request["answer"] + ".npz", **arrays)
    with open(request["answer"] + ".json", "w", encoding="utf-8") as f:
        json.dump(answer, f)


if __name__ == "__main__":
    main()
