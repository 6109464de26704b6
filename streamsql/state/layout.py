r"""The layout of keyed state, in one place: key encoding, key groups, tag bytes, value codec.

Every operator (and, later, the repartition exchange) encodes a SQL key with
:func:`encode_keys`, so one key is the same bytes — hence lands in the same key group —
everywhere. Keyed state adds the 2-byte key group in front (:func:`with_key_groups`); the
backend adds the operator prefix (``operator_id + 0x00``, see :mod:`streamsql.state.base`).

Key layout after the operator prefix (``kg`` = 2-byte big-endian key group, ``key`` =
:func:`encode_keys` bytes)::

    ======================================== =================================================
    ``kg + key``                             the key's value (GROUP BY accumulators, sessions)
    ``kg + JOIN_LEFT + key``                 window/temporal/interval join: the key's left rows
    ``kg + MAP_TAG + name + len + key ...``  a map's entry (below); regular join: a side's row
    ``kg + TIMER_TAG + end(8) + key ...``    event-time timer of a window (or join cleanup)
    ``kg + SLICE_TAG + end(8) + ...``        slicing window: a slice's partial aggregates
    ``OPERATOR_KG + WATERMARK_TAG``          the operator's watermark at the last checkpoint
    ``OPERATOR_KG + SPLIT_TAG + name``       watermark assigner: a split's largest rowtime
    ``RIGHT_COUNTS_KEY``                     NOT IN anti join: right rows, all and NULL-keyed
    ``LAYOUT_KEY``                           the layout version of an operator's keys (joins)
    ======================================== =================================================

``OPERATOR_KG`` (``0xFFFF``) is no key group (they are ``< MAX_PARALLELISM``), so
operator-wide entries sort after every keyed entry and never collide with one. Within a key
group, an operator that writes several kinds of entries tells them apart by tag (and length).

Map state (:meth:`~streamsql.state.base.KeyedState.get_maps`): a map is every entry whose key
starts with its prefix, ``kg + MAP_TAG + name (1 byte) + 4-byte big-endian length + key``; the
length makes prefixes prefix-free (no prefix starts another, whatever the keys), so a prefix scan
finds exactly one map, and :func:`split_map_key` cuts any entry key back into (prefix, entry key).

Key encoding (:func:`encode_keys`), per row:

- no key column (a global aggregate): ``b""``;
- one integer column (the fast path, vectorized): the value as 8 bytes big-endian two's
  complement, ``NULL_INT_KEY`` (1 byte) for NULL;
- otherwise the concatenation of each column's framed encoding: fixed-width types are a marker
  byte (``0x00`` NULL, ``0x01`` a value) and the big-endian payload (zeros for NULL); strings
  and binaries are the marker, a 4-byte big-endian length and the bytes. Payloads: integers of
  any width 8 bytes (so INT and BIGINT keys agree); BOOLEAN 1 byte; DOUBLE/FLOAT as float64
  with every NaN one NaN and ``-0.0`` apart from ``0.0`` (Java's ``Double.equals``, which Flink
  keys by; before the floatkeys28 change ``-0.0`` was keyed as ``0.0``; every other value's bytes are as
  then); DATE int32 days; TIMESTAMP and
  INTERVAL int64 microseconds + uint16 sub-microsecond nanoseconds (any unit gives the same
  bytes); TIME int64 nanoseconds of the day; DECIMAL the 16-byte unscaled value (keys compared
  across operators share a type, hence a scale: the planner casts join keys to one type). Other
  types (nested) fall back to :func:`encode_value` bytes framed as a binary.

Key groups (:func:`key_group`): ``crc32(encoded key) % MAX_PARALLELISM``, the same in every
version (changing it would re-key every checkpoint). Which task of a parallel stage owns which key
group is the run's assignment (:func:`task_of_key_groups`), not part of the stored keys.

Values: every state value starts with the 3-byte tag of its :class:`ValueFormat` (``0xC1`` — a
byte msgpack never writes — then 2 bytes of ``crc32(name@version)``); :meth:`ValueFormat.decode`
and :meth:`ValueFormat.unwrap` refuse a value of another format with
:class:`StateFormatError`, so restoring a snapshot written by another version of an operator
fails clearly instead of misreading it. Generic values are msgpack (never pickle: reading state
never runs code) with extension types for what msgpack lacks.
"""

