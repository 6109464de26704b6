"""Flink's distinct view of an aggregate call ``F(DISTINCT x)``, for the row-wise built-ins.

Flink's ``DistinctAggCodeGen`` keeps, per distinct value, its count in a map (keyed by the boxed
value: ``Double.equals``, so ``-0.0`` is not ``0.0`` and every NaN is one key) and calls the plain
function on the count's transitions only: ``accumulate(v)`` when it goes 0 -> 1, ``retract(v)``
when it goes 1 -> 0, row by row; a window's or session's parts are merged by handing each value new
to the map to ``accumulate``. :class:`DistinctView` is that map around a row-wise aggregate object
(:mod:`streamsql.functions.ordered_aggregates`): BITMAP_XOR_AGG(DISTINCT b) and the variance family
(VAR_POP, VAR_SAMP, STDDEV_POP, STDDEV_SAMP with DISTINCT) run on it.
"""

from __future__ import annotations

from streamsql.core.java_hash import double_key


def count(counts: dict, value, n: int) -> int:
    """Add ``n`` to ``value``'s count (a count of 0 leaves the map); the new count."""
    total = counts.get(value, 0) + n
    if total:
        counts[value] = total
    else:
        counts.pop(value, None)
    return total


class DistinctView:
    """``F(DISTINCT x)``: the accumulator is ``[{value: count}, inner accumulator]``.

    ``inner`` sees a value's first arrival (count 0 -> 1) and its last retraction (1 -> 0); NULLs
    pass to it (it ignores them). Floats are keyed by Java's equality
    (:func:`~streamsql.core.java_hash.double_key`); other values (numbers, a BITMAP's canonical
    bytes) by their own.
    """

    def __init__(self, inner):
        """The distinct view of ``inner`` (an object with ``create_accumulator``, ``accumulate`` ...)."""
        self.inner = inner

    def create_accumulator(self) -> list:
        """No value seen; the inner accumulator."""
        return [{}, self.inner.create_accumulator()]

    def accumulate(self, acc: list, value) -> None:
        """Count ``value``; the inner function takes it at its first arrival."""
        if value is None or count(acc[0], double_key(value), 1) == 1:
            self.inner.accumulate(acc[1], value)

    def retract(self, acc: list, value) -> None:
        """Count ``value`` down; the inner function retracts it when no copy is left."""
        if value is None or count(acc[0], double_key(value), -1) == 0:
            self.inner.retract(acc[1], value)

    def merge(self, acc: list, others: list) -> None:
        """Add the counts of ``others``; a value new to ``acc`` goes to the inner function."""
        for counts, _ in others:
            for value, n in counts.items():
                before = acc[0].get(value, 0)
                if count(acc[0], value, n) > 0 >= before:
                    self.inner.accumulate(acc[1], value)

    def get_value(self, acc: list):
        """The inner function's value."""
        return self.inner.get_value(acc[1])
