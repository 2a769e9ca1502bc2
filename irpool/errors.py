"""The one exception irpool raises for anything it refuses, carrying where it happened."""
from __future__ import annotations


class IRError(ValueError):
    """Everything irpool refuses raises this (a ValueError): a file that cannot be read or is not IR, a layer
    run cannot compute, a bad input array, bad ONNX attributes. `str(e)` is one line naming where; the
    parts are `e.reason`, `e.file`, `e.line`, `e.layer_id`, `e.layer_name`, `e.layer_type`, and `e.code`
    (not-ir, bad-attribute, bad-input, unsupported, ...).

        >>> try:
        ...     irpool.run("model.xml", {"image": x})
        ... except irpool.IRError as e:
        ...     print(e.file, e.line, e.reason)

    The core raises it bare; the IR and ONNX front ends re-raise it with the location filled in.
    """

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 layer_id: str | None = None, layer_name: str | None = None,
                 layer_type: str | None = None, code: str = "refused"):
        self.reason, self.code = message, code
        self.file, self.line = file, line
        self.layer_id, self.layer_name, self.layer_type = layer_id, layer_name, layer_type
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.file is not None or self.line is not None:
            where.append(self.file or '<string>' if self.line is None else f"{self.file or '<string>'}:{self.line}")
        if self.layer_id is not None or self.layer_name is not None:
            who = f"layer id={self.layer_id!s}"
            if self.layer_name is not None:
                who += f" name={self.layer_name!r}"
            if self.layer_type is not None:
                who += f" type={self.layer_type}"
            where.append(who)
        return (": ".join(where) + ": " if where else "") + self.reason

    def located(self, **where) -> "IRError":
        """A copy with location fields added (fields already set are kept)."""
        fields = dict(file=self.file, line=self.line, layer_id=self.layer_id,
                      layer_name=self.layer_name, layer_type=self.layer_type)
        for k, v in where.items():
            if fields.get(k) is None:
                fields[k] = v
        return IRError(self.reason, code=self.code, **fields)
