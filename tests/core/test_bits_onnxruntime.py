"""ONNX pooling bit for bit against onnxruntime (CPU), on inputs full of ties of -0.0 and +0.0, NaN and infinities.
onnxruntime's own loop (MaxPool with its Indices output, or dilated) and MLAS's 1-D kernel keep the first of tied
elements, the one its index points at, and irpool does the same for every MaxPool (NaN and -inf first taps aside
without Indices: defect D); AveragePool sums from +0.0 in row-major order from version 19; before it a float32
AveragePool and GlobalAveragePool add as MLAS's kernels do (core/mlas_pool.py: its global, vector and generic
kernels), to the bit. Where MLAS runs a 2-D/3-D MaxPool without Indices and dilations, or its global kernel a 1-D
window over the whole input (`_mlas`), it picks the sign of a -0.0/+0.0 tie in an order of its own (neither first
nor last, measured on AMD EPYC): there the values are compared, and the sign of zero only where a window holds one
sign of zero."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irpool.onnx
from bits import assert_same_bits

pytest.importorskip("onnxruntime", minversion="1.29")   # the semantics irpool follows: docs/onnx.md
from onnxpeers import adds_in_order, mlas_average, mlas_global, ort_run  # noqa: E402

pytestmark = [pytest.mark.onnxruntime]


@st.composite
def nodes(draw, op, nd=None):
    nd = nd or draw(st.integers(1, 3))
    spatial = [draw(st.integers(1, 7 if nd < 3 else 5)) for _ in range(nd)]
    k = [draw(st.integers(1, L)) for L in spatial]
    attrs = dict(kernel_shape=k, strides=[draw(st.integers(1, 3)) for _ in k],
                 pads=[draw(st.integers(0, kk - 1)) for kk in k * 2])
    if op == "AveragePool":
        attrs["count_include_pad"] = draw(st.integers(0, 1))
    elif draw(st.booleans()):
        attrs["dilations"] = [1 if kk > 1 and (kk - 1) * 2 + 1 > L else draw(st.integers(1, 2))
                              for kk, L in zip(k, spatial)]
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 3))] + spatial
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    pick = np.array([0.0, -0.0, 0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan])
    weights = np.array([draw(st.integers(0, 4)) for _ in pick], float) + 1e-9
    x = rng.choice(pick, size=shape, p=weights / weights.sum())
    if draw(st.booleans()):            # plain values too, so that the order of the additions shows
        x = np.where(rng.random(x.shape) < 0.5, rng.standard_normal(x.shape) * 3, x)
    return attrs, x.astype(draw(st.sampled_from(["float32", "float16"])))


def _mlas(attrs, x, outputs):
    """Where onnxruntime's MaxPool without Indices picks the sign of a zero tie in an order of its own: MLAS on
    2-D/3-D, and MLAS's global kernel (float16 too) on a 1-D window over the whole input at stride 1, no pads."""
    if outputs != 1 or set(attrs.get("dilations", [1])) != {1}:
        return False
    return x.ndim in (4, 5) or mlas_global(attrs["kernel_shape"], attrs["strides"], attrs["pads"], x.shape[2:])


@pytest.mark.parametrize("op,outputs", [("MaxPool", 2), ("MaxPool", 1), ("AveragePool", 1)])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_onnx_pools_equal_onnxruntime_bit_for_bit(op, outputs, data):
    compare(op, outputs, *data.draw(nodes(op)))


@pytest.mark.parametrize("opset", [7, 11, 18])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_1d_averages_before_version_19_equal_onnxruntime_bit_for_bit(opset, data):
    """Before version 19 onnxruntime runs a float AveragePool through MLAS, whose 1-D kernel adds a window's
    elements in row-major order from +0.0, as irpool does; its global kernel (`mlas_global`) does not."""
    attrs, x = data.draw(nodes("AveragePool", nd=1))
    compare("AveragePool", 1, attrs, x, opset)


def test_a_1d_average_over_the_whole_input_adds_in_mlas_order_before_19():
    """MLAS's global kernel (AveragePool 7-18) adds 4 lanes, then (l0 + l2) + (l1 + l3); onnxruntime's own loop
    from version 19 adds in row-major order: irpool gives each version's bits."""
    x = np.array([[[36.600433, -8.570066, 0.98862731, 2.9554965]]], np.float32)
    attrs = dict(kernel_shape=[4], strides=[1], pads=[0, 0])
    (row_major,) = ort_run("AveragePool", x, attrs, 19, 1)
    assert_same_bits(row_major, np.float32(((x[..., 0] + x[..., 1]) + x[..., 2] + x[..., 3]) / 4)[..., None], x)
    lanes = np.float32(((x[..., 0] + x[..., 2]) + (x[..., 1] + x[..., 3])) / 4)[..., None]
    assert_same_bits(ort_run("AveragePool", x, attrs, 11, 1)[0], lanes, x)
    assert_same_bits(irpool.onnx.run("AveragePool", x, attrs, opset=11)[0], lanes, 11)
    assert_same_bits(irpool.onnx.run("AveragePool", x, attrs, opset=19)[0], row_major, 19)


@pytest.mark.parametrize("outputs", [1, 2])
@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_a_1d_window_over_the_whole_input(outputs, dtype):
    """Found by a long run: without Indices MLAS's global kernel gave +0.0 for [-0.0, +0.0, +0.0, +0.0]."""
    x = np.array([[[-0.0, 0.0, 0.0, 0.0]]], dtype)
    compare("MaxPool", outputs, dict(kernel_shape=[4], strides=[1], pads=[0, 0]), x)


