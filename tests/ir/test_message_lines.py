"""A finding names the line of what it is about: a <dim> read_model refuses, or reads otherwise than written, on a
layer irpool reads light (a Result here) is said at that <dim>'s line, not its layer's (an audit, stop 60, found the
layer's line)."""
import pathlib

import irpool

SMALL = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"


def _with_result_dim(tmp_path, written: str):
    lines = SMALL.read_text().splitlines(True)
    start = next(k for k, line in enumerate(lines) if 'type="Result"' in line)
    at = next(k for k in range(start, len(lines)) if "<dim>4</dim>" in lines[k])
    lines[at] = lines[at].replace("<dim>4</dim>", f"<dim>{written}</dim>", 1)
    path = tmp_path / "net.xml"
    path.write_text("".join(lines))
    return path, at + 1, start + 1


def test_a_dim_read_model_refuses_is_said_at_its_line(tmp_path):
    path, line, layer_line = _with_result_dim(tmp_path, "x")
    found = [f for f in irpool.check(str(path)).findings if f.code == "bad-structure"]
    assert [f.line for f in found] == [line] and line != layer_line, [str(f) for f in found]


def test_a_dim_read_otherwise_is_said_at_its_line(tmp_path):
    path, line, _ = _with_result_dim(tmp_path, "+4")
    found = [f for f in irpool.check(str(path)).findings if f.code == "lenient-attribute"]
    assert [f.line for f in found] == [line], [str(f) for f in found]


def test_a_kernel_past_any_input_is_not_shown_as_if_written_so(tmp_path):
    """kernel="99999999999,3": irpool computes with 2**31 - 1 in its stead (past any input, as OpenVINO's reading is);
    the bad-shape arithmetic says that number stands for the written one (an audit found it shown as if written)."""
    text = SMALL.read_text()
    assert 'kernel="3,3"' in text
    path = tmp_path / "net.xml"
    path.write_text(text.replace('kernel="3,3"', 'kernel="99999999999,3"', 1))
    findings = irpool.check(str(path)).findings
    lenient = [f for f in findings if f.code == "lenient-attribute"]
    refused = [f for f in findings if f.code == "bad-shape"]
    assert lenient and "reads it as 99999999999" in lenient[0].message, [str(f) for f in findings]
    assert refused and "2147483647 stands for the kernel as written" in refused[0].message, [str(f) for f in findings]
