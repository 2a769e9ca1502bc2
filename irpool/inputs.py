"""What the command line reads: FILE arguments (a path, `-` for standard input, a pipe, or a folder searched
for IR .xml files and .onnx models) and the arrays `run -i` names."""
from __future__ import annotations

import fnmatch
import os
import sys
import tokenize
import zipfile
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from .codes import severity
from .errors import IRError
from .formats import FileResult
from .given import NotFitting
from .outputs import special_kind
from .report import Finding

STDIN = "-"


def expand(args, exclude=(), base: str | None = None) -> list:
    """(shown name, source, found in a folder) for each FILE argument; a folder gives its .xml and .onnx files, less
    those `exclude` matches (globs matched against the path from `base`, default the current folder, and
    against each of its parts: "build" leaves out every folder named build). A file named is never left out."""
    items = []
    base = os.path.abspath(base or os.getcwd())
    for arg in args:
        if arg == STDIN:
            items.append(("<stdin>", STDIN, False))
        elif os.path.isdir(arg):
            for root, dirs, files in os.walk(arg):
                dirs[:] = sorted(d for d in dirs if not _excluded(os.path.join(root, d), exclude, base))
                found = (os.path.join(root, f) for f in sorted(files) if f.lower().endswith((".xml", ".onnx")))
                items.extend((p, p, True) for p in found if not _excluded(p, exclude, base))
        else:
            items.append((arg, arg, False))
    return items


def _not_a_file(item) -> FileResult | None:
    """A FIFO, socket or device found in a folder, skipped unread: a folder's walk would wait on it for ever (found
    by an independent crash hunt: a FIFO named p.xml). A regular file, or a broken link (which says why it cannot be
    read), is read."""
    name, source, found = item
    if not found or os.path.isfile(source) or not os.path.exists(source):
        return None
    return FileResult(name, "skipped", f"{special_kind(source)}, not a regular file: a folder's walk does not read it")


def _excluded(path: str, globs, base: str) -> bool:
    if not globs:
        return False
    rel = os.path.relpath(os.path.abspath(path), base).replace(os.sep, "/")
    parts = rel.split("/")
    return any(fnmatch.fnmatchcase(rel, g) or any(fnmatch.fnmatchcase(p, g) for p in parts)
               for g in (g.rstrip("/") for g in globs))


def check_one(item, max_bytes: int, bin=None, shapes=None, cpu=None) -> FileResult:  # noqa: A002
    """irpool.check of one item as a FileResult: XML that is not IR, found in a folder, is skipped, and so
    is an .onnx model there when the onnx extra is missing. `cpu`: --cpu (irpool.cpu)."""
    from .frontend import check
    name, source, found = item
    if (special := _not_a_file(item)) is not None:
        return special
    try:
        report = _fitting(item, shapes, lambda shapes: check(sys.stdin.buffer if source == STDIN else source,
                                                             max_bytes=max_bytes, bin=bin, shapes=shapes,
                                                             file=name, cpu=cpu))
    except IRError as e:
        return _refused(item, e)
    return _result(name, report)


def _fitting(item, shapes, call, report_of=lambda r: r):
    """call(shapes): over a folder, a file that a --shape does not fit (no input of that name, another rank, a
    dim it declares otherwise) is checked without that --shape, and the report says why in a shape-not-applied
    note, first (in report_of(what call gives)); a file named alone refuses it (exit 2: a mistake in the command)."""
    notes = []
    while True:
        try:
            got = call(shapes or None)
        except NotFitting as e:
            if not item[2] or e.name not in shapes:
                raise
            notes.append(Finding("shape-not-applied", severity("shape-not-applied"), f"{e.reason}: checked on"
                                 " the dims the file declares, without it", None, file=item[0]))
            shapes = {k: v for k, v in shapes.items() if k != e.name}
            continue
        report_of(got).findings[:0] = notes
        return got


def _refused(item, e: IRError) -> FileResult:
    """XML that is not IR, found in a folder (or with --skip-non-ir), is skipped; anything else unreadable, an
    .onnx model found without the onnx extra too (a walk that checked none of its models must not pass)."""
    name, _, found = item
    return FileResult(name, "skipped" if found and e.code == "not-ir" else "unreadable", e.reason)


