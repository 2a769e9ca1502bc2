"""The irpool command: a table of its three commands. Reading inputs is inputs.py, writing outputs
outputs.py, report formats formats.py. Every failure is one line on stderr, never a traceback."""
from __future__ import annotations

import argparse
import json
import os
import sys

from . import crash
from .version import __version__
from .errors import IRError
from .limits import MAX_BYTES

EXIT_CODES = """exit status:
  0  every file is clean (warnings allowed, unless --strict)
  1  a finding that fails: an error (or, with --strict, a warning; a note never fails); --diff: a fix to
     make; explain: a layer cannot be computed, or a declared dim differs from the computed one; run --against:
     the runtime's bits differ (or it refuses)
  2  a file cannot be read or is neither OpenVINO IR nor an ONNX model, or the command line is wrong
  3  an internal error of irpool's (please report it, with the file it names)
  141  standard output was closed early (e.g. | head)"""


CONFIG = """configuration: [tool.irpool] in the nearest pyproject.toml (this folder or one above it):
  ignore = ["unknown-attribute"]   strict = true   exclude = ["build", "*.tmp.xml"]   cpu = "avx2"
  the command line's --ignore, --strict/--no-strict, --exclude and --cpu win; --isolated reads none"""


def _check(args) -> int:
    from . import formats
    from .core import default_threads
    from .inputs import check_all
    from .terminal import Paint, Progress, wants_colour
    ignore, strict, cpu, items = _check_options(args)
    fixing = args.fix or args.diff
    paint = Paint(args.format == "text" and not args.diff and wants_colour(sys.stdout))
    progress = Progress(len(items), sys.stderr)
    out = sys.stderr if args.fix and items[0][1] == "-" else sys.stdout
    jobs = args.jobs or default_threads()
    shapes = _shapes(args)
    stream = (_fixed(item, args, args.bin, shapes, cpu) for item in items) if fixing else \
        check_all(items, args.max_bytes, jobs, args.bin, shapes, cpu)
    results, changed = [], False
    for done, result in enumerate(crash.naming(args, items, stream), 1):     # (the file an internal error names)
        changed = changed or bool(result.fixed)
        results.append(formats.judge(result, ignore, strict))
        progress.update(done, result.file)
        if args.diff:
            continue
        if args.format in ("text", "github") and (result.findings or result.fixed or result.status != "ok" or
                                                   not args.quiet):
            progress.clear()
            if args.format == "text":
                formats.text(result, out, sys.stderr, paint, args.quiet)
            else:
                formats.github(result, out)
    progress.clear()
    return _check_end(args, results, changed, cpu, out)


def _check_options(args) -> tuple:
    """(codes to ignore, strict, the CPU tier, the items to check) from the command line over [tool.irpool]."""
    from . import config
    from .codes import known
    from .inputs import expand
    cfg = config.read(config.nearest()) if not args.isolated else {}
    ignore = known({c.strip() for c in ",".join(args.ignore).split(",") if c.strip()}, "--ignore") \
        if args.ignore else cfg.get("ignore", set())
    strict = cfg.get("strict", False) if args.strict is None else args.strict
    exclude = args.exclude if args.exclude else cfg.get("exclude", [])
    cpu = args.cpu if args.cpu is not None else cfg.get("cpu")
    base = os.path.dirname(cfg["file"]) if "file" in cfg else None
    items = expand(args.files, exclude, base)
    if not items:
        raise IRError(f"no IR .xml file or .onnx model under {', '.join(args.files)}")
    if args.skip_non_ir:
        items = [(name, source, True) for name, source, _ in items]
    if args.bin is not None and len(items) != 1:
        raise IRError(f"--bin names the weights file of one FILE; {len(items)} are given")
    if args.fix and any(i[1] == "-" for i in items) and len(items) > 1:
        raise IRError("--fix - writes the fixed document to standard output: give it alone")
    return ignore, strict, cpu, items


def _check_end(args, results, changed, cpu, out) -> int:
    """What check prints once every file is done (--diff's tally, the JSON or SARIF document, the summary line);
    its exit status."""
    from . import formats
    from .cpu import label
    status = formats.exit_status(results)
    if args.diff:                                   # the diff alone on standard output, whatever the format
        s = formats.summary(results)
        print(f"irpool: --diff: {s['fixed']} ports would be fixed in {sum(bool(r.fixed) for r in results)} of"
              f" {len(results)} files" if changed else "irpool: --diff: nothing to fix", file=sys.stderr)
        for r in results:
            if r.status == "unreadable":
                formats.text(r, sys.stdout, sys.stderr)
        return max(status, 1) if changed else status
    if args.format == "json":
        print(formats.json_document(results, label(cpu)), file=out)
    elif args.format == "sarif":
        print(formats.sarif_document(results), file=out)
    elif args.format == "text" and (len(results) > 1 or args.quiet):
        print(formats.summary_line(results), file=out)
    if args.format == "text" and str(cpu).strip().lower() == "all":   # (issue 54 item 12: which CPUs it judged)
        print(f"irpool: judged for {label(cpu)}", file=out)
    return status


