"""Writing files as careful tools do (`run -o`, `check --fix`): the target is checked before anything is
computed; the file is written to a temporary file beside it and renamed over it, so a reader never sees half a
file; an existing file keeps its mode (a new one gets the umask's), a symlink is written through to its
target, and SIGINT, SIGTERM or SIGHUP during the write leave no temporary file and the old file intact."""
from __future__ import annotations

import contextlib
import os
import signal
import stat
import tempfile
import zipfile

import numpy as np

from .errors import IRError

_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def target(path: str) -> str:
    """The file that `-o path` replaces (a symlink's target); IRError for what cannot be written."""
    if path == "":
        raise IRError("-o needs a file name")
    if path == "-":
        raise IRError("-o -: irpool writes its .npz to a named file only, not to standard output")
    real = os.path.realpath(path) if os.path.islink(path) else path
    folder = os.path.dirname(os.path.abspath(real))
    if path.endswith(("/", os.sep)) or os.path.isdir(real):
        raise IRError(f"-o {path} is a folder")
    if not os.path.isdir(folder):
        raise IRError(f"-o {path}: the folder {folder} does not exist")
    if os.path.exists(real) and not os.path.isfile(real):
        raise IRError(f"-o {path} is {special_kind(real)}, not a regular file: irpool writes a file beside it and renames"
                      " it over the target, which would replace it")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise IRError(f"-o {path}: the folder {folder} is not writable")
    most = _name_max(folder)
    if len(os.fsencode(os.path.basename(real))) > most:
        raise IRError(f"-o {path}: the file name is longer than the {most} bytes its folder takes")
    return real


def not_read(real: str, sources) -> None:
    """Refuse `-o` where it names a file the run reads (the model, an -i input): it would be replaced."""
    for source in sources:
        same = False
        with contextlib.suppress(OSError, ValueError, TypeError):
            same = os.path.exists(real) and os.path.samefile(real, source)
        if same:
            raise IRError(f"-o {real} is {source}, which this run reads: write the outputs to another file")


def special_kind(path: str) -> str:
    """What a path that is no regular file names: a FIFO, a socket or a device (inputs.py skips one in a folder)."""
    mode = os.stat(path).st_mode
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"


def _name_max(folder: str) -> int:
    try:
        return os.pathconf(folder, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):
        return 255


def _mode(real: str) -> int:
    try:
        return stat.S_IMODE(os.stat(real).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def signals_as_exit():
    """SIGTERM and SIGHUP raise SystemExit (128 + signal) meanwhile, as SIGINT raises KeyboardInterrupt, so that a
    with-block's cleanup runs (write_atomic's temporary file, run --against's folder)."""
    def stop(signum, _frame):
        raise SystemExit(128 + signum)
    old = {s: signal.signal(s, stop) for s in _SIGNALS}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


def write_atomic(path: str, write, suffix: str = "") -> str:
    """Call write(binary file) on a temporary file beside `path`, then rename it over `path`: the file
    written (a symlink's target). The mode of an existing file is kept. Signals wait while the temporary file
    is made and while it is removed (a SIGTERM between mkstemp's creating it and `tmp` naming it left it behind:
    seen in CI under load), and are taken only while the data is written and renamed."""
    real = target(path)
    mode = _mode(real)
    with signals_as_exit(), _signals_held() as released:
        fd, tmp = tempfile.mkstemp(prefix=".irpool-", suffix=suffix, dir=os.path.dirname(os.path.abspath(real)))
        f = os.fdopen(fd, "wb")                 # (signals held: the file object owns the descriptor at once)
        try:
            with released():
                with f:
                    write(f)
                os.chmod(tmp, mode)
                os.replace(tmp, real)
        except BaseException as e:
            f.close()                           # (closing twice is harmless)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            stop = _signal_behind(e)
            if stop is not None and stop is not e:
                raise stop from None
            if isinstance(e, OSError):           # (the folder refused the file: name the target, not the temporary)
                raise IRError(f"{path}: cannot write it: {e.strerror or e}") from None
            raise
    return real


def _signal_behind(e: BaseException):
    """The KeyboardInterrupt or SystemExit (a signal, above) that `e` was raised while handling, if any: a writer
    whose cleanup raises while a signal unwinds it would otherwise hide the signal (exit 1 and a traceback instead
    of 128 + the signal; seen once in CI, a ZipFile refusing its close after a signal inside a member's close,
    which write_npz now holds signals around)."""
    while e is not None:
        if isinstance(e, (KeyboardInterrupt, SystemExit)):
            return e
        e = e.__context__
    return None


@contextlib.contextmanager
def _signals_held():
    """SIGINT, SIGTERM and SIGHUP wait meanwhile (noted, then handled as they would have been), but inside the
    `released()` this yields. A signal inside a ZipFile's __init__ or a member's close leaves an object whose
    __del__ prints a traceback at exit (seen in CI: 'ZipFile' object has no attribute '_writing'; and "Can't close
    the ZIP file while there is an open writing handle"), so only the writing of the data is left open to them.
    Python's handlers, not a signal mask: numpy's threads would take a signal the main thread blocks. (Inside
    write_atomic, whose signals_as_exit already needs the main thread.)"""
    old, pending = {}, []

    def hold():
        old.update((s, signal.signal(s, lambda signum, frame: pending.append((signum, frame))))
                   for s in (signal.SIGINT,) + _SIGNALS)

    def release():
        for s, handler in old.items():
            signal.signal(s, handler)
        waiting = pending[:1]
        pending.clear()
        for signum, frame in waiting:
            if callable(old[signum]):
                old[signum](signum, frame)
            elif old[signum] == signal.SIG_DFL:
                os.kill(os.getpid(), signum)

    @contextlib.contextmanager
    def released():
        release()
        try:
            yield
        finally:
            hold()
    hold()
    try:
        yield released
    finally:
        release()


def write_npz(path: str, arrays: dict) -> str:
    """Write {name: array} as an .npz to `path` atomically; the file written (a symlink's target). The ZipFile and
    its members are made and closed with signals held (a signal anywhere leaves nothing half made or open), and freed
    so: a SIGINT inside ZipFile.__del__ at write's return was "ignored" and the writer went on (a writer of the slow
    300-writer test looped for minutes under pytest -n 2; py-bt on AMD EPYC family 25 model 17)."""
    def write(f):
        with _signals_held() as released:
            z = zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True)
            try:
                for name, array in arrays.items():
                    member = z.open(f"{name}.npy", "w", force_zip64=True)
                    try:
                        with released():
                            np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
                    finally:
                        member.close()
                        del member
            finally:
                z.close()
                del z       # (here, held: their __del__ runs Python code, where a KeyboardInterrupt is lost)
    return write_atomic(path, write, ".npz")


def write_npy(path: str, array) -> str:
    """Write one array as a .npy to `path` atomically; the file written."""
    return write_atomic(path, lambda f: np.lib.format.write_array(f, np.asanyarray(array), allow_pickle=False), ".npy")
