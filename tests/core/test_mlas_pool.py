"""MLAS's AveragePool (core/mlas_pool.py: its vector kernels run flat over buffers kept per thread between calls,
up to 4 MB each) against onnxruntime, bit for bit, on calls one after the other whose buffers have the same shape
but their input in another place (other pads), on the shapes classifiers pool, 2-D and 3-D, on views."""
import numpy as np
import pytest

import irpool.onnx
from bits import assert_same_bits

pytest.importorskip("onnxruntime", minversion="1.29")   # the semantics irpool follows: docs/onnx.md
from onnxpeers import ort_run  # noqa: E402

pytestmark = [pytest.mark.onnxruntime]


def _input(shape, rng):
    """Normal values with zeros of both signs, NaN and infinities planted."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    pick = rng.random(shape)
    x[pick < 0.2] = -0.0
    x[(pick > 0.2) & (pick < 0.3)] = 0.0
    x.reshape(-1)[rng.integers(0, x.size, 3)] = np.array([np.nan, np.inf, -np.inf], np.float32)
    return x


CALLS = [((1, 5, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
         ((1, 5, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[2, 1, 0, 1])),     # the same buffers' shape
         ((1, 5, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[0, 2, 2, 0])),
         ((1, 5, 7, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 0])),
         ((1, 64, 56, 56), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
         ((2, 64, 112, 112), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),    # buffers not kept
         ((1, 512, 14, 14), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1)),
         ((1, 2048, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], count_include_pad=1)),
         ((2, 3, 9, 9, 9), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[1, 1, 1, 1, 1, 1])),
         ((2, 3, 9, 9, 9), dict(kernel_shape=[3, 3, 3], strides=[2, 2, 2], pads=[2, 0, 1, 0, 2, 1])),
         ((1, 8, 21, 21), dict(kernel_shape=[5, 4], strides=[3, 1], pads=[2, 1, 2, 2])),
         ((1, 8, 21, 21), dict(kernel_shape=[5, 4], strides=[3, 1], pads=[1, 2, 3, 1]))]


@pytest.mark.parametrize("opset", [11, 17])
def test_average_pools_one_after_the_other_equal_onnxruntime(opset):
    rng = np.random.default_rng(opset)
    for shape, attrs in CALLS * 2:
        x = _input(shape, rng)
        assert_same_bits(irpool.onnx.run("AveragePool", x, attrs, opset=opset)[0],
                         ort_run("AveragePool", x, attrs, opset, 1)[0], (shape, attrs))


def test_average_pool_of_views_equals_onnxruntime():
    """Every other column of a wider input, a slice of its channels: views, pooled as their copies are."""
    rng = np.random.default_rng(3)
    wide = _input((2, 6, 12, 22), rng)
    attrs = dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    for x in (wide[..., ::2], wide[:, 1:4], wide[..., 1:, :-3]):
        assert_same_bits(irpool.onnx.run("AveragePool", x, attrs, opset=11)[0],
                         ort_run("AveragePool", np.ascontiguousarray(x), attrs, 11, 1)[0], x.strides)