from __future__ import annotations

import datetime as dt
import struct
import threading
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import msgpack
import numpy as np
import pyarrow as pa
from pyroaring import BitMap

from streamsql.core.java_hash import DoubleKey
from streamsql.core.py_values import py_values
from streamsql.state.exceptions import StateError

MAX_PARALLELISM = 128  # Flink's default lower bound for max parallelism; fixed for the job's life

# -- tag bytes (see the table above) --------------------------------------------------------------
OPERATOR_KG = b"\xff\xff"  #: the "key group" of operator-wide entries (outside [0, MAX_PARALLELISM))
TIMER_TAG = b"\x00T"  #: after ``kg``: an event-time timer, ``end`` (8 bytes) then the key
SLICE_TAG = b"\x00S"  #: after ``kg``: a slicing window's slice
WATERMARK_TAG = b"\x00W"  #: after ``OPERATOR_KG``: the operator's watermark at the last checkpoint
SPLIT_TAG = b"\x00S"  #: after ``OPERATOR_KG``: a split's largest rowtime, then the split name
WATERMARK_KEY = OPERATOR_KG + WATERMARK_TAG  #: the whole key of the operator's watermark
SPLIT_KEY_PREFIX = OPERATOR_KG + SPLIT_TAG  #: the key of a split's maximum, before its name
#: A null-aware anti join's (NOT IN) counts of right rows, all and with a NULL key.
RIGHT_COUNTS_KEY = OPERATOR_KG + b"\x00N"
#: The version of an operator's key layout, for an operator whose keys changed shape (a value
#: format's tag cannot tell: the new layout never reads the old keys).
LAYOUT_KEY = OPERATOR_KG + b"\x00F"
JOIN_LEFT = b"L"  #: after ``kg``: a join's left rows of the key
JOIN_RIGHT = b"R"  #: after ``kg``: a join's right rows of the key
MAP_TAG = b"\x00M"  #: after ``kg``: a map prefix (:func:`map_prefixes`)
_MAP_HEAD = 2 + len(MAP_TAG) + 1 + 4  # kg, tag, name, length: the bytes before the key

#: The encoding of a NULL single integer key (never 8 bytes long, so never an integer's).
NULL_INT_KEY = b"\x00"


#: The name of :data:`streamsql.state.ttl.TTL_VALUE` (a TTL switched on or off meets it: messages say so).
_TTL_FORMAT = "state-ttl/value"


class StateFormatError(StateError):
    """A state value was written in another format (another version of the operator)."""


# -- key groups ---------------------------------------------------------------------------------


def key_group(key: bytes) -> int:
    """The key group of an encoded key, in ``[0, MAX_PARALLELISM)``: ``crc32(key) % MAX_PARALLELISM``."""
    return zlib.crc32(key) % MAX_PARALLELISM


#: How a stage's key groups are spread over its tasks, recorded per parallel run (each run keeps
#: the one it started with, see :func:`task_of_key_groups`).
KG_ASSIGNMENT_RANGES = 1
KG_ASSIGNMENT_BIT_REVERSED = 2
#: The assignment a new parallel run takes.
KG_ASSIGNMENT = KG_ASSIGNMENT_BIT_REVERSED
# Each key group's 7 bits reversed: the low bits of the CRC lead the ranges instead of the high ones.
_BIT_REVERSED = np.array([int(f"{kg:07b}"[::-1], 2) for kg in range(MAX_PARALLELISM)], np.int64)


