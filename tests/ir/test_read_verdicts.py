"""The verdict is OpenVINO's on what its reader reads otherwise than a schema would (issue 51 item 4), against
read_model + compile_model on this machine's CPU in child processes (none of these depends on the CPU):

- a layer's children by name, in any order and number, the ports of its <input>/<output> by name, a <dim> by
  name in its <port> (ir_deserializer.cpp: parse_generic_params): a <dim> outside its <port>, an <output> first,
  a stray element, are no structure error (the records' verdict/m00228, m00466, m01147 and variants);
- a kernel read into size_t: "-3" is 2**64 - 3, compiled on a dynamic axis and refused on a static one; 0 and
  -1 refused on both.
Declared dims OpenVINO ignores are left aside, as test_differential.py does (irpool_verdict).
"""
import glob
import os
import sys

import pytest

from irbuild import net_xml
from ovdiff import openvino_verdicts
from test_differential import irpool_verdict

pytestmark = [pytest.mark.openvino]
pytest.importorskip("openvino")

_ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
# ../shared/cpu-records beside the checkout (or beside the folder of worktrees it is in), or $IRPOOL_CPU_RECORDS
_RECORDS = next((d for d in (os.environ.get("IRPOOL_CPU_RECORDS", ""), os.path.join(_ROOT, "..", "shared", "cpu-records"),
                             os.path.join(_ROOT, "..", "..", "shared", "cpu-records")) if d and os.path.isdir(d)), "")
_MISPLACED = ("m00228", "m00466", "m01147")      # the records' "xml/misplace" files


def _record_files() -> list:
    found = []
    for folder in glob.glob(os.path.join(_RECORDS, "*", "verdict")) if _RECORDS else ():
        found += [os.path.join(folder, f"{case}.xml") for case in _MISPLACED]
    return [f for f in found if os.path.exists(f)]


def _cfg(**kw) -> dict:
    c = dict(op="AvgPool", version=14, shape=[1, 2, 8, 8], dtype="float32", strides=[1, 1], pads_begin=[0, 0],
             pads_end=[0, 0], kernel=[2, 2], rounding_type="floor", auto_pad="explicit", exclude_pad=False)
    c.update(kw)
    return c


def _structure_variants() -> dict:
    """A Parameter -> AvgPool -> Result net with its pool's children moved about."""
    base = net_xml(_cfg(), out_dims=[1, 2, 7, 7])
    pool = base[base.index('<layer id="1"'):base.index("</layer>", base.index('<layer id="1"')) + 8]
    data, rest = pool.split("<input>", 1)
    inp, out = ("<input>" + rest).split("<output>", 1)
    out = "<output>" + out[:-len("</layer>")]
    head = data[:data.index("<data")]
    data = data[len(head):]
    moved = {
        "output first": head + out + data + inp + "</layer>",
        "data last": head + inp + out + data + "</layer>",
        "dim outside port": head + data + inp + out.replace("</port></output>", "</port><dim>5</dim></output>")
        + "</layer>",
        "stray element in input": head + data + inp.replace("<input>", "<input><note/>") + out + "</layer>",
        "port under layer": head + data + '<port id="9"><dim>1</dim></port>' + inp + out + "</layer>",
        "text in layer": head + data + "some text" + inp + out + "</layer>",
        "second output": head + data + inp + out + '<output><port id="5" precision="FP32"/></output></layer>',
        "port without id": head + data + inp.replace('<port id="0"', "<port") + out + "</layer>",
    }
    return {name: base.replace(pool, text) for name, text in moved.items()}


def _kernel_variants() -> dict:
    out = {}
    for k in ("-3", "-2", "-1", "0", "2147483648", "9223372036854775807"):
        for name, shape in (("static", [1, 2, 8, 8]), ("dynamic", [1, 2, -1, 8])):
            out[f"kernel {k} {name}"] = net_xml(_cfg(kernel=[k, 3], shape=shape))
    out["kernel -3 dynamic, MaxPool-8 dilated"] = net_xml(_cfg(op="MaxPool", version=8, kernel=[-3, 3], dilations=[2, 1],
                                                                index_element_type="i64", axis=0, shape=[1, 2, -1, 8]))
    out["kernel -3 dynamic, same_upper"] = net_xml(_cfg(kernel=[-3, 3], shape=[1, 2, -1, 8], auto_pad="same_upper"))
    out["kernel -3 dynamic, exclude-pad"] = net_xml(_cfg(kernel=[-3, 3], shape=[1, 2, -1, 8], exclude_pad=True))
    return out


def _compare(paths, names) -> list:
    verdicts = openvino_verdicts(paths)
    disagree = []
    for path, name, (theirs, detail) in zip(paths, names, verdicts):
        mine, findings = irpool_verdict(path)
        if mine != theirs:
            disagree.append((name, theirs, detail if theirs != "ok" else "", mine, findings[:3]))
    return disagree


def test_structure_as_read_model_reads_it(tmp_path):
    files = {**_structure_variants(), **_kernel_variants()}
    paths, names = [], []
    for i, (name, text) in enumerate(files.items()):
        path = tmp_path / f"v{i}.xml"
        path.write_text(text)
        paths.append(str(path))
        names.append(name)
    for rec in _record_files():
        paths.append(rec)
        names.append(os.path.relpath(rec, _RECORDS))
    disagree = _compare(paths, names)
    assert not disagree, "\n".join(map(str, disagree))
    verdicts = dict(zip(names, (v for v, _ in openvino_verdicts(paths))))
    # (the variants show both verdicts, so that the test could fail either way)
    assert verdicts["kernel -3 dynamic"] == "ok" and verdicts["kernel -3 static"] == "refused"
    assert verdicts["output first"] == "ok" and verdicts["port without id"] == "refused"


@pytest.mark.skipif(not _record_files(), reason="no CPU records with verdict files in ../shared/cpu-records")
def test_the_records_misplaced_files_have_no_structure_error():
    import irpool
    for rec in _record_files():
        codes = {f.code for f in irpool.check(rec).errors()}
        assert "bad-structure" not in codes, (rec, codes)


def test_a_huge_kernel_on_a_dynamic_axis_is_run_as_openvino_infers_it(tmp_path):
    """OpenVINO compiles it and refuses every inference (the kernel is larger than any input): irpool run refuses."""
    import numpy as np

    import irpool
    path = tmp_path / "k.xml"
    path.write_text(net_xml(_cfg(kernel=[-3, 3], shape=[1, 2, -1, 8])))
    x = np.zeros((1, 2, 8, 8), np.float32)
    code = ("import sys, numpy as np, openvino as ov; c = ov.Core().compile_model(sys.argv[1], 'CPU');"
            " c.infer_new_request({0: np.zeros((1, 2, 8, 8), np.float32)})")
    import subprocess
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "Kernel after dilation" in r.stderr
    with pytest.raises(irpool.IRError, match="kernel"):
        irpool.run(str(path), {"x": x})
