"""A file that was not checked never looks checked, and a mistake in the command is not a finding in the model:
pooling layers whose output check cannot compute are counted apart in every format (text, JSON, SARIF, GitHub);
--shape names a model's input with its rank and agrees with its numeric dims; run takes the input the runtime
takes. Expected values come from the files themselves (their layers counted with lxml) and from onnxruntime and
OpenVINO, never from irpool."""
import json
import shutil
import subprocess
import sys

import numpy as np
import pytest
from lxml import etree

import irpool
from irpool.formats import FileResult, summary_line

from clitool import cli

pytestmark = [pytest.mark.openvino, pytest.mark.onnxruntime, pytest.mark.onnx]

EXAMPLES = __import__("pathlib").Path(__file__).parent.parent.parent / "examples"


def _types(xml) -> list:
    return [el.get("type") for el in etree.parse(str(xml)).iter("layer")]


def test_a_missing_weights_file_is_refused_and_its_family_layers_unchecked_and_said(tmp_path):
    ov = pytest.importorskip("openvino")
    shutil.copy(EXAMPLES / "torch_pools.xml", tmp_path)           # (its .bin left behind)
    xml = tmp_path / "torch_pools.xml"
    family = [t for t in _types(xml) if t in ("AdaptiveAvgPool", "AdaptiveMaxPool", "ReduceMean", "ReduceMax")]
    pools = [t for t in _types(xml) if t in ("MaxPool", "AvgPool")]
    assert family and pools
    with pytest.raises(RuntimeError, match="bin file cannot be found"):
        ov.Core().read_model(str(xml))
    report = irpool.check(xml)
    (error,) = report.errors()                  # read_model's refusal, once, at a Const; the family unchecked
    assert error.code == "bad-weights" and error.layer_type == "Const" and "does not exist" in error.message
    assert sum(n for by in report.unchecked.values() for n in by.values()) == len(family)
    assert report.pooling_layers == len(pools)
    r = cli("check", xml)
    assert r.returncode == 1 and r.stdout.count("[unchecked]") == len(family) and "[bad-weights]" in r.stdout
    doc = json.loads(cli("check", xml, "--json").stdout)
    assert doc["summary"]["unchecked"] == len(family)
    sarif = json.loads(cli("check", xml, "--format", "sarif").stdout)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["warning"]
    assert "unchecked" in cli("check", xml, "--format", "github").stdout.splitlines()[-1]
    shutil.copy(EXAMPLES / "torch_pools.bin", tmp_path)           # with it: every layer checked
    assert not irpool.check(xml).unchecked and irpool.check(xml).ok


def test_pools_on_dynamic_dims_are_counted_unchecked(tmp_path):
    ov = pytest.importorskip("openvino")
    import openvino.opset8 as o8
    p = o8.parameter([-1, 3, -1, -1], ov.Type.f32, name="x")
    m = o8.max_pool(p, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2])
    a = o8.avg_pool(m.output(0), [2, 2], [0, 0], [0, 0], [2, 2], True)
    ov.save_model(ov.Model([a], [p]), tmp_path / "dynamic.xml")
    q = o8.parameter([1, 3, ov.Dimension(4, 9), -1], ov.Type.f32, name="x")    # H bounded: checked within it
    ov.save_model(ov.Model([o8.max_pool(q, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]).output(0)], [q]),
                  tmp_path / "bounded.xml")
    report = irpool.check(tmp_path / "dynamic.xml")
    assert report.ok and report.unchecked and sum(report.unchecked[w][k] for w in report.unchecked
                                                  for k in report.unchecked[w]) == 2
    assert "2 unchecked (their spatial input dims are dynamic" in report.summary
    assert not irpool.check(tmp_path / "bounded.xml").unchecked
    assert "give the model's input shapes with --shape NAME=dims" in report.summary
    assert not irpool.check(tmp_path / "dynamic.xml", shapes={"x": (1, 3, 8, 8)}).unchecked     # (test_reshape)
    r = cli("explain", tmp_path / "dynamic.xml", "--shape", "x=1,3,8,8")
    assert r.returncode == 0 and "input [1,3,8,8]" in r.stdout and "input [1,3,4,4]" in r.stdout, r.stdout
    for given, says in (("y=1,3,8,8", "no input named 'y' (its inputs: 'x')"), ("x=1,3,8", "3 dims, but input 'x'"),
                        ("x=1,4,8,8", "dim 1 is 4, but input 'x' declares [?,3,?,?]")):
        for verb in ("check", "explain"):
            r = cli(verb, tmp_path / "dynamic.xml", "--shape", given)
            assert r.returncode == 2 and says in r.stderr, (verb, given, r.stderr)
    r = cli("check", tmp_path / "bounded.xml", "--shape", "x=1,3,10,5")
    assert r.returncode == 2 and "within their bounds" in r.stderr
    r = cli("check", "--fix", tmp_path / "dynamic.xml", "--shape", "x=1,3,8,8")
    assert r.returncode == 2 and "--fix without --shape" in r.stderr


