"""The pooling core: the seeds' worked examples, a property test against the slow reference, refusals."""
import dataclasses
import sys
import tracemalloc
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irpool import IRError
from irpool.core import PoolSpec, output_shape, plan, pool, release_workspaces, tuning
from irpool.core.geometry import geometry
from irpool.core import zero_signs as ZERO
from bits import assert_same_bits
from reference import ref_plan, ref_pool

pytestmark = [pytest.mark.reference]

A = np.array([[[[-1, 2, 3], [4, 5, -6], [-7, 8, 9]]]], np.float32)
B = np.array([[[[-1, 2, 3], [4, 5, -6], [-7, 8, 9]], [[2, -1, 5], [6, -7, 1], [8, 2, -3]]]], np.float32)
C = np.array([[[[1, 2, 3], [4, 5, 6], [7, 8, 9]], [[10, 11, 12], [13, 14, 15], [16, 17, 18]]]], np.float32)

# The seven worked examples of seeds/001 (OpenVINO MaxPool-8), values and indices as printed there.
# Erratum: example 1 prints output0[1][3] = -6 and output1[1][3] = 5. That window (rows 0-1, cols 2-3,
# col 3 being padding) holds 3 and -6, so the max is 3 at index 2; OpenVINO 2026.4's CPU plugin returns
# 3 / 2 too (test_openvino_core.py::test_seed_example_1_erratum_matches_runtime).
OV_EXAMPLES = [
    ("1 explicit", A, dict(strides=(1, 1), pads_begin=(1, 1), pads_end=(1, 1), kernel=(2, 2)),
     [[[[-1, 2, 3, 3], [4, 5, 5, 3], [4, 8, 9, 9], [-7, 8, 9, 9]]]],
     [[[[0, 1, 2, 2], [3, 4, 4, 2], [3, 7, 8, 8], [6, 7, 8, 8]]]]),
    ("2 valid 1d", np.array([[[-1, 2, 3, 5, -7, 9, 1]]], np.float32),
     dict(strides=(1,), kernel=(3,), auto_pad="valid"), [[[3, 5, 5, 9, 9]]], [[[2, 3, 3, 5, 5]]]),
    ("3 same_lower", A, dict(strides=(1, 1), kernel=(2, 2), auto_pad="same_lower"),
     [[[[-1, 2, 3], [4, 5, 5], [4, 8, 9]]]], [[[[0, 1, 2], [3, 4, 4], [3, 7, 8]]]]),
    ("4 same_upper", B, dict(strides=(1, 1), kernel=(2, 2), auto_pad="same_upper"),
     [[[[5, 5, 3], [8, 9, 9], [8, 9, 9]], [[6, 5, 5], [8, 2, 1], [8, 2, -3]]]],
     [[[[4, 4, 2], [7, 8, 8], [7, 8, 8]], [[12, 11, 11], [15, 16, 14], [15, 16, 17]]]]),
    ("5 valid ceil", A, dict(strides=(2, 2), kernel=(2, 2), rounding="ceil", auto_pad="valid"),
     [[[[5, 3], [8, 9]]]], [[[[4, 2], [7, 8]]]]),
    ("6 dilated", C[:, :1], dict(strides=(1, 1), kernel=(2, 2), dilations=(2, 2), pads_begin=(1, 1),
                                 pads_end=(1, 1)),
     [[[[5, 6, 5], [8, 9, 8], [5, 6, 5]]]], [[[[4, 5, 4], [7, 8, 7], [4, 5, 4]]]]),
    ("7 axis=2", C, dict(strides=(1, 1), kernel=(2, 2), index_axis=2),
     [[[[5, 6], [8, 9]], [[14, 15], [17, 18]]]], [[[[4, 5], [7, 8]], [[4, 5], [7, 8]]]]),
]


@pytest.mark.parametrize("name,x,attrs,values,indices", OV_EXAMPLES, ids=[e[0] for e in OV_EXAMPLES])
def test_openvino_maxpool8_worked_examples(name, x, attrs, values, indices):
    y, i = pool(x, PoolSpec(**attrs), indices=True)
    np.testing.assert_array_equal(y, np.array(values, np.float32))
    np.testing.assert_array_equal(i, np.array(indices, np.int64))
    assert i.dtype == np.int64


