"""irpool's command line as argparse reads it: the commands, their options, help and epilogs, and the types that
refuse a bad value with exit 2. Apart from cli.py so that cli.py stays the commands' code; cli.COMMANDS maps each
command named here to the function that does it."""
from __future__ import annotations

import argparse

from .errors import IRError
from .limits import MAX_BYTES
from .version import __version__

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


def parser() -> argparse.ArgumentParser:
    """The whole command line: --version, the commands, and the options all but codes take."""
    from . import cpu
    fmt = argparse.RawDescriptionHelpFormatter
    top = argparse.ArgumentParser(
        prog="irpool", formatter_class=fmt,
        description="Check, explain and run the pooling layers of OpenVINO IR files (MaxPool, AvgPool,"
                    " AdaptiveAvgPool, AdaptiveMaxPool, and ReduceMean/ReduceMax over the spatial axes) and the"
                    " pooling nodes of ONNX models (MaxPool, AveragePool, LpPool and their Global forms).",
        epilog=EXIT_CODES + "\n\nexamples:\n  irpool check model.xml models/ -j 4 --format github\n"
                            "  irpool run model.xml -i image=x.npy -o out.npz")
    top.add_argument("--version", action="version", version=f"irpool {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_check_parser, _run_parser, _codes_parser, _explain_parser):
        add(sub, fmt)
    _common_options(sub, cpu)
    return top


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
    p.set_defaults(format="text")


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


def _codes_parser(sub, fmt) -> None:
    """irpool codes."""
    p = sub.add_parser("codes", formatter_class=fmt, help="list the finding codes, or explain one",
                       epilog=EXIT_CODES + "\n\nexamples:\n  irpool codes\n  irpool codes shape-mismatch")
    p.add_argument("code", nargs="?", metavar="CODE", help="the code to explain")
    p.add_argument("--markdown", action="store_true", help="every code as the markdown page docs/codes.md")


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
