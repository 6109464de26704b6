"""The BITMAP aggregates of Flink 2.3: BITMAP_{BUILD,AND,OR,XOR}_AGG and their _CARDINALITY_AGG twins.

They run on the mechanism of ARRAY_AGG (:func:`~streamsql.functions.ordered_aggregates.register_builtin`):
an object with PyFlink's aggregate methods whose accumulator is folded row by row (``accumulate``
for +I/+U, ``retract`` for -U/-D) in GROUP BY, window and OVER aggregates. An accumulator holds
:class:`pyroaring.BitMap` objects, which keyed state stores as their portable serialization
(:mod:`streamsql.state.layout`), so a checkpoint restores them exactly. A BITMAP argument arrives
as its bytes (:mod:`streamsql.core.bitmap`); a BITMAP result leaves as its bytes.

Semantics, as Flink 2.3's (flink-table-runtime ``functions/aggregate/AbstractBitmap*AggFunction``;
the planner picks the ``*_retract`` function over an updating input, as Flink its WithRetract ones):

- ``BITMAP_BUILD_AGG(i INT)``: the set of the non-NULL values (each read unsigned); NULL while it
  is empty. Over a changelog the accumulator is ``[bitmap, {value: count}]``: a value leaves the
  bitmap when its count falls to 0, and a retraction of a value never added (count -1) removes it
  too, as Flink's.
- ``BITMAP_AND_AGG(b BITMAP)`` / ``BITMAP_OR_AGG`` / ``BITMAP_XOR_AGG``: the intersection, union,
  symmetric difference of the non-NULL bitmaps; NULL before the first (an empty result is an empty
  bitmap, not NULL). Over a changelog, NULL once the count of bitmaps is 0 or less; AND keeps
  ``[count of bitmaps, {value: count}]`` (a value is in the result when its count equals the
  count of bitmaps), OR ``[count, bitmap, {value: count}]``, XOR ``[count, bitmap]`` (a retraction
  XORs the bitmap again).
- ``*_CARDINALITY_AGG``: the BIGINT cardinality of the same result (NULL where it is NULL).

A wrong argument type is refused at planning in Flink's words (``Unsupported argument type.
Expected type root 'INTEGER' but actual type was 'BIGINT'.``; ``Invalid input arguments. Expected
signatures are: BITMAP_OR_AGG(bitmap <BITMAP>)``); BITMAP_BUILD_AGG takes a TINYINT or SMALLINT
as an INT (Flink's implicit cast).
"""

from __future__ import annotations

from pyroaring import BitMap

from streamsql.core import bitmap
from streamsql.core.errors import PlanError
from streamsql.core.types import SqlType
from streamsql.functions.distinct_view import DistinctView
from streamsql.functions.distinct_view import count as _count
from streamsql.functions.ordered_aggregates import register_builtin

BITMAP = SqlType("BITMAP")
BIGINT = SqlType("BIGINT")
_SMALL_INTS = ("TINYINT", "SMALLINT", "INT", "NULL")


def _result(acc_bitmap: BitMap | None, cardinality: bool):
    """The bitmap's bytes, or its cardinality (``cardinality``); NULL for None."""
    if acc_bitmap is None:
        return None
    return len(acc_bitmap) if cardinality else bitmap.to_bytes(acc_bitmap)


class BuildAgg:
    """``BITMAP_BUILD_AGG(i)`` over insert-only input: the accumulator is ``[bitmap]``."""

    def __init__(self, cardinality: bool):
        self.cardinality = cardinality

    def create_accumulator(self) -> list:
        """An empty bitmap."""
        return [BitMap()]

    def accumulate(self, acc: list, value) -> None:
        """Add a non-NULL INT ``value``."""
        if value is not None:
            acc[0].add(bitmap.element(value))

    def merge(self, acc: list, others: list) -> None:
        """The union with each of ``others``."""
        for other in others:
            acc[0] |= other[0]

    def get_value(self, acc: list):
        """The bitmap (or its cardinality); NULL while it is empty."""
        return _result(acc[0] or None, self.cardinality)


