"""Pooling nodes onnxruntime cannot run whatever their input, where an audit (stop 60) found `check` said "ok": a node
of the com.ms.internal.nhwc domain written in a model (the CPU provider has no kernel for any), and a node of more
than three spatial axes (a session loads it, every run fails). Each verdict is onnxruntime's own on this machine, and
OpenVINO's as the message says it (schemas/onnx.json "onnxruntime_internal_domains", "onnxruntime_most_spatial_axes")."""
import itertools

import numpy as np
import pytest

import irpool
from bits import assert_same_bits

pytestmark = [pytest.mark.onnx, pytest.mark.onnxruntime]
onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper  # noqa: E402

OPS = ("MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool")
TYPES = {TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8}


def _model(op, dims, elem=TensorProto.FLOAT, domain="", version=18) -> bytes:
    attrs = {} if op.startswith("Global") else {"kernel_shape": [2] * (len(dims) - 2)}
    node = helper.make_node(op, ["x"], ["y"], name="pool", domain=domain, **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, dims)],
                              [helper.make_tensor_value_info("y", elem, None)])
    imports = [helper.make_opsetid("", 18)] + ([helper.make_opsetid(domain, version)] if domain else [])
    return helper.make_model(graph, opset_imports=imports).SerializeToString()


def _onnxruntime_runs(model: bytes, dims, dtype) -> bool:
    try:
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        session.run(None, {"x": np.ones(dims, dtype)})
        return True
    except Exception:
        return False


@pytest.mark.parametrize("op, version, elem", list(itertools.product(OPS, (1, 11, 12, 19, 22), TYPES)))
def test_an_nhwc_node_in_a_model_is_refused_as_onnxruntime_refuses_it(op, version, elem):
    dims = [1, 6, 6, 2]
    model = _model(op, dims, elem, "com.ms.internal.nhwc", version)
    assert not _onnxruntime_runs(model, dims, TYPES[elem])
    report = irpool.check(model)
    assert not report.ok and [f.code for f in report.findings] == ["unknown-opset"], [str(f) for f in report.findings]
    assert "internal layout domain" in report.findings[0].message


@pytest.mark.parametrize("op, rank", list(itertools.product(OPS, (6, 7))))
def test_more_than_three_spatial_axes_is_refused_as_onnxruntime_fails_every_run(op, rank):
    dims = [1, 1] + [4] * (rank - 2)
    model = _model(op, dims)
    assert not _onnxruntime_runs(model, dims, np.float32)
    assert _onnxruntime_runs(_model(op, [1, 1, 4, 4, 4]), [1, 1, 4, 4, 4], np.float32)     # (three run)
    report = irpool.check(model)
    assert [f.code for f in report.findings] == ["bad-rank"], [str(f) for f in report.findings]
    said = report.findings[0].message
    assert f"X has {rank - 2} spatial axes" in said
    ov = pytest.importorskip("openvino")
    core = ov.Core()
    try:
        core.compile_model(core.read_model(model, b""), "CPU")
        openvino = "OpenVINO runs it"
    except RuntimeError:
        openvino = "OpenVINO refuses it too"
    assert openvino in said, said


def _lp(length, kernel, stride, pads) -> bytes:
    node = helper.make_node("LpPool", ["x"], ["y"], name="pool", kernel_shape=[kernel], strides=[stride], pads=pads,
                            p=1, ceil_mode=1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, length])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


