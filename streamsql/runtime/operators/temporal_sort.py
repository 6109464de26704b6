"""Temporal sort, as Flink's ``RowTimeSortOperator`` (``ORDER BY rowtime [, ...]`` without LIMIT).

Semantics (times in **milliseconds**, source: Flink 2.3's ``RowTimeSortOperator``): a row waits
in state under its rowtime until the watermark reaches that rowtime (an event-time timer at the
rowtime), then every row of that rowtime is emitted, sorted by the other ORDER BY keys (a
stable sort: rows equal on them keep their arrival order; a NaN in a floating key, which Flink's
comparator ties with every number, gets the place Java's ``List.sort`` gives it, as
:meth:`TemporalSortOperator._java_sorted`), insert-only; rowtimes fire in
ascending order. A row is late, dropped and counted in the job metric ``late_records``, when its
rowtime is not after the last rowtime emitted (Flink's ``lastTriggeringTs``; none before the
first emission), so a row behind the watermark but newer than the last emission is still
taken and emitted at the next watermark. A NULL rowtime reads as 0, 1970-01-01 00:00:00 (it
sorts first, or is late; the row keeps its NULL), as Flink 2.3
(:mod:`~streamsql.runtime.operators.rowtime_nulls`). One task holds every row
(the plan sends all rows to it), so the state has one key group.

State layout (``base`` = the key group of the empty key, then :data:`_ROWS_TAG` or
:data:`_LAST_TAG`):

======================================= =====================================================
``base + 'R' + rowtime(8)``             :data:`SORT_ROWS`: the rowtime's rows not emitted
                                        yet, ``[[sort key bytes, row], ...]`` in arrival order
``base + 'L'``                          :data:`SORT_LAST`: the last rowtime emitted
``kg + TIMER_TAG + end(8) + key``       the rowtime's event-time timer (``end`` = rowtime + 1)
``WATERMARK_KEY``                       the watermark at the last checkpoint
======================================= =====================================================
"""

from __future__ import annotations

import struct

import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.core.errors import ExecutionError
from streamsql.core.py_values import py_values
from streamsql.functions.scalars.java_sort import MIN_MERGE, small_timsort
from streamsql.runtime.operators.sort_keys import flink_compare, has_nan, sort_keys
from streamsql.runtime.operators.window_agg import WindowOperatorBase
from streamsql.state.layout import ValueFormat, encode_keys, with_key_groups

#: One rowtime's pending rows (tagged msgpack).
SORT_ROWS = ValueFormat("temporal-sort/rows", 1)
#: The last rowtime emitted (tagged msgpack int).
SORT_LAST = ValueFormat("temporal-sort/last", 1)
_ROWS_TAG, _LAST_TAG = b"R", b"L"
_TS = struct.Struct(">q")


