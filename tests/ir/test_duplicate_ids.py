"""Layers that share an id, against OpenVINO itself: its reader keeps the last <layer> of an id and builds it
alone, checks only ids, names, types, versions, <dim>s and output precisions of the earlier ones, and lets an
earlier Result make the id a root and an earlier Parameter a place among the inputs (irpool/ir/check/passes.py
`shadowed`; schemas/codes.json shadowed-layer). Each variant is written by hand here, as IR v11 and v10, and
given to read_model + compile_model in child processes (a crash is a refusal); check must refuse exactly those
OpenVINO refuses, leaving aside the declared dims OpenVINO ignores. Measured on AMD EPYC family 26 model 2
(avx512f) with OpenVINO 2026.4.1; the reader's rules do not depend on the CPU."""
import pytest

import irpool

pytest.importorskip("openvino")
from plugin import compile_in_child  # noqa: E402

pytestmark = [pytest.mark.openvino]


def _port(pid, dims, prec="FP32"):
    p = f' precision="{prec}"' if prec else ""
    return f'<port id="{pid}"{p}>' + "".join(f"<dim>{d}</dim>" for d in dims) + "</port>"


def P(i, name, shape=(1, 2, 8, 8)):
    return (f'<layer id="{i}" name="{name}" type="Parameter" version="opset1"><data shape="{",".join(map(str, shape))}"'
            f' element_type="f32"/><output>{_port(0, shape)}</output></layer>')


def POOL(i, name, k=2, ins=(1, 2, 8, 8), typ="MaxPool", ver="opset1", data=None, outport=1, outs=None,
         prec="FP32", id_text=None):
    outs = outs or (ins[0], ins[1], (ins[2] - k) // k + 1, (ins[3] - k) // k + 1)
    data = data or (f'auto_pad="explicit" kernel="{k},{k}" strides="{k},{k}" pads_begin="0,0" pads_end="0,0"'
                    f' rounding_type="floor"' + (' exclude-pad="true"' if typ == "AvgPool" else ""))
    return (f'<layer id="{i if id_text is None else id_text}" name="{name}" type="{typ}" version="{ver}">'
            f'<data {data}/><input>{_port(0, ins)}</input><output>{_port(outport, outs, prec)}</output></layer>')


def R(i, name, dims=(1, 2, 4, 4)):
    return f'<layer id="{i}" name="{name}" type="Result" version="opset1"><input>{_port(0, dims)}</input></layer>'


def C(i, name, shape=(1, 2, 8, 8)):
    return (f'<layer id="{i}" name="{name}" type="Const" version="opset1"><data element_type="f32"'
            f' shape="{",".join(map(str, shape))}" offset="0" size="512"/><output>{_port(0, shape)}</output></layer>')


def E(a, b, c, d):
    return f'<edge from-layer="{a}" from-port="{b}" to-layer="{c}" to-port="{d}"/>'


BASE = [E(0, 0, 1, 0), E(1, 1, 2, 0)]


def variants() -> dict:
    p0, r2, A, B = P(0, "in"), R(2, "out"), POOL(1, "poolA"), POOL(1, "poolB", k=4)
    bad = 'auto_pad="explicit" kernel="x,y" strides="2,2" pads_begin="0,0" pads_end="0,0" rounding_type="floor"'
    v = {"pool_pool": [p0, A, B, r2], "pool_pool_swapped": [p0, B, A, r2], "after_result": [p0, A, r2, B],
         "before_param": [B, p0, A, r2], "max_avg": [p0, A, POOL(1, "avg", k=4, typ="AvgPool"), r2],
         "last_port5": [p0, A, POOL(1, "p5", k=4, outport=5), r2], "first_port5": [p0, POOL(1, "p5", outport=5), B, r2],
         "param_slot_before": [P(1, "pdup", (1, 2, 4, 4)), p0, A, r2],
         "param_slot_after": [p0, P(1, "pdup", (1, 2, 4, 4)), A, r2],
         "param_last": [p0, A, P(1, "pdup", (1, 2, 4, 4)), r2],
         "pool_result": [p0, A, R(1, "rdup"), r2], "result_pool": [p0, R(1, "rdup"), A, r2],
         "params_one_id": [P(0, "inA"), P(0, "inB", (1, 2, 16, 16)), POOL(1, "pool", ins=(1, 2, 16, 16)), r2],
         "results_one_id": [p0, A, R(2, "outA"), R(2, "outB")],
         "const_pool": [p0, C(1, "c"), A, r2], "pool_const": [p0, A, C(1, "c"), r2],
         "param_const": [p0, C(0, "c"), A, r2], "const_param": [C(0, "c"), p0, A, r2],
         "param_pool0": [p0, POOL(0, "pool0"), A, r2], "pool0_param": [POOL(0, "pool0"), p0, A, r2],
         "first_bad_attr": [p0, POOL(1, "bad", data=bad), A, r2],
         "first_bad_version": [p0, POOL(1, "bad", ver="opset999"), A, r2],
         "first_k9": [p0, POOL(1, "bad", k=9, outs=(1, 2, 1, 1)), A, r2],
         "first_bad_dim": [p0, POOL(1, "bad", outs=(1, 2, -5, 4)), A, r2],
         "first_dim_text": [p0, POOL(1, "bad", outs=(1, 2, "abc", 4)), A, r2],
         "first_bad_precision": [p0, POOL(1, "bad", prec="NOTATYPE"), A, r2],
         "first_no_precision": [p0, POOL(1, "bad", prec=None), A, r2],
         "last_bad_attr": [p0, A, POOL(1, "bad", data=bad), r2],
         "result_then_pool": ([p0, A, r2, POOL(2, "poolC", ins=(1, 2, 4, 4))], BASE),
         "pool_then_result": ([p0, A, POOL(2, "poolC", ins=(1, 2, 4, 4)), r2], BASE)}
    for tag, text in [("01", "01"), ("plus", "+1"), ("space", " 1"), ("trailing", "1 "), ("decimal", "1.0"),
                      ("negative", "-1"), ("hex", "0x1"), ("empty", "")]:
        v[f"id_{tag}"] = [p0, A, POOL(None, "poolB", k=4, id_text=text), r2]
    out = {}
    for name, layers in v.items():
        layers, edges = layers if isinstance(layers, tuple) else (layers, BASE)
        for version in (11, 10):
            out[f"{name}_v{version}"] = (f'<?xml version="1.0"?>\n<net name="dup" version="{version}">\n<layers>\n'
                                         + "\n".join(layers) + "\n</layers>\n<edges>" + "".join(edges)
                                         + "</edges>\n</net>\n")
    return out


def test_check_builds_the_last_layer_of_an_id_as_openvino_does(tmp_path):
    cases = variants()
    paths = []
    for name, xml in cases.items():
        path = tmp_path / f"{name}.xml"
        path.write_text(xml)
        path.with_suffix(".bin").write_bytes(bytes(512))
        paths.append(str(path))
    wrong, refused = [], 0
    for name, path, verdict in zip(cases, paths, compile_in_child(paths)):
        report = irpool.check(path)
        errors = [str(f).split(": ", 1)[1][:160] for f in report.errors() if f.code != "shape-mismatch"
                  and not (f.code == "edge-mismatch" and " joins dims " in f.message)]
        refused += verdict != "ok"
        if bool(errors) != (verdict != "ok"):
            wrong.append((name, verdict, errors))
        if verdict == "ok" and not name.startswith("id_"):
            assert any(f.code == "shadowed-layer" for f in report.findings), name     # (said, never silent)
    assert not wrong, wrong
    assert 15 <= refused <= len(paths) - 15
