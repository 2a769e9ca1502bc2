"""IR as OpenVINO writes and reads it: every element type, interval and dynamic-rank shapes, pooling inside
If/TensorIterator/Loop bodies, attribute spellings, IR versions, the empty-window corner of AvgPool, and line
numbers past 65535. The independent side is always the installed OpenVINO: save_model writes the files,
read_model says what it reads, compile_model says what the CPU plugin takes, and its outputs are the truth."""
import re
import zlib

import numpy as np
import pytest

import irpool
from bits import assert_same_bits
from probe_plugin import compile_result

ov = pytest.importorskip("openvino")
ml_dtypes = pytest.importorskip("ml_dtypes")
import openvino.opset1 as o1  # noqa: E402
import openvino.opset8 as o8  # noqa: E402
import openvino.opset16 as o16  # noqa: E402

pytestmark = [pytest.mark.openvino]

CORE = ov.Core()
TYPES = sorted(t for t in dir(ov.Type) if not t.startswith("_") and isinstance(getattr(ov.Type, t), ov.Type))
NARROW = {"bf16": ml_dtypes.bfloat16, "i4": ml_dtypes.int4, "u4": ml_dtypes.uint4,
          "f8e4m3": ml_dtypes.float8_e4m3fn, "f8e5m2": ml_dtypes.float8_e5m2, "f8e8m0": ml_dtypes.float8_e8m0fnu}
BYTES = {"bf16": np.uint16, "f8e4m3": np.uint8, "f8e5m2": np.uint8, "f8e8m0": np.uint8}   # passed by their bits


def to_tensor(x: np.ndarray, et) -> "ov.Tensor":
    """An ov.Tensor of type et holding x: numpy types directly, bf16 by its bits, i4/u4 packed low nibble first."""
    name = et.get_type_name()
    if name not in BYTES and name not in ("i4", "u4"):
        return ov.Tensor(np.ascontiguousarray(x))
    t = ov.Tensor(et, list(x.shape))
    if name in BYTES:
        t.data.view(BYTES[name])[...] = x.view(BYTES[name])
    else:
        nib = (x.astype(np.int8).ravel().astype(np.uint8) & 0xF)
        nib = np.concatenate([nib, np.zeros(nib.size % 2, np.uint8)])
        t.data.view(np.uint8).ravel()[...] = nib[0::2] | (nib[1::2] << 4)
    return t


def from_tensor(t, dtype) -> np.ndarray:
    name = t.get_element_type().get_type_name()
    if name in BYTES:
        return t.data.view(BYTES[name]).copy().view(dtype).reshape(tuple(t.shape))
    if name in ("i4", "u4"):
        packed = t.data.view(np.uint8).ravel()
        nib = np.stack([packed & 0xF, packed >> 4], -1).ravel()[:int(np.prod(tuple(t.shape)))].astype(np.int16)
        if name == "i4":
            nib = np.where(nib > 7, nib - 16, nib)
        return nib.astype(dtype).reshape(tuple(t.shape))
    return t.data.copy()


def ov_infer(model, x, et) -> list:
    req = CORE.compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"}).create_infer_request()
    req.infer([to_tensor(x, et)])
    return [req.get_output_tensor(i) for i in range(len(model.outputs))]


def random_values(rng, name: str, shape) -> np.ndarray:
    """Values of IR type `name`, with ties, and for the wide integers values past 32 bits."""
    if name in NARROW:
        lo, hi = (-8, 7) if name == "i4" else (0, 15) if name in ("u4", "f8e8m0") else (-40, 40)
        v = rng.integers(lo, hi + 1, size=shape)
        return (v if name in ("i4", "u4") else v / 4).astype(NARROW[name])
    dtype = irpool.ir.read.element_types.element_type(name).dtype()
    if dtype.kind == "f":
        return np.round(rng.standard_normal(shape) * 8, 1).astype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(bool)
    info = np.iinfo(dtype)
    v = rng.integers(max(info.min, -100), min(info.max, 100) + 1, size=shape)
    if dtype.itemsize >= 4:
        # The plugin keeps 32 bits, signed: u32 near 2**32 compares as negative, i64/u64 keep their low
        # word. Past 2**24 in that word its paths disagree (some round through float32), so stay below.
        wrap = rng.integers(-2 ** 20, 2 ** 20, size=shape) + (2 ** 32 if dtype.itemsize == 4 else
                                                              rng.integers(-3, 4, size=shape) * 2 ** 32)
        v = np.where(rng.random(shape) < 0.4, wrap, v)
        v = v % 2 ** 32 if dtype == np.uint32 else v          # (int64 to uint64 wraps by itself)
    return v.astype(dtype)


