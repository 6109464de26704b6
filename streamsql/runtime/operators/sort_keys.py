"""Order-preserving bytes of ORDER BY keys, so that ranked rows sort with one bytes comparison.

:func:`sort_keys` encodes each row's ORDER BY values into bytes whose byte-wise order is the SQL
order Flink sorts by: numbers by value, strings and binaries by their UTF-8 bytes, booleans
``FALSE`` first, with ``ASC``/``DESC`` and ``NULLS FIRST``/``NULLS LAST`` per key. It is the one
comparator rule of every sort-key path here (Top-N and window Top-N, the non-time OVER ORDER BY,
the temporal sort's secondary keys), as Flink's generated ``RecordComparator`` is there
(``ComparatorCodeGenerator`` over ``GenerateUtils.generateCompare``). These bytes live inside
state values (the ranked rows of a partition); they are not state keys, which use the one key
encoding of :mod:`streamsql.state.layout`.

FLOAT and DOUBLE: Flink's comparator compares them as Java primitives, ``l > r ? 1 : l < r ? -1 :
0`` — not ``Double.compare`` — so **-0.0 ties 0.0** (encoded alike here: tied rows keep their
arrival order, as Flink keeps them; ``tests/runtime/sort_keys_flink.json``, recorded by
``scripts/flink_sort_keys.py``). Under that rule a **NaN ties every number**, which is no order
at all: where Flink puts a NaN row depends on the data structure and the rows it met (Top-N's
and window Top-N's ``TreeMap`` merge it into the entry its search meets first; the non-time OVER's
linear scan into the first non-NULL key; the temporal sort's ``List.sort`` where TimSort's binary
insertion puts it). These bytes put NaN after +Infinity (one NaN, the positive one); where Flink's
steps are reproducible (the temporal sort of fewer than 32 rows of one rowtime) the operator
sorts with :func:`flink_compare` instead, the others document the difference.

Per key, a row's segment is a marker byte (``0x00`` for a NULL sorting first, ``0x01`` for a
value, ``0x02`` for a NULL sorting last), then the value: fixed-width types as big-endian bytes
with the sign bit flipped (integers, dates, times, timestamps in microseconds, DECIMAL's
unscaled 16 bytes — a DECIMAL has no -0; DOUBLE/FLOAT bits flipped as IEEE 754 total order,
after -0.0 is made 0.0); strings and binaries with ``0x00`` escaped as ``0x00 0xFF`` and
terminated by ``0x00 0x00`` (so a prefix sorts first). ``DESC`` inverts the value bytes, never
the marker. Fixed-width keys are encoded with numpy over the whole column; strings need one
Python step per value.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

_NULL_FIRST, _VALUE, _NULL_LAST = 0, 1, 2
_INVERT = bytes(range(255, -1, -1))  # bytes.translate table: b -> 255 - b


def _flip_sign(data: np.ndarray) -> np.ndarray:
    """Big-endian two's complement rows ``(n, width)`` with the sign bit flipped (order as unsigned)."""
    data = data.copy()
    data[:, 0] ^= 0x80
    return data


def _be_rows(values: np.ndarray, dtype: str) -> np.ndarray:
    arr = np.ascontiguousarray(values, dtype=dtype)
    return arr.view(np.uint8).reshape(len(arr), arr.itemsize)


def _fixed(arr: pa.Array) -> np.ndarray | None:
    """Order-preserving fixed-width bytes of each value, ``(n, width)`` uint8, or None (variable width)."""
    t = arr.type
    if pa.types.is_boolean(t):
        return arr.fill_null(False).to_numpy(zero_copy_only=False).astype(np.uint8).reshape(-1, 1)
    if pa.types.is_unsigned_integer(t):
        return _be_rows(arr.fill_null(0).to_numpy(), ">u8")
    if pa.types.is_integer(t):
        return _flip_sign(_be_rows(arr.fill_null(0).to_numpy(), ">i8"))
    if pa.types.is_floating(t):
        v = arr.fill_null(0.0).to_numpy(zero_copy_only=False).astype(np.float64)
        v[v == 0.0] = 0.0  # -0.0 ties 0.0: Flink compares with < and >, not Double.compare
        v[np.isnan(v)] = np.nan  # one NaN, the positive one: after +infinity (see the module docstring)
        bits = v.view(np.uint64)
        neg = (bits >> np.uint64(63)).astype(bool)
        bits = np.where(neg, ~bits, bits | np.uint64(1 << 63))
        return _be_rows(bits, ">u8")
    if pa.types.is_date(t) or pa.types.is_timestamp(t) or pa.types.is_time(t) or pa.types.is_duration(t):
        # one column has one unit: its integers order as its values do
        ints = arr.cast(pa.int32() if pa.types.is_date32(t) or t == pa.time32("s") or t == pa.time32("ms")
                        else pa.int64()).fill_null(0).to_numpy()
        return _flip_sign(_be_rows(ints.astype(np.int64), ">i8"))
    if pa.types.is_decimal(t):
        width = t.byte_width
        raw = np.frombuffer(arr.buffers()[1], np.uint8)[arr.offset * width:(arr.offset + len(arr)) * width]
        mat = raw.reshape(len(arr), width)[:, ::-1]  # little-endian in Arrow
        if arr.null_count:
            mat = np.where(arr.is_valid().to_numpy(zero_copy_only=False)[:, None], mat, np.uint8(0))
        return _flip_sign(np.ascontiguousarray(mat))
    return None


