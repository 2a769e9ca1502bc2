"""One layer selector for both front ends (--layer WORD, layer=): the layers whose id is WORD, else those whose
name is WORD (an ONNX node's output names count as its names); a word that is one layer's id and another's
name is an error naming both, never a silent pick."""
from __future__ import annotations

from .errors import IRError


def choose(word: str, by_id: list, by_name: list, describe, file=None) -> list:
    """The layers `word` selects, from those whose id is it and those whose name is it; `describe(layer)` names
    a layer in the error (exit 2) where the two lists hold different layers."""
    names = [x for x in by_name if not any(x is y for y in by_id)]
    if by_id and names:
        raise IRError(f"--layer {word!r} is ambiguous: the id of {describe(by_id[0])} and the name of"
                      f" {describe(names[0])}; select either by its id", file=file, code="no-such-layer")
    return by_id or names