X5 = np.arange(1, 26, dtype=np.float32).reshape(1, 1, 5, 5)
X4 = np.arange(1, 17, dtype=np.float32).reshape(1, 1, 4, 4)
# The worked ONNX MaxPool examples of seeds/000 with fixed data, in the core's ONNX reading
# (ceil_mode=1 is ceil_torch; NOTSET is explicit).
ONNX_EXAMPLES = [
    ("2d_uint8", X5.astype(np.uint8), dict(kernel=(5, 5), pads_begin=(2, 2), pads_end=(2, 2)),
     [[13, 14, 15, 15, 15], [18, 19, 20, 20, 20], [23, 24, 25, 25, 25], [23, 24, 25, 25, 25],
      [23, 24, 25, 25, 25]],
     [[12, 13, 14, 14, 14], [17, 18, 19, 19, 19], [22, 23, 24, 24, 24], [22, 23, 24, 24, 24],
      [22, 23, 24, 24, 24]]),
    ("2d_precomputed_strides", X5, dict(kernel=(2, 2), strides=(2, 2)), [[7, 9], [17, 19]], [[6, 8], [16, 18]]),
    ("with_argmax_storage_order_1", X5, dict(kernel=(2, 2), strides=(2, 2), storage_order=1),
     [[7, 9], [17, 19]], [[6, 16], [8, 18]]),
    ("2d_precomputed_same_upper", X5, dict(kernel=(3, 3), strides=(2, 2), auto_pad="same_upper"),
     [[7, 9, 10], [17, 19, 20], [22, 24, 25]], None),
    ("2d_ceil", X4, dict(kernel=(3, 3), strides=(2, 2), rounding="ceil_torch"), [[11, 12], [15, 16]], None),
    ("2d_dilations", X4, dict(kernel=(2, 2), dilations=(2, 2)), [[11, 12], [15, 16]], None),
]


@pytest.mark.parametrize("name,x,attrs,values,indices", ONNX_EXAMPLES, ids=[e[0] for e in ONNX_EXAMPLES])
def test_onnx_maxpool_worked_examples(name, x, attrs, values, indices):
    y, i = pool(x, PoolSpec(**attrs), indices=True)
    np.testing.assert_array_equal(y, np.array([[values]], x.dtype))
    assert y.dtype == x.dtype
    if indices is not None:
        np.testing.assert_array_equal(i, np.array([[indices]], np.int64))


def test_design_shape_message_example():
    # DESIGN section 2: H: floor((32 + 1 + 1 - 2) / 2) + 1 = 17
    p = plan(PoolSpec(kernel=(2, 2), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)), (1, 3, 32, 32))
    assert p[0].arithmetic == "H: floor((32 + 1 + 1 - 2) / 2) + 1 = 17"
    assert [a.out for a in p] == [17, 17]


def test_seed_same_upper_ir_example_is_16_not_32():
    # DESIGN section 3: the seed's first IR example declares 32x32; the runtime computes 16x16.
    spec = PoolSpec(kernel=(2, 2), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1), auto_pad="same_upper")
    assert output_shape(spec, (1, 3, 32, 32)) == (1, 3, 16, 16)


def test_dynamic_dims_stay_unknown():
    spec = PoolSpec(kernel=(3, 3), strides=(2, 2), auto_pad="same_lower")
    assert output_shape(spec, (-1, 3, None, 10)) == (None, 3, None, 5)


DTYPES_MAX = ["float16", "float32", "float64", "int8", "uint8", "int32", "int64"]
DTYPES_SUM = ["float16", "float32", "float64"]


