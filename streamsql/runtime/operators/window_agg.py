r"""Window aggregation over Flink's window TVFs TUMBLE, HOP, CUMULATE; the TVF without aggregation.

Semantics, as Flink's window TVFs and its window aggregate (``WindowAggregate`` /
``SlicingWindowOperator``); every time is in **milliseconds since the epoch** (the rowtime as
a UTC wall clock for ``TIMESTAMP(3)``, the instant for ``TIMESTAMP_LTZ(3)``):

- **TUMBLE(size, offset)**: each row belongs to the one window
  ``[start, start + size)`` with ``start = ts - ((ts - offset) mod size)`` (floor, so negative
  times work too).
- **HOP(slide, size, offset)**: each row belongs to ``size / slide`` windows of length
  ``size`` starting every ``slide`` (``size`` must be a multiple of ``slide``, as Flink's
  slicing requires).
- **CUMULATE(step, size, offset)**: windows ``[base, base + k * step)`` for ``k = 1 ..
  size / step`` where ``base`` is the row's tumbling window start; a row belongs to each of
  them whose end is after it.

A window ``[start, end)`` **fires** when the watermark reaches ``end - 1`` (Flink's timer
at ``window.maxTimestamp()``): it emits one ``+I`` row ``(keys..., window_start,
window_end, window_time = end - 1, aggregates...)`` and its state is deleted; output is
insert-only. A row whose window already fired (``end - 1 <= watermark``) is late: for HOP /
CUMULATE the row still counts in its windows that have not fired; a row none of whose
windows is left is dropped and counted in the job metric ``late_records``. Rows with a NULL
rowtime are dropped (as Flink does).

How they are computed: TUMBLE / HOP / CUMULATE aggregates by
:class:`~streamsql.runtime.operators.slicing_window.SlicingWindowAggOperator` (columnar slices),
SESSION by :class:`~streamsql.runtime.operators.session_window.SessionWindowAggOperator`. This
module holds what they share: the window spec and its vectorized assignment, rowtime access,
event-time timers kept in keyed state
(sessions, interval joins), and the window TVF without aggregation.

Event-time timer entries (:class:`EventTimeTimers`; ``kg`` = the 2-byte key group of the key,
tags from :mod:`streamsql.state.layout`):

============================================ ===========================================
``kg + TIMER_TAG + end(8) + key``            (key, window) pending at ``end`` (``end``
                                             big-endian, offset by 2^63); the value is
                                             the tag of :data:`TIMER` (no payload)
``WATERMARK_KEY``                            the operator's watermark at the last
                                             checkpoint: :data:`WATERMARK` + int64
============================================ ===========================================

Timers are state, so a snapshot holds them; after a restore the in-memory timer index is
rebuilt from the timer entries before the first element.
"""

from __future__ import annotations

import heapq
import struct

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import MAX_WATERMARK, Batch, Element, Watermark
from streamsql.functions import python_functions
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.base import Operator
from streamsql.runtime.operators.local_time import local_watermark, to_instant, to_local
from streamsql.runtime.operators.rowtime_nulls import EPOCH, count_dropped
from streamsql.state.base import KeyedState
from streamsql.state.layout import TIMER_TAG, WATERMARK_KEY, ValueFormat

#: The value of a timer entry (the key says everything).
TIMER = ValueFormat("event-time-timer", 1)
#: The value of the operator's watermark entry: a big-endian int64 (ms).
WATERMARK = ValueFormat("operator-watermark", 1)
_TIMER_VALUE = TIMER.wrap(b"")
_MIN_TIMER_KEY = 2 + len(TIMER_TAG) + 8  # kg, tag, end: an encoded key (10 bytes for one int) is shorter
_OFFSET = 2**63
_BE = struct.Struct(">Q")
_SIGNED = struct.Struct(">q")


