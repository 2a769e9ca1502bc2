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
