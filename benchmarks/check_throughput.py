"""How many MB of IR XML irpool.check reads per second: a generated net of N chained pooling layers.

Usage: python benchmarks/check_throughput.py [N]   (default 20000 layers, about 40 MB)
"""
import sys
import time

import irpool


def big_net(n: int) -> bytes:
    dims = "".join("\n\t\t\t\t\t<dim>%d</dim>" % d for d in (1, 64, 56, 56))
    port = lambda pid, prec: f'\n\t\t\t\t<port id="{pid}" precision="{prec}">{dims}\n\t\t\t\t</port>'  # noqa: E731
    parts = ['<?xml version="1.0"?>\n<net name="big" version="11">\n\t<layers>\n',
             f'\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="1,64,56,56"'
             f' element_type="f32"/>\n\t\t\t<output>{port(0, "FP32")}\n\t\t\t</output>\n\t\t</layer>\n']
    edges = []
    for i in range(1, n + 1):
        parts.append(f'\t\t<layer id="{i}" name="pool{i}" type="MaxPool" version="opset8">\n\t\t\t<data strides="1,1"'
                     ' dilations="1,1" pads_begin="1,1" pads_end="1,1" kernel="3,3" rounding_type="floor"'
                     ' auto_pad="explicit" index_element_type="i64" axis="0"/>\n'
                     f'\t\t\t<input>{port(0, "FP32")}\n\t\t\t</input>\n\t\t\t<output>{port(1, "FP32")}{port(2, "I64")}'
                     '\n\t\t\t</output>\n\t\t</layer>\n')
        edges.append(f'\t\t<edge from-layer="{i - 1}" from-port="{0 if i == 1 else 1}" to-layer="{i}" to-port="0"/>\n')
    parts.append(f'\t\t<layer id="{n + 1}" name="out" type="Result" version="opset1">\n\t\t\t<input>{port(0, "FP32")}'
                 '\n\t\t\t</input>\n\t\t</layer>\n\t</layers>\n\t<edges>\n')
    edges.append(f'\t\t<edge from-layer="{n}" from-port="1" to-layer="{n + 1}" to-port="0"/>\n')
    return ("".join(parts) + "".join(edges) + "\t</edges>\n</net>\n").encode()


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    data = big_net(n)
    best = None
    for _ in range(3):
        t = time.perf_counter()
        report = irpool.check(data)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    assert report.ok, report.findings[:3]
    print(f"check: {len(data) / 1e6:.1f} MB, {n} pooling layers, best of 3: {best:.2f} s,"
          f" {len(data) / 1e6 / best:.1f} MB/s")
