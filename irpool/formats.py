"""How `irpool check` reports: lines for people, one JSON document, one SARIF 2.1.0 document, or GitHub
Actions annotations, from one list of per-file results; and the exit status those results make."""
from __future__ import annotations

import json
import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from .version import __version__
from .codes import codes
from .report import pooling_summary, unchecked_summary

STATUSES = ("ok", "error", "unreadable", "skipped")


@dataclass
class FileResult:
    file: str
    status: str                  # ok | error | unreadable | skipped
    reason: str | None = None    # why a file is unreadable or skipped
    findings: list = field(default_factory=list)     # [Finding]
    pooling_layers: int = 0
    pooling_kinds: dict = field(default_factory=dict)    # MaxPool, AvgPool, AdaptiveAvgPool, global ReduceMean, ...
    unchecked: dict = field(default_factory=dict)        # why -> {kind: how many}: layers whose output is not known
    fixed: list = field(default_factory=list)            # check --fix: [Fixed], what was rewritten


def judge(result: FileResult, ignore=(), strict: bool = False) -> FileResult:
    """Drop the ignored codes; the status: error if an error finding is left (or a warning, when strict;
    a note never fails)."""
    if result.status in ("unreadable", "skipped"):
        return result
    result.findings = [f for f in result.findings if f.code not in ignore]
    failing = [f for f in result.findings if f.severity == "error" or strict and f.severity == "warning"]
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
                warnings=sum(f.severity == "warning" for f in findings), notes=sum(f.severity == "note" for f in findings),
                fixed=sum(len(r.fixed) for r in results),
                unchecked=sum(n for r in results for by_kind in r.unchecked.values() for n in by_kind.values()))


def plural(n: int, word: str) -> str:
    """'1 error', '2 errors'."""
    return f"{n} {word}{'s' * (n != 1)}"


def summary_line(results) -> str:
    s = summary(results)
    notes = f", {plural(s['notes'], 'note')}" if s["notes"] else ""
    fixed = f"; {plural(s['fixed'], 'port')} fixed" if s["fixed"] else ""
    unchecked = f"; {plural(s['unchecked'], 'pooling layer')} unchecked" if s["unchecked"] else ""
    return (f"{plural(s['files'], 'file')}: {s['ok']} ok, {s['error']} with findings that fail,"
            f" {s['unreadable']} unreadable, {s['skipped']} skipped ({plural(s['errors'], 'error')},"
            f" {plural(s['warnings'], 'warning')}{notes}){fixed}{unchecked}")


def _unchecked_notes(r) -> list:
    """What a file left unchecked, as SARIF notifications (a file that was not checked never looks checked)."""
    if not r.unchecked:
        return []
    return [dict(level="warning", message=dict(text=f"{r.file}: " + unchecked_summary(r.unchecked)[2:]),
                 locations=[dict(physicalLocation=dict(artifactLocation=_uri(r.file)))])]


def _plain(kind: str, text: str) -> str:
    return text


def text(result: FileResult, out, err, paint=_plain, quiet: bool = False) -> None:
    """A line per fix and per finding, then the file's verdict; an unreadable file is one line on stderr.
    `paint(kind, text)` colours; `quiet`: nothing for a file without findings."""
    if result.status == "unreadable":
        print(f"irpool: {result.file}: {paint('error', result.reason)}", file=err)
        return
    if result.status == "skipped":
        if not quiet:
            print(f"{result.file}: skipped ({result.reason})", file=out)
        return
    for x in result.fixed:
        line = "" if x.line is None else f":{x.line}"
        print(f"{result.file}{line}: {paint('fixed', 'fixed')}{x.message[len('fixed'):]}", file=out)
    for f in result.findings:
        print(f.render(paint), file=out)
    if result.status == "ok" and not (quiet and not result.findings and not result.fixed):
        counts = [(sum(f.severity == k for f in result.findings), k) for k in ("warning", "note")]
        notes = [plural(n, k) for n, k in counts if n]
        notes.append(pooling_summary(result.pooling_kinds, result.unchecked))
        print(f"{result.file}: {paint('ok', 'ok')}" + (f" ({', '.join(notes)})" if notes else ""), file=out)


