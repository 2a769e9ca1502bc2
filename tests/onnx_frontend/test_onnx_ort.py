"""irpool.onnx against onnxruntime on random nodes, for every opset onnxruntime runs.

onnxruntime's known defects are asserted, not skipped: for each one the test states what onnxruntime
computes instead, and checks that too.
  A. SAME_UPPER/SAME_LOWER pads ignore dilations: onnxruntime pads by the undilated kernel.
  B. Floor mode truncates a float: when -stride < num < 0 it yields one window where the kernel does
     not fit; irpool refuses.
  C. A max window with no element inside the input gets index base - sum(axis strides) (every
     coordinate -1); irpool gives the (n, c) base index, as OpenVINO does.
  D. MaxPool without Indices (MLAS) skips NaN; with Indices a NaN first tap sticks. irpool does the
     latter for both outputs.
  E. onnxruntime refuses pads >= kernel_shape on an axis (the ONNX text does not).
  F. SAME pads are not clamped at 0: with a stride larger than the kernel onnxruntime pads by a negative
     amount, which either fails ("padding values must be non-negative") or shifts the windows inward.
  onnxruntime also lacks kernels for some dtypes in some versions (float16 LpPool fails to build its own
  inserted Cast); those cases are counted as `no_kernel`, not compared.
"""
import dataclasses
import math
import zlib

import numpy as np
import pytest

import irpool.onnx
from irpool.opdefs import load
from irpool import IRError, PoolSpec, pool
from bits import assert_same_bits
from onnxpeers import adds_in_order, mlas_average, ort_run, plan_pads
from reference import ref_pool

ort = pytest.importorskip("onnxruntime", minversion="1.29")   # the semantics irpool follows: docs/onnx.md
onnx = pytest.importorskip("onnx")

pytestmark = [pytest.mark.onnxruntime, pytest.mark.reference]

VERSIONS = {"MaxPool": [8, 10, 11, 12, 22], "AveragePool": [7, 10, 11, 19, 22], "LpPool": [2, 11, 18, 22]}
CASES_PER_VERSION = 100


def random_node(rng, op, version):
    nd = int(rng.integers(1, 4))
    attrs = {"kernel_shape": [int(v) for v in rng.integers(1, 4, nd)]}
    has = load("onnx")["ops"][irpool.onnx.op_version(op, version)]["attributes"]
    if rng.random() < 0.7:
        attrs["strides"] = [int(v) for v in rng.integers(1, 4, nd)]
    if "dilations" in has and rng.random() < 0.5:
        attrs["dilations"] = [int(v) for v in rng.integers(1, 4, nd)]
    if "ceil_mode" in has and rng.random() < 0.5:
        attrs["ceil_mode"] = 1
    if "count_include_pad" in has and rng.random() < 0.5:
        attrs["count_include_pad"] = 1
    if "storage_order" in has and rng.random() < 0.3:
        attrs["storage_order"] = 1
    if op == "LpPool":
        attrs["p"] = int(rng.integers(1, 4))
    mode = rng.choice(["NOTSET", "pads", "SAME_UPPER", "SAME_LOWER", "VALID", "", "zero pads"])
    if mode == "pads":
        k = attrs["kernel_shape"]
        attrs["pads"] = [int(rng.integers(0, k[i % nd] + (rng.random() < 0.1))) for i in range(2 * nd)]
    elif mode == "zero pads":              # as exporters write them: all-zero pads beside an auto_pad
        attrs["pads"] = [0] * (2 * nd)
        attrs["auto_pad"] = str(rng.choice(["SAME_UPPER", "SAME_LOWER", "VALID"]))
    elif mode != "NOTSET":
        attrs["auto_pad"] = str(mode)       # "" is NOTSET to onnxruntime
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(v) for v in rng.integers(1, 8 if nd < 3 else 5, nd)]
    dtypes = ["float32", "float16", "float64"] + (["int8", "uint8"] if op == "MaxPool" and version >= 12 else [])
    dtype = np.dtype(rng.choice(dtypes))
    x = rng.integers(-4, 5, size=shape)
    x = (np.abs(x) if dtype.kind == "u" else x).astype(dtype)
    if dtype.kind == "f":
        x = x + rng.random(shape).astype(dtype)            # few ties in floats; NaN: see defect D
    outputs = 2 if op == "MaxPool" and version >= 8 and rng.random() < 0.6 else 1
    return attrs, x, outputs


