"""ONNX MaxPool, AveragePool, LpPool and their Global forms (every opset), and the pooling ops onnxruntime
registers in com.ms.internal.nhwc, on the shared core.

    irpool.onnx.run(op_type, x, attrs, *, opset, domain="", outputs=1) -> list of arrays

Never imports the onnx package: an `onnx.NodeProto` is read through its fields (duck typing).
"""
from .translate import NHWC, node_attrs, op_version, run, to_spec

__all__ = ["NHWC", "node_attrs", "op_version", "run", "to_spec"]
