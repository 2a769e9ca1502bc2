"""irpool on .onnx model files, judged against the installed runtimes (tests/helpers/onnxpeers.py), never against its
own numbers: onnxruntime's kernel and graph resolution, ONNX's shape inference, OpenVINO's ONNX frontend.

CPU facts: none. Every rule here is the same on every CPU (shapes and refusals are decided before any
kernel runs; the values compared are max, and averages and Lp norms onnxruntime sums in the order irpool
does, compared bit for bit where docs/onnx.md says they are equal)."""
from __future__ import annotations

import os
import random
import subprocess
import sys

import numpy as np
import pytest

import onnxpeers as P
from onnxpeers import h, onnx

import irpool
import irpool.cli
from irpool.onnx.check import judge_all
from irpool.onnx.runtimes import shapes
from plugin import measured_cpu

pytestmark = [pytest.mark.onnxruntime, pytest.mark.onnx, pytest.mark.openvino]

VERSIONS = {"MaxPool": (1, 8, 10, 11, 12, 22), "AveragePool": (1, 7, 10, 11, 19, 22), "LpPool": (1, 2, 11, 18, 22)}


def _random_node(rng, ndim: int = 1):
    op = rng.choice(list(VERSIONS))
    v = rng.choice(VERSIONS[op])
    a = dict(kernel_shape=[rng.randint(1, 4) for _ in range(ndim)])
    if rng.random() < 0.8:
        a["strides"] = [rng.randint(1, 3) for _ in range(ndim)]
    auto = rng.choice(["NOTSET"] * 3 + ["VALID", "SAME_UPPER", "SAME_LOWER"])
    if auto != "NOTSET":
        a["auto_pad"] = auto
    elif rng.random() < 0.8:
        a["pads"] = [rng.randint(0, 3) for _ in range(2 * ndim)]
    if v >= 10 and not (op == "LpPool" and v < 18) and rng.random() < 0.7:
        a["ceil_mode"] = 1
    if (op == "MaxPool" and v >= 10 or op == "AveragePool" and v >= 19 or op == "LpPool" and v >= 18) \
            and rng.random() < 0.3:
        a["dilations"] = [rng.randint(1, 2) for _ in range(ndim)]
    if op == "AveragePool" and rng.random() < 0.5:
        a["count_include_pad"] = 1
    lengths = [rng.randint(1, 12) for _ in range(ndim)]
    return op, v, a, lengths[0] if ndim == 1 else lengths


def _disagreements(seed: int, count: int, ndim: int = 1) -> dict:
    rng = random.Random(seed)
    bad = {}
    for _ in range(count):
        op, v, a, length = _random_node(rng, ndim)
        spatial = [length] if ndim == 1 else length
        x = np.random.default_rng(seed).standard_normal([1, 2] + spatial).astype(np.float32)
        m = P.model(op, v, a, x.shape)
        (j,) = list(judge_all(m))
        mine = shapes(j)
        kern = P.ort_kernel(m, x)
        case = (op, v, a, length)
        if isinstance(kern, str) != bool(j.error):
            bad.setdefault("refusal", []).append((case, kern if isinstance(kern, str) else kern[0].shape, j.error))
            continue
        if isinstance(kern, str):
            continue
        measured = {"onnxruntime": kern[0].shape, "onnxruntime-graph": P.ort_graph(op, v, a, x),
                    "onnx": P.onnx_inferred(m)}
        ov = P.openvino(m, x)
        measured["openvino"] = "refuses" if isinstance(ov, str) else ov[0].shape
        for runtime, got in measured.items():
            said = "refuses" if isinstance(mine[runtime], str) else mine[runtime]
            if said != got:
                bad.setdefault(runtime, []).append((case, got, said))
        if 0 not in kern[0].shape:                  # run: the node alone, as onnxruntime computes it
            try:
                y = irpool.run(m.SerializeToString(), x, layer="pool")["y"]
            except irpool.IRError as e:
                if "does not compute its windows" not in str(e):       # (said in one line: docs/onnx.md)
                    bad.setdefault("run", []).append((case, str(e)))
                continue
            in_order = op == "MaxPool" or op == "AveragePool" and v >= 19     # (MLAS sums in its order: docs/onnx.md)
            if y.shape != kern[0].shape or (y.tobytes() != kern[0].tobytes() if in_order else
                                            not np.allclose(y, kern[0], rtol=1e-5, atol=1e-6)):
                bad.setdefault("values", []).append((case, kern[0], y))
    return bad