LAYERS = {
    "MaxPool-8": lambda p: o8.max_pool(p, [2, 2], [1, 1], [1, 0], [0, 1], [3, 2], "ceil"),
    "MaxPool-8+indices": lambda p: o8.max_pool(p, [2, 1], [1, 1], [0, 0], [1, 1], [2, 2], "floor", "explicit",
                                               "i32"),
    "AvgPool-1": lambda p: o1.avg_pool(p, [2, 2], [1, 0], [1, 1], [3, 2], False, "ceil"),
    "AvgPool-16-dilated": lambda p: o16.avg_pool(p, [1, 2], [0, 1], [0, 1], [2, 2], True, "floor", "explicit",
                                                 [2, 1]),
}


@pytest.mark.parametrize("layer", sorted(LAYERS))
@pytest.mark.parametrize("name", TYPES)
def test_every_element_type_is_read_and_pooled_as_the_cpu_plugin_does(name, layer, tmp_path):
    """read_model reads every type; check flags exactly what the CPU plugin does not compile; run equals the
    plugin's outputs on the types it pools (integers, boolean, bf16, i4/u4 and f64 included)."""
    et = getattr(ov.Type, name)
    p = o1.parameter([2, 3, 6, 7], et, name="x")
    node = LAYERS[layer](p)
    outs = [node.output(0)] + ([node.output(1)] if layer.endswith("indices") else [])
    model = ov.Model(outs, [p])
    path = tmp_path / "m.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    CORE.read_model(path)                                   # OpenVINO reads every type
    compiles = compiled_as_irpool_says(path, (name, layer))
    if not compiles:
        return
    rng = np.random.default_rng(zlib.crc32(f"{name} {layer}".encode()))
    x = random_values(rng, name, (2, 3, 6, 7))
    if name == "f8e8m0" and layer.startswith("AvgPool"):      # its rounding is not reproduced: said, not guessed
        with pytest.raises(irpool.IRError, match="does not reproduce how OpenVINO's CPU plugin rounds"):
            irpool.run(path, {"x": x})
        return
    want = ov_infer(CORE.read_model(path), x, et)
    got = list(irpool.run(path, {"x": x}).values())
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert_same_bits(g, from_tensor(w, g.dtype), (name, layer))


def test_types_numpy_lacks_name_the_extra_without_ml_dtypes(tmp_path):
    import subprocess
    import sys
    p = o1.parameter([1, 1, 4, 4], ov.Type.bf16, name="x")
    ov.save_model(ov.Model([o1.max_pool(p, [2, 2], [0, 0], [0, 0], [2, 2])], [p]), tmp_path / "m.xml")
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import numpy as np, irpool\n"
            f"print(irpool.check({str(tmp_path / 'm.xml')!r}, cpu='avx512').ok)\n"   # (refused below avx512)
            "try:\n"
            f"    irpool.run({str(tmp_path / 'm.xml')!r}, {{'x': np.zeros((1, 1, 4, 4), np.uint16)}})\n"
            "except irpool.IRError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0] == "True"                 # check needs no array type
    assert "element type bfloat16 needs the optional extra ml-dtypes" in out


@pytest.mark.parametrize("channels", [1, 3])
@pytest.mark.parametrize("name,layer", [("f8e4m3", "MaxPool-8"), ("f8e8m0", "AvgPool-1"), ("i32", "AvgPool-16-dilated"),
                                        ("u16", "AvgPool-16-dilated"), ("i8", "AvgPool-16-dilated"),
                                        ("bf16", "MaxPool-8+indices"), ("f8e5m2", "MaxPool-8+indices")])
def test_what_the_cpu_plugin_refuses_depends_on_channels_and_indices(name, layer, channels, tmp_path):
    """With one channel the plugin forces the planar layout, whose f8 kernels (and dilated int32 average kernels)
    exist on some CPUs only (measured: refused on AMD EPYC at every tier, f8e4m3/f8e5m2 compiled on an Intel Xeon
    with AMX). bf16 and f8 with the indices output used fall back on the reference implementation, which has no
    such type: an error, but for bf16 below the tiers where the plugin pools bf16 natively (avx512, avx2-vnni-2),
    where it pools it as f32 and compiles (a cpu-tier note there names the tiers that refuse it)."""
    p = o1.parameter([2, channels, 6, 7], getattr(ov.Type, name), name="x")
    node = LAYERS[layer](p)
    model = ov.Model([node.output(0)] + ([node.output(1)] if layer.endswith("indices") else []), [p])
    ov.save_model(model, tmp_path / "m.xml", compress_to_fp16=False)
    compiled_as_irpool_says(tmp_path / "m.xml", (name, layer, channels))


