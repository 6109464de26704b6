r"""OVER aggregates ordered by a non-time column, as Flink 2.3's ``NonTime*UnboundedPrecedingFunction``.

``agg(...) OVER (PARTITION BY k ORDER BY p {ROWS|RANGE} BETWEEN UNBOUNDED PRECEDING AND CURRENT
ROW)`` with ``p`` any orderable column (Flink 2.1+): per partition key the rows are kept in ``p``
order (ascending, NULLs first, as Flink's comparator: :mod:`~streamsql.runtime.operators.sort_keys`;
rows with equal ``p`` in arrival order), and each row's result is the aggregate over the rows up
to it — ROWS: up to the row itself; RANGE: up to its last peer (equal ``p``), so peers share one
result. The result is an updating table: a row changes the results of the rows ordered after it.

Emission, per input row in arrival order, as Flink's operators emit it:

- an inserted row (``+I``, or ``+U`` of an updating input: its kind is kept) is emitted with its
  result; under RANGE, when it joins peers whose shared result changes, the peers' ``-U`` old /
  ``+U`` new pairs come first (in arrival order), then the row. Then every later row whose
  result changed emits ``-U`` old / ``+U`` new, in order;
- a retracted row (``-D`` or ``-U`` of an updating input) is removed — the first row of its
  partition equal to it in every column; one that is not there is ignored, as Flink ignores it
  (counting ``numOfIdsNotFound``) — and emitted as ``-D`` with the result it last had; then the
  rows whose result changed, as above (under RANGE its remaining peers first).

Rows whose result did not change emit nothing (Flink's early out: it stops at the first later
row whose value is unchanged; for COUNT, SUM, MIN and MAX no row after it can change then).

The aggregates are the object forms of :mod:`streamsql.functions.aggregates`, fed by each row's
partial state (:class:`~streamsql.runtime.operators.over_agg.RowPartials`). Each row keeps the
accumulators its result comes from, so a change recomputes from the changed row (RANGE: its
peer group) on, as Flink does, and stops at the first row whose accumulators come out unchanged.

State: per partition key, ``kg + key`` (:func:`~streamsql.state.layout.encode_keys` of the
PARTITION BY columns, ``kg`` its key group) → :data:`OVER_ROWS`: ``[sort keys, rows]``, the
partition's rows in order, each ``[row, partials, result, accumulators]`` (the input row, its
partial states, the result last emitted for it and the accumulators it came from), as tagged
msgpack, read and written through the ranking
operators' write-behind cache (:class:`~streamsql.runtime.operators.rank.RankOperatorBase`):
written back at every checkpoint, split by key group on rescale like all keyed state. Flink keeps
it until state TTL, which is not implemented for this operator: a job with
``'table.exec.state.ttl'`` is refused at open.
"""

from __future__ import annotations

import copy
import math
import operator
from bisect import bisect_left, bisect_right

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import Batch, Element, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.operators.join import rows_of
from streamsql.runtime.operators.over_agg import RowPartials
from streamsql.runtime.operators.rank import RankOperatorBase
from streamsql.runtime.operators.sort_keys import sort_keys
from streamsql.state.layout import ValueFormat, encode_keys

#: A partition's rows in ORDER BY order: ``[sort keys, [[row, partials, result, accumulators], ...]]``.
OVER_ROWS = ValueFormat("over-nontime/rows", 1)

INSERT, BEFORE, AFTER, DELETE = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


def _dump(value: tuple[list[bytes], list[list]]) -> bytes:
    return OVER_ROWS.encode([value[0], [[list(r), p, list(v), a] for r, p, v, a in value[1]]])


def _load(raw: bytes) -> tuple[list[bytes], list[list]]:
    sks, entries = OVER_ROWS.decode(raw)
    return list(sks), [[tuple(r), p, tuple(v), a] for r, p, v, a in entries]


