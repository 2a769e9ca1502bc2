"""The global ReduceMean/ReduceMax orders (core/reduce_order.py) against the plugin's kernel read one float32
operation at a time (tests/helpers/reference.py: ref_global_reduce), on the shapes that take each of the sums'
paths: planar planes shorter than a vector step, of whole steps and with taps left over, 3-D with several depth
slices; channels-last rows of at most 8 taps and longer, channel counts with and without a partial block, a
row or column alone, 3-D with depth one and more. Inputs hold planted zeros of both signs, NaN and infinities."""
import numpy as np
import pytest

from bits import assert_same_bits
from irpool.core.reduce_order import global_reduce
from reference import ref_global_reduce

pytestmark = [pytest.mark.reference]

SHAPES = [(2, 3, 3, 4), (1, 5, 4, 4), (2, 17, 5, 7), (1, 33, 14, 14), (1, 16, 1, 40), (1, 18, 40, 1),
          (2, 20, 9, 11), (1, 40, 8, 8), (1, 17, 2, 2), (1, 6, 3, 5, 7), (1, 17, 1, 6, 9), (1, 3, 2, 9, 9),
          (2, 4, 31), (1, 24, 12, 16)]


def _planted(shape, rng, kind):
    """Normal values with planted -0.0/+0.0 (kind "zeros": whole planes of zeros of both signs too), NaN and
    infinities."""
    x = (rng.standard_normal(shape) * 3).astype(np.float32)
    if kind == "zeros":
        x[rng.random(shape) < 0.5] = 0.0
        x[rng.random(shape) < 0.3] = -0.0
        x[..., ::2, :] = np.where(rng.random(x[..., ::2, :].shape) < 0.5, -0.0, x[..., ::2, :])
        x[:, :1] = -0.0
    else:
        x.reshape(-1)[rng.integers(0, x.size, max(1, x.size // 50))] = rng.choice(
            np.array([np.nan, np.inf, -np.inf, -0.0], np.float32), max(1, x.size // 50))
    return x


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("width", [16, 8, 4])
def test_global_reduce_equals_the_kernel_read_one_operation_at_a_time(shape, width):
    rng = np.random.default_rng(sum(shape) * width)
    layouts = ["planar", "channels_last"] if len(shape) > 3 else ["planar"]
    for kind in ("zeros", "specials"):
        x = _planted(shape, rng, kind)
        for layout in layouts:
            for reduction in ("avg", "max"):
                with np.errstate(invalid="ignore", over="ignore"):     # inf - inf: NaN, a result here
                    want = ref_global_reduce(x, reduction, layout, width)
                assert_same_bits(global_reduce(x, reduction, layout, width), want,
                                 (shape, kind, layout, reduction, width))


@pytest.mark.parametrize("layout", ["planar", "channels_last"])
def test_global_reduce_of_a_strided_view(layout):
    """A view whose spatial axes are not contiguous (every other column; one column of a wider array) is reduced
    as its copy is."""
    rng = np.random.default_rng(7)
    wide = _planted((2, 18, 9, 10), rng, "specials")
    for x in (wide[..., ::2], wide[..., 3:4], wide[:, ::3]):
        for reduction in ("avg", "max"):
            with np.errstate(invalid="ignore", over="ignore"):
                want = ref_global_reduce(np.ascontiguousarray(x), reduction, layout, 16)
            assert_same_bits(global_reduce(x, reduction, layout, 16), want, (x.shape, x.strides, layout, reduction))
