"""check's element-type verdicts against read_model + compile_model(..., "CPU"), run for real in a child process.

Facts of every machine: OpenVINO takes a Parameter's element_type, not its port's precision; a pool on f32
compiles. Facts of the CPUs measured (schemas/openvino.json "machines": AMD EPYC family 25 model 17, and
family 26 model 2 from issue 32, at every tier ONEDNN_MAX_CPU_ISA shows), asserted only there: a pool on nf4,
u2 or f4e2m1 with more than one channel compiles when only Reduce ops or pools take its output, or (f4e2m1)
when C is a multiple of 16 from the avx512 tier up (the plugin pools in f32 in nChw16c, AVX-512's block), of 8
below it and when a dilation is above 1 (nChw8c); with one channel nothing compiles on those types or on f8.
On any other CPU the test prints where it differs, for schemas/openvino.json, and asserts only the former.
"""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import irpool
from irpool.ir.ops.type_refusals import type_refusal

ov = pytest.importorskip("openvino")
import openvino.opset1 as o1  # noqa: E402
import openvino.opset8 as o8  # noqa: E402

pytestmark = [pytest.mark.openvino]

from plugin import compile_in_child, measured_cpu  # noqa: E402

def _pool(op, x):
    if op.startswith("MaxPool-8"):
        dilations = [2, 1] if op.endswith("dilated") else [1, 1]
        return o8.max_pool(x, [1, 1], dilations, [0, 0], [0, 0], [2, 2])
    return o1.avg_pool(x, [1, 1], [0, 0], [0, 0], [2, 2], True)


def _net(name, channels, op, after):
    """Parameter -> pool -> `after` -> Result."""
    p = o1.parameter([2, channels, 5, 6], getattr(ov.Type, name), name="x")
    y = _pool(op, p).output(0)
    axes = o1.constant(np.array([2, 3], np.int64))
    if after == "ReduceMax":
        y = o1.reduce_max(y, axes, True).output(0)
    elif after == "MaxPool>ReduceMean":
        y = o1.reduce_mean(o1.max_pool(y, [1, 1], [0, 0], [0, 0], [2, 2]), axes, True).output(0)
    elif after == "Convert":
        y = o1.convert(y, ov.Type.f32).output(0)
    return ov.Model([y], [p])


CASES = ([(t, c, op, after) for t in ("nf4", "u2", "f4e2m1") for c in (1, 3, 8, 16, 17, 32)
          for op in ("MaxPool-8", "AvgPool-1") for after in ("Result", "ReduceMax", "MaxPool>ReduceMean", "Convert")]
         + [("f4e2m1", c, "MaxPool-8-dilated", "Result") for c in (1, 8, 12, 16, 24)]
         + [(t, c, "MaxPool-8", after) for t in ("f8e4m3", "f8e8m0", "f32") for c in (1, 3)
            for after in ("Result", "ReduceMax")])


def test_pool_types_follow_channels_and_consumers(tmp_path):
    """On the CPUs measured, check errs exactly where the plugin refuses; a warning only where another CPU
    measured compiles it (f8e4m3 with one channel). Elsewhere: f32 compiles and check says nothing of it."""
    paths = []
    for i, case in enumerate(CASES):
        paths.append(str(tmp_path / f"m{i}.xml"))
        ov.save_model(_net(*case), paths[-1], compress_to_fp16=False)
    compiled = compile_in_child(paths)
    cpu, wrong = measured_cpu(), []
    for case, path, result in zip(CASES, paths, compiled):
        codes = {f.code for f in irpool.check(path).findings}
        assert codes <= {"bad-precision", "cpu-dependent", "cpu-tier"}, (case, codes)
        if case[0] == "f32":
            assert result == "ok" and not codes, (case, result, codes)
        if "cpu-dependent" in codes:
            assert case[0] in ("f8e4m3", "f8e5m2") and case[1] == 1, case
        said = "refused" if "bad-precision" in codes else "compiles"
        if said != ("compiles" if result == "ok" else "refused") and "cpu-dependent" not in codes:
            wrong.append(f"{case}: check says {said}; this CPU: {result[-120:]}")
    if cpu is None:
        print("not a CPU measured: these differ from schemas/openvino.json\n" + "\n".join(wrong))
    else:
        assert not wrong, "\n".join(wrong)


