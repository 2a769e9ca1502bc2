"""Write a large IR file the way OpenVINO's serializer lays one out (tabs, an element per line, port names,
per-layer <rt_info>): a Parameter, a chain of MaxPool-8 and AvgPool-1 layers that keep the shape, a
Result. Runnable by irpool.run, so one file serves check, explain and run."""
from __future__ import annotations

import numpy as np

SHAPE = (1, 2, 4, 4)


def _port(pid, precision, name=None):
    names = f' names="{name}"' if name else ""
    dims = "".join(f"\t\t\t\t\t<dim>{d}</dim>\n" for d in SHAPE)
    return f'\t\t\t\t<port id="{pid}" precision="{precision}"{names}>\n{dims}\t\t\t\t</port>\n'


def _rt_info(name):
    return (f'\t\t\t<rt_info>\n\t\t\t\t<attribute name="fused_names" version="0" value="{name},{name}/fq"/>\n'
            '\t\t\t\t<attribute name="old_api_map_element_type" version="0" value="f32"/>\n\t\t\t</rt_info>\n')


def _pool(i):
    name = f"block{i // 100}/pool{i}"
    if i % 2:
        return (f'\t\t<layer id="{i}" name="{name}" type="MaxPool" version="opset8">\n'
                '\t\t\t<data strides="1, 1" dilations="1, 1" pads_begin="0, 0" pads_end="0, 0" kernel="1, 1"'
                ' rounding_type="floor" auto_pad="explicit" index_element_type="i64" axis="0" />\n'
                f'{_rt_info(name)}\t\t\t<input>\n{_port(0, "FP32")}\t\t\t</input>\n'
                f'\t\t\t<output>\n{_port(1, "FP32", name + ":0")}{_port(2, "I64")}\t\t\t</output>\n\t\t</layer>\n')
    return (f'\t\t<layer id="{i}" name="{name}" type="AvgPool" version="opset1">\n'
            '\t\t\t<data strides="1, 1" pads_begin="0, 0" pads_end="0, 0" kernel="1, 1" rounding_type="floor"'
            ' auto_pad="explicit" exclude-pad="true" />\n'
            f'{_rt_info(name)}\t\t\t<input>\n{_port(0, "FP32")}\t\t\t</input>\n'
            f'\t\t\t<output>\n{_port(1, "FP32", name + ":0")}\t\t\t</output>\n\t\t</layer>\n')


def write(path, min_bytes: int) -> int:
    """Write the net to `path`, at least `min_bytes` long; the number of pooling layers."""
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<net name="big" version="11">\n\t<layers>\n')
        f.write('\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n'
                f'\t\t\t<data shape="{",".join(map(str, SHAPE))}" element_type="f32" />\n'
                f'\t\t\t<output>\n{_port(0, "FP32", "x")}\t\t\t</output>\n\t\t</layer>\n')
        n, block = 0, 2000
        while f.tell() < min_bytes:
            f.write("".join(_pool(i) for i in range(n + 1, n + block + 1)))
            n += block
        f.write(f'\t\t<layer id="{n + 1}" name="y" type="Result" version="opset1">\n'
                f'\t\t\t<input>\n{_port(0, "FP32")}\t\t\t</input>\n\t\t</layer>\n\t</layers>\n\t<edges>\n')
        for i in range(0, n + 1, block):
            f.write("".join(f'\t\t<edge from-layer="{k}" from-port="{0 if k == 0 else 1}" to-layer="{k + 1}"'
                            ' to-port="0" />\n' for k in range(i, min(i + block, n + 1))))
        f.write("\t</edges>\n\t<rt_info>\n\t\t<framework name=\"generated\" />\n\t</rt_info>\n</net>\n")
    return n


def expected(x: np.ndarray) -> np.ndarray:
    """What the chain computes: every layer has a 1x1 window, so the input itself."""
    return x


def write_distinct(path, min_bytes: int, block: int = 10000) -> int:
    """A net whose every layer has port dims of its own (a chain of Relu, channels 1, 2, 3, ...): what
    defeats any sharing of shapes between layers. For check and explain; the number of layers."""
    def relu(i):
        dims = lambda c: "".join(f"<dim>{d}</dim>" for d in (1, c, 4, 4))  # noqa: E731
        return (f'\t\t<layer id="{i}" name="r{i}" type="Relu" version="opset1">\n\t\t\t<input>\n'
                f'\t\t\t\t<port id="0" precision="FP32">{dims(i)}</port>\n\t\t\t</input>\n\t\t\t<output>\n'
                f'\t\t\t\t<port id="1" precision="FP32" names="r{i}">{dims(i + 1)}</port>\n'
                '\t\t\t</output>\n\t\t</layer>\n')
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<net name="distinct" version="11">\n\t<layers>\n'
                '\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n'
                '\t\t\t<data shape="1,1,4,4" element_type="f32" />\n\t\t\t<output>\n'
                '\t\t\t\t<port id="0" precision="FP32"><dim>1</dim><dim>1</dim><dim>4</dim><dim>4</dim></port>\n'
                '\t\t\t</output>\n\t\t</layer>\n')
        n = 0
        while f.tell() < min_bytes:
            f.write("".join(relu(i) for i in range(n + 1, n + block + 1)))
            n += block
        f.write("\t</layers>\n\t<edges>\n")
        for i in range(0, n, block):
            f.write("".join(f'\t\t<edge from-layer="{k}" from-port="{0 if k == 0 else 1}" to-layer="{k + 1}"'
                            ' to-port="0" />\n' for k in range(i, min(i + block, n))))
        f.write("\t</edges>\n</net>\n")
    return n


