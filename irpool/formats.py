"""How `irpool check` reports: lines for people, one JSON document, or GitHub Actions annotations, from one
list of per-file results; and the exit status those results make."""
from __future__ import annotations

import json
from dataclasses import dataclass, field

from . import __version__
from .ir.check import pooling_summary

STATUSES = ("ok", "error", "unreadable", "skipped")


@dataclass
class FileResult:
    file: str
    status: str                  # ok | error | unreadable | skipped
    reason: str | None = None    # why a file is unreadable or skipped
    findings: list = field(default_factory=list)     # [Finding]
    pooling_layers: int = 0
    pooling_kinds: dict = field(default_factory=dict)    # MaxPool, AvgPool, AdaptiveAvgPool, global ReduceMean, ...


def judge(result: FileResult, ignore=(), strict: bool = False) -> FileResult:
    """Drop the ignored codes; the status: error if an error finding is left (or a warning, when strict)."""
    if result.status in ("unreadable", "skipped"):
        return result
    result.findings = [f for f in result.findings if f.code not in ignore]
    failing = [f for f in result.findings if f.severity == "error" or strict]
    result.status = "error" if failing else "ok"
    return result


def exit_status(results) -> int:
    """2 when a file could not be read (or is not IR), else 1 when one has failing findings, else 0."""
    statuses = {r.status for r in results}
    return 2 if "unreadable" in statuses else 1 if "error" in statuses else 0


def summary(results) -> dict:
    counts = {s: sum(r.status == s for r in results) for s in STATUSES}
    findings = [f for r in results for f in r.findings]
    return dict(files=len(results), **counts, errors=sum(f.severity == "error" for f in findings),
                warnings=sum(f.severity == "warning" for f in findings))


def summary_line(results) -> str:
    s = summary(results)
    return (f"{s['files']} files: {s['ok']} ok, {s['error']} with findings that fail, {s['unreadable']} unreadable,"
            f" {s['skipped']} skipped ({s['errors']} errors, {s['warnings']} warnings)")


def text(result: FileResult, out, err) -> None:
    """One line per finding, then the file's verdict; an unreadable file is one line on stderr."""
    if result.status == "unreadable":
        print(f"irpool: {result.file}: {result.reason}", file=err)
        return
    if result.status == "skipped":
        print(f"{result.file}: skipped ({result.reason})", file=out)
        return
    for f in result.findings:
        print(f, file=out)
    if result.status == "ok":
        warnings = sum(f.severity == "warning" for f in result.findings)
        notes = [f"{warnings} warning{'s' * (warnings != 1)}"] if warnings else []
        notes.append(pooling_summary(result.pooling_kinds))
        print(f"{result.file}: ok" + (f" ({', '.join(notes)})" if notes else ""), file=out)


def json_document(results) -> str:
    files = [dict(file=r.file, status=r.status, reason=r.reason, pooling_layers=r.pooling_layers,
                  pooling_kinds=r.pooling_kinds, findings=[f.to_dict() for f in r.findings]) for r in results]
    return json.dumps(dict(irpool=__version__, files=files, summary=summary(results)), indent=1)


def _escape(value: str, prop: bool = False) -> str:
    """GitHub workflow-command escaping (properties also escape ':' and ',')."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def github(result: FileResult, out) -> None:
    """`::error file=...,line=...,title=...::message` per finding; an unreadable file is one ::error."""
    if result.status == "unreadable":
        print(f"::error file={_escape(result.file, True)},title=irpool::{_escape(result.reason or '')}", file=out)
        return
    for f in result.findings:
        kind = "error" if f.severity == "error" else "warning"
        where = f"file={_escape(result.file, True)}" + (f",line={f.line}" if f.line else "")
        who = f"layer id={f.layer_id} name={f.layer_name!r} ({f.layer_type})" if f.layer_id is not None else ""
        who += f" in {f.path}" if f.path else ""
        message = f"{who}: {f.message}" if who else f.message
        print(f"::{kind} {where},title={_escape('irpool ' + f.code, True)}::{_escape(message)}", file=out)