def task_of_key_groups(kgs: np.ndarray, tasks: int, assignment: int = KG_ASSIGNMENT) -> np.ndarray:
    """The task (int64 array) owning each key group of ``kgs`` among a stage's ``tasks`` tasks.

    ``KG_ASSIGNMENT_RANGES`` (runs started before StreamSQL recorded an assignment): task ``p``
    owns the contiguous range ``kg * tasks // 128 == p``, Flink's ``KeyGroupRangeAssignment``. The
    CRC is linear, so a small set of similar keys (INT 0..15, 'k0'..'k15') shares its high key-group
    bits: all 16 fall in 64..127, one task of 2 (2 of 4) holds them all.
    ``KG_ASSIGNMENT_BIT_REVERSED``: the same ranges over the key groups with their 7 bits reversed,
    so the low bits decide the task (at a power of two: task = the low bits, reversed), which such
    keys spread evenly (16 INT keys: 8/8 at 2 tasks, 4/4/4/4 at 4); each task still owns 128/P key
    groups. The key groups themselves (the prefix of every keyed-state key) are the same in both.

    Raises:
        ValueError: an unknown assignment.
    """
    kgs = np.asarray(kgs, np.int64)
    if assignment == KG_ASSIGNMENT_RANGES:
        return kgs * tasks // MAX_PARALLELISM
    if assignment == KG_ASSIGNMENT_BIT_REVERSED:
        return _BIT_REVERSED[kgs] * tasks // MAX_PARALLELISM
    msg = f"Unknown key-group assignment {assignment} (this StreamSQL knows 1 and 2)"
    raise ValueError(msg)


def _crc32_table() -> np.ndarray:
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0xEDB88320), table >> 1).astype(np.uint32)
    return table


_CRC32_TABLE = _crc32_table()
_MAX_VECTOR_WIDTH = 24  # longer equal-length keys: zlib per key is cheaper than a numpy pass per byte


def crc32_rows(data: np.ndarray) -> np.ndarray:
    """``zlib.crc32`` of each row of a ``(n, width)`` uint8 array, vectorized over rows (uint32)."""
    crc = np.full(data.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(data.shape[1]):
        crc = _CRC32_TABLE[(crc ^ data[:, j]) & 0xFF] ^ (crc >> 8)
    return crc ^ np.uint32(0xFFFFFFFF)


def _fixed_matrix(keys: list[bytes]) -> np.ndarray | None:
    """The keys as an ``(n, width)`` uint8 array when all have one short length, else None."""
    n = len(keys)
    if not n:
        return None
    width = len(keys[0])
    if not 0 < width <= _MAX_VECTOR_WIDTH:
        return None
    joined = b"".join(keys)
    if len(joined) != width * n or min(map(len, keys)) != width:
        return None
    return np.frombuffer(joined, np.uint8).reshape(n, width)


def key_groups(keys: list[bytes]) -> np.ndarray:
    """The key group of each encoded key (uint16 array); vectorized when all have one short length."""
    data = _fixed_matrix(keys)
    if data is not None:
        return (crc32_rows(data) % MAX_PARALLELISM).astype(np.uint16)
    crc = zlib.crc32
    return np.fromiter((crc(k) % MAX_PARALLELISM for k in keys), np.uint16, count=len(keys))


def with_key_groups(keys: list[bytes]) -> list[bytes]:
    """Keyed-state keys: the 2-byte big-endian key group, then the encoded key."""
    data = _fixed_matrix(keys)
    if data is not None:
        n, width = data.shape
        out = np.empty((n, width + 2), np.uint8)
        out[:, :2] = (crc32_rows(data) % MAX_PARALLELISM).astype(">u2").view(np.uint8).reshape(n, 2)
        out[:, 2:] = data
        return out.view(f"V{width + 2}").ravel().tolist()
    crc = zlib.crc32
    return [(crc(k) % MAX_PARALLELISM).to_bytes(2, "big") + k for k in keys]


def map_prefixes(grouped: list[bytes], name: bytes) -> list[bytes]:
    """The map prefixes of keyed-state keys (:func:`with_key_groups`) in the map family ``name``.

    Args:
        grouped: ``kg + key`` per map.
        name: one byte telling an operator's map families apart (e.g. ``JOIN_LEFT``).

    Returns:
        ``kg + MAP_TAG + name + len(key) (4 bytes, big-endian) + key`` per key (module docstring).
    """
    head = MAP_TAG + name
    return [g[:2] + head + (len(g) - 2).to_bytes(4, "big") + g[2:] for g in grouped]


def split_map_key(key: bytes) -> tuple[bytes, bytes] | None:
    """``(map prefix, entry key)`` of a map entry's whole key; None for a key of no map."""
    if key[2:4] != MAP_TAG or len(key) < _MAP_HEAD:
        return None
    end = _MAP_HEAD + int.from_bytes(key[5:9], "big")
    return (key[:end], key[end:]) if end <= len(key) else None


# -- key encoding ---------------------------------------------------------------------------------

_NS_PER = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def int_key_bytes(column: pa.Array | pa.ChunkedArray) -> list[bytes]:
    """A single integer key column: 8 bytes big-endian per row, ``NULL_INT_KEY`` for NULL."""
    column = _normalize(column)
    values = column.fill_null(0).to_numpy(zero_copy_only=False) if column.null_count else column.to_numpy()
    dtype = ">u8" if column.type == pa.uint64() else ">i8"
    enc = np.ascontiguousarray(values, dtype=dtype).view("V8").tolist()  # bytes, NULs kept
    if column.null_count:
        for i in np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False)):
            enc[i] = NULL_INT_KEY
    return enc