def ort_same_pads(spec, spatial):
    """Defects A and F: onnxruntime's SAME pads, from the undilated kernel and not clamped at 0."""
    pb, pe = [], []
    for L, k, s in zip(spatial, spec.kernel, spec.strides):
        need = (math.ceil(L / s) - 1) * s + k - L
        # pad_head = need / 2 (SAME_UPPER) or (need + 1) / 2 (SAME_LOWER), C++ division toward 0
        head = int(need / 2) if spec.auto_pad == "same_upper" else int((need + 1) / 2)
        pb.append(head)
        pe.append(need - head)
    return pb, pe


def ort_same(x, spec, indices, crop_end=True):
    """What onnxruntime computes for a SAME node: a negative head pad crops the input's start, a negative
    tail pad its end (some onnxruntime kernels clip windows to the input instead: crop_end=False)."""
    pb, pe = ort_same_pads(spec, x.shape[2:])
    crop = (slice(None),) * 2 + tuple(slice(max(0, -b), L - (max(0, -e) if crop_end else 0))
                                      for b, e, L in zip(pb, pe, x.shape[2:]))
    spec = dataclasses.replace(spec, auto_pad="explicit", pads_begin=tuple(max(0, b) for b in pb),
                               pads_end=tuple(max(0, e) for e in pe))
    cropped = any(b < 0 or e < 0 for b, e in zip(pb, pe))
    out = pool(x[crop], spec, indices=indices and not cropped)
    return spec, cropped, (list(out) if indices and not cropped else [out])


def ort_len(spec, spatial):
    """Defect B: onnxruntime's output length rounds float(num) / s toward 0 (floor mode) or up (ceil mode),
    so -s < num < 0 still gives a window; then ceil mode drops a window starting in the end padding."""
    if spec.auto_pad.startswith("same"):
        pads = ort_same_pads(spec, spatial)
    else:
        pads = (spec.pads_begin, spec.pads_end) if spec.auto_pad == "explicit" else ((0,) * spec.ndim,) * 2
    out = []
    for L, s, dk, pb, pe in zip(spatial, spec.strides, spec.dilated_kernel, *pads):
        q = np.float32(L + pb + pe - dk) / np.float32(s)
        n = int(q) + 1 if spec.rounding == "floor" else int(np.ceil(q)) + 1
        if spec.rounding != "floor" and (n - 1) * s >= L + pb:
            n -= 1
        out.append(n)
    return out


def empty_windows(x, spec):
    """Where a window has no input element: an exclude-pad average of ones is 0 only there."""
    ones = np.ones(x.shape[:2] + x.shape[2:], dtype=np.float32)
    return pool(ones, dataclasses.replace(spec, reduction="avg", count="exclude_onnx")) == 0


def ort_or_none(op, x, attrs, version, outputs):
    """onnxruntime's outputs, None when it has no kernel for this dtype and version, or its error text."""
    try:
        return ort_run(op, x, attrs, version, outputs)
    except Exception as e:                  # onnxruntime raises its own exception types
        if "NOT_IMPLEMENTED" in str(e) or "InsertedPrecisionFreeCast" in str(e):
            return None
        return str(e)