def test_lp_pool_values_openvino_gives_otherwise_are_said():
    """Every 1-D LpPool-18 (p=1, ceil_mode) of lengths 3 to 8, kernels 2 and 3, strides 1 to 3, pads 0 or 1 each end
    that both runtimes run on one shape: check's value-divergence (lp_sum) names the node exactly where OpenVINO's
    values differ from onnxruntime's (an audit found it "ok" where they differ)."""
    ov = pytest.importorskip("openvino")
    core, compared, differing = ov.Core(), 0, 0
    for length, kernel, stride, pb, pe in itertools.product(range(3, 9), (2, 3), (1, 2, 3), (0, 1), (0, 1)):
        if pb >= kernel or pe >= kernel:
            continue
        model, x = _lp(length, kernel, stride, [pb, pe]), np.arange(1, length + 1, dtype=np.float32)[None, None]
        want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        got = core.compile_model(core.read_model(model, b""), "CPU")([x])[0]
        if got.shape != want.shape:
            continue
        compared += 1
        differs = not np.allclose(got, want, rtol=1e-5)
        differing += differs
        said = [f for f in irpool.check(model).findings if f.code == "value-divergence"]
        assert bool(said) == differs, (length, kernel, stride, pb, pe, want, got, [str(f) for f in said])
    assert compared > 100 and differing > 5, (compared, differing)


def _same(auto_pad, length, kernel, stride, dilation, opset, ceil) -> bytes:
    node = helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[kernel], strides=[stride],
                            dilations=[dilation], auto_pad=auto_pad, ceil_mode=ceil)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, length])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)]).SerializeToString()


def _openvino_same(x, auto_pad, kernel, stride, dilation):
    """MaxPool by OpenVINO's SAME rule, as its documentation gives it: ceil(L / s) windows, padded by the dilated
    kernel, the odd cell at the end (UPPER) or the beginning (LOWER); pads hold -inf."""
    length = x.shape[-1]
    out = -(-length // stride)
    total = max(0, (out - 1) * stride + (kernel - 1) * dilation + 1 - length)
    begin = total // 2 if auto_pad == "SAME_UPPER" else total - total // 2
    y = np.full(x.shape[:-1] + (out,), -np.inf, np.float32)
    for o in range(out):
        for t in range(kernel):
            i = o * stride - begin + t * dilation
            if 0 <= i < length:
                y[..., o] = np.maximum(y[..., o], x[..., i])
    return y


def test_dilated_same_windows_openvino_places_otherwise_are_said():
    """MaxPool-12 and -22 with SAME_UPPER or SAME_LOWER, a dilation, ceil_mode 0 or 1: OpenVINO's values are those of the SAME rule
    by the dilated kernel (the reference above); where onnxruntime's shape is the same and its values differ, check
    says value-divergence (same_pads), and where its shape differs, runtime-divergence does not call OpenVINO's
    extra cells empty windows (an audit found both said wrong)."""
    ov = pytest.importorskip("openvino")
    core, rng, same_count = ov.Core(), np.random.default_rng(7), 0
    for auto, length, kernel, stride, dilation, opset, ceil in itertools.product(
            ("SAME_UPPER", "SAME_LOWER"), (5, 8, 10), (2, 3), (1, 2, 3), (2, 3), (12, 22), (0, 1)):
        model = _same(auto, length, kernel, stride, dilation, opset, ceil)
        x = rng.standard_normal((1, 8, length)).astype(np.float32)
        got = core.compile_model(core.read_model(model, b""), "CPU")([x])[0]
        np.testing.assert_array_equal(got, _openvino_same(x, auto, kernel, stride, dilation))
        want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
        findings = irpool.check(model).findings
        kinds = " ".join(f.message for f in findings if f.code == "value-divergence")
        shapes = " ".join(f.message for f in findings if f.code == "runtime-divergence")
        if got.shape == want.shape:
            same_count += 1
            assert ("OpenVINO pads by the dilated kernel" in kinds) == (not np.array_equal(got, want)), \
                (auto, length, kernel, stride, dilation, opset, ceil, got, want, kinds)
        else:
            assert "empty-window" not in shapes and "it pads SAME by the dilated kernel" in shapes, shapes
    assert same_count > 20


@pytest.mark.parametrize("op, size", [("Range", 10**9), ("ConstantOfShape", 10**9), ("Expand", 10**9),
                                      ("Range", 4), ("ConstantOfShape", 4)])
def test_a_fold_too_large_is_not_evaluated(monkeypatch, op, size):
    """A Range, ConstantOfShape or Expand beside the pool whose inputs say it makes more than folding's 64 values is
    not run by the reference (a Range(0, 1e9) took 40 s and 16 GB before being found too large: crash hunt 3); a
    small one is. The pool (behind a Pad whose pads a Transpose gives, so that folding starts) is judged either way."""
    from onnx import numpy_helper
    from irpool.onnx import folding
    ran = []
    real = folding._run
    monkeypatch.setattr(folding, "_run", lambda node, feeds, opsets: ran.append(node.op_type) or real(node, feeds, opsets))
    big = {"Range": helper.make_node("Range", ["a", "b", "c"], ["big"]),
           "ConstantOfShape": helper.make_node("ConstantOfShape", ["s"], ["big"]),
           "Expand": helper.make_node("Expand", ["c", "s"], ["big"])}[op]
    nodes = [big, helper.make_node("Transpose", ["p0"], ["p1"], perm=[0]), helper.make_node("Pad", ["x", "p1"], ["xp"]),
             helper.make_node("MaxPool", ["xp"], ["y"], name="pool", kernel_shape=[2, 2])]
    inits = [numpy_helper.from_array(np.array(v, np.int64), n) for n, v in
             (("a", 0), ("b", size), ("c", 1), ("s", [size]), ("p0", [0, 0, 1, 1, 0, 0, 1, 1]))]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 9, 9]),
                               helper.make_tensor_value_info("big", TensorProto.INT64, None)], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    report = irpool.check(model)
    assert report.ok and report.pooling_layers == 1, [str(f) for f in report.findings]
    assert (op in ran) == (size <= 64), ran


