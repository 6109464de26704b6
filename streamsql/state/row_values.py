"""Whole rows of an Arrow table as state values, vectorized: what :meth:`ValueFormat.encode` writes.

:func:`encode_rows` gives, for each row of a table, the tagged msgpack value that
``fmt.encode([*lead, *row])`` gives for that row as ``to_pylist`` reads it (a regular join's
``[count, associations, *row]``, :data:`streamsql.runtime.operators.join_state.JOIN_ROW`), built
for all rows at once with numpy instead of a Python object and a msgpack call per row and a
Python callback per TIMESTAMP. The bytes may differ (integers are always written in msgpack's
9-byte int64 / uint64 form, which msgpack accepts for any value), the decoded values never do:
:meth:`ValueFormat.decode` reads both to equal Python values, so this is no new format.

Types written here (msgpack spec, https://github.com/msgpack/msgpack/blob/master/spec.md, and
the extension types of :mod:`streamsql.state.layout`): integers, BOOLEAN, FLOAT/DOUBLE (float 64,
as msgpack packs a Python float), strings (str), binaries (bin), TIMESTAMP in s/ms/us (naive, or
``UTC``: the datetime extension), DATE (the date extension), NULL (nil). Any other type
(DECIMAL, TIME, nested, ns timestamps, other time zones, years outside 1..9999) returns None:
the caller encodes per row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from streamsql.state.layout import (
    _DATETIME,
    _DATETIME_TZ,
    _EXT_DATE,
    _EXT_DATETIME,
    _EXT_DATETIME_TZ,
    ValueFormat,
    _normalize,
    _scatter,
    _variable,
)

_NIL, _FALSE, _TRUE = 0xC0, 0xC2, 0xC3
_INT64, _UINT64, _FLOAT64 = 0xD3, 0xCF, 0xCB
_EXT8, _FIXEXT4 = 0xC7, 0xD6
_FIXARRAY, _ARRAY16, _ARRAY32 = 0x90, 0xDC, 0xDD
#: String headers: fixstr (< 32 bytes), str 8, str 16, str 32; binaries: bin 8, 16, 32.
_STR_HEADS = (0xD9, 0xDA, 0xDB)
_BIN_HEADS = (0xC4, 0xC5, 0xC6)
_UNIX_EPOCH_ORDINAL = 719_163  # datetime.date(1970, 1, 1).toordinal()
_MICROS = {"s": 1_000_000, "ms": 1_000, "us": 1}


def array_header(n: int) -> bytes:
    """The msgpack header of an array of ``n`` items (fixarray, array 16 or array 32)."""
    if n < 16:
        return bytes([_FIXARRAY | n])
    if n < 65536:
        return bytes([_ARRAY16]) + n.to_bytes(2, "big")
    return bytes([_ARRAY32]) + n.to_bytes(4, "big")


def encode_rows(fmt: ValueFormat | None, lead: Sequence[np.ndarray], table: pa.Table) -> list[bytes] | None:
    """Per row ``i`` of ``table``: ``fmt.encode([*(c[i] for c in lead), *row_i])`` (module docstring).

    Args:
        fmt: the values' format (its tag comes first); None: the msgpack alone, untagged (to be
            put together into a larger value).
        lead: integer columns written before the row's columns (e.g. count, associations).
        table: the rows.

    Returns:
        One value per row, or None if a column has a type this does not write (module docstring).
    """
    n = table.num_rows
    head = (fmt.tag if fmt is not None else b"") + array_header(len(lead) + table.num_columns)
    segments: list[Any] = [np.tile(np.frombuffer(head, np.uint8), (n, 1))]
    segments += [_ints(np.asarray(c, np.int64), None) for c in lead]
    for column in table.columns:
        seg = _column(_normalize(column))
        if seg is None:
            return None
        segments += seg
    return _scatter(segments, n)


def _column(arr: pa.Array) -> list[Any] | None:
    """The segments (:func:`streamsql.state.layout._scatter`) of one column's values, or None."""
    t = arr.type
    valid = arr.is_valid().to_numpy(zero_copy_only=False) if arr.null_count else None
    if pa.types.is_boolean(t):
        v = arr.fill_null(False).to_numpy(zero_copy_only=False)
        return [_nullable(np.where(v, _TRUE, _FALSE).astype(np.uint8).reshape(-1, 1), valid)]
    if pa.types.is_integer(t):
        v = arr.fill_null(0).to_numpy()
        if t == pa.uint64():
            return [_nullable(_tagged(_UINT64, v, ">u8"), valid)]
        return [_ints(v.astype(np.int64), valid)]
    if pa.types.is_float32(t) or pa.types.is_float64(t):
        return [_nullable(_tagged(_FLOAT64, arr.fill_null(0.0).to_numpy().astype(np.float64), ">f8"), valid)]
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _bytes_like(arr, valid, _STR_HEADS, fixed=0xA0)
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return _bytes_like(arr, valid, _BIN_HEADS, fixed=None)
    if pa.types.is_timestamp(t):
        return _timestamps(arr, valid)
    if pa.types.is_date32(t):
        days = arr.fill_null(0).cast(pa.int32()).to_numpy().astype(np.int64) + _UNIX_EPOCH_ORDINAL
        if days.size and days.min() < 1:
            return None  # before 0001-01-01: no datetime.date
        head = np.tile(np.array([_FIXEXT4, _EXT_DATE], np.uint8), (len(days), 1))
        return [_nullable(np.hstack([head, _be(days, ">i4")]), valid)]
    return None