def _be(values: np.ndarray, dtype: str) -> np.ndarray:
    """``values`` as big-endian ``dtype``, one row of bytes per value: ``(n, itemsize)`` uint8."""
    arr = np.ascontiguousarray(values, dtype=dtype)
    return arr.view(np.uint8).reshape(len(arr), arr.itemsize)


def _micros_nanos(ns_or_unit: np.ndarray, unit: str) -> np.ndarray:
    """int64 in ``unit`` → ``(n, 10)``: int64 microseconds and uint16 remaining nanoseconds."""
    if unit == "ns":
        micros, nanos = np.divmod(ns_or_unit, 1000)
    else:
        micros, nanos = ns_or_unit * (_NS_PER[unit] // 1000), np.zeros(len(ns_or_unit), np.int64)
    return np.hstack([_be(micros, ">i8"), _be(nanos, ">u2")])


def _fixed_payload(arr: pa.Array) -> np.ndarray | None:
    """The big-endian payload of each value, ``(n, width)`` uint8 (zeros for NULL), or None.

    None for variable-width types (strings, binaries, nested).
    """
    t = arr.type
    if pa.types.is_boolean(t):
        return arr.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint8).reshape(-1, 1)
    if pa.types.is_integer(t):
        return _be(arr.fill_null(0).to_numpy(), ">u8" if t == pa.uint64() else ">i8")
    if pa.types.is_floating(t):
        v = arr.fill_null(0.0).to_numpy().astype(np.float64)  # -0.0 stays apart (Java's equals)
        v[np.isnan(v)] = np.nan  # one NaN bit pattern
        return _be(v, ">f8")
    if pa.types.is_date32(t):
        return _be(arr.fill_null(0).cast(pa.int32()).to_numpy(), ">i4")
    if pa.types.is_date64(t):
        return _be(arr.fill_null(0).cast(pa.int64()).to_numpy() // 86_400_000, ">i4")
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        return _micros_nanos(arr.cast(pa.int64()).fill_null(0).to_numpy(), t.unit)
    if pa.types.is_time(t):
        ints = arr.cast(pa.int64() if t.bit_width == 64 else pa.int32()).fill_null(0).to_numpy()
        return _be(ints.astype(np.int64) * _NS_PER[t.unit], ">i8")
    if pa.types.is_decimal(t) or pa.types.is_fixed_size_binary(t):
        width = t.byte_width
        raw = np.frombuffer(arr.buffers()[1], np.uint8)[arr.offset * width : (arr.offset + len(arr)) * width]
        mat = raw.reshape(len(arr), width)
        if arr.null_count:  # a NULL slot's bytes are undefined in Arrow: make them zeros
            mat = np.where(_marker(arr).astype(bool), mat, np.uint8(0))
        return mat[:, ::-1] if pa.types.is_decimal(t) else mat  # decimals are little-endian in Arrow
    return None


def group_by_items(columns: Sequence[str], types: Sequence[pa.DataType]) -> list[str]:
    """DuckDB GROUP BY items over key columns that group rows as :func:`encode_keys` keys them.

    ``columns`` are SQL expressions (quoted names), ``types`` their Arrow types. DuckDB's ``=``
    takes ``-0.0`` for ``0.0`` (and every NaN for one, as the key does), so a floating column is
    followed by ``(c = 0 AND signbit(c))``, which sets the zeros' signs apart and no NaN's: rows a
    batch groups together then share one state key (a retraction of ``-0.0`` meets its own key).
    The selected columns need not change: the item only splits groups.
    """
    out = []
    for c, t in zip(columns, types):
        out.append(c)
        if pa.types.is_floating(t):
            out.append(f"({c} = 0 AND signbit({c}))")
    return out


def _variable(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(per-row lengths, the rows' bytes concatenated, per-row starts in those bytes), int64/uint8."""
    t = arr.type
    if not (pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)
            or pa.types.is_large_binary(t)):
        arr = pa.array([encode_value(v) for v in py_values(arr)], pa.large_binary())
    elif arr.null_count:
        arr = arr.fill_null(b"" if pa.types.is_binary(t) or pa.types.is_large_binary(t) else "")
    large = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    offsets = np.frombuffer(arr.buffers()[1], np.int64 if large else np.int32)
    offsets = offsets[arr.offset : arr.offset + len(arr) + 1].astype(np.int64)
    data_buf = arr.buffers()[2]
    data = np.frombuffer(data_buf, np.uint8) if data_buf is not None else np.empty(0, np.uint8)
    data = data[offsets[0] : offsets[-1]]
    return np.diff(offsets), data, offsets[:-1] - offsets[0]


def _normalize(column: pa.Array | pa.ChunkedArray) -> pa.Array:
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    return column


def _marker(arr: pa.Array) -> np.ndarray:
    """``(n, 1)`` uint8: 1 where a value, 0 where NULL."""
    if not arr.null_count:
        return np.ones((len(arr), 1), np.uint8)
    return arr.is_valid().to_numpy(zero_copy_only=False).astype(np.uint8).reshape(-1, 1)


def encode_keys(columns: Sequence[pa.Array | pa.ChunkedArray], num_rows: int | None = None) -> list[bytes]:
    """One key per row for the key columns ``columns`` (module docstring: key encoding).

    Deterministic and type-driven: equal SQL keys (NULLs equal to each other) give equal bytes,
    distinct keys distinct bytes, in every operator. Vectorized over rows.

    Args:
        columns: the key columns, all of one length (chunked arrays are combined).
        num_rows: the number of rows; required only when ``columns`` is empty.

    Returns:
        The encoded key of each row.

    Raises:
        ValueError: for no columns and no ``num_rows``, or columns of different lengths.
    """
    cols = [_normalize(c) for c in columns]
    if not cols:
        if num_rows is None:
            msg = "encode_keys needs num_rows for a key of no columns"
            raise ValueError(msg)
        return [b""] * num_rows
    n = len(cols[0])
    if any(len(c) != n for c in cols):
        msg = f"Key columns of different lengths: {[len(c) for c in cols]}"
        raise ValueError(msg)
    if len(cols) == 1 and pa.types.is_integer(cols[0].type):
        return int_key_bytes(cols[0])
    # Segments of each row, in order: fixed-width (n, w) matrices, or variable (lengths, data, starts).
    segments: list[Any] = []
    for arr in cols:
        payload = _fixed_payload(arr)
        if payload is not None:
            segments.append(np.hstack([_marker(arr), payload]))
            continue
        lengths, data, starts = _variable(arr)
        segments.append(np.hstack([_marker(arr), _be(lengths, ">u4")]))
        segments.append((lengths, data, starts))
    if all(isinstance(s, np.ndarray) for s in segments):
        mat = np.hstack(segments) if len(segments) > 1 else np.ascontiguousarray(segments[0])
        return mat.view(f"V{mat.shape[1]}").ravel().tolist()
    return _scatter(segments, n)


def _scatter(segments: list[Any], n: int) -> list[bytes]:
    """Lay fixed and variable segments out row by row; one bytes object per row."""
    seg_lens = [np.full(n, s.shape[1], np.int64) if isinstance(s, np.ndarray) else s[0] for s in segments]
    row_len = np.sum(seg_lens, axis=0)
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(row_len, out=offsets[1:])
    out = np.empty(int(offsets[-1]), np.uint8)
    pos = offsets[:-1].copy()
    for seg, lens in zip(segments, seg_lens):
        if isinstance(seg, np.ndarray):
            out[pos[:, None] + np.arange(seg.shape[1])] = seg
        elif len(seg[1]):
            lengths, data, starts = seg
            out[np.repeat(pos - starts, lengths) + np.arange(len(data))] = data
        pos += lens
    # Arrow cuts the rows into bytes objects in C (6x faster than slicing in Python).
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(out)]
    return pa.LargeBinaryArray.from_buffers(pa.large_binary(), n, buffers).to_pylist()


# -- value codec ----------------------------------------------------------------------------------

_FORMAT_MARK = 0xC1  # "never used" in msgpack: no bare msgpack value starts with it
# msgpack extension type codes (part of the stored format: never renumber)
_EXT_BIGINT, _EXT_DECIMAL, _EXT_DATE, _EXT_DATETIME, _EXT_DATETIME_TZ = range(5)
_EXT_TIME, _EXT_TIMEDELTA, _EXT_TUPLE = range(5, 8)
#: A :class:`~streamsql.core.java_hash.DoubleKey` (-0.0 or NaN kept as a key apart): a plain float
#: would come back as a dict key equal to 0.0 (or unequal to every NaN).
_EXT_DOUBLE_KEY = 8
#: A :class:`pyroaring.BitMap` (a BITMAP aggregate's accumulator): its portable serialization.
_EXT_BITMAP = 9
_D = struct.Struct(">d")
_I = struct.Struct(">i")
_DATETIME = struct.Struct(">HBBBBBI")  # year, month, day, hour, minute, second, microsecond
_DATETIME_TZ = struct.Struct(">HBBBBBIi")  # ... then the UTC offset in seconds
_TIME = struct.Struct(">BBBI")  # hour, minute, second, microsecond
_DELTA = struct.Struct(">iII")  # timedelta: days, seconds, microseconds (its own normal form)
_FORMATS: dict[bytes, ValueFormat] = {}


def _pack_datetime(obj: dt.datetime) -> msgpack.ExtType:
    fields = (obj.year, obj.month, obj.day, obj.hour, obj.minute, obj.second, obj.microsecond)
    if obj.tzinfo is None:
        return msgpack.ExtType(_EXT_DATETIME, _DATETIME.pack(*fields))
    offset = obj.utcoffset() // dt.timedelta(seconds=1)
    return msgpack.ExtType(_EXT_DATETIME_TZ, _DATETIME_TZ.pack(*fields, offset))


def _pack_time(obj: dt.time) -> msgpack.ExtType:
    if obj.tzinfo is not None:
        msg = f"Cannot store a TIME with a time zone in state: {obj!r}"
        raise TypeError(msg)
    return msgpack.ExtType(_EXT_TIME, _TIME.pack(obj.hour, obj.minute, obj.second, obj.microsecond))


#: Encoders of the exact types msgpack does not pack itself (``strict_types``).
_PACK = {
    tuple: lambda obj: msgpack.ExtType(_EXT_TUPLE, _packb(list(obj))),
    int: lambda obj: msgpack.ExtType(_EXT_BIGINT, obj.to_bytes(obj.bit_length() // 8 + 1, "big",
                                                                signed=True)),  # beyond 64 bits
    Decimal: lambda obj: msgpack.ExtType(_EXT_DECIMAL, str(obj).encode()),
    dt.datetime: _pack_datetime,
    dt.date: lambda obj: msgpack.ExtType(_EXT_DATE, _I.pack(obj.toordinal())),
    dt.time: _pack_time,
    dt.timedelta: lambda obj: msgpack.ExtType(_EXT_TIMEDELTA, _DELTA.pack(obj.days, obj.seconds,
                                                                          obj.microseconds)),
    DoubleKey: lambda obj: msgpack.ExtType(_EXT_DOUBLE_KEY, _D.pack(obj)),
    BitMap: lambda obj: msgpack.ExtType(_EXT_BITMAP, obj.serialize()),
}


def _default(obj: Any) -> Any:
    """The msgpack hook for what it does not pack itself: an ExtType, or ``obj`` as a base type.

    Raises:
        TypeError: for an object that is no SQL value (never pickled).
    """
    pack = _PACK.get(type(obj))
    if pack is not None:
        return pack(obj)
    if isinstance(obj, np.generic):
        return obj.item()
    for base in (int, float, str, bytes, list, dict):  # a subclass (IntEnum, StrEnum): its base type
        if isinstance(obj, base):
            return base(obj)
    for base, pack in _PACK.items():  # a subclass (namedtuple, pandas Timestamp); datetime before date
        if isinstance(obj, base):
            return pack(obj)
    msg = f"Cannot store a {type(obj).__name__} in state: not a SQL value"
    raise TypeError(msg)


def _unpack_datetime_tz(data: bytes) -> dt.datetime:
    *fields, offset = _DATETIME_TZ.unpack(data)
    tz = dt.timezone.utc if offset == 0 else dt.timezone(dt.timedelta(seconds=offset))
    return dt.datetime(*fields, tzinfo=tz)


#: Decoders by extension type code.
_UNPACK = {
    _EXT_TUPLE: lambda data: tuple(_unpackb(data)),
    _EXT_BIGINT: lambda data: int.from_bytes(data, "big", signed=True),
    _EXT_DECIMAL: lambda data: Decimal(data.decode()),
    _EXT_DATETIME: lambda data: dt.datetime(*_DATETIME.unpack(data)),
    _EXT_DATETIME_TZ: _unpack_datetime_tz,
    _EXT_DATE: lambda data: dt.date.fromordinal(_I.unpack(data)[0]),
    _EXT_TIME: lambda data: dt.time(*_TIME.unpack(data)),
    _EXT_TIMEDELTA: lambda data: dt.timedelta(*_DELTA.unpack(data)),
    _EXT_DOUBLE_KEY: lambda data: DoubleKey(_D.unpack(data)[0]),
    _EXT_BITMAP: BitMap.deserialize,
}


def _ext_hook(code: int, data: bytes) -> Any:
    decode = _UNPACK.get(code)
    return decode(data) if decode is not None else msgpack.ExtType(code, data)


def _packb(obj: Any) -> bytes:
    return msgpack.packb(obj, default=_default, strict_types=True, use_bin_type=True)


_THREAD = threading.local()


def _packer() -> msgpack.Packer:
    """This thread's packer for whole values (nested tuples use :func:`_packb`: not reentrant)."""
    try:
        return _THREAD.packer
    except AttributeError:
        packer = _THREAD.packer = msgpack.Packer(default=_default, strict_types=True, use_bin_type=True)
        return packer


def _unpackb(data: bytes | memoryview) -> Any:
    return msgpack.unpackb(data, ext_hook=_ext_hook, strict_map_key=False, raw=False)


@dataclass(frozen=True)
class ValueFormat:
    """The declared format of an operator's state values; every value carries its tag.

    Declaring one registers it (two formats with one tag are refused, so a name change makes a
    new format). A new version of an operator's values is a new ``version``: snapshots written
    with the old one are then refused on read instead of misread.

    Attributes:
        name: what the values are, e.g. ``"group-agg/fixed-width"``.
        version: the format's version, from 1.
        tag: the 3 bytes in front of every value of this format (computed).
    """

    name: str
    version: int
    tag: bytes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        digest = zlib.crc32(f"{self.name}@{self.version}".encode()).to_bytes(4, "big")
        tag = bytes([_FORMAT_MARK]) + digest[:2]
        object.__setattr__(self, "tag", tag)
        known = _FORMATS.setdefault(tag, self)
        if known != self:
            msg = f"Value formats {known} and {self} have one tag {tag!r}: rename one"
            raise StateError(msg)

    def encode(self, obj: Any) -> bytes:
        """``obj`` (a SQL value or a nest of lists, tuples and dicts of them) as tagged msgpack.

        Raises:
            TypeError: for an object that is no SQL value.
        """
        return self.tag + _packer().pack(obj)  # a reused packer: 4x cheaper than packb per value

    def decode(self, data: bytes) -> Any:
        """The object :meth:`encode` wrote.

        Raises:
            StateFormatError: if ``data`` was written in another format.
        """
        return _unpackb(self.unwrap(data))

    def wrap(self, payload: bytes) -> bytes:
        """A value in the operator's own binary encoding (e.g. fixed-width numpy rows), tagged."""
        return self.tag + payload

    def unwrap(self, data: bytes) -> memoryview:
        """The payload of a value written by :meth:`wrap` or :meth:`encode` (a view, no copy).

        Raises:
            StateFormatError: if ``data`` was written in another format.
        """
        if data[:3] != self.tag:
            raise StateFormatError(self._mismatch(data))
        return memoryview(data)[3:]

    def _mismatch(self, data: bytes) -> str:
        tag = bytes(data[:3])
        other = _FORMATS.get(tag)
        found = f"'{other.name}' v{other.version}" if other else f"an unknown format (tag {tag!r})"
        ttl = ""
        if _TTL_FORMAT in (self.name, other.name if other else None):
            now_on = self.name == _TTL_FORMAT
            ttl = (f" (state written {'without' if now_on else 'under'} state TTL is read "
                   f"{'with' if now_on else 'without'} it: 'table.exec.state.ttl' or a STATE_TTL hint was "
                   "switched on or off since the checkpoint; switch it back to restore it)")
        return (f"State written by another format: expected '{self.name}' v{self.version}, found "
                f"{found}{ttl}; "
                "restore from a snapshot of this version or start the job afresh")


#: The format of generic SQL values (:func:`encode_value`).
SQL_VALUE = ValueFormat("sql-value", 1)


def encode_value(obj: Any, fmt: ValueFormat = SQL_VALUE) -> bytes:
    """``obj`` as a tagged state value of ``fmt`` (:meth:`ValueFormat.encode`)."""
    return fmt.encode(obj)


def decode_value(data: bytes, fmt: ValueFormat = SQL_VALUE) -> Any:
    """The object in a state value of ``fmt`` (:meth:`ValueFormat.decode`).

    Raises:
        StateFormatError: if ``data`` was written in another format.
    """
    return fmt.decode(data)
