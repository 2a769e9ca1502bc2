"""One layer selector for both front ends (--layer WORD, layer=; DESIGN.md section 10): a bare WORD selects the
layers whose id is WORD (an ONNX node's: its index in the main graph), else those whose name is WORD (an ONNX
node's output names count as its names); `id:WORD` selects by id only and `name:WORD` by name only. A bare word
that is one layer's id and another's name is an error naming both and the two ways to say which, never a silent
pick (an IR converted from torch's ONNX names a layer '8' beside the layer whose id is 8)."""
from __future__ import annotations

from dataclasses import dataclass

from .errors import IRError

SHOWN = 10          # the pooling layers a not-found error lists, at most


@dataclass(frozen=True)
class Selector:
    word: str               # as given
    id: str | None          # the id sought (None: not by id)
    name: str | None        # the name sought (None: not by name)

    @property
    def sought(self) -> str:
        """The word without its id: or name: prefix, as given."""
        return self.word.split(":", 1)[1] if self.id is None or self.name is None else self.word

    @property
    def by(self) -> str:
        """What the word is sought as, in the words of an error."""
        return "id or name" if self.id is not None and self.name is not None else "id" if self.name is None \
            else "name"


def parse(word, id_key=str) -> Selector:
    """The Selector of --layer's word; `id_key` writes an id as the front end keeps ids (IR: ids.key, "06" is 6)."""
    word = str(word)
    if word.startswith("id:"):
        return Selector(word, id_key(word[3:]), None)
    if word.startswith("name:"):
        return Selector(word, None, word[5:])
    return Selector(word, id_key(word), word)


def choose(sel: Selector, by_id: list, by_name: list, describe, file=None, id_word: str = "id") -> list:
    """The layers `sel` selects, from those whose id is sought and those whose name is; `describe(layer)` names a
    layer in the error (exit 2) where the two lists hold different layers. `id_word`: what the front end calls an
    id (ONNX: "index")."""
    names = [x for x in by_name if not any(x is y for y in by_id)]
    if by_id and names:
        w = sel.word
        raise IRError(f"--layer {w!r} is ambiguous: it is the {id_word} of {describe(by_id[0])} and the name of"
                      f" {describe(names[0])}; say which: --layer id:{w} or --layer name:{w} (Python: layer="
                      f"'id:{w}' or 'name:{w}')", file=file, code="no-such-layer")
    return by_id or names


def missing(sel: Selector, noun: str, known: list, total: int, file=None, id_word: str = "id",
            listing: str = "") -> IRError:
    """The no-such-layer error (exit 2) of a word nothing has: `known`, the pooling layers described (the first
    SHOWN of `total`, all of them `listing`: default `noun` + s), so the user sees what to give, as run and explain
    both say."""
    listing = listing or noun + "s"
    shown = ", ".join(known[:SHOWN]) + (f", and {total - SHOWN} more" if total > SHOWN else "")
    listed = f"; its {listing} include {shown}" if known else f"; it has no {listing[:-1]}"
    return IRError(f"no {noun} has {sel.by.replace('id', id_word, 1)} {sel.sought!r}{listed}", file=file,
                   code="no-such-layer")


def pick(word, items: list, id_of, names_of, describe, file=None, noun: str = "pooling layer",
         id_word: str = "id", id_key=str) -> list:
    """The items (layers, nodes) --layer's word selects, none not found: `id_of(item)` its id (None: one that
    cannot be selected by id), `names_of(item)` its names, `describe(item)` how errors name it."""
    sel = parse(word, id_key)
    by_id = [x for x in items if sel.id is not None and id_of(x) == sel.id]
    by_name = [x for x in items if sel.name is not None and sel.name in names_of(x)]
    found = choose(sel, by_id, by_name, describe, file, id_word)
    if not found:
        raise missing(sel, noun, [describe(x) for x in items[:SHOWN]], len(items), file, id_word)
    return found
