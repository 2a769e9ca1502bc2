"""--fix on a <dim> whose value a comment, a processing instruction or a CDATA section cuts: OpenVINO reads the text
of all its runs as one (measured on the Parameter below, whose declared dims read_model keeps), and --fix rewrites
that value, leaving the markup where it is (it skipped such a <dim> before, and the finding stayed)."""
import pathlib

import pytest

from clitool import cli

SMALL = pathlib.Path(__file__).parent.parent.parent / "examples" / "small_net.xml"
LINE_OF_H = 29          # (0-based) the max3x3 pool's output port 1, H: 8, from 16 by kernel 3, stride 2, pads 1
CUT = ["9<!-- h -->", "<![CDATA[9]]>", "1<!-- h -->6", "<?pi x?>9", "9<![CDATA[1]]>", " 1<?pi x?>2 "]


def _with_dim(tmp_path, line: int, old: str, value: str) -> pathlib.Path:
    lines = SMALL.read_text().splitlines(True)
    assert f"<dim>{old}</dim>" in lines[line]
    lines[line] = lines[line].replace(f"<dim>{old}</dim>", f"<dim>{value}</dim>")
    out = tmp_path / "net.xml"
    out.write_text("".join(lines))
    return out


@pytest.mark.parametrize("value", CUT)
def test_fix_rewrites_a_dim_markup_cuts_and_keeps_the_markup(tmp_path, value):
    path = _with_dim(tmp_path, LINE_OF_H, "8", value)
    r = cli("check", "--fix", path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "output port 1: H " in r.stdout and "-> 8" in r.stdout, r.stdout
    fixed = path.read_text().splitlines()[LINE_OF_H].strip()
    markup = [m for m in ("<!-- h -->", "<?pi x?>", "<![CDATA[") if m in value]
    assert all(m in fixed for m in markup), fixed
    assert fixed.replace("<!-- h -->", "").replace("<?pi x?>", "").replace("<![CDATA[", "").replace("]]>", "") \
        .replace(" ", "") == "<dim>8</dim>", fixed
    assert cli("check", path).returncode == 0


@pytest.mark.parametrize("value", ["1<!-- h -->6", "<![CDATA[1]]>6", "<?pi x?>16", "1<?pi x?>6"])
def test_openvino_reads_the_runs_of_a_dim_as_one_value(tmp_path, value):
    ov = pytest.importorskip("openvino")
    path = _with_dim(tmp_path, 10, "16", value)          # the Parameter's H
    lines = path.read_text().splitlines(True)
    lines[21] = lines[21].replace("<dim>16</dim>", f"<dim>{value}</dim>")     # the pool's input H, as edges join
    path.write_text("".join(lines))
    shape = ov.Core().read_model(str(path)).inputs[0].get_partial_shape()
    assert [d.get_length() for d in shape] == [1, 4, 16, 16]
    assert cli("check", path).returncode == 0
