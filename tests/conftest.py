"""The tests, by feature: core/ (the pooling core), ir/ (the IR front end), onnx_frontend/ (ONNX nodes and model
files), cli/ (the command line, README, docs). helpers/ holds what they share (reference.py, a slow obviously-
correct pooling; the OpenVINO and onnxruntime peers; the IR builders), tools/ the probes run by hand on a
machine. Each test file is marked with the references it is judged against (pyproject.toml: openvino,
onnxruntime, onnx, reference, spec), so that `-m openvino` runs every comparison with OpenVINO."""
import os
import sys

import pytest

_HERE = os.path.dirname(__file__)
for _folder in ("helpers", "tools", "core", "ir", "onnx_frontend", "cli"):     # (test modules import each other)
    sys.path.insert(0, os.path.join(_HERE, _folder))


_SLOW = {"left out": 0}       # the slow tests the marker expression deselected, counted in whichever process collects


def pytest_deselected(items):
    _SLOW["left out"] += sum(1 for item in items if item.get_closest_marker("slow"))


def pytest_sessionfinish(session):
    """Under pytest-xdist (-n) the workers collect, not the controller that writes the summary: tell it."""
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["slow left out"] = _SLOW["left out"]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    _SLOW["left out"] = max(_SLOW["left out"], getattr(node, "workeroutput", {}).get("slow left out", 0))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how to run the slow set when the default run left it out."""
    if _SLOW["left out"]:
        terminalreporter.write_line(f"{_SLOW['left out']} slow tests left out (gigabyte files, long randomized runs):"
                                    f" run them with `python -m pytest -m slow -n auto`")