class BuildAggRetract(BuildAgg):
    """``BITMAP_BUILD_AGG(i)`` over a changelog: the accumulator is ``[bitmap, {value: count}]``."""

    def create_accumulator(self) -> list:
        """An empty bitmap and no count."""
        return [BitMap(), {}]

    def accumulate(self, acc: list, value) -> None:
        """Count a non-NULL ``value`` up; it enters the bitmap when its count becomes 1."""
        if value is not None:
            v = bitmap.element(value)
            if _count(acc[1], v, 1) == 1:
                acc[0].add(v)

    def retract(self, acc: list, value) -> None:
        """Count a non-NULL ``value`` down; it leaves the bitmap at count 0 (or -1: never added)."""
        if value is not None:
            v = bitmap.element(value)
            if _count(acc[1], v, -1) in (0, -1):
                acc[0].discard(v)

    def merge(self, acc: list, others: list) -> None:
        """Add each of ``others``'s counts (Flink's merge: the bitmap follows the counts' signs)."""
        for other in others:
            _merge_counts(acc[0], acc[1], other[1])


def _merge_counts(bm: BitMap, counts: dict, others: dict) -> None:
    """Add the counts ``others`` to ``counts``, keeping ``bm`` as Flink's merge keeps its bitmap."""
    for v, n in others.items():
        before = counts.get(v, 0)
        total = _count(counts, v, n)
        if total > 0 >= before:
            bm.add(v)
        elif total <= 0 < before or total < 0:
            bm.discard(v)


class SetAgg:
    """``BITMAP_AND_AGG`` / ``_OR_AGG`` / ``_XOR_AGG`` over insert-only input: ``[bitmap or None]``."""

    def __init__(self, op: str, cardinality: bool):
        self.op = op  # "and", "or" or "xor"
        self.cardinality = cardinality

    def create_accumulator(self) -> list:
        """No bitmap yet."""
        return [None]

    def _fold(self, acc: list, bm: BitMap) -> None:
        if acc[0] is None:
            acc[0] = bm
        elif self.op == "and":
            acc[0] &= bm
        elif self.op == "or":
            acc[0] |= bm
        else:
            acc[0] ^= bm

    def accumulate(self, acc: list, value) -> None:
        """Fold a non-NULL bitmap (its bytes) into the result."""
        if value is not None:
            self._fold(acc, bitmap.from_bytes(value))

    def merge(self, acc: list, others: list) -> None:
        """Fold each of ``others``'s bitmap."""
        for other in others:
            if other[0] is not None:
                self._fold(acc, BitMap(other[0]))

    def get_value(self, acc: list):
        """The bitmap (or its cardinality); NULL before the first bitmap."""
        return _result(acc[0], self.cardinality)


class AndAggRetract(SetAgg):
    """``BITMAP_AND_AGG`` over a changelog: the accumulator is ``[count of bitmaps, {value: count}]``."""

    def create_accumulator(self) -> list:
        """No bitmap, no value."""
        return [0, {}]

    def _add(self, acc: list, value, n: int) -> None:
        if value is not None:
            acc[0] += n
            for v in bitmap.from_bytes(value):
                _count(acc[1], v, n)

    def accumulate(self, acc: list, value) -> None:
        """Count a non-NULL bitmap and each of its values up."""
        self._add(acc, value, 1)

    def retract(self, acc: list, value) -> None:
        """Count a non-NULL bitmap and each of its values down."""
        self._add(acc, value, -1)

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of each of ``others``."""
        for count, counts in others:
            acc[0] += count
            for v, n in counts.items():
                _count(acc[1], v, n)

    def get_value(self, acc: list):
        """The values counted in every bitmap; NULL when the count of bitmaps is 0 or less."""
        count, counts = acc
        if count <= 0:
            return None
        return _result(BitMap(v for v, n in counts.items() if n == count), self.cardinality)


class OrAggRetract(SetAgg):
    """``BITMAP_OR_AGG`` over a changelog: the accumulator is ``[count of bitmaps, bitmap, {value: n}]``."""

    def create_accumulator(self) -> list:
        """No bitmap, no value."""
        return [0, BitMap(), {}]

    def accumulate(self, acc: list, value) -> None:
        """Count a non-NULL bitmap and each of its values up (a value at count 1 enters)."""
        if value is not None:
            acc[0] += 1
            for v in bitmap.from_bytes(value):
                if _count(acc[2], v, 1) == 1:
                    acc[1].add(v)

    def retract(self, acc: list, value) -> None:
        """Count a non-NULL bitmap and each of its values down (a value at count 0 or -1 leaves)."""
        if value is not None:
            acc[0] -= 1
            for v in bitmap.from_bytes(value):
                if _count(acc[2], v, -1) in (0, -1):
                    acc[1].discard(v)

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of each of ``others``."""
        for count, _, counts in others:
            acc[0] += count
            _merge_counts(acc[1], acc[2], counts)

    def get_value(self, acc: list):
        """The union; NULL when the count of bitmaps is 0 or less."""
        return None if acc[0] <= 0 else _result(acc[1], self.cardinality)


