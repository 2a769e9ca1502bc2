"""The irpool command: check, run, explain. Exit 0 clean, 1 error findings, 2 unreadable or not IR.

Every failure is one line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import numpy as np

from .errors import IRError
from .ir.parse import MAX_BYTES


def _check(args) -> int:
    from .ir import check
    status, docs = 0, []
    for path in args.files:
        try:
            report = check(path, max_bytes=args.max_bytes)
        except IRError as e:
            print(f"irpool: {e}", file=sys.stderr)
            status = 2
            continue
        for f in report.findings:
            f.file = path
            if not args.json:
                print(f)
        docs.extend(f.to_dict() for f in report.findings)
        if not report.ok and status == 0:
            status = 1
        if not args.json and report.ok:
            notes = [f"{len(report.findings)} warning{'s' * (len(report.findings) != 1)}"] if report.findings else []
            if not report.pooling_layers:
                notes.append("no pooling layers")
            print(f"{path}: ok" + (f" ({', '.join(notes)})" if notes else ""))
    if args.json:
        json.dump({"findings": docs}, sys.stdout, indent=1)
        print()
    return status


def _load_inputs(items) -> dict:
    inputs = {}
    for item in items:
        name, sep, path = item.partition("=")
        if not sep or not name:
            raise IRError(f"-i takes NAME=file.npy, got {item!r}")
        try:
            inputs[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as e:
            raise IRError(f"cannot read input {name} from {path}: {e}") from None
    return inputs


def write_npz_atomically(path: str, arrays: dict) -> None:
    """Write to a temporary file beside `path`, then rename: a reader never sees half a file."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".irpool-", suffix=".npz", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _run(args) -> int:
    from .ir import run
    inputs = _load_inputs(args.input)
    if not inputs:
        raise IRError("give the inputs with -i NAME=file.npy (NAME: a Parameter's name; 0 for a bare layer)")
    outputs = run(args.file, inputs, max_bytes=args.max_bytes, threads=args.threads)
    for name, arr in outputs.items():
        print(f"{name}: {arr.dtype} {list(arr.shape)}")
    if args.output:
        write_npz_atomically(args.output, outputs)
        print(f"wrote {args.output}")
    return 0


def _explain(args) -> int:
    from .ir import explain
    print(explain(args.file, args.layer, max_bytes=args.max_bytes))
    return 0


def _size(text: str) -> int:
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip().upper().rstrip("B")
    try:
        n = int(t[:-1]) * units[t[-1]] if t and t[-1] in units else int(t)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"not a size: {text!r}")
    return n


def _positive(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive integer: {text!r}")
    return int(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="irpool", description="Check and run the pooling layers of OpenVINO IR.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("check", help="check declared output dims, attributes and edges")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print one JSON document with every finding")
    p.set_defaults(func=_check)
    p = sub.add_parser("run", help="execute a net of Parameter, pooling and Result layers, or a bare layer")
    p.add_argument("file", metavar="FILE")
    p.add_argument("-i", "--input", action="append", default=[], metavar="NAME=x.npy")
    p.add_argument("-o", "--output", metavar="out.npz", help="write the outputs here (atomically)")
    p.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads per pooling layer (default: every core)")
    p.set_defaults(func=_run)
    p = sub.add_parser("explain", help="show the shape arithmetic of each pooling layer")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--layer", metavar="ID")
    p.set_defaults(func=_explain)
    for p in sub.choices.values():
        p.add_argument("--max-bytes", type=_size, default=MAX_BYTES, metavar="N",
                       help="refuse a file larger than N bytes (suffixes K, M, G; default 1G)")
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (IRError, OSError, MemoryError) as e:
        print(f"irpool: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
