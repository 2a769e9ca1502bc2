"""--shape NAME=dims, for both front ends: read from the command line, and checked against what the named input
declares. A mistake here is in the command, not in the model: an IRError (exit 2), never a finding."""
from __future__ import annotations

import operator

from .errors import IRError


def read(text_items) -> dict:
    """--shape NAME=1,3,224,224 (as benchmark_app -shape takes it; also NAME[1,3,224,224]) as {name: dims}."""
    shapes = {}
    for item in text_items:
        name, sep, dims = item.partition("=")
        if not sep and "[" in item:
            name, dims = item.split("[", 1)
            dims = dims.rstrip("]")
        dims = dims.strip("[] ")
        try:
            values = tuple(int(d) for d in dims.split(",")) if dims else ()
        except ValueError:
            raise IRError(f"--shape takes NAME=1,3,224,224, got {item!r}") from None
        if not name or not _dims_ok(values):
            raise IRError(f"--shape takes NAME=1,3,224,224 (dims of 0 to 2^63 - 1), got {item!r}")
        if name in shapes:
            raise IRError(f"--shape gives input {name!r} twice ({','.join(map(str, shapes[name]))} and"
                          f" {','.join(map(str, values))})")
        shapes[name] = values
    return shapes


MOST_DIM = (1 << 63) - 1      # (a dim is an int64 in both runtimes)


def _dims_ok(values) -> bool:
    """Dims both runtimes take: one at least, each an int64 of 0 or more."""
    return bool(values) and all(0 <= v <= MOST_DIM for v in values)


def valid(shapes) -> dict | None:
    """The Python API's `shapes` ({input name: dims}) as read() gives them; IRError for anything else (a dim past
    int64 ended in an internal error: crash hunt 3)."""
    if shapes is None:
        return None
    if not isinstance(shapes, dict):
        raise IRError(f"shapes takes {{input name: dims}}, got a {type(shapes).__name__}")
    out = {}
    for name, dims in shapes.items():
        try:
            values = tuple(operator.index(d) for d in dims)
        except TypeError:
            values = None
        if not isinstance(name, str) or not _dims_ok(values):
            raise IRError(f"shapes[{name!r}] = {dims!r}: give an input's name and its dims, whole numbers from 0 to"
                          " 2^63 - 1")
        out[name] = values
    return out


class NotFitting(IRError):
    """A --shape the model does not fit (`name`: the input it gives): exit 2 for a file named on the command
    line; a file found in a folder is checked without it, with a shape-not-applied note (inputs.check_one)."""

    def __init__(self, name: str, message: str, file: str | None = None):
        super().__init__(message, file=file, code="shape-not-applied")
        self.name = name


def unknown(name: str, inputs, file: str | None = None) -> IRError:
    """--shape names no input of the model (`inputs`: the names it has)."""
    return NotFitting(name, f"--shape {name}=...: the model has no input named {name!r} (its inputs: "
                      + (", ".join(repr(n) for n in inputs) or "none") + ")", file=file)


def fits(name: str, dims, declared, shown: str, file: str | None = None) -> None:
    """--shape's `dims` for input `name` have its rank and lie within each dim it declares: `declared` is a
    (lo, hi) per dim (hi None: unbounded; a number n is (n, n)), `shown` the input's shape as the message gives it."""
    said = f"--shape {name}={','.join(map(str, dims))}"
    if len(dims) != len(declared):
        raise NotFitting(name, f"{said}: {len(dims)} dims, but input {name!r} is {shown}, of rank {len(declared)}",
                         file=file)
    for i, ((lo, hi), g) in enumerate(zip(declared, dims)):
        if g < lo or hi is not None and g > hi:
            raise NotFitting(name, f"{said}: dim {i} is {g}, but input {name!r} declares {shown}: --shape may only"
                             " give its dynamic dims, within their bounds", file=file)