@pytest.mark.parametrize("op,version", [(op, v) for op, vs in VERSIONS.items() for v in vs])
def test_random_nodes_match_onnxruntime(op, version):
    rng = np.random.default_rng(zlib.crc32(f"{op}-{version}".encode()))
    seen = dict(compared=0, A=0, B=0, C=0, E=0, F=0, no_kernel=0, empty_auto_pad=0, zero_pads_auto_pad=0, other=0)
    for _ in range(CASES_PER_VERSION):
        attrs, x, outputs = random_node(rng, op, version)
        where = (op, version, attrs, x.shape, x.dtype)
        spec = irpool.onnx.to_spec(op, attrs, opset=version, rank=x.ndim)
        spatial = x.shape[2:]
        want = ort_or_none(op, x, attrs, version, outputs)
        if want is None:
            seen["no_kernel"] += 1
            continue
        seen["empty_auto_pad" if attrs.get("auto_pad") == "" else "zero_pads_auto_pad" if "pads" in attrs and
             attrs.get("auto_pad", "NOTSET") != "NOTSET" else "other"] += 1
        pads = attrs.get("pads", [0] * (2 * len(spatial)))
        if any(p >= k for p, k in zip(pads, attrs["kernel_shape"] * 2)):
            assert "Pad should be smaller than kernel" in want, where          # defect E
            seen["E"] += 1
            continue
        run_spec, cropped = spec, False
        try:
            if spec.auto_pad.startswith("same") and ort_same_pads(spec, spatial) != plan_pads(spec, spatial):
                run_spec, cropped, got = ort_same(x, spec, outputs == 2)      # defects A, F
                if isinstance(want, str) and "non-negative" in want:
                    seen["F"] += 1
                    continue
                if cropped and not isinstance(want, str) and want[0].shape == got[0].shape and not np.allclose(
                        want[0].astype(float), got[0].astype(float), rtol=2e-2, atol=2e-2, equal_nan=True):
                    got = ort_same(x, spec, outputs == 2, crop_end=False)[2]
                seen["A" if not cropped else "F"] += 1
            else:
                got = pool(x, spec, indices=outputs == 2)
                got = list(got) if outputs == 2 else [got]
        except IRError as e:
            assert "does not fit" in str(e), (where, e)
            lengths = ort_len(spec, spatial)
            if isinstance(want, str):                                          # onnxruntime agrees
                assert "negative" in want and min(lengths) < 0, (where, want)
            else:
                assert list(want[0].shape[2:]) == lengths, where               # defect B
                seen["B"] += 1
            continue
        assert not isinstance(want, str), (where, want)
        mlas = run_spec is spec and mlas_average(op, version, x, attrs)
        if run_spec is spec:                                 # the public entry point, and its prepared form twice
            prepared = irpool.onnx.compile(op, attrs, opset=version, outputs=outputs)
            public = irpool.onnx.run(op, x, attrs, opset=version, outputs=outputs)
            for again in (public, prepared.run(x), prepared.run(x)):
                for a, b in zip(again, public if mlas else got):     # MLAS's order is not the core's
                    np.testing.assert_array_equal(a, b)
            got = public if mlas else got
        want = want[:len(got)]                  # defect F with a crop: values only
        assert [g.shape for g in got] == [w.shape for w in want], where
        assert [g.dtype for g in got] == [w.dtype for w in want], where
        if op == "MaxPool" or (op == "AveragePool" and (mlas or adds_in_order(version, x, run_spec))):
            assert_same_bits(got[0], want[0], where)     # the same bits, the sign of zero too
        elif x.dtype.kind == "f":              # MLAS's averages and Lp's powers: onnxruntime's own order
            tol = 2e-2 if x.dtype == np.float16 else 1e-5
            np.testing.assert_allclose(got[0].astype(np.float64), want[0].astype(np.float64), rtol=tol, atol=tol,
                                       err_msg=str(where))
        else:
            np.testing.assert_array_equal(got[0], want[0], err_msg=str(where))
        if len(got) == 2:
            empty = empty_windows(x, run_spec)
            if empty.any():                                                    # defect C
                lengths = list(spatial)
                mult = ([math.prod(lengths[i + 1:]) for i in range(len(lengths))] if not run_spec.storage_order
                        else [math.prod(lengths[:i]) for i in range(len(lengths))])
                base = (np.arange(x.shape[0])[:, None] * x.shape[1] + np.arange(x.shape[1])[None, :])
                base = np.broadcast_to((base * math.prod(lengths)).reshape(base.shape + (1,) * len(spatial)),
                                       empty.shape)
                np.testing.assert_array_equal(got[1][empty], base[empty])
                np.testing.assert_array_equal(want[1][empty], base[empty] - sum(mult))
                seen["C"] += 1
            np.testing.assert_array_equal(got[1][~empty], want[1][~empty], err_msg=str(where))
        seen["compared"] += 1
    print(op, version, seen)
    assert seen["compared"] >= CASES_PER_VERSION // 5, seen
    assert seen["empty_auto_pad"] >= 3 and seen["zero_pads_auto_pad"] >= 3, seen