def compiled_as_irpool_says(path, what) -> bool:
    """Compile the saved model on this machine's CPU plugin (compile_model's default configuration, the verdict)
    and hold irpool's check to what must be true on every machine: where the plugin compiles it, no error (a
    cpu-dependent warning at most); where code that does not branch on the CPU refuses it, a bad-precision
    error; where this CPU has no kernel for it, a bad-precision error or a cpu-dependent warning. Returns
    whether it compiles with INFERENCE_PRECISION_HINT=f32 (what run computes), where run must then equal it."""
    model = CORE.read_model(path)
    result, message = compile_result(CORE, model, hint_f32=False)
    findings = irpool.check(path).findings
    codes = {f.code for f in findings}
    assert codes <= {"bad-precision", "cpu-dependent", "cpu-tier"}, (what, [str(f) for f in findings])
    assert {"compiles": "bad-precision" not in codes, "plugin": "bad-precision" in codes,
            "kernels": bool(codes - {"cpu-tier"})}[result], (what, result, message[-200:], [str(f) for f in findings])
    assert all(f.severity == {"cpu-dependent": "warning", "cpu-tier": "note"}.get(f.code, "error") for f in findings)
    hinted = result if result == "compiles" else compile_result(CORE, model)[0]
    if hinted == "compiles" and result != "compiles":      # (bf16 pools below AVX-512: refused, but not by run)
        assert irpool.load(path) is not None
    return hinted == "compiles"


# -- shapes as OpenVINO writes them -------------------------------------------------------------------------
def _dim_of(d):
    return (d.get_min_length(), None if d.get_max_length() == -1 else d.get_max_length())


def _interval_chain(rng):
    """Parameter with interval / dynamic / static dims (or a dynamic rank) -> 1-3 pooling layers."""
    from ovbuild import pool_node, random_config
    cfg = random_config(rng)
    nd = len(cfg["shape"]) - 2
    if rng.random() < 0.15:
        shape = ov.PartialShape.dynamic()
    else:
        dims = []
        for i, v in enumerate(cfg["shape"]):
            r = rng.random()
            lo = int(rng.integers(0 if i >= 2 else 1, v + 1))
            dims.append(ov.Dimension(lo, v + int(rng.integers(0, 6))) if r < 0.4 else
                        ov.Dimension(lo, -1) if r < 0.55 else ov.Dimension(-1) if r < 0.65 else ov.Dimension(v))
        shape = ov.PartialShape(dims)
    node = o1.parameter(shape, np.float32, name="x")            # shapes only: types have their own test
    pools = []
    for _ in range(int(rng.integers(1, 4))):
        c = random_config(rng)
        while len(c["shape"]) - 2 != nd:
            c = random_config(rng)
        node = pool_node(c, node.output(0) if pools else node)
        node.set_friendly_name(f"pool{len(pools)}")
        pools.append(node)
    return ov.Model([node.output(0)], [pools[0].input_value(0).get_node()]), pools


def _set_dim(xml: bytes, layer_name: str, port: str, axis: int, value: str):
    from lxml import etree
    root = etree.fromstring(xml)
    layer = root.find(f".//layer[@name='{layer_name}']")
    dim = layer.find(f"output/port[@id='{port}']").findall("dim")[axis]
    dim.text = value
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8"), dim.sourceline


