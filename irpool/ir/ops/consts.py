"""The values of the small Const layers a pooling-family layer reads its shape from (axes, output_shape), out of
the weights file as OpenVINO reads it: `<data element_type shape offset size>`, the bytes at [offset,
offset + size) of the .bin. Everything is checked against the file before a byte is read, and only those
bytes are read (one seek): never the whole weights file."""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...errors import IRError
from ...opdefs import load
from ..read import ids
from ..read.ids import key
from .pools import int_list
from ..read.structure import line_of

SHAPE_TYPES = {"i32": "<i4", "i64": "<i8", "u32": "<u4", "u64": "<u8", "i8": "i1", "u8": "u1", "i16": "<i2",
               "u16": "<u2"}
PACKED = {"u4": False, "i4": True}   # 4-bit integers (signed or not): two to a byte, the low nibble first
FLOATS = {"f16": "<f2", "f32": "<f4", "f64": "<f8", "bf16": "<u2"}   # an adaptive pool's output_shape may be one
MOST_VALUES = 64          # a shape input holds one value per axis: anything larger is not one


@dataclass(frozen=True)
class Const:
    """What a <layer type="Const"> says of its value, kept for the layers that read it."""
    id: str
    name: str | None
    line: int
    data: dict

    @classmethod
    def of(cls, el) -> "Const":
        """From a <layer type="Const"> element; its line is its <data>'s, where offset and size are written."""
        data = el.find("data")
        return cls.written(el.get("id"), el.get("name"), data, el)

    @classmethod
    def written(cls, lid, name, data, el=None) -> "Const":
        """From its id and name as written and its <data> (`el`, the layer: its line where it has no <data>)."""
        return cls(key(lid), name, line_of(data if data is not None else el), dict(data.attrib) if data is not None else {})

    @staticmethod
    def may_be_shape(el, data=False) -> bool:
        """Whether a <layer type="Const"> could be a shape input (an integer scalar or 1-D Const, or a float one of
        at most 3 values, as an adaptive pool's output_shape): the only ones check keeps, so that a file of many
        weights costs what a file of few does. `data`: its <data>, where the caller has it."""
        if data is False:
            data = el.find("data")
        if data is None:
            return True
        et, shape = (data.get("element_type") or "").strip().lower(), data.get("shape") or ""
        if et in FLOATS:
            return shape.strip() in ("1", "2", "3")
        return (et in SHAPE_TYPES or et in PACKED) and "," not in shape.rstrip(",")

    @property
    def element_type(self) -> str:
        """Its element_type as OpenVINO matches it ("i64"), "" when none is written."""
        return (self.data.get("element_type") or "").strip().lower()

    def where(self, file, line=None) -> dict:
        return dict(file=file, line=line or self.line, layer_id=self.id, layer_name=self.name, layer_type="Const")


def bin_path(given, file: str | None) -> str | None:
    """The weights file to read: the one given (--bin, bin=), else the one OpenVINO reads for an .xml path (the
    same path ending in .bin); None for strings, bytes and standard input."""
    if given is not None:
        return os.fspath(given)
    if not file or file == "<stdin>" or not os.path.isfile(file):
        return None
    return os.path.splitext(file)[0] + ".bin"


class Missing(Exception):
    """No weights file to read (none given, or none beside the .xml): the layers that need it are unchecked."""