@st.composite
def cases(draw):
    nd = draw(st.integers(1, 3))
    reduction = draw(st.sampled_from(["max", "avg", "lp"]))
    dtype = draw(st.sampled_from(DTYPES_MAX if reduction in ("max", "avg") else DTYPES_SUM))
    spatial = tuple(draw(st.lists(st.integers(1, 7 if nd < 3 else 5), min_size=nd, max_size=nd)))
    ints = lambda lo, hi: tuple(draw(st.lists(st.integers(lo, hi), min_size=nd, max_size=nd)))  # noqa: E731
    spec = dict(kernel=ints(1, 4), strides=ints(1, 3), dilations=ints(1, 3), pads_begin=ints(0, 3),
                pads_end=ints(0, 3), rounding=draw(st.sampled_from(["floor", "ceil", "ceil_torch"])),
                auto_pad=draw(st.sampled_from(["explicit", "same_upper", "same_lower", "valid"])),
                reduction=reduction, layout=draw(st.sampled_from(["channels_first", "channels_last"])))
    if reduction == "avg":
        spec["count"] = draw(st.sampled_from(["exclude_pad", "include_openvino", "include_onnx", "exclude_onnx"]))
    if reduction == "lp":
        spec["p"] = draw(st.sampled_from([1, 2, 3, 1.5]))
    if reduction == "max":
        spec["index_axis"] = draw(st.integers(-(nd + 2), nd + 1))
        spec["index_dtype"] = draw(st.sampled_from(["int32", "int64"]))
        spec["storage_order"] = draw(st.integers(0, 1))
        spec["max_start"] = draw(st.sampled_from(["lowest", "first"]))
    n, c = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    shape = (n, c) + spatial if spec["layout"] == "channels_first" else (n,) + spatial + (c,)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.integers(-3, 4, size=shape)          # small integers: many ties, exact sums
    dt = np.dtype(dtype)
    if dt.kind == "u":
        x = np.abs(x)
    x = x.astype(dt)
    if dt.kind == "f":
        values = draw(st.sampled_from(["ties", "signed zeros", "any"]))
        if values == "signed zeros":             # ties of -0.0 and +0.0: the first tap's sign wins a max
            x = np.where(rng.random(shape) < 0.5, -x, x).astype(dt)
            x = np.where(rng.random(shape) < 0.6, np.where(rng.random(shape) < 0.5, -0.0, 0.0), x).astype(dt)
        elif values == "any":                    # no exact sums: the order of the additions shows
            x = (rng.standard_normal(shape) * 3).astype(dt)
    if dt.kind == "f" and x.size and draw(st.booleans()):
        flat = x.reshape(-1)
        flat[rng.integers(0, x.size, size=max(1, x.size // 5))] = rng.choice([np.nan, -np.inf, np.inf])
    return PoolSpec(**spec), x


def _matches_reference(spec, x, **kwargs):
    want_y, want_i = ref_pool(x, spec)
    if want_y is None:                     # the kernel does not fit the padded input
        with pytest.raises(IRError, match="does not fit"):
            pool(x, spec, **kwargs)
        return
    if spec.reduction == "max":
        y, i = pool(x, spec, indices=True, **kwargs)
        assert_same_bits(y, want_y, spec)
        np.testing.assert_array_equal(i, want_i)
        assert i.dtype == np.dtype(spec.index_dtype)
        assert_same_bits(pool(x, spec, **kwargs), want_y, spec)     # values alone take other passes
    elif spec.reduction == "avg":
        y = pool(x, spec, **kwargs)
        assert_same_bits(y, want_y, spec)       # the same additions in the same order: the same bits
    else:                                       # Lp: the reference's powers are float64's
        y = pool(x, spec, **kwargs)
        tol = 2e-3 if x.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(y.astype(np.float64), want_y.astype(np.float64), rtol=tol, atol=tol)
    assert y.dtype == x.dtype and y.shape == want_y.shape
    # the shape arithmetic agrees with the reference's independent one
    spatial = x.shape[2:] if spec.layout == "channels_first" else x.shape[1:-1]
    assert [(a.pad_begin, a.pad_end, a.out) for a in plan(spec, x.shape)] == ref_plan(spec, spatial)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_core_matches_reference(case):
    _matches_reference(*case, threads=1)


@st.composite
def padded_or_not_cases(draw):
    """Half of them as cases() draws them, half with no padding (direct.py then has no edges to redo)."""
    spec, x = draw(cases())
    if draw(st.booleans()):
        zeros = (0,) * spec.ndim
        spec = dataclasses.replace(spec, pads_begin=zeros, pads_end=zeros,
                                   auto_pad=draw(st.sampled_from(["explicit", "valid"])))
    return spec, x


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(padded_or_not_cases())
def test_the_direct_path_matches_reference_on_everything_it_takes(case):
    """The second way the core runs (direct.py), forced on for every spec it can take (small inputs too), and for
    chunks of one plane; and it does take every max whose windows all start before the input's end."""
    spec, x = case
    with tuning.using(direct=True, direct_bytes=0):
        try:
            plans = plan(spec, x.shape)
        except IRError:
            plans = None
        if plans and x.size and spec.reduction == "max" and spec.layout == "channels_first" and x.dtype != np.float16 \
                and all((p.out - 1) * p.stride < p.length for p in plans) and not all(p.out == 1 for p in plans):
            assert geometry(spec, x.shape, x.dtype, False, tuning.current()).direct
        release_workspaces()
        try:
            _matches_reference(*case, threads=1)
            with tuning.using(chunk_bytes=1):
                _matches_reference(*case, threads=1)
        finally:
            release_workspaces()


@st.composite
def last_axis_first_cases(draw):
    """Max pools whose last axis has overlapping windows with a stride (kernel > stride > 1), which the core
    reduces first at every position (pool.py, pre_reduce): any pads, dilations, roundings and auto_pad."""
    spec, x = draw(cases())
    nd = spec.ndim
    k = draw(st.integers(3, 5))
    last = dict(kernel=k, strides=draw(st.integers(2, k - 1)), dilations=draw(st.integers(1, 2)),
                pads_begin=draw(st.integers(0, k - 1)), pads_end=draw(st.integers(0, k - 1)))
    attrs = {name: getattr(spec, name)[:-1] + (value,) for name, value in last.items()}
    spec = dataclasses.replace(spec, reduction="max", max_start="lowest", layout="channels_first", **attrs)
    spatial = tuple(draw(st.lists(st.integers(1, 6), min_size=nd - 1, max_size=nd - 1))) + (draw(st.integers(1, 16)),)
    dtype = draw(st.sampled_from(DTYPES_MAX))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3))) + spatial
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    x = rng.integers(-3, 4, size=shape).astype(dtype)
    if x.dtype.kind == "f":                     # ties of -0.0 and +0.0, NaN and infinities
        x = np.where(rng.random(shape) < 0.4, np.where(rng.random(shape) < 0.5, -0.0, 0.0), x).astype(dtype)
        x = np.where(rng.random(shape) < 0.1, rng.choice([np.nan, -np.inf, np.inf], size=shape), x).astype(dtype)
    return spec, x


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(last_axis_first_cases())
def test_the_last_axis_reduced_first_matches_reference(case):
    """Every spec that reduces its last axis first (edge windows into the padding redone from their taps), in
    whole chunks and in chunks of one plane, against the reference; and the core does take that way."""
    spec, x = case
    try:
        plans = plan(spec, x.shape)
    except IRError:
        plans = None
    if plans is not None and 0 not in x.shape and (plans[-1].out - 1) * plans[-1].stride < plans[-1].length \
            and not all(p.out == 1 for p in plans):
        assert geometry(spec, x.shape, x.dtype, False, tuning.current()).pre_offsets is not None
    release_workspaces()
    try:
        _matches_reference(spec, x, threads=1)
        with tuning.using(chunk_bytes=1):
            _matches_reference(spec, x, threads=1)
    finally:
        release_workspaces()


