"""How many MB of IR XML irpool.check reads per second, and its peak memory on a large file.

    python benchmarks/check_throughput.py            # generated nets and, with openvino + onnx, converted models
    python benchmarks/check_throughput.py --big 200  # also a 200 MB file on disk: time and peak RSS (Linux)
    python benchmarks/check_throughput.py --real     # also torchvision's classifiers (benchmarks/real_layers.py)
    python benchmarks/check_throughput.py --real --rounds 5   # five rounds: the spread of the ratio
    python benchmarks/check_throughput.py --zoo 3000 # a folder of 3,000 small files: -j 1 against every core

Nets: `repeat` is N MaxPool layers with one configuration (what the clean-layer cache sees in real models);
`distinct` gives every layer its own kernel and pads (no cache hit). Then each light model the onnx package
ships, converted by openvino.convert_model and saved: irpool.check against openvino.Core().read_model on
the same file, in the same run (the best and the mean of 11 each, taken in turns).
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time

import irpool
from timing import cpu_name

DIMS = (1, 64, 56, 56)


def _port(pid, prec, dims):
    inner = "".join(f"\n\t\t\t\t\t<dim>{d}</dim>" for d in dims)
    return f'\n\t\t\t\t<port id="{pid}" precision="{prec}">{inner}\n\t\t\t\t</port>'


def net_parts(n: int, distinct: bool):
    """The XML of a chain Parameter -> n MaxPool-8 -> Result, as an iterator of str pieces."""
    yield ('<?xml version="1.0"?>\n<net name="big" version="11">\n\t<layers>\n'
           f'\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="1,64,56,56"'
           f' element_type="f32"/>\n\t\t\t<output>{_port(0, "FP32", DIMS)}\n\t\t\t</output>\n\t\t</layer>\n')
    for i in range(1, n + 1):
        k = 3 + 2 * (i % 7) if distinct else 3
        p = (i // 7) % (k // 2 + 1) if distinct else 1
        out = DIMS[:2] + ((56 + 2 * p - k) + 1,) * 2
        dims_in = DIMS          # every layer declares the same input (distinct: its edge then mismatches)
        yield (f'\t\t<layer id="{i}" name="pool{i}" type="MaxPool" version="opset8">\n\t\t\t<data strides="1,1"'
               f' dilations="1,1" pads_begin="{p},{p}" pads_end="{p},{p}" kernel="{k},{k}" rounding_type="floor"'
               ' auto_pad="explicit" index_element_type="i64" axis="0"/>\n'
               f'\t\t\t<input>{_port(0, "FP32", dims_in)}\n\t\t\t</input>\n\t\t\t<output>{_port(1, "FP32", out)}'
               f'{_port(2, "I64", out)}\n\t\t\t</output>\n\t\t</layer>\n')
    yield (f'\t\t<layer id="{n + 1}" name="out" type="Result" version="opset1">\n\t\t\t<input>'
           f'{_port(0, "FP32", out)}\n\t\t\t</input>\n\t\t</layer>\n\t</layers>\n\t<edges>\n')
    for i in range(1, n + 2):
        yield f'\t\t<edge from-layer="{i - 1}" from-port="{0 if i == 1 else 1}" to-layer="{i}" to-port="0"/>\n'
    yield "\t</edges>\n</net>\n"


def big_net(n: int, distinct: bool = False) -> bytes:
    return "".join(net_parts(n, distinct)).encode()


def rate(data, runs=5) -> tuple:
    best, report = None, None
    for _ in range(runs):
        t = time.perf_counter()
        report = irpool.check(data)
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    size = len(data) if isinstance(data, bytes) else os.path.getsize(data)
    return size / 1e6, best, report


def converted_models(folder):
    """The nine light models the onnx package ships, converted and saved by OpenVINO (weights kept, for
    read_model)."""
    try:
        import onnx
        import openvino as ov
    except ImportError:
        return []
    light = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
    out = []
    for src in sorted(light.glob("*.onnx")):
        xml = pathlib.Path(folder) / (src.stem + ".xml")
        ov.save_model(ov.convert_model(str(src)), str(xml), compress_to_fp16=False)
        out.append(xml)
    return out


def against_read_model(xml, runs=11) -> tuple:
    """irpool.check and openvino.Core().read_model on one file, `runs` of each taken in turns: the best and the
    mean of each, and the report. The best alone hides what a call leaves to Python's cycle collector, which a
    later call pays (until stop 49 each checked tree waited for it: every third check of DenseNet-121 in a loop
    paid 7-10 ms, and the median, a fast call, hid it too): the mean counts it."""
    import openvino as ov
    core, ours, theirs = ov.Core(), [], []
    for _ in range(runs):
        t = time.perf_counter()
        report = irpool.check(xml)
        ours.append(time.perf_counter() - t)
        t = time.perf_counter()
        core.read_model(str(xml))
        theirs.append(time.perf_counter() - t)
    return min(ours), min(theirs), sum(ours) / runs, sum(theirs) / runs, report


def _against_read_model(models, table: bool) -> None:
    """One round over the files: check against read_model file by file (the table, if asked), and in sum, by the
    best and by the mean of each. The ratio moves with a shared machine's load from one round to the next:
    --rounds gives its spread."""
    if table:
        print("model                         MB   irpool.check ms   read_model ms   ratio  mean ratio  findings")
    sums, ratios, means = [0.0] * 4, [], []
    for xml in models:
        ours, theirs, ours_mean, theirs_mean, report = against_read_model(xml)
        for k, v in enumerate((ours, theirs, ours_mean, theirs_mean)):
            sums[k] += v
        ratios.append((ours / theirs, xml.stem))
        means.append((ours_mean / theirs_mean, xml.stem))
        if table:
            print(f"{xml.stem:<26} {xml.stat().st_size / 1e6:7.2f} {ours * 1e3:14.2f} {theirs * 1e3:15.2f}"
                  f" {ours / theirs:7.2f} {ours_mean / theirs_mean:11.2f} {len(report.findings):9d}")
    for name, (a, b), rs in (("best", sums[:2], ratios), ("mean", sums[2:], means)):
        rs.sort()
        print(f"in sum ({name} of 11): check {a * 1e3:.1f} ms, read_model {b * 1e3:.1f} ms: {a / b:.2f};"
              f" median {rs[len(rs) // 2][0]:.2f}, worst {rs[-1][0]:.2f} ({rs[-1][1]})", flush=True)


def real_models(folder):
    """torchvision's architectures of benchmarks/real_layers.py, random weights, converted and saved."""
    sys.path.insert(0, str(pathlib.Path(__file__).parent))
    import openvino as ov
    from real_layers import MODELS, converted
    out = []
    for name, shape in MODELS:
        xml = pathlib.Path(folder) / f"{name.rpartition('.')[2]}.xml"
        ov.save_model(converted(name, shape), str(xml), compress_to_fp16=False)
        out.append(xml)
    return out


