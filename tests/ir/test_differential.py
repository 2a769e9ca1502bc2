"""The verdict is OpenVINO's: random small nets (every pooling op and version, the global reductions and
adaptive pools with their Consts in a .bin, branches, one or two Results), each edited 0 to 3 times the
way hands and tools break files (tests/helpers/ovdiff.py: graph, attributes, versions, element types, declared dims,
Consts, XML), against read_model + compile_model on the CPU in child processes (a crash is a refusal). check
has an error exactly where OpenVINO refuses the file, leaving aside the declared dims OpenVINO ignores and
irpool exists to flag (shape-mismatch, and an edge-mismatch that joins different dims).

CPU facts: the types whose verdict depends most on the CPU (nf4, u2, f4e2m1, the f8 types) are left to
tests/ir/test_eltypes.py. Some verdicts on the types in ovdiff.TYPES are rules measured on this project's AMD EPYC
CPUs only (schemas/openvino.json: an integer AvgPool with one channel and a window of padding only): on another
CPU, a file OpenVINO compiles where irpool's only errors are such rules ("on any CPU measured") is not counted
against irpool there (the rule is the measured CPUs'); everything else is asserted on every machine. Measured
on AMD EPYC family 25 model 17, OpenVINO 2026.4.1: 188 files in the default run, 2,220 in the slow set.
"""
import collections

import numpy as np
import pytest

import irpool
from ovdiff import edited, inferred_dims, openvino_verdicts, random_net, write
from plugin import measured_cpu

pytestmark = [pytest.mark.openvino]

pytest.importorskip("openvino")


def irpool_verdict(path) -> tuple:
    """("ok" | "refused", [findings as text]): refused where check has an error other than declared dims, or
    cannot read the file."""
    try:
        report = irpool.check(path)
    except irpool.IRError as e:
        return "refused", [f"unreadable: {e}"]
    errors = [f for f in report.errors() if f.code != "shape-mismatch"
              and not (f.code == "edge-mismatch" and " joins dims " in f.message)]
    return ("refused" if errors else "ok"), [str(f).split(": ", 1)[1][:200] for f in report.findings]


def run(tmp_path, seed: int, nets: int, edits: int) -> list:
    """[(edits, irpool's verdict and findings, OpenVINO's verdict)] of each file where they disagree, for
    `nets` base nets edited `edits` times each."""
    rng = np.random.default_rng(seed)
    tmp_path = tmp_path / f"seed{seed}"
    tmp_path.mkdir()
    bases = [random_net(rng) for _ in range(nets)]
    paths = [tmp_path / f"base{i}.xml" for i in range(nets)]
    for net, path in zip(bases, paths):
        write(net, path)
    shapes = openvino_verdicts(paths)
    files, said = [], []
    for i, (net, (verdict, got)) in enumerate(zip(bases, shapes)):
        if verdict != "ok":                    # (a random base OpenVINO refuses: edits of it say little)
            continue
        dims = inferred_dims(got, net)
        for k in range(edits):
            change, names = edited(rng, net) if k else (net, [])
            path = tmp_path / f"n{i}_{k}.xml"
            write(change, path, dims)
            files.append(path)
            said.append(names)
    assert len(files) >= nets * edits // 2, "most random base nets should be ones OpenVINO takes"
    verdicts = openvino_verdicts(files)
    disagree = []
    for path, names, (ov_verdict, detail) in zip(files, said, verdicts):
        mine, findings = irpool_verdict(path)
        if mine == "refused" and ov_verdict == "ok" and measured_cpu() is None and \
                all("on any CPU measured" in f for f in findings if f.startswith("error:")):
            continue                           # (a rule of the CPUs measured; this is not one of them)
        if mine != ov_verdict:
            disagree.append((names, mine, findings, ov_verdict, detail if ov_verdict != "ok" else "",
                             f"{tmp_path.name}/{path.name}"))
    print(f"{len(files)} files, {sum(v[0] != 'ok' for v in verdicts)} refused by OpenVINO,"
          f" {len(disagree)} disagreements")
    return disagree


def report(disagree) -> str:
    """The disagreements by kind of edit, two examples each."""
    kinds = collections.defaultdict(list)
    for d in disagree:
        kinds[(d[1], ", ".join(sorted({n.split(": ")[0] + ": " + n.split(": ")[1].split(" ")[0] for n in d[0]})))].append(d)
    lines = []
    for (mine, what), items in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"{len(items)} x irpool {mine}, OpenVINO the other way, after [{what}]")
        for names, _, findings, ov_verdict, detail, name in items[:2]:
            lines.append(f"    {name}: edits {names}; OpenVINO {ov_verdict} {detail}; irpool: {findings[:3]}")
    return "\n".join(lines)


def test_check_refuses_exactly_what_openvino_refuses(tmp_path):
    disagree = run(tmp_path, seed=20261124, nets=60, edits=4)
    assert not disagree, "\n" + report(disagree)


@pytest.mark.slow
def test_check_refuses_exactly_what_openvino_refuses_at_length(tmp_path):
    disagree = []
    for seed in range(5):
        disagree += run(tmp_path, seed=1000 + seed, nets=150, edits=4)
    assert not disagree, "\n" + report(disagree)
