"""Who a layer says it is, as read_model judges it: the attributes every layer needs, a type that names an
operation of its opset, a version that names an opset OpenVINO ships, an id it reads: functions that return what they
found (found.Found)."""
from __future__ import annotations

import re

from ..read import ids
from ..ops.family import FAMILY_TYPES
from ..ops.pools import POOL_TYPES
from ..read.op_names import no_name, no_op
from ..read.opsets import EXPERIMENTAL, SHIPPED, builds
from ..read.layer_edge import REQUIRED
from ..read.structure import line_of
from .found import Found
from .memos import BUILDS

_OPSET = re.compile(r"opset0*[0-9]+", re.IGNORECASE | re.ASCII)      # an opset's name, in any case or digits


def id_problems(el, lid, ltype, is_snippet) -> tuple:
    """The attributes every layer of a net needs, and an id read_model reads (ids.py): (the id as it reads it, as
    written where it refuses it; what is wrong, as found.Found). A bare <layer> (`is_snippet`) is a fragment."""
    if is_snippet:
        return lid, []
    if lid is None or ltype is None or el.get("name") is None or el.get("version") is None:
        missing = [a for a in REQUIRED if el.get(a) is None]
        return lid, [Found("bad-structure", f"<layer> lacks {', '.join(missing)}: OpenVINO requires id, name, type"
                           " and version on every layer, and refuses the file", line_of(el), el)]
    version, found = el.get("version"), []
    if no_op(ltype):
        found.append(Found("bad-structure", f'type="{ltype}" names no operation: read_model refuses the file ("Opset'
                           f' {version} doesn\'t contain the operation with type: {ltype}")', line_of(el), el, True))
    elif version not in SHIPPED and ltype not in POOL_TYPES:     # (a pool's: layers.op_name says it)
        found += version_problem(el, ltype, version, lid)
    elif ltype not in POOL_TYPES and ltype not in FAMILY_TYPES and not BUILDS[version][ltype]:
        found.append(Found("unknown-opset", f'type="{ltype}": {version} has no such operation, and read_model refuses'
                           f' the file ("Opset {version} doesn\'t contain the operation with type: {ltype}")',
                           line_of(el), el, True))
    read = ids.number(lid)
    if read is None:
        found.append(Found("bad-structure", ids.refusal("layer", "id", lid), line_of(el), el))
    return read or lid, found


def version_problem(el, ltype, version, lid) -> list:
    """A version that names no opset OpenVINO ships (schemas/openvino.json "opset_names"): refused, unless an
    extension registers it (a warning) where it is not one of those opsets written otherwise; "experimental"
    and "extension" hold a few types read_model builds without one (opsets.py): nothing for those. read_model
    judges it where it builds the layer."""
    if version in EXPERIMENTAL and builds(ltype, version):
        return []                                           # (read_model builds these few: measured)
    said = f'("Cannot create {ltype} layer {el.get("name")} id:{lid} from unsupported opset: {version}")'
    if no_name(version):
        code, message = "bad-structure", f'version="{version}" names no opset: read_model refuses the file {said}'
    elif _OPSET.fullmatch(version):
        code, message = "unknown-opset", (f'version="{version}": OpenVINO ships opset1 to opset17, written so, and'
                                          f" read_model refuses the file {said}")
    else:
        code, message = "extension-opset", (f'version="{version}" names no opset OpenVINO ships (opset1 to opset17):'
                                            f" read_model refuses the file {said}, unless an extension registers"
                                            " that opset")
    return [Found(code, message, line_of(el), el, True)]
