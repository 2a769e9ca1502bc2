"""The command line as the tests run it: irpool in a child process, and where a line is in a file."""
import subprocess
import sys


def line_of(text: str, needle: str) -> int:
    """1-based line of the first line holding `needle`: expected lines come from the file, not from irpool."""
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "irpool", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)