def test_shape_mistakes_exit_2_naming_the_input(tmp_path):
    P = pytest.importorskip("onnxpeers")
    m = P.model("MaxPool", 13, dict(kernel_shape=[2, 2]), ["N", 3, "H", "W"])
    path = tmp_path / "symbolic.onnx"
    path.write_bytes(m.SerializeToString())
    report = irpool.check(path)
    assert report.unchecked and "give --shape" in report.summary
    assert not irpool.check(path, shapes={"x": (1, 3, 9, 9)}).unchecked
    for given, said in [("y=1,3,17,17", "no input named 'y' (its inputs: 'x')"),
                        ("x=1,3", "2 dims, but input 'x' is [N,3,H,W], of rank 4"),
                        ("x=1,4,9,9", "dim 1 is 4, but input 'x' declares [N,3,H,W]")]:
        for verb in ("check", "explain"):
            r = cli(verb, path, "--shape", given)
            assert r.returncode == 2 and said in r.stderr, (verb, given, r.stderr)
    assert "None" not in cli("explain", path).stdout


def test_run_takes_what_the_runtime_takes(tmp_path):
    P = pytest.importorskip("onnxpeers")
    m = P.model("MaxPool", 13, dict(kernel_shape=[2, 2]), [1, 3, 8, 8])
    path = tmp_path / "m.onnx"
    path.write_bytes(m.SerializeToString())
    program = irpool.load(path, layer="pool")
    for x in (np.zeros((1, 3, 8, 8), np.float64), np.zeros((1, 3, 9, 8), np.float32)):
        with pytest.raises(Exception):
            P.session(m).run(None, {"x": x})                 # onnxruntime refuses it ...
        with pytest.raises(irpool.IRError, match="the model declares"):
            program.run(x)                                    # ... and so does irpool
    # IR: a layer run alone must fit its input port; in a net, OpenVINO takes what the producer gives
    ov = pytest.importorskip("openvino")
    xml = (EXAMPLES / "small_net.xml").read_text()
    (tmp_path / "net.xml").write_text(xml)
    pool = etree.fromstring(xml.encode()).find(".//layer[@type='MaxPool']")
    shape = [int(d.text) for d in pool.find("input/port")]
    with pytest.raises(irpool.IRError, match="element type float64"):
        irpool.load(tmp_path / "net.xml", layer=pool.get("id")).run(np.zeros(shape, np.float64))
    port = etree.tostring(pool.find("input/port")).decode()
    dims = port.split("<dim>")
    huge = xml.replace(port, port.replace(f"<dim>{shape[2]}</dim>", "<dim>1000000000000000000</dim>", 1), 1)
    assert huge != xml and len(dims) == 5
    (tmp_path / "huge.xml").write_text(huge)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    core = ov.Core()
    want = [np.asarray(v) for v in core.compile_model(core.read_model(tmp_path / "huge.xml"), "CPU")([x]).values()]
    got = list(irpool.run(tmp_path / "huge.xml", x).values())
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want):
        assert g.tobytes() == w.astype(g.dtype).tobytes()


def test_counts_are_plural_only_when_they_are_many():
    from irpool.report import Finding
    one = FileResult("a.xml", "error", findings=[Finding("bad-shape", "error", "x", 1)])
    assert summary_line([one]).startswith("1 file: ") and "(1 error, 0 warnings)" in summary_line([one])


def test_unreadable_file_keeps_sarif_execution_unsuccessful(tmp_path):
    (tmp_path / "bad.xml").write_text("<net")
    sarif = json.loads(subprocess.run([sys.executable, "-m", "irpool", "check", str(tmp_path / "bad.xml"),
                                       "--format", "sarif"], capture_output=True, text=True).stdout)
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False


