"""The buffers a thread pools its chunks in, with every numpy view a chunk needs made once, kept between calls:
allocating megabytes anew on every call costs page faults that, measured, took longer than the pooling."""
from __future__ import annotations

import math
import threading
from collections import OrderedDict

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .direct import reduce_axis as direct_reduce_axis
from .geometry import Geometry, code_dtype, geometry
from .layout import Layout, fold, word_copy
from .ties import first_wins

KEEP_WORKSPACES, KEEP_BYTES = 8, 32 << 20     # workspaces kept between calls: at most this many and bytes
_WORKSPACES: OrderedDict = OrderedDict()
_WORKSPACES_LOCK = threading.Lock()


def release_workspaces() -> None:
    """Free the cached workspaces (at most KEEP_BYTES, 32 MB) and geometries."""
    with _WORKSPACES_LOCK:
        _WORKSPACES.clear()
    geometry.cache_clear()


def workspace(run, planes: int, kind=None):
    """This thread's workspace (a Workspace, or `kind`) for chunks of `planes` planes of this geometry:
    from the cache, or new.

    Kept between calls (at most KEEP_WORKSPACES and KEEP_BYTES): allocating megabytes anew on every
    call costs page faults that, measured, took longer than the pooling itself."""
    key = (threading.get_ident(), planes, run.g, run.exact_first, kind)
    with _WORKSPACES_LOCK:
        ws = _WORKSPACES.get(key)
        if ws is not None:
            _WORKSPACES.move_to_end(key)
            return ws
    ws = Workspace(run, planes) if kind is None else kind(run.g, planes)
    with _WORKSPACES_LOCK:
        _WORKSPACES[key] = ws
        while len(_WORKSPACES) > 1 and (len(_WORKSPACES) > KEEP_WORKSPACES
                                        or sum(w.nbytes for w in _WORKSPACES.values()) > KEEP_BYTES):
            _WORKSPACES.popitem(last=False)
    return ws


