"""Who a layer says it is, as read_model judges it: the attributes every layer needs, a type that names an
operation of its opset, a version that names an opset OpenVINO ships, an id it reads (a mixin of check's NetCheck)."""
from __future__ import annotations

import re

from ..read import ids
from ..ops.family import FAMILY_TYPES
from ..ops.pools import POOL_TYPES
from ..read.op_names import no_name, no_op
from ..read.opsets import EXPERIMENTAL, SHIPPED, builds
from ..read.layer_edge import REQUIRED
from ..read.structure import line_of
from .memos import BUILDS

_OPSET = re.compile(r"opset0*[0-9]+", re.IGNORECASE | re.ASCII)      # an opset's name, in any case or digits


class Identity:
    def id_problems(self, el, lid, ltype) -> str | None:
        """The attributes every layer of a net needs, and an id read_model reads (ids.py); the id as it reads it
        (as written where it refuses it)."""
        if self.doc.is_snippet:
            return lid
        if lid is None or ltype is None or el.get("name") is None or el.get("version") is None:
            missing = [a for a in REQUIRED if el.get(a) is None]
            self.finding("bad-structure", f"<layer> lacks {', '.join(missing)}: OpenVINO requires id, name, type"
                         " and version on every layer, and refuses the file", line_of(el), el=el)
            return lid
        version = el.get("version")
        if no_op(ltype):
            self.build_time.append(len(self.report.findings))      # (read_model judges it where it builds it)
            self.finding("bad-structure", f'type="{ltype}" names no operation: read_model refuses the file ("Opset'
                         f' {version} doesn\'t contain the operation with type: {ltype}")', line_of(el), el=el)
        elif version not in SHIPPED and ltype not in POOL_TYPES:     # (a pool's: layers.op_name says it)
            self.version_problem(el, ltype, version, lid)
        elif ltype not in POOL_TYPES and ltype not in FAMILY_TYPES and not BUILDS[version][ltype]:
            self.build_time.append(len(self.report.findings))      # (read_model judges it where it builds it)
            self.finding("unknown-opset", f'type="{ltype}": {version} has no such operation, and read_model refuses'
                         f' the file ("Opset {version} doesn\'t contain the operation with type: {ltype}")',
                         line_of(el), el=el)
        read = ids.number(lid)
        if read is None:
            self.finding("bad-structure", ids.refusal("layer", "id", lid), line_of(el), el=el)
        return read or lid

    def version_problem(self, el, ltype, version, lid) -> None:
        """A version that names no opset OpenVINO ships (schemas/openvino.json "opset_names"): refused, unless an
        extension registers it (a warning) where it is not one of those opsets written otherwise; "experimental"
        and "extension" hold a few types read_model builds without one (opsets.py): no warning for those."""
        if version in EXPERIMENTAL and builds(ltype, version):
            return                                          # (read_model builds these few: measured)
        said = f'("Cannot create {ltype} layer {el.get("name")} id:{lid} from unsupported opset: {version}")'
        self.build_time.append(len(self.report.findings))          # (read_model judges it where it builds it)
        if no_name(version):
            self.finding("bad-structure", f'version="{version}" names no opset: read_model refuses the file {said}',
                         line_of(el), el=el)
        elif _OPSET.fullmatch(version):
            self.finding("unknown-opset", f'version="{version}": OpenVINO ships opset1 to opset17, written so, and'
                         f" read_model refuses the file {said}", line_of(el), el=el)
        else:
            self.finding("extension-opset", f'version="{version}" names no opset OpenVINO ships (opset1 to opset17):'
                         f" read_model refuses the file {said}, unless an extension registers that opset",
                         line_of(el), el=el)
