"""Hand-written IR v11 nets around the shape ops irpool evaluates (ShapeOf, Squeeze, Range: irpool/ir/ops/shape_ops.py),
with no irpool code, so that OpenVINO's read_model and irpool read the very same bytes: Model Optimizer 2021.4's
global pool ReduceMean(x, Range(start, Squeeze(ShapeOf(ShapeOf(x)), axes), step)) with one part changed, and
ReduceMean(x, Squeeze(Const, axes))."""
from __future__ import annotations

import numpy as np

PRECISION = {"f32": "FP32", "i64": "I64", "i32": "I32"}
NUMPY = {"f32": np.float32, "i64": np.int64, "i32": np.int32}
X = [1, 3, 2, 3]


def write(path, nodes: list, edges: list) -> None:
    """nodes: dicts of id, type, version, data, ins and outs ([(dims, element type)]), and a Const's value."""
    blob, parts = bytearray(), []
    for n in nodes:
        data = dict(n.get("data", {}))
        if n["type"] == "Const":
            v = np.asarray(n["value"], NUMPY[data["element_type"]])
            data.setdefault("shape", ",".join(map(str, v.shape)))
            data.update(offset=str(len(blob)), size=str(v.nbytes))
            blob += v.tobytes()
        text = f'<layer id="{n["id"]}" name="n{n["id"]}" type="{n["type"]}" version="{n.get("version", "opset1")}">'
        text += "<data " + " ".join(f'{k}="{v}"' for k, v in data.items()) + "/>" if data else ""
        k = 0
        for tag, ports in (("input", n.get("ins")), ("output", n.get("outs"))):
            if ports:
                text += f"<{tag}>"
                for dims, et in ports:
                    text += f'<port id="{k}" precision="{PRECISION[et]}">' + "".join(f"<dim>{d}</dim>" for d in dims)
                    text += "</port>"
                    k += 1
                text += f"</{tag}>"
        parts.append(text + "</layer>")
    edges = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>' for a, b, c, d in edges)
    path.write_text('<?xml version="1.0"?>\n<net name="t" version="11"><layers>\n' + "\n".join(parts) +
                    f"\n</layers><edges>{edges}</edges></net>\n")
    path.with_suffix(".bin").write_bytes(bytes(blob))


def _const(i, et, value, shape=None):
    dims = list(np.shape(value)) if shape is None else [int(t) for t in shape.split(",") if t]
    return {"id": i, "type": "Const", "data": {"element_type": et, **({} if shape is None else {"shape": shape})},
            "value": value, "outs": [(dims, et)]}


def _ends(x, i, axes_et, axes_dims):
    return [{"id": i, "type": "ReduceMean", "data": {"keep_dims": "true"}, "ins": [(x, "f32"), (axes_dims, axes_et)],
             "outs": [([d if k < 2 else 1 for k, d in enumerate(x)], "f32")]},
            {"id": i + 1, "type": "Result", "ins": [([d if k < 2 else 1 for k, d in enumerate(x)], "f32")]}]


def model_optimizer(path, dynamic=False, axes=([0], "1"), squeeze="opset1", shape_of="i64", start=(2, "i64"),
                    step=(1, "i64"), rng="opset4", output_type="i64") -> None:
    """Model Optimizer 2021.4's global ReduceMean over x [1,3,2,3] (every dim -1 if `dynamic`): axes (values,
    the Const's shape attribute) None for a Squeeze without them, squeeze None for none; start and step
    (value, element type); the ShapeOfs' output_type."""
    x = [-1] * 4 if dynamic else X
    nodes = [{"id": 0, "type": "Parameter", "data": {"shape": ",".join(map(str, x)), "element_type": "f32"},
              "outs": [(x, "f32")]},
             {"id": 1, "type": "ShapeOf", "version": "opset3", "data": {"output_type": shape_of}, "ins": [(x, "f32")],
              "outs": [([4], shape_of)]},
             {"id": 2, "type": "ShapeOf", "version": "opset3", "data": {"output_type": shape_of},
              "ins": [([4], shape_of)], "outs": [([1], shape_of)]}]
    edges, stop = [(0, 0, 1, 0), (1, 1, 2, 0)], (2, 1)
    if squeeze:
        ins = [([1], shape_of)]
        if axes is not None:
            nodes.append(_const(3, "i64", axes[0], axes[1]))
            ins.append((nodes[-1]["outs"][0][0], "i64"))
            edges.append((3, 0, 4, 1))
        nodes.append({"id": 4, "type": "Squeeze", "version": squeeze, "ins": ins, "outs": [([], shape_of)]})
        edges.append((2, 1, 4, 0))
        stop = (4, len(ins))
    nodes += [_const(5, start[1], start[0]), _const(6, step[1], step[0]),
              {"id": 7, "type": "Range", "version": rng, "data": {"output_type": output_type} if rng == "opset4" else {},
               "ins": [([], start[1]), ([], shape_of), ([], step[1])], "outs": [([2], output_type)]}]
    edges += [(5, 0, 7, 0), (*stop, 7, 1), (6, 0, 7, 2), (0, 0, 8, 0), (7, 3, 8, 1), (8, 2, 9, 0)]
    write(path, nodes + _ends(x, 8, output_type, [2]), edges)


def squeezed_const(path, values, et="i64", axes=(0,), squeeze="opset1", dynamic=False) -> None:
    """ReduceMean(x, Squeeze(Const values, axes)): the axes of a global pool, through a Squeeze of a dim not 1."""
    x = [-1] * 4 if dynamic else X
    nodes = [{"id": 0, "type": "Parameter", "data": {"shape": ",".join(map(str, x)), "element_type": "f32"},
              "outs": [(x, "f32")]}, _const(1, et, values), _const(2, "i64", list(axes)),
             {"id": 3, "type": "Squeeze", "version": squeeze, "ins": [(list(np.shape(values)), et), ([len(axes)], "i64")],
              "outs": [([2], et)]}]
    write(path, nodes + _ends(x, 4, et, [2]), [(1, 0, 3, 0), (2, 0, 3, 1), (0, 0, 4, 0), (3, 2, 4, 1), (4, 2, 5, 0)])