def _onnx_cases():
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto

    def mk(nodes, inputs, outputs, opset=13):
        m = h.make_model(h.make_graph(nodes, "g", inputs, outputs), opset_imports=[h.make_opsetid("", opset)])
        m.ir_version = 10 if opset > 20 else 8
        return m
    x, y = h.make_tensor_value_info("x", T.FLOAT, [1, 1, 8, 8]), h.make_tensor_value_info("y", T.FLOAT, None)

    def mp(i, o, **k):
        return h.make_node("MaxPool", i, o, kernel_shape=[2, 2], **k)

    def avg(et, opset):
        return mk([h.make_node("AveragePool", ["x"], ["y"], kernel_shape=[2, 2])],
                  [h.make_tensor_value_info("x", et, [1, 1, 8, 8])], [h.make_tensor_value_info("y", et, None)], opset)
    then = h.make_graph([mp(["x"], ["t"])], "then", [], [h.make_tensor_value_info("t", T.FLOAT, None)])
    other = h.make_graph([h.make_node("Identity", ["x"], ["e"])], "else", [], [h.make_tensor_value_info("e", T.FLOAT, None)])
    cond = h.make_tensor_value_info("c", T.BOOL, [])
    return {
        "plain": mk([mp(["x"], ["y"])], [x], [y]),
        "cycle": mk([mp(["x2"], ["y"], name="a"), h.make_node("Relu", ["y"], ["x2"], name="b")], [x], [y]),
        "two writers": mk([mp(["x"], ["y"], name="a"), h.make_node("Relu", ["x"], ["y"], name="b")], [x], [y]),
        "no producer": mk([mp(["z"], ["y"])], [x], [y]),
        "no type": mk([mp(["x"], ["y"])], [h.make_value_info("x", onnx.TypeProto())], [y]),
        "opset 28": mk([mp(["x"], ["y"])], [x], [y], 28),
        "opset 29": mk([mp(["x"], ["y"])], [x], [y], 29),
        "MaxPool-1 indices": mk([mp(["x"], ["y", "i"])], [x], [y, h.make_tensor_value_info("i", T.INT64, None)], 7),
        "If without else": mk([h.make_node("If", ["c"], ["y"], then_branch=then)], [x, cond], [y]),
        "If with both": mk([h.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)], [x, cond], [y]),
        "AveragePool-19 double": avg(T.DOUBLE, 19), "AveragePool-19 float16": avg(T.FLOAT16, 19),
        "If branch whose pool the kernel sizes otherwise": mk([h.make_node("If", ["c"], ["y"], then_branch=h.make_graph(
            [mp(["x"], ["t"], auto_pad="SAME_UPPER", dilations=[2, 2])], "then", [],
            [h.make_tensor_value_info("t", T.FLOAT, None)]), else_branch=other)], [x, cond], [y]),
        "main graph pool the kernel sizes otherwise": mk([mp(["x"], ["y"], auto_pad="SAME_UPPER", dilations=[2, 2])],
                                                         [x], [y]),
        "AveragePool-11 double": avg(T.DOUBLE, 11), "MaxPool-12 double": mk(
            [mp(["x"], ["y"])], [h.make_tensor_value_info("x", T.DOUBLE, [1, 1, 8, 8])],
            [h.make_tensor_value_info("y", T.DOUBLE, None)], 12),
    }


def test_onnx_models_onnxruntime_refuses_are_errors():
    """Each model, loaded and run once by onnxruntime: check has an error exactly where onnxruntime fails."""
    P = pytest.importorskip("onnxpeers")
    wrong, refused = [], 0
    for name, m in _onnx_cases().items():
        try:                                    # (loaded, and run once: an If fails only when it runs)
            s = P.session(m)
            s.run(None, {i.name: np.ones([d if isinstance(d, int) else 1 for d in i.shape],      # (If: then)
                                         {"tensor(bool)": bool, "tensor(double)": np.float64,
                                          "tensor(float16)": np.float16}.get(i.type, np.float32))
                         for i in s.get_inputs()})
            loads = True
        except Exception:
            loads = False
        refused += not loads
        report = irpool.check(m.SerializeToString())
        if report.ok != loads:
            wrong.append((name, loads, [str(f) for f in report.findings]))
    assert not wrong, wrong
    assert refused >= 8


