"""explain and check speak of one frame per sentence: every cell number is the input's (its first cell 0, the
begin padding's negative), in the arithmetic as in the drawing; the AvgPool divisor warning gives the two divisors
of one window. Expected numbers come from torch's and the runtimes' outputs, never from irpool: torch's output
length says which window ceil_mode drops (its start, output length * stride - pad), and an all-ones input makes
each runtime's divisor visible (a window's in-input taps over its output)."""
import re

import numpy as np
import pytest

from clitool import cli
from exports import convert, export

pytestmark = [pytest.mark.openvino, pytest.mark.onnxruntime, pytest.mark.onnx]


@pytest.mark.parametrize("kind", ["onnx", "xml"])
def test_the_dropped_window_is_the_same_input_cell_in_the_arithmetic_and_the_drawing(tmp_path, kind):
    """torch ceil_mode, kernel 2, stride 2, pad 1 on 11 cells: torch gives 6 windows, so window 6 would start at
    input cell 6 * 2 - 1 = 11, past the last cell 10; the arithmetic and the drawing both say cell 11. The IR
    (openvino.convert_model) of an AvgPool so exported says the same (rounding_type ceil_torch)."""
    torch = pytest.importorskip("torch")
    k, s, p, length = 2, 2, 1, 11
    if kind == "onnx":
        fn = lambda x: torch.nn.functional.max_pool2d(x, k, s, padding=p, ceil_mode=True)  # noqa: E731
    else:
        fn = lambda x: torch.nn.functional.avg_pool2d(x, k, s, padding=p, ceil_mode=True)  # noqa: E731
    path = tmp_path / "m.onnx"
    export(fn, (1, 1, length, length), path, input_names=["x"])
    if kind == "xml":
        path = convert(path)
    out = fn(torch.zeros(1, 1, length, length)).shape[-1]
    start = out * s - p                                                     # torch's dropped window, input frame
    assert start >= length                                                  # (past the input's last cell)
    text = cli("explain", path).stdout
    line = next(x for x in text.splitlines() if x.strip().startswith("H: ceil("))
    assert f"would start at input cell {out} * {s} - {p} = {start}, past the input's last cell {length - 1}: {out}" \
        in line, line
    drawn = next(x for x in text.splitlines() if x.strip().startswith(f"window {out} (?)"))
    assert f"cells {start}..{start + k - 1}: starts at cell {start}, in the end padding" in drawn, drawn
    assert re.search(r"H cells -1\.\.\d+ .*\(o input from cell 0, \. padding\)", text), text
    numbers = {int(n) for n in re.findall(r"start(?:s)? at (?:input )?cell (?:\d+ \* \d+ - \d+ = )?(\d+)", text)}
    assert numbers == {start}, text                                       # no other frame's number anywhere


def test_the_avgpool_divisor_warning_gives_both_divisors_of_the_window(tmp_path):
    """count_include_pad, kernel 3x3, stride 2, pad 1, ceil_mode on 6x6: the last row of windows runs past the
    end padding. onnxruntime divides such a window by the taps inside the padded input, OpenVINO (its ONNX
    frontend, and the IR it converts) by the whole kernel: measured on all-ones input, 6 and 9, as the warning
    says."""
    torch = pytest.importorskip("torch")
    ort = pytest.importorskip("onnxruntime")
    ov = pytest.importorskip("openvino")
    path = tmp_path / "avg.onnx"
    export(lambda x: torch.nn.functional.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=True),
           (1, 1, 6, 6), path, input_names=["x"])
    ones = np.ones((1, 1, 6, 6), np.float32)
    y_ort = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, {"x": ones})[0]
    y_ov = ov.Core().compile_model(str(path), "CPU")(ones)[0]
    assert y_ort.shape == y_ov.shape == (1, 1, 4, 4)
    # the last row's window 1: H taps 5, 6, 7 (cell 5 in the input), W taps 1, 2, 3 (all in it): 3 input taps
    in_taps = 1 * 3
    ort_divisor, ov_divisor = round(in_taps / y_ort[0, 0, 3, 1]), round(in_taps / y_ov[0, 0, 3, 1])
    assert (ort_divisor, ov_divisor) == (6, 9)
    r = cli("check", path)
    (short,) = [line for line in r.stdout.splitlines() if "[value-divergence]" in line]
    assert short.count("'/AveragePool' (#0, AveragePool)") == 1, short          # (once, not once per axis)
    r = cli("explain", path)
    (h,) = [line for line in r.stdout.splitlines() if "value-divergence" in line and "H: the last window" in line]
    assert "input cells 5..7" in h and "end padding (cell 6)" in h, h
    assert f"onnxruntime divides such a window by the taps inside the padded input, 2 * 3 = {ort_divisor}" in h, h
    assert f"OpenVINO by the whole kernel's 3 * 3 = {ov_divisor} taps" in h, h
