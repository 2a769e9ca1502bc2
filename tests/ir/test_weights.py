"""Where a Const's bytes lie, as read_model reads them (irpool/ir/ops/consts.py): offset + size past the end of the
.bin ("Incorrect weights in bin file!"), a size below (count * bits + 7) >> 3 ("Attribute and shape size are
inconsistent for Const op!"), a .bin that is not there ("Empty weights data in bin file or bin file cannot be
found!", said once, at a Const it builds); and an adaptive pool's output_shape written as floats, which read_model
truncates toward zero. Each file is given to read_model (and compile_model): check refuses exactly the files it
refuses. Measured with OpenVINO 2026.4.1 on AMD EPYC family 26 model 2 (avx512f); the reader's rules do not depend
on the CPU, and the pools here compile on every tier."""
import math

import numpy as np
import pytest

import irpool
from bits import assert_same_bits
from irbuild import small_net

pytestmark = [pytest.mark.openvino]
ov = pytest.importorskip("openvino")

_W = 'element_type="f32" shape="4,3,1,1" offset="0" size="48"'     # the weights of small_net's Convolution
_EXTRA = ('<layer id="6" name="c" type="Const" version="opset1"><data element_type="{et}" shape="12" offset="{offset}"'
          ' size="{size}"/><output><port id="0" precision="{et_upper}"><dim>12</dim></port></output></layer>'
          '<layer id="7" name="c_out" type="Result" version="opset1"><input><port id="0" precision="{et_upper}">'
          "<dim>12</dim></port></input></layer>")


def _bits(et: str) -> int:
    """openvino.Type's own bitwidth (the test's reference, not irpool's table)."""
    return next(getattr(ov.Type, a) for a in dir(ov.Type)
                if isinstance(getattr(ov.Type, a), ov.Type) and getattr(ov.Type, a).get_type_name() == et).bitwidth


def _with_const(et, size, offset=0, orphan=False) -> str:
    """small_net with one more Const of 12 values of `et` (into a Result, or `orphan`: into nothing)."""
    precision = {"boolean": "BOOL", "f16": "FP16", "f32": "FP32", "f64": "FP64"}.get(et, et.upper())
    extra = _EXTRA.format(et=et, et_upper=precision, size=size, offset=offset)
    if orphan:
        extra = extra[:extra.index('<layer id="7"')]
    xml = small_net().replace("</layers>", extra + "</layers>")
    return xml if orphan else xml.replace("</edges>", '<edge from-layer="6" from-port="0" to-layer="7" to-port="0"/>'
                                                      "</edges>")


def _cases():
    big = str(1 << 62)
    for label, d, length in [("plain", _W, 48), ("size short", _W.replace('"48"', '"44"'), 48),
                             ("size long, .bin long", _W.replace('"48"', '"52"'), 52),
                             ("size long, .bin short", _W.replace('"48"', '"52"'), 48),
                             ("offset past", _W.replace('offset="0"', 'offset="4"'), 48),
                             ("size 0", _W.replace('"48"', '"0"'), 48), (".bin short", _W, 40), (".bin empty", _W, 0),
                             (".bin missing", _W, None), ("huge offset", _W.replace('offset="0"', f'offset="{big}"'), 48),
                             ("huge size", _W.replace('"48"', f'"{big}"'), 48)]:
        yield pytest.param(small_net().replace(_W, d), length, id=label)
    for et in ("u1", "u2", "u3", "i4", "u6", "nf4", "f4e2m1", "f8e4m3", "i8", "boolean", "f16", "bf16", "i32", "f64"):
        need = (12 * _bits(et) + 7) >> 3
        for size in (need, need - 1):
            yield pytest.param(_with_const(et, size, offset=48), 48 + need, id=f"{et} size {size}")
    yield pytest.param(_with_const("f32", 4, offset=48, orphan=True), 96, id="an orphan Const, size short")
    yield pytest.param(_with_const("f32", 48, offset=48, orphan=True), 48, id="an orphan Const past the end")


def _both(tmp_path, xml, length) -> tuple:
    """(read_model's refusal or None, check's errors) of `xml` saved with a .bin of `length` zero bytes (None:
    no .bin)."""
    path = tmp_path / "m.xml"
    path.write_text(xml)
    if length is not None:
        path.with_suffix(".bin").write_bytes(bytes(length))
    try:
        ov.Core().read_model(str(path))
        refused = None
    except RuntimeError as e:
        refused = " ".join(str(e).split())
    return refused, [f for f in irpool.check(path).findings if f.severity == "error"]


