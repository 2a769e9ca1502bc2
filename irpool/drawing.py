"""One spatial axis drawn in the terminal, for `explain` of IR and ONNX alike: the padded input, the first
window and the last ones, and the window that starts in the end padding with the rule that keeps or drops
it. The answer to "why 9 and not 10" is on the page.

    cells -1..18   .ooooooooooooooooo.        (o input from cell 0, . padding)
    window 0       ##                         cells -1..0
    window 8                        ##        cells 15..16
    window 9 (?)                      #.      cells 17..18: starts at cell 17, in the end padding: ...

Every cell number is in the input's frame (its first cell is 0, the begin padding's are negative), as the
arithmetic lines say them (core/shape.py).
"""
from __future__ import annotations

WIDTH = 64       # columns of cells drawn at most; a longer axis shows its start and its end


def _columns(lo: int, hi: int, keep: list) -> list:
    """The positions drawn, None for a gap: all of lo..hi-1 when they fit, else the start and the windows kept."""
    if hi - lo <= WIDTH:
        return list(range(lo, hi))
    wanted = set(range(lo, min(hi, lo + 8)))
    for a, b in keep:
        wanted.update(range(max(lo, a - 2), min(hi, b + 2)))
    cols, last = [], None
    for p in sorted(wanted):
        if last is not None and p != last + 1:
            cols.append(None)
        cols.append(p)
        last = p
    return cols


def axis(name: str, length: int, kernel: int, stride: int, dilation: int, pad_begin: int, pad_end: int,
         out: int, extra: str | None = None) -> list:
    """Lines drawing one axis of `out` windows; `extra`: the note of a window past them that another rule
    keeps (drawn with a '?')."""
    dk = (kernel - 1) * dilation + 1
    count = out + (1 if extra else 0)
    if length is None or count <= 0 or pad_begin is None:
        return []
    shown = sorted({0, *range(max(0, out - 2), count)})
    spans = [(w * stride - pad_begin, w * stride - pad_begin + dk) for w in shown]
    lo = -pad_begin
    hi = max([length + pad_end] + [b for _, b in spans])
    cols = _columns(lo, hi, spans)

    def cell(p):
        return "…" if p is None else "o" if 0 <= p < length else "." if p < length + pad_end else " "

    label = f"{name} cells {lo}..{hi - 1}"
    width = max(len(label), 16)
    lines = [f"{label:<{width}} {''.join(cell(p) for p in cols)}   (o input from cell 0, . padding)"]
    for w, (a, b) in zip(shown, spans):
        taps = {a + t * dilation for t in range(kernel)}
        row = "".join(" " if p is None or not a <= p < b else "#" if p in taps else "-" for p in cols)
        tag = f"window {w}" + (" (?)" if w >= out else "")
        note = f"cells {a}..{b - 1}"
        if w >= out:
            note += f": {extra}"
        elif a >= length:
            note += f": starts at cell {a}, in the end padding"
        lines.append(f"{tag:<{width}} {row.rstrip():<{len(cols)}}   {note}")
        if w == 0 and shown[1:2] and shown[1] > 1:
            lines.append(f"{'…':<{width}}")
    return lines