@pytest.mark.parametrize("seed", range(6))
def test_interval_and_dynamic_rank_models_saved_by_openvino(seed, tmp_path):
    """Clean as saved; a declared dim just outside the interval OpenVINO infers (or off its static value) is a
    shape-mismatch at that dim's line, and one inside it is not."""
    rng = np.random.default_rng(9100 + seed)
    built = injected = 0
    for i in range(40):
        try:
            model, pools = _interval_chain(rng)
        except RuntimeError:                        # OpenVINO refuses the configuration: nothing to compare
            continue
        path = tmp_path / f"m{i}.xml"
        ov.save_model(model, path, compress_to_fp16=False)
        xml = path.read_bytes()
        report = irpool.check(xml)
        # clean as saved where compile_model takes it (it refuses a Parameter of dynamic rank, and an
        # exclude-pad window in the padding on a dynamic axis, which read_model reads)
        try:
            CORE.compile_model(model, "CPU")
            compiled = True
        except RuntimeError:
            compiled = False
        assert report.ok == compiled, [str(f) for f in report.findings]
        if not compiled:
            continue
        built += 1
        k = int(rng.integers(0, len(pools)))
        shape = pools[k].output(0).get_partial_shape()
        if shape.rank.is_dynamic:
            continue
        axis = int(rng.integers(0, shape.rank.get_length()))
        lo, hi = _dim_of(shape[axis])
        name = pools[k].get_friendly_name()
        port = "1"
        for value, flagged in [(hi + 1 if hi is not None else None, True), (lo - 1 if lo >= 1 else None, True),
                               ((lo + (hi if hi is not None else lo + 3)) // 2, False)]:
            if value is None:
                continue
            bad, line = _set_dim(xml, name, port, axis, str(value))
            mine = [f for f in irpool.check(bad).findings if f.layer_name == name and f.code == "shape-mismatch"]
            assert bool(mine) == flagged, (name, axis, (lo, hi), value, [str(f) for f in mine])
            if flagged:
                assert mine[0].line == line
                injected += 1
    assert built >= 15 and injected >= 10, (built, injected)


# -- bodies -------------------------------------------------------------------------------------------------
def _body_models():
    """{kind: (model, names of the pooling layers inside bodies)}: If, TensorIterator, Loop, and an If inside
    a TensorIterator's body; every pooling layer saved by OpenVINO."""
    from openvino import opset8 as ops
    out = {}

    def branch(tag, make):
        p = o1.parameter([1, 2, 8, 8], ov.Type.f32, name=f"{tag}_x")
        node = make(p)
        node.set_friendly_name(f"{tag}_pool")
        return ov.Model([node.output(0)], [p], tag), p, node

    def if_node(x, cond, tag):
        then_m, tp, _ = branch(f"{tag}then", lambda p: o8.max_pool(p, [2, 2], [1, 1], [0, 0], [1, 1], [3, 3], "ceil"))
        else_m, ep, _ = branch(f"{tag}else", lambda p: o1.avg_pool(p, [2, 2], [1, 1], [0, 0], [2, 2], False))
        node = ops.if_op(cond)
        node.set_then_body(then_m)
        node.set_else_body(else_m)
        node.set_input(x, tp, ep)
        return node.set_output(then_m.get_results()[0], else_m.get_results()[0]), [f"{tag}then_pool", f"{tag}else_pool"]

    cond = o1.parameter([], ov.Type.boolean, name="cond")
    x = o1.parameter([1, 2, 8, 8], ov.Type.f32, name="x")
    y, names = if_node(x.output(0), cond.output(0), "")
    out["If"] = (ov.Model([y], [cond, x]), names)

    xs = o1.parameter([3, 2, 8, 8], ov.Type.f32, name="xs")
    body, bx, _ = branch("ti", lambda p: o8.max_pool(p, [1, 1], [2, 2], [1, 1], [1, 1], [2, 2]))
    ti = ops.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(bx, xs.output(0), 0, 1, 1, -1, 0)
    out["TensorIterator"] = (ov.Model([ti.get_concatenated_slices(body.get_results()[0].output(0), 0, 1, 1, -1, 0)],
                                      [xs]), ["ti_pool"])

    x2 = o1.parameter([1, 2, 8, 8], ov.Type.f32, name="x2")
    body, bx, pool = branch("loop", lambda p: o1.avg_pool(p, [1, 1], [1, 1], [1, 1], [3, 3], True))
    body = ov.Model([pool.output(0), o1.constant(True).output(0)], [bx], "body")
    loop = ops.loop(o1.constant(np.int64(2)), o1.constant(True))
    loop.set_function(body)
    loop.set_special_body_ports([-1, 1])
    loop.set_invariant_input(bx, x2.output(0))
    out["Loop"] = (ov.Model([loop.get_iter_value(pool.output(0), -1)], [x2]), ["loop_pool"])

    xs3 = o1.parameter([3, 2, 8, 8], ov.Type.f32, name="xs3")
    c3 = o1.parameter([], ov.Type.boolean, name="c3")
    inner_x = o1.parameter([1, 2, 8, 8], ov.Type.f32, name="inner_x")
    inner_c = o1.parameter([], ov.Type.boolean, name="inner_c")
    y, names = if_node(inner_x.output(0), inner_c.output(0), "nested")
    body = ov.Model([y], [inner_x, inner_c], "tibody")
    ti = ops.tensor_iterator()
    ti.set_body(body)
    ti.set_sliced_input(inner_x, xs3.output(0), 0, 1, 1, -1, 0)
    ti.set_invariant_input(inner_c, c3.output(0))
    out["If in TensorIterator"] = (ov.Model([ti.get_concatenated_slices(body.get_results()[0].output(0), 0, 1, 1, -1, 0)],
                                            [xs3, c3]), names)
    return out


@pytest.mark.parametrize("kind", ["If", "TensorIterator", "Loop", "If in TensorIterator"])
def test_pooling_inside_bodies_saved_by_openvino(kind, tmp_path):
    """Clean as saved (read_model reads it); a wrong dim injected in a body's pooling layer is found at its
    line, naming the enclosing layers; explain shows the body's layers too."""
    model, names = _body_models()[kind]
    path = tmp_path / "m.xml"
    ov.save_model(model, path, compress_to_fp16=False)
    CORE.read_model(path)
    xml = path.read_bytes()
    report = irpool.check(xml)
    assert report.ok and report.pooling_layers == len(names), [str(f) for f in report.findings]
    text = irpool.explain(xml)
    for name in names:
        assert f"name={name!r}" in text
        bad, line = _set_dim(xml, name, "1", 2, "17")
        mine = [f for f in irpool.check(bad).findings if f.layer_name == name]
        assert [f.code for f in mine] == ["shape-mismatch"] and mine[0].line == line, [str(f) for f in mine]
        assert mine[0].path and mine[0].path.count("<") == (2 if kind.startswith("If in") else 1), mine[0].path
        outer = "TensorIterator" if kind.endswith("TensorIterator") else kind
        assert mine[0].path.startswith(outer) and "body>" in mine[0].path and f" in {mine[0].path}: " in str(mine[0])


# -- attribute spellings ------------------------------------------------------------------------------------
_SPELL_NET = """<?xml version="1.0"?>
<net name="t" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,2,9,8" element_type="f32"/><output><port id="0" precision="FP32"><dim>1</dim><dim>2</dim><dim>9</dim><dim>8</dim></port></output></layer>
<layer id="1" name="p" type="{op}" version="{version}"><data {data}/><input><port id="0" precision="FP32"><dim>1</dim><dim>2</dim><dim>9</dim><dim>8</dim></port></input><output>{outs}</output></layer>
<layer id="2" name="r" type="Result" version="opset1"><input><port id="0" precision="FP32">{dims}</port></input></layer>
</layers><edges><edge from-layer="0" from-port="0" to-layer="1" to-port="0"/><edge from-layer="1" from-port="1" to-layer="2" to-port="0"/></edges></net>"""
_BASE = {"MaxPool": dict(strides="2,2", dilations="1,1", pads_begin="0,1", pads_end="1,0", kernel="2,3",
                         rounding_type="floor", auto_pad="explicit", index_element_type="i64", axis="0"),
         "AvgPool": {"strides": "2,2", "pads_begin": "0,1", "pads_end": "1,0", "kernel": "2,3", "rounding_type": "floor",
                     "auto_pad": "explicit", "exclude-pad": "true"}}
_SPELLINGS = {
    "ints": ["", " ", "2,2", " 2, 2 ", "2 ,2", "2,  2", "+2,2", "02,2", "2.0,2", "2,,2", "2;2", "0x2,2", "2 2", "2",
             "2,2,2", "2,2,", ",2,2", "2,a", "  1  ,  1  ", "1,1,,", "\t1,1"],
    "enum": ["floor", "FLOOR", "Floor", " floor", "floor ", "ceil", "CEIL", "ceil_torch", "", "x"],
    "auto_pad": ["explicit", "EXPLICIT", "same_upper", "SAME_UPPER", "Same_Lower", "valid", "VALID", "notset", "NOTSET",
                 "same", "", " valid", "same-upper"],
    "bool": ["true", "false", "True", "FALSE", "1", "0", " true", "true ", "yes", "no", "", "2", "false ", " 0", "off"],
    "element": ["i64", "i32", "I64", "I32", "int64", "i8", "u64", "u16", "", " i32"],
    "int": ["0", "1", "-1", "+1", " 1", "1 ", "01", "1.0", "", "x", "-4", "4", "-5", "3"],
}
_KINDS = {"strides": "ints", "kernel": "ints", "pads_begin": "ints", "pads_end": "ints", "dilations": "ints",
          "rounding_type": "enum", "auto_pad": "auto_pad", "exclude-pad": "bool", "index_element_type": "element",
          "axis": "int"}


def _spelling_cases():
    for op, version in (("MaxPool", "opset8"), ("AvgPool", "opset1")):
        for attr, kind in _KINDS.items():
            if attr in _BASE[op]:
                for text in _SPELLINGS[kind]:
                    yield op, version, attr, text
                yield op, version, attr, None                       # the attribute left out


def _spelled(op, version, attr, text, out_dims):
    data = dict(_BASE[op])
    if text is None:
        del data[attr]
    else:
        data[attr] = text
    dims = "".join(f"<dim>{d}</dim>" for d in out_dims)
    outs = f'<port id="1" precision="FP32">{dims}</port>'
    if op == "MaxPool":
        outs += f'<port id="2" precision="{data.get("index_element_type", "i64").strip().upper()}">{dims}</port>'
    attrs = " ".join(f'{k}="{v}"' for k, v in data.items())
    return _SPELL_NET.format(op=op, version=version, data=attrs, outs=outs, dims=dims).encode()


@pytest.mark.parametrize("op,version,attr,text", list(_spelling_cases()))
def test_attribute_spellings_as_read_model_reads_them(op, version, attr, text):
    """What read_model accepts, irpool accepts and reads to the same output dims; what it refuses, irpool
    flags. One deliberate difference: a negative stride, which OpenVINO reads as 2**64 - 1."""
    probe = _spelled(op, version, attr, text, [-1] * 4)
    try:
        model = CORE.read_model(probe, ov.Tensor(ov.Type.u8, [0]))
        node = next(n for n in model.get_ordered_ops() if n.get_type_name() == op)
        dims = [str(d) for d in node.output(0).get_partial_shape()]
    except RuntimeError:
        model = None
    ours = irpool.check(probe)
    flagged = [f for f in ours.findings if f.code in ("bad-attribute", "bad-precision", "bad-shape")]
    assert bool(flagged) == (model is None), (attr, text, [str(f) for f in ours.findings])
    if model is not None:
        again = irpool.check(_spelled(op, version, attr, text, dims))
        assert again.ok, (attr, text, dims, [str(f) for f in again.findings])
        _lenient_said_as_openvino_read_it(ours, node, attr, kind=_KINDS[attr], text=text)


def _lenient_said_as_openvino_read_it(report, node, attr, kind, text):
    """A value OpenVINO read, written other than as its type (an integer item that is not optional minus and
    digits; a boolean other than true/false/1/0 in any case), gets a lenient-attribute warning that names
    the value OpenVINO read; a plainly written one gets none."""
    said = [f.message for f in report.findings if f.code == "lenient-attribute"]
    value = node.get_attributes().get(attr) if text is not None else None
    if kind == "ints" and text is not None:
        items = text.split(",") if text else []
        items = items[:-1] if len(items) > 1 and items[-1] == "" else items
        odd = [(item.strip(), value[i]) for i, item in enumerate(items) if not re.fullmatch(r"-?\d+", item.strip())]
        assert len(said) == len(odd), (attr, text, said)
        for (item, v), message in zip(odd, said):
            assert f'OpenVINO reads "{item}" as {v}' in message, (message, value)
    elif kind == "int" and text is not None:
        odd = not re.fullmatch(r"-?\d+", text.strip())
        assert len(said) == odd and (not odd or f"as {value}" in said[0]), (attr, text, said, value)
    elif kind == "bool" and text is not None:
        odd = text.lower() not in ("true", "false", "1", "0")
        assert len(said) == odd, (attr, text, said)
        assert not odd or f"keeps the default, {str(value).lower()}" in said[0], (text, value, said)
    else:
        assert not said, (attr, text, said)


def test_a_negative_stride_is_refused_where_openvino_reads_it_as_huge():
    probe = _spelled("MaxPool", "opset8", "strides", "-1,2", [-1] * 4)
    model = CORE.read_model(probe, ov.Tensor(ov.Type.u8, [0]))
    node = next(n for n in model.get_ordered_ops() if n.get_type_name() == "MaxPool")
    assert node.get_attributes()["strides"][0] in (-1, 2 ** 64 - 1)
    assert [f.code for f in irpool.check(probe).findings] == ["bad-attribute"]


# -- the empty-window corner of AvgPool ---------------------------------------------------------------------
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


@st.composite
def _corner_avgpool(draw):
    """AvgPools that make windows start at or past the input's end: ceil rounding, large strides, dilation."""
    nd = draw(st.integers(1, 2))
    version = draw(st.sampled_from([1, 14, 16]))
    cfg = dict(op="AvgPool", version=version, dtype="float32", auto_pad="explicit",
               shape=[1, draw(st.integers(1, 2))] + draw(st.lists(st.integers(1, 7), min_size=nd, max_size=nd)),
               kernel=draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd)),
               strides=draw(st.lists(st.integers(1, 5), min_size=nd, max_size=nd)),
               pads_begin=draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd)),
               pads_end=draw(st.lists(st.integers(0, 2), min_size=nd, max_size=nd)),
               rounding_type=draw(st.sampled_from(["ceil", "ceil_torch"] if version > 1 else ["ceil"])),
               exclude_pad=draw(st.booleans()))
    if version == 16:
        cfg["dilations"] = draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    return cfg


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_corner_avgpool())
def test_empty_average_windows_equal_the_cpu_plugin(cfg):
    """NaN, -0 and +0 exactly where the CPU plugin gives them, for every AvgPool version."""
    from irbuild import net_xml
    from ovbuild import ov_outputs
    try:
        want = ov_outputs(cfg, np.zeros(cfg["shape"], np.float32))
    except RuntimeError:                                          # OpenVINO refuses: so does irpool
        with pytest.raises(irpool.IRError):
            irpool.run(net_xml(cfg), {"x": np.zeros(cfg["shape"], np.float32)})
        return
    x = np.arange(1, np.prod(cfg["shape"]) + 1, dtype=np.float32).reshape(cfg["shape"])
    (want,) = ov_outputs(cfg, x)
    (got,) = irpool.run(net_xml(cfg), {"x": x}).values()
    assert_same_bits(got, want, cfg)


