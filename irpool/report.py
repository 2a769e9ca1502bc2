"""What check gives, for either front end (IR or ONNX): a Report of Findings, each naming its file, line,
layer and code (schemas/codes.json). Neither front end owns these; both fill them in."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field


def node_label(name, index, op_type) -> str:
    """An ONNX node as findings and messages name it: 'pool1' (#2, MaxPool), #2 its index in its graph."""
    return f"{name!r} (#{index}, {op_type})"


@dataclass
class Finding:
    """One thing check found: `code` (schemas/codes.json; `irpool codes CODE` explains it), `severity`
    (error fails, warning fails with --strict, note never), `message`, and where: `file`, `line`, the layer's
    `layer_id`, `layer_name`, `layer_type`, and `path`, its enclosing layers when it sits in a body.
    `str(finding)` is the line the command line prints; `to_dict()` its JSON entry.

        >>> [str(f) for f in irpool.check("model.xml").findings]
        ["model.xml:16: error: [shape-mismatch] layer id=1 name='pool1' (MaxPool): output port 1: H: ..."]
    """
    code: str            # shape-mismatch, bad-attribute, edge-mismatch, ...
    severity: str        # error | warning | note (schemas/codes.json gives each code's)
    message: str
    line: int | None
    layer_id: str | None = None
    layer_name: str | None = None
    layer_type: str | None = None
    file: str | None = None
    path: str | None = None      # the enclosing layers of a body, outermost first
    fix: dict | None = None      # shape-mismatch: what --fix writes, {layer_line, port, dims: [[index, value]...]}
    front_end: str = "ir"        # "onnx": layer_id is the node's index in its graph, not an id the file writes

    def to_dict(self) -> dict:
        return dict(asdict(self), who=self.who())

    def who(self) -> str:
        """The layer it is about, as every format heads it: an IR layer by its id and name (layer id=1
        name='pool1' (MaxPool)), an ONNX node by its name, its index in its graph and op (node 'pool1' (#2,
        MaxPool)); '' when it is about the file."""
        if self.layer_id is None and self.layer_name is None:
            return ""
        if self.front_end == "onnx":
            return f"node {node_label(self.layer_name, self.layer_id, self.layer_type)}"
        return f"layer id={self.layer_id} name={self.layer_name!r} ({self.layer_type})"

    def __str__(self) -> str:
        return self.render()

    def render(self, paint=lambda kind, text: text) -> str:
        """The line the command line prints; `paint(kind, text)` may colour the severity."""
        who = f" {self.who()}" if self.who() else ""
        where = f" in {self.path}" if self.path else ""
        line = "" if self.line is None else f":{self.line}"
        return (f"{self.file or '<string>'}{line}: {paint(self.severity, self.severity)}: [{self.code}]{who}"
                f"{where}: {self.message}")


def pooling_summary(kinds: dict, unchecked: dict | None = None) -> str:
    """'3 pooling layers: 1 MaxPool, 1 AvgPool, 1 global ReduceMean', or 'no pooling layers'; then what was
    not checked, by why: '; 2 unchecked (their input dims are dynamic): 2 MaxPool'."""
    n = sum(kinds.values())
    text = "no pooling layers" if not n and not unchecked else "no pooling layers checked" if not n else \
        f"{n} pooling layer{'s' * (n != 1)}: " + ", ".join(f"{v} {k}" for k, v in kinds.items())
    return text + unchecked_summary(unchecked)


def unchecked_summary(unchecked: dict | None) -> str:
    """'; 2 unchecked (why): 2 MaxPool' for each why, or ''."""
    return "".join(f"; {sum(by_kind.values())} unchecked ({why}): " + ", ".join(f"{v} {k}" for k, v in by_kind.items())
                   for why, by_kind in (unchecked or {}).items())


@dataclass
class Report:
    """What irpool.check gives: `findings` (a list of Finding, by line), `ok` (no error finding; warnings and
    notes allowed), `errors()`, `pooling_layers` (how many were checked, bodies included) and `kinds` with
    `summary` ("3 pooling layers: 1 MaxPool, 1 AvgPool, 1 global ReduceMean").

        >>> report = irpool.check("model.xml")
        >>> report.ok, report.summary
        (True, '2 pooling layers: 1 MaxPool, 1 AvgPool')
    """
    file: str | None
    findings: list = field(default_factory=list)
    pooling_layers: int = 0      # how many pooling layers were checked, bodies included
    kinds: dict = field(default_factory=dict)   # how many of each kind: MaxPool, AdaptiveAvgPool, global ReduceMean
    unchecked: dict = field(default_factory=dict)   # why -> {kind: how many} of the layers whose output is not known
    explained: object = field(default=None, repr=False)   # check(explain=...): a list or callable receiving records

    def count(self, kind: str) -> None:
        self.pooling_layers += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1

    def uncheck(self, kind: str, why: str) -> None:
        """A pooling layer (or a reduction that may be one) whose output check could not compute: the summary
        says so, so that a file that was not checked never looks checked."""
        by_kind = self.unchecked.setdefault(why, {})
        by_kind[kind] = by_kind.get(kind, 0) + 1

    @property
    def summary(self) -> str:
        return pooling_summary(self.kinds, self.unchecked)

    @property
    def ok(self) -> bool:
        """No error findings (warnings allowed)."""
        return not any(f.severity == "error" for f in self.findings)

    def errors(self) -> list:
        return [f for f in self.findings if f.severity == "error"]


@dataclass
class Fixed:
    """What check --fix rewrote, on either front end: a port's or output's dims, or a node (the line of its first
    changed byte where the file has lines; None for an .onnx model), and what was done, in words."""
    line: int | None
    message: str
