"""Record what OpenVINO's CPU plugin does on this CPU with a fixed corpus, for the replay test on any machine.

    python tests/tools/record_plugin.py --out record.jsonl

One JSONL file: a header line (the CPU: vendor, family, model, model name, every /proc/cpuinfo flag; OpenVINO's
version; the corpus version), then one line per case: its id, the sha256 of its files (the xml, then the bin where
it has one: a change to either is a changed case), the verdict of read_model + compile_model with the default
configuration (ok / refused), the class of the message (validation: read_model; kernels: no kernel among this
CPU's, "Supported primitive descriptors list is empty" or a reorder oneDNN cannot create; plugin: compile_model
elsewhere; crash: the process ended), and the sha256 of the output bits of one inference with a fixed input,
compiled with INFERENCE_PRECISION_HINT=f32 (what irpool's run computes); after a Convolution, the Reduce's input
as the plugin computed it (reduce_input: dtype, shape, base64), outside the hash. Cases run in a child process,
restarted after a crash, each case's .bin written beside its .xml (same stem).

The corpus is made here, from seeds, by hand-written IR text (version 3: every element type through every pooling
op, pools before a Convert, the 4-bit types' channel blocks, negative pads, the differential test's random
layers, and the global pools of record_global.py, planar and channels-last, with planted ties and NaNs): the same
bytes on every machine for one CORPUS_VERSION (change the version whenever a case changes: a record of another
version is skipped by the replay). tests/ir/test_cpu_records.py regenerates it, checks each case's hash and
replays the record: irpool's verdict and bits for the record's CPU must be the recorded ones.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CORPUS_VERSION = "3"
HERE = os.path.dirname(os.path.abspath(__file__))

# Every element type an IR port can name but string and dynamic, with its precision name.
TYPES = {"boolean": "BOOL", "bf16": "BF16", "f16": "FP16", "f32": "FP32", "f64": "FP64", "f8e4m3": "F8E4M3",
         "f8e5m2": "F8E5M2", "f8e8m0": "F8E8M0", "f4e2m1": "F4E2M1", "nf4": "NF4", "i4": "I4", "i8": "I8",
         "i16": "I16", "i32": "I32", "i64": "I64", "u1": "BIN", "u2": "U2", "u3": "U3", "u4": "U4", "u6": "U6",
         "u8": "U8", "u16": "U16", "u32": "U32", "u64": "U64"}
# The types whose inputs numpy (with ml_dtypes) holds one element per item: run and the bits are compared on them.
ARRAYS = {"boolean": "bool", "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
          "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32", "u32": "uint32",
          "i64": "int64", "u64": "uint64"}
POOLS = {"MaxPool-1": 'strides="2,2" pads_begin="0,1" pads_end="1,0" kernel="3,2" rounding_type="floor"',
         "MaxPool-8": 'strides="2,2" dilations="1,2" pads_begin="0,1" pads_end="1,0" kernel="3,2" rounding_type="ceil"',
         "MaxPool-14": 'strides="1,2" dilations="1,1" pads_begin="1,0" pads_end="0,1" kernel="2,2"'
                       ' rounding_type="ceil_torch"',
         "AvgPool-1": 'strides="2,2" pads_begin="0,1" pads_end="1,0" kernel="3,2" exclude-pad="true"'
                      ' rounding_type="floor"',
         "AvgPool-14": 'strides="2,1" pads_begin="1,1" pads_end="1,0" kernel="2,3" exclude-pad="false"'
                       ' rounding_type="ceil_torch"',
         "AvgPool-16": 'strides="2,2" dilations="2,1" pads_begin="0,1" pads_end="1,1" kernel="2,2"'
                       ' exclude-pad="false" rounding_type="ceil"'}


def _port(pid, dims, precision) -> str:
    return f'<port id="{pid}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def net(name: str, shape, pool: str, data: str, indices: bool = False, convert: str | None = None) -> str:
    """Parameter -> pool (-> Convert) -> Result, and the indices of a MaxPool-8/14 to a Result where `indices`.
    Output dims are written -1: read_model infers them (the replay leaves shape findings aside)."""
    op, version, prec = *pool.split("-"), TYPES[name]
    two = op == "MaxPool" and version != "1"
    out = [-1] * len(shape)
    layers = [f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{",".join(map(str, shape))}"'
              f' element_type="{name}"/><output>{_port(0, shape, prec)}</output></layer>',
              f'<layer id="1" name="pool" type="{op}" version="opset{version}"><data {data} auto_pad="explicit"/>'
              f'<input>{_port(0, shape, prec)}</input><output>{_port(1, out, prec)}'
              + (_port(2, out, "I64") if two else "") + "</output></layer>"]
    edges, last = ['<edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>'], (1, 1)
    if convert:
        layers.append(f'<layer id="2" name="convert" type="Convert" version="opset1"><data destination_type='
                      f'"{convert}"/><input>{_port(0, out, prec)}</input><output>{_port(1, out, TYPES[convert])}'
                      "</output></layer>")
        edges.append('<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>')
        last = (2, 1)
    results = [last] + ([(1, 2)] if two and indices else [])
    for n, (lid, port) in enumerate(results):
        layers.append(f'<layer id="{3 + n}" name="out{n}" type="Result" version="opset1"><input>'
                      f'{_port(0, out, "FP32")}</input></layer>')
        edges.append(f'<edge from-layer="{lid}" from-port="{port}" to-layer="{3 + n}" to-port="0"/>')
    return ('<?xml version="1.0"?>\n<net name="record" version="11">\n<layers>\n' + "\n".join(layers)
            + "\n</layers>\n<edges>\n" + "\n".join(edges) + "\n</edges>\n</net>\n")


def corpus() -> list[dict]:
    """Every case of CORPUS_VERSION: {id, xml, bin, type, shape}, in a fixed order."""
    cases = []
    for name in TYPES:                        # every type through every pooling op
        for pool, data in POOLS.items():
            for shape in ([2, 3, 6, 7], [1, 1, 5, 5], [1, 16, 4, 6]):
                for indices in ((False, True) if pool.startswith("MaxPool-") and pool != "MaxPool-1" else (False,)):
                    cid = f"type/{name}/{pool}/{'x'.join(map(str, shape))}" + ("/indices" if indices else "")
                    cases.append(dict(id=cid, xml=net(name, shape, pool, data, indices), type=name, shape=shape))
    for name in ("f32", "f16", "bf16"):                      # the tier tests' graphs: a Convert after the pool
        for dest in ("bf16", "f16", "i8", "f32"):
            for pool in ("MaxPool-1", "AvgPool-1", "MaxPool-8"):
                cases.append(dict(id=f"convert/{name}/{pool}/{dest}", type=name, shape=[1, 3, 6, 6],
                                  xml=net(name, [1, 3, 6, 6], pool, POOLS[pool], convert=dest)))
    for name in ("f4e2m1", "nf4", "u2"):                    # the 4-bit types' channel blocks
        for c in (2, 8, 16, 17, 24, 32):
            cases.append(dict(id=f"block/{name}/C{c}", type=name, shape=[1, c, 4, 4],
                              xml=net(name, [1, c, 4, 4], "AvgPool-1", POOLS["AvgPool-1"])))
    from record_global import global_pools
    return cases + _negative_pads() + _differential() + global_pools()


def _negative_pads() -> list[dict]:
    """Negative pads: test_negative_pads.py's random layers at a fixed seed (MaxPool-8/14 with their indices used,
    as that test writes them), and the same MaxPool-8/14 with their indices unused."""
    _path("helpers", "ir")
    from irbuild import net_xml
    from test_negative_pads import random_layer
    rng, out = np.random.default_rng(51), []
    for n in range(60):
        cfg = random_layer(rng)
        shape = cfg["shape"]
        out.append(dict(id=f"negpad/{n}", xml=net_xml(cfg), type="f32", shape=shape))
        if cfg["op"] == "MaxPool" and cfg["version"] > 1:
            text = net_xml(cfg)
            cut = text.index('<layer id="3"')
            text = text[:cut] + text[text.index("</layer>", cut) + len("</layer>"):]
            text = text.replace('<edge from-layer="1" from-port="2" to-layer="3" to-port="0"/>', "")
            out.append(dict(id=f"negpad/{n}/values-only", xml=text, type="f32", shape=shape))
    return out


def _path(*folders) -> None:
    """The test folders the corpus borrows its random layers from, on sys.path (once)."""
    for folder in folders:
        if os.path.join(HERE, "..", folder) not in sys.path:
            sys.path.insert(0, os.path.join(HERE, "..", folder))


def _differential() -> list[dict]:
    """The differential test's random layers (tests/helpers/ovbuild.py random_config: MaxPool-1/8/14 and
    AvgPool-1/14/16, ranks 3-5, every auto_pad and rounding, f32/f16/i32/u8) at a fixed seed, as IR text."""
    _path("helpers")
    from irbuild import ELEMENT, net_xml
    from ovbuild import random_config
    rng, out = np.random.default_rng(20261128), []
    for n in range(100):
        cfg = random_config(rng)
        out.append(dict(id=f"differential/{n}", xml=net_xml(cfg), type=ELEMENT[cfg["dtype"]], shape=cfg["shape"]))
    return out


def input_for(case) -> np.ndarray | None:
    """The fixed input of a case: seeded by its id; None for the types numpy does not hold (verdict only)."""
    dtype = ARRAYS.get(case["type"])
    if dtype is None:
        return None
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(case["id"].encode()).digest()[:8], "little"))
    if dtype == "bool":
        return rng.random(case["shape"]) < 0.5
    if dtype.startswith(("int", "uint")):
        info = np.iinfo(dtype)
        return rng.integers(max(info.min, -1000), min(info.max, 1000), case["shape"], endpoint=True).astype(dtype)
    x = rng.standard_normal(case["shape"]).astype(np.float32) * 4
    x[rng.random(x.shape) < 0.1] = -0.0
    if case.get("plant"):
        from record_global import planted
        x = planted(x, case["plant"], rng)
    if dtype == "bfloat16":
        import ml_dtypes
        return x.astype(ml_dtypes.bfloat16)
    return x.astype(dtype)


def sha256_of(case) -> str:
    """The hash a record keeps of a case's files: its xml, then its bin (the global pools' weights and axes; the
    other cases have none: the xml alone)."""
    return hashlib.sha256(case["xml"].encode() + case.get("bin", b"")).hexdigest()


def write_case(case, xml_path: str) -> None:
    """A case's xml at xml_path and, where it has weights, its bin beside it (same stem), as read_model reads it."""
    with open(xml_path, "w", encoding="utf-8") as f:
        f.write(case["xml"])
    if case.get("bin"):
        with open(xml_path[:-4] + ".bin", "wb") as f:
            f.write(case["bin"])


