"""The op-level ONNX API: one pooling node run on numpy arrays as onnxruntime runs it, its attributes read
once (`compile`) or per call (`run`). irpool.onnx.run and irpool.onnx.compile are these."""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core import PoolSpec, plan, pool
from ..core.mlas_pool import average as mlas_average
from ..dtypes import narrow, widen
from ..errors import IRError
from ..opdefs import load
from .eigen_sum import eigen_mean
from .attributes import NHWC, node_attrs, of_op, op_version, pads_refusal, to_spec
from .kernels import ort_types
from .ort_geometry import fit, ort_axis, ort_max_start


class Node:
    """One ONNX pooling node with its attributes read once (irpool.onnx.compile): run it on many inputs.
    Refusals that need no input are raised when it is made; the others at run, as irpool.onnx.run raises them."""

    def __init__(self, op_type, attrs=None, *, opset: int, domain: str = "", outputs: int = 1,
                 as_onnxruntime: bool = False):
        if hasattr(op_type, "attribute") and hasattr(op_type, "op_type"):
            node = op_type
            if attrs is not None:
                raise IRError(f"{node.op_type}: give the attributes in the NodeProto or in attrs, not both")
            attrs, domain, op_type = node_attrs(node), node.domain or domain, node.op_type
            outputs = len([o for o in node.output if o]) if outputs == 1 else outputs
            self.listed = len(node.output)          # (onnxruntime counts an empty name too)
        else:
            self.listed = outputs
        self.op_type, self.attrs, self.opset, self.domain = op_type, {} if attrs is None else attrs, opset, domain
        self.as_onnxruntime = as_onnxruntime
        self.op = op_version(op_type, opset, domain)
        d = load("onnx")["ops"][self.op]
        if isinstance(outputs, bool) or not isinstance(outputs, int) or outputs not in range(1, d["outputs"] + 1):
            raise IRError(f"{self.op} has {d['outputs']} output(s), {outputs!r} asked for")
        self.outputs = outputs
        self.types, self.cast16 = ort_types(self.op, opset) if as_onnxruntime else (d["types"], False)  # (as ORT)
        self.specs = {}          # input rank (or, for a global pool, shape) -> PoolSpec
        if not op_type.startswith("Global"):
            spec = to_spec(op_type, self.attrs, opset=opset, domain=domain)
            self.specs[spec.ndim + 2] = spec

    def spec(self, shape) -> PoolSpec:
        key = tuple(shape) if self.op_type.startswith("Global") else len(shape)
        spec = self.specs.get(key)
        if spec is None:             # a global pool's new shape, or a rank that the kernel refuses (raises)
            spec = self.specs[key] = to_spec(self.op_type, self.attrs, opset=self.opset, domain=self.domain,
                                             shape=shape)
        return spec

    def run(self, x, threads: int | None = None) -> list:
        """[Y] or [Y, Indices] for input `x`."""
        if x is None:
            raise IRError(f"{self.op}: no input X given")
        x = np.asarray(x)
        if x.dtype.name not in self.types:
            raise IRError(f"{self.op} does not take X of element type {x.dtype} (it takes {', '.join(self.types)})")
        if self.cast16 and x.dtype == np.float16:       # (onnxruntime's Casts around a float32 kernel: kernels.py)
            outs = self.run(x.astype(np.float32), threads)
            return [outs[0].astype(np.float16)] + outs[1:]
        try:
            spec = self.spec(x.shape)
            if self.as_onnxruntime:                     # a model file's node: onnxruntime's geometry, defects too
                refusal = pads_refusal(spec)
                if refusal:
                    raise IRError(refusal)
                cuts = []
                loop = ort_max_start(spec, x.dtype.name, self.listed) if spec.reduction == "max" else None
                spec, outs = fit(spec, x.shape, op=self.op, cuts=cuts, max_start=loop)
                if spec.reduction == "max" and self.domain != NHWC:
                    spec = replace(spec, max_start=ort_max_start(spec, x.dtype.name, self.listed))
                if 0 in outs:                           # onnxruntime gives an empty output
                    return self._empty(x, spec, outs)
                if any(cuts):                           # cells no window of onnxruntime's reads
                    index = [slice(None)] * x.ndim
                    for a, cut in zip(spec.spatial_axes(x.ndim), cuts):
                        index[a] = slice(0, x.shape[a] - cut)
                    x = x[tuple(index)]
            if self._mlas(x):
                if not self.as_onnxruntime:
                    plan(spec, x.shape)                 # (the core's refusals first: a window past the padded input)
                return [self._mlas_average(x, self.spec(x.shape))]
            if self.outputs == 2:
                y, indices = pool(widen(x), spec, indices=True, threads=threads)
                return [narrow(y, x.dtype), indices]
            return [narrow(pool(widen(x), spec, threads=threads), x.dtype)]
        except IRError as e:
            raise IRError(of_op(self.op, e.reason)) from None


    def _mlas(self, x) -> bool:
        """Whether onnxruntime runs this node through MlasPool's average: a float32 AveragePool before version 19
        or GlobalAveragePool (onnxruntime/core/providers/cpu/nn/pool.cc: Pool<float, AveragePool>::Compute), but
        for an AveragePool with both ceil_mode and count_include_pad, which its own loop runs since 1.29
        (onnxruntime's pull request 29629, docs/onnx.md; measured on 1.32: the loop's bits, not MLAS's, even where
        ceil_mode changes no window)."""
        if x.dtype != np.float32 or self.domain or not 3 <= x.ndim <= 5 or not x.size:
            return False
        if self.op_type == "GlobalAveragePool":
            return True
        spec = self.spec(x.shape)
        return self.op_type == "AveragePool" and int(self.op.rsplit("-", 1)[1]) < 19 and \
            not (spec.rounding != "floor" and spec.count == "include_onnx")

    def _mlas_average(self, x, spec) -> np.ndarray:
        """MLAS's order of additions and divisors (core/mlas_pool.py) on onnxruntime's pads and output lengths."""
        axes = [ort_axis(L, k, s, 1, pb, pe, spec.auto_pad, spec.rounding != "floor")
                for L, k, s, pb, pe in zip(x.shape[2:], spec.kernel, spec.strides, spec.pads_begin, spec.pads_end)]
        pads_b, pads_e, outs = zip(*axes)
        return mlas_average(x, spec.kernel, spec.strides, pads_b, pads_e, outs, spec.count == "include_onnx")

    def _empty(self, x, spec, outs) -> list:
        shape = list(x.shape)
        for a, o in zip(spec.spatial_axes(len(shape)), outs):
            shape[a] = o
        y = np.empty(shape, x.dtype)
        if self.outputs == 2:
            ishape = shape if spec.layout == "channels_first" else [shape[0], shape[-1]] + shape[1:-1]
            return [y, np.empty(ishape, np.int64)]
        return [y]