def test_layer_words_that_name_one_layer_and_number_another_are_refused(tmp_path):
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    nodes = [h.make_node("AveragePool", ["x"], ["1"], kernel_shape=[2, 2], name="a"),      # node #0, output '1'
             h.make_node("MaxPool", ["1"], ["0"], kernel_shape=[2, 2], name="m")]          # node #1, output '0'
    m = h.make_model(h.make_graph(nodes, "g", [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 8, 8])],
                                  [h.make_tensor_value_info("0", T.FLOAT, None)]), opset_imports=[h.make_opsetid("", 13)])
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    np.save(tmp_path / "x.npy", np.zeros((1, 1, 8, 8), np.float32))
    for verb in (["explain", path], ["run", path, "-i", f"0={tmp_path / 'x.npy'}"]):
        r = cli(*verb, "--layer", "1")
        assert r.returncode == 2 and "ambiguous" in r.stderr and "'m'" in r.stderr and "'a'" in r.stderr, r.stderr
        assert "--layer id:1 or --layer name:1" in r.stderr, r.stderr
    assert cli("explain", path, "--layer", "m").returncode == 0
    doc = json.loads(cli("explain", path, "--layer", "id:1", "--json").stdout)    # node #1, whose index is 1
    assert [e["layer_name"] for e in doc["layers"]] == ["m"]
    doc = json.loads(cli("explain", path, "--layer", "name:1", "--json").stdout)  # the node whose output is '1'
    assert [e["layer_name"] for e in doc["layers"]] == ["a"]
    # IR: a layer named '1' beside the layer whose id is 1
    xml = (EXAMPLES / "small_net.xml").read_text()
    root = etree.fromstring(xml.encode())
    first, second = [el for el in root.iter("layer") if el.get("type") in ("MaxPool", "AvgPool")][:2]
    renamed = xml.replace(f'name="{second.get("name")}"', f'name="{first.get("id")}"', 1)
    (tmp_path / "net.xml").write_text(renamed)
    for verb in ("explain", "run"):
        args = [verb, tmp_path / "net.xml", "--layer", first.get("id")]
        if verb == "run":
            args += ["-i", f"0={tmp_path / 'x.npy'}"]
        r = cli(*args)
        assert r.returncode == 2 and "ambiguous" in r.stderr, (verb, r.stderr)


def test_fix_of_a_ceil_mode_torch_export_leaves_every_tool_passing(tmp_path):
    """TorchScript exports (opset 11 and 17) of ceil-mode pools whose last window onnxruntime's kernel drops
    and ONNX's inference keeps: --fix rewrites the node to ceil_mode=0 with the end pads that keep the kernel's
    windows (MaxPool; an AveragePool that does not count the pad), and every declared dim then follows ONNX's
    inference. onnx.checker's full check passes after as before, onnxruntime loads the model and gives the same
    bits, and OpenVINO the same shape as onnxruntime. An average that counts the pad is left whole, saying why."""
    torch = pytest.importorskip("torch")
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    import warnings
    nn = torch.nn
    cases = {"max1d": (nn.MaxPool1d(2, 2, padding=1, ceil_mode=True), (1, 3, 17), True),
             "avg_exclude": (nn.AvgPool2d(2, 2, padding=1, ceil_mode=True, count_include_pad=False), (1, 3, 17, 17), True),
             "avg_include": (nn.AvgPool2d(2, 2, padding=1, ceil_mode=True, count_include_pad=True), (1, 3, 17, 17), False),
             "max_relu": (nn.Sequential(nn.MaxPool2d(2, 2, padding=1, ceil_mode=True), nn.ReLU()), (1, 3, 17, 17), True)}
    for opset in (11, 17):
        for name, (module, shape, rewritten) in cases.items():
            path = tmp_path / f"{name}_{opset}.onnx"
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(module.eval(), torch.randn(*shape), path, opset_version=opset, dynamo=False)
            before = path.read_bytes()
            onnx.checker.check_model(onnx.load(path), full_check=True)
            r = cli("check", "--fix", path)
            onnx.checker.check_model(onnx.load(path), full_check=True)       # (raises if --fix broke it)
            assert (path.read_bytes() != before) == rewritten, (name, r.stdout)
            assert ("ceil_mode 1 -> 0" in r.stdout) == rewritten and ("--fix leaves it" in r.stdout) != rewritten
            x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
            runs = []
            for model in (before, path.read_bytes()):
                s = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
                runs.append(s.run(None, {s.get_inputs()[0].name: x})[0])
                if model is not before and rewritten:
                    assert list(s.get_outputs()[0].shape) == list(runs[-1].shape)      # (declared = computed)
            assert runs[0].tobytes() == runs[1].tobytes(), name
            if rewritten:
                ov = pytest.importorskip("openvino")
                got = ov.Core().compile_model(ov.Core().read_model(path), "CPU")([x])[0]
                assert np.asarray(got).shape == runs[1].shape


