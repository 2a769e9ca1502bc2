"""Whether onnxruntime's CPU provider has a kernel to run a pooling node, whatever its input: the op version its
domain and opset import name, a domain it writes only itself, a version it registers no kernel for, more spatial
axes than its kernels take (schemas/onnx.json "runtimes", each measured)."""
from __future__ import annotations

from ..errors import IRError
from ..opdefs import load
from .attributes import op_version


def op_refusal(n) -> tuple:
    """((code, why) where onnxruntime has no kernel to run PoolNode `n`, else None; the op version, where known)."""
    op_type, runtimes = n.node.op_type, load("onnx")["runtimes"]
    if n.domain in runtimes["onnxruntime_internal_domains"]["domains"]:
        return ("unknown-opset", f"{n.domain} is onnxruntime's internal layout domain: OpenVINO does not read it (\"No"
                f" conversion rule found\"), and onnxruntime's CPU provider has no kernel for {op_type} there on x86, at"
                " any version or type (\"NOT_IMPLEMENTED\"; an ARM build runs float16); write the ai.onnx op"
                " (irpool.onnx.run computes this one)"), None
    if n.opset is None:
        return ("unknown-opset", f"the model imports no opset of domain {n.domain or 'ai.onnx'!r}, so"
                f" onnxruntime has no {op_type} to run"), None
    try:
        op = op_version(op_type, n.opset, n.domain)
    except IRError as e:
        return ("unknown-opset", e.reason), None
    op_def = load("onnx")["ops"][op]
    names = [a.name for a in n.node.attribute]
    twice = next((a for k, a in enumerate(names) if a in names[:k]), None)
    if twice is not None:
        return ("bad-graph", f"attribute {twice!r} appears twice: onnxruntime refuses the model (\"Attribute"
                f" '{twice}' appeared multiple times\")"), op
    if len(n.node.input) != 1 or not n.node.input[0]:
        return ("bad-graph", f"{op} takes one input, X; the node lists {list(n.node.input)}: onnxruntime refuses the"
                " model (the node does not match its schema)"), op
    if not n.node.output or not n.node.output[0]:
        return ("bad-graph", f"{op}'s first output, Y, is required; the node lists {list(n.node.output)}: onnxruntime"
                " refuses the model (\"marked single but has an empty string\")"), op
    if len(n.node.output) > op_def["outputs"]:
        return ("bad-graph", f"{op} has {op_def['outputs']} output(s), the node lists {len(n.node.output)}:"
                " onnxruntime refuses the model (the node does not match its schema)"), op
    if op in runtimes["onnxruntime_no_kernel"]["versions"]:
        return ("unknown-opset", f"onnxruntime has no kernel for {op} (\"NOT_IMPLEMENTED : Could not find an"
                f" implementation for {op_type}({op.rsplit('-', 1)[1]}) node\"): import another opset"), op
    return None, op


def axes_refusal(op: str, n, rank: int) -> tuple | None:
    """(bad-rank, why) for a node of more spatial axes than onnxruntime's kernels run; else None."""
    rule = load("onnx")["runtimes"]["onnxruntime_most_spatial_axes"]
    if rank - 2 <= rule["axes"]:
        return None
    ov = "OpenVINO runs it" if n.node.op_type.startswith("Global") else "OpenVINO refuses it too (ranks 3 to 5)"
    return ("bad-rank", f"{op}: X has {rank - 2} spatial axes; onnxruntime's kernel runs at most {rule['axes']}: a"
            f" session loads the model and every run fails (\"{rule['message']}\"); {ov}")


def ort_types(op: str, opset: int) -> tuple:
    """(the element types of X onnxruntime runs op version `op` on at `opset`, whether float16 among them runs through
    Casts it inserts): a version whose kernels take float32 but not float16 runs float16 all the same from opset 6,
    the graph cast to float32 around the node and back; before, the Cast it inserts is refused (its `to` is Cast-1's
    string there: schemas/onnx.json runtimes "onnxruntime_float16_casts")."""
    d = load("onnx")["ops"][op]
    types = d.get("onnxruntime_types", d["types"])
    if "float16" not in types and "float32" in types and opset >= _CAST_INT_TO:
        return (*types, "float16"), True
    return tuple(types), False


_CAST_INT_TO = 6    # the first opset whose Cast takes `to` as an int (onnxruntime's inserted Cast fails before)
