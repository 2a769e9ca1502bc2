"""Build pooling layers with openvino's own Python API: the independent side of the differential tests.

A layer configuration is a plain dict (op, version, attributes, input dtype and shape); `ov_model` turns it
into an openvino.Model, `ov_outputs` runs it on OpenVINO's CPU plugin in f32 inference precision.
"""
from __future__ import annotations

import numpy as np

OV_TYPES = {"float32": "f32", "float16": "f16", "int32": "i32", "uint8": "u8", "int8": "i8", "int64": "i64",
            "float64": "f64"}
VERSIONS = {"MaxPool": (1, 8, 14), "AvgPool": (1, 14, 16)}


def random_config(rng: np.random.Generator, *, dynamic: bool = False) -> dict:
    op = str(rng.choice(["MaxPool", "AvgPool"]))
    version = int(rng.choice(VERSIONS[op]))
    nd = int(rng.integers(1, 4))
    spatial = [int(v) for v in rng.integers(1, 9 if nd < 3 else 6, size=nd)]
    cfg = dict(op=op, version=version,
               shape=[int(rng.integers(1, 3)), int(rng.integers(1, 4))] + spatial,
               kernel=[int(v) for v in rng.integers(1, 4, size=nd)],
               strides=[int(v) for v in rng.integers(1, 4, size=nd)],
               pads_begin=[int(v) for v in rng.integers(0, 3, size=nd)],
               pads_end=[int(v) for v in rng.integers(0, 3, size=nd)],
               auto_pad=str(rng.choice(["explicit", "same_upper", "same_lower", "valid"])),
               rounding_type=str(rng.choice(["floor", "ceil"] + (["ceil_torch"] if version >= 14 else []))))
    if (op, version) in (("MaxPool", 8), ("MaxPool", 14), ("AvgPool", 16)):
        cfg["dilations"] = [int(v) for v in rng.integers(1, 3, size=nd)]
    if op == "MaxPool":
        cfg["dtype"] = str(rng.choice(["float32", "float16", "int32", "uint8"]))
        if version >= 8:
            cfg["index_element_type"] = str(rng.choice(["i32", "i64"]))
            cfg["axis"] = int(rng.integers(-(nd + 2), nd + 2))
    else:
        cfg["dtype"] = str(rng.choice(["float32", "float16"]))
        cfg["exclude_pad"] = bool(rng.integers(0, 2))
    if dynamic:
        cfg["dynamic_axes"] = [int(a) for a in rng.choice(nd + 2, size=int(rng.integers(1, 3)), replace=False)]
    return cfg


def ov_model(cfg: dict):
    import openvino as ov
    import openvino.opset1 as o1
    shape = list(cfg["shape"])
    for a in cfg.get("dynamic_axes", []):
        shape[a] = -1
    param = o1.parameter(ov.PartialShape(shape), np.dtype(cfg["dtype"]), name="x")
    node = pool_node(cfg, param)
    node.set_friendly_name("pool")
    return ov.Model([node.output(i) for i in range(node.get_output_size())], [param], "pool_model")


def pool_node(cfg: dict, source):
    """The pooling node `cfg` describes, on `source` (a node or an output)."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14
    import openvino.opset16 as o16
    auto_pad = cfg["auto_pad"]
    args = (source, cfg["strides"])
    op, v = cfg["op"], cfg["version"]
    if op == "MaxPool" and v == 1:
        node = o1.max_pool(*args, cfg["pads_begin"], cfg["pads_end"], cfg["kernel"], cfg["rounding_type"], auto_pad)
    elif op == "MaxPool":
        mod = o8 if v == 8 else o14
        node = mod.max_pool(*args, cfg["dilations"], cfg["pads_begin"], cfg["pads_end"], cfg["kernel"],
                            cfg["rounding_type"], auto_pad, cfg["index_element_type"], cfg["axis"])
    elif v == 16:
        node = o16.avg_pool(*args, cfg["pads_begin"], cfg["pads_end"], cfg["kernel"], cfg["exclude_pad"],
                            cfg["rounding_type"], auto_pad, cfg["dilations"])
    else:
        mod = o1 if v == 1 else o14
        node = mod.avg_pool(*args, cfg["pads_begin"], cfg["pads_end"], cfg["kernel"], cfg["exclude_pad"],
                            cfg["rounding_type"], auto_pad)
    return node


_CORE = None


def ov_outputs(cfg: dict, x: np.ndarray) -> list[np.ndarray]:
    import openvino as ov
    global _CORE
    if _CORE is None:
        _CORE = ov.Core()
    compiled = _CORE.compile_model(ov_model(cfg), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    result = compiled([x])
    return [np.asarray(result[i]) for i in range(len(compiled.outputs))]


def random_input(rng: np.random.Generator, cfg: dict) -> np.ndarray:
    dt = np.dtype(cfg["dtype"])
    if dt.kind == "f":
        x = rng.standard_normal(cfg["shape"]) * 4
        x = np.round(x, 1) if rng.integers(0, 2) else x        # sometimes ties
        return x.astype(dt)
    info = np.iinfo(dt)
    return rng.integers(max(info.min, -50), min(info.max, 50), size=cfg["shape"], endpoint=True).astype(dt)


def assert_same_as_openvino(got: list, want: list, cfg: dict) -> None:
    """Outputs equal to OpenVINO's: shapes, dtypes and bits (the sign of zero too)."""
    from bits import assert_same_bits
    assert len(got) == len(want), (cfg, len(got), len(want))
    for g, w in zip(got, want):
        assert_same_bits(g, w, cfg)


def thin_weights(xml) -> None:
    """Rewrite the .bin beside `xml` as a sparse file of its length that holds only the bytes of its small integer
    Consts (shape inputs, the only weights check reads): a light model's .bin is hundreds of MB of random
    weights, and read_model wants the file there (it refuses an IR whose .bin is missing)."""
    import re
    from pathlib import Path
    binf = Path(xml).with_suffix(".bin")
    data = binf.read_bytes()
    keep = [(int(m["offset"]), int(m["size"])) for m in re.finditer(
        r'<data element_type="(?:i|u)(?:8|16|32|64)" shape="\d*" offset="(?P<offset>\d+)" size="(?P<size>\d+)"',
        Path(xml).read_text())]
    with open(binf, "wb") as f:
        f.truncate(len(data))
        for offset, size in keep:
            f.seek(offset)
            f.write(data[offset:offset + size])