# -- line numbers and structure -----------------------------------------------------------------------------
def _long_net(pad_layers: int) -> str:
    """A net of more than 70,000 lines as save_model indents it, with findings after line 65535: in an empty
    <data/>, an empty <edge/>, a <dim>, and on a <layer> itself."""
    dims = lambda ds, ind: "".join(f"\n{ind}<dim>{d}</dim>" for d in ds)  # noqa: E731
    parts = ['<?xml version="1.0"?>\n<net name="long" version="11">\n\t<layers>',
             f'\t\t<layer id="0" name="x" type="Parameter" version="opset1">\n\t\t\t<data shape="1,1,8,8" '
             f'element_type="f32" />\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32">{dims([1, 1, 8, 8], chr(9) * 5)}'
             f'\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>']
    for i in range(pad_layers):
        parts.append(f'\t\t<layer id="{100 + i}" name="c{i}" type="Const" version="opset1">\n\t\t\t<data element_type="f32"'
                     f' shape="1" offset="0" size="4" />\n\t\t\t<output>\n\t\t\t\t<port id="0" precision="FP32">'
                     f'{dims([1], chr(9) * 5)}\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>')
    parts.append(f'\t\t<layer id="1" name="late" type="MaxPool" version="opset8">\n\t\t\t<data strides="2,2" kernel="2,2" '
                 f'axis="9" />\n\t\t\t<input>\n\t\t\t\t<port id="0" precision="FP32">{dims([1, 1, 8, 8], chr(9) * 5)}\n'
                 f'\t\t\t\t</port>\n\t\t\t</input>\n\t\t\t<output>\n\t\t\t\t<port id="1" precision="FP32">'
                 f'{dims([1, 1, 4, 4], chr(9) * 5)}\n\t\t\t\t</port>\n\t\t\t\t<port id="2" precision="I64">'
                 f'{dims([1, 1, 4, 4], chr(9) * 5)}\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>')
    parts.append('\t\t<layer id="2" name="twice" type="Result" version="opset1">\n\t\t\t<input>\n\t\t\t\t<port id="0" />'
                 '\n\t\t\t</input>\n\t\t</layer>')
    parts.append(f'\t\t<layer id="2" name="late2" type="AvgPool" version="opset1">\n\t\t\t<data strides="2,2" kernel="2,2" />'
                 f'\n\t\t\t<input>\n\t\t\t\t<port id="0" precision="FP32">{dims([1, 1, 8, 8], chr(9) * 5)}\n\t\t\t\t</port>'
                 f'\n\t\t\t</input>\n\t\t\t<output>\n\t\t\t\t<port id="1" precision="FP32">{dims([1, 1, 4, 5], chr(9) * 5)}'
                 f'\n\t\t\t\t</port>\n\t\t\t</output>\n\t\t</layer>')
    parts.append('\t</layers>\n\t<edges>\n\t\t<edge from-layer="0" from-port="0" to-layer="1" to-port="0" />\n'
                 '\t\t<edge from-layer="0" from-port="0" to-layer="7" to-port="0" />\n\t</edges>\n</net>\n')
    return "\n".join(parts)