@pytest.mark.parametrize("seed,ndim", [(0, 1), (1, 1), (2, 2)])
def test_shapes_and_refusals_are_each_runtimes(seed, ndim):
    """Random 1-D and 2-D nodes of every op and version: the output dims irpool gives each runtime, whether
    onnxruntime refuses the node, and run's values, against the four runtimes run (1-D: seeds 0-26, 400 nodes
    each, 0 disagreements when written)."""
    bad = _disagreements(seed, 150, ndim)
    assert not bad, {k: v[:5] for k, v in bad.items()}


@pytest.mark.slow
def test_shapes_and_refusals_many():
    bad = {}
    for seed in range(3, 13):
        for k, v in _disagreements(seed, 400, 1 + seed % 2).items():
            bad.setdefault(k, []).extend(v)
    assert not bad, {k: v[:5] for k, v in bad.items()}


def _check(m, **kw):
    return irpool.check(m.SerializeToString(), **kw)


def test_divergence_is_where_runtimes_differ():
    """MaxPool k2 s2 pads 1,1 ceil_mode=1 on 17: the kernel 9, ONNX (opset 12) and OpenVINO 10; at opset 22
    ONNX agrees (9) and only OpenVINO differs; without ceil_mode nobody differs."""
    a = dict(kernel_shape=[2], strides=[2], pads=[1, 1], ceil_mode=1)
    x = np.arange(17, dtype=np.float32).reshape(1, 1, 17)
    for version, differs in ((12, {"onnx", "openvino"}), (22, {"openvino"})):
        m = P.model("MaxPool", version, a, x.shape, declared=[1, 1, 9])
        measured = {"onnx": P.onnx_inferred(P.model("MaxPool", version, a, x.shape))[2],
                    "openvino": P.openvino(m, x)[0].shape[2], "onnxruntime": P.ort_kernel(m, x)[0].shape[2]}
        assert {k for k in ("onnx", "openvino") if measured[k] != measured["onnxruntime"]} == differs
        if "onnx" in differs:               # the message's claim: onnx.checker's full check rejects the right dim
            with pytest.raises(Exception):
                onnx.checker.check_model(m, full_check=True)
        else:
            onnx.checker.check_model(m, full_check=True)
        report = _check(m)
        assert report.ok
        (f,) = [f for f in report.findings if f.code == "runtime-divergence"]
        assert f.severity == "warning" and f.layer_name == "pool" and f.layer_type == "MaxPool"
        for k in differs:
            assert f" {measured[k]}" in f.message
    m = P.model("MaxPool", 12, dict(kernel_shape=[2], strides=[2], pads=[1, 1]), x.shape, declared=[1, 1, 9])
    assert not _check(m).findings


def test_value_divergences_are_openvinos():
    """count_include_pad windows past the padding and storage_order=1 Indices: irpool warns where OpenVINO's
    values or shape differ from onnxruntime's, measured, and not where they agree."""
    x = np.array([[[1, 2, 3, 4]]], np.float32)
    cases = [("AveragePool", 19, dict(kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=1, count_include_pad=1),
              x, False),
             ("AveragePool", 19, dict(kernel_shape=[3], strides=[2], pads=[1, 0], ceil_mode=1, count_include_pad=1),
              x, False),
             ("AveragePool", 19, dict(kernel_shape=[3], strides=[2], pads=[1, 1], count_include_pad=1), x, False),
             ("MaxPool", 12, dict(kernel_shape=[2, 2], storage_order=1), np.arange(12, dtype=np.float32)
              .reshape(1, 1, 3, 4), True),
             ("MaxPool", 12, dict(kernel_shape=[2, 2], storage_order=0), np.arange(12, dtype=np.float32)
              .reshape(1, 1, 3, 4), True)]
    for op, v, a, xx, indices in cases:
        m = P.model(op, v, a, xx.shape, indices=indices)
        ort_out, ov_out = P.ort_kernel(m, xx), P.openvino(m, xx)
        differ = any(o.shape != r.shape or o.tobytes() != r.astype(o.dtype).tobytes() for o, r in zip(ort_out, ov_out))
        warned = any(f.code == "runtime-divergence" or f.code == "value-divergence" and "NaN" not in f.message
                     for f in _check(m).findings)       # (no NaN here: test_nan_windows_as_each_runtime)
        assert warned == differ, (op, a, ort_out, ov_out)