def zoo(n: int, runs: int = 3) -> None:
    """`irpool check -q` of a folder of n small IR files (the examples, over and over) with -j 1 and with every
    core (median of `runs` each, in turns, start-up included), and a read_model loop over the same files."""
    import shutil
    import statistics
    examples = pathlib.Path(__file__).parent.parent / "examples"
    with tempfile.TemporaryDirectory() as folder:
        for i in range(n):                      # whole nets, as read_model reads them (with weights)
            name = ("small_net", "torch_pools")[i % 2]
            shutil.copy(examples / f"{name}.xml", pathlib.Path(folder) / f"m{i:05}.xml")
            if name == "torch_pools":
                shutil.copy(examples / f"{name}.bin", pathlib.Path(folder) / f"m{i:05}.bin")
        times = {"1": [], "0": []}
        for _ in range(runs):
            for j in times:
                t = time.perf_counter()
                subprocess.run([sys.executable, "-m", "irpool", "check", "-q", "-j", j, folder], capture_output=True)
                times[j].append(time.perf_counter() - t)
        serial, every = statistics.median(times["1"]), statistics.median(times["0"])
        print(f"\nzoo of {n} small files, {os.cpu_count()} cores: -j 1 {serial:.2f} s ({n / serial:.0f} files/s),"
              f" every core {every:.2f} s ({n / every:.0f} files/s): {serial / every:.2f}x")
        try:
            import openvino as ov
        except ImportError:
            return
        core, files = ov.Core(), sorted(pathlib.Path(folder).glob("*.xml"))
        t = time.perf_counter()
        for f in files:
            core.read_model(str(f))
        dt = time.perf_counter() - t
        print(f"read_model loop over the same files, one process: {dt:.2f} s ({n / dt:.0f} files/s)")


def big_file_child(path):
    """Run in a fresh process: check one file, print seconds and peak RSS."""
    t = time.perf_counter()
    report = irpool.check(path)
    dt = time.perf_counter() - t
    # VmHWM, not ru_maxrss: ru_maxrss keeps the parent's peak across fork + exec
    hwm = [ln for ln in pathlib.Path("/proc/self/status").read_text().splitlines() if ln.startswith("VmHWM:")]
    rss = int(hwm[0].split()[1]) / 1024 if hwm else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{dt:.2f} {rss:.0f} {len(report.findings)}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=20000)
    ap.add_argument("--big", type=int, default=0, help="also check a generated file of this many MB")
    ap.add_argument("--real", action="store_true", help="also torchvision's classifiers, converted by OpenVINO")
    ap.add_argument("--rounds", type=int, default=1, help="rounds over the converted models (the last one's table)")
    ap.add_argument("--zoo", type=int, default=0, help="a folder of this many small files: -j 1 and every core")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return big_file_child(args.child)
    print("net                                    MB    best s    MB/s   findings")
    for name, distinct in (("repeat", False), ("distinct", True)):
        mb, s, report = rate(big_net(args.layers, distinct))
        print(f"generated {name:<10} {args.layers:>6} layers {mb:7.1f} {s:9.3f} {mb / s:7.1f} {len(report.findings):8d}")
    with tempfile.TemporaryDirectory() as folder:
        models = converted_models(folder) + (real_models(folder) if args.real else [])
        if models:
            print(f"\n{cpu_name()}, {os.cpu_count()} cores")
        for k in range(args.rounds if models else 0):
            _against_read_model(models, table=k == args.rounds - 1)
        if args.big:
            path = pathlib.Path(folder) / "big.xml"
            n = int(args.big * 1e6 / 730)
            with open(path, "w") as f:
                f.writelines(net_parts(n, False))
            out = subprocess.run([sys.executable, __file__, "--child", str(path)], capture_output=True, text=True,
                                 check=True).stdout.split()
            mb = path.stat().st_size / 1e6
            print(f"file of {mb:.0f} MB ({n} layers): {out[0]} s, {mb / float(out[0]):.1f} MB/s,"
                  f" peak RSS {out[1]} MB, {out[2]} findings")
    if args.zoo:
        zoo(args.zoo)


if __name__ == "__main__":
    main()