def test_findings_past_line_65535_have_their_own_lines():
    text = _long_net(9000)
    lines = text.split("\n")
    assert len(lines) > 70000
    at = lambda needle: next(i + 1 for i, l in enumerate(lines) if needle in l)  # noqa: E731
    found = {(f.code, f.line) for f in irpool.check(text).findings}
    dim5 = next(i for i in range(at('name="late2"'), len(lines)) if lines[i - 1].strip() == "<dim>5</dim>")
    # (no Result reads layer 'late' or the edge into the missing layer 7: OpenVINO never builds them, so unbuilt;
    # the Result 'twice' gives its id to 'late2', which OpenVINO builds in its place, as a root)
    assert {("unbuilt", at('axis="9"')), ("unbuilt", at('to-layer="7"')), ("shape-mismatch", dim5),
            ("shadowed-layer", at('name="twice"'))} <= found, (sorted(found), at('axis="9"'))
    assert min(line for _, line in found) > 65535


def test_what_read_model_refuses_in_structure_irpool_refuses(tmp_path):
    import subprocess
    import sys
    p = o1.parameter([1, 1, 4, 4], ov.Type.f32, name="x")
    ov.save_model(ov.Model([o1.max_pool(p, [2, 2], [0, 0], [0, 0], [2, 2])], [p]), tmp_path / "m.xml")
    good = (tmp_path / "m.xml").read_text()
    cases = {
        "v7": good.replace('version="11"', 'version="7"', 1),
        "v99": good.replace('version="11"', 'version="99"', 1),
        "no_result_name": good.replace(' name="Result_', ' nme="Result_'),
        "no_layer_version": good.replace('type="MaxPool" version="opset1"', 'type="MaxPool"'),
    }
    for name, xml in cases.items():
        path = tmp_path / f"{name}.xml"
        path.write_text(xml)
        with pytest.raises(RuntimeError):
            CORE.read_model(path)
        cli = subprocess.run([sys.executable, "-m", "irpool", "check", str(path)], capture_output=True, text=True)
        assert "Traceback" not in cli.stderr and cli.returncode in (1, 2), (name, cli.returncode, cli.stderr)
        if name.startswith("v"):
            assert cli.returncode == 2 and "OpenVINO reads IR versions 10 and 11 only" in cli.stderr
            assert ("2022.1" in cli.stderr) == (name == "v7")
        else:
            assert cli.returncode == 1 and "[bad-structure]" in cli.stdout and "lacks" in cli.stdout
            with pytest.raises(irpool.IRError, match="lacks"):
                irpool.run(path, {"x": np.zeros((1, 1, 4, 4), np.float32)})
    nopool = tmp_path / "nopool.xml"
    q = o1.parameter([2], ov.Type.f32, name="y")
    ov.save_model(ov.Model([o1.relu(q)], [q]), nopool)
    cli = subprocess.run([sys.executable, "-m", "irpool", "check", str(nopool)], capture_output=True, text=True)
    assert cli.returncode == 0 and cli.stdout.strip() == f"{nopool}: ok (no pooling layers)"


