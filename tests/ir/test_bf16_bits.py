"""bf16 as the CPU plugin stores it, against the plugin on this machine (its rules follow the CPU: cpu.py, schemas
cpu_tiers): a window with no input cell, a Reduce's identity and results below bf16's smallest normal value. Stop 61's
differential run found irpool's -inf and its subnormals there."""
import numpy as np
import pytest

pytestmark = [pytest.mark.openvino]


def _bf16_run(model, x):
    """OpenVINO's output of a bf16 model (f32 hint, what run computes), as uint16 bits."""
    import openvino as ov
    compiled = ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
    t = ov.Tensor(ov.Type.bf16, list(x.shape))
    t.data.view(np.uint16)[...] = x.view(np.uint16)
    request = compiled.create_infer_request()
    request.set_input_tensor(0, t)
    request.infer()
    return request.get_output_tensor(0).data.view(np.uint16).copy()


@pytest.mark.parametrize("case", ["empty", "all -inf", "padded -inf", "reduce -inf", "-inf and NaN beside empty",
                                  "dilated -inf"])
def test_bf16_empty_windows_and_reduce_identity_are_the_plugins(case, tmp_path):
    """On a CPU where the plugin pools bf16 natively, a MaxPool window with no input cell gives bf16's lowest,
    0xff7f, and so does a window of -inf or NaN taps in such a layer, where in a layer without one it gives -inf; a
    ReduceMax of -inf gives 0xff7f too (irpool gave -inf: stop 61's differential run and review). Compared with the
    plugin on this machine, whatever its CPU."""
    ov = pytest.importorskip("openvino")
    ml = pytest.importorskip("ml_dtypes")
    import irpool
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    from irpool import cpu
    if not cpu.for_run().native("bf16"):
        pytest.skip("bf16 is not pooled natively on this CPU: its rule is not measured (cpu-records)")
    x = {"empty": [1, 2, 3, 4, 5, 6], "all -inf": [-np.inf, -np.inf, 1.0, -np.inf],
         "padded -inf": [-np.inf, -np.inf], "reduce -inf": [-np.inf, -np.inf, -np.inf],
         "-inf and NaN beside empty": [1, -np.inf, np.nan, 4], "dilated -inf": [-np.inf, 1, -np.inf, np.nan, 3]}[case]
    x = np.array(x, np.float32).astype(ml.bfloat16).reshape(1, 1, -1)
    p = o1.parameter(list(x.shape), ov.Type.bf16, name="x")
    if case == "reduce -inf":
        node = o1.reduce_max(p, o1.constant(np.array([2], np.int64)), True)
    elif case == "dilated -inf":                       # (a window of -inf taps, no empty window: final61's run)
        node = o8.max_pool(p, [1], [2], [0], [0], [2])
    else:
        k, s, pads, rounding = {"empty": (1, 2, 0, "ceil"), "all -inf": (2, 2, 0, "floor"),
                                "padded -inf": (2, 1, 1, "floor"), "-inf and NaN beside empty": (1, 1, 2, "floor")}[case]
        node = o1.max_pool(p, [s], [pads], [pads], [k], rounding_type=rounding)
    node.set_friendly_name("pool")
    model = ov.Model([node.output(0)], [p])
    ov.save_model(model, str(tmp_path / "m.xml"))
    got = next(iter(irpool.run(tmp_path / "m.xml", x, layer="pool").values()))
    assert np.asarray(got).view(np.uint16).tolist() == _bf16_run(model, x).tolist()


@pytest.mark.parametrize("op", ["MaxPool", "AvgPool", "AdaptiveAvgPool", "ReduceMean", "ReduceMax"])
def test_bf16_results_below_the_smallest_normal_are_stored_as_the_plugin_stores_them(op, tmp_path):
    """Zeros of their sign where the CPU has avx512_bf16 (its conversion takes f32 denormals as zero), but a
    ReduceMax's (stop 61's review), themselves below: compared with the plugin here, whatever this CPU is."""
    ov = pytest.importorskip("openvino")
    ml = pytest.importorskip("ml_dtypes")
    import irpool
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    x = np.array([0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0x807F], np.uint16).view(ml.bfloat16)
    x = x.reshape(1, -1, 1) if op.startswith("Reduce") else x.reshape(1, 1, -1)      # (a Reduce: a cell a channel)
    p = o1.parameter(list(x.shape), ov.Type.bf16, name="x")
    node = {"MaxPool": lambda: o1.max_pool(p, [1], [0], [0], [1]),
            "AvgPool": lambda: o1.avg_pool(p, [1], [0], [0], [1], True),
            "AdaptiveAvgPool": lambda: o8.adaptive_avg_pool(p, o1.constant(np.array([6], np.int64))),
            "ReduceMean": lambda: o1.reduce_mean(p, o1.constant(np.array([2], np.int64)), True),
            "ReduceMax": lambda: o1.reduce_max(p, o1.constant(np.array([2], np.int64)), True)}[op]()
    node.set_friendly_name("pool")
    model = ov.Model([node.output(0)], [p])
    ov.save_model(model, str(tmp_path / "m.xml"))
    got = next(iter(irpool.run(tmp_path / "m.xml", x, layer="pool").values()))
    assert np.asarray(got).view(np.uint16).tolist() == _bf16_run(model, x).tolist()