@pytest.mark.parametrize("elem, outputs", [(TensorProto.INT8, 1), (TensorProto.UINT8, 1), (TensorProto.DOUBLE, 1),
                                           (TensorProto.FLOAT, 1), (TensorProto.FLOAT, 2), (TensorProto.FLOAT16, 1)])
def test_negative_same_pads_are_refused_only_where_onnxruntime_fails(elem, outputs):
    """MaxPool-12, kernel 2, stride 3, SAME_LOWER on a length of 6: the SAME pads come out (0, -1). onnxruntime's own
    max loop runs them (int8, uint8, double, Indices listed), MLAS's does not (float, float16, values only): check's
    error and run's refusal follow, and where it runs, irpool.onnx's values are onnxruntime's (crash hunt 3 found
    every type refused)."""
    names = ["y", "i"][:outputs]
    node = helper.make_node("MaxPool", ["x"], names, name="p", kernel_shape=[2], strides=[3], auto_pad="SAME_LOWER")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", elem, [1, 1, 6])],
                              [helper.make_tensor_value_info(o, elem if o == "y" else TensorProto.INT64, None)
                               for o in names])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]).SerializeToString()
    x = (np.arange(6).reshape(1, 1, 6) * 10 + 1).astype(helper.tensor_dtype_to_np_dtype(elem))
    try:
        want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    except Exception as e:
        assert "padding values must be non-negative" in str(e)
        want = None
    refused = [f for f in irpool.check(model).findings if f.code == "bad-attribute"]
    assert bool(refused) == (want is None), [str(f) for f in refused]
    if want is None:
        with pytest.raises(irpool.IRError, match="padding values must be non-negative"):
            irpool.run(model, {"x": x}, layer="p")
        return
    got = irpool.run(model, {"x": x}, layer="p")
    for have, expected in zip(got.values(), want):
        assert have.dtype == expected.dtype and np.array_equal(have, expected)


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceMax"])
@pytest.mark.parametrize("keepdims", [0, 1, 2, 5, -1])
def test_keepdims_other_than_0_or_1_is_read_as_each_runtime_reads_it(op, keepdims):
    """onnxruntime and ONNX's inference keep the reduced axes for keepdims 1 alone, OpenVINO for any value but 0
    (crash hunt 3 found irpool keeping them for any non-zero value, as OpenVINO): check's shape is onnxruntime's,
    and runtime-divergence gives OpenVINO's where they differ."""
    node = helper.make_node(op, ["x"], ["y"], name="r", axes=[2, 3], keepdims=keepdims)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    x = np.random.default_rng(3).standard_normal((1, 2, 4, 4)).astype(np.float32)
    want = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    (got,) = irpool.run(model, {"x": x}, layer="r").values()
    assert got.shape == want.shape
    said = [f.message for f in irpool.check(model).findings if f.code == "runtime-divergence"]
    ov = pytest.importorskip("openvino")
    theirs = ov.Core().compile_model(ov.Core().read_model(model, b""), "CPU")([x])[0]
    assert bool(said) == (theirs.shape != want.shape), said
    if said:
        assert f"OpenVINO's ONNX frontend [{','.join(map(str, theirs.shape))}]" in said[0], said