MODEL_SHAPE = (1, 8, 16, 16)


def write_model_like(path, min_bytes: int, block: int = 500) -> int:
    """A net laid out as a real model's XML: blocks of Const weights, Convolution, Relu, Const bias and Add,
    with a MaxPool-8 or AvgPool-1 (3x3, stride 1, pads 1: the shape kept) after every tenth block, a Result,
    and a sparse .bin beside it that holds every Const's bytes. Most of the file is not pooling: what must
    not cost memory. (The number of pooling layers, the id of the last.)"""
    n, c = MODEL_SHAPE[1], MODEL_SHAPE
    dims = lambda d: "".join(f"\t\t\t\t\t<dim>{x}</dim>\n" for x in d)  # noqa: E731

    def port(pid, d, prec="FP32", name=None):
        names = f' names="{name}"' if name else ""
        return f'\t\t\t\t<port id="{pid}" precision="{prec}"{names}>\n{dims(d)}\t\t\t\t</port>\n'

    def layer(lid, name, kind, version, data, ins, outs):
        data = f"\t\t\t<data {data} />\n" if data else ""
        ins = f"\t\t\t<input>\n{ins}\t\t\t</input>\n" if ins else ""
        return (f'\t\t<layer id="{lid}" name="{name}" type="{kind}" version="{version}">\n{data}{_rt_info(name)}'
                f'{ins}\t\t\t<output>\n{outs}\t\t\t</output>\n\t\t</layer>\n')
    offset, lid, pools, edges, last = 0, 1, 0, [], None
    wsize, bsize = n * n * 9 * 4, n * 4
    with open(path, "w") as f:
        f.write('<?xml version="1.0"?>\n<net name="model_like" version="11">\n\t<layers>\n')
        f.write(layer(0, "x", "Parameter", "opset1", f'shape="{",".join(map(str, c))}" element_type="f32"', "",
                      port(0, c, name="x")))
        src = (0, 0)
        b = 0
        while f.tell() < min_bytes:
            text = []
            for _ in range(block):
                name = f"stage{b // 100}/block{b}"
                w, conv, relu, bias, add = lid, lid + 1, lid + 2, lid + 3, lid + 4
                text.append(layer(w, f"{name}/conv/weights", "Const", "opset1",
                                  f'element_type="f32" shape="{n},{n},3,3" offset="{offset}" size="{wsize}"', "",
                                  port(0, (n, n, 3, 3))))
                text.append(layer(conv, f"{name}/conv", "Convolution", "opset1",
                                  'strides="1,1" dilations="1,1" pads_begin="1,1" pads_end="1,1" auto_pad="explicit"',
                                  port(0, c) + port(1, (n, n, 3, 3)), port(2, c, name=f"{name}/conv")))
                text.append(layer(relu, f"{name}/relu", "Relu", "opset1", "", port(0, c), port(1, c, name=f"{name}/relu")))
                text.append(layer(bias, f"{name}/bias", "Const", "opset1",
                                  f'element_type="f32" shape="1,{n},1,1" offset="{offset + wsize}" size="{bsize}"', "",
                                  port(0, (1, n, 1, 1))))
                text.append(layer(add, f"{name}/add", "Add", "opset1", 'auto_broadcast="numpy"',
                                  port(0, c) + port(1, (1, n, 1, 1)), port(2, c, name=f"{name}/add")))
                edges += [(src, (conv, 0)), ((w, 0), (conv, 1)), ((conv, 2), (relu, 0)), ((relu, 1), (add, 0)),
                          ((bias, 0), (add, 1))]
                offset += wsize + bsize
                src, lid, b = (add, 2), lid + 5, b + 1
                if b % 10 == 0:
                    kind, version, data = (("MaxPool", "opset8", 'strides="1,1" dilations="1,1" pads_begin="1,1"'
                                            ' pads_end="1,1" kernel="3,3" rounding_type="floor" auto_pad="explicit"'
                                            ' index_element_type="i64" axis="0"') if b % 20 == 0 else
                                           ("AvgPool", "opset1", 'strides="1,1" pads_begin="1,1" pads_end="1,1"'
                                            ' kernel="3,3" rounding_type="floor" auto_pad="explicit"'
                                            ' exclude-pad="true"'))
                    outs = port(1, c, name=f"{name}/pool") + (port(2, c, "I64") if kind == "MaxPool" else "")
                    text.append(layer(lid, f"{name}/pool", kind, version, data, port(0, c), outs))
                    edges.append((src, (lid, 0)))
                    src, lid, pools, last = (lid, 1), lid + 1, pools + 1, str(lid)
            f.write("".join(text))
        f.write(f'\t\t<layer id="{lid}" name="y" type="Result" version="opset1">\n'
                f'\t\t\t<input>\n{port(0, c)}\t\t\t</input>\n\t\t</layer>\n\t</layers>\n\t<edges>\n')
        edges.append((src, (lid, 0)))
        for i in range(0, len(edges), 10000):
            f.write("".join(f'\t\t<edge from-layer="{a[0]}" from-port="{a[1]}" to-layer="{z[0]}" to-port="{z[1]}" />\n'
                            for a, z in edges[i:i + 10000]))
        f.write("\t</edges>\n\t<rt_info>\n\t\t<framework name=\"generated\" />\n\t</rt_info>\n</net>\n")
    with open(str(path)[: -len(".xml")] + ".bin", "wb") as f:
        f.truncate(offset)                              # (sparse: no disk used for the weights)
    return pools, last