@pytest.mark.parametrize("indices_read", [False, True])
def test_a_bf16_maxpool_whose_indices_a_net_reads_runs_where_the_plugin_compiles_it(indices_read, tmp_path):
    """The plugin refuses a bf16 MaxPool-8 whose indices an edge reads where bf16 is native (its reference
    implementation has no bf16); check said so, and run computed it (stop 61's final run). Compared with the plugin,
    with the f32 hint run computes under, on this machine's tier."""
    ov = pytest.importorskip("openvino")
    ml = pytest.importorskip("ml_dtypes")
    import irpool
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    p = o1.parameter([1, 2, 6], ov.Type.bf16, name="x")
    node = o8.max_pool(p, [1], [1], [0], [0], [2])
    node.set_friendly_name("pool")
    outs = [node.output(0)] + ([node.output(1)] if indices_read else [])
    model = ov.Model([o1.result(o) for o in outs], [p])
    ov.save_model(model, str(tmp_path / "m.xml"))
    try:
        ov.Core().compile_model(model, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
        compiles = True
    except RuntimeError:
        compiles = False
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 6).astype(ml.bfloat16)
    if compiles:
        irpool.run(tmp_path / "m.xml", {"x": x})
    else:
        with pytest.raises(irpool.IRError, match="does not compile"):
            irpool.run(tmp_path / "m.xml", {"x": x})


@pytest.mark.parametrize("shape", [(2, 8, 5), (2, 7, 5), (16, 1, 4), (1, 16, 16), (1, 33, 3), (2, 17, 1),
                                   (1, 16, 3, 3), (2, 8, 2, 2), (2, 20, 1, 4), (1, 32, 4, 1), (1, 40, 4, 4),
                                   (1, 16, 2, 8), (1, 17, 1, 1), (1, 16, 2, 2, 2), (2, 16, 1, 3, 3), (1, 33, 1, 1, 5)])
@pytest.mark.parametrize("op", ["ReduceMax", "AdaptiveMaxPool"])
def test_a_bf16_reducemax_flushes_the_outputs_it_stores_sixteen_at_a_time(op, shape, tmp_path):
    """A ReduceMax of subnormal maxima (and an AdaptiveMaxPool to one cell, run as one) keeps the outputs it stores
    one at a time and, where the CPU has avx512_bf16, flushes those it stores 16 planes at a time (schemas
    cpu_tiers bf16_flushed.reduce_max_gather; stop 61's final run found 28 such cases unexplained). Each plane's
    maximum is a distinct subnormal; compared with the plugin on this machine, whatever its CPU."""
    ov = pytest.importorskip("openvino")
    pytest.importorskip("ml_dtypes")
    import irpool
    import openvino.opset1 as o1
    import openvino.opset8 as o8
    planes, cells = int(np.prod(shape[:2])), int(np.prod(shape[2:]))
    bits = np.full((planes, cells), 0x8001, np.uint16)
    bits[np.arange(planes), np.arange(planes) % cells] = 1 + np.arange(planes) % 120
    p = o1.parameter(list(shape), ov.Type.bf16, name="x")
    spatial = np.arange(2, len(shape), dtype=np.int64)
    node = o1.reduce_max(p, o1.constant(spatial), True) if op == "ReduceMax" else \
        o8.adaptive_max_pool(p, o1.constant(np.ones(len(shape) - 2, np.int64)))
    node.set_friendly_name("pool")
    model = ov.Model([node.output(0)], [p])
    ov.save_model(model, str(tmp_path / "m.xml"))
    x = bits.reshape(shape).view(pytest.importorskip("ml_dtypes").bfloat16)
    got = next(iter(irpool.run(tmp_path / "m.xml", x, layer="pool").values()))
    assert np.asarray(got).view(np.uint16).ravel().tolist() == _bf16_run(model, x).ravel().tolist()
