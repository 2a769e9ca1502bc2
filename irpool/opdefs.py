"""Load the op definitions of schemas/ (installed as irpool.schemas): data, not code, per op and version."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from pathlib import Path

# A source checkout keeps the data beside the package (the top-level schemas/); an installed copy has it as
# irpool.schemas. The checkout's folder wins where it is there: run from the repository root after `pip install .`,
# the source irpool/ shadows the installed one and has no irpool/schemas of its own.
_ROOT = Path(__file__).resolve().parent.parent
_BESIDE = _ROOT / "schemas" if (_ROOT / "pyproject.toml").is_file() else None


def read_bytes(filename: str) -> bytes:
    """schemas/<filename>, from the checkout the package was imported from, else from the installed package."""
    if _BESIDE is not None and (_BESIDE / filename).is_file():
        return (_BESIDE / filename).read_bytes()
    return resources.files("irpool.schemas").joinpath(filename).read_bytes()


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """schemas/<name>.json as a dict (cached: the files never change while irpool runs)."""
    return json.loads(read_bytes(f"{name}.json").decode("utf-8"))
