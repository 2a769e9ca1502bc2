"""OpenVINO's CPU plugin as the tests ask it: a model compiled in a child process (a crash is a refusal, not the
end of the run), and which of the measured CPUs this machine is."""
from __future__ import annotations

import json
import subprocess
import sys

_CHILD = r"""
import json, sys
import openvino as ov
core = ov.Core()
for path in sys.argv[1:]:
    try:
        core.compile_model(core.read_model(path), "CPU")
        print(json.dumps("ok"), flush=True)
    except Exception as e:
        print(json.dumps(" ".join(str(e).split())[-300:]), flush=True)
"""


def compile_in_child(paths) -> list[str]:
    """'ok' or the refusal for each IR file, compiled by OpenVINO's CPU plugin in a child process (restarted
    after a crash, which counts as a refusal). The paths go in argv, not stdin: `import openvino` sends its
    telemetry from a thread that forks (openvino_telemetry backend_ga4.send, a multiprocessing.Process), and a
    fork taken while the main thread held sys.stdin's lock closes stdin in the fork and waits on that lock for
    ever, holding the stdout pipe open: subprocess.run never returned (seen on AMD EPYC family 25 model 17)."""
    out = []
    while len(out) < len(paths):
        rest = paths[len(out):]
        proc = subprocess.run([sys.executable, "-c", _CHILD, *map(str, rest)], stdin=subprocess.DEVNULL,
                              capture_output=True, text=True)
        got = [json.loads(line) for line in proc.stdout.splitlines()]
        out += got
        if len(got) < len(rest):
            out.append(f"crash (exit {proc.returncode}): {proc.stderr[-200:]}")
    return out


def measured_cpu() -> str | None:
    """This machine's key in schemas/openvino.json "machines", if it is one of the CPUs measured."""
    try:
        info = dict(line.split(":", 1) for line in open("/proc/cpuinfo").read().splitlines() if ":" in line)
    except OSError:
        return None
    info = {k.strip(): v.strip() for k, v in info.items()}
    if info.get("vendor_id") != "AuthenticAMD" or "avx512f" not in info.get("flags", "").split():
        return None
    return {("25", "17"): "amd-epyc-zen4", ("26", "2"): "amd-epyc-zen5"}.get((info.get("cpu family"),
                                                                               info.get("model")))