def read(const: Const, bin_path: str | None, file: str | None, as_read_model: bool = False,
         output_shape: bool = False) -> np.ndarray:
    """The Const's values as a 1-D int64 array. Missing when there is no weights file; IRError (code
    bad-weights, naming the Const, the .bin and the byte range) when the <data> or the file is inconsistent.

    u4 and i4 (PACKED) are unpacked as compile_model does; `as_read_model`: as read_model's shape inference
    reads them, element k the signed byte at offset + k, past the Const's size too (measured, 2026.4.1).
    `output_shape`: an adaptive pool's, where a float type is read too (_truncated) and a scalar refused (_where)."""
    d = const.data
    et, text = const.element_type, d.get("shape")

    def refused(why):
        return IRError(why, code="bad-weights", **const.where(file))
    if et in PACKED:
        return _packed(const, bin_path, file, as_read_model, refused, output_shape)
    dtype = SHAPE_TYPES.get(et) or output_shape and FLOATS.get(et)
    if not dtype:
        raise refused(f"element_type={d.get('element_type')!r}: a shape input holds integers"
                      f" ({', '.join(SHAPE_TYPES)}{', or floats' if output_shape else ''})")
    count, offset, size = _where(d, text, refused, output_shape)
    itemsize = np.dtype(dtype).itemsize
    span = f"bytes [{offset}, {offset + size})"
    if count > MOST_VALUES:
        raise refused(f"{span} of the .bin: shape [{count}] is too large for a shape input (at most {MOST_VALUES} values)")
    if offset < 0 or size < count * itemsize:          # (a larger size: OpenVINO reads the first bytes)
        raise refused(f"{span} of the .bin: size {size} does not hold shape [{count}] of {et}"
                      f" ({count * itemsize} bytes)")
    values = np.frombuffer(_bytes(bin_path, offset, size, span, refused)[: count * itemsize], dtype=dtype)
    return values.astype(np.int64) if et in SHAPE_TYPES else _truncated(values, et, span, refused)


_INT64 = float(1 << 63)


def _truncated(values, et, span, refused) -> np.ndarray:
    """Float values as read_model's shape inference takes them as integers (measured, 2026.4.1, adaptive pools'
    output_shape; it compiles): truncated toward zero (2.7 is 2, -1.5 is -1: a dynamic dim); one past int64's range
    refused ("Value inf not in range"); NaN, and 2^63 itself, become int64's lowest, as x86's conversion makes
    them (then a dim of 0, as any value below -1). A value whose rounding to even is not its truncation (2.7, 1.5,
    3.5, -1.5) is refused: the plugin's kernel reads it rounded and writes past the output read_model sized."""
    if et == "bf16":                    # (the high half of a float32)
        values = (values.astype(np.uint32) << 16).view(np.float32)
    v = values.astype(np.float64)
    out = np.abs(v) > _INT64
    if out.any():
        raise refused(f"{span} of the .bin: {et} value {v[out][0]:g} is not within int64's range: read_model refuses"
                      f' the file ("Value {v[out][0]:g} not in range [-9223372036854775808:9223372036854775807]")')
    rounds = (np.rint(v) != np.trunc(v)) & ~np.isnan(v)
    if rounds.any():
        x = v[rounds][0]
        raise refused(f"{span} of the .bin: output_shape value {x:g} is not whole: read_model takes it as"
                      f" {np.trunc(x):g}, and the CPU plugin (which reads it rounded to even, as {np.rint(x):g})"
                      " pools past the end of that output and corrupts memory at inference (measured, 2026.4.1:"
                      " glibc aborts; values whose rounding is their truncation, as 2.5, run right)")
    wraps = np.isnan(v) | (v == _INT64)
    return np.where(wraps, np.iinfo(np.int64).min, np.trunc(np.where(wraps, 0, v))).astype(np.int64)


def data_problem(data, et, weights) -> tuple | None:
    """(code, what) read_model refuses in a Const's <data> (None: no <data>): its place and shape as written
    (_place: bad-structure), or, of element type `et` (None: refused already), where its bytes lie in `weights`
    (bytes_problem: bad-weights); None where it reads it."""
    if data is None:
        return "bad-structure", ("without <data>: read_model refuses the file (\"No attrtibutes defined for Const"
                                 ' op!", sic)')
    try:
        dims, offset, size = _place(data)
    except ValueError as e:
        return "bad-structure", str(e)
    problem = None if et is None else bytes_problem(count(dims), offset, size, et, weights)
    return None if problem is None else ("bad-weights", problem)


