"""Which layer types read_model builds under each version (irpool/ir/read/opsets.py, schemas/openvino.json
"opset_ops"): small_net's ReLU, on the path to its Result, is given another type and version, and check must say
unknown-opset exactly where read_model refuses the file for that ("Opset opset1 doesn't contain the operation with
type: Foo", "from unsupported opset: experimental"). Other refusals (an op built with the wrong number of inputs)
are not this test's. Measured with OpenVINO 2026.4.1 on AMD EPYC family 26 model 2 (avx512f); the reader's table
does not depend on the CPU."""
import pytest

import irpool
from irbuild import small_net

pytestmark = [pytest.mark.openvino, pytest.mark.reader]
ov = pytest.importorskip("openvino")

_RELU = 'type="ReLU" version="opset1"'


def _cases():
    """For each opset: a type it adds, one the next adds, a made-up one, one in another case; the removals, the
    small opset17, the experimental versions."""
    from irpool.opdefs import load
    added = load("openvino")["opset_ops"]["added"]
    for n in range(1, 17):
        here, later = added.get(f"opset{n}", ()), added.get(f"opset{n + 1}", ())
        for t in [*here[:1], *later[:1], "Foo", "rElU", "Const"]:
            yield t, f"opset{n}"
    for t, v in [("Xor", "opset2"), ("ShuffleChannels", "opset2"), ("RNNCell", "opset2"), ("Relu", "opset17"),
                 ("Convert", "opset17"), ("ShapeOf", "opset17"), ("ErfInv", "opset17"), ("ErfInv", "opset16"),
                 ("Parameter", "opset17"), ("ExperimentalDetectronTopKROIs", "experimental"),
                 ("Proposal", "extension"), ("MVN", "opset1"), ("mvn", "opset1"), ("MVN", "opset2"), ("mvn", "opset2"),
                 ("ReorgYolo", "opset1"), ("reorgyolo", "opset1"), ("ELU", "opset1"), ("TanH", "opset1"), ("SoftMax", "opset8")]:
        yield t, v


@pytest.mark.parametrize("layer_type, version", list(_cases()))
def test_check_refuses_the_types_a_version_lacks_as_read_model_does(layer_type, version, tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(small_net().replace(_RELU, f'type="{layer_type}" version="{version}"'))
    path.with_suffix(".bin").write_bytes(bytes(48))
    try:
        ov.Core().read_model(str(path))
        refused = ""
    except RuntimeError as e:
        refused = " ".join(str(e).split())
    lacks = "doesn't contain the operation" in refused or "from unsupported opset" in refused
    findings = irpool.check(path).findings
    said = [f for f in findings if f.code == "unknown-opset"]
    assert bool(said) == lacks, (refused[-160:], [str(f) for f in said])
    assert all(f.severity == "error" and f.layer_name == "relu" for f in said)
    if version in ("experimental", "extension"):      # (read_model builds these few types there: no warning)
        assert not [f for f in findings if f.code == "extension-opset"]