def test_planted_wrong_dims_found_and_fixed(tmp_path):
    """A declared dim that differs from onnxruntime's kernel: shape-mismatch at its node, with the arithmetic;
    --fix writes the kernel's dims, and the fixed file is the original with those dims alone changed."""
    rng = random.Random(7)
    for _ in range(40):
        op, v, a, length = _random_node(rng)
        x = (np.arange(length, dtype=np.float32) + 1).reshape(1, 1, length)
        kern = P.ort_kernel(P.model(op, v, a, x.shape), x)
        if isinstance(kern, str):
            continue
        right = list(kern[0].shape)
        wrong = right[:2] + [right[2] + rng.choice([-1, 1, 2])]
        if wrong[2] < 0:
            continue
        m = P.model(op, v, a, x.shape, declared=wrong)
        report = _check(m)
        (f,) = [f for f in report.findings if f.code == "shape-mismatch"]
        assert f.layer_name == "pool" and f"declared {wrong[2]}" in f.message
        path = tmp_path / "m.onnx"
        onnx.save(m, path)
        assert irpool.cli.main(["check", "--fix", "-q", str(path)]) in (0, 1)
        fixed = onnx.load(path)
        assert [d.dim_value for d in fixed.graph.output[0].type.tensor_type.shape.dim] == right
        m.graph.output[0].type.tensor_type.shape.dim[2].dim_value = right[2]
        assert fixed.SerializeToString() == m.SerializeToString()


def test_external_data_is_never_read(tmp_path):
    """A model whose weights live in a .data file: check and --fix work with that file gone, and --fix keeps
    the reference to it; memory does not hold the weights (the light copy has no tensor values)."""
    from onnx import numpy_helper

    from irpool.onnx import wire
    n = h.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2], strides=[2], pads=[1, 1], ceil_mode=1)
    w = numpy_helper.from_array(np.ones((256, 256), np.float32), "W")
    g = h.make_graph([n], "g", [h.make_tensor_value_info("x", 1, [1, 1, 17])],
                     [h.make_tensor_value_info("y", 1, [1, 1, 10])], initializer=[w])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 12)])
    inline = tmp_path / "inline.onnx"
    onnx.save(m, inline)
    path = tmp_path / "ext.onnx"
    onnx.save(m, path, save_as_external_data=True, location="ext.data", size_threshold=0)
    os.remove(tmp_path / "ext.data")
    report = irpool.check(str(path))
    assert [f.code for f in report.findings] == ["shape-mismatch", "runtime-divergence", "empty-window"]
    assert irpool.cli.main(["check", "--fix", "-q", str(path)]) == 0
    fixed = onnx.load(path, load_external_data=False)
    assert fixed.graph.initializer[0].external_data[0].value == "ext.data"
    data = inline.read_bytes()
    assert len(data) > 256 * 256 * 4 and len(wire.light(data)) < 1000


def test_bodies_and_functions_are_walked():
    """A pool in an If branch is checked and its findings name the If (its kernel's 9 against the branch
    output's inferred 10: onnxruntime fails running the If); a pool in a model-local function whose input is
    undeclared is unchecked, with the reason."""
    pool = h.make_node("MaxPool", ["x"], ["t"], name="inner", kernel_shape=[2], strides=[2], pads=[1, 1], ceil_mode=1)
    then = h.make_graph([pool], "then", [], [h.make_tensor_value_info("t", 1, [1, 1, 10])])
    other = h.make_graph([h.make_node("Identity", ["x"], ["e"])], "else", [], [h.make_tensor_value_info("e", 1, None)])
    node = h.make_node("If", ["c"], ["y"], name="branch", then_branch=then, else_branch=other)
    g = h.make_graph([node], "g", [h.make_tensor_value_info("c", 9, []), h.make_tensor_value_info("x", 1, [1, 1, 17])],
                     [h.make_tensor_value_info("y", 1, None)])
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 12)])
    found = _check(m).findings
    assert [f.code for f in found] == ["bad-graph", "shape-mismatch", "runtime-divergence", "empty-window"]
    assert all(f.layer_name == "inner" and "If 'branch' then_branch" in f.path for f in found)
    s = P.session(m)                        # (the branch's output is allocated as inferred: the run fails)
    with pytest.raises(Exception, match="computed output shape"):
        s.run(None, {"c": np.array(True), "x": np.zeros((1, 1, 17), np.float32)})


