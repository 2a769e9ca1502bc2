"""What OpenVINO reads and compiles but its CPU plugin fails to run, whatever the input: said by check as a
fails-at-inference warning (docs/design.md: an error is what read_model or compile_model refuses) where the part
of the layer that fails is used, and refused by run, which computes it. The rule is data (schemas/openvino.json
"indices_need_dilations"), with the source line that decides it."""
from __future__ import annotations

from ...opdefs import load

CODE = "fails-at-inference"


def indices_refusal(pl) -> str | None:
    """Why the plugin fails running this MaxPool (a layers.PoolLayer) when its indices output is used: a MaxPool-8
    or -14 whose index_element_type the reference does not run, or without dilations, or with none written; None
    where it runs."""
    return _index_type_refusal(pl) or _dilations_refusal(pl)


def dynamic_bins_refusal(fl) -> str | None:
    """Why the plugin fails running this adaptive pool (a family.FamilyLayer): an output_shape value of -1, a dynamic
    dim it cannot allocate; None where it runs."""
    rule = load("openvino")["adaptive_dynamic_bins"]
    if fl.op not in rule["ops"] or -1 not in fl.out_sizes:
        return None
    return (f"{fl.op} with output_shape {list(fl.out_sizes)}: -1 is a dynamic dim, and OpenVINO 2026.4.1 reads and"
            f" compiles it, and every inference fails (\"{rule['message']}\", {rule['source']})")


def _index_type_refusal(pl) -> str | None:
    rule = load("openvino")["indices_run_types"]
    if pl.op not in rule["ops"] or pl.outputs != 2 or pl.index_type in rule["types"]:
        return None
    return (f"{pl.op} with index_element_type {pl.index_type} whose indices output is used: OpenVINO 2026.4.1 reads"
            f" and compiles it, and every inference fails (\"{rule['message']}\", {rule['source']}; it runs"
            f" {', '.join(rule['types'])} indices); write index_element_type=\"i32\" or \"i64\"")


def _dilations_refusal(pl) -> str | None:
    rule = load("openvino")["indices_need_dilations"]
    if pl.op not in rule["ops"] or pl.outputs != 2 or (pl.layer.data.get("dilations") or "").strip():
        return None
    written = "without dilations" if "dilations" not in pl.layer.data else "with an empty dilations list"
    n = len(pl.spec.kernel)
    return (f"{pl.op} {written} whose indices output is used: OpenVINO 2026.4.1 reads and compiles it, and every"
            f" inference fails (\"{rule['message']}\", {rule['source']}: the plugin runs it by the reference"
            f" MaxPool, which takes the missing dilations as an empty list); write dilations=\"{','.join(['1'] * n)}\"")
