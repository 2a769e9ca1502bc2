"""Which layout the CPU plugin gives a global ReduceMean/ReduceMax in its net, from the layer that produces its
input (run --layer reads a whole file for one layer: what it keeps of the rest must stay small)."""
from __future__ import annotations

from array import array

import numpy as np

from ...opdefs import load as load_defs
from ..read import ids


class Producers:
    """What one_layer keeps to find the layout the plugin gives a global ReduceMean/ReduceMax (schemas/openvino.json
    "reduce_layout"): the layers that decide it, and what feeds each layer's input port 0, as numbers in flat
    arrays (16 bytes an edge, 9 a layer, at most MOST of each: a dict of id strings took ~150 bytes an edge and
    grew the peak of run --layer on a 1 GB file by 13 MB). An id that is no plain number is not kept (its walk
    ends there: planar)."""
    MOST = 1 << 18
    GIVES = {t: kind for kind in ("channels_last", "planar")
             for t in load_defs("openvino")["reduce_layout"][f"{kind}_after"]}
    KINDS = ("channels_last", "planar")

    def __init__(self):
        self.to, self.src = array("q"), array("q")          # edge k: layer to[k]'s port 0 is fed by src[k]
        self.ids, self.kind = array("q"), bytearray()        # layer ids[k] decides the layout: KINDS[kind[k]]

    @staticmethod
    def _num(text):
        k = ids.key(text)
        return int(k) if isinstance(k, str) and k.isdigit() and len(k) < 19 else None

    def see(self, el) -> None:
        if el.tag == "edge":
            if el.get("to-port") == "0" and len(self.to) < self.MOST:
                to, src = self._num(el.get("to-layer")), self._num(el.get("from-layer"))
                if to is not None and src is not None:
                    self.to.append(to)
                    self.src.append(src)
        elif el.get("type") in self.GIVES and len(self.ids) < self.MOST:
            lid = self._num(el.get("id"))
            if lid is not None:
                self.ids.append(lid)
                self.kind.append(self.KINDS.index(self.GIVES[el.get("type")]))

    def layout(self, key) -> str:
        """Walking back through input port 0 to the first layer that decides it (a Convolution: channels_last; a
        Parameter, a Reshape, ...: planar); a walk that finds neither (past MOST layers): planar."""
        to, src = np.frombuffer(self.to, np.int64), np.frombuffer(self.src, np.int64)
        lids = np.frombuffer(self.ids, np.int64)
        key, seen = self._num(key), set()
        while key is not None and key not in seen:
            seen.add(key)
            hit = np.flatnonzero(to == key)
            if not hit.size:
                break
            key = int(src[hit[-1]])                       # (a port fed twice: read_model takes the last edge)
            found = np.flatnonzero(lids == key)
            if found.size:
                return self.KINDS[self.kind[found[-1]]]
        return "planar"
