"""The irpool command: a table of its commands (COMMANDS). The command line they read is arguments.py, reading
inputs inputs.py, writing outputs outputs.py, report formats formats.py. Every failure is one line on stderr, never
a traceback."""
from __future__ import annotations

import json
import os
import sys

from . import crash
from .arguments import parser as _parser          # (tests/cli/test_cli_tool.py reads the parser from here)
from .version import __version__
from .errors import IRError


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
    from .outputs import not_read, target, write_npy, write_npz
    npy = args.output is not None and args.output.lower().endswith(".npy")
    if args.output is not None:                  # before computing anything
        not_read(target(args.output), [args.file] + [item.partition("=")[2] or item for item in args.input or ()])
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
        return against(args.against, args.file, program, inputs.typed(program), outputs, layer=args.layer,
                       bin=args.bin, cpu=_cpu(args))
    return 0


def _explain(args) -> int:
    """Each layer printed as check reaches it: text blocks, or one JSON document streamed entry by entry."""
    from .frontend import each_entry, render
    source = _source(args.file)
    failed = []

    def show(e):
        failed.append(bool(e["error"]) or any(o.get("differs") for o in e.get("outputs") or ()))
        if args.json:
            print((",\n" if len(failed) > 1 else _JSON_HEAD) + json.dumps(e, indent=1), end="")
        else:
            print(render(e))
    try:
        count = each_entry(source, show, args.layer, max_bytes=args.max_bytes, bin=args.bin, shapes=_shapes(args),
                           cpu=_cpu(args))
    except IRError as e:            # (a JSON document begun is ended, saying why: never half a document)
        if args.json and failed:
            print(f'\n], "error": {json.dumps(str(e))}}}')
        raise
    if args.json:
        print(("" if failed else _JSON_HEAD) + "\n]}")
    elif not count:
        print("no pooling layers")
    return 1 if any(failed) else 0


_JSON_HEAD = f'{{"irpool": {json.dumps(__version__)}, "layers": [\n'     # (explain --json, once its first entry is known)


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


COMMANDS = {"check": _check, "run": _run, "explain": _explain, "codes": _codes}   # arguments.py's COMMAND


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (IRError, OSError, MemoryError) as e:
        if isinstance(e, BrokenPipeError):
            return _closed_pipe()
        said = f"{crash.where(args)}: out of memory: {e}" if isinstance(e, MemoryError) else e
        print(f"irpool: {said}", file=sys.stderr)
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