class TemporalSortOperator(WindowOperatorBase):
    """Buffers rows until the watermark passes their rowtime, then emits them sorted (module docstring).

    Args:
        ts_index: the input column of the rowtime.
        order / descending / nulls_first: the secondary ORDER BY keys (input columns), per key.
        schema: Arrow schema of input and output (rows pass unchanged).
        by_arrival: the rowtime is the arrival time (a processing-time sort, run inside
            :class:`~streamsql.runtime.operators.proctime.ProcessingTimeOperator`): every row due
            at one firing is sorted together by the other keys, whatever its arrival
            millisecond, as Flink's ``ProcTimeSortOperator`` sorts all the rows it buffered when
            its timer fires.
    """

    state_ttl_missing = None  # Flink's RowTimeSortOperator keeps no TTL'd state either

    def __init__(self, ts_index: int, order: list[int], descending: list[bool], nulls_first: list[bool],
                 schema: pa.Schema, by_arrival: bool = False):
        self.by_arrival = by_arrival
        self.ts_index = ts_index
        self.order = order
        self.descending = descending
        self.nulls_first = nulls_first
        self.schema = schema
        self._base = with_key_groups(encode_keys([], 1))[0]
        self._last_key = self._base + _LAST_TAG

    def open(self, ctx) -> None:
        """Called once; the last emitted rowtime is read at the first element (after any restore)."""
        super().open(ctx)
        self._last: int | None = None
        self._last_loaded = False

    def _last_emitted(self) -> int | None:
        if not self._last_loaded:  # after open or restore
            raw = self.ctx.state.get_many([self._last_key])[0]
            self._last = SORT_LAST.decode(raw) if raw is not None else None
            self._last_loaded = True
        return self._last

    def _bucket(self, ts: int) -> bytes:
        return self._base + _ROWS_TAG + _TS.pack(ts)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Store the batch's rows under their rowtimes (late rows are dropped)."""
        self._ensure_loaded()
        table, ts = self._rows_after(batch.table, self.ts_index, self._last_emitted())
        if table.num_rows == 0:
            return []
        keys = (sort_keys([table.column(i) for i in self.order], self.descending, self.nulls_first)
                if self.order else [b""] * table.num_rows)
        rows = list(zip(*(py_values(c) for c in table.columns)))
        by_ts: dict[int, list] = {}
        for t, key, row in zip(ts.tolist(), keys, rows):
            by_ts.setdefault(t, []).append([key, row])
        buckets = [self._bucket(t) for t in by_ts]
        puts: list = []
        for (t, new), bucket, old in zip(by_ts.items(), buckets, self.ctx.state.get_many(buckets)):
            if old is None:
                self.timers.add(t + 1, bucket, puts)  # timers fire at end - 1: at the rowtime
                pending = new
            else:
                pending = SORT_ROWS.decode(old) + new
            puts.append((bucket, SORT_ROWS.encode(pending)))
        self.ctx.state.write(puts)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Emit the rows of every rowtime the watermark reached, in (rowtime, keys) order; forward it."""
        before = self._last_emitted()
        out = self._fire_due_keys(watermark, self._fire_rowtime)
        if self._last != before:  # once per watermark; with the buckets' deletes before any snapshot
            self.ctx.state.write([(self._last_key, SORT_LAST.encode(self._last))])
        return out

    def _fire_rowtime(self, bucket: bytes, raw: bytes, wm: int, emitted: list, puts: list,
                      deletes: list) -> None:
        """One rowtime's rows, sorted by the other keys, into ``emitted``; its bucket is deleted."""
        t = _TS.unpack_from(bucket, len(self._base) + 1)[0]
        pending = SORT_ROWS.decode(raw)
        values = [tuple(row[i] for i in self.order) for _, row in pending]
        if not self.by_arrival and any(has_nan(v) for v in values):
            pending = self._java_sorted(pending, values, t)
        else:
            pending.sort(key=lambda p: p[0])  # stable: ties keep arrival order, as Java's List.sort
        # by arrival: ordered by the sort key across the firing's rowtimes (a stable sort of rows
        # fired in rowtime order: ties keep their arrival order)
        emitted += [(key if self.by_arrival else t, tuple(row)) for key, row in pending]
        deletes.append(bucket)
        self._last = t if self._last is None else max(self._last, t)

    def _java_sorted(self, pending: list, values: list[tuple], t: int) -> list:
        """``pending`` in the order Flink's ``inputs.sort(comparator)`` leaves rows holding a NaN key.

        NaN ties every number under Flink's comparator (:func:`~streamsql.runtime.operators.sort_keys.
        flink_compare`), so the order is the one Java's TimSort steps give: reproduced below 32 rows.

        Raises:
            ExecutionError: 32 rows or more of one rowtime with a NaN key.
        """
        if len(pending) >= MIN_MERGE:
            msg = (f"{len(pending)} rows of rowtime {t} (ms) hold a NaN in an ORDER BY key: Flink's "
                   f"comparator takes NaN for equal to every number, and its order is reproduced below "
                   f"{MIN_MERGE} rows of one rowtime only; filter the NaN values out first")
            raise ExecutionError(msg)
        compare = flink_compare(self.descending, self.nulls_first)
        order = small_timsort(list(range(len(pending))), lambda i, j: compare(values[i], values[j]))
        return [pending[i] for i in order]

    def _to_table(self, rows: list[tuple]) -> pa.Table:
        """Output rows (Python values, as stored) → Arrow."""
        columns = list(zip(*rows))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(columns, self.schema)]
        return pa.Table.from_arrays(arrays, schema=self.schema)