def shape_count(shape) -> int | None:
    """How many values a Const's shape attribute holds, in read_model's size_t (wrapping past 2^64); None where it
    refuses the shape (_dims)."""
    try:
        dims = _dims(shape)
    except ValueError:
        return None
    return count(dims)


def count(dims) -> int:
    n = 1
    for d in dims:
        n = n * d % _WORD
    return n


_WORD = 1 << 64     # size_t: read_model multiplies a Const's dims, and its count by the bits, in it


class Weights(NamedTuple):
    """The weights file a net's Consts lie in: its path (None: none known, as for a string), its length (None: not
    known), whether it is missing (read_model then refuses the first Const it builds), and where a Const's bytes
    must end (its length; 2^64 where it is not known)."""
    path: str | None
    size: int | None = None
    missing: bool = False
    limit: int = 1 << 64

    @classmethod
    def at(cls, path) -> "Weights":
        try:
            st = os.stat(path) if path is not None else None
        except OSError:
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            return cls(path, missing=path is not None)
        return cls(path, st.st_size, False, st.st_size)


def bytes_problem(n, offset, size, et, weights) -> str | None:
    """What read_model refuses in where the bytes of a Const of `n` values of type `et` lie (measured, 2026.4.1):
    past the end of the weights file, or fewer than (n * bits + 7) >> 3; None. A string Const's bytes are read
    otherwise (not judged here); a missing weights file is said once a net, by the caller."""
    past = offset + size > weights.limit
    need = (n * et.bits + 7) % _WORD >> 3
    if not past and (size >= need or et.name == "string") or weights.missing:
        return None                                     # (the common case, in a few steps)
    span = f"bytes [{offset}, {offset + size}) of {os.path.basename(weights.path or '') or 'the .bin'}"
    if past:
        return f'{span} lie past its end ({weights.size} bytes): read_model refuses the file ("Incorrect weights in' \
            ' bin file!")'
    return (f"{span}: size {size} does not hold {n} values of {et.name} ({need} bytes): read_model refuses the"
            ' file ("Attribute and shape size are inconsistent for Const op!")')


def _place(data) -> tuple:
    """(shape, offset, size) of a Const's <data> as read_model reads them (measured, 2026.4.1): offset and size
    are numbers as ids are (ids.py: " 0", "+48", "048" read; "0 ", "٠" refused), the shape an int list as a pool's
    ints are (_dims); each one is mandatory. ValueError, in words, where it refuses them."""
    place = []
    for name in ("offset", "size"):
        text = data.get(name)
        if text is None:
            raise ValueError(f'<data> lacks {name}: read_model refuses the file ("node <data> is missing mandatory'
                             ' attribute")')
        if ids.number(text) is None:
            raise ValueError(ids.refusal("data", name, text))
        place.append(int(ids.number(text)))
    return (_dims(data.get("shape")), *place)


def _dims(shape) -> list:
    """A Const's shape ("4,3,1,1," and "4,3,1,1 " read, "٤,3,1,1" and a negative dim refused; mandatory)."""
    if shape is None:
        raise ValueError("<data> lacks shape: read_model refuses the file (\"Missing attribute 'shape' for Const\")")
    try:
        dims = int_list("shape", shape, [])
    except IRError as e:
        raise ValueError(f"{e.reason}: read_model refuses the file") from None
    if any(v < 0 for v in dims):
        raise ValueError(f'shape="{shape}": a negative dim, which read_model refuses')
    return dims


