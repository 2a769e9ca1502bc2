"""The ONNX translation layer: op definitions per version, refusals with clear messages, NodeProto input,
channels-last (com.ms.internal.nhwc) MaxPool, LpPool-1, and that importing irpool never imports onnx."""
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import irpool.dtypes
import irpool.onnx
from irpool import IRError, PoolSpec
from reference import ref_pool

pytestmark = [pytest.mark.onnxruntime, pytest.mark.reference]

SCHEMA = json.loads((pathlib.Path(__file__).parent.parent.parent / "schemas" / "onnx.json").read_text())
X4 = np.arange(2 * 3 * 5 * 5, dtype=np.float32).reshape(2, 3, 5, 5)


@pytest.mark.parametrize("op,opset,attrs,dtype,message", [
    ("MaxPool", 8, {"kernel_shape": [2, 2], "dilations": [1, 1]}, "float32", r"MaxPool-8 has no attribute 'dilations'"),
    ("MaxPool", 8, {"kernel_shape": [2, 2], "ceil_mode": 1}, "float32", r"MaxPool-8 has no attribute 'ceil_mode'"),
    ("MaxPool", 7, {"kernel_shape": [2, 2], "storage_order": 1}, "float32", r"MaxPool-1 has no attribute 'storage_order'"),
    ("AveragePool", 7, {"kernel_shape": [2, 2], "ceil_mode": 1}, "float32", r"AveragePool-7 has no attribute 'ceil_mode'"),
    ("AveragePool", 6, {"kernel_shape": [2, 2], "count_include_pad": 1}, "float32",
     r"AveragePool-1 has no attribute 'count_include_pad'"),
    ("AveragePool", 18, {"kernel_shape": [2, 2], "dilations": [2, 2]}, "float32",
     r"AveragePool-11 has no attribute 'dilations'"),
    ("LpPool", 17, {"kernel_shape": [2, 2], "ceil_mode": 1}, "float32", r"LpPool-11 has no attribute 'ceil_mode'"),
    ("LpPool", 11, {"kernel_shape": [2, 2], "p": 2.5}, "float32", r"LpPool-11: attribute p must be an integer"),
    ("LpPool", 1, {"kernel_shape": [2, 2], "p": "two"}, "float32", r"LpPool-1: attribute p must be a number"),
    ("MaxPool", 11, {"kernel_shape": [2, 2]}, "uint8", r"MaxPool-11 does not take X of element type uint8"),
    ("MaxPool", 11, {"kernel_shape": [2, 2]}, "int8", r"MaxPool-11 does not take X of element type int8"),
    ("AveragePool", 22, {"kernel_shape": [2, 2]}, "int8", r"AveragePool-22 does not take X of element type int8"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "pads": [2, 1, 1, 1], "auto_pad": "SAME_UPPER"}, "float32",
     r"MaxPool-12: pads \[2, 1, 1, 1\] beside auto_pad=SAME_UPPER: .*Pad should be smaller than kernel"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "auto_pad": "same"}, "float32", r"MaxPool-12: attribute auto_pad='same'"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "pads": [1, 1]}, "float32", r"MaxPool-12: attribute pads has 2 values"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "strides": [1]}, "float32", r"MaxPool-12: attribute strides has 1 values"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "strides": [0, 1]}, "float32", r"MaxPool-12: strides value 0"),
    ("MaxPool", 12, {"strides": [1, 1]}, "float32", r"MaxPool-12: attribute kernel_shape is required"),
    ("MaxPool", 12, {"kernel_shape": [2]}, "float32", r"MaxPool-12: kernel_shape has 1 axes, so X must have rank 3"),
    ("MaxPool", 12, {"kernel_shape": [9, 9]}, "float32", r"MaxPool-12: .*does not fit"),
    ("MaxPool", 12, {"kernel_shape": [2, 2], "ceil_mode": 2}, "float32", r"MaxPool-12: attribute ceil_mode must be 0 or 1"),
    ("Conv", 12, {"kernel_shape": [2, 2]}, "float32", r"irpool runs ONNX MaxPool, AveragePool, LpPool, GlobalMaxPool, GlobalAveragePool, GlobalLpPool, not 'Conv'"),
])
def test_version_specific_refusals(op, opset, attrs, dtype, message):
    with pytest.raises(IRError, match=message):
        irpool.onnx.run(op, X4.astype(dtype), attrs, opset=opset)
    with pytest.raises(IRError, match=message):                   # the prepared form refuses alike
        irpool.onnx.compile(op, attrs, opset=opset).run(X4.astype(dtype))


