"""The global pools of record_plugin.py's corpus (version 3; issue 52): global ReduceMean-1/ReduceMax-1 over the
spatial axes, whose order of additions (irpool/core/reduce_order.py) follows the layout the plugin gives them.

Each case has weights, so a `bin` (the Convolution's weights, then the axes: bytes the same on every machine, from
seeds), `layer` (the Reduce's id: irpool runs it alone, `layer=`, as `run --layer`, its layout found from its
producer) and, after a Convolution, `conv_result`: the index of the Result that gives the Reduce's input. irpool
does not run a Convolution, and its bits depend on the CPU's oneDNN kernel: the recorder keeps that array in the
record (reduce_input) and the replay feeds it to the Reduce; the same compiled model's Reduce gave the bits.
"""
from __future__ import annotations

import hashlib

import numpy as np
from record_plugin import TYPES, _port

# The global pools' shapes (2-D and 3-D) where the plugin's order of additions shows: planes of more taps than a
# vector step, channel counts both whole AVX-512 blocks and not, a batch of two.
GLOBAL_SHAPES = ([1, 40, 7, 7], [1, 64, 7, 7], [2, 17, 5, 5], [1, 24, 3, 5, 6])


def global_pools() -> list[dict]:
    """Global ReduceMean-1/ReduceMax-1 over the spatial axes (axes an i64 Const, keep_dims true and false): planar
    (Parameter -> Reduce; f32 and f16) and channels-last (Parameter -> 1x1 Convolution with seeded weights ->
    Reduce; f32: under INFERENCE_PRECISION_HINT=f32 an f16 Convolution's output is f32 inside the plugin, which its
    f16 Result would not show); and ReduceMax on planted ties of +-0 (planar) and a NaN in each plane (both)."""
    out = []
    for shape in GLOBAL_SHAPES:
        dims = "x".join(map(str, shape))
        for op in ("ReduceMean", "ReduceMax"):
            for keep in (True, False):
                for et, conv in (("f32", False), ("f16", False), ("f32", True)):
                    kind = "channels-last" if conv else "planar"
                    out.append(reduce_case(f"global/{kind}/{et}/{op}/{dims}/keep_dims={str(keep).lower()}",
                                           shape, op, keep, et, conv))
        out.append(reduce_case(f"global/ties/planar/f32/ReduceMax/{dims}", shape, "ReduceMax", True, "f32", False,
                               plant="ties"))
        for conv in (False, True):
            kind = "channels-last" if conv else "planar"
            out.append(reduce_case(f"global/nan/{kind}/f32/ReduceMax/{dims}", shape, "ReduceMax", False, "f32", conv,
                                   plant="nan-pixel" if conv else "nan"))
    return out


def reduce_case(cid, shape, op, keep, et, conv, plant=None) -> dict:
    """One global pool case: its xml and bin (the Convolution's weights, then the axes), `layer` the Reduce's id
    (irpool runs it alone: layer=), and where there is a Convolution, `conv_result`: the Result that gives the
    Reduce's input (the Convolution's output, recorded: the replay feeds it to the Reduce)."""
    c, rank = shape[1], len(shape)
    prec = TYPES[et]
    axes = np.arange(2, rank, dtype=np.int64)
    reduced = [shape[0], c] + ([1] * (rank - 2) if keep else [])
    weights = b""
    layers, edges = [_layer(0, "x", "Parameter", f'shape="{",".join(map(str, shape))}" element_type="{et}"', [],
                            [_port(0, shape, prec)])], []
    src = (0, 0)
    if conv:
        rng = np.random.default_rng(int.from_bytes(hashlib.sha256(cid.encode()).digest()[:8], "little"))
        wshape = [c, c] + [1] * (rank - 2)
        weights = (rng.standard_normal(wshape) / np.sqrt(c)).astype(np.float32).tobytes()
        ones = ",".join(["1"] * (rank - 2))
        zeros = ",".join(["0"] * (rank - 2))
        layers += [_layer(1, "w", "Const", f'element_type="f32" shape="{",".join(map(str, wshape))}" offset="0"'
                                           f' size="{len(weights)}"', [], [_port(0, wshape, "FP32")]),
                   _layer(2, "conv", "Convolution", f'strides="{ones}" dilations="{ones}" pads_begin="{zeros}"'
                          f' pads_end="{zeros}" auto_pad="explicit"', [_port(0, shape, prec), _port(1, wshape, "FP32")],
                          [_port(2, shape, prec)])]
        edges += [(0, 0, 2, 0), (1, 0, 2, 1)]
        src = (2, 2)
    layers += [_layer(3, "axes", "Const", f'element_type="i64" shape="{rank - 2}" offset="{len(weights)}"'
                                          f' size="{axes.nbytes}"', [], [_port(0, [rank - 2], "I64")]),
               _layer(4, "reduce", op, f'keep_dims="{str(keep).lower()}"', [_port(0, shape, prec),
                      _port(1, [rank - 2], "I64")], [_port(2, reduced, prec)]),
               _layer(5, "out0", "Result", None, [_port(0, reduced, prec)], [])]
    edges += [(*src, 4, 0), (3, 0, 4, 1), (4, 2, 5, 0)]
    if conv:
        layers.append(_layer(6, "out1", "Result", None, [_port(0, shape, prec)], []))
        edges.append((2, 2, 6, 0))
    xml = ('<?xml version="1.0"?>\n<net name="record" version="11">\n<layers>\n' + "\n".join(layers)
           + "\n</layers>\n<edges>\n" + "\n".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{d}"'
                                                  f' to-port="{e}"/>' for a, b, d, e in edges) + "\n</edges>\n</net>\n")
    return {"id": cid, "xml": xml, "bin": weights + axes.tobytes(), "type": et, "shape": shape, "layer": "4",
            "plant": plant, "conv_result": 1 if conv else None}


def _layer(lid, name, ltype, data, inputs, outputs) -> str:
    """One opset1 <layer> of the IR text (data: its attributes, or None)."""
    return (f'<layer id="{lid}" name="{name}" type="{ltype}" version="opset1">' + (f"<data {data}/>" if data else "")
            + (f"<input>{''.join(inputs)}</input>" if inputs else "")
            + (f"<output>{''.join(outputs)}</output>" if outputs else "") + "</layer>")


def planted(x, kind, rng) -> np.ndarray:
    """A global ReduceMax's planted input: `ties`, every plane below zero but for +0.0 and -0.0 at a quarter of its
    taps each (the maximum a tie of zeros, whose sign the order decides); `nan`, one NaN in each plane (at a
    seeded tap); `nan-pixel`, one NaN in each image (a 1x1 Convolution makes it a NaN in each channel's plane)."""
    n, c = x.shape[:2]
    planes = x.reshape(n * c, -1)
    if kind == "ties":
        planes = -np.abs(planes) - np.float32(0.5)
        pick = rng.random(planes.shape)
        planes[pick < 0.25] = 0.0
        planes[pick > 0.75] = -0.0
    elif kind == "nan":
        planes[np.arange(n * c), rng.integers(0, planes.shape[1], n * c)] = np.nan
    else:
        rows = np.arange(n) * c + rng.integers(0, c, n)
        planes[rows, rng.integers(0, planes.shape[1], n)] = np.nan
    return planes.reshape(x.shape)