def _where(d, text, refused, output_shape=False) -> tuple:
    """(count, offset, size) of a 1-D Const's <data>, read as read_model reads them (_place); a rank OpenVINO refuses
    for the shape input refused (measured, 2026.4.1: schemas/openvino.json "shape_input_ranks")."""
    try:
        dims, offset, size = _place(d)
    except ValueError as e:
        raise refused(str(e)) from None
    rule = load("openvino")["shape_input_ranks"]["output_shape" if output_shape else "axes"]
    if len(dims) not in rule["ranks"]:
        refusal = rule["refusals"][min(len(dims), 2)]
        raise refused(f"<data shape={text!r}>: {rule['takes']}; {refusal['by']} refuses a shape of rank {len(dims)}"
                      f" there (\"{refusal['message']}\", {refusal['source']})")
    return dims[0] if dims else 1, offset, size


def _packed(const, bin_path, file, as_read_model, refused, output_shape=False) -> np.ndarray:
    et = const.element_type
    count, offset, size = _where(const.data, const.data.get("shape"), refused, output_shape)
    span = f"bytes [{offset}, {offset + size})"
    if count > MOST_VALUES or offset < 0 or size < (count + 1) // 2:
        raise refused(f"{span} of the .bin: size {size} does not hold shape [{count}] of {et}")
    if as_read_model:                  # (past the file's end it read zeros, measured: whatever memory holds)
        raw = _bytes(bin_path, offset, size, span, refused, extra=max(count - size, 0)).ljust(count, b"\0")
        return np.frombuffer(raw[:count], dtype=np.int8).astype(np.int64)
    raw = np.frombuffer(_bytes(bin_path, offset, size, span, refused)[: (count + 1) // 2], dtype=np.uint8)
    nibbles = np.stack([raw & 15, raw >> 4], axis=1).reshape(-1)[:count].astype(np.int64)
    return np.where(nibbles > 7, nibbles - 16, nibbles) if PACKED[et] else nibbles


def _bytes(bin_path, offset, size, span, refused, extra: int = 0) -> bytes:
    """`size` bytes at `offset` of the weights file (one seek), and up to `extra` more where the file has them."""
    if bin_path is None:
        raise Missing("no weights file: give it with --bin PATH (Python: bin=)")
    try:
        with open(bin_path, "rb") as f:
            length = os.fstat(f.fileno()).st_size
            if offset + size > length:
                raise refused(f"{span} of {bin_path} lie past its end ({length} bytes)")
            if not length:          # (no weights at all: a Const no op reads the value of is read)
                raise refused(f'{span} of {bin_path}, an empty file: read_model refuses a shape input there ("ptr is'
                              " Null\": the weights it would read have no memory; measured, 2026.4.1)")
            f.seek(offset)
            raw = f.read(size + extra)
    except FileNotFoundError:
        raise Missing(f"its weights file {bin_path} does not exist (--bin PATH names another)") from None
    except OSError as e:
        raise refused(f"cannot read {span} of {bin_path}: {e.strerror or e}") from None
    if len(raw) < size:
        raise refused(f"{span} of {bin_path}: only {len(raw)} bytes could be read")
    return raw


NUMBERS = {**SHAPE_TYPES, "f32": "<f4", "f16": "<f2", "f64": "<f8", "boolean": "?"}


def small_value(const: Const, shape: tuple, bin_path: str | None, file: str | None):
    """A numeric Const's values in its `shape` (its <data>'s, read by the caller), where it holds at most
    MOST_VALUES of them and the weights file has them (what --shape's inference folds shape subgraphs with);
    None otherwise: then its value is unknown."""
    d = const.data
    dtype = NUMBERS.get(const.element_type)
    try:
        count, offset, size = int(np.prod(shape, dtype=np.int64)), int(d["offset"]), int(d["size"])
    except (KeyError, ValueError, TypeError):
        return None
    if dtype is None or count > MOST_VALUES or offset < 0 or size < count * np.dtype(dtype).itemsize:
        return None
    try:
        raw = _bytes(bin_path, offset, size, "", lambda why: IRError(why))
    except (Missing, IRError):
        return None
    return np.frombuffer(raw[: count * np.dtype(dtype).itemsize], dtype=dtype).reshape(shape)