def test_the_node_apis_mlas_average_refuses_a_window_past_the_padded_input_as_the_core_does():
    """irpool.onnx.run of a float32 AveragePool before 19 (MLAS's path) with a kernel larger than the padded input
    raised a bare ValueError from core/mlas_pool.py (stop 61's differential run); the core's path refuses it."""
    x = np.arange(8, dtype=np.float32).reshape(2, 1, 2, 2)
    attrs = {"kernel_shape": [4, 4], "strides": [3, 2], "count_include_pad": 1}
    with pytest.raises(irpool.IRError, match="kernel does not fit the padded input"):
        irpool.onnx.run("AveragePool", x, attrs, opset=10)
    with pytest.raises(irpool.IRError, match="kernel does not fit the padded input"):
        irpool.onnx.run("AveragePool", x.astype(np.float64), attrs, opset=10)


@pytest.mark.parametrize("op, opset", [("GlobalAveragePool", 7), ("GlobalAveragePool", 13), ("GlobalMaxPool", 13),
                                       ("GlobalLpPool", 13), ("MaxPool", 7), ("LpPool", 7)])
def test_a_float16_node_onnxruntime_runs_through_its_own_casts_is_checked_and_run(op, opset, tmp_path):
    """A version whose kernels take float32 alone runs float16 all the same: onnxruntime casts around the node
    (check said bad-precision, run refused: stop 61's differential run). Y's bits: the float32 node's, rounded."""
    rng = np.random.default_rng(opset)
    attrs = {"kernel_shape": [2, 2]} if not op.startswith("Global") else {}
    attrs.update({"p": 3} if "Lp" in op else {})
    dims = [1, 3, 5, 6]
    node = helper.make_node(op, ["x"], ["y"], name="pool", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, dims)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    path = tmp_path / "m.onnx"
    path.write_bytes(model.SerializeToString())
    assert irpool.check(path).ok, [str(f) for f in irpool.check(path).findings]
    for _ in range(5):
        x = (rng.standard_normal(dims) * 3).astype(np.float16)
        (want,) = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": x})
        got = irpool.run(path, x, layer="pool")
        assert_same_bits(next(iter(got.values())), want, (op, opset))


@pytest.mark.parametrize("op", ["GlobalAveragePool", "MaxPool"])
def test_a_float16_node_before_opset_6_is_refused_as_onnxruntime_refuses_it(op):
    """Before opset 6 the Cast onnxruntime inserts has an int `to` where Cast-1 takes a string: the session refuses
    the model (stop 61's review found check ok and run running there)."""
    attrs = {"kernel_shape": [2, 2]} if op == "MaxPool" else {}
    node = helper.make_node(op, ["x"], ["y"], name="pool", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 3, 5, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT16, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 5)]).SerializeToString()
    assert not _onnxruntime_runs(model, [1, 3, 5, 6], np.float16)
    assert [f.code for f in irpool.check(model).findings] == ["bad-precision"]
    with pytest.raises(irpool.IRError):
        irpool.run(model, np.ones((1, 3, 5, 6), np.float16), layer="pool")