class Reduction(Node):
    """A model's ReduceMean/ReduceMax over every spatial axis, run as the global pool it is (schemas/onnx.json
    "global_reductions"), its keepdims applied; refused on an input whose spatial axes are not its axes."""

    def __init__(self, node, opset: int, axes: tuple):
        rule = load("onnx")["global_reductions"][node.op_type]
        super().__init__(rule["global"], {}, opset=opset, as_onnxruntime=True)
        self.op = f"{node.op_type}-{max(v for v in rule['versions'] if v <= opset)}"
        self.types, self.axes = rule["run_types"], axes
        self.keep = node_attrs(node).get("keepdims", 1) == 1      # (onnxruntime keeps dims for 1 alone: measured)

    def run(self, x, threads: int | None = None) -> list:
        x = np.asarray(x)
        if not 3 <= x.ndim <= 5 or sorted(a % x.ndim for a in self.axes if -x.ndim <= a < x.ndim) != \
                list(range(2, x.ndim)) or len(self.axes) != x.ndim - 2:
            raise IRError(f"{self.op}: axes {list(self.axes)} are not the spatial axes of an input of rank {x.ndim}:"
                          " irpool runs it only as a global pool")
        if self.op.startswith("ReduceMean") and x.dtype.name in self.types and x.size:
            y = eigen_mean(x)           # (onnxruntime's order of additions, not GlobalAveragePool's)
            y = y.reshape(y.shape + (1,) * (x.ndim - 2))
        else:
            (y,) = super().run(x, threads)
        return [y if self.keep else y.reshape(y.shape[:2])]


def compile(op_type, attrs=None, *, opset: int, domain: str = "", outputs: int = 1) -> Node:  # noqa: A001
    """A Node: an ONNX pooling node with its attributes read once, to run on many inputs with `.run(x,
    threads=None)`, which gives [Y] or [Y, Indices]. `op_type` may be an onnx.NodeProto.

        >>> node = irpool.onnx.compile("MaxPool", {"kernel_shape": [2, 2]}, opset=12, outputs=2)
        >>> y, indices = node.run(x)
    """
    return Node(op_type, attrs, opset=opset, domain=domain, outputs=outputs)


def run(op_type, x=None, attrs=None, *, opset: int, domain: str = "", outputs: int = 1,
        threads: int | None = None) -> list:
    """Execute one ONNX pooling node on `x` as onnxruntime does: [Y], or [Y, Indices] with outputs=2.

        >>> (y,) = irpool.onnx.run("AveragePool", x, {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, opset=19)
        >>> y, idx = irpool.onnx.run("MaxPool", x_nhwc, {"kernel_shape": [2, 2]}, opset=12,
        ...                          domain="com.ms.internal.nhwc", outputs=2)

    `op_type` may be an onnx.NodeProto; its op_type, domain and attributes are then read from it. Anything
    the op, its version or onnxruntime refuses raises IRError. The same as compile(...).run(x)."""
    return Node(op_type, attrs, opset=opset, domain=domain, outputs=outputs).run(x, threads)