def compare(op, outputs, attrs, x, opset=None):
    opset = opset or (12 if op == "MaxPool" else 19)
    if op == "MaxPool" and outputs == 1:
        # without Indices onnxruntime starts a window at the lowest value, so NaN and -inf never win; irpool keeps
        # a NaN or -inf first tap on both outputs (test_onnx_ort's defect D): compared on the other values
        x = np.where(np.isnan(x) | np.isneginf(x), x.dtype.type(0.5), x)
    want = ort_run(op, x, attrs, opset, outputs)
    got = irpool.onnx.run(op, x, attrs, opset=opset, outputs=outputs)
    if op == "AveragePool" and not mlas_average(op, opset, x, attrs) and \
            not adds_in_order(opset, x, irpool.onnx.to_spec(op, attrs, opset=opset, rank=x.ndim)):
        np.testing.assert_allclose(got[0], want[0], rtol=2e-2 if x.dtype == np.float16 else 1e-5, atol=1e-6)
        return
    if op == "MaxPool" and _mlas(attrs, x, outputs):
        mixed = _zero_windows_of_both_signs(x, attrs)
        assert_same_bits(np.where(mixed, 0, got[0]), np.where(mixed, 0, want[0]), attrs)
        np.testing.assert_array_equal(got[0][mixed], want[0][mixed])
        return
    for g, w in zip(got, want):
        assert_same_bits(g, w, (op, attrs))


def _zero_windows_of_both_signs(x, attrs):
    """Windows whose maximum is zero and that hold both -0.0 and +0.0: the only place MLAS's choice shows."""
    neg = np.where((x == 0) & np.signbit(x), 1.0, 0.0).astype(np.float32)
    pos = np.where((x == 0) & ~np.signbit(x), 1.0, 0.0).astype(np.float32)
    both = [irpool.onnx.run("MaxPool", a, attrs, opset=12)[0] for a in (neg, pos)]
    (peak,) = irpool.onnx.run("MaxPool", x, attrs, opset=12)
    return (both[0] > 0) & (both[1] > 0) & (peak == 0)


@pytest.mark.parametrize("opset", [11, 13, 17])
@pytest.mark.parametrize("shape", [[1, 8, 21, 21], [1, 4, 9, 9, 9]], ids=["2d", "3d"])
@pytest.mark.parametrize("count_include_pad", [0, 1])
@pytest.mark.parametrize("ceil_mode", [0, 1])
def test_average_pool_before_19_adds_as_mlas(opset, shape, count_include_pad, ceil_mode):
    """Kernel 3, stride 2, pads 1, as torch exports an AvgPool: MLAS's vector kernels (column sums down the window,
    then across it; the divisor per window), onnxruntime's own loop with both ceil_mode and count_include_pad."""
    n = len(shape) - 2
    attrs = dict(kernel_shape=[3] * n, strides=[2] * n, pads=[1] * 2 * n, count_include_pad=count_include_pad,
                 ceil_mode=ceil_mode)
    rng = np.random.default_rng(opset + count_include_pad + 2 * ceil_mode)
    for x in ((rng.standard_normal(shape) * 3).astype(np.float32), _signed_zeros(shape, rng)):
        assert_same_bits(irpool.onnx.run("AveragePool", x, attrs, opset=opset)[0],
                         ort_run("AveragePool", x, attrs, opset, 1)[0], attrs)


@pytest.mark.parametrize("shape", [[1, 64, 7, 7], [1, 2048, 7, 7], [2, 5, 3, 11, 7], [1, 3, 37], [1, 40, 14, 14]])
def test_global_average_pool_adds_as_mlas(shape):
    """GlobalAveragePool: MLAS's global kernel (4 lanes over the plane, (l0 + l2) + (l1 + l3), the rest one at a
    time, divided by the plane's size)."""
    rng = np.random.default_rng(sum(shape))
    for x in ((rng.standard_normal(shape) * 3).astype(np.float32), _signed_zeros(shape, rng)):
        assert_same_bits(irpool.onnx.run("GlobalAveragePool", x, {}, opset=11)[0],
                         ort_run("GlobalAveragePool", x, {}, 11, 1)[0], shape)


@st.composite
def mlas_nodes(draw):
    nd = draw(st.integers(2, 3))
    spatial = [draw(st.integers(1, 12 if nd < 3 else 7)) for _ in range(nd)]
    k = [draw(st.integers(1, L)) for L in spatial]
    attrs = dict(kernel_shape=k, strides=[draw(st.integers(1, 3)) for _ in k],
                 pads=[draw(st.integers(0, kk - 1)) for kk in k * 2], count_include_pad=draw(st.integers(0, 1)),
                 ceil_mode=draw(st.integers(0, 1)))
    shape = [draw(st.integers(1, 2)), draw(st.integers(1, 5))] + spatial
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    if draw(st.booleans()):
        x = _signed_zeros(shape, rng, specials=True)
    return attrs, x


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), opset=st.sampled_from([7, 10, 11, 13, 17]))
def test_random_average_pools_before_19_equal_onnxruntime_bit_for_bit(data, opset):
    attrs, x = data.draw(mlas_nodes())
    if opset < 10:
        attrs.pop("ceil_mode")
    compare("AveragePool", 1, attrs, x, opset)


def _signed_zeros(shape, rng, specials=False):
    """Zeros of both signs among negative values (whole windows of -0.0 keep their sign in MLAS's column sums);
    with `specials`, NaN and infinities too."""
    pick = [0.0, -0.0, -0.0, -1.5, -0.25] + ([np.nan, np.inf, -np.inf] if specials else [])
    return rng.choice(np.array(pick, np.float32), size=shape)
