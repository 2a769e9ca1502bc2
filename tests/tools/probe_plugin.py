"""Probe what OpenVINO's CPU plugin compiles, on this machine, for every pooling op, element type and layout
condition irpool's check has a rule for; print it beside the CPU, and compare it with schemas/openvino.json.

Run it on any machine (`python tests/tools/probe_plugin.py [--json]`): the rules irpool makes errors must hold
here too; the ones it makes warnings (`cpu-dependent`) are expected to differ between CPUs.

Each refusal is classified by the place in OpenVINO that raised it:
  validation   op validation while the model is built: refused on every machine
  plugin       the CPU plugin before any kernel is looked for (the model's input types, oneDNN's type map):
               code that does not branch on the CPU, refused on every machine
  kernels      "Supported primitive descriptors list is empty": no kernel for this type and layout among the
               ones this CPU's instruction set has (oneDNN's and the plugin's JIT kernels are chosen per ISA),
               so another CPU may compile it
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys

FLAGS = ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_bf16", "amx_int8", "amx_fp16")


def cpu() -> dict:
    """This machine's CPU model and the flags that decide which kernels the plugin has."""
    model, flags = platform.processor() or "?", set()
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            key, _, val = line.partition(":")
            if key.strip() == "Model name":
                model = val.strip()
            elif key.strip() == "Flags":
                flags = set(val.split())
    except (OSError, subprocess.CalledProcessError):
        pass
    return {"model": model, "flags": [f for f in FLAGS if f in flags]}


def stage(message: str) -> str:
    """Where a compile_model refusal came from: `kernels` (another CPU may have the kernel) or `plugin`."""
    if "Supported primitive descriptors list is empty" in message or "could not create reorder primitive" in message:
        return "kernels"
    return "plugin"


def compile_result(core, model, hint_f32: bool = True) -> tuple[str, str]:
    """("compiles", "") or (stage, message) for compiling `model` on the CPU plugin in f32 precision (with
    INFERENCE_PRECISION_HINT=f32, as run computes), or with compile_model's default configuration (the verdict
    check gives: below AVX-512 they differ for bf16 pools, docs/exactness.md)."""
    try:
        core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"} if hint_f32 else {})
    except Exception as e:                     # noqa: BLE001 (any refusal is a result here)
        msg = " ".join(str(e).split())
        return stage(msg), msg
    return "compiles", ""


def cases():
    """(rule name, op, builder, channels, uses indices): every condition schemas/openvino.json has a rule for."""
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    import openvino.opset14 as o14
    import openvino.opset16 as o16
    ops = {
        "MaxPool-1": lambda p: o1.max_pool(p, [2, 2], [1, 1], [0, 0], [2, 2]),
        "MaxPool-8": lambda p: o8.max_pool(p, [2, 2], [1, 1], [1, 0], [0, 1], [3, 2], "ceil"),
        "MaxPool-14": lambda p: o14.max_pool(p, [2, 2], [1, 1], [1, 0], [0, 1], [3, 2], "ceil_torch"),
        "AvgPool-1": lambda p: o1.avg_pool(p, [2, 2], [1, 0], [1, 1], [3, 2], False, "ceil"),
        "AvgPool-14": lambda p: o14.avg_pool(p, [2, 2], [1, 0], [1, 1], [3, 2], False, "ceil_torch"),
        "AvgPool-16": lambda p: o16.avg_pool(p, [1, 2], [0, 1], [0, 1], [2, 2], True, "floor", "explicit", [1, 1]),
    }
    dilated = {"AvgPool-16": lambda p: o16.avg_pool(p, [1, 2], [0, 1], [0, 1], [2, 2], True, "floor", "explicit",
                                                    [2, 1]),
               "MaxPool-8": lambda p: o8.max_pool(p, [1, 1], [2, 1], [0, 0], [0, 0], [2, 2]),
               "MaxPool-14": lambda p: o14.max_pool(p, [1, 1], [2, 1], [0, 0], [0, 0], [2, 2])}
    for op, build in ops.items():
        for channels in (1, 3, 16):      # 16: f4e2m1 fills the AVX-512 channel blocks
            yield op, "plain", build, channels, False
            if op in dilated:
                yield op, "dilated", dilated[op], channels, False
            if op in ("MaxPool-8", "MaxPool-14"):
                yield op, "indices", build, channels, True


def probe() -> list[dict]:
    import openvino as ov
    import openvino.opset1 as o1
    core = ov.Core()
    types = sorted(t for t in dir(ov.Type) if not t.startswith("_") and isinstance(getattr(ov.Type, t), ov.Type))
    rows = []
    for op, condition, build, channels, indices in cases():
        for name in types:
            row = dict(op=op, condition=condition, channels=channels, type=name, result="compiles", message="")
            try:
                p = o1.parameter([2, channels, 6, 7], getattr(ov.Type, name), name="x")
                node = build(p)
                model = ov.Model([node.output(0)] + ([node.output(1)] if indices else []), [p])
            except Exception as e:                 # noqa: BLE001 (any refusal is a result here)
                row.update(result="validation", message=str(e).strip().splitlines()[-1][:200])
                rows.append(row)
                continue
            result, msg = compile_result(core, model)
            row.update(result=result, message=msg[-200:])
            rows.append(row)
    return rows


def expected(op: str, condition: str, channels: int, name: str) -> str:
    """What irpool's check says of this case (from schemas/openvino.json): compiles, error or warning."""
    from types import SimpleNamespace

    from irpool.ir.read.element_types import element_type
    from irpool.ir.ops.type_refusals import type_refusal
    pl = SimpleNamespace(op=op, spec=SimpleNamespace(dilations=(2, 1) if condition == "dilated" else (1, 1)))
    et = element_type(name)
    codes = {r[0] for r in (type_refusal(pl, et, channels=channels),
                            type_refusal(pl, et, indices_used=True) if condition == "indices" else None) if r}
    return "error" if "bad-precision" in codes else "warning" if codes else "compiles"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true", help="print every case as JSON")
    args = ap.parse_args(argv)
    import openvino as ov
    rows = probe()
    machine = cpu()
    if args.json:
        json.dump({"openvino": ov.__version__, "cpu": machine, "cases": rows}, sys.stdout, indent=1)
        print()
        return 0
    print(f"OpenVINO {ov.__version__}; CPU: {machine['model']}; flags: {', '.join(machine['flags']) or 'none of'}"
          f" ({', '.join(FLAGS)} looked for)")
    bad = 0
    for r in rows:
        want = expected(r["op"], r["condition"], r["channels"], r["type"])
        if r["result"] == "compiles":
            agree = want in ("compiles", "warning")
        elif r["result"] == "kernels":
            agree = want in ("warning", "error")
        else:                                   # validation or plugin: refused on every machine
            agree = want == "error"
        if r["result"] != "compiles" or not agree:
            print(f"{'  ' if agree else '!!'} {r['op']:<11} {r['condition']:<8} C={r['channels']} {r['type']:<7}"
                  f" {r['result']:<10} schema: {want:<8} {r['message'][-90:]}")
        bad += not agree
    print(f"{len(rows)} cases, {sum(r['result'] == 'compiles' for r in rows)} compile;"
          f" {bad} disagree with schemas/openvino.json")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