class XorAggRetract(SetAgg):
    """``BITMAP_XOR_AGG`` over a changelog: the accumulator is ``[count of bitmaps, bitmap]``."""

    def create_accumulator(self) -> list:
        """No bitmap."""
        return [0, BitMap()]

    def _xor(self, acc: list, value, n: int) -> None:
        if value is not None:
            acc[0] += n
            acc[1] ^= bitmap.from_bytes(value)

    def accumulate(self, acc: list, value) -> None:
        """Count a non-NULL bitmap and XOR it in."""
        self._xor(acc, value, 1)

    def retract(self, acc: list, value) -> None:
        """Count a non-NULL bitmap down and XOR it in again (out)."""
        self._xor(acc, value, -1)

    def merge(self, acc: list, others: list) -> None:
        """Add the counts and XOR the bitmaps of ``others``."""
        for count, bm in others:
            acc[0] += count
            acc[1] ^= bm

    def get_value(self, acc: list):
        """The symmetric difference; NULL when the count of bitmaps is 0 or less."""
        return None if acc[0] <= 0 else _result(acc[1], self.cardinality)


def _check(name: str, arg: SqlType | None, cardinality: bool) -> SqlType:
    """The result type (BITMAP, or BIGINT for a _CARDINALITY_AGG) of ``name`` over ``arg``.

    Raises:
        PlanError: an argument of another type, in Flink's words.
    """
    if name.startswith("BITMAP_BUILD"):
        if arg is not None and arg.name not in _SMALL_INTS:
            msg = f"Unsupported argument type. Expected type root 'INTEGER' but actual type was '{arg}'."
            raise PlanError(msg)
    elif arg is not None and arg.name not in ("BITMAP", "NULL"):
        msg = f"Invalid input arguments. Expected signatures are:\n{name}(bitmap <BITMAP>)"
        raise PlanError(msg)
    return BIGINT if cardinality else BITMAP


def _result_type(name: str, cardinality: bool):
    return lambda arg: _check(name, arg, cardinality)


def _functions():
    out = []
    for op in ("build", "and", "or", "xor"):
        plain = {"build": BuildAgg}.get(op)
        retract = {"build": BuildAggRetract, "and": AndAggRetract, "or": OrAggRetract,
                   "xor": XorAggRetract}[op]
        for cardinality in (False, True):
            name = f"BITMAP_{op.upper()}{'_CARDINALITY' if cardinality else ''}_AGG"
            impl = plain(cardinality) if plain else SetAgg(op, cardinality)
            retract_impl = retract(cardinality) if op == "build" else retract(op, cardinality)
            out.append(register_builtin(name.lower(), name, impl, 1, _result_type(name, cardinality)))
            out.append(register_builtin(name.lower() + "_retract", name, retract_impl, 1,
                                        _result_type(name, cardinality)))
            if op == "xor":  # DISTINCT changes XOR's answer only
                out.append(register_builtin(name.lower() + "_distinct", name, DistinctView(impl), 1,
                                            _result_type(name, cardinality)))
                out.append(register_builtin(name.lower() + "_distinct_retract", name,
                                            DistinctView(retract_impl), 1, _result_type(name, cardinality)))
    return tuple(out)


BITMAP_FUNCTIONS = _functions()
"""The aggregate classes, by their ``AggSpec.func`` (``bitmap_<op>[_cardinality]_agg[_distinct][_retract]``;
``_distinct``: XOR's only)."""