def _result(name: str, report, fixed=()) -> FileResult:
    for f in report.findings:
        f.file = name
    return FileResult(name, "ok", findings=report.findings, pooling_layers=report.pooling_layers,
                      pooling_kinds=report.kinds, unchecked=report.unchecked, fixed=list(fixed))


def fix_one(item, max_bytes: int, bin=None, shapes=None, cpu=None) -> tuple:  # noqa: A002
    """check --fix of one item: (FileResult of the fixed document, with what was fixed; the bytes as read;
    the bytes fixed). Nothing is written here. A file that cannot be read gives (FileResult, None, None)."""
    from .frontend import fix
    name, source, _ = item
    if (special := _not_a_file(item)) is not None:
        return special, None, None
    try:
        data = _read_bytes(source, max_bytes)
        fixed, done, report = _fitting(item, shapes, lambda shapes: fix(
            data, path=None if source == STDIN else source, file=name, bin=bin, max_bytes=max_bytes, shapes=shapes,
            cpu=cpu), lambda r: r[2])
    except IRError as e:
        return _refused(item, e), None, None
    return _result(name, report, done), data, fixed


def _read_bytes(source, max_bytes: int) -> bytes:
    if source == STDIN:
        data = sys.stdin.buffer.read(max_bytes + 1)
    else:
        try:
            with open(source, "rb") as f:
                data = f.read(max_bytes + 1)
        except OSError as e:
            raise IRError(f"cannot read it: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise IRError(f"larger than --max-bytes ({max_bytes} bytes)")
    return data


def check_all(items, max_bytes: int, jobs: int, bin=None, shapes=None, cpu=None):  # noqa: A002
    """FileResults in the order of `items`, on `jobs` processes (standard input on this one). `bin`: the
    weights file of a single item.

    Files go to the processes in batches (a task per file cost more in hand-over than a small file's check:
    3,001 small files took 1.34 s on 2 processes against 1.05 s on one), each result is yielded as soon as
    its batch and every batch before it are done, and a walk too small to repay starting processes stays on
    this one."""
    jobs = min(jobs, len(items))
    if jobs <= 1 or not _worth_processes(items):
        yield from (check_one(item, max_bytes, bin, shapes, cpu) for item in items)
        return
    size = max(1, min(64, len(items) // (jobs * 8)))
    batches = [items[i:i + size] for i in range(0, len(items), size)]
    with ProcessPoolExecutor(jobs) as pool:
        futures = [None if any(item[1] == STDIN for item in batch) else
                   pool.submit(_check_batch, batch, max_bytes, shapes, cpu) for batch in batches]
        for batch, future in zip(batches, futures):
            yield from _check_batch(batch, max_bytes, shapes, cpu) if future is None else future.result()


def _check_batch(batch, max_bytes: int, shapes=None, cpu=None) -> list:
    return [check_one(item, max_bytes, shapes=shapes, cpu=cpu) for item in batch]


# what checking costs on one process, roughly (measured: about 0.3 ms a small file, 20 MB/s), and what
# starting the processes costs
_PER_FILE, _PER_BYTE, _START = 0.3e-3, 1 / 20e6, 0.15


def _worth_processes(items) -> bool:
    """Whether the walk takes long enough on one process for more processes to win."""
    serial = 0.0
    for _, source, _ in items:
        try:
            serial += _PER_FILE + (0 if source == STDIN else os.stat(source).st_size * _PER_BYTE)
        except OSError:
            serial += _PER_FILE
        if serial > 2 * _START:
            return True
    return False


class Arrays(dict):
    """load_arrays' {name: array}, with the file each was read from (`origins`): a refused input is named by it."""

    def __init__(self):
        super().__init__()
        self.origins = {}

    def typed(self, program) -> "Arrays":
        """These arrays as `program` takes them (its typed(): an .npy's bytes of an ml_dtypes array as the type
        declared), each still named by its -i file."""
        typed = Arrays()
        typed.update(program.typed(self))
        typed.origins = self.origins
        return typed

    def run(self, program, threads=None) -> dict:
        """program.run(self, threads), a refused array named by the -i file it came from (blame)."""
        try:
            return program.run(self, threads)
        except IRError as e:
            raise self.blame(e) from None

    def blame(self, e: IRError) -> IRError:
        """A refusal of an input array (bad-input: its rank, dims, element type) with the -i file it came from,
        so the message says the input's fault, not the model's; other errors as they are."""
        named = [k for k in self.origins if f"input {k!r}" in e.reason] or list(self.origins)
        if e.code != "bad-input" or len(named) != 1:
            return e
        return IRError(f"{self.origins[named[0]]} (-i {named[0]}): {e.reason}", file=e.file, line=e.line,
                       layer_id=e.layer_id, layer_name=e.layer_name, layer_type=e.layer_type, code=e.code)


def load_arrays(items) -> Arrays:
    """`-i NAME=file.npy`, `-i NAME=file.npz` (its array NAME, or its only array) or `-i file.npz` (every
    array by its own name): {name: array}; a name given twice, or a file numpy cannot read, is refused."""
    arrays = Arrays()

    def add(name, array, origin):
        if name in arrays:
            raise IRError(f"-i gives input {name!r} twice (again from {origin})")
        arrays[name], arrays.origins[name] = array, origin

    for item in items:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = None, item
        if sep and not name:
            raise IRError(f"-i takes NAME=file.npy, NAME=file.npz or file.npz, got {item!r}")
        data = _load(path)
        if isinstance(data, dict):
            if name is None:
                for key, array in data.items():
                    add(key, array, path)
            elif name in data:
                add(name, data[name], path)
            elif len(data) == 1:
                add(name, next(iter(data.values())), path)
            else:
                shown = ", ".join(map(repr, list(data)[:8])) + (f" and {len(data) - 8} more" if len(data) > 8 else "")
                raise IRError(f"{path} holds arrays {shown}, none named {name!r}: say which"
                              f" with -i {name}=<file holding one array>, or name the inputs in the .npz")
        elif name is None:
            raise IRError(f"-i {item}: a .npy holds one unnamed array; give it a name: -i NAME={path}")
        else:
            add(name, data, path)
    return arrays


_DAMAGED = (OSError, ValueError, SyntaxError, EOFError, OverflowError, RuntimeError, NotImplementedError,
            tokenize.TokenError, zipfile.BadZipFile)    # what np.load raises on a damaged file (found by two crash
#   hunts): a header cut short (tokenize's TokenError), a shape past 2^64 (OverflowError), an .npz member flagged
#   encrypted (zipfile's RuntimeError) or compressed in a way zipfile does not read (NotImplementedError)


def _arrays(npz) -> dict:
    """The arrays of an .npz: its .npy members (numpy gives any other member as bytes: not an input, left out; a
    .npy member that is not an array is damage)."""
    arrays, members = {}, set(npz.zip.namelist())
    for k in npz.files:
        value = npz[k]
        if isinstance(value, np.ndarray):
            arrays[k] = value
        elif k + ".npy" in members:
            raise ValueError(f"its member {k}.npy is not a numpy array")
    return arrays


def _load(path: str):
    """An array (.npy) or {name: array} (.npz), read without pickles; IRError in irpool's words otherwise."""
    try:
        with open(path, "rb") as f:
            magic = f.read(6)
    except OSError as e:
        raise IRError(f"cannot read input file {path}: {e.strerror or e}") from None
    try:
        return _numpy_load(path, magic)
    except MemoryError:
        raise IRError(f"cannot read input file {path}: its arrays do not fit in this machine's memory") from None


def _numpy_load(path: str, magic: bytes):
    """_load's reading, of a file whose first bytes are `magic`."""
    if magic[:4] == b"PK\x03\x04":
        try:
            with np.load(path, allow_pickle=False) as npz:
                return _arrays(npz)
        except _DAMAGED as e:
            raise IRError(f"cannot read input file {path}: a damaged .npz ({e})") from None
    if magic != b"\x93NUMPY":
        raise IRError(f"input file {path} is not a numpy .npy or .npz file")
    try:
        return np.load(path, allow_pickle=False)
    except _DAMAGED as e:
        reason = str(e) if isinstance(e, (OSError, ValueError)) else f"a damaged .npy ({type(e).__name__}: {e})"
        if "max_header_size" in str(e):
            reason = "its header is longer than numpy reads safely (a damaged .npy, or not numpy's)"
        elif "pickle" in str(e):
            reason = "it holds Python objects, which irpool does not load"
        raise IRError(f"cannot read input file {path}: {reason}") from None
