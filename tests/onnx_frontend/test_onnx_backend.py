"""Conformance: every MaxPool, AveragePool and LpPool case of the ONNX backend node tests through irpool.onnx.run."""
import warnings

import numpy as np
import pytest

import irpool.onnx

pytestmark = [pytest.mark.onnx, pytest.mark.onnxruntime]

onnx = pytest.importorskip("onnx")


def _cases():
    from onnx.backend.test.case.node import collect_testcases
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # collecting builds every op's data, some of it overflows
        cases = collect_testcases(None)
    out = []
    for case in cases:
        nodes = list(case.model.graph.node)
        if len(nodes) == 1 and nodes[0].op_type in irpool.onnx.OPS:
            out.append(case)
    return out


CASES = _cases()


def test_every_pooling_op_has_cases():
    ops = {c.model.graph.node[0].op_type for c in CASES}
    # the suite has no GlobalLpPool case (test_onnx_ort.py compares it with onnxruntime's LpPool)
    assert ops == set(irpool.onnx.OPS) - {"GlobalLpPool"} and len(CASES) >= 40
    assert len([c for c in CASES if c.name.startswith("test_global")]) == 4


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_backend_case(case):
    node = case.model.graph.node[0]
    opset = next(o.version for o in case.model.opset_import if o.domain in ("", "ai.onnx"))
    for inputs, expected in case.data_sets:
        got = irpool.onnx.run(node, inputs[0], opset=opset, outputs=len(expected))
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert g.dtype == e.dtype and g.shape == e.shape, (g.dtype, e.dtype, g.shape, e.shape)
            if e.dtype.kind == "f":
                np.testing.assert_allclose(g, e, rtol=case.rtol, atol=case.atol)   # the suite's own tolerances
            else:
                np.testing.assert_array_equal(g, e)