def _fixed(item, args, bin, shapes=None, cpu=None):  # noqa: A002
    """check --fix / --diff of one item: written in place, to standard output (--fix -), or shown as a diff."""
    import difflib

    from .frontend import diff_lines, suffix
    from .inputs import fix_one
    from .outputs import write_atomic
    result, before, after = fix_one(item, args.max_bytes, bin, shapes, cpu)
    if after is None or after == before:
        if args.fix and item[1] == "-" and before is not None:
            sys.stdout.buffer.write(before)
        return result
    path = None if item[1] == "-" else item[1]
    if args.diff:
        name = result.file
        diff = difflib.unified_diff(diff_lines(before, path), diff_lines(after, path), f"a/{name}", f"b/{name}")
        text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in diff)
        sys.stdout.flush()
        sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
    elif item[1] == "-":
        sys.stdout.buffer.write(after)
    else:
        try:
            write_atomic(item[1], lambda f: f.write(after), suffix(before, path))
        except (IRError, OSError) as e:             # the file stays as it was; the walk goes on
            reason = getattr(e, "reason", None) or getattr(e, "strerror", None) or str(e)
            return type(result)(result.file, "unreadable", f"cannot write the fixed file: {reason}")
    return result


def _shapes(args) -> dict | None:
    from .given import read
    return read(args.shape) if getattr(args, "shape", None) else None


def _cpu(args) -> str | None:
    """--cpu, else [tool.irpool] cpu (unless --isolated), else None (the host)."""
    if args.cpu is not None:
        return args.cpu
    from . import config
    return None if args.isolated else config.read(config.nearest()).get("cpu")


def _source(name: str):
    return sys.stdin.buffer if name == "-" else name


def _run(args) -> int:
    from .inputs import load_arrays
    from .frontend import load
    from .outputs import target, write_npy, write_npz
    npy = args.output is not None and args.output.lower().endswith(".npy")
    if args.output is not None:
        target(args.output)                      # before computing anything
    if args.against:
        from .against import ready
        ready(args.against, args.file, _cpu(args))
    inputs = load_arrays(args.input)
    if not inputs:
        raise IRError("give the inputs with -i NAME=file.npy (NAME: a Parameter's name; 0 for a bare layer or"
                      " --layer)")
    program = load(_source(args.file), max_bytes=args.max_bytes, layer=args.layer, bin=args.bin, cpu=_cpu(args))
    if npy and len(program.output_names) != 1:
        raise IRError(f"-o {args.output}: a .npy holds one array, and this run gives {len(program.output_names)}"
                      f" ({', '.join(program.output_names)}): write them to an .npz")
    outputs = inputs.run(program, args.threads)          # (a refused array is named by its -i file)
    for name, arr in outputs.items():
        print(f"{name}: {arr.dtype} {list(arr.shape)}")
    if args.output is not None:
        written = write_npy(args.output, next(iter(outputs.values()))) if npy else write_npz(args.output, outputs)
        print(f"wrote {written}")
    if args.against:
        from .against import against
        return against(args.against, args.file, program, inputs, outputs, layer=args.layer, bin=args.bin,
                       cpu=_cpu(args))
    return 0


def _explain(args) -> int:
    """Each layer printed as check reaches it: text blocks, or one JSON document streamed entry by entry."""
    from .frontend import each_entry, render
    source = _source(args.file)
    failed = []

    def show(e):
        failed.append(bool(e["error"]) or any(o.get("differs") for o in e.get("outputs") or ()))
        if args.json:
            print((",\n" if len(failed) > 1 else "") + json.dumps(e, indent=1), end="")
        else:
            print(render(e))
    if args.json:
        print(f'{{"irpool": {json.dumps(__version__)}, "layers": [')
    count = each_entry(source, show, args.layer, max_bytes=args.max_bytes, bin=args.bin, shapes=_shapes(args),
                       cpu=_cpu(args))
    if args.json:
        print("\n]}")
    elif not count:
        print("no pooling layers")
    return 1 if any(failed) else 0


