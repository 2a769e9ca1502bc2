"""What the installed runtimes do with one ONNX pooling node, measured by running them: onnxruntime's kernel
(the array a session gives), onnxruntime's graph resolution (a Shape of the output, folded with the default
optimizations), ONNX's shape inference (strict), and OpenVINO's ONNX frontend (read_model + compile + infer).
The tests judge irpool's verdicts against these, never against irpool's own numbers."""
from __future__ import annotations

import os
import tempfile

import numpy as np

onnx = __import__("pytest").importorskip("onnx")
ort = __import__("pytest").importorskip("onnxruntime")
from onnx import helper as h  # noqa: E402

ort.set_default_logger_severity(3)
NP = {1: np.float32, 2: np.uint8, 3: np.int8, 10: np.float16, 11: np.float64}


def model(op: str, version: int, attrs: dict, shape, *, elem=1, declared=None, indices=False, shape_of=False,
          name="pool"):
    """A one-node model; the output declared with `declared` dims (None: no shape)."""
    outs = ["y", "i"] if indices else ["y"]
    nodes = [h.make_node(op, ["x"], outs, name=name, **attrs)]
    graph_out = [h.make_tensor_value_info("y", elem, declared)]
    if indices:
        graph_out.append(h.make_tensor_value_info("i", 7, declared))
    if shape_of:
        nodes.append(h.make_node("Shape", ["y"], ["s"]))
        graph_out = [h.make_tensor_value_info("s", 7, None)]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", elem, list(shape))], graph_out)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", version)])
    m.ir_version = 8
    return m


def session(m, optimize=True):
    o = ort.SessionOptions()
    if not optimize:
        o.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(m.SerializeToString(), o, providers=["CPUExecutionProvider"])


def ort_kernel(m, x):
    """onnxruntime's outputs, or the exception text when a session refuses the model."""
    try:
        return session(m).run(None, {"x": x})
    except Exception as e:          # noqa: BLE001 (onnxruntime raises its own types)
        return str(e)


def ort_graph(op, version, attrs, x):
    """The output shape onnxruntime's graph resolution believes: a Shape of it, folded by the optimizer."""
    try:
        return tuple(int(v) for v in session(model(op, version, attrs, x.shape, shape_of=True)).run(None, {"x": x})[0])
    except Exception as e:          # noqa: BLE001
        return str(e)


def onnx_inferred(m):
    try:
        out = onnx.shape_inference.infer_shapes(m, strict_mode=True).graph.output[0]
    except Exception as e:          # noqa: BLE001
        return str(e)
    dims = out.type.tensor_type.shape.dim
    return tuple(d.dim_value for d in dims) if out.type.tensor_type.HasField("shape") else None


def openvino(m, x):
    """OpenVINO's outputs (read_model of the .onnx, compiled for CPU), or the exception text."""
    import openvino as ov
    fd, path = tempfile.mkstemp(suffix=".onnx")
    os.close(fd)
    try:
        onnx.save(m, path)
        core = ov.Core()
        c = core.compile_model(core.read_model(path), "CPU")
        r = c({0: x})
        return [r[o] for o in c.outputs]
    except Exception as e:          # noqa: BLE001
        return str(e)
    finally:
        os.remove(path)


def ort_run(op, x, attrs, opset, outputs):
    """The outputs an onnxruntime session (one thread) gives of one node at `opset` on array `x`."""
    et = h.np_dtype_to_tensor_dtype(x.dtype)
    names = ["y", "i"][:outputs]
    node = h.make_node(op, ["x"], names, **attrs)
    outs = [h.make_tensor_value_info("y", et, None)]
    if outputs == 2:
        outs.append(h.make_tensor_value_info("i", onnx.TensorProto.INT64, None))
    graph = h.make_graph([node], "g", [h.make_tensor_value_info("x", et, None)], outs)
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", opset)], ir_version=10)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, {"x": x})


def plan_pads(spec, spatial):
    """irpool's pads per axis, ([begin...], [end...]), of a spec on these spatial dims."""
    from irpool.core import plan
    plans = plan(spec, (1, 1) + tuple(spatial))
    return [p.pad_begin for p in plans], [p.pad_end for p in plans]


def mlas_global(kernel, strides, pads, spatial) -> bool:
    """Where MLAS (float MaxPool without Indices or dilations, float AveragePool 7-18) takes its global kernel,
    which reduces in an order of its own: the kernel is the input, every stride 1, every pad 0 (MlasPool)."""
    return list(kernel) == list(spatial) and set(strides) <= {1} and not any(pads)


def adds_in_order(version, x, spec) -> bool:
    """Where onnxruntime's AveragePool adds a window's elements one at a time in row-major order from +0.0, as the
    core does (bit for bit): from version 19 (its own loop), before it with both ceil_mode and count_include_pad
    (its own loop too, measured), and in 1-D (MLAS's 1-D kernel) unless MLAS takes its global kernel. The other
    float32 averages before 19 run MLAS's kernels, whose order irpool.onnx.run follows (`mlas_average`)."""
    spatial = x.shape[2:]
    return version >= 19 or spec.rounding != "floor" and spec.count == "include_onnx" or \
        (x.ndim == 3 and not mlas_global(spec.kernel, spec.strides, sum(plan_pads(spec, spatial), []), spatial))


def mlas_average(op, version, x, attrs) -> bool:
    """Where onnxruntime averages through MlasPool (a float32 AveragePool before version 19 without both ceil_mode
    and count_include_pad, or GlobalAveragePool) and irpool.onnx.run follows MLAS's order (core/mlas_pool.py)."""
    if x.dtype != np.float32 or not 3 <= x.ndim <= 5:
        return False
    both = attrs.get("ceil_mode", 0) and attrs.get("count_include_pad", 0)
    return op == "GlobalAveragePool" or op == "AveragePool" and version < 19 and not both
