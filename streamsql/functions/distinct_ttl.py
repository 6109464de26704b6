"""``COUNT(DISTINCT x)`` under state TTL: Flink's distinct view, whose values expire on their own.

Flink's GROUP BY keeps a COUNT(DISTINCT x) as a count in the key's accumulators plus a *distinct
view*, a MapState of the key from each value to its multiplicity (DistinctAggCodeGen); with
``'table.exec.state.ttl'`` each map entry expires ``ttl`` after its own last write, independently
of the accumulators. The count changes only when a value's multiplicity crosses between 0 and 1
(its first arrival, its last retraction), so a value whose entry expired counts again when it
comes back, and an expired value is never subtracted. When the entry is written differs with the
input (DistinctAggCodeGen's value generators):

- insert-only input: only when the value is new (absent or expired): a value that keeps arriving
  still expires ``ttl`` after its first arrival;
- a changelog input: on every row of the value (its multiplicity changes), and the entry is
  removed when the multiplicity is 0 (an expired entry is read as 0, so a retraction after expiry
  leaves -1, as Flink's).

A batch's net multiplicity per value gives the same count as Flink's row by row: the count moves
by ``[after >= 1] - [before >= 1]`` of the value's multiplicity either way.

Accumulator: ``[count, {value: [multiplicity, last write (ms)]}]``. The operator swaps this state
in for ``count_distinct`` when state TTL is on (:meth:`CountDistinctTtl.configure` gives it the
TTL and the input's kind).
"""

from __future__ import annotations

from typing import ClassVar

from streamsql.core.types import SqlType
from streamsql.functions.aggregate_function import AggregateFunction


class CountDistinctTtl(AggregateFunction):
    """``COUNT(DISTINCT x)`` whose distinct values expire on their own (module docstring)."""

    func: ClassVar[str] = "count_distinct_ttl"
    width: ClassVar[int] = 0
    multiset: ClassVar[bool] = True
    combinable: ClassVar[bool] = False

    def configure(self, ttl, updating: bool) -> None:
        """Set the TTL (``streamsql.state.ttl.StateTtl``: ``now()``, ``alive()``) and the input's kind.

        Args:
            ttl: the operator's state TTL.
            updating: the input is a changelog (else insert-only).
        """
        self.ttl = ttl
        self.updating = updating

    @staticmethod
    def result_type(arg: SqlType | None) -> SqlType:
        """BIGINT NOT NULL, as COUNT(DISTINCT x)."""
        return SqlType("BIGINT", nullable=False)

    def create(self):
        """No value counted, no entry."""
        return [0, {}]

    def result(self, acc):
        """The count (which an expired value that came back has counted twice, as in Flink)."""
        return acc[0]

    def fold_multiset(self, accs: list[list], slot: int, rows: list[int], values: list,
                      mults: list[int]) -> None:
        """Fold net multiplicity ``mults[i]`` of ``values[i]`` into ``accs[rows[i]][slot]``, stamped now."""
        now = self.ttl.now()
        alive = self.ttl.alive
        for i, v, d in zip(rows, values, mults):
            acc = accs[i][slot]
            entry = acc[1].get(v)
            before = entry[0] if entry is not None and alive(entry[1], now) else 0
            if not self.updating:
                if before == 0 and d > 0:  # a new value: counted, its entry written
                    acc[0] += 1
                    acc[1][v] = [1, now]
                continue
            after = before + d
            acc[0] += (after >= 1) - (before >= 1)
            if after == 0:
                acc[1].pop(v, None)
            else:
                acc[1][v] = [after, now]