LAYOUT_MODULE = sys.modules["irpool.core.layout"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_core_with_opaque_row_copies_matches_reference(case):
    """The fill and the last copy view short rows as opaque elements (layout.copy_rows) only on inputs of
    thousands of elements; here on every input."""
    with mock.patch.object(LAYOUT_MODULE, "OPAQUE_MIN_ELEMENTS", 0):
        release_workspaces()
        try:
            _matches_reference(*case, threads=1)
        finally:
            release_workspaces()


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_copy_rows_copies_what_copyto_copies(data):
    """Views of larger arrays (any strides, size-1 axes, both dtypes alike or not) copied both ways."""
    nd = data.draw(st.integers(1, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 6), min_size=nd, max_size=nd)))
    dtype = data.draw(st.sampled_from(["float32", "float16", "int8", "float64"]))

    def view(dt):
        pads = [data.draw(st.integers(0, 2)) for _ in shape]
        steps = [data.draw(st.integers(1, 2)) for _ in shape]
        big = np.arange(np.prod([(n + p) * s for n, p, s in zip(shape, pads, steps)])).astype(dt)
        big = big.reshape([(n + p) * s for n, p, s in zip(shape, pads, steps)])
        return big[tuple(slice(p, p + n * s, s) for n, p, s in zip(shape, pads, steps))]
    src = view(dtype)
    dst = view(data.draw(st.sampled_from([dtype, "float32"])))
    want = dst.copy()
    np.copyto(want, src, casting="unsafe")
    with mock.patch.object(LAYOUT_MODULE, "OPAQUE_MIN_ELEMENTS", 0):
        LAYOUT_MODULE.copy_rows(dst, src)
    assert_same_bits(dst, want)


def test_the_direct_path_is_taken_where_windows_do_not_overlap_or_stride_1():
    """direct.py runs max pools of 256 KB or more whose windows do not overlap and read no padding, or whose
    strides are all 1 with an output as long as the input."""
    x = np.zeros((1, 2, 256, 256), np.float32)
    assert not geometry(PoolSpec(kernel=(2, 2), strides=(2, 2)), (1, 1, 4, 4), x.dtype, False, tuning.current()).direct
    for attrs, direct in ((dict(kernel=(2, 2), strides=(2, 2)), True), (dict(kernel=(3, 3), strides=(2, 2)), False),
                          (dict(kernel=(3, 3), strides=(3, 3)), True), (dict(kernel=(1, 1), strides=(2, 2)), True),
                          (dict(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)), False),
                          (dict(kernel=(3, 3), strides=(1, 1), pads_begin=(1, 1), pads_end=(1, 1)), True),
                          (dict(kernel=(3, 3), strides=(1, 1)), False),
                          (dict(kernel=(3, 3), strides=(1, 2), pads_begin=(1, 1), pads_end=(1, 1)), False),
                          (dict(kernel=(3, 3), strides=(2, 2), rounding="ceil"), False),
                          (dict(kernel=(2, 2), strides=(2, 2), reduction="lp"), False)):
        spec = PoolSpec(**attrs)
        assert geometry(spec, x.shape, x.dtype, False, tuning.current()).direct is direct, attrs