def _parameter_net(element_type, precision, pool_precision, channels=3, pools=1):
    """Parameter -> `pools` MaxPool-1 -> Result, by hand: the Parameter's element_type against the ports'
    precisions."""
    dims = lambda hw: "".join(f"<dim>{d}</dim>" for d in (2, channels, hw, hw))  # noqa: E731
    layers = [f"""<layer id="0" name="x" type="Parameter" version="opset1">
<data shape="2,{channels},6,6" element_type="{element_type}"/>
<output><port id="0" precision="{precision}">{dims(6)}</port></output></layer>"""]
    edges = []
    for i in range(1, pools + 1):
        layers.append(f"""<layer id="{i}" name="pool{i}" type="MaxPool" version="opset1">
<data strides="1,1" pads_begin="0,0" pads_end="0,0" kernel="2,2"/>
<input><port id="0" precision="{pool_precision}">{dims(7 - i)}</port></input>
<output><port id="1" precision="{pool_precision}">{dims(6 - i)}</port></output></layer>""")
        edges.append(f'<edge from-layer="{i - 1}" from-port="{0 if i == 1 else 1}" to-layer="{i}" to-port="0"/>')
    layers.append(f"""<layer id="{pools + 1}" name="out" type="Result" version="opset1">
<input><port id="0" precision="{pool_precision}">{dims(6 - pools)}</port></input></layer>""")
    edges.append(f'<edge from-layer="{pools}" from-port="1" to-layer="{pools + 1}" to-port="0"/>')
    return ('<?xml version="1.0"?>\n<net name="t" version="11"><layers>\n' + "\n".join(layers) +
            "\n</layers><edges>" + "".join(edges) + "</edges></net>\n")


@pytest.mark.parametrize("pools", [1, 2])
@pytest.mark.parametrize("element_type,precision,pool_precision,channels,compiles", [
    ("f32", "NF4", "NF4", 3, True), ("f32", "FP32", "NF4", 3, True), ("f32", "F8E8M0", "F8E8M0", 1, True),
    ("f32", "U1", "U1", 3, True),
    ("nf4", "FP32", "FP32", 3, False), ("u2", "FP32", "FP32", 3, False), ("u1", "FP32", "FP32", 3, False),
    ("f8e8m0", "FP32", "FP32", 1, False), ("f4e2m1", "FP32", "FP32", 16, True)])
def test_openvino_takes_the_parameters_element_type(element_type, precision, pool_precision, channels, compiles,
                                                    pools, tmp_path):
    """read_model takes a Parameter's element_type and ignores the ports' precisions, and a pool gives its
    input's type (every machine: a pool on f32 compiles, and u1 is refused before any kernel is chosen); check
    judges the pools on that type too. The nf4/u2/f8e8m0/f4e2m1 verdicts are the CPUs measured's."""
    path = tmp_path / "m.xml"
    path.write_text(_parameter_net(element_type, precision, pool_precision, channels, pools))
    result, = compile_in_child([str(path)])
    errors = [f for f in irpool.check(path).findings if f.severity == "error"]
    assert bool(errors) != compiles, [str(f) for f in errors]
    if element_type in ("f32", "u1") or measured_cpu():
        assert (result == "ok") == compiles, result


@pytest.mark.parametrize("spelling", ["f32", "F32", "Fp32", "FP32", "fp32", "undefined", "Undefined", "UNDEFINED",
                                      "dynamic", "DYNAMIC", "UNSPECIFIED", "bogus"])
