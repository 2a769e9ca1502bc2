"""Large pools, most of whose windows lie inside the input (no padding), which the core runs by its direct path
(irpool/core/direct.py), and a way to count how many calls actually went that way."""
import contextlib
import importlib

import pytest


def random_case(rng):
    """(kernel, strides, pads_begin, pads_end, input shape): 1 to 3 spatial axes, an input of 256 KB or more,
    windows that overlap or not (stride kernel - 1 to kernel + 1), no padding four times in five."""
    nd = int(rng.integers(1, 4))
    k = [int(rng.integers(1, 4)) for _ in range(nd)]
    s = [max(1, kk + int(rng.integers(-1, 2))) for kk in k]
    spatial = {1: [int(rng.integers(20000, 70000))], 2: [int(v) for v in rng.integers(128, 200, 2)],
               3: [int(v) for v in rng.integers(26, 36, 3)]}[nd]
    pads = [int(rng.integers(0, kk)) for kk in k * 2] if rng.random() < 0.2 else [0] * (2 * nd)
    return k, s, pads[:nd], pads[nd:], [1, int(rng.integers(4, 9))] + spatial


@contextlib.contextmanager
def counting_direct():
    """A list that gets an item for every chunk the direct path computes meanwhile."""
    direct = importlib.import_module("irpool.core.direct").Direct
    calls, chunk = [], direct.chunk
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(direct, "chunk", lambda self, xs, out: calls.append(1) or chunk(self, xs, out))
        yield calls
