"""Make the tests' own helpers (reference.py, irbuild.py) importable as plain modules."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how to run the slow set when the default run left it out."""
    deselected = terminalreporter.stats.get("deselected", [])
    slow = sum(1 for item in deselected if item.get_closest_marker("slow"))
    if slow:
        terminalreporter.write_line(f"{slow} slow tests left out (gigabyte files, long randomized runs):"
                                    f" run them with `python -m pytest -m slow`")