class NonTimeOverOperator(RankOperatorBase):
    """Unbounded OVER aggregates ordered by a non-time column (module docstring).

    Args:
        spec: the frame (ROWS or RANGE, UNBOUNDED PRECEDING).
        num_keys: the first ``num_keys`` input columns are the partition key.
        order_index: the input column of the ORDER BY value.
        aggs: aggregate calls over input columns (insert-only forms: rows are never retracted
            from an accumulator, a change recomputes the results).
        input_schema: Arrow schema of the input.
        output_schema: the input columns, then one column per call.
        order_sql: the ORDER BY expression as written (for an error message; default: its column's name).
    """

    state_ttl_missing = "an OVER aggregate ordered by a column that is no time attribute"

    def __init__(self, spec: OverSpec, num_keys: int, order_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema, order_sql: str | None = None):
        super().__init__(spec, _dump, _load)
        self.num_keys = num_keys
        self.order_index = order_index
        self.output_schema = output_schema
        n_in = len(input_schema)
        self.rows = RowPartials(Aggregates(aggs, input_schema, list(output_schema)[n_in:], "OVER"),
                                input_schema, retracts=False)
        self.peers = spec.kind == "RANGE"  # peers share one result
        fields = list(input_schema) + list(output_schema)[n_in:]
        order = input_schema.field(order_index)
        self.nan_order = pa.types.is_floating(order.type) and (order_sql or order.name)  # a NaN fails the job
        # rows and accumulators compare as Flink's (Java's equals): by a DOUBLE's bits
        self.same = _java_equal if any(pa.types.is_floating(f.type) for f in fields) else operator.eq

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Apply the batch's rows in arrival order, emitting each one's changelog."""
        table = batch.table
        if table.num_rows == 0:
            return []
        parts = encode_keys(table.columns[: self.num_keys], table.num_rows)
        sks = sort_keys([self._order_column(table)], [False], [True])
        adds, _ = self.rows.partials(table)
        rows = rows_of(table)
        kinds = batch.kind_array().tolist()
        keys = list(dict.fromkeys(parts))
        slots = self.cache.slots(keys)
        loaded = self.values.get(slots)
        states = {k: (list(v[0]), list(v[1])) if v is not None else ([], [])
                  for k, v in zip(keys, loaded)}
        out_rows: list[tuple] = []
        out_kinds: list[int] = []
        for i, kind in enumerate(kinds):
            key_sks, entries = states[parts[i]]
            if kind in (INSERT, AFTER):
                self._insert(key_sks, entries, sks[i], rows[i], adds[i], kind, out_rows, out_kinds)
            else:
                self._retract(key_sks, entries, sks[i], rows[i], out_rows, out_kinds)
        self.values.put(slots, [states[k] if states[k][1] else None for k in keys])
        self.cache.touch(slots)
        self.cache.evict()
        if not out_rows:
            return []
        columns = list(zip(*out_rows))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(columns, self.output_schema)]
        return [Batch(pa.Table.from_arrays(arrays, schema=self.output_schema), np.array(out_kinds, np.int8))]

    def _order_column(self, table: pa.Table) -> pa.ChunkedArray:
        """The ORDER BY column as Flink's comparator orders it (``a > b ? 1 : a < b ? -1 : 0``).

        -0.0 and 0.0 compare equal there (peers), so -0.0 is ordered as 0.0. NaN compares equal to
        every value, which no order can give (Flink's linear search puts such a row, and the rows
        after it, where their arrival takes them): a NaN fails the job rather than be ordered
        otherwise.
        """
        column = table.column(self.order_index)
        if not self.nan_order:
            return column
        if pc.any(pc.is_nan(column)).as_py():
            msg = (f"An OVER aggregate ordered by {self.nan_order} got NaN: Flink 2.3's comparator takes "
                   f"NaN for equal to every value, so no order of the rows gives its answer; filter "
                   f"the NaN values out first (WHERE CAST({self.nan_order} AS STRING) <> 'NaN')")
            raise ExecutionError(msg)
        return pc.if_else(pc.equal(column, 0.0), pa.scalar(0.0, column.type), column)

    # -- changes ------------------------------------------------------------------------------

    def _insert(self, sks: list[bytes], entries: list[list], sk: bytes, row: tuple, partials: list,
                kind: int, out_rows: list, out_kinds: list) -> None:
        """Put ``row`` after its peers; emit it, then the changed results after it."""
        pos = bisect_right(sks, sk)
        sks.insert(pos, sk)
        entries.insert(pos, [row, partials, None, None])
        start = bisect_left(sks, sk) if self.peers else pos
        new = self._refresh(sks, entries, start)
        # RANGE: the peers before it first, when their shared result changed (Flink's order)
        self._emit_changes(entries, new, start, pos, out_rows, out_kinds)
        entries[pos][2] = new[pos]
        out_rows.append(row + new[pos])
        out_kinds.append(kind)
        self._emit_changes(entries, new, pos + 1, len(entries), out_rows, out_kinds)

    def _retract(self, sks: list[bytes], entries: list[list], sk: bytes, row: tuple,
                 out_rows: list, out_kinds: list) -> None:
        """Remove the first row equal to ``row``; emit it as -D, then the changed results."""
        lo = bisect_left(sks, sk)
        pos = next((j for j in range(lo, bisect_right(sks, sk)) if self.same(entries[j][0], row)), None)
        if pos is None:  # Flink logs it (numOfIdsNotFound) and goes on
            return
        gone = entries.pop(pos)
        del sks[pos]
        start = lo if self.peers else pos
        new = self._refresh(sks, entries, start)
        # RANGE: the peers ahead of it first, then its -D, then the rows after it (Flink's order)
        self._emit_changes(entries, new, start, pos, out_rows, out_kinds)
        out_rows.append(gone[0] + gone[2])
        out_kinds.append(DELETE)
        self._emit_changes(entries, new, pos, len(entries), out_rows, out_kinds)

    def _emit_changes(self, entries: list[list], new: dict[int, tuple], start: int, end: int,
                      out_rows: list, out_kinds: list) -> None:
        """-U old / +U new for each row in ``start .. end`` whose result changed (and record it)."""
        for j in range(start, min(end, max(new, default=-1) + 1)):  # rows past the refresh kept theirs
            result = new.get(j)
            old = entries[j][2]
            if result is None or self.same(old, result):
                continue
            row = entries[j][0]
            out_rows += [row + old, row + result]
            out_kinds += [BEFORE, AFTER]
            entries[j][2] = result

    def _refresh(self, sks: list[bytes], entries: list[list], start: int) -> dict[int, tuple]:
        """Recompute the accumulators and results from row ``start`` on; the new result by row index.

        Each row keeps the accumulator its result comes from (ROWS: the rows up to it; RANGE: its
        peer group's). Once a row's (a group's) recomputed accumulator equals the one it has,
        every later one does too (each folds the same rows onto it), so the pass stops there.
        """
        agg, fold = self.rows.aggregates, self.rows.fold
        acc = _copy(entries[start - 1][3]) if start else agg.new()
        new: dict[int, tuple] = {}
        n = len(entries)
        j = start
        while j < n:
            end = j + 1
            if self.peers:
                while end < n and sks[end] == sks[j]:
                    end += 1
            for entry in entries[j:end]:
                fold(acc, entry[1], 1)
            if self.same(entries[end - 1][3], acc):
                break
            result = agg.result(acc)
            kept = _copy(acc)  # peers share it: it is never folded into (the next pass copies it)
            for m in range(j, end):
                entries[m][3] = kept
                new[m] = result
            j = end
        return new


def _java_equal(x: object, y: object) -> bool:
    """Java's ``equals`` of two rows, results or accumulators: DOUBLEs by their bits.

    NaN equals NaN (a retraction of a row with a NaN finds it, as Flink's row equaliser does) and
    -0.0 is not 0.0 (a result going from -0.0 to 0.0 is an update, as Flink's accumulator equals).
    """
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return len(x) == len(y) and all(_java_equal(a, b) for a, b in zip(x, y))
    if isinstance(x, float) and isinstance(y, float):
        if x != x:
            return y != y
        return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)
    return x == y


def _copy(acc: list) -> list:
    """A copy of accumulators ``acc`` that folding into the original leaves unchanged.

    COUNT's int, SUM's and AVG's ``[sum, count]`` list, MIN's and MAX's value are copied one
    level down; a DISTINCT aggregate's multiset and FIRST_VALUE's / LAST_VALUE's value list
    whole (plan/over.py's ``NONTIME_FUNCTIONS``).
    """
    return [_copied(a) for a in acc]


def _copied(a):
    if isinstance(a, list) and not any(isinstance(x, (list, dict)) for x in a):
        return list(a)
    return copy.deepcopy(a) if isinstance(a, (list, dict)) else a