def test_a_parameters_element_type_is_read_as_read_model_reads_it(spelling, tmp_path):
    """A name in any case is read, and "undefined" in any case (as dynamic, which the plugin does not compile as an
    input, on any machine); a precision's name ("FP32", "UNSPECIFIED") is refused. check says read_model refuses the
    file exactly where it does, and has an error exactly where read_model or compile_model refuses it."""
    path = tmp_path / "m.xml"
    path.write_text(_parameter_net(spelling, "FP32", "FP32"))
    try:
        ov.Core().read_model(str(path))
        refused = None
    except RuntimeError as e:
        refused = " ".join(str(e).split())
    errors = [f for f in irpool.check(path).findings if f.severity == "error"]
    if refused is not None:
        assert errors, refused[-160:]
        assert "not a member of enum" not in refused or any("not a member of enum" in f.message for f in errors)
        return
    assert not any("read_model refuses" in f.message or "not an element type" in f.message for f in errors), \
        [str(f) for f in errors]
    result, = compile_in_child([str(path)])
    assert bool(errors) == (result != "ok"), (result, [str(f) for f in errors])


def test_verdicts_name_the_cpu_tiers_seen_each_way():
    """Judged for one tier: the tier's measured verdict (an error naming it where it refuses); a tier never
    measured: a warning where another compiles the case, an error naming the tiers tried where none does. For
    every tier (all): a cpu-dependent warning naming the tiers each way."""
    from types import SimpleNamespace

    from irpool import cpu
    from irpool.ir.read.element_types import element_type
    pl = SimpleNamespace(op="MaxPool-8", spec=SimpleNamespace(dilations=(1, 1)))
    f8, nf4, f4 = element_type("f8e4m3"), element_type("nf4"), element_type("f4e2m1")
    with cpu.judging("all"):
        code, why = type_refusal(pl, f8, channels=1)
        assert code == "cpu-dependent" and "refused on CPU tiers sse41 to avx2-vnni, avx512 to avx512-bf16" in why
        assert "compiles on amx" in why and "not measured on avx2-vnni-2, avx512-fp16, amx-fp16" in why
        code, why = type_refusal(pl, nf4, channels=1)
        assert code == "bad-precision" and "sse41 to avx2-vnni, avx512 to avx512-bf16" in why
        code, why = type_refusal(pl, f4, channels=8, consumers=["Result"])      # blocks of 16 from avx512 up
        assert code == "cpu-dependent" and "refused on CPU tiers avx512 to amx-fp16" in why
        assert "compiles on sse41 to avx2-vnni-2" in why
        code, why = type_refusal(pl, element_type("bf16"), indices_used=True)
        assert code == "cpu-dependent" and "refused on CPU tiers avx2-vnni-2 to amx-fp16" in why
    with cpu.judging("avx512-bf16"):
        assert type_refusal(pl, f8, channels=1)[0] == "bad-precision"
        assert type_refusal(pl, f4, channels=8, consumers=["Result"])[0] == "bad-precision"
        code, why = type_refusal(pl, f4, channels=17, consumers=["Result"])
        assert code == "bad-precision" and "17 channels" in why and "16-channel blocks" in why
        assert type_refusal(pl, f4, channels=48, consumers=["Result"]) is None
        assert type_refusal(pl, element_type("u2"), channels=5, consumers=["ReduceMax", "MaxPool"]) is None
        assert type_refusal(pl, element_type("u2"), channels=5, static=False) is None      # dynamic: compiled
    with cpu.judging("amx"):                             # compiles there: a note names where it does not
        code, why = type_refusal(pl, f8, channels=1)
        assert code == "cpu-tier" and "refused on sse41 to avx2-vnni, avx512 to avx512-bf16" in why
    with cpu.judging("avx512-fp16"):                     # never measured: amx compiles it, so a warning
        code, why = type_refusal(pl, f8, channels=1)
        assert code == "cpu-dependent" and "not measured on avx512-fp16" in why
        code, why = type_refusal(pl, nf4, channels=1)
        assert code == "bad-precision" and "on every CPU tier measured" in why
    with cpu.judging("avx2"):
        code, why = type_refusal(pl, f4, channels=8, consumers=["Result"])
        assert code == "cpu-tier" and "avx512 to amx-fp16" in why
        code, why = type_refusal(pl, element_type("bf16"), indices_used=True)
        assert code == "cpu-tier" and "compiles on CPU tier avx2" in why