def json_document(results, cpu: str | None = None) -> str:
    """The --json document; `cpu`: the CPU tier (or "all") OpenVINO's verdicts were judged for."""
    files = [dict(file=r.file, status=r.status, reason=r.reason, pooling_layers=r.pooling_layers,
                  pooling_kinds=r.pooling_kinds, unchecked=r.unchecked, findings=[f.to_dict() for f in r.findings],
                  fixed=[dict(line=x.line, message=x.message) for x in r.fixed]) for r in results]
    return json.dumps(dict(irpool=__version__, cpu=cpu, files=files, summary=summary(results)), indent=1)


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
        kind = {"error": "error", "warning": "warning"}.get(f.severity, "notice")
        where = f"file={_escape(result.file, True)}" + (f",line={f.line}" if f.line else "")
        print(f"::{kind} {where},title={_escape('irpool ' + f.code, True)}::{_escape(_said(f))}", file=out)
    if result.unchecked:
        print(f"::warning file={_escape(result.file, True)},title=irpool unchecked::"
              f"{_escape(unchecked_summary(result.unchecked)[2:])}", file=out)


def _said(f) -> str:
    """A finding's message with the layer it is about, for formats that have no field for the layer."""
    who = f.who()
    who += f" in {f.path}" if f.path else ""
    return f"{who}: {f.message}" if who else f.message


SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _uri(name: str) -> dict:
    """An artifactLocation: a relative path stays relative to %SRCROOT% (the current folder), as code
    scanning wants; an absolute one becomes a file: URI."""
    if name == "<stdin>":
        return dict(uri="stdin")
    if os.path.isabs(name):
        return dict(uri=Path(name).as_uri())
    return dict(uri=urllib.parse.quote(name.replace(os.sep, "/")), uriBaseId="%SRCROOT%")


def sarif_document(results) -> str:
    """One SARIF 2.1.0 log: a rule per finding code (from schemas/codes.json), a result per finding; files
    that cannot be read are tool execution notifications (and executionSuccessful is false)."""
    index = {code: i for i, code in enumerate(codes())}
    rules = [dict(id=code, name="".join(w.capitalize() for w in code.split("-")),
                  shortDescription=dict(text=c["summary"]), fullDescription=dict(text=c["explanation"]),
                  help=dict(text=f"{c['explanation']}\n\nExample:\n{c['example']}",
                            markdown=f"{c['explanation']}\n\nExample:\n```\n{c['example']}\n```"),
                  defaultConfiguration=dict(level=c["severity"]))
             for code, c in codes().items()]
    found, notices = [], []
    for r in results:
        if r.status == "unreadable":
            notices.append(dict(level="error", message=dict(text=f"{r.file}: {r.reason}"),
                                locations=[dict(physicalLocation=dict(artifactLocation=_uri(r.file)))]))
        notices += _unchecked_notes(r)
        for f in r.findings:
            where = dict(artifactLocation=_uri(r.file))
            if f.line:
                where["region"] = dict(startLine=f.line)
            loc = dict(physicalLocation=where)
            if f.layer_id is not None:
                loc["logicalLocations"] = [dict(name=str(f.layer_name), kind="object",
                                                fullyQualifiedName=f"{f.path + ' > ' if f.path else ''}{f.who()}")]
            found.append(dict(ruleId=f.code, ruleIndex=index[f.code], level=f.severity,
                              message=dict(text=_said(f)), locations=[loc]))
    run = dict(tool=dict(driver=dict(name="irpool", version=__version__, semanticVersion=__version__, rules=rules)),
               originalUriBaseIds={"%SRCROOT%": dict(uri=Path.cwd().as_uri() + "/")},
               invocations=[dict(executionSuccessful=not any(n["level"] == "error" for n in notices),
                                 toolExecutionNotifications=notices)],
               results=found)
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=1)
