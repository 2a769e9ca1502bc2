"""Values as written, remembered with what a rule says of them: a file's layer types, element types and shapes are
few, so check's intake (its quick path above all) and its identity checks look each up in one dict step."""
from __future__ import annotations

from ..read.opsets import SHIPPED, builds


class Memo(dict):
    """A value as written -> what `judge` says of it, remembered for the first 4,096 values (a file's layer
    types, element types and shapes are few)."""
    def __init__(self, judge):
        super().__init__()
        self.judge = judge

    def __missing__(self, text):
        said = self.judge(text)
        if len(self) < 4096:
            self[text] = said
        return said


BUILDS = {v: Memo(lambda t, v=v: builds(t, v)) for v in SHIPPED}   # version -> {type as written -> bool}


class Memos:
    """What a net's check remembers of layers written alike: a clean pooling or Parameter layer's content key ->
    (its ports, explain's record of it, the type it was judged on); what a pool's attributes were read as."""

    def __init__(self):
        self.clean, self.readings = {}, {}

    def keep_clean(self, key, known) -> None:
        """A layer written as `key` (layer_edge.content_key) gave no finding: `known`, (ports, record, type), for the
        next one written alike; the first _CLEAN_KEYS of them, then anew (a file of ever-new layers: flat memory)."""
        if len(self.clean) >= _CLEAN_KEYS:
            self.clean.clear()
        self.clean[key] = known


_CLEAN_KEYS = 4096        # content keys remembered as clean, at most