@st.composite
def one_window_cases(draw):
    """Kernels that cover each padded axis but for less than a stride: one window per axis (global pools)."""
    spec, x = draw(cases())
    spatial = x.shape[2:] if spec.layout == "channels_first" else x.shape[1:-1]
    kernel, strides = [], []
    for length, pb, pe, d in zip(spatial, spec.pads_begin, spec.pads_end, spec.dilations):
        k = (length + pb + pe - 1) // d + 1
        kernel.append(k)
        strides.append(length + pb + pe - (k - 1) * d + draw(st.integers(0, 2)))
    return dataclasses.replace(spec, kernel=tuple(kernel), strides=tuple(strides), rounding="floor",
                               auto_pad="explicit"), x


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(one_window_cases())
def test_one_window_per_axis_matches_reference(case):
    spec, x = case
    assert all(p.out == 1 for p in plan(spec, x.shape))
    _matches_reference(spec, x, threads=1)


@pytest.mark.parametrize("kernel", [(2, 4), (3, 3), (1, 9), (5, 5)])
def test_one_window_of_one_plane_adds_in_order(kernel):
    """A single plane's one window: numpy's reduction along the taps would add the first tap to the sum of
    the others (pairwise from 8 taps); the reference adds them one after the other. (Hypothesis found a
    1x1x2x4 average one bit off.)"""
    rng = np.random.default_rng(sum(kernel))
    for trial in range(20):
        x = (rng.standard_normal((1, 1) + kernel) * 10.0 ** rng.integers(-3, 4, kernel)).astype(np.float32)
        _matches_reference(PoolSpec(kernel=kernel, reduction="avg"), x, threads=1)


POOL_MODULE = sys.modules["irpool.core.pool"]     # (irpool.core.pool is also the name of the function)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from(["contiguous", "strided", "fortran"]))
def test_core_in_chunks_on_threads_matches_reference(case, memory):
    """One plane per chunk, every chunk on a thread pool, inputs not laid out C-contiguously."""
    spec, x = case
    if memory == "strided":
        wide = np.zeros(x.shape[:-1] + (2 * x.shape[-1],), dtype=x.dtype)
        wide[..., ::2] = x
        x = wide[..., ::2]
    elif memory == "fortran":
        x = np.asfortranarray(x)
    with tuning.using(thread_chunk_bytes=1, parallel_bytes=0):
        _matches_reference(spec, x, threads=3)


@pytest.mark.parametrize("dtype", ["float32", "int8", "float64", "int16"])
@pytest.mark.parametrize("length", [4, 5, 9])
def test_strided_reads_up_to_the_last_element(dtype, length):
    """Stride 2 reads the input as integers two elements wide; the last one must not read past the end."""
    x = (np.arange(2 * 3 * length) % 7 - 3).astype(dtype).reshape(2, 3, length)
    for spec in (PoolSpec(kernel=(2,), strides=(2,)), PoolSpec(kernel=(3,), strides=(2,), pads_begin=(1,)),
                 PoolSpec(kernel=(1,), strides=(2,), pads_begin=(1,), pads_end=(1,))):
        _matches_reference(spec, x, threads=1)
        with tuning.using(chunk_bytes=1):
            _matches_reference(spec, x, threads=1)


@pytest.mark.parametrize("shape,attrs,indices", [
    ((1, 64, 112, 112), dict(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1)), True),
    ((4, 64, 56, 56), dict(kernel=(3, 3), dilations=(4, 4), pads_begin=(1, 1), pads_end=(1, 1)), False),
    ((4, 64, 56, 56), dict(kernel=(3, 3), pads_begin=(1, 1), pads_end=(1, 1), reduction="avg"), False),
    ((2, 16, 16, 32, 32), dict(kernel=(3, 3, 3), strides=(2, 2, 2), reduction="lp"), False),
])
def test_extra_memory_stays_below_input_plus_output(shape, attrs, indices):
    """DESIGN section 4: peak extra memory near input + output (a cold call: cached workspaces freed)."""
    x = np.random.default_rng(0).standard_normal(shape, dtype=np.float32)
    release_workspaces()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        out = pool(x, PoolSpec(**attrs), indices=indices, threads=2)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    outs = out if isinstance(out, tuple) else (out,)
    out_bytes = sum(o.nbytes for o in outs)
    assert peak - out_bytes <= x.nbytes + out_bytes, (peak, x.nbytes, out_bytes)


def test_float16_sums_accumulate_wider_than_float16():
    x = np.full((1, 1, 4096), 1.0, np.float16)
    y = pool(x, PoolSpec(kernel=(4096,), reduction="avg"))
    assert y.dtype == np.float16 and y[0, 0, 0] == 1.0        # a float16 running sum would stall at 2048


