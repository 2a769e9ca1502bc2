"""The opsets read_model knows (schemas/openvino.json "opset_names", "opset_ops"): which versions it ships and
which layer types it builds under each, as measured on OpenVINO 2026.4.1; and the few layers it crashes building
("build_crashes")."""
from __future__ import annotations

from ...opdefs import load

SHIPPED = frozenset(load("openvino")["opset_names"]["shipped"])       # the opsets OpenVINO ships
EXPERIMENTAL = ("experimental", "extension")      # versions read_model also takes, for a few types


def _tables() -> dict:
    """version -> the lower-case names of the types read_model builds under it (in any case)."""
    d = load("openvino")["opset_ops"]
    every, tables, cur = {t.lower() for t in d["every_opset"]}, {}, set()
    for n in range(1, 17):
        v = f"opset{n}"
        cur = (cur | {t.lower() for t in d["added"].get(v, ())}) - {t.lower() for t in d["removed"].get(v, ())}
        tables[v] = frozenset(cur | every)
    tables["opset17"] = frozenset({t.lower() for t in d["opset17"]} | every)
    for v in EXPERIMENTAL:
        tables[v] = frozenset(t.lower() for t in d["experimental"])
    for v, names in d["exact_case"].items():
        tables[v] -= {t.lower() for t in names}
    return tables


TYPES = _tables()
EXACT = {v: frozenset(names) for v, names in load("openvino")["opset_ops"]["exact_case"].items()}


def builds(layer_type: str, version: str) -> bool:
    """Whether read_model builds a layer of `layer_type` under `version` (one of TYPES' versions)."""
    return layer_type.lower() in TYPES[version] or layer_type in EXACT.get(version, ())


CRASHES = {k: v for k, v in load("openvino")["build_crashes"].items() if not k.startswith("_")}
#   type in lower case -> the opsets whose version of it read_model crashes building, and what in the layer does it


def build_crash(el, layer_type: str) -> str | None:
    """Why read_model crashes building this <layer> (a segmentation fault: Broadcast-1 with fewer than two input
    ports, Assign-6 or ReadValue-6 without a variable_id), or None."""
    crash = CRASHES.get((layer_type or "").lower())
    if crash is None or el.get("version") not in crash["opsets"]:
        return None
    inputs = next((len(h) for h in el.iterchildren("input")), 0)         # (the first <input>: the reader's)
    data = el.find("data")
    if "inputs_below" in crash and inputs >= crash["inputs_below"] or "without" in crash and data is not None \
            and data.get(crash["without"]) is not None:
        return None
    return f"{crash['op']} {crash['why']}: read_model crashes building it (a segmentation fault, OpenVINO 2026.4.1)"