SMALL = [([1, 1, 3], 1), ([1, 1, 4], 2), ([1, 1, 4], 1), ([1, 1, 2, 2], 2), ([1, 1, 2, 2], 1), ([3, 1, 1], 1),
         ([2, 1, 3], 3), ([2, 1, 3], 2), ([1, 2, 3], 3)]


@pytest.mark.parametrize("name", ["i32", "u16", "i64", "u8", "f32"])
def test_small_integer_averages_on_one_channel_follow_the_tier(name, tmp_path):
    """Below avx512 the plugin has no kernel for an AvgPool pooled as int32 with one channel and an output of
    fewer than 4 elements (schemas/openvino.json "small_int_average"); from avx512 up, and for u8 and floats,
    it compiles them. check says what this machine's plugin does, on whatever tier ONEDNN_MAX_CPU_ISA leaves
    it (tests/ir/test_cpu_tiers.py runs this under several)."""
    paths = []
    for i, (shape, k) in enumerate(SMALL):
        nd = len(shape) - 2
        p = o1.parameter(shape, getattr(ov.Type, name), name="x")
        paths.append(str(tmp_path / f"m{i}.xml"))
        ov.save_model(ov.Model([o1.avg_pool(p, [1] * nd, [0] * nd, [0] * nd, [k] * nd, True)], [p]), paths[-1])
    for (shape, k), path, result in zip(SMALL, paths, compile_in_child(paths)):
        assert irpool.check(path).ok == (result == "ok"), (shape, k, result)


def _bf16_graphs():
    """bf16 pools in the graphs where, below avx512, the plugin's verdict hangs on what they feed: a MaxPool-8 or
    AdaptiveMaxPool whose indices are used makes the plugin run it, and all that feeds it, in f32."""
    def avg(x):
        return o1.avg_pool(x, [1, 1], [0, 0], [0, 0], [1, 1], True)

    def mp8(x):
        return o8.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [1, 1])

    def amp(x):
        return o8.adaptive_max_pool(x, o1.constant([2, 2], ov.Type.i64), "i32")

    def both(m):
        return [m.output(0), m.output(1)]
    return {
        "avg>mp8(both)": lambda p: both(mp8(avg(p))),
        "avg>ReduceMax>mp8(both)": lambda p: both(mp8(o1.reduce_max(avg(p), o1.constant([3], ov.Type.i64), True))),
        "avg>avg>mp8(both)": lambda p: both(mp8(avg(avg(p)))),
        "avg>[mp8(both),Result]": lambda p: (lambda a: both(mp8(a)) + [a.output(0)])(avg(p)),
        "avg>mp8(indices)": lambda p: [mp8(avg(p)).output(1)],
        "avg>mp8(values)": lambda p: [mp8(avg(p)).output(0)],
        "avg>AdaptiveMaxPool(both)": lambda p: both(amp(avg(p))),
        "avg>AdaptiveMaxPool(values)": lambda p: [amp(avg(p)).output(0)],
        "Relu>avg": lambda p: [avg(o1.relu(p)).output(0)],
        "mp8(both)>avg": lambda p: (lambda m: [avg(m.output(0)).output(0), m.output(1)])(mp8(p)),
        "avg beside mp8(both)": lambda p: both(mp8(p)) + [avg(p).output(0)],
        "avg": lambda p: [avg(p).output(0)],
        "avg>Convert(f32)": lambda p: [o1.convert(avg(p), ov.Type.f32).output(0)],
        "avg>Relu>Convert(f16)": lambda p: [o1.convert(o1.relu(avg(p)), ov.Type.f16).output(0)],
        "avg>[Convert(i8),Result]": lambda p: (lambda a: [o1.convert(a, ov.Type.i8).output(0), a.output(0)])(avg(p)),
        "avg>Convert(bf16)": lambda p: [o1.convert(avg(p), ov.Type.bf16).output(0)],
        "avg beside Convert(f32)": lambda p: [avg(p).output(0), o1.convert(p, ov.Type.f32).output(0)],
        "Convert(f32)>Convert(bf16)>avg": lambda p: [avg(o1.convert(o1.convert(p, ov.Type.f32), ov.Type.bf16)).output(0)],
    }


