"""What a room of check finds, as it returns it: the room's function takes what it reads and returns these, and the
net being checked (state.NetCheck.take) makes them findings, with the severity schemas/codes.json gives."""
from __future__ import annotations

from typing import NamedTuple


class Found(NamedTuple):
    """A finding before it is one: its code, message and line; `who`, the layer it is of (a read_layer Layer, or a
    <layer> element or a dict with its id, name and type); `build_time`, read_model says it only where it builds
    the layer (a warning where it never does: finish); `fix`, --fix's edit; `reader`, the id of the layer whose edge
    uses the output the verdict is about (read_model keeps that edge only where it builds that layer: finish)."""
    code: str
    message: str
    line: int | None
    who: object = None
    build_time: bool = False
    fix: dict | None = None
    reader: str | None = None
