"""ONNX MaxPool, AveragePool, LpPool and their Global forms (every opset), and the pooling ops onnxruntime
registers in com.ms.internal.nhwc, on the shared core.

    irpool.onnx.run(op_type, x, attrs, *, opset, domain="", outputs=1) -> list of arrays
    irpool.onnx.compile(op_type, attrs, *, opset, domain="", outputs=1).run(x) -> the same, attributes read once

(irpool.onnx.node.run and .compile: the same, by the name of what they take: one node, not a model file. A
model file goes through irpool.check, irpool.explain, irpool.load and irpool.run, for both front ends.)

Never imports the onnx package: an `onnx.NodeProto` is read through its fields (duck typing).
"""
from . import node
from .attributes import NHWC, OPS, node_attrs, op_version, to_spec
from .node import Node, compile, run

__all__ = ["NHWC", "OPS", "Node", "compile", "node", "node_attrs", "op_version", "run", "to_spec"]
