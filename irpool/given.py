"""--shape NAME=dims, for both front ends: read from the command line, and checked against what the named input
declares. A mistake here is in the command, not in the model: an IRError (exit 2), never a finding."""
from __future__ import annotations

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
        if not name or not values or any(v < 0 for v in values):
            raise IRError(f"--shape takes NAME=1,3,224,224 (dims of 0 or more), got {item!r}")
        shapes[name] = values
    return shapes


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
