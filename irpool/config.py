"""[tool.irpool] of the nearest pyproject.toml, from the current folder upward: ignore, strict, exclude, cpu.
The command line wins over it; a file that is not TOML, or keys of the wrong kind, stop the run (exit 2)."""
from __future__ import annotations

import os
import sys

from .codes import known
from .cpu import choose
from .errors import IRError

if sys.version_info >= (3, 11):
    import tomllib
else:                                   # pragma: no cover (Python 3.9/3.10)
    import tomli as tomllib

KEYS = {"ignore": "a list of finding codes", "strict": "true or false", "exclude": "a list of globs",
        "cpu": "a CPU tier: host, all, or a tier's name"}


def nearest(start: str | None = None) -> str | None:
    """The pyproject.toml in `start` (default: the current folder) or the closest folder above it."""
    folder = os.path.abspath(start or os.getcwd())
    while True:
        path = os.path.join(folder, "pyproject.toml")
        if os.path.isfile(path):
            return path
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def read(path: str | None) -> dict:
    """{ignore: set, strict: bool, exclude: [glob], file: path} from [tool.irpool]; {} without one."""
    if path is None:
        return {}
    try:
        with open(path, "rb") as f:
            doc = tomllib.load(f)
    except OSError as e:
        raise IRError(f"{path}: cannot read it: {e.strerror or e}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise IRError(f"{path}: not valid TOML: {e}") from None
    table = doc.get("tool", {}).get("irpool") if isinstance(doc.get("tool"), dict) else None
    if table is None:
        return {}
    where = f"{path}: [tool.irpool]"
    if not isinstance(table, dict):
        raise IRError(f"{where} is not a table")
    for key, value in table.items():
        if key not in KEYS:
            raise IRError(f"{where}: unknown key {key!r}; the keys are {', '.join(KEYS)}")
        ok = isinstance(value, bool) if key == "strict" else isinstance(value, str) if key == "cpu" else \
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        if not ok:
            raise IRError(f"{where}: {key} must be {KEYS[key]}, not {value!r}")
    out = dict(file=path, strict=table.get("strict", False), exclude=list(table.get("exclude", [])))
    out["ignore"] = known(table.get("ignore", []), f"{where} ignore")
    if "cpu" in table:
        try:
            out["cpu"] = choose(table["cpu"])
        except IRError as e:
            raise IRError(f"{where}: cpu: {e.reason}") from None
    return out