def test_two_results_of_one_name_are_refused_by_run():
    """read_model takes two Results named alike; run, which returns outputs by Result name, refuses."""
    from irbuild import net_xml
    cfg = dict(op="MaxPool", version=8, shape=[1, 1, 4, 4], dtype="float32", kernel=[2, 2], strides=[2, 2],
               pads_begin=[0, 0], pads_end=[0, 0], auto_pad="explicit", rounding_type="floor", dilations=[1, 1],
               index_element_type="i64", axis=0)
    xml = net_xml(cfg).replace('name="out1"', 'name="out0"')
    model = CORE.read_model(xml.encode(), ov.Tensor(ov.Type.u8, [0]))
    assert [r.get_friendly_name() for r in model.get_results()] == ["out0", "out0"]
    with pytest.raises(irpool.IRError, match=r"two Result layers are named 'out0' \(ids 2, line \d+, and 3\)"):
        irpool.run(xml, {"x": np.zeros((1, 1, 4, 4), np.float32)})


@pytest.mark.parametrize("shape", [[0, 3, 8, 8], [1, 0, 8], [1, 3, 0, 8], [2, 3, 8, 8], [1, 1, 5, 5, 0]])
def test_empty_batch_channels_or_axes_are_refused_as_openvino_refuses_them(shape):
    from irbuild import net_xml
    nd = len(shape) - 2
    cfg = dict(op="MaxPool", version=8, shape=shape, dtype="float32", kernel=[1] * nd, strides=[1] * nd,
               pads_begin=[0] * nd, pads_end=[0] * nd, auto_pad="explicit", rounding_type="floor", dilations=[1] * nd,
               index_element_type="i64", axis=0)
    try:
        o8.max_pool(o1.parameter(shape, ov.Type.f32), [1] * nd, [1] * nd, [0] * nd, [0] * nd, [1] * nd)
        refused = False
    except RuntimeError:
        refused = True
    findings = irpool.check(net_xml(cfg)).findings
    assert bool([f for f in findings if f.code == "bad-shape"]) == refused, (shape, [str(f) for f in findings])