@pytest.mark.parametrize("attrs,message", [
    (dict(kernel=(2, 2), strides=(0, 1)), "strides value 0"),
    (dict(kernel=(2, 2), dilations=(1, 0)), "dilations value 0"),
    (dict(kernel=(2, 2), strides=(1,)), "strides has 1 values"),
    (dict(kernel=(2, 2), pads_end=(1, 1, 1)), "pads_end has 3 values"),
    (dict(kernel=(0, 2)), "kernel value 0"),
    (dict(kernel=(2, 2), pads_begin=(-1, 0)), "pads_begin value -1"),
    (dict(kernel=(2,), rounding="round"), "rounding must be one of"),
    (dict(kernel=(2,), auto_pad="notset"), "auto_pad must be one of"),
    (dict(kernel=(2,), reduction="lp", p=0), "p must be a positive"),
    (dict(kernel=("x",)), "kernel must be a list of integers"),
])
def test_spec_refusals(attrs, message):
    with pytest.raises(IRError, match=message):
        PoolSpec(**attrs)


def test_execution_refusals():
    x = np.zeros((1, 1, 4, 4), np.float32)
    with pytest.raises(IRError, match="does not fit"):
        pool(x, PoolSpec(kernel=(5, 5)))
    with pytest.raises(IRError, match="rank 4"):
        pool(x, PoolSpec(kernel=(2,)))
    with pytest.raises(IRError, match="axis 4 is out of range"):
        pool(x, PoolSpec(kernel=(2, 2), index_axis=4), indices=True)
    with pytest.raises(IRError, match="takes float16/32/64"):
        pool(x.astype(np.int32), PoolSpec(kernel=(2, 2), reduction="lp"))
    with pytest.raises(IRError, match="does not take element type bool"):
        pool(x.astype(bool), PoolSpec(kernel=(2, 2)))
    assert issubclass(IRError, ValueError)


def _random_max(rng, channels, lengths):
    """A random max pool of 1 to 3 spatial axes (pads, dilations, ceil rounding, channels-last) and an input shape
    for it: fewer than `channels` channels, spatial lengths in the range `lengths`."""
    nd = int(rng.integers(1, 4))
    spec = PoolSpec(kernel=tuple(int(v) for v in rng.integers(1, 4, nd)),
                    strides=tuple(int(v) for v in rng.integers(1, 3, nd)),
                    dilations=tuple(int(v) for v in rng.integers(1, 3, nd)),
                    pads_begin=tuple(int(v) for v in rng.integers(0, 2, nd)),
                    pads_end=tuple(int(v) for v in rng.integers(0, 2, nd)),
                    rounding=str(rng.choice(["floor", "ceil"])), reduction="max",
                    layout=str(rng.choice(["channels_first", "channels_last"])))
    shape = [int(rng.integers(1, 3)), int(rng.integers(1, channels))] + [int(v) for v in rng.integers(*lengths, nd)]
    if spec.layout == "channels_last":
        shape = [shape[0]] + shape[2:] + [shape[1]]
    return spec, shape


def _repair_only():
    """The zero-sign repair alone: the max by fmax, whatever numpy's rule for ties of zeros (ties.py)."""
    return tuning.using(ordered_ties=False)


@pytest.mark.parametrize("ordered", [True, False])
@pytest.mark.parametrize("zeros, nans", [(0.02, 0.05), (0.5, 0.05), (1.0, 0.05), (1.0, 0.002), (0.5, 0.0)])
def test_max_of_tied_zeros_takes_the_first_zero_tap_as_the_reference(zeros, nans, ordered):
    """Windows whose maximum is zero keep the sign of their first zero tap (the plugin's strictly-greater scan):
    by the order of the taps under np.maximum (`ordered`, where numpy's rule for ties allows: ties.py), the
    chunks that hold NaN pooled again and repaired; by the repair alone, whether few windows are such (repaired at
    their positions), most are and their first tap inside the input is a zero (one whole-array step, the few left
    at their positions) or is not (every tap over the whole output). Random specs with pads, dilations, ceil
    rounding and channels-last, on float16, float32 and float64 inputs of -0.0, +0.0, negatives and NaN, through
    the phase buffer and direct.py, against the slow reference bit for bit. Ordered, the repair runs only on
    chunks with NaN."""
    from irpool.core import ties
    rng = np.random.default_rng(int(zeros * 1000 + nans * 1e4))
    repaired, real, direct = [], ZERO.repair, 0

    def counted(self, *args):
        repaired.append(self.g.window)
        return real(self, *args)
    with tuning.using(ordered_ties=ordered), \
            mock.patch.object(ZERO, "repair", counted):
        for _ in range(60):
            spec, shape = _random_max(rng, channels=5, lengths=(4, 9))
            dtype = np.dtype(rng.choice(["float16", "float32", "float64"]))
            pick = rng.random(shape)
            x = np.where(pick < zeros / 2, -0.0, np.where(pick < zeros, 0.0, -rng.random(shape) - 1))
            x[rng.random(shape) < nans] = np.nan
            x = x.astype(dtype)
            try:
                want, _ = ref_pool(x, spec)
            except Exception:                    # (a spec whose window does not fit: the core refuses it too)
                continue
            if want is None:
                continue
            assert_same_bits(pool(x, spec, threads=1), want.astype(dtype))
            release_workspaces()                # (and the geometries, which say which way a call goes)
            with tuning.using(direct=True, direct_bytes=0):     # (direct.py, where it takes the spec)
                direct += geometry(spec, x.shape, x.dtype, False, tuning.current()).direct
                assert_same_bits(pool(x, spec, threads=1), want.astype(dtype), "direct")
            release_workspaces()
    # numpy's rule is the CPU's and numpy's (x86, numpy 2.4: the second operand in float32 and float64, the first
    # in float16; numpy 1.22: none in float32 and float64): where no rule holds, the repair runs whether ordered or not
    assert direct >= 5, direct
    if ordered and nans == 0 and all(ties.keeps(t) for t in ("float16", "float32", "float64")):
        assert not [w for w in repaired if w is None], "the repair ran on chunks without NaN"
    else:
        assert repaired