def assign_windows(ts: np.ndarray, spec: WindowSpec) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The windows of each rowtime, vectorized.

    Args:
        ts: int64 rowtimes (ms), no NULLs.
        spec: a TUMBLE, HOP or CUMULATE spec.

    Returns:
        ``(rows, starts, ends)``: for each (row, window) pair, the row's index in ``ts`` and the
        window's ``[start, end)`` in ms. Pairs of one row are adjacent, in ascending window end.
    """
    ts = ts.astype(np.int64, copy=False)
    n = len(ts)
    if spec.kind == "TUMBLE":
        starts = ts - np.mod(ts - spec.offset, spec.size)
        return np.arange(n, dtype=np.int64), starts, starts + spec.size
    if spec.kind == "HOP":
        per = spec.size // spec.slide
        last = ts - np.mod(ts - spec.offset, spec.slide)           # latest window start <= ts
        k = np.arange(per - 1, -1, -1, dtype=np.int64)              # oldest window first
        starts = (last[:, None] - k[None, :] * spec.slide).reshape(-1)
        rows = np.repeat(np.arange(n, dtype=np.int64), per)
        return rows, starts, starts + spec.size
    if spec.kind == "CUMULATE":
        per = spec.size // spec.slide
        base = ts - np.mod(ts - spec.offset, spec.size)
        ends = base[:, None] + np.arange(1, per + 1, dtype=np.int64)[None, :] * spec.slide
        keep = ends > ts[:, None]
        rows = np.repeat(np.arange(n, dtype=np.int64), per).reshape(n, per)[keep]
        return rows, np.repeat(base, per).reshape(n, per)[keep], ends[keep]
    msg = f"assign_windows: {spec.kind} windows are not aligned"
    raise ValueError(msg)


def rowtimes(column: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, np.ndarray | None]:
    """A timestamp column as int64 ms, plus a mask of its non-NULL rows (None if no NULLs).

    A NULL reads as :data:`~streamsql.runtime.operators.rowtime_nulls.EPOCH` (filled in only when
    the column has NULLs).
    """
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    t = column.type
    if pa.types.is_timestamp(t) and t.unit != "ms":
        column = column.cast(pa.timestamp("ms", tz=t.tz), safe=False)
    ints = column.view(pa.int64()) if pa.types.is_timestamp(column.type) else column.cast(pa.int64())
    if ints.null_count:
        valid = pc.is_valid(ints).to_numpy(zero_copy_only=False)
        return pc.fill_null(ints, EPOCH).to_numpy(zero_copy_only=False), valid
    return ints.to_numpy(zero_copy_only=False), None


def ms_array(values, arrow_type: pa.DataType) -> pa.Array:
    """Int ms values as an Arrow timestamp array of ``arrow_type``."""
    return pa.array(values, pa.int64()).cast(arrow_type)


def add_late(metrics: dict, n: int) -> None:
    """Count ``n`` dropped late rows in the job metric ``late_records``."""
    if n:
        metrics["late_records"] = metrics.get("late_records", 0) + int(n)


# -- event-time timers ----------------------------------------------------------------------------


class EventTimeTimers:
    """Event-time timers kept in keyed state, with an in-memory index to fire them.

    A timer is (end, state key): "the window or session stored under this key fires when the
    watermark reaches ``end - 1``". Each is persisted as its own entry (``kg + 0x00 'T' +
    end + key``) so that it belongs to its key's key group and is part of every snapshot; the
    index (a heap of pending ends, each with its keys) is rebuilt from those entries by
    :meth:`load` after open/restore.
    """

    def __init__(self) -> None:
        self._keys: dict[int, set[bytes]] = {}
        self._heap: list[int] = []

    @staticmethod
    def entry(end: int, state_key: bytes) -> bytes:
        """The state key of the timer (end, ``state_key``)."""
        return state_key[:2] + TIMER_TAG + _BE.pack(end + _OFFSET) + state_key[2:]

    def load(self, state: KeyedState) -> int | None:
        """Rebuild the index from ``state``; returns the checkpointed watermark (or None).

        Raises:
            StateFormatError: a timer or watermark entry written in another format.
        """
        self._keys.clear()
        self._heap.clear()
        wm = None
        for k, v in state.items():
            if k[2:4] == TIMER_TAG and len(k) >= _MIN_TIMER_KEY:
                TIMER.unwrap(v)
                end = _BE.unpack_from(k, 4)[0] - _OFFSET
                self._add(end, k[:2] + k[12:])
            elif k == WATERMARK_KEY:
                wm = read_watermark(v)
        return wm

    def _add(self, end: int, state_key: bytes) -> None:
        keys = self._keys.get(end)
        if keys is None:
            keys = self._keys[end] = set()
            heapq.heappush(self._heap, end)
        keys.add(state_key)

    def add(self, end: int, state_key: bytes, puts: list) -> None:
        """Register timer (end, key); its state entry is appended to ``puts``."""
        self._add(end, state_key)
        puts.append((self.entry(end, state_key), _TIMER_VALUE))

    def remove(self, end: int, state_key: bytes, deletes: list) -> None:
        """Drop timer (end, key); its state entry is appended to ``deletes``."""
        keys = self._keys.get(end)
        if keys is not None:
            keys.discard(state_key)
            if not keys:
                del self._keys[end]  # the heap entry goes stale and is skipped
        deletes.append(self.entry(end, state_key))

    def pop_due(self, watermark: int, deletes: list) -> list[tuple[int, bytes]]:
        """Remove every timer with ``end - 1 <= watermark``; returns (end, key) in end order.

        Their state entries are appended to ``deletes``.
        """
        due: list[tuple[int, bytes]] = []
        while self._heap and (self._heap[0] - 1 <= watermark or watermark == MAX_WATERMARK):
            end = heapq.heappop(self._heap)
            keys = self._keys.pop(end, None)
            if not keys:
                continue
            for k in sorted(keys):
                due.append((end, k))
                deletes.append(self.entry(end, k))
        return due

    def __len__(self) -> int:
        return sum(len(v) for v in self._keys.values())


def watermark_entry(watermark: int) -> tuple[bytes, bytes]:
    """The state entry that checkpoints an operator's watermark."""
    return WATERMARK_KEY, WATERMARK.wrap(_SIGNED.pack(watermark))