def test_defect_c_empty_window_index_and_d_nan():
    """Probed cases: C (a window wholly in the padding) and D (NaN with and without Indices)."""
    x = np.array([[[7.0, 6, 5], [8.0, 9, 1]]], np.float32)          # L=3, taps -1 and 3: both outside
    attrs = dict(kernel_shape=[2], dilations=[4], pads=[1, 1])
    y, i = irpool.onnx.run("MaxPool", x, attrs, opset=12, outputs=2)
    oy, oi = ort_run("MaxPool", x, attrs, 12, 2)
    np.testing.assert_array_equal(y, oy)                             # both: the lowest float32
    assert y[0, 0, 0] == np.finfo(np.float32).min
    assert i.ravel().tolist() == [0, 3] and oi.ravel().tolist() == [-1, 2]
    x = np.array([[[np.nan, 1, 1, np.nan, 2, 3]]], np.float32)
    attrs = dict(kernel_shape=[2], strides=[2])
    y, i = irpool.onnx.run("MaxPool", x, attrs, opset=12, outputs=2)
    oy, oi = ort_run("MaxPool", x, attrs, 12, 2)
    np.testing.assert_array_equal(y, oy)                             # a NaN first tap sticks
    np.testing.assert_array_equal(i, oi)
    assert np.isnan(y[0, 0, 0]) and i.ravel().tolist() == [0, 2, 5]
    (only_y,) = ort_run("MaxPool", x, attrs, 12, 1)
    assert only_y.ravel().tolist() == [1.0, 1.0, 3.0]                # D: without Indices NaN is skipped
    (y1,) = irpool.onnx.run("MaxPool", x, attrs, opset=12)
    np.testing.assert_array_equal(y1, y)                             # irpool: the same with or without


def comparable(spec, attrs, spatial) -> bool:
    """No known onnxruntime defect applies: pads below the kernel (E) and SAME pads as irpool's (A, F)."""
    pads = attrs.get("pads", [0] * (2 * len(spatial)))
    if any(p >= k for p, k in zip(pads, list(spec.kernel) * 2)):
        return False
    return not spec.auto_pad.startswith("same") or ort_same_pads(spec, spatial) == plan_pads(spec, spatial)


def ort_reference(op, x, attrs, version, outputs):
    """onnxruntime's outputs for a node on channels-first x: the node itself where onnxruntime has a kernel,
    else the same node on float32 values (float64), and for GlobalLpPool (no kernel at all) LpPool-18 with the
    spatial shape as its kernel. None where even that has no kernel."""
    if op == "GlobalLpPool":
        op, attrs, version = "LpPool", {"kernel_shape": list(x.shape[2:]), "p": int(attrs.get("p", 2))}, 18
    want = ort_or_none(op, x, attrs, max(version, 7), outputs)
    if want is None and x.dtype != np.float32:
        want = ort_or_none(op, x.astype(np.float32), attrs, max(version, 7), outputs)
        want = None if want is None or isinstance(want, str) else [want[0].astype(x.dtype)] + want[1:]
    return want