def test_a_pool_in_a_function_body_is_counted_unchecked():
    """A model-local function's pool has no input shape to judge: the summary says it was not checked."""
    onnx = pytest.importorskip("onnx")
    h = onnx.helper
    f = h.make_function("my", "F", ["x"], ["y"], [h.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2])],
                        [h.make_opsetid("", 12)])
    g = h.make_graph([h.make_node("F", ["a"], ["b"], domain="my")], "g", [h.make_tensor_value_info("a", 1, [1, 1, 8])],
                     [h.make_tensor_value_info("b", 1, None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 12), h.make_opsetid("my", 1)], functions=[f])
    report = irpool.check(m.SerializeToString())
    assert [f.code for f in report.findings] == ["unchecked"] and "1 unchecked" in report.summary


def test_a_kernel_behind_a_computed_pad_is_judged_on_the_dims_the_model_bounds(tmp_path):
    """transformers' EfficientNet pads with pads computed from the input's size and pools its map with a kernel
    larger than the map. TorchScript's exports (opsets 11, 17) compute the pads through ConstantOfShape, Slice
    and Transpose, which ONNX's inference does not follow: irpool folds them (onnx/folding.py) and judges the
    pool on the map the model's static input gives, as it judges the dynamo export: onnxruntime's output shape,
    measured, and OpenVINO's refusal, measured."""
    torch = pytest.importorskip("torch")
    ort = pytest.importorskip("onnxruntime")
    ov = pytest.importorskip("openvino")
    import warnings
    F = torch.nn.functional

    class SamePadThenPool(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.c, self.pool = torch.nn.Conv2d(3, 16, 3, 2), torch.nn.MaxPool2d(32, ceil_mode=True)

        def forward(self, x):
            h, w = x.shape[-2:]
            ph, pw = max((-(-h // 2) - 1) * 2 + 3 - h, 0), max((-(-w // 2) - 1) * 2 + 3 - w, 0)
            return self.pool(self.c(F.pad(x, [pw // 2, pw - pw // 2, ph // 2, ph - ph // 2])))
    x = np.zeros((1, 3, 16, 17), np.float32)
    for opset in (11, 17):
        path = tmp_path / f"same_{opset}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(SamePadThenPool().eval(), torch.from_numpy(x), path, opset_version=opset, dynamo=False)
        s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
        got = s.run(None, {s.get_inputs()[0].name: x})[0].shape
        with pytest.raises(Exception):
            ov.Core().compile_model(str(path), "CPU")
        report = irpool.check(path)
        assert not report.unchecked, report.summary
        (f,) = [f for f in report.findings if f.code != "value-divergence"]     # (MLAS's NaN: mlas_nan)
        assert f.code == "runtime-divergence" and "OpenVINO's ONNX frontend refuses it" in f.message
        assert f"onnxruntime's kernel gives [{','.join(map(str, got))}]" in f.message, f.message


def test_a_pool_whose_dims_depend_on_values_is_unchecked_saying_shape_cannot_help():
    """A pool behind a Slice whose end is a value of the data: no inference can know its dims, and the model's
    inputs are static, so the summary says so rather than pointing at --shape."""
    onnx = pytest.importorskip("onnx")
    h, TP = onnx.helper, onnx.TensorProto
    nodes = [h.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
             h.make_node("Cast", ["m"], ["mi"], to=TP.INT64),
             h.make_node("Reshape", ["mi", "one"], ["end"]),
             h.make_node("Slice", ["x", "zero", "end", "axes"], ["cut"]),
             h.make_node("MaxPool", ["cut"], ["y"], kernel_shape=[2, 2])]
    consts = [h.make_tensor("one", TP.INT64, [1], [1]), h.make_tensor("zero", TP.INT64, [1], [0]),
              h.make_tensor("axes", TP.INT64, [1], [2])]
    g = h.make_graph(nodes, "g", [h.make_tensor_value_info("x", TP.FLOAT, [1, 1, 8, 8])],
                     [h.make_tensor_value_info("y", TP.FLOAT, None)], consts)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 13)])
    report = irpool.check(m.SerializeToString())
    assert report.ok and list(report.unchecked.values()) == [{"MaxPool": 1}], report.summary
    assert "the model's inputs are static" in report.summary and "--shape" not in report.summary
