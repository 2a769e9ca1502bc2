"""The irpool command: a table of its three commands. Reading inputs is inputs.py, writing outputs
outputs.py, report formats formats.py. Every failure is one line on stderr, never a traceback."""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import __version__
from .errors import IRError
from .ir.parse import MAX_BYTES

EXIT_CODES = """exit status:
  0  every file is clean (warnings allowed, unless --strict)
  1  a finding that fails: an error (or, with --strict, a warning); explain: a layer cannot be computed
  2  a file cannot be read or is not OpenVINO IR, or the command line is wrong
  141  standard output was closed early (e.g. | head)"""


def _check(args) -> int:
    from . import formats
    from .core import default_threads
    from .inputs import check_all, expand
    items = expand(args.files)
    if not items:
        raise IRError(f"no IR .xml file under {', '.join(args.files)}")
    if args.bin is not None and len(items) != 1:
        raise IRError(f"--bin names the weights file of one FILE; {len(items)} are given")
    ignore = {c.strip() for c in ",".join(args.ignore).split(",") if c.strip()}
    results = []
    for result in check_all(items, args.max_bytes, args.jobs or default_threads(), args.bin):
        results.append(formats.judge(result, ignore, args.strict))
        if args.format == "text":
            formats.text(result, sys.stdout, sys.stderr)
        elif args.format == "github":
            formats.github(result, sys.stdout)
    if args.format == "json":
        print(formats.json_document(results))
    elif args.format == "text" and len(results) > 1:
        print(formats.summary_line(results))
    return formats.exit_status(results)


def _source(name: str):
    return sys.stdin.buffer if name == "-" else name


def _run(args) -> int:
    from .inputs import load_arrays
    from .ir import run
    from .outputs import target, write_npz
    if args.output is not None:
        target(args.output)                      # before computing anything
    inputs = load_arrays(args.input)
    if not inputs:
        raise IRError("give the inputs with -i NAME=file.npy (NAME: a Parameter's name; 0 for a bare layer or"
                      " --layer)")
    outputs = run(_source(args.file), inputs, max_bytes=args.max_bytes, threads=args.threads, layer=args.layer,
                  bin=args.bin)
    for name, arr in outputs.items():
        print(f"{name}: {arr.dtype} {list(arr.shape)}")
    if args.output is not None:
        print(f"wrote {write_npz(args.output, outputs)}")
    return 0


def _explain(args) -> int:
    """Each layer printed as check reaches it: text blocks, or one JSON document streamed entry by entry."""
    from .ir.explain import each_entry, render
    failed = []

    def show(e):
        failed.append(bool(e["error"]))
        if args.json:
            print((",\n" if len(failed) > 1 else "") + json.dumps(e, indent=1), end="")
        else:
            print(render(e))
    if args.json:
        print(f'{{"irpool": {json.dumps(__version__)}, "layers": [')
    count = each_entry(_source(args.file), show, args.layer, max_bytes=args.max_bytes, bin=args.bin)
    if args.json:
        print("\n]}")
    elif not count:
        print("no pooling layers")
    return 1 if any(failed) else 0


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


def _parser() -> argparse.ArgumentParser:
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="irpool", formatter_class=fmt,
        description="Check, explain and run the pooling layers of OpenVINO IR files (MaxPool, AvgPool,"
                    " AdaptiveAvgPool, AdaptiveMaxPool, and ReduceMean/ReduceMax over the spatial axes).",
        epilog=EXIT_CODES + "\n\nexamples:\n  irpool check model.xml models/ -j 4 --format github\n"
                            "  irpool run model.xml -i image=x.npy -o out.npz")
    parser.add_argument("--version", action="version", version=f"irpool {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("check", formatter_class=fmt, help="check declared output dims, attributes, types and edges",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool check model.xml\n"
                                           "  cat model.xml | irpool check - --json\n"
                                           "  irpool check models/ -j 4 --ignore spec-divergence --strict")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="an IR .xml file, - for standard input, a pipe, or a folder (searched for .xml files;"
                        " XML that is not IR is reported as skipped)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", dest="format", action="store_const", const="json",
                     help="one JSON document: an entry per file (status, reason, findings), a summary, the version")
    out.add_argument("--format", choices=("text", "json", "github"), default="text",
                     help="text (default), json, or github: GitHub Actions ::error/::warning annotations")
    p.add_argument("-j", "--jobs", type=_positive, default=None, metavar="N",
                   help="check files on N processes (default: every core)")
    p.add_argument("--ignore", action="append", default=[], metavar="CODE[,CODE]",
                   help="leave out findings with these codes (e.g. spec-divergence); may be repeated")
    p.add_argument("--strict", action="store_true", help="warnings fail too (exit 1)")
    p.add_argument("--bin", metavar="PATH", help="the weights file of a single FILE (default: the .bin beside the"
                   " .xml; standard input has none): where the pooling family's shape inputs are read")
    p.set_defaults(func=_check, format="text")
    p = sub.add_parser("run", formatter_class=fmt, help="execute a net of Parameter, pooling and Result layers",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool run model.xml -i image=x.npy -o out.npz\n"
                                           "  irpool run layer.xml -i 0=x.npy\n"
                                           "  irpool run resnet50.xml --layer pool1 -i 0=x.npy -o pool1.npz")
    p.add_argument("file", metavar="FILE", help="an IR .xml file (a net or a bare <layer>), or - for standard input")
    p.add_argument("-i", "--input", action="append", default=[], metavar="NAME=x.npy",
                   help="an input: NAME=x.npy, NAME=x.npz (its array NAME, or its only one), or x.npz (every array"
                        " by its name). NAME: a Parameter's name or tensor name; 0 for a bare layer")
    p.add_argument("-o", "--output", metavar="out.npz",
                   help="write the outputs here, atomically (the mode of an existing file is kept; a symlink is"
                        " written through)")
    p.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads per pooling layer (default: every core)")
    p.add_argument("--layer", metavar="ID|NAME", help="run only this pooling layer of the net, whatever else the net"
                   " holds, on its data input (-i 0=x.npy); outputs are keyed by its output port ids")
    p.add_argument("--bin", metavar="PATH", help="the weights file, for --layer's shape input (default: the .bin"
                   " beside the .xml)")
    p.set_defaults(func=_run)
    p = sub.add_parser("explain", formatter_class=fmt, help="show what decides each pooling layer's output",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool explain model.xml --layer pool1\n"
                                           "  irpool explain model.xml --json")
    p.add_argument("file", metavar="FILE", help="an IR .xml file, or - for standard input")
    p.add_argument("--layer", metavar="ID|NAME", help="only the pooling layer with this id or name")
    p.add_argument("--bin", metavar="PATH", help="the weights file (default: the .bin beside the .xml)")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")
    p.set_defaults(func=_explain)
    for p in sub.choices.values():
        p.add_argument("--max-bytes", type=_size, default=MAX_BYTES, metavar="N",
                       help="refuse a file larger than N bytes (suffixes K, M, G; default 1G)")
    return parser


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return args.func(args)
    except (IRError, OSError, MemoryError) as e:
        if isinstance(e, BrokenPipeError):
            return _closed_pipe()
        print(f"irpool: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _closed_pipe() -> int:
    """Standard output closed early: stop quietly, as a shell tool killed by SIGPIPE would (128 + 13)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    return 141