def _variable(arr: pa.Array) -> list[bytes]:
    """Escaped, terminated bytes of each string or binary value (b"" for NULL: the marker decides)."""
    if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
        values = [s.encode() if s is not None else b"" for s in arr.to_pylist()]
    else:
        values = [bytes(s) if s is not None else b"" for s in arr.to_pylist()]
    return [v.replace(b"\x00", b"\x00\xff") + b"\x00\x00" for v in values]


def sort_keys(columns: list[pa.Array | pa.ChunkedArray], descending: list[bool],
              nulls_first: list[bool]) -> list[bytes]:
    """The order-preserving key of each row over ORDER BY ``columns`` (module docstring).

    Raises:
        TypeError: for an ORDER BY column of a type without an order (nested types).
    """
    n = len(columns[0])
    fixed: list[np.ndarray] = []
    parts: list[list[bytes]] | None = None
    for col, desc, first in zip(columns, descending, nulls_first):
        arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
        valid = np.ones(n, bool) if not arr.null_count else pc.is_valid(arr).to_numpy(zero_copy_only=False)
        marker = np.where(valid, _VALUE, _NULL_FIRST if first else _NULL_LAST).astype(np.uint8).reshape(-1, 1)
        payload = _fixed(arr)
        if payload is not None:
            if desc:
                payload = ~payload
            fixed.append(np.hstack([marker, payload]))
            continue
        if not (pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type)
                or pa.types.is_binary(arr.type) or pa.types.is_large_binary(arr.type)):
            msg = f"Cannot order by a column of type {arr.type}"
            raise TypeError(msg)
        values = _variable(arr)
        if desc:
            values = [v.translate(_INVERT) for v in values]
        parts = _join(parts, fixed, n)
        fixed = []
        markers = [bytes((m,)) for m in range(3)]
        parts = [p + markers[m] + v for p, m, v in zip(parts, marker.ravel().tolist(), values)]
    if parts is None:
        mat = np.hstack(fixed) if len(fixed) > 1 else fixed[0]
        return np.ascontiguousarray(mat).view(f"V{mat.shape[1]}").ravel().tolist()
    return _join(parts, fixed, n)


def _join(parts: list[bytes] | None, fixed: list[np.ndarray], n: int) -> list[bytes]:
    """``parts`` (or empty keys) followed by the fixed-width segments ``fixed``."""
    base = parts if parts is not None else [b""] * n
    if not fixed:
        return base
    mat = np.ascontiguousarray(np.hstack(fixed) if len(fixed) > 1 else fixed[0])
    tails = mat.view(f"V{mat.shape[1]}").ravel().tolist()
    return [p + t for p, t in zip(base, tails)]


def flink_compare(descending: list[bool], nulls_first: list[bool]) -> Callable[[tuple, tuple], int]:
    """Flink's generated ``RecordComparator`` over tuples of ORDER BY values (Python values), per key.

    A NULL goes first or last by ``nulls_first`` (whatever the direction, as Flink's
    ``NullAwareComparator``); two values compare ``1 if a > b else -1 if a < b else 0``
    (``GenerateUtils.generateCompare`` on primitives: Python's float ``<`` / ``>`` are Java's, so a
    NaN compares 0 with everything and -0.0 ties 0.0), negated for ``DESC``. Strings compare by code
    point, which is their UTF-8 bytes' order. Not a total order over NaN: use it only where the
    exact steps of Flink's algorithm are reproduced (:func:`~streamsql.functions.scalars.java_sort.
    small_timsort`); elsewhere :func:`sort_keys` orders.
    """
    keys = list(zip(descending, nulls_first))

    def compare(a: tuple, b: tuple) -> int:
        for x, y, (desc, first) in zip(a, b, keys):
            if x is None or y is None:
                if x is None and y is None:
                    continue
                return (-1 if first else 1) if x is None else (1 if first else -1)
            c = 1 if x > y else -1 if x < y else 0
            if c:
                return -c if desc else c
        return 0

    return compare


def has_nan(values: tuple) -> bool:
    """Whether a tuple of ORDER BY values holds a floating-point NaN (no order places it as Flink)."""
    return any(isinstance(v, float) and v != v for v in values)