def folder_flags(folder: str):
    """The /proc/cpuinfo flags of a record folder's cpu.txt (lscpu's "Flags:" line); None where it has none."""
    path = os.path.join(folder, "cpu.txt")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key.strip().lower() == "flags":
                return frozenset(value.split())
    return None


def digest(arrays) -> str:
    """sha256 of the outputs' bits in order (each as its bytes, C order)."""
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).view(np.uint8).tobytes())
    return h.hexdigest()


_CHILD = r"""
import json, sys, numpy as np, openvino as ov
sys.path.insert(0, sys.argv[1])
from record_plugin import digest, keep, stage_of
core = ov.Core()
for line in sys.stdin:
    xml, npy, kept = json.loads(line)
    rec = {"verdict": "ok", "class": None, "bits": None}
    try:
        model = core.read_model(xml)
    except Exception as e:
        print(json.dumps({"verdict": "refused", "class": "validation", "bits": None,
                          "message": " ".join(str(e).split())[-300:]}), flush=True)
        continue
    try:
        core.compile_model(model, "CPU")
    except Exception as e:
        rec = {"verdict": "refused", "class": stage_of(str(e)), "bits": None,
               "message": " ".join(str(e).split())[-300:]}
    if npy and rec["verdict"] == "ok":
        try:
            c = core.compile_model(core.read_model(xml), "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            outs = [np.asarray(v) for v in c([np.load(npy)]).values()]
            if kept is not None:              # the Reduce's input, a Result of its own: recorded, not hashed
                rec["reduce_input"] = keep(outs.pop(kept))
            rec["bits"] = digest(outs)
        except Exception as e:
            rec["bits_refused"] = " ".join(str(e).split())[-200:]
    print(json.dumps(rec), flush=True)
"""