def read_watermark(value: bytes) -> int:
    """The watermark in the value of a :func:`watermark_entry`.

    Raises:
        StateFormatError: the value was written in another format.
    """
    return _SIGNED.unpack(WATERMARK.unwrap(value))[0]


# -- operators ------------------------------------------------------------------------------------


class WindowOperatorBase(Operator):
    """Shared by the window aggregates: watermark tracking, timers, lazy index rebuild.

    ``watermark_zone``: when set, the operator's times are local to that zone
    (:mod:`.local_time`) and so is the watermark it tracks (the one it forwards is the input's).
    """

    stateful = True
    watermark_zone: str | None = None

    def open(self, ctx) -> None:
        """Called once; the timer index is built at the first element (after any restore)."""
        super().open(ctx)
        self.timers = EventTimeTimers()
        self.watermark: int | None = None
        self._loaded = False

    def _ensure_loaded(self) -> None:
        if not self._loaded:
            wm = self.timers.load(self.ctx.state)
            if wm is not None and (self.watermark is None or wm > self.watermark):
                self.watermark = wm
            self._loaded = True

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Persist the current watermark (pending windows and timers are already in state)."""
        self._ensure_loaded()
        if self.watermark is not None:
            self.ctx.state.write([watermark_entry(self.watermark)])

    def _advance(self, watermark: Watermark) -> int:
        self._ensure_loaded()
        wm = local_watermark(watermark.timestamp, self.watermark_zone)
        if self.watermark is None or wm > self.watermark:
            self.watermark = wm
        return self.watermark

    def _rows_after(self, table: pa.Table, ts_index: int, bound: int | None) -> tuple[pa.Table, np.ndarray]:
        """``table`` without its late rows (none when ``bound`` is None), and their rowtimes (ms).

        A row is late when its rowtime (column ``ts_index``) is not after ``bound`` (ms): dropped
        and counted in the job metric ``late_records``. A NULL rowtime reads as 0, 1970-01-01
        00:00:00 (:data:`~streamsql.runtime.operators.rowtime_nulls.EPOCH`, as Flink's OVER and
        sort operators read it), so it is late once ``bound`` is at or past the epoch; the row
        itself keeps its NULL.
        """
        ts, _ = rowtimes(table.column(ts_index))
        if bound is not None:
            late = ts <= bound
            n_late = int(late.sum())
            if n_late:
                add_late(self.ctx.metrics, n_late)
                idx = np.flatnonzero(~late)
                table, ts = table.take(pa.array(idx)), ts[idx]
        return table, ts

    def _pop_due_keys(self, watermark: Watermark) -> tuple[int, list, list[bytes]]:
        """Advance to ``watermark`` and pop the timers it makes due.

        Returns ``(wm, deletes, state_keys)``: the operator's watermark after the advance, the
        state deletes of the popped timer entries (to be written by the caller), and the distinct
        state keys of the due timers in firing order (empty when nothing is due).
        """
        wm = self._advance(watermark)
        deletes: list = []
        due = self.timers.pop_due(wm, deletes)
        return wm, deletes, list(dict.fromkeys(k for _, k in due))

    def _fire_due_keys(self, watermark: Watermark, fire) -> list[Element]:
        """Advance to ``watermark``, run ``fire`` on each due state key, write, emit its rows, forward it.

        ``fire(state_key, value, wm, emitted, puts, deletes)`` is called per due key that still
        has a value (``value``: its raw state bytes), in timer order; it appends ``(time, row)``
        pairs to ``emitted`` and its state changes to ``puts`` / ``deletes`` (which already hold
        the popped timers' deletes). The changes are written in one call, then
        :meth:`_emit_then_forward`.
        """
        wm, deletes, skeys = self._pop_due_keys(watermark)
        emitted: list[tuple[int, tuple]] = []
        puts: list = []
        for skey, value in zip(skeys, self.ctx.state.get_many(skeys) if skeys else []):
            if value is not None:
                fire(skey, value, wm, emitted, puts, deletes)
        if puts or deletes:
            self.ctx.state.write(puts, deletes)
        return self._emit_then_forward(emitted, watermark)

    def _emit_then_forward(self, emitted: list[tuple[int, tuple]], watermark: Watermark) -> list[Element]:
        """One batch of ``emitted`` rows in rowtime order (ms), then ``watermark`` itself.

        ``emitted`` holds ``(time, row)`` pairs (the rowtime, or a session's end); the sort is
        stable, so rows of one time keep the order they were produced in. The rows go before the
        watermark that made them due, as Flink's operators emit in ``onEventTime`` before
        forwarding the watermark. The subclass provides ``_to_table(rows) -> pa.Table``.
        """
        out: list[Element] = []
        if emitted:
            emitted.sort(key=lambda e: e[0])
            out.append(Batch(self._to_table([r for _, r in emitted])))
        out.append(watermark)
        return out


class WindowAggBase(WindowOperatorBase):
    """Shared by the window aggregates over (grouping key, window): their setup and DuckDB access.

    Args:
        spec: the window (a SESSION spec has ``gap`` in ms).
        num_keys: the first ``num_keys`` input columns are the grouping key (without window).
        ts_index: the input column of the rowtime.
        aggs: aggregate calls over input columns.
        input_schema: Arrow schema of the input.
        output_schema: ``keys..., window_start, window_end, window_time, aggregates...``.
    """

    def __init__(self, spec: WindowSpec, num_keys: int, ts_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema):
        self.spec = spec
        self.num_keys = num_keys
        self.ts_index = ts_index
        self.output_schema = output_schema
        self.aggregates = Aggregates(aggs, input_schema, list(output_schema)[num_keys + 3:], "Window",
                                     row_count=True)
        self._con = python_functions.cursor()

    @staticmethod
    def _quoted_names(input_schema: pa.Schema, indices) -> list[str]:
        """The input columns at ``indices`` as quoted SQL identifiers."""
        names = list(input_schema.names)
        return ['"' + names[i].replace('"', '""') + '"' for i in indices]

    def _query_table(self, sql: str, table: pa.Table) -> pa.Table:
        """Run ``sql`` with ``table`` registered as ``__in``."""
        return query_table(self._con, sql, table)

    def _to_table(self, rows: list[tuple]) -> pa.Table:
        """Output rows ``(keys..., start, end, time, aggs...)`` (times as int ms) → Arrow."""
        return _rows_to_table(rows, self.output_schema, self.num_keys)


def _rows_to_table(rows: list[tuple], schema: pa.Schema, num_keys: int) -> pa.Table:
    """Output rows ``(keys..., start, end, time, aggs...)`` (times as int ms) → Arrow."""
    columns = list(zip(*rows))
    arrays = []
    for i, (col, f) in enumerate(zip(columns, schema)):
        if num_keys <= i < num_keys + 3:
            arrays.append(ms_array(list(col), f.type))
        else:
            arrays.append(pa.array(list(col), type=f.type))
    return pa.Table.from_arrays(arrays, schema=schema)


class WindowTableFunctionOperator(Operator):
    """The window TVF without aggregation, as Flink's ``WindowTableFunction``.

    Each row is sent once per window it belongs to, with ``window_start``, ``window_end`` and
    ``window_time`` (``end - 1`` ms) appended; insert-only, stateless. Rows with a NULL rowtime are dropped
    and counted (``null_rowtime_records``), as Flink's ``numNullRowTimeRecordsDropped`` (a source
    without watermark push-down fails on them first: :mod:`~streamsql.runtime.operators.rowtime_nulls`);
    late rows are not dropped (Flink does not drop them either).

    Args:
        spec: a TUMBLE, HOP or CUMULATE window.
        ts_index: the rowtime column of the input.
        output_schema: the input columns, then window_start, window_end, window_time.
    """

    def __init__(self, spec: WindowSpec, ts_index: int, output_schema: pa.Schema):
        self.spec = spec
        self.ts_index = ts_index
        self.output_schema = output_schema

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Expand ``batch`` by its windows (vectorized)."""
        table = batch.table
        ts, valid = rowtimes(table.column(self.ts_index))
        idx = np.arange(len(ts)) if valid is None else np.flatnonzero(valid)
        count_dropped(self.ctx.metrics, len(ts) - len(idx))
        rows, starts, ends = assign_windows(to_local(ts[idx], self.spec.zone), self.spec)
        if len(rows) == 0:
            return []
        out = table.take(pa.array(idx[rows]))
        n = len(self.output_schema) - 3
        times = to_instant(ends - 1, self.spec.zone)
        for f, values in zip(list(self.output_schema)[n:], (starts, ends, times)):
            out = out.append_column(f, pa.array(values, pa.int64()).cast(f.type))
        kinds = None if batch.kinds is None else batch.kinds[idx[rows]]
        return [Batch(out, kinds)]