def _codes(args) -> int:
    from .codes import describe, known, listing, markdown
    if args.markdown:
        print(markdown(), end="")
        return 0
    if args.code is None:
        print(listing())
        return 0
    known([args.code], "irpool codes")
    print(describe(args.code))
    return 0


def _tier(text: str) -> str:
    from .cpu import choose
    try:
        return choose(text)
    except IRError as e:
        raise argparse.ArgumentTypeError(str(e).replace("--cpu ", "", 1)) from None


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


def _jobs(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a number of processes (0: every core): {text!r}")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    from . import cpu
    fmt = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="irpool", formatter_class=fmt,
        description="Check, explain and run the pooling layers of OpenVINO IR files (MaxPool, AvgPool,"
                    " AdaptiveAvgPool, AdaptiveMaxPool, and ReduceMean/ReduceMax over the spatial axes) and the"
                    " pooling nodes of ONNX models (MaxPool, AveragePool, LpPool and their Global forms).",
        epilog=EXIT_CODES + "\n\nexamples:\n  irpool check model.xml models/ -j 4 --format github\n"
                            "  irpool run model.xml -i image=x.npy -o out.npz")
    parser.add_argument("--version", action="version", version=f"irpool {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_check_parser, _run_parser, _codes_parser, _explain_parser):
        add(sub, fmt)
    _common_options(sub, cpu)
    return parser


def _check_parser(sub, fmt) -> None:
    """irpool check."""
    p = sub.add_parser("check", formatter_class=fmt, help="check declared output dims, attributes, types and edges",
                       epilog=EXIT_CODES + "\n\n" + CONFIG + "\n\nexamples:\n  irpool check model.xml\n"
                                           "  irpool check --fix model.xml\n"
                                           "  cat model.xml | irpool check - --json\n"
                                           "  irpool check models/ -q --format sarif > irpool.sarif\n"
                                           "  irpool check models/ -j 4 --ignore unknown-attribute --strict")
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="an IR .xml file, an .onnx model, - for standard input, a pipe, or a folder (searched for"
                        " .xml and .onnx files; XML that is not IR is reported as skipped)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", dest="format", action="store_const", const="json",
                     help="one JSON document: an entry per file (status, reason, findings), a summary, the version")
    out.add_argument("--format", choices=("text", "json", "sarif", "github"), default="text",
                     help="text (default), json, sarif (one SARIF 2.1.0 log, for code scanning), or github: GitHub"
                          " Actions ::error/::warning/::notice annotations")
    fixing = p.add_mutually_exclusive_group()
    fixing.add_argument("--fix", action="store_true",
                        help="rewrite in place every declared <dim> that irpool computes for certain and finds wrong"
                             " (and the input dims an edge joins to it that held the same value); no other byte"
                             " changes. --fix - writes the fixed document to standard output")
    fixing.add_argument("--diff", action="store_true",
                        help="print what --fix would change as a unified diff, and write nothing (exit 1 if any)")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="print only the files with findings, and the summary")
    p.add_argument("-j", "--jobs", type=_jobs, default=None, metavar="N",
                   help="check files on N processes (default, and 0: every core)")
    p.add_argument("--ignore", action="append", default=[], metavar="CODE[,CODE]",
                   help="leave out findings with these codes (irpool codes lists them); may be repeated; replaces"
                        " the config's ignore")
    strict = p.add_mutually_exclusive_group()
    strict.add_argument("--strict", action="store_true", default=None, help="warnings fail too (exit 1); notes never")
    strict.add_argument("--no-strict", dest="strict", action="store_false", help="warnings do not fail (the default)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out files and folders that match GLOB in folder walks; may be repeated; replaces the"
                        " config's exclude")
    p.add_argument("--skip-non-ir", action="store_true",
                   help="report a named XML file that is not OpenVINO IR as skipped, as in a folder walk, instead of"
                        " unreadable (exit 2): for hooks that pass every .xml file")
    p.add_argument("--isolated", action="store_true", help="read no pyproject.toml")
    p.add_argument("--bin", metavar="PATH", help="the weights file of a single FILE (default: the .bin beside the"
                   " .xml; standard input has none): where the pooling family's shape inputs are read")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=1,3,224,224",
                   help="an input's sizes (an .onnx input, or an IR Parameter by name), as benchmark_app -shape"
                        " takes them: its dynamic dims are judged with these (IR: as OpenVINO's reshape gives every"
                        " port); may be repeated")
    p.set_defaults(func=_check, format="text")


