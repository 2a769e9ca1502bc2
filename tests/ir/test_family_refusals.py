"""What OpenVINO refuses of a family layer's shape input, where an audit (stop 60) found irpool wrong. The rank of its
Const: a reduction's axes may be a scalar or 1-D, an adaptive pool's output_shape only 1-D (a scalar one was said
"ok", where read_model refuses it; a 2-D one said refused by the reader, where compile_model refuses it). An
output_shape value of -1: compiled, and every inference fails (said "ok"). irpool's verdict and the stage it names
are OpenVINO's on this machine (read_model, compile_model, one inference, in a child process: a refusal may abort)."""
import json
import subprocess
import sys

import numpy as np
import pytest

import irpool

pytestmark = [pytest.mark.openvino]

# (op, the Const's shape)
CASES = [(op, shape) for op in ("AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean") for shape in ((), (2,), (2, 1))]


def _port(pid, dims, precision="FP32"):
    return f'<port id="{pid}" precision="{precision}">' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def _net(op, shape, given=None) -> tuple:
    """x [1,2,7,9] -> op (shape input: a Const of `shape`, values `given` or [3, 4] or [2, 3]) -> Result; (xml, bin)."""
    reduce = op.startswith("Reduce")
    values = np.array(given or ([2, 3] if reduce else [3, 4]), "<i8")[: int(np.prod(shape))].reshape(shape)
    out = [1, 2, 1, 1] if reduce else [1, 2] + [max(v, 0) if v != -1 else 1 for v in values.reshape(-1)][:2]
    version, data = ("opset1", '<data keep_dims="true"/>') if reduce else ("opset8", "")
    data = '<data index_element_type="i32"/>' if op == "AdaptiveMaxPool" else data
    outputs = _port(2, out) + (_port(3, out, "I32") if op == "AdaptiveMaxPool" else "")
    layers = (f'<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,2,7,9" element_type="f32"/>'
              f'<output>{_port(0, [1, 2, 7, 9])}</output></layer>'
              f'<layer id="1" name="c" type="Const" version="opset1"><data element_type="i64"'
              f' shape="{",".join(map(str, shape))}" offset="0" size="{values.nbytes}"/>'
              f'<output>{_port(0, shape, "I64")}</output></layer>'
              f'<layer id="2" name="pool" type="{op}" version="{version}">{data}<input>{_port(0, [1, 2, 7, 9])}'
              f'{_port(1, shape, "I64")}</input><output>{outputs}</output></layer>'
              f'<layer id="3" name="r" type="Result" version="opset1"><input>{_port(0, out)}</input></layer>')
    edges = "".join(f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'
                    for a, b, c, d in ((0, 0, 2, 0), (1, 0, 2, 1), (2, 2, 3, 0)))
    return (f'<?xml version="1.0"?>\n<net name="t" version="11"><layers>{layers}</layers><edges>{edges}</edges></net>\n',
            values.tobytes())


_CHILD = """
import json, sys, numpy as np, openvino as ov
core, said = ov.Core(), []
for path in sys.argv[1:]:
    try:
        model = core.read_model(path)
    except Exception as e:
        said.append("read_model"); continue
    try:
        compiled = core.compile_model(model, "CPU")
    except Exception as e:
        said.append("compile_model"); continue
    try:
        compiled.create_infer_request().infer({0: np.ones((1, 2, 7, 9), np.float32)})
        said.append(None)
    except Exception as e:
        said.append("inference")
print(json.dumps(said))
"""


def _stages(tmp_path, nets) -> tuple:
    """(paths, OpenVINO's stage that refuses each net, None where it runs)."""
    paths = []
    for k, (xml, raw) in enumerate(nets):
        (tmp_path / f"n{k}.xml").write_text(xml)
        (tmp_path / f"n{k}.bin").write_bytes(raw)
        paths.append(str(tmp_path / f"n{k}.xml"))
    r = subprocess.run([sys.executable, "-c", _CHILD, *paths], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return paths, json.loads(r.stdout)


def test_a_shape_inputs_rank_is_judged_as_openvino_judges_it(tmp_path):
    pytest.importorskip("openvino")
    paths, stages = _stages(tmp_path, [_net(op, shape) for op, shape in CASES])
    for case, path, stage in zip(CASES, paths, stages):
        findings = irpool.check(path).findings
        refusals = [f for f in findings if f.code == "bad-weights"]
        assert len(refusals) == (stage is not None), (case, stage, [str(f) for f in findings])
        if stage is not None:
            assert f"{stage} refuses a shape of rank {len(case[1])}" in refusals[0].message, (case, str(refusals[0]))
            assert refusals[0].layer_name == "c" and refusals[0].severity == "error"
    assert stages.count("read_model") == 3 and stages.count("compile_model") == 2    # (the measured extent)


BINS = [(op, values) for op in ("AdaptiveAvgPool", "AdaptiveMaxPool") for values in ([-1, 4], [-1, -1], [-2, 4], [3, 4])]


def test_an_output_shape_of_minus_one_fails_at_inference_as_openvino_fails(tmp_path):
    pytest.importorskip("openvino")
    paths, stages = _stages(tmp_path, [_net(op, (2,), values) for op, values in BINS])
    for case, path, stage in zip(BINS, paths, stages):
        assert stage in (None, "inference"), (case, stage)
        report = irpool.check(path)
        assert report.ok, (case, [str(f) for f in report.findings])
        warned = [f for f in report.findings if f.code == "fails-at-inference"]
        assert len(warned) == (stage == "inference"), (case, stage, [str(f) for f in report.findings])
        x = np.ones((1, 2, 7, 9), np.float32)
        if stage == "inference":
            with pytest.raises(irpool.IRError, match="every inference fails") as e:
                irpool.run(path, x, layer="pool")
            assert e.value.code == "fails-at-inference" and e.value.layer_name == "pool"
        else:
            irpool.run(path, x, layer="pool")
    assert stages.count("inference") == 4               # (the measured extent: -1, in both ops)