@pytest.mark.parametrize("nans", ["one", "many"])
def test_nan_under_the_ordered_max_goes_to_fmax_and_the_repair(nans):
    """np.maximum lets NaN win, fmax skips it: under the ordered max (ties.py) a chunk where NaN won a window is
    pooled again by fmax and repaired, and so are the chunks after it; NaN in the sample of the input that the run
    looks at first sends every chunk to fmax at once. Zeros of both signs with NaN, chunks of a few planes,
    against the slow reference bit for bit. (Where numpy here has no fixed rule for ties of zeros, every chunk goes
    to fmax: the test then checks that.)"""
    from irpool.core import ties
    rng = np.random.default_rng(7)
    x = np.where(rng.random((2, 6, 8, 8)) < 0.5, np.float32(-0.0), np.float32(0.0))
    if nans == "one":
        x[0, 0, 0, 1] = np.nan                  # (not in the sample: element 1)
    else:
        x[rng.random(x.shape) < 0.1] = np.nan
    spec = PoolSpec(kernel=(2, 2), strides=(1, 1), reduction="max")
    ops, real = [], POOL_MODULE._Run._pool_chunk

    def counted(self, a, b, op):
        ops.append((a, op.__name__))
        return real(self, a, b, op)
    with mock.patch.object(POOL_MODULE._Run, "_pool_chunk", counted), \
            tuning.using(chunk_bytes=1024):
        got = pool(x, spec, threads=1)
    assert_same_bits(got, ref_pool(x, spec)[0])
    if ties.keeps("float32") is None or nans == "many":
        assert {op for _, op in ops} == {"fmax"}, ops
    else:
        assert ops[:2] == [(0, "maximum"), (0, "fmax")] and {op for _, op in ops[2:]} == {"fmax"}, ops


def test_the_tie_probe_tells_one_operand_from_a_mix():
    """ties.rule, on ops whose rule is known: one that always returns its second operand is "second", its first
    "first"; one whose vector loop and scalar tail differ (as numpy 2.4's fmax on x86, which leaves some elements
    to scalar code that keeps the first) is None, and so is one that keeps +0.0 whatever the order (as Arm's FMAX,
    which orders +0.0 above -0.0). Integer types have no such tie."""
    from irpool.core import ties

    def second(a, b, out):
        np.copyto(out, b)
        return out

    def first(a, b, out):
        np.copyto(out, a)
        return out

    def tail_first(a, b, out):
        k = len(out) % 16
        head = b.copy()
        if k:
            head[-k:] = a[-k:]
        np.copyto(out, head)
        return out

    def plus_zero(a, b, out):
        np.copyto(out, np.where(np.signbit(a) & np.signbit(b), a, 0.0))
        return out
    for dtype in ("float16", "float32", "float64"):
        assert ties.rule(second, dtype) == "second" and ties.rule(first, dtype) == "first"
        assert ties.rule(tail_first, dtype) is None and ties.rule(plus_zero, dtype) is None
    assert ties.keeps("int32") is None and ties.first_wins([1, 2, 3], "int32") == [1, 2, 3]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("others", [0.0, 0.08, 0.5])