def test_more_refusals():
    with pytest.raises(IRError, match=r"MaxPool does not exist in opset 0|opset must be a positive"):
        irpool.onnx.run("MaxPool", X4, {"kernel_shape": [2, 2]}, opset=0)
    with pytest.raises(IRError, match=r"AveragePool-1 has 1 output\(s\), 2 asked for"):
        irpool.onnx.run("AveragePool", X4, {"kernel_shape": [2, 2]}, opset=1, outputs=2)
    with pytest.raises(IRError, match=r"MaxPool-1 has 1 output\(s\), 2 asked for"):
        irpool.onnx.run("MaxPool", X4, {"kernel_shape": [2, 2]}, opset=7, outputs=2)
    with pytest.raises(IRError, match=r"LpPool does not exist in opset 2 of domain 'com.ms.internal.nhwc'"
                                      r" \(first version: 11\)"):
        irpool.onnx.run("LpPool", X4, {"kernel_shape": [2, 2]}, opset=2, domain=irpool.onnx.NHWC)
    with pytest.raises(IRError, match=r"GlobalMaxPool-1: X must have rank 3 or more"):
        irpool.onnx.run("GlobalMaxPool", X4[0, 0], {}, opset=1)
    with pytest.raises(IRError, match=r"GlobalAveragePool-22: X has shape \[1, 2, 0, 3\]: an empty spatial axis"):
        irpool.onnx.run("GlobalAveragePool", np.zeros((1, 2, 0, 3), np.float32), {}, opset=22)
    with pytest.raises(IRError, match=r"GlobalMaxPool-1 has no attribute 'kernel_shape'"):
        irpool.onnx.run("GlobalMaxPool", X4, {"kernel_shape": [2, 2]}, opset=1)
    with pytest.raises(IRError, match=r"GlobalLpPool-2: attribute p must be an integer"):
        irpool.onnx.run("GlobalLpPool", X4, {"p": 2.5}, opset=2)
    with pytest.raises(IRError, match=r"MaxPool-12: attribute auto_pad='same' is not one of '', 'NOTSET'"):
        irpool.onnx.run("MaxPool", X4, {"kernel_shape": [2, 2], "auto_pad": "same"}, opset=12)
    with pytest.raises(IRError, match=r"fused activation"):
        irpool.onnx.run("MaxPool", X4, {"kernel_shape": [2, 2], "activation": "Relu"}, opset=11,
                        domain=irpool.onnx.NHWC)
    with pytest.raises(IRError, match=r"domain 'com.example' is not one irpool knows"):
        irpool.onnx.run("MaxPool", X4, {"kernel_shape": [2, 2]}, opset=11, domain="com.example")


def test_defaults_and_versions_come_from_the_schema():
    assert irpool.onnx.op_version("MaxPool", 21) == "MaxPool-12"
    assert irpool.onnx.op_version("MaxPool", 22) == "MaxPool-22"
    assert irpool.onnx.op_version("AveragePool", 18) == "AveragePool-11"
    assert irpool.onnx.op_version("LpPool", 17) == "LpPool-11"
    spec = irpool.onnx.to_spec("AveragePool", {"kernel_shape": [3]}, opset=19)
    assert (spec.strides, spec.dilations, spec.pads_begin, spec.rounding, spec.count) == \
        ((1,), (1,), (0,), "floor", "exclude_onnx")
    spec = irpool.onnx.to_spec("MaxPool", {"kernel_shape": [3], "ceil_mode": 1, "auto_pad": "SAME_LOWER"}, opset=12)
    assert (spec.rounding, spec.auto_pad, spec.max_start) == ("ceil_torch", "same_lower", "first")


