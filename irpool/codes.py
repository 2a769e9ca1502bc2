"""The finding codes, as data (schemas/codes.json): what check, SARIF's rules, `irpool codes` and docs/codes.md
all read, so a code's severity and explanation are written once."""
from __future__ import annotations

import difflib
import textwrap

from .errors import IRError
from .opdefs import load

SEVERITIES = ("error", "warning", "note")


def codes() -> dict:
    """{code: {severity, summary, explanation, example, fixable?}}, in the order of schemas/codes.json."""
    return load("codes")["codes"]


def severity(code: str) -> str:
    return codes()[code]["severity"]


def known(names, origin: str) -> set:
    """The codes named (e.g. by --ignore), each one checked: IRError listing the known codes otherwise."""
    unknown = sorted(set(names) - set(codes()))
    if unknown:
        near = difflib.get_close_matches(unknown[0], codes(), n=1)
        hint = f" (did you mean {near[0]}?)" if near else ""
        raise IRError(f"{origin}: unknown finding code{'s' * (len(unknown) > 1)} {', '.join(unknown)}{hint};"
                      f" the codes are: {', '.join(codes())}")
    return set(names)


def describe(code: str) -> str:
    """`irpool codes CODE`: the code, its severity, summary, explanation and example, as text."""
    c = codes()[code]
    fix = "; irpool check --fix rewrites it" if c.get("fixable") else ""
    body = textwrap.fill(c["explanation"], 100)
    example = textwrap.indent(c["example"], "    ")
    rules = ""
    if code in ("cpu-dependent", "cpu-tier"):                  # the rules, where they are read, the CPUs seen
        from .cpu import rules_text
        rules = "\n\nthe CPU-dependent rules (the source line, capped or not, the CPUs seen on):\n" + rules_text()
    return f"{code} ({c['severity']}{fix})\n{c['summary']}\n\n{body}{rules}\n\nexample:\n{example}"


def listing() -> str:
    """`irpool codes`: one line per code."""
    width = max(map(len, codes()))
    return "\n".join(f"{k:<{width}}  {c['severity']:<7}  {c['summary']}" for k, c in codes().items())


def markdown() -> str:
    """docs/codes.md, generated (tests/cli/test_readme.py keeps the file equal to this)."""
    out = ["# Finding codes", "",
           "Generated from `schemas/codes.json` (the data `irpool check`, its SARIF rules and `irpool codes` read);",
           "edit that file, then `irpool codes --markdown > docs/codes.md`.", "",
           "An **error** fails a run; a **warning** fails only with `--strict`; a **note** never fails.", "",
           "| code | severity | summary |", "|---|---|---|"]
    out += [f"| [`{k}`](#{k}) | {c['severity']} | {c['summary']} |" for k, c in codes().items()]
    for k, c in codes().items():
        fix = " `irpool check --fix` rewrites it." if c.get("fixable") else ""
        out += ["", f"## {k}", "", f"**{c['severity']}**: {c['summary']}{fix}", "", c["explanation"], "",
                "```", c["example"], "```"]
    return "\n".join(out) + "\n"
