"""What OpenVINO reads and compiles but fails to run (irpool/ir/ops/inference.py): a MaxPool-8 or MaxPool-14 without
dilations, or with an empty list, or of an index_element_type its reference does not run, whose indices output feeds
a Result. Each case's verdict is OpenVINO's own
(read_model + compile_model + one inference, in a child process); check must warn (fails-at-inference) exactly
where that inference fails, run must refuse it naming the layer and its line, and compute the same bits as the
plugin where it runs."""
import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

import irpool

pytestmark = [pytest.mark.openvino]
pytest.importorskip("openvino")

CASES = list(itertools.product((8, 14), (1, 2, 3), ("missing", "empty", "written"), (True, False)))


def net(version, nd, dilations, used, index_type) -> str:
    """Parameter x [1,3,7...] -> MaxPool (kernel 2, stride 2, ceil) -> a Result for its values, and one for its
    indices if `used`."""
    dims, out = [1, 3] + [7] * nd, [1, 3] + [4] * nd

    def port(i, ds, p="FP32"):
        return f'<port id="{i}" precision="{p}">' + "".join(f"<dim>{d}</dim>" for d in ds) + "</port>"
    attr = {"missing": "", "empty": ' dilations=""', "written": f' dilations="{",".join(["1"] * nd)}"'}[dilations]
    two, ip = ",".join(["2"] * nd), _PRECISION.get(index_type, index_type.upper())
    zero = ",".join(["0"] * nd)
    result = f'<layer id="3" name="r2" type="Result" version="opset1"><input>{port(0, out, ip)}</input></layer>'
    return f'''<?xml version="1.0"?>
<net name="t" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="{','.join(map(str, dims))}" element_type="f32"/>
<output>{port(0, dims)}</output></layer>
<layer id="1" name="pool" type="MaxPool" version="opset{version}">
<data kernel="{two}" strides="{two}" pads_begin="{zero}" pads_end="{zero}" rounding_type="ceil" auto_pad="explicit"
 index_element_type="{index_type}"{attr}/>
<input>{port(0, dims)}</input><output>{port(1, out)}{port(2, out, ip)}</output></layer>
<layer id="2" name="r" type="Result" version="opset1"><input>{port(0, out)}</input></layer>
{result if used else ""}
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/>
<edge from-layer="1" from-port="1" to-layer="2" to-port="0"/>
{'<edge from-layer="1" from-port="2" to-layer="3" to-port="0"/>' if used else ""}</edges></net>
'''


_PRECISION = {"f32": "FP32", "f16": "FP16", "boolean": "BOOL"}      # (the IR spelling of a type, where not upper())

_CHILD = """
import json, sys, numpy as np, openvino as ov
core, answers = ov.Core(), []
for path in sys.argv[1:]:
    model = core.read_model(path)
    compiled = core.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    x = np.load(path[:-4] + ".npy")
    try:
        out = compiled.create_infer_request().infer({0: x})
    except Exception as e:
        answers.append({"refused": " ".join(str(e).split())})
        continue
    answers.append({"outputs": [np.asarray(v).tolist() for v in out.values()],
                    "types": [str(np.asarray(v).dtype) for v in out.values()]})
print(json.dumps(answers))
"""


def test_maxpool_without_dilations_fails_at_inference_where_its_indices_are_used(tmp_path):
    paths = []
    for k, (version, nd, dilations, used) in enumerate(CASES):
        path = tmp_path / f"m{k}.xml"
        path.write_text(net(version, nd, dilations, used, ("i32", "i64")[k % 2]))
        np.save(tmp_path / f"m{k}.npy", np.random.default_rng(k).standard_normal([1, 3] + [7] * nd).astype(np.float32))
        paths.append(str(path))
    r = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    answers = json.loads(r.stdout)
    failing = 0
    for (version, nd, dilations, used), path, answer in zip(CASES, paths, answers):
        case = (version, nd, dilations, used)
        fails = "refused" in answer
        assert fails == (used and dilations != "written"), (case, answer)      # the measured extent
        report = irpool.check(path)
        assert report.ok, (case, [str(f) for f in report.findings])            # read and compiled: no error
        assert [f.code for f in report.findings] == (["fails-at-inference"] if fails else []), \
            (case, [str(f) for f in report.findings])
        x = np.load(path[:-4] + ".npy")
        if fails:
            failing += 1
            assert "does not match the 3D implementation" in answer["refused"], answer["refused"]
            assert f"MaxPool-{version} " in report.findings[0].message and report.findings[0].layer_name == "pool"
            with pytest.raises(irpool.IRError, match="every inference fails") as e:
                irpool.run(path, x)
            assert (e.value.code, e.value.layer_name, e.value.line) == ("fails-at-inference", "pool", 5), case
            continue
        got = irpool.run(path, x)
        assert len(got) == len(answer["outputs"]), case
        for have, want, t in zip(got.values(), answer["outputs"], answer["types"]):
            want = np.asarray(want, dtype=t)
            assert have.dtype == want.dtype and np.array_equal(have, want), case
    assert failing == 12


def test_the_seed_example_checks_ok_as_a_bare_layer_and_run_refuses_its_indices(tmp_path):
    """examples/seed_maxpool_valid.xml (README's check): a bare layer feeds no Result, so check is ok; put in a net
    whose Results read both outputs (as run --against does) it fails in OpenVINO: run, which gives both, refuses."""
    import pathlib
    seed = pathlib.Path(__file__).parent.parent.parent / "examples" / "seed_maxpool_valid.xml"
    report = irpool.check(seed)
    assert report.ok and not report.findings
    with pytest.raises(irpool.IRError, match="MaxPool-8 without dilations whose indices output is used") as e:
        irpool.run(seed, np.zeros((1, 3, 32, 32), np.float32))
    assert (e.value.layer_name, e.value.line) == ("pool1", 2)


INDEX_TYPES = ("i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f16", "f32", "boolean")


def test_maxpool_of_an_index_type_the_reference_does_not_run_fails_at_inference_where_used(tmp_path):
    """Each index_element_type, MaxPool-8 and -14 (dilations written), indices used or not: check warns exactly where
    OpenVINO's inference fails (an audit found f32 and u8 said "ok"), and run refuses those and agrees elsewhere."""
    cases = list(itertools.product((8, 14), INDEX_TYPES, (True, False)))
    paths = []
    for k, (version, index_type, used) in enumerate(cases):
        path = tmp_path / f"t{k}.xml"
        path.write_text(net(version, 2, "written", used, index_type))
        np.save(tmp_path / f"t{k}.npy", np.random.default_rng(k).standard_normal((1, 3, 7, 7)).astype(np.float32))
        paths.append(str(path))
    r = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    failing = 0
    for case, path, answer in zip(cases, paths, json.loads(r.stdout)):
        fails = "refused" in answer
        failing += fails
        report = irpool.check(path)
        assert report.ok, (case, [str(f) for f in report.findings])
        assert ("fails-at-inference" in [f.code for f in report.findings]) == fails, (case, answer)
        x = np.load(path[:-4] + ".npy")
        if fails:
            with pytest.raises(irpool.IRError, match="every inference fails") as e:
                irpool.run(path, x)
            assert e.value.code == "fails-at-inference" and f"index_element_type {case[1]}" in e.value.reason
            continue
        for have, want, t in zip(irpool.run(path, x).values(), answer["outputs"], answer["types"]):
            assert have.dtype == np.dtype(t) and np.array_equal(have, np.asarray(want, dtype=t)), case
    assert failing == 10            # the measured extent: i8, u8, f16, f32 and boolean indices, used, in both versions