def test_schema_matches_onnx_defs():
    onnx = pytest.importorskip("onnx")
    from onnx import defs
    kinds = {"INTS": "ints", "INT": "int", "FLOAT": "float", "STRING": "string"}
    for key, d in SCHEMA["ops"].items():
        if ":" in key:
            continue                        # com.ms.internal.nhwc is onnxruntime's, not in onnx.defs
        op, version = key.rsplit("-", 1)
        s = defs.get_schema(op, int(version))
        assert s.since_version == int(version), key
        assert set(s.attributes) == set(d["attributes"]), key
        for name, a in s.attributes.items():
            assert kinds[str(a.type).split(".")[-1]] == d["attributes"][name]["type"], (key, name)
            if a.default_value.name:
                dv = onnx.helper.get_attribute_value(a.default_value)
                assert (dv.decode() if isinstance(dv, bytes) else dv) == d["attributes"][name]["default"], (key, name)
        allowed = {t for tc in s.type_constraints if tc.type_param_str == "T" for t in tc.allowed_type_strs}
        names = {"float16": "tensor(float16)", "float32": "tensor(float)", "float64": "tensor(double)",
                 "int8": "tensor(int8)", "uint8": "tensor(uint8)", "bfloat16": "tensor(bfloat16)"}
        assert {names[t] for t in d["types"]} == allowed, key
        assert len(s.outputs) == d["outputs"], key
    for op in irpool.onnx.OPS:
        versions = {s.since_version for s in defs.get_all_schemas_with_history() if s.name == op and s.domain == ""}
        assert versions == {int(k.rsplit("-", 1)[1]) for k in SCHEMA["ops"] if k.startswith(op + "-")}, op


ORT_TYPES = {"tensor(float16)": "float16", "tensor(float)": "float32", "tensor(double)": "float64",
             "tensor(int8)": "int8", "tensor(uint8)": "uint8", "tensor(bfloat16)": "bfloat16"}


def test_nhwc_schema_matches_what_onnxruntime_registers():
    """Every pooling op onnxruntime registers in com.ms.internal.nhwc, each version with its attributes, types and
    outputs. One deliberate difference: MaxPool-11 also takes int8/uint8, as the seed's uint8 example shows
    (onnxruntime's schema has them from version 12)."""
    pytest.importorskip("onnxruntime")
    from onnxruntime.capi import onnxruntime_pybind11_state as C
    got = {}
    for s in C.get_all_operator_schema():
        if s.domain == irpool.onnx.NHWC and s.name in irpool.onnx.OPS:
            got[f"{s.domain}:{s.name}-{s.since_version}"] = s
    assert set(got) == {k for k in SCHEMA["ops"] if k.startswith(irpool.onnx.NHWC)}
    kinds = {"INTS": "ints", "INT": "int", "FLOAT": "float", "STRING": "string", "FLOATS": "floats"}
    for key, s in got.items():
        d = SCHEMA["ops"][key]
        assert {n: kinds[str(a.type).split(".")[-1]] for n, a in s.attributes.items()} == \
            {n: a["type"] for n, a in d["attributes"].items()}, key
        types = {ORT_TYPES[t] for tc in s.type_constraints if tc.type_param_str == "T" for t in tc.allowed_type_strs}
        extra = {"int8", "uint8"} if key.endswith("MaxPool-11") else set()
        assert set(d["types"]) == types | extra, key
        assert len(s.outputs) == d["outputs"], key