def random_global(rng, op, version, dtypes=("float32", "float16", "float64")):
    nd = int(rng.integers(1, 4))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, 4))] + [int(v) for v in rng.integers(1, 8 if nd < 3 else 5, nd)]
    # values float32 holds exactly, so a float64 input compared through onnxruntime's float32 node is exact
    x = (rng.standard_normal(shape) * 4).astype(np.float32).astype(rng.choice(dtypes))
    attrs = {}
    if op == "GlobalLpPool":
        p = int(rng.integers(1, 4))
        attrs["p"] = float(p) if version == 1 else p
    return attrs, x


def assert_close(got, want, dtype, where):
    tol = {np.dtype(np.float16): 2e-2, np.dtype(np.float32): 1e-5}.get(np.dtype(dtype), 1e-5)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tol, atol=tol, err_msg=str(where))


GLOBAL_VERSIONS = {"GlobalMaxPool": [1, 22], "GlobalAveragePool": [1, 22], "GlobalLpPool": [1, 2, 22]}


@pytest.mark.parametrize("op,version", [(op, v) for op, vs in GLOBAL_VERSIONS.items() for v in vs])
def test_global_pools_match_onnxruntime(op, version):
    """Global pools against onnxruntime: the node itself (float32, float16), on float32 values where it has no
    float64 kernel, and GlobalLpPool (no kernel at all) against LpPool with the spatial shape as its kernel."""
    rng = np.random.default_rng(zlib.crc32(f"{op}-{version}".encode()))
    compared = 0
    for _ in range(40):
        attrs, x = random_global(rng, op, version)
        (got,) = irpool.onnx.run(op, x, attrs, opset=version)
        want = ort_reference(op, x, attrs, version, 1)
        assert want is not None and not isinstance(want, str), (op, x.shape, x.dtype, want)
        assert got.shape == want[0].shape == x.shape[:2] + (1,) * (x.ndim - 2) and got.dtype == x.dtype
        if op == "GlobalMaxPool":
            assert_same_bits(got, want[0], (op, version, attrs, x.shape, x.dtype))
        else:           # onnxruntime's global average adds in an order of its own (MLAS, vectorized)
            assert_close(got, want[0], x.dtype, (op, version, attrs, x.shape, x.dtype))
        compared += 1
    assert compared == 40


def test_global_lppool_1_takes_a_float_p_and_global_max_differs_from_onnxruntime_on_nan():
    """GlobalLpPool-1's p is a float (checked against the slow reference); GlobalMaxPool keeps irpool's max
    semantics (defect D): a NaN first element sticks, where onnxruntime's GlobalMaxPool skips every NaN."""
    x = np.random.default_rng(3).standard_normal((2, 3, 4, 5))
    (y,) = irpool.onnx.run("GlobalLpPool", x, {"p": 1.5}, opset=1)
    want, _ = ref_pool(x, PoolSpec(kernel=(4, 5), reduction="lp", p=1.5))
    np.testing.assert_allclose(y, want, rtol=1e-12)
    x = np.array([[[[np.nan, 1], [2, 3]], [[1, np.nan], [2, 3]]]], np.float32)
    (y,) = irpool.onnx.run("GlobalMaxPool", x, {}, opset=22)
    (oy,) = ort_run("GlobalMaxPool", x, {}, 22, 1)
    assert oy.ravel().tolist() == [3.0, 3.0]
    assert np.isnan(y[0, 0, 0, 0]) and y[0, 1, 0, 0] == 3.0


NHWC_KEYS = sorted(k for k in load("onnx")["ops"] if k.startswith(irpool.onnx.NHWC))