class Workspace:
    """One thread's buffers for chunks of `planes` planes, with every numpy view a chunk needs made once.

    Keyed by the Geometry (and thread, planes): a workspace reads only the geometry from `run`, and
    the input's strides, which follow from the geometry because the input is made C-contiguous.

    The phase buffer starts as the identity and only input cells are ever written, so padding stays
    padding from chunk to chunk. `passes` are closures, each a handful of numpy calls over whole blocks.
    """

    def __init__(self, run, planes: int):
        lay = self.lay = Layout(run.g.axes, planes, run.g.q)
        z, slack = lay.z, lay.slack
        self.buf = np.full(lay.blocks * z + slack, run.g.identity, dtype=run.g.ctype)
        plan_ = lay.fill_plan()
        # channels-first planes have q = 1: drop that axis so a strided spatial axis is the last one
        drop = (0,) if lay.q == 1 else ()
        self.fills = []
        x = run.x[:planes]
        for combo, dst, src in plan_:
            dst_view, src_view = lay.block_view(self.buf, combo)[dst + drop], x[src + drop]
            words = None
            if run.g.ctype == run.x.dtype and x.nbytes >= run.g.t.word_copy_bytes:
                how = word_copy(dst_view, src_view.shape, src_view.strides, src_view.itemsize)
                if how is not None:
                    offset = src_view.__array_interface__["data"][0] - x.__array_interface__["data"][0]
                    words = how + (src_view.shape, src_view.strides, offset)
            self.fills.append((dst_view, src + drop, words))
        if run.g.pre_offsets is not None:     # the chunk, its last axis reduced; a word of slack for word reads
            self.pre = np.empty(x.size + 8, dtype=x.dtype)
        self.passes = []
        n = len(run.g.axes)
        if run.exact_first:
            inside = np.zeros(self.buf.shape, dtype=bool)
            for combo, dst, _ in plan_:
                lay.block_view(inside, combo)[dst] = True
            res, code = self._first(run, inside)
        else:
            res, code = self.buf, None
            for group in ([(i,) for i in reversed(range(n))] if run.g.separable else [tuple(range(n))]):
                res = self._pass(run, res, group)
            if run.g.want_indices:
                code = self._winners(run, res[:z])
        self.result, self.flat_result = lay.grid(res), res[:z]
        self.nbytes = self.buf.nbytes * (3 if run.g.want_indices else 2)    # buffer, passes, winners: roughly
        if run.g.want_indices:
            self.code = lay.grid(code)
            self._index_tables(run.g, run.x.size, planes)

    def pre_reduce(self, xs: np.ndarray, g: Geometry, op) -> np.ndarray:
        """xs (a chunk) with its last axis reduced at every position: position i of a row holds the maximum of
        the window starting at i - pad_begin. Computed on the flat chunk, where a window near a row's end reads
        into the next row; the windows the phase buffer picks that reach the padding are then redone from their
        landing taps, a strided call each (no window is picked anywhere else such a read lands)."""
        shape = (-1, g.plans[-1].length, 1)         # (channels-first: the last axis of xs is q = 1)
        direct_reduce_axis(op, xs.reshape(-1), self.pre, xs.size, g.pre_offsets, shape, g.pre_edges, g.identity)
        return self.pre[:xs.size].reshape(xs.shape)

    def _index_tables(self, g: Geometry, size: int, planes: int):
        """What turns tap codes into flat indices for a chunk of `planes` planes starting at plane 0.

        table[k - t] is the t-th landing tap's (row-major) offset from the window start in flat input
        elements; table[0] (no winner) is so negative that start + it stays below 0."""
        n, lay = len(g.axes), self.lay
        offsets = [sum(t * g.plans[i].dilation * g.index.mult[i] for i, t in enumerate(ts))
                   for ts, _, _ in lay.taps(tuple(range(n)))]
        plane = math.prod(p.length for p in g.plans)
        # int32 when every index and window start fits with room: half the bytes to move
        small = size < 2 ** 30 and int(g.index.start.min()) > -(2 ** 29)
        itype = np.dtype(np.int32 if small else np.int64)
        self.table = np.array([-(2 ** 30 if small else 2 ** 62)] + offsets[::-1], dtype=itype)
        p_ = np.arange(planes, dtype=itype).reshape((planes,) + (1,) * (n + 1))
        if g.spec.layout == "channels_last":
            self.nc = (p_ * lay.q + np.arange(lay.q, dtype=itype)) * plane
        else:
            self.nc = p_ * plane
        self.per_plane = plane * lay.q
        self.base = (g.index.start.astype(itype) + self.nc).astype(itype)
        self.flat = np.empty(self.result.shape, dtype=itype)

    def _views(self, src, group, lead):
        """A (lead, Z) view of src per landing tap of the axes in `group`, in row-major tap order.

        src holds (lead, blocks of the group's axes, Z) + slack; every view stays inside it."""
        z = self.lay.z
        gblocks = math.prod(len(self.lay.axes[i].residues) for i in group)
        return [as_strided(src[block * z + shift:], shape=(lead, z), strides=(gblocks * z * src.itemsize, src.itemsize))
                for _, block, shift in self.lay.taps(group)]

    def _pass(self, run, src, group):
        """Reduce the trailing phase axes in `group`: a (lead blocks of Z + slack) result."""
        z, slack = self.lay.z, self.lay.slack
        lead = math.prod(len(a.residues) for a in self.lay.axes[:group[0]])
        res = np.full(lead * z + slack, run.g.identity, dtype=src.dtype)
        r2 = res[:lead * z].reshape(lead, z)
        vs = self._views(src, group, lead)
        # a max by the chunk's op, its taps in the order that keeps the first of tied zeros (ties.py); a result
        # below lowest is lifted to lowest at the very end
        add = run.g.spec.reduction != "max"
        vs = vs if add else first_wins(vs, src.dtype)
        identity = run.g.identity             # (closures keep no reference to the run and its arrays)

        def step(op):                       # (no tap of these axes lands anywhere: every window is empty)
            fold(np.add if add else op, vs, r2, identity)
        self.passes.append(step)
        return res

    def _winners(self, run, best):
        """Which tap won each window: the first one (row-major) equal to the maximum, if that is above
        lowest. Blends, not masked writes: numpy's masked loops cost 4 ns an element on random masks."""
        views = [v[0] for v in self._views(self.buf, tuple(range(len(run.g.axes))), 1)]
        k = len(views)
        cdt = code_dtype(k)
        z = self.lay.z
        code, mark, eq = np.empty(z, dtype=cdt), np.empty(z, dtype=cdt), np.empty(z, dtype=bool)
        identity = run.g.identity

        def step(op):
            code.fill(0)
            for t, v in enumerate(views):       # the earliest tap gets the largest code: max keeps it
                np.equal(v, best, out=eq)
                np.multiply(eq.view(np.uint8), cdt.type(k - t), out=mark)
                np.maximum(code, mark, out=code)
            np.greater(best, identity, out=eq)   # nothing beat lowest: no winner
            np.multiply(code, eq.view(np.uint8), out=code)
        self.passes.append(step)
        return code

    def _first(self, run, inside):
        """onnxruntime's max: a window's first tap inside the input starts it, a later tap must be greater."""
        z = self.lay.z
        res = np.empty(z, dtype=self.buf.dtype)
        group = tuple(range(len(run.g.axes)))
        views = [(v[0], ins[0]) for v, ins in zip(self._views(self.buf, group, 1), self._views(inside, group, 1))]
        k = len(views)
        code = np.empty(z, dtype=code_dtype(k))
        filled, take = np.empty(z, dtype=bool), np.empty(z, dtype=bool)
        identity = run.g.identity

        def step(op):
            res.fill(identity)
            filled.fill(False)
            code.fill(0)
            for t, (v, ins) in enumerate(views):
                np.greater(v, res, out=take)
                np.logical_or(take, ~filled, out=take)
                np.logical_and(take, ins, out=take)
                np.copyto(res, v, where=take)
                np.copyto(code, k - t, where=take)
                np.logical_or(filled, ins, out=filled)
        self.passes.append(step)
        return res, code
