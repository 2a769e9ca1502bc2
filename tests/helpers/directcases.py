"""Large pools the core runs by its direct path (irpool/core/direct.py): windows inside the input, or stride 1 with
"same" padding, whose edge windows direct.py redoes; and a way to count how many calls actually went that way."""
import contextlib
import importlib

import pytest


def random_case(rng):
    """(kernel, strides, pads_begin, pads_end, input shape): 1 to 3 spatial axes, an input of 256 KB or more;
    one time in four stride 1 with odd kernels and "same" padding (k // 2 each side, the output as large as the
    input), else windows that overlap or not (stride kernel - 1 to kernel + 1), no padding four times in five."""
    nd = int(rng.integers(1, 4))
    spatial = {1: [int(rng.integers(20000, 70000))], 2: [int(v) for v in rng.integers(128, 200, 2)],
               3: [int(v) for v in rng.integers(26, 36, 3)]}[nd]
    shape = [1, int(rng.integers(4, 9))] + spatial
    if rng.random() < 0.25:
        k = [int(rng.choice([1, 3, 5])) for _ in range(nd)]
        return k, [1] * nd, [kk // 2 for kk in k], [kk // 2 for kk in k], shape
    k = [int(rng.integers(1, 4)) for _ in range(nd)]
    s = [max(1, kk + int(rng.integers(-1, 2))) for kk in k]
    pads = [int(rng.integers(0, kk)) for kk in k * 2] if rng.random() < 0.2 else [0] * (2 * nd)
    return k, s, pads[:nd], pads[nd:], shape


@contextlib.contextmanager
def counting_direct():
    """A list that gets an item for every chunk the direct path computes meanwhile."""
    direct = importlib.import_module("irpool.core.direct").Direct
    calls, chunk = [], direct.chunk
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(direct, "chunk", lambda self, xs, out, op: calls.append(1) or chunk(self, xs, out, op))
        yield calls