def test_bf16_pools_compile_as_what_they_feed_decides(tmp_path):
    """check's verdict on each graph equals the plugin's on this machine's tier (all compile but those whose
    indices are used from avx512 up; below it, a pool compiles only where it feeds a used indices output or a
    Convert to another type than bf16, and every one in IR v10)."""
    graphs, paths, names = _bf16_graphs(), [], []
    for i, (name, build) in enumerate(graphs.items()):
        p = o1.parameter([1, 4, 8, 8], ov.Type.bf16, name="x")
        paths.append(str(tmp_path / f"g{i}.xml"))
        ov.save_model(ov.Model(build(p), [p]), paths[-1], compress_to_fp16=False)
        v10 = tmp_path / f"g{i}_v10.xml"               # (IR v10's reading converts every bf16 output to f32)
        v10.write_text(open(paths[-1]).read().replace('version="11"', 'version="10"', 1))
        shutil.copy(paths[-1][:-4] + ".bin", v10.with_suffix(".bin"))
        paths.append(str(v10))
        names += [name, f"{name} (IR v10)"]
    wrong = [(name, result) for name, path, result in zip(names, paths, compile_in_child(paths))
             if irpool.check(path).ok != (result == "ok")]
    assert not wrong, wrong


def test_a_pool_feeding_only_a_convert_to_bf16_follows_the_tier(tmp_path):
    """The plugin fuses a Convert into the pool that feeds it alone: to bf16, the pool must then give bf16,
    which it cannot below avx512 (schemas/openvino.json "fused_convert"). A second consumer keeps them apart;
    a Convert to f16 or i8 compiles. check equals the plugin on this machine's tier (a child process)."""
    cases, paths = [], []
    for op in ("max", "max8", "avg"):
        for et in (ov.Type.f32, ov.Type.f16):
            for dest in (ov.Type.bf16, ov.Type.f16, ov.Type.i8):
                for second in (False, True):
                    p = o1.parameter([1, 3, 4, 4], et, name="x")
                    pool = {"max": lambda x: o1.max_pool(x, [1, 1], [0, 0], [0, 0], [2, 2]),
                            "max8": lambda x: o8.max_pool(x, [1, 1], [1, 1], [0, 0], [0, 0], [2, 2]),
                            "avg": lambda x: o1.avg_pool(x, [1, 1], [0, 0], [0, 0], [2, 2], True)}[op](p)
                    outs = [o1.convert(pool.output(0), dest).output(0)] + ([pool.output(0)] if second else [])
                    paths.append(str(tmp_path / f"c{len(paths)}.xml"))
                    ov.save_model(ov.Model(outs, [p]), paths[-1], compress_to_fp16=False)
                    cases.append((op, str(et), str(dest), second))
                    v10 = tmp_path / f"c{len(paths)}_v10.xml"          # (IR v10 converts its outputs: compiles)
                    v10.write_text(open(paths[-1]).read().replace('version="11"', 'version="10"', 1))
                    paths.append(str(v10))
                    cases.append((op, str(et), str(dest), second, "IR v10"))
    results = compile_in_child(paths)
    wrong = [(case, result) for case, path, result in zip(cases, paths, results)
             if irpool.check(path).ok != (result == "ok")]
    assert not wrong, wrong
