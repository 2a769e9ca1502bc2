"""An internal error of irpool's as the command line says it: one line naming the file it was reading, exit 3;
never a traceback, never the exit status of an ordinary finding (1)."""
from __future__ import annotations

import sys

INTERNAL = 3


def naming(args, items, results):
    """`results` (one per item, in order) passed on, `args.at` naming the item being read meanwhile."""
    it = iter(results)
    for name, *_ in items:
        args.at = name
        try:
            yield next(it)
        except StopIteration:
            return


def internal_error(args, e: BaseException) -> int:
    """Say `e` (a bug) on standard error with the file it happened on; the exit status."""
    from . import __version__
    print(f"irpool: internal error, please report (irpool {__version__}): {where(args)}: {type(e).__name__}: {e}",
          file=sys.stderr)
    return INTERNAL


def where(args) -> str:
    """The file (or files) a command was at."""
    return getattr(args, "at", None) or getattr(args, "file", None) or ", ".join(getattr(args, "files", None) or ())