def test_symbolic_input_judged_with_shape():
    """An input of symbolic length: onnxruntime trusts a declared concrete output; irpool judges it with
    --shape (as benchmark_app -shape) and says nothing without."""
    a = dict(kernel_shape=[2], strides=[2])
    m = P.model("MaxPool", 12, a, [1, 1, "L"], declared=[1, 1, 8])
    assert not _check(m).findings
    assert not _check(m, shapes={"x": (1, 1, 16)}).findings
    (f,) = _check(m, shapes={"x": (1, 1, 20)}).findings
    assert f.code == "shape-mismatch" and "declared 8" in f.message


def _pools_module(ceil: bool, count_include_pad: bool = True):
    """MaxPool2d 3 s2 p1, AvgPool2d 2 s2 and, behind a flatten, MaxPool1d 2 s2 p1 (on 17x17: its last ceil window
    starts in the padding)."""
    import torch

    class Pools(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.MaxPool2d(3, 2, 1, ceil_mode=ceil)
            self.b = torch.nn.AvgPool2d(2, 2, ceil_mode=ceil, count_include_pad=count_include_pad)
            self.c = torch.nn.MaxPool1d(2, 2, 1, ceil_mode=ceil)

        def forward(self, x):
            y = self.b(torch.relu(self.a(x)))
            return self.c(y.flatten(2))
    return Pools()


def test_symbolic_input_on_the_command_line(tmp_path, capsys):
    """check --shape NAME=dims on a file: the same verdicts as the API's, exit 1 on the mismatch; a malformed
    --shape is one line and exit 2."""
    m = P.model("MaxPool", 12, dict(kernel_shape=[2], strides=[2]), [1, 1, "L"], declared=[1, 1, 8])
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    (want,) = P.ort_kernel(m, np.zeros((1, 1, 20), np.float32))
    assert want.shape == (1, 1, 10)
    assert irpool.cli.main(["check", str(path), "--shape", "x=1,1,16"]) == 0
    assert irpool.cli.main(["check", str(path), "--shape", "x=1,1,20"]) == 1
    said = capsys.readouterr().out
    assert "[shape-mismatch]" in said and "declared 8" in said
    assert irpool.cli.main(["check", str(path), "--shape", "x=1,1,twenty"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--shape" in err[0]


def test_a_pool_in_a_loop_body():
    """A MaxPool in a Loop's body, on the outer graph's input: its declared scan output is judged against what
    onnxruntime's kernel gives the node alone, and the finding names the Loop."""
    x = np.zeros((1, 1, 17), np.float32)
    (alone,) = P.ort_kernel(P.model("MaxPool", 12, dict(kernel_shape=[2], strides=[2]), x.shape), x)
    for declared, wrong in ((list(alone.shape), False), ([1, 1, alone.shape[-1] + 1], True)):
        body = h.make_graph(
            [h.make_node("Identity", ["cond"], ["cond_out"]),
             h.make_node("MaxPool", ["x"], ["t"], name="inner", kernel_shape=[2], strides=[2])], "body",
            [h.make_tensor_value_info("i", 7, []), h.make_tensor_value_info("cond", 9, [])],
            [h.make_tensor_value_info("cond_out", 9, []), h.make_tensor_value_info("t", 1, declared)])
        loop = h.make_node("Loop", ["n", "c"], ["ts"], name="loop", body=body)
        g = h.make_graph([loop], "g", [h.make_tensor_value_info("n", 7, []), h.make_tensor_value_info("c", 9, []),
                                       h.make_tensor_value_info("x", 1, list(x.shape))],
                         [h.make_tensor_value_info("ts", 1, None)])
        m = h.make_model(g, opset_imports=[h.make_opsetid("", 12)])
        m.ir_version = 8
        found = _check(m).findings
        assert [f.code for f in found] == (["shape-mismatch"] if wrong else []), [f.render() for f in found]
        if wrong:
            assert found[0].layer_name == "inner" and "Loop 'loop'" in found[0].path


def test_torch_exports(tmp_path):
    """Small modules exported by torch.onnx.export (TorchScript exporter, opsets 11 and 17, ceil_mode both
    ways): every shape-mismatch is a declared dim that differs from what onnxruntime computes running the
    whole model, and every such dim is found, or its node is `unchecked` (an input behind a Reshape that
    ONNX's inference does not resolve)."""
    torch = pytest.importorskip("torch")
    for opset in (11, 17):
        for ceil in (False, True):
            path = tmp_path / f"t{opset}{ceil}.onnx"
            x = torch.randn(1, 3, 17, 17)
            torch.onnx.export(_pools_module(ceil), (x,), str(path), opset_version=opset, dynamo=False)
            m = onnx.load(path)
            m = onnx.shape_inference.infer_shapes(m)        # the value_info an exporter pipeline writes
            pools = [n for n in m.graph.node if n.op_type in ("MaxPool", "AveragePool")]
            real = _ort_intermediate(m, [n.output[0] for n in pools], x.numpy())
            declared = {vi.name: [d.dim_value for d in vi.type.tensor_type.shape.dim]
                        for vi in list(m.graph.value_info) + list(m.graph.output)}
            wrong = {n.name for n in pools if n.output[0] in declared and declared[n.output[0]] != list(real[n.output[0]])}
            report = irpool.check(m.SerializeToString())
            found = {f.layer_name for f in report.findings if f.code == "shape-mismatch"}
            unchecked = {f.layer_name for f in report.findings if f.code == "unchecked"}
            assert found <= wrong and wrong - found <= unchecked, (opset, ceil)
            assert not report.errors() or ceil


def test_torch_dynamo_exports(tmp_path):
    """torch.onnx.export's default (dynamo) exporter, opsets 18 and 20, ceil_mode both ways: it declares torch's
    shapes, which onnxruntime's kernels compute, so check has no error; it warns (runtime-divergence) exactly
    at the pools whose output ONNX's own shape inference, run on the model stripped of its shapes, gives
    otherwise than onnxruntime running it."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("onnxscript")
    warned_somewhere = False
    for opset in (18, 20):
        for ceil in (False, True):
            path = tmp_path / f"d{opset}{ceil}.onnx"
            x = torch.randn(1, 3, 17, 17)
            torch.onnx.export(_pools_module(ceil, count_include_pad=False), (x,), str(path), opset_version=opset,
                              dynamo=True)
            m = onnx.load(path)
            pools = [n for n in m.graph.node if n.op_type in ("MaxPool", "AveragePool")]
            names = [n.output[0] for n in pools]
            real = _ort_intermediate(m, names, x.numpy())
            bare = onnx.ModelProto()
            bare.CopyFrom(m)
            del bare.graph.value_info[:]
            for o in bare.graph.output:
                o.type.tensor_type.ClearField("shape")
            inferred = onnx.shape_inference.infer_shapes(bare, data_prop=True)
            said = {vi.name: tuple(d.dim_value for d in vi.type.tensor_type.shape.dim)
                    for vi in list(inferred.graph.value_info) + list(inferred.graph.output)}
            report = irpool.check(str(path))
            assert not report.errors(), [f.render() for f in report.findings]
            warned = {f.layer_name for f in report.findings if f.code == "runtime-divergence"}
            differ = {n.name for n in pools if said.get(n.output[0]) != real[n.output[0]]}
            assert warned == differ, (opset, ceil, warned, differ)
            warned_somewhere |= bool(warned)
    assert warned_somewhere            # (MaxPool1d's last window starts in the padding with ceil_mode)


def _ort_intermediate(m, names, x):
    """What onnxruntime's kernels give each named tensor, run with those tensors as outputs and no shapes."""
    m2 = onnx.ModelProto()
    m2.CopyFrom(m)
    del m2.graph.value_info[:]
    del m2.graph.output[:]
    m2.graph.output.extend(h.make_tensor_value_info(n, 1, None) for n in names)
    outs = P.session(m2, optimize=False).run(names, {m2.graph.input[0].name: x})
    return {n: o.shape for n, o in zip(names, outs)}


BAD = {
    "empty": b"",
    "garbage": b"\x00\x01\x02\xff" * 10,
    "truncated": None,
    "group wire type": bytes([0x0B]),
}


@pytest.mark.parametrize("name", list(BAD))
def test_bad_files_one_line(tmp_path, name, capsys):
    data = BAD[name]
    if data is None:
        m = P.model("MaxPool", 12, dict(kernel_shape=[2]), [1, 1, 8])
        data = m.SerializeToString()[:-7]
    path = tmp_path / "bad.onnx"
    path.write_bytes(data)
    assert irpool.cli.main(["check", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and "bad.onnx" in err


def test_hostile_nodes_are_findings():
    """A huge declared dim, a negative pad, a missing input, an opset the node lacks, a cycle: findings or
    a clean verdict, never an exception."""
    cases = [P.model("MaxPool", 12, dict(kernel_shape=[2]), [1, 1, 1 << 62]),
             P.model("MaxPool", 12, dict(kernel_shape=[2], pads=[-1, 0]), [1, 1, 8]),
             P.model("AveragePool", 1, dict(kernel_shape=[2]), [1, 1, 8])]
    n = h.make_node("MaxPool", ["nowhere"], ["y"], kernel_shape=[2])
    cases.append(h.make_model(h.make_graph([n], "g", [], [h.make_tensor_value_info("y", 1, None)]),
                              opset_imports=[h.make_opsetid("", 12)]))
    n = h.make_node("MaxPool", ["y"], ["y"], kernel_shape=[2])
    cases.append(h.make_model(h.make_graph([n], "g", [], [h.make_tensor_value_info("y", 1, [1, 1, 4])]),
                              opset_imports=[h.make_opsetid("", 12)]))
    codes = [[f.code for f in _check(m).findings] for m in cases]
    assert codes[1] == ["bad-attribute"] and codes[2] == ["unknown-opset"] and codes[3] == ["bad-graph", "unchecked"]
    assert "bad-graph" in codes[4]
    for m in cases[3:]:                     # (an input nothing defines, a cycle: onnxruntime loads neither)
        with pytest.raises(Exception):
            P.session(m)


def test_without_the_onnx_package(tmp_path):
    """Without onnx, a .onnx argument is one line naming the extra, exit 2."""
    path = tmp_path / "m.onnx"
    onnx.save(P.model("MaxPool", 12, dict(kernel_shape=[2]), [1, 1, 8]), path)
    code = ("import sys; sys.modules['onnx'] = None; from irpool.cli import main; "
            f"sys.exit(main(['check', {str(path)!r}]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "irpool[onnx]" in r.stderr


def test_run_layer_from_the_command_line(tmp_path):
    m = P.model("AveragePool", 19, dict(kernel_shape=[3], strides=[2], pads=[1, 1], ceil_mode=1), [1, 2, 9])
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    x = np.random.default_rng(0).standard_normal((1, 2, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    assert irpool.cli.main(["run", str(path), "--layer", "pool", "-i", f"0={tmp_path / 'x.npy'}",
                            "-o", str(tmp_path / "o.npz")]) == 0
    with np.load(tmp_path / "o.npz") as out:
        assert out["y"].tobytes() == P.ort_kernel(m, x)[0].tobytes()


def test_explain_gives_each_runtimes_number_and_draws_the_dropped_window(tmp_path, capsys):
    """explain model.onnx: per axis, onnxruntime's kernel, ONNX's inference and OpenVINO side by side, as
    each runtime gives them when run; the drawing shows the window only some keep."""
    from irpool.onnx.explain import entries
    a = dict(kernel_shape=[2, 3], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1)
    x = np.zeros((1, 1, 17, 8), np.float32)
    m = P.model("MaxPool", 12, a, x.shape)
    measured = dict(onnxruntime=P.ort_kernel(m, x)[0].shape, onnx=P.onnx_inferred(m), openvino=P.openvino(m, x)[0].shape)
    (e,) = entries(m.SerializeToString())
    for k, axis in enumerate(e["axes"]):
        assert {r: axis[r] for r in measured} == {r: measured[r][2 + k] for r in measured}
    h_drawing = "\n".join(e["axes"][0]["drawing"])
    assert f"window {measured['onnxruntime'][2]} (?)" in h_drawing and "OpenVINO keep it" in h_drawing
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    assert irpool.cli.main(["explain", str(path), "--layer", "pool"]) == 0
    assert "window 9 (?)" in capsys.readouterr().out


def test_drawing_marks_each_windows_taps():
    """drawing.axis against the windows' definition: window w covers cells w*s - pb + t*d, t < k."""
    from irpool.drawing import axis
    rng = random.Random(3)
    for _ in range(200):
        k, s, d = rng.randint(1, 4), rng.randint(1, 3), rng.randint(1, 2)
        pb, pe, length = rng.randint(0, 2), rng.randint(0, 2), rng.randint(1, 30)
        dk = (k - 1) * d + 1
        if length + pb + pe < dk:
            continue
        out = (length + pb + pe - dk) // s + 1
        lines = axis("H", length, k, s, d, pb, pe, out)
        import re
        col0 = re.match(r"H cells -?\d+\.\.-?\d+ +", lines[0]).end() + pb       # the column of input cell 0
        for line in lines[1:]:
            if not line.startswith("window"):
                continue
            w = int(line.split()[1])
            taps = [i - col0 for i, c in enumerate(line) if c == "#"]
            assert taps == [w * s - pb + t * d for t in range(k)], (k, s, d, pb, pe, length, line)


@pytest.mark.parametrize("seed", range(3))
def test_mutated_files_never_crash(seed, tmp_path):
    """Random byte flips, cuts and insertions of a real model: a Report or one IRError, never another
    exception (the fuzz tests of test_hostile.py, for .onnx)."""
    rng = random.Random(seed)
    base = P.model("MaxPool", 12, dict(kernel_shape=[2], strides=[2], pads=[1, 1], ceil_mode=1), [1, 1, 17],
                   declared=[1, 1, 9], indices=True).SerializeToString()
    for _ in range(150):
        data = bytearray(base)
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(len(data))
            op = rng.random()
            if op < 0.5:
                data[i] = rng.randrange(256)
            elif op < 0.75:
                del data[i:i + rng.randint(1, 8)]
            else:
                data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        try:
            irpool.check(bytes(data))
        except irpool.IRError:
            pass


@pytest.mark.parametrize("opset", [2, 11, 18, 21])
def test_global_lp_pool_against_onnxruntime(opset):
    """onnxruntime 1.32 runs GlobalLpPool for opsets 2 to 21 (versions 1 and 22 have no kernel: check says
    so): the same bits for p = 1 and 2, the last bit of pow for p = 3."""
    rng = np.random.default_rng(opset)
    for p in (1, 2, 3):
        for shape in ((2, 3, 5), (1, 4, 3, 7), (1, 2, 2, 3, 4)):
            x = rng.standard_normal(shape).astype(np.float32)
            m = P.model("GlobalLpPool", opset, dict(p=p), x.shape)
            (want,) = P.ort_kernel(m, x)
            got = irpool.run(m.SerializeToString(), x, layer="pool")["y"]
            assert got.shape == want.shape and got.dtype == want.dtype
            if p < 3:
                assert got.tobytes() == want.tobytes()
            else:
                np.testing.assert_allclose(got, want, rtol=1e-6)
    for version in (1, 22):
        (f,) = _check(P.model("GlobalLpPool", version, {}, [1, 2, 3])).findings
        assert f.code == "unknown-opset" and "NOT_IMPLEMENTED" in f.message


def test_average_pool_19_stops_windows_at_a_negative_end_pad():
    """AveragePool-19 with SAME pads of the undilated kernel (k 2, dilation 2, stride 3, ceil on 6: pads 0, -1):
    onnxruntime ends each window at L + pad_end, so its second window takes cell 3 and not cell 5. check gives
    onnxruntime's length and nothing else; run gives onnxruntime's values (the input's last cell cut), in 2-D and
    with count_include_pad too."""
    a = dict(kernel_shape=[2], strides=[3], auto_pad="SAME_LOWER", dilations=[2], ceil_mode=1)
    x = (4.0 ** np.arange(6, dtype=np.float32)).reshape(1, 1, 6)
    m = P.model("AveragePool", 19, a, x.shape, declared=[1, 1, 2])
    (want,) = P.ort_kernel(m, x)
    assert want.tolist() == [[[(x[0, 0, 0] + x[0, 0, 2]) / 2, x[0, 0, 3]]]]
    assert not _check(m).findings
    assert irpool.run(m.SerializeToString(), x, layer="pool")["y"].tobytes() == want.tobytes()
    rng = np.random.default_rng(0)
    for include in (0, 1):
        b = dict(kernel_shape=[2, 3], strides=[3, 2], auto_pad="SAME_LOWER", ceil_mode=1, dilations=[2, 2],
                 count_include_pad=include)
        x2 = rng.standard_normal((1, 2, 6, 9)).astype(np.float32)
        m2 = P.model("AveragePool", 19, b, x2.shape)
        (want2,) = P.ort_kernel(m2, x2)
        assert irpool.run(m2.SerializeToString(), x2, layer="pool")["y"].tobytes() == want2.tobytes()
    (f,) = _check(P.model("AveragePool", 19, a, x.shape, declared=[1, 1, 3])).findings
    assert f.code == "shape-mismatch" and "declared 3" in f.message


NAN_CASES = [("MaxPool", 12, dict(kernel_shape=[3], strides=[3]), False, 1),
             ("MaxPool", 8, dict(kernel_shape=[3], strides=[3]), False, 1),
             ("MaxPool", 22, dict(kernel_shape=[3], strides=[3]), False, 10),
             ("MaxPool", 12, dict(kernel_shape=[3], strides=[3]), True, 1),
             ("MaxPool", 12, dict(kernel_shape=[3], strides=[3]), True, 10),
             ("MaxPool", 12, dict(kernel_shape=[2], strides=[3], dilations=[2]), False, 1),
             ("GlobalMaxPool", 12, {}, False, 1)]


@pytest.mark.parametrize("op, version, attrs, indices, elem", NAN_CASES)
def test_nan_windows_as_each_runtime(op, version, attrs, indices, elem):
    """Windows with NaN and ties of -0.0/+0.0, 1-D: run gives onnxruntime's bits (MLAS's MaxPool skips NaN,
    its own loop keeps a NaN first tap), and check warns (value-divergence, "NaN") exactly where OpenVINO's
    values differ from onnxruntime's on them. CPU facts: 1-D windows only (MLAS's 2-D and 3-D kernels take NaN
    and the sign of zero by vector lane, docs/onnx.md); that OpenVINO's GlobalMaxPool (a ReduceMax) differs,
    by lane, is asserted on the CPU it was measured on (AMD EPYC family 25 model 17), elsewhere only the warning."""
    n = np.nan
    rows = [[n, 1, 2], [1, n, 2], [1, 2, n], [2, n, 1], [n, n, 1], [1, n, n], [-1, n, -2], [n, -1, -2],
            [-0.0, 0.0, -1], [0.0, -0.0, -1], [n, n, n], [-np.inf, -np.inf, n]]
    dt = np.float16 if elem == 10 else np.float32
    x = np.array(rows, dt).reshape((len(rows), 1, 3) if op.startswith("Global") else (1, 1, -1))
    m = P.model(op, version, attrs, x.shape, elem=elem, indices=indices)
    want = P.ort_kernel(m, x)
    got = irpool.run(m.SerializeToString(), x, layer="pool")
    assert [w.tobytes() for w in want] == [g.tobytes() for g in got.values()]
    ov = P.openvino(m, x)
    differ = ov[0].tobytes() != want[0].tobytes()
    warned = [f for f in _check(m).findings if f.code == "value-divergence" and "NaN" in f.message]
    if op == "GlobalMaxPool":       # OpenVINO's ReduceMax: NaN and tied zeros by vector lane, on CPUs measured
        assert warned and (differ or measured_cpu() != "amd-epyc-zen4")
    else:
        assert bool(warned) == differ, (ov[0].ravel(), want[0].ravel())


def test_nothing_check_or_fix_made_waits_for_the_cycle_collector(tmp_path):
    """Reading and rewriting an .onnx leaves no reference cycle (wire.light's and rewrite's walks were closures
    that called each other, a cycle holding the mapped model until Python's next collection: a folder of large
    models kept each one's pages). A MaxPool in an If's branch, so the walk goes into a body too."""
    import gc

    pool = h.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2], strides=[2])
    branch = h.make_graph([pool], "b", [], [h.make_tensor_value_info("y", 1, [1, 1, 7])])
    cond = h.make_node("If", ["c"], ["z"], name="if", then_branch=branch, else_branch=branch)
    g = h.make_graph([cond], "g", [h.make_tensor_value_info("c", 9, []), h.make_tensor_value_info("x", 1, [1, 1, 8])],
                     [h.make_tensor_value_info("z", 1, [1, 1, 4])])
    path = tmp_path / "m.onnx"
    onnx.save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), path)
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        report = irpool.check(path)
        fixed = irpool.fix(path.read_bytes(), path=path)
        assert gc.collect() == 0, sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert "shape-mismatch" in {f.code for f in report.findings}, report.findings     # (y declared 7: it is 4)
    assert fixed[1] and fixed[0] != path.read_bytes(), fixed[1]      # (--fix rewrote the branch's y)