def test_every_maximum_zero_takes_each_window_first_zero_chunk_by_chunk(threads, others):
    """Inputs of -0.0 and +0.0 (with some negatives and NaN where `others`), where every window's maximum of a
    chunk is zero: each window's first tap is copied whole (strided, in long contiguous rows, in short ones), the
    windows whose first tap is not a zero go on at their positions or, many (`others` 0.5), through the codes.
    Chunks of a few planes, on one thread and on two, against the slow reference bit for bit; the whole copy must
    have run."""
    rng = np.random.default_rng(int(others * 100) + threads)
    copies, coded = [], []
    real, real_codes = ZERO._copy_taps, ZERO._first_zero_codes

    def counted(dst, src, root):
        copies.append(src.strides[-1] // src.itemsize)
        real(dst, src, root)

    def codes(xs, plans):
        coded.append(xs.shape)
        return real_codes(xs, plans)
    cases = [((2, 3, 9, 80), dict(kernel=(2, 3), strides=(1, 1), pads_begin=(1, 1), pads_end=(0, 1))),   # long rows
             ((2, 3, 12, 12), dict(kernel=(3, 3), strides=(2, 2), pads_begin=(1, 1), pads_end=(1, 1))),  # strided
             ((2, 3, 10, 10), dict(kernel=(2, 2), strides=(1, 1), dilations=(2, 2))),                     # short rows
             ((3, 2, 90), dict(kernel=(4,), strides=(1,), pads_begin=(2,), pads_end=(1,))),
             ((1, 4, 6, 8, 8), dict(kernel=(2, 2, 2), strides=(2, 2, 2)))]
    with mock.patch.object(ZERO, "_copy_taps", counted), _repair_only(), \
            mock.patch.object(ZERO, "_first_zero_codes", codes), \
            tuning.using(chunk_bytes=2048, thread_chunk_bytes=2048, parallel_bytes=0):
        for shape, attrs in cases:
            spec = PoolSpec(reduction="max", **attrs)
            for _ in range(3):
                x = np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0))
                pick = rng.random(shape)
                x[pick < others] = -rng.random(int((pick < others).sum())).astype(np.float32) - 1
                x[pick > 1 - others / 4] = np.nan
                want, _ = ref_pool(x, spec)
                assert_same_bits(pool(x, spec, threads=threads), want.astype(np.float32))
    if others < 0.5:                            # (contiguous rows and strided ones were copied whole)
        assert {1, 2} <= set(copies), copies
    else:                                       # (half the values negative: most windows go through the codes)
        assert coded


@pytest.mark.parametrize("positives", [0.3, 0.6, 0.9])
def test_zero_maxima_among_positives_take_the_first_zero_tap(positives):
    """ReLU-like inputs with zeros of both signs and a few negatives, so that a few or some of the windows have
    a zero maximum: those are looked up at their positions (all their taps at once), or their first taps go first
    and the rest are looked up or coded. Random specs with pads, dilations, ceil rounding and channels-last,
    chunks of a few planes, against the slow reference bit for bit; both ways must have run over the
    parametrization's inputs."""
    rng = np.random.default_rng(int(positives * 10))
    ran = {"first": 0, "gather": 0}
    real_first, real_gather = ZERO._first_tap_signs, ZERO._gather_zero_signs

    def first(self, *args):
        ran["first"] += 1
        return real_first(self, *args)

    def gather(self, *args):
        ran["gather"] += 1
        return real_gather(self, *args)
    with mock.patch.object(ZERO, "_first_tap_signs", first), _repair_only(), \
            mock.patch.object(ZERO, "_gather_zero_signs", gather), \
            tuning.using(chunk_bytes=4096):
        for _ in range(40):
            spec, shape = _random_max(rng, channels=9, lengths=(5, 12))
            pick = rng.random(shape)
            zeros = np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0))
            x = np.where(pick < positives, rng.random(shape).astype(np.float32) + 1,
                         np.where(pick > 0.97, np.float32(-1.5), zeros)).astype(np.float32)
            want, _ = ref_pool(x, spec)
            if want is None:
                continue
            assert_same_bits(pool(x, spec, threads=1), want.astype(np.float32))
    if positives == 0.6:
        assert ran["first"] and ran["gather"], ran


@pytest.mark.parametrize("kernel", [4, 7, 12, 25, 45])
def test_first_zero_of_long_windows_on_every_code_width(kernel):
    """Windows of 4 to 45 taps along an axis (the codes of _first_zero_codes in 8, 16, 32 and 64 bits, and one tap
    at a time past 40), on negatives and zeros of both signs where every window is open: against the slow
    reference bit for bit, dilated and strided, with pads."""
    rng = np.random.default_rng(kernel)
    spec = PoolSpec(kernel=(kernel, 2), strides=(2, 1), dilations=(1, 2), pads_begin=(1, 0), pads_end=(2, 1),
                    reduction="max")
    shape = (2, 3, kernel + 9, 7)
    r = rng.standard_normal(shape).astype(np.float32)
    x = np.where(r > 0, -r, np.where(rng.random(shape) < 0.5, np.float32(-0.0), np.float32(0.0)))
    want, _ = ref_pool(x, spec)
    with _repair_only():
        assert_same_bits(pool(x, spec, threads=1), want.astype(np.float32))