def keep(a: np.ndarray) -> dict:
    """An array as a record keeps it: dtype, shape and its bytes (C order) in base64."""
    a = np.ascontiguousarray(a)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "base64": base64.b64encode(a.tobytes()).decode()}


def kept(d: dict) -> np.ndarray:
    """The array `keep` recorded."""
    return np.frombuffer(base64.b64decode(d["base64"]), np.dtype(d["dtype"])).reshape(d["shape"])


def stage_of(message: str) -> str:
    """kernels (no kernel among this CPU's: another CPU may have one) or plugin (compile_model elsewhere)."""
    kernels = ("Supported primitive descriptors list is empty", "could not create reorder primitive")
    return "kernels" if any(k in message for k in kernels) else "plugin"


def run_cases(cases, folder: str) -> list[dict]:
    """Each case through OpenVINO in a child process, restarted after a crash (which refuses that case)."""
    jobs = []
    for n, case in enumerate(cases):
        xml = os.path.join(folder, f"c{n}.xml")
        write_case(case, xml)
        x = input_for(case)
        npy = os.path.join(folder, f"c{n}.npy") if x is not None else ""
        if npy:
            np.save(npy, x)
        jobs.append(json.dumps([xml, npy, case.get("conv_result")]) + "\n")
    out = []
    while len(out) < len(jobs):
        r = subprocess.run([sys.executable, "-c", _CHILD, HERE], input="".join(jobs[len(out):]), text=True,
                           capture_output=True, timeout=3600)
        out += [json.loads(line) for line in r.stdout.splitlines()]
        if len(out) < len(jobs):
            out.append({"verdict": "refused", "class": "crash", "bits": None,
                        "message": f"exit status {r.returncode}: {r.stderr[-200:]}"})
    return out


def cpu_identity() -> dict:
    """This CPU as /proc/cpuinfo gives it (the first processor)."""
    info = {}
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                break
            key, _, value = line.partition(":")
            info[key.strip()] = value.strip()
    return {"vendor": info.get("vendor_id"), "family": int(info.get("cpu family", -1)),
            "model": int(info.get("model", -1)), "model_name": info.get("model name"),
            "flags": info.get("flags", "").split()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="the JSONL file to write")
    args = ap.parse_args(argv)
    import openvino as ov
    start, cases = time.time(), corpus()
    with tempfile.TemporaryDirectory() as folder:
        results = run_cases(cases, folder)
    header = dict(record="irpool cpu record", corpus_version=CORPUS_VERSION, openvino=ov.get_version(),
                  cpu=cpu_identity(), cases=len(cases), seconds=round(time.time() - start, 1),
                  onednn_max_cpu_isa=os.environ.get("ONEDNN_MAX_CPU_ISA"))
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(json.dumps(header) + "\n")
        for case, res in zip(cases, results):
            row = dict(id=case["id"], sha256=sha256_of(case), **res)
            f.write(json.dumps(row) + "\n")
    print(f"{len(cases)} cases in {header['seconds']} s on {header['cpu']['model_name']}: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
