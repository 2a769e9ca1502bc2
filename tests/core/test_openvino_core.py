"""The core's OpenVINO mode against the OpenVINO runtime itself (CPU plugin, f32 inference precision)."""
import numpy as np
import pytest

from irpool import IRError
from irpool.core import PoolSpec, pool
from ovbuild import assert_same_as_openvino, ov_model, ov_outputs, random_config, random_input

pytestmark = [pytest.mark.openvino]

ov = pytest.importorskip("openvino")


def spec_of(cfg: dict) -> PoolSpec:
    """The test's own translation of an OpenVINO layer into the core's terms."""
    return PoolSpec(kernel=cfg["kernel"], strides=cfg["strides"], dilations=cfg.get("dilations"),
                    pads_begin=cfg["pads_begin"], pads_end=cfg["pads_end"], rounding=cfg["rounding_type"],
                    auto_pad=cfg["auto_pad"], reduction="max" if cfg["op"] == "MaxPool" else "avg",
                    count="exclude_pad" if cfg.get("exclude_pad") else "include_openvino",
                    index_axis=cfg.get("axis", 0),
                    index_dtype={"i32": "int32", "i64": "int64"}[cfg.get("index_element_type", "i64")])


def test_seed_example_1_erratum_matches_runtime():
    x = np.array([[[[-1, 2, 3], [4, 5, -6], [-7, 8, 9]]]], np.float32)
    cfg = dict(op="MaxPool", version=8, shape=[1, 1, 3, 3], kernel=[2, 2], strides=[1, 1], dilations=[1, 1],
               pads_begin=[1, 1], pads_end=[1, 1], auto_pad="explicit", rounding_type="floor", dtype="float32",
               index_element_type="i64", axis=0)
    y, i = ov_outputs(cfg, x)
    assert (y[0, 0, 1, 3], i[0, 0, 1, 3]) == (3, 2)       # the seed prints -6 and 5


@pytest.mark.parametrize("seed", range(6))
def test_core_matches_openvino_random(seed):
    rng = np.random.default_rng(1000 + seed)
    compared = refused = 0
    for _ in range(60):
        cfg = random_config(rng)
        try:
            ov_model(cfg)
        except RuntimeError:
            refused += 1          # OpenVINO refuses the layer: its refusals are checked in the IR tests
            continue
        x = random_input(rng, cfg)
        want = ov_outputs(cfg, x)
        spec = spec_of(cfg)
        got = list(pool(x, spec, indices=True))[: len(want)] if cfg["op"] == "MaxPool" else [pool(x, spec)]
        assert_same_as_openvino(got, want, cfg)
        compared += 1
    assert compared >= 30, (compared, refused)


def test_core_refuses_what_does_not_fit_like_openvino():
    cfg = dict(op="MaxPool", version=8, shape=[1, 1, 3], kernel=[3], strides=[1], dilations=[2],
               pads_begin=[0], pads_end=[0], auto_pad="explicit", rounding_type="floor", dtype="float32",
               index_element_type="i64", axis=0)
    with pytest.raises(RuntimeError):
        ov_model(cfg)
    with pytest.raises(IRError, match="does not fit"):
        pool(np.zeros(cfg["shape"], np.float32), spec_of(cfg))
