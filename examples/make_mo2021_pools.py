"""Write examples/mo2021_pools.xml and .bin as Model Optimizer 2021.4 writes an ONNX model: IR v10, each global
pool a ReduceMean or ReduceMax whose axes are Range(2, Squeeze(ShapeOf(ShapeOf(x)), [0]), 1), not a Const
(irpool folds them: irpool/ir/ops/fold.py). Model Optimizer 2021.4 runs on Python 3.8, with onnx 1.10:

    python3.8 -m venv mo21 && mo21/bin/pip install --no-deps openvino-dev==2021.4.2
    mo21/bin/pip install openvino==2021.4.2 onnx==1.10.2 "protobuf<3.21" "networkx~=2.5" defusedxml "numpy<1.20"
    mo21/bin/python examples/make_mo2021_pools.py
"""
import pathlib
import subprocess
import sys
import tempfile

import onnx
from onnx import TensorProto as T
from onnx import helper as h

HERE = pathlib.Path(__file__).parent

if __name__ == "__main__":
    graph = h.make_graph([
        h.make_node("MaxPool", ["x"], ["pooled"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
        h.make_node("AveragePool", ["x"], ["averaged"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1),
        h.make_node("GlobalAveragePool", ["pooled"], ["mean"]),
        h.make_node("GlobalMaxPool", ["x"], ["max"]),
        h.make_node("GlobalAveragePool", ["v"], ["volume_mean"]),
        h.make_node("GlobalMaxPool", ["s"], ["sequence_max"]),
    ], "mo2021_pools", [h.make_tensor_value_info("x", T.FLOAT, [1, 16, 9, 11]),
                        h.make_tensor_value_info("v", T.FLOAT, [2, 3, 4, 5, 6]),
                        h.make_tensor_value_info("s", T.FLOAT, [1, 8, 13])],
        [h.make_tensor_value_info(o, T.FLOAT, None)
         for o in ("averaged", "mean", "max", "volume_mean", "sequence_max")])
    model = h.make_model(graph, opset_imports=[h.make_opsetid("", 11)])
    model.ir_version = 6
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp, "mo2021_pools.onnx")
        onnx.save(model, str(path))
        subprocess.run([str(pathlib.Path(sys.executable).with_name("mo")), "--input_model", str(path),
                        "--output_dir", str(HERE)], check=True)
    (HERE / "mo2021_pools.mapping").unlink(missing_ok=True)
