"""The tests, by feature: core/ (the pooling core), ir/ (the IR front end), onnx_frontend/ (ONNX nodes and model
files), cli/ (the command line, README, docs). helpers/ holds what they share (reference.py, a slow obviously-
correct pooling; the OpenVINO and onnxruntime peers; the IR builders), tools/ the probes run by hand on a
machine. Each test file is marked with the references it is judged against (pyproject.toml: openvino,
onnxruntime, onnx, reference, spec), so that `-m openvino` runs every comparison with OpenVINO."""
import os
import sys

_HERE = os.path.dirname(__file__)
for _folder in ("helpers", "tools", "core", "ir", "onnx_frontend", "cli"):     # (test modules import each other)
    sys.path.insert(0, os.path.join(_HERE, _folder))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how to run the slow set when the default run left it out."""
    deselected = terminalreporter.stats.get("deselected", [])
    slow = sum(1 for item in deselected if item.get_closest_marker("slow"))
    if slow:
        terminalreporter.write_line(f"{slow} slow tests left out (gigabyte files, long randomized runs):"
                                    f" run them with `python -m pytest -m slow`")