@pytest.mark.parametrize("key", NHWC_KEYS)
def test_nhwc_ops_match_onnxruntime_on_the_channels_first_node(key):
    """onnxruntime registers these schemas but no CPU kernel for them (on x86): each is compared with
    onnxruntime's channels-first node on the same values. Y is channels-last, Indices keep NCHW."""
    op, version = key.split(":")[1].rsplit("-", 1)
    version = int(version)
    rng = np.random.default_rng(zlib.crc32(key.encode()))
    compared = 0
    for _ in range(40):
        if op.startswith("Global"):
            (attrs, x), outputs = random_global(rng, op, version), 1
        else:
            attrs, x, outputs = random_node(rng, op, version)
            x = x.astype(np.float32).astype(x.dtype) if x.dtype == np.float64 else x   # see random_global
        outputs = min(outputs, load("onnx")["ops"][key]["outputs"])
        spec = irpool.onnx.to_spec(op, attrs, opset=version, shape=x.shape)
        if not comparable(spec, attrs, x.shape[2:]):
            continue
        x_nhwc = np.ascontiguousarray(np.moveaxis(x, 1, -1))
        try:
            got = irpool.onnx.run(op, x_nhwc, attrs, opset=version, domain=irpool.onnx.NHWC, outputs=outputs)
        except IRError as e:
            assert "does not fit" in str(e)             # defect B, asserted in the test above
            continue
        want = ort_reference(op, x, attrs, version, outputs)
        where = (key, attrs, x.shape, x.dtype)
        assert want is not None and not isinstance(want, str), (where, want)
        y = np.moveaxis(got[0], -1, 1)
        assert y.shape == want[0].shape and y.dtype == want[0].dtype, where
        if op.endswith("MaxPool"):
            np.testing.assert_array_equal(y, want[0], err_msg=str(where))
        else:
            assert_close(y, want[0], x.dtype, where)
        if outputs == 2:
            nonempty = ~empty_windows(x, spec)       # an empty window's index: defect C
            assert got[1].shape == want[1].shape
            np.testing.assert_array_equal(got[1][nonempty], want[1][nonempty], err_msg=str(where))
        compared += 1
    assert compared >= 15, compared


BF16_OPS = ["MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool"]