def _run_parser(sub, fmt) -> None:
    """irpool run."""
    p = sub.add_parser("run", formatter_class=fmt, help="execute a net of Parameter, pooling and Result layers",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool run model.xml -i image=x.npy -o out.npz\n"
                                           "  irpool run layer.xml -i 0=x.npy\n"
                                           "  irpool run resnet50.xml --layer pool1 -i 0=x.npy -o pool1.npz\n"
                                           "  irpool run model.onnx --layer pool -i 0=x.npy --against onnxruntime")
    p.add_argument("file", metavar="FILE", help="an IR .xml file (a net or a bare <layer>), an .onnx model (with"
                   " --layer NODE), or - for standard input")
    p.add_argument("-i", "--input", action="append", default=[], metavar="NAME=x.npy",
                   help="an input: NAME=x.npy, NAME=x.npz (its array NAME, or its only one), or x.npz (every array"
                        " by its name). NAME: a Parameter's name or tensor name; 0 for a bare layer")
    p.add_argument("-o", "--output", metavar="out.npz",
                   help="write the outputs here, atomically (the mode of an existing file is kept; a symlink is"
                        " written through): an .npz of every output, or a .npy when the run gives one output")
    p.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads per pooling layer (default: every core)")
    p.add_argument("--layer", metavar="ID|NAME", help="run only this pooling layer of the net, whatever else the net"
                   " holds, on its data input (-i 0=x.npy); outputs keyed by its output port ids (id:ID, name:NAME)")
    p.add_argument("--bin", metavar="PATH", help="the weights file, for --layer's shape input (default: the .bin"
                   " beside the .xml)")
    p.add_argument("--against", choices=("openvino", "onnxruntime"), help="run the same net, layer or node in the"
                   " installed runtime on the same input (a --layer: the model cut at it) and compare the bits:"
                   " exit 1 where they differ")
    p.set_defaults(func=_run)


def _codes_parser(sub, fmt) -> None:
    """irpool codes."""
    p = sub.add_parser("codes", formatter_class=fmt, help="list the finding codes, or explain one",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool codes\n  irpool codes shape-mismatch")
    p.add_argument("code", nargs="?", metavar="CODE", help="the code to explain")
    p.add_argument("--markdown", action="store_true", help="every code as the markdown page docs/codes.md")
    p.set_defaults(func=_codes)


def _explain_parser(sub, fmt) -> None:
    """irpool explain."""
    p = sub.add_parser("explain", formatter_class=fmt, help="show what decides each pooling layer's output",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool explain model.xml --layer pool1\n"
                                           "  irpool explain model.xml --json")
    p.add_argument("file", metavar="FILE", help="an IR .xml file, an .onnx model, or - for standard input")
    p.add_argument("--layer", metavar="ID|NAME", help="only the pooling layer (node) with this id or name (id:ID,"
                   " name:NAME)")
    p.add_argument("--bin", metavar="PATH", help="the weights file (default: the .bin beside the .xml)")
    p.add_argument("--json", action="store_true", help="one JSON document instead of text")
    p.add_argument("--shape", action="append", default=[], metavar="NAME=1,3,224,224",
                   help="an input's sizes (an .onnx input, or an IR Parameter by name), as check --shape; may be"
                        " repeated")
    p.set_defaults(func=_explain)


def _common_options(sub, cpu) -> None:
    """The options every command but codes takes (`cpu`: irpool.cpu, for the tiers and CPUs --cpu names)."""
    for name, p in sub.choices.items():
        if name == "codes":
            continue
        p.add_argument("--cpu", type=_tier, default=None, metavar="CPU",
                       help="the CPU OpenVINO's CPU plugin is judged for" + (" and whose rounding run follows"
                       if name == "run" else "") + ": host (default: this machine, ONEDNN_MAX_CPU_ISA honoured),"
                       " a tier (" + ", ".join(t.name for t in cpu.tiers()) + "), a CPU measured (" +
                       ", ".join(cpu.profiles()) + ")" + ("" if name == "run" else
                       ", or all (every tier: a cpu-dependent warning names the tiers that refuse)") +
                       "; default from [tool.irpool] cpu")
        if name != "check":
            p.add_argument("--isolated", action="store_true", help="read no pyproject.toml")
        p.add_argument("--max-bytes", type=_size, default=MAX_BYTES, metavar="N",
                       help="refuse a file larger than N bytes (suffixes K, M, G; default 1G)")


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
    except Exception as e:              # a bug of irpool's: exit 3 naming the file, never a traceback (crash.py)
        return crash.internal_error(args, e)


def _closed_pipe() -> int:
    """Standard output closed early: stop quietly, as a shell tool killed by SIGPIPE would (128 + 13)."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except OSError:
        pass
    return 141
