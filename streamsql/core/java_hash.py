"""Java's hash codes and ``HashMap`` iteration order: where Flink's output order is a hash map's.

Flink keeps a MAP value in a ``java.util.HashMap`` in places (a MAP read from JSON, the external
``Map`` its print sink prints), so the order of its entries there is the map's bucket order, not
the order they were read or built in. A key's bucket is its ``hashCode()`` spread (``h ^ h >>> 16``)
masked to the table size; a table starts at 16 buckets (or the power of two at or above the
capacity asked for) and doubles once it holds more than 3/4 of its size, each doubling keeping the
order of the keys within a bucket, so the order is by bucket, then by first insertion.

>>> keys = ["b", "a", "zz", "key10", "key2"]
>>> [keys[i] for i in hash_map_order([java_hash(k) for k in keys])]
['zz', 'a', 'key2', 'b', 'key10']
"""

from __future__ import annotations

import math
import struct

_M = 0xFFFFFFFF


def string_hash(s: str) -> int:
    """Java's ``String.hashCode`` (over UTF-16 code units), unsigned 32 bits."""
    h, units = 0, s.encode("utf-16-be")
    for i in range(0, len(units), 2):
        h = (31 * h + (units[i] << 8 | units[i + 1])) & _M
    return h


def java_hash(v: object) -> int | None:
    """The ``hashCode()`` of the Java object Flink's external type holds for ``v``, or None.

    STRING (``String``), integers up to INT (``Integer``, ``Short``, ``Byte``: the value), BIGINT
    (``Long``), BOOLEAN (``Boolean``: 1231 / 1237); None for another kind of value, whose order
    is left as it is.
    """
    if isinstance(v, str):
        return string_hash(v)
    if isinstance(v, bool):
        return 1231 if v else 1237
    if isinstance(v, int):
        if -(2**31) <= v < 2**31:
            return v & _M
        return (v ^ (v >> 32)) & _M if -(2**63) <= v < 2**63 else None
    return None


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _M


def _mix(h: int, k: int) -> int:
    k = _rotl((k * 0xCC9E2D51) & _M, 15) * 0x1B873593 & _M
    return (_rotl(h ^ k, 13) * 5 + 0xE6546B64) & _M


def binary_string_hash(s: str) -> int:
    """The ``hashCode()`` of Flink's ``BinaryStringData`` (a STRING inside Flink): unsigned 32 bits.

    ``MurmurHashUtil.hashBytes`` of the UTF-8 bytes with seed 42: Murmur3's mixing over the
    little-endian 4-byte words, then each remaining byte (signed) alone, then the finalizer.
    """
    data = s.encode("utf-8")
    h, aligned = 42, len(data) - len(data) % 4
    for (word,) in struct.iter_unpack("<I", data[:aligned]):
        h = _mix(h, word)
    for b in data[aligned:]:
        h = _mix(h, (b - 256 if b > 127 else b) & _M)
    h ^= len(data)
    h ^= h >> 16
    h = h * 0x85EBCA6B & _M
    h ^= h >> 13
    h = h * 0xC2B2AE35 & _M
    return h ^ (h >> 16)


def hash_map_order(hashes: list[int], initial_capacity: int = 16) -> list[int]:
    """The positions of keys put in this order into ``new HashMap<>(initial_capacity)``, in its order.

    ``hashes``: each (distinct) key's ``hashCode()``, unsigned 32 bits, in insertion order.
    """
    size = 1 << max(0, math.ceil(math.log2(max(initial_capacity, 1))))
    while len(hashes) > int(size * 0.75):
        size *= 2
    mask = size - 1
    return sorted(range(len(hashes)), key=lambda i: (hashes[i] ^ (hashes[i] >> 16)) & mask)


#: The SQL types whose values :func:`java_hash` / :func:`internal_hash` hash (others: None).
HASHED_TYPES = frozenset({"STRING", "VARCHAR", "CHAR", "TINYINT", "SMALLINT", "INT", "BIGINT", "BOOLEAN"})


def internal_hash(v: object) -> int | None:
    """The ``hashCode()`` of Flink's internal object for ``v``: ``BinaryStringData`` for a string."""
    return binary_string_hash(v) if isinstance(v, str) else java_hash(v)


def reorder(keys: list, hash_of) -> list[int] | None:
    """The :func:`hash_map_order` of ``keys`` hashed by ``hash_of``; None if one has no hash."""
    hashes = [hash_of(k) for k in keys]
    return None if None in hashes else hash_map_order(hashes)


class DoubleKey(float):
    """A float that equals and hashes as Java's ``Double.equals``/``hashCode``: by its bits.

    Flink keeps a DISTINCT aggregate's values (and a MIN/MAX over a changelog's) in a map keyed by
    the boxed value, where ``-0.0`` is not ``0.0`` and every NaN is one key; a Python dict keyed by
    floats merges the zeros and tells NaN objects apart. Only ``-0.0`` and NaN need this
    (:func:`double_key`): every other float equals and hashes as Java's already, so a dict may mix
    both. Arithmetic and ordering are a float's.
    """

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, float):
            return NotImplemented
        return _double_bits(self) == _double_bits(other)

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(_double_bits(self))  # not 0.0's hash (0), so the zeros land apart

    def __repr__(self) -> str:
        return f"DoubleKey({float(self)!r})"


def _double_bits(v: float) -> bytes:
    """Java's ``doubleToLongBits``: the value's 8 bytes, every NaN one pattern."""
    return b"NaN" if math.isnan(v) else struct.pack(">d", v)


def double_order(v: float) -> tuple:
    """A sort key of a float in Java's ``Double.compareTo`` order: -0.0 below 0.0, NaN above +Infinity.

    The order of Flink's ``MinWithRetractAggFunction`` / ``MaxWithRetractAggFunction`` (a MIN/MAX
    over a changelog), whose values are boxed ``Double``s compared with ``compareTo``.

    >>> sorted([float("nan"), 0.0, -0.0, float("-inf")], key=double_order)
    [-inf, -0.0, 0.0, nan]
    """
    if math.isnan(v):
        return (1, 0.0, 0)
    # float(): a DoubleKey(-0.0) is unequal to 0.0, so a tuple would compare its next item wrongly
    return (0, float(v), 0 if math.copysign(1.0, v) < 0 else 1)


def double_key(v):
    """``v`` as a dict key with Java's equality: -0.0 and NaN as :class:`DoubleKey`, else ``v``."""
    if isinstance(v, float) and (math.isnan(v) or (v == 0.0 and math.copysign(1.0, v) < 0)):
        return DoubleKey(v)
    return v