@pytest.mark.parametrize("op", BF16_OPS)
def test_bfloat16_is_float32_rounded_to_nearest_even(op):
    """onnxruntime has no bfloat16 kernel on this CPU: irpool's bfloat16 equals onnxruntime's float32 node on
    the same values, rounded to nearest even (max exactly; averages and Lp within one bfloat16 step where the
    float32 sums of the two differ in the last bits, and exactly for at least 95% of the values)."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = np.dtype(ml_dtypes.bfloat16)
    rng = np.random.default_rng(zlib.crc32(f"bf16-{op}".encode()))
    compared, exact, total = 0, 0, 0
    for _ in range(40):
        if op.startswith("Global"):
            (attrs, x), outputs = random_global(rng, op, 22, dtypes=("float32",)), 1
        else:
            attrs, x, outputs = random_node(rng, op, 22)
            x = x.astype(np.float32)
        spec = irpool.onnx.to_spec(op, attrs, opset=22, shape=x.shape)
        if not comparable(spec, attrs, x.shape[2:]):
            continue
        xb = x.astype(bf16)
        try:
            got = irpool.onnx.run(op, xb, attrs, opset=22, outputs=outputs)
        except IRError as e:
            assert "does not fit" in str(e)
            continue
        want = ort_reference(op, xb.astype(np.float32), attrs, 22, outputs)
        where = (op, attrs, x.shape)
        assert want is not None and not isinstance(want, str), (where, want)
        assert got[0].dtype == bf16 and got[0].shape == want[0].shape, where
        g, w = got[0].astype(np.float32), want[0].astype(bf16).astype(np.float32)
        if op.endswith("MaxPool"):
            np.testing.assert_array_equal(g, w, err_msg=str(where))
        else:
            np.testing.assert_allclose(g, w, rtol=2.0 ** -7, atol=1e-30, err_msg=str(where))
            exact += int((g == w).sum())
            total += g.size
        if outputs == 2:
            nonempty = ~empty_windows(x, spec)
            np.testing.assert_array_equal(got[1][nonempty], want[1][nonempty], err_msg=str(where))
        compared += 1
    assert compared >= 15, compared
    assert exact >= 0.95 * total, (exact, total)


def test_differences_beyond_the_defects():
    """onnxruntime ignores non-zero pads beside SAME_UPPER (the ONNX text forbids them; irpool follows the runtimes,
    OpenVINO ignores them too), but refuses one not smaller than the kernel; and it refuses more than three spatial
    axes (irpool runs them, checked against the slow reference)."""
    x = np.random.default_rng(5).standard_normal((1, 2, 5, 5)).astype(np.float32)
    attrs = {"kernel_shape": [2, 2], "auto_pad": "SAME_UPPER"}
    (same,) = ort_run("AveragePool", x, attrs, 19, 1)
    (padded,) = ort_run("AveragePool", x, dict(attrs, pads=[1, 0, 1, 0]), 19, 1)
    np.testing.assert_array_equal(padded, same)
    (got,) = irpool.onnx.run("AveragePool", x, dict(attrs, pads=[0, 0, 0, 0]), opset=19)
    assert_close(got, same, x.dtype, "zero pads beside SAME_UPPER")
    (got,) = irpool.onnx.run("AveragePool", x, dict(attrs, pads=[1, 0, 1, 0]), opset=19)
    assert_close(got, same, x.dtype, "pads beside SAME_UPPER")
    assert "Pad should be smaller than kernel" in ort_or_none("AveragePool", x, dict(attrs, pads=[2, 0, 2, 0]), 19, 1)
    with pytest.raises(IRError, match="Pad should be smaller than kernel"):
        irpool.onnx.run("AveragePool", x, dict(attrs, pads=[2, 0, 2, 0]), opset=19)
    x6 = np.random.default_rng(6).standard_normal((1, 1, 3, 3, 3, 3)).astype(np.float32)
    assert "Unsupported pooling size" in ort_or_none("MaxPool", x6, {"kernel_shape": [2, 2, 2, 2]}, 12, 1)
    (y,) = irpool.onnx.run("MaxPool", x6, {"kernel_shape": [2, 2, 2, 2]}, opset=12)
    want, _ = ref_pool(x6, PoolSpec(kernel=(2, 2, 2, 2), max_start="first"))
    np.testing.assert_array_equal(y, want)


def test_windows_that_do_not_overlap_match_onnxruntime_on_large_inputs():
    """Inputs of 256 KB and more whose windows lie inside, or stride 1 with "same" padding, take the core's direct
    path (direct.py): MaxPool and AveragePool (count_include_pad both ways, ceil_mode both ways) against
    onnxruntime."""
    from directcases import counting_direct, random_case
    rng, compared, through = np.random.default_rng(11), 0, 0
    for _ in range(80):
        k, s, pb, pe, shape = random_case(rng)
        op = str(rng.choice(["MaxPool", "AveragePool"], p=[0.75, 0.25]))     # (the direct path runs max only)
        attrs = dict(kernel_shape=k, strides=s, pads=pb + pe, ceil_mode=int(rng.integers(0, 2)))
        if op == "AveragePool":
            attrs["count_include_pad"] = int(rng.integers(0, 2))
        x = rng.standard_normal(shape).astype(np.float32)
        try:
            (want,) = ort_run(op, x, attrs, 19, 1)
        except Exception:          # noqa: BLE001 (onnxruntime refuses some ceil_mode windows: not compared)
            continue
        with counting_direct() as calls:
            got = irpool.onnx.run(op, x, attrs, opset=19, threads=1)
        got = got[0] if isinstance(got, (tuple, list)) else got
        compared, through = compared + 1, through + bool(calls)
        assert got.shape == want.shape, attrs
        assert_same_bits(got, want, (op, attrs))
    assert compared >= 60 and through >= 20, (compared, through)