@pytest.mark.parametrize("xml, length", list(_cases()))
def test_check_refuses_the_weights_read_model_refuses(xml, length, tmp_path):
    refused, errors = _both(tmp_path, xml, length)
    if refused is None:
        assert not errors, [str(f) for f in errors]
        return
    assert [f.code for f in errors] == ["bad-weights"], (refused[-200:], [str(f) for f in errors])
    said = errors[0].message
    for words in ("Incorrect weights in bin file!", "Attribute and shape size are inconsistent",
                  "bin file cannot be found"):
        assert (words in refused) == (words in said), (refused[-200:], said)


def test_a_string_has_no_weights_file_but_its_sizes_are_judged():
    """check(string) knows no .bin (none is beside it): a Const's size against its shape is still read_model's
    refusal; where its bytes lie is not judged (read_model takes the weights as a separate tensor)."""
    short = small_net().replace(_W, _W.replace('"48"', '"44"'))
    with pytest.raises(RuntimeError, match="Attribute and shape size are inconsistent"):
        ov.Core().read_model(short.encode(), ov.Tensor(np.zeros(48, np.uint8)))
    assert [f.code for f in irpool.check(short).errors()] == ["bad-weights"]
    past = small_net().replace(_W, _W.replace('offset="0"', 'offset="4096"'))
    assert irpool.check(past).ok


_POOL_NET = """<?xml version="1.0"?>
<net name="p" version="11"><layers>
<layer id="0" name="x" type="Parameter" version="opset1"><data shape="1,3,5,6" element_type="f32"/><output>
<port id="0" precision="FP32"><dim>1</dim><dim>3</dim><dim>5</dim><dim>6</dim></port></output></layer>
<layer id="1" name="c" type="Const" version="opset1"><data element_type="{et}" shape="2" offset="0" size="{size}"/>
<output><port id="0" precision="{precision}"><dim>2</dim></port></output></layer>
<layer id="2" name="pool" type="{op}" version="opset8">{data}<input><port id="0" precision="FP32"><dim>1</dim><dim>3</dim>
<dim>5</dim><dim>6</dim></port><port id="1" precision="{precision}"><dim>2</dim></port></input><output>{outs}</output>
</layer>{results}</layers><edges><edge from-layer="0" from-port="0" to-layer="2" to-port="0"/>
<edge from-layer="1" from-port="0" to-layer="2" to-port="1"/>{edges}</edges></net>
"""
_TYPES = {"f32": (np.float32, "FP32"), "f16": (np.float16, "FP16"), "f64": (np.float64, "FP64"),
          "bf16": (None, "BF16"), "i64": (np.int64, "I64"), "i32": (np.int32, "I32")}


def _float_shape_net(tmp_path, op, et, values, dims) -> str:
    """Parameter [1,3,5,6] -> `op` whose output_shape is a Const of `values` in type `et` -> Result(s),
    its output ports declaring `dims` (-1 where None)."""
    dtype, precision = _TYPES[et]
    if dtype is None:                   # bf16: the high half of a float32, rounded to even
        raw = np.array(values, np.float32).view(np.uint32)
        blob = ((raw + 0x7FFF + (raw >> 16 & 1)) >> 16).astype(np.uint16).tobytes()
    else:
        blob = np.array(values, dtype).tobytes()
    port = lambda pid, p: f'<port id="{pid}" precision="{p}">' + "".join(  # noqa: E731
        f"<dim>{-1 if d is None else d}</dim>" for d in dims) + "</port>"
    n = 2 if op == "AdaptiveMaxPool" else 1
    xml = _POOL_NET.format(
        et=et, size=len(blob), precision=precision, op=op,
        data='<data index_element_type="i32"/>' if n == 2 else "",
        outs="".join(port(2 + k, "FP32" if k == 0 else "I32") for k in range(n)),
        results="".join(f'<layer id="{3 + k}" name="r{k}" type="Result" version="opset1"><input>'
                        f'{port(0, "FP32" if k == 0 else "I32")}</input></layer>' for k in range(n)),
        edges="".join(f'<edge from-layer="2" from-port="{2 + k}" to-layer="{3 + k}" to-port="0"/>' for k in range(n)))
    path = tmp_path / f"{op}_{et}_{len(list(tmp_path.iterdir()))}.xml"
    path.write_text(xml)
    path.with_suffix(".bin").write_bytes(blob)
    return str(path)


