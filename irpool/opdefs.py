"""Load the op definitions of schemas/ (installed as irpool.schemas): data, not code, per op and version."""
from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources


@lru_cache(maxsize=None)
def load(name: str) -> dict:
    """schemas/<name>.json as a dict (cached: the files never change while irpool runs)."""
    return json.loads(resources.files("irpool.schemas").joinpath(f"{name}.json").read_text("utf-8"))
