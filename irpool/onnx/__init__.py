"""ONNX MaxPool, AveragePool, LpPool and their Global forms (every opset), and the pooling ops onnxruntime
registers in com.ms.internal.nhwc, on the shared core.

    irpool.onnx.run(op_type, x, attrs, *, opset, domain="", outputs=1) -> list of arrays
    irpool.onnx.compile(op_type, attrs, *, opset, domain="", outputs=1).run(x) -> the same, attributes read once

Never imports the onnx package: an `onnx.NodeProto` is read through its fields (duck typing).
"""
from .translate import NHWC, Node, compile, node_attrs, op_version, run, to_spec

__all__ = ["NHWC", "Node", "compile", "node_attrs", "op_version", "run", "to_spec"]