@pytest.mark.parametrize("key", sorted(SCHEMA["ops"]))
def test_every_type_the_schema_lists_runs(key):
    """schemas/onnx.json and what runs agree: each version runs each type it lists, with every output."""
    d = SCHEMA["ops"][key]
    domain, _, name = key.rpartition(":")
    op, version = name.rsplit("-", 1)
    attrs = {} if op.startswith("Global") else {"kernel_shape": [2, 2]}
    for t in d["types"]:
        dtype = irpool.dtypes.dtype_named(t) if t == "bfloat16" else np.dtype(t)
        x = (X4 if domain == "" else X4.transpose(0, 2, 3, 1)).astype(dtype)
        outs = irpool.onnx.run(op, x, attrs, opset=int(version), domain=domain, outputs=d["outputs"])
        assert len(outs) == d["outputs"] and outs[0].dtype == dtype, (key, t)


def test_node_proto_is_read():
    onnx = pytest.importorskip("onnx")
    node = onnx.helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2],
                                 pads=[1, 1, 1, 1], storage_order=1)
    y, i = irpool.onnx.run(node, X4, opset=12)
    want_y, want_i = ref_pool(X4, PoolSpec(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1),
                                           storage_order=1, max_start="first"))
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(i, want_i)
    with pytest.raises(IRError, match="not both"):
        irpool.onnx.run(node, X4, {"kernel_shape": [3, 3]}, opset=12)


def test_nhwc_maxpool_is_channels_last_with_nchw_indices():
    x = np.random.default_rng(0).standard_normal((2, 7, 6, 3)).astype(np.float32)      # N H W C
    attrs = {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1], "ceil_mode": 1}
    y, i = irpool.onnx.run("MaxPool", x, attrs, opset=11, domain=irpool.onnx.NHWC, outputs=2)
    y_nchw, i_nchw = irpool.onnx.run("MaxPool", np.ascontiguousarray(x.transpose(0, 3, 1, 2)), attrs, opset=12,
                                     outputs=2)
    np.testing.assert_array_equal(y, y_nchw.transpose(0, 2, 3, 1))           # Y channels-last
    np.testing.assert_array_equal(i, i_nchw)                                 # Indices NCHW shape and values
    u8 = (np.abs(x) * 40).astype(np.uint8)
    (y8,) = irpool.onnx.run("MaxPool", u8, attrs, opset=11, domain=irpool.onnx.NHWC)
    want, _ = ref_pool(u8, PoolSpec(kernel=(3, 2), strides=(2, 1), pads_begin=(1, 0), pads_end=(1, 1),
                                    rounding="ceil_torch", layout="channels_last", max_start="first"))
    np.testing.assert_array_equal(y8, want)


def test_lppool_1_takes_a_float_p():
    x = np.random.default_rng(1).standard_normal((1, 2, 6)).astype(np.float64)
    (y,) = irpool.onnx.run("LpPool", x, {"kernel_shape": [3], "p": 1.5, "strides": [2]}, opset=1)
    want, _ = ref_pool(x, PoolSpec(kernel=(3,), strides=(2,), reduction="lp", p=1.5))
    np.testing.assert_allclose(y, want, rtol=1e-12)


def test_irpool_onnx_is_reachable_after_a_bare_import():
    code = ("import sys, irpool; assert 'irpool.onnx' not in sys.modules; f = irpool.onnx.run;"
            " print(sorted(m for m in sys.modules if m.split('.')[0] in ('onnx', 'onnxruntime')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out


def test_importing_irpool_does_not_import_onnx():
    code = "import sys, irpool, irpool.onnx; print(sorted(m for m in sys.modules if m.split('.')[0] in ('onnx', 'onnxruntime')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out


def test_types_numpy_lacks_need_the_extra():
    """Without ml_dtypes, a type numpy lacks is one IRError that names the extra to install."""
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import irpool.dtypes\n"
            "try:\n    irpool.dtypes.dtype_named('bfloat16')\n"
            "except irpool.IRError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "element type bfloat16 needs the optional extra ml-dtypes" in out.stdout, out
    assert "pip install 'irpool[ml-dtypes]'" in out.stdout, out