def _be(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` as big-endian ``dtype``, ``(n, itemsize)`` uint8."""
    a = np.ascontiguousarray(values, dtype=dtype)
    return a.view(np.uint8).reshape(len(a), a.itemsize)


def _tagged(marker: int, values: np.ndarray, dtype: str) -> np.ndarray:
    """A one-byte msgpack marker, then each value big-endian: ``(n, 1 + itemsize)`` uint8."""
    body = _be(values, dtype)
    return np.hstack([np.full((len(body), 1), marker, np.uint8), body])


def _ints(values: np.ndarray, valid: np.ndarray | None) -> np.ndarray | tuple:
    """Integers in msgpack's int 64 form (NULL: nil)."""
    return _nullable(_tagged(_INT64, values, ">i8"), valid)


def _nullable(mat: np.ndarray, valid: np.ndarray | None) -> np.ndarray | tuple:
    """A fixed-width segment whose NULL rows are msgpack nil (1 byte): variable when there are NULLs."""
    if valid is None:
        return mat
    lengths = np.where(valid, mat.shape[1], 1).astype(np.int64)
    mat = mat.copy()
    mat[~valid, 0] = _NIL
    data = mat[np.arange(mat.shape[1]) < lengths[:, None]]  # row-major: each row's first bytes
    starts = np.cumsum(lengths) - lengths
    return lengths, data, starts


def _bytes_like(arr: pa.Array, valid: np.ndarray | None, heads: tuple[int, int, int],
                fixed: int | None) -> list[Any]:
    """A str or bin value per row: its header (the shortest msgpack allows here), then its bytes."""
    lengths, data, starts = _variable(arr)  # NULL: 0 bytes
    n = len(lengths)
    mat = np.zeros((n, 5), np.uint8)
    size = np.empty(n, np.int64)
    short = lengths < 32 if fixed is not None else np.zeros(n, bool)
    s8, s16 = (lengths < 256) & ~short, (lengths >= 256) & (lengths < 65536)
    s32 = lengths >= 65536
    mat[short, 0], size[short] = fixed if fixed is not None else 0, 1
    mat[short, 0] |= lengths[short].astype(np.uint8)
    mat[s8, 0], mat[s8, 1], size[s8] = heads[0], lengths[s8].astype(np.uint8), 2
    mat[s16, 0], size[s16] = heads[1], 3
    mat[s16, 1:3] = _be(lengths[s16], ">u2")
    mat[s32, 0], size[s32] = heads[2], 5
    mat[s32, 1:5] = _be(lengths[s32], ">u4")
    if valid is not None:
        mat[~valid, 0], size[~valid] = _NIL, 1
    keep = np.arange(5) < size[:, None]
    header = (size, mat[keep], np.cumsum(size) - size)
    return [header, (lengths, data, starts)]


def _timestamps(arr: pa.Array, valid: np.ndarray | None) -> list[Any] | None:
    """TIMESTAMP values as the datetime extension (layout's ``_pack_datetime``), or None."""
    t = arr.type
    if t.unit not in _MICROS or t.tz not in (None, "UTC", "+00:00"):
        return None
    micros = arr.cast(pa.int64()).fill_null(0).to_numpy() * _MICROS[t.unit]
    stamp = micros.astype("M8[us]")
    years = stamp.astype("M8[Y]")
    months = stamp.astype("M8[M]")
    days = stamp.astype("M8[D]")
    year = years.astype(np.int64) + 1970
    if year.size and (year.min() < 1 or year.max() > 9999):
        return None  # outside datetime's years: the per-row path says what is wrong
    month = (months - years.astype("M8[M]")).astype(np.int64) + 1
    day = (days - months.astype("M8[D]")).astype(np.int64) + 1
    tod = (stamp - days.astype("M8[us]")).astype(np.int64)  # microseconds into the day
    fields = [_be(year, ">u2")] + [_be(f, "u1") for f in (month, day, tod // 3_600_000_000,
                                                           tod // 60_000_000 % 60, tod // 1_000_000 % 60)]
    fields.append(_be(tod % 1_000_000, ">u4"))
    if t.tz is None:
        code, size = _EXT_DATETIME, _DATETIME.size
    else:
        code, size = _EXT_DATETIME_TZ, _DATETIME_TZ.size
        fields.append(np.zeros((len(micros), 4), np.uint8))  # UTC offset: 0 s
    head = np.tile(np.array([_EXT8, size, code], np.uint8), (len(micros), 1))
    return [_nullable(np.hstack([head, *fields]), valid)]