@pytest.mark.parametrize("op", ["AdaptiveAvgPool", "AdaptiveMaxPool"])
def test_an_output_shape_is_read_as_read_model_reads_it(op, tmp_path):
    """read_model takes an adaptive pool's float output_shape toward zero (2.7 is 2; -1.5 is -1, a dynamic dim; NaN
    a dim of 0, as any value below -1) and refuses one past int64's range; the output dims check computes are the
    ones read_model infers (declared so, check is clean; declared one more, a shape-mismatch), for integers below
    -1 too. A value whose rounding to even is not its truncation (2.7, 3.5, -1.5) compiles, but the CPU plugin
    reads it rounded and pools past the end of the output read_model sized (measured in child processes,
    2026.4.1: glibc aborts, or the values are wrong; not run here): check refuses it (bad-weights)."""
    from plugin import compile_in_child
    core = ov.Core()
    cases = [("f32", [2.7, 3.2]), ("f32", [-1.5, 2.0]), ("f32", [-0.5, 2.5]), ("f16", [2.7, 3.9]),
             ("f64", [1.999, 4.0]), ("bf16", [2.5, 3.0]), ("f32", [float("nan"), 2.0]), ("f32", [1e20, 2.0]),
             ("f32", [float("-inf"), 2.0]), ("i64", [-2, 2]), ("i64", [-100, 3]), ("i32", [-1, 2]),
             ("i64", [-(1 << 63), 1]), ("f32", [2.5, 6.5]), ("f32", [3.5, 2.0]), ("f16", [2.0, 4.999])]
    read = 0
    for et, values in cases:
        first = _float_shape_net(tmp_path, op, et, values, [None] * 4)
        try:
            inferred = core.read_model(first).output(0).get_partial_shape()
        except RuntimeError as e:
            assert "not in range" in str(e)
            (error,) = irpool.check(first).errors()
            assert error.code == "bad-weights" and "not within int64's range" in error.message, str(error)
            continue
        dims = [None if d.is_dynamic else d.get_length() for d in inferred]
        declared = _float_shape_net(tmp_path, op, et, values, dims)
        assert compile_in_child([declared]) == ["ok"]
        stored = [float(v) for v in np.array(values, _TYPES[et][0] or np.float32)]
        if any(not math.isnan(v) and round(v) != math.trunc(v) for v in stored):
            (error,) = irpool.check(declared).errors()
            assert error.code == "bad-weights" and "corrupts memory" in error.message, str(error)
            continue
        assert irpool.check(declared).ok, [str(f) for f in irpool.check(declared).findings]
        if dims[2] is not None:
            wrong = _float_shape_net(tmp_path, op, et, values, dims[:2] + [dims[2] + 1, dims[3]])
            assert {f.code for f in irpool.check(wrong).errors()} == {"shape-mismatch"}
        read += 1
    assert read >= 9


@pytest.mark.parametrize("op", ["AdaptiveAvgPool", "AdaptiveMaxPool"])
@pytest.mark.parametrize("et", ["f32", "f16", "bf16"])
def test_a_float_output_shape_runs_as_the_plugin_does(op, et, tmp_path):
    """Whole values only: with 2.7 the plugin computes and then corrupts its heap (glibc aborts the process,
    measured on 2026.4.1: "corrupted double-linked list"), which no test can run in its own process."""
    path = _float_shape_net(tmp_path, op, et, [2.0, 3.0], [1, 3, 2, 3])
    x = np.random.default_rng(3).standard_normal((1, 3, 5, 6)).astype(np.float32)
    want = ov.Core().compile_model(path, "CPU")(x)
    got = irpool.run(path, x, layer="pool")
    for port, w in zip(got, want.values()):
        assert_same_bits(got[port], w)


_TYPED = ('<layer id="6" name="c" type="Const" version="opset1"><data element_type="{et}" shape="2" offset="0" size="16"/>'
          '<output><port id="0" precision="I64"><dim>2</dim></port></output></layer><layer id="7" name="c_out"'
          ' type="Result" version="opset1"><input><port id="0" precision="I64"><dim>2</dim></port></input></layer>')
_SPELLINGS = ["f32", "F32", "Fp32", "FP32", "fp32", "i64", "I64", "boolean", "Boolean", "BOOLEAN", "BOOL", "bool",
              "bf16", "BF16", "Bf16", "f16", "F16", "FP16", "F64", "nf4", "NF4", "Nf4", "F8E4M3", "U1", "string",
              "STRING", "String", "dynamic", "DYNAMIC", "undefined", "Undefined", "UNSPECIFIED", "bin", "BIN", "u8 ",
              " u8", "u9", ""]


@pytest.mark.parametrize("et", _SPELLINGS)
def test_a_const_element_type_is_read_as_read_model_reads_it(et, tmp_path):
    """A name in lower case, or in capitals where it is not a float, boolean or dynamic type, or "undefined":
    read; a precision name ("FP32", "BOOL") or another case ("F32", "Boolean") refused, in read_model's words."""
    xml = small_net().replace("</layers>", _TYPED.format(et=et) + "</layers>").replace(
        "</edges>", '<edge from-layer="6" from-port="0" to-layer="7" to-port="0"/></edges>')
    refused, errors = _both(tmp_path, xml, 64)
    if refused is None:
        assert not errors, [str(f) for f in errors]
    else:
        assert errors, refused[-160:]
        for words in ("Unsupported element type", "is not a member of enum"):
            if words in refused:
                assert any(words in f.message for f in errors), (refused[-160:], [str(f) for f in errors])
