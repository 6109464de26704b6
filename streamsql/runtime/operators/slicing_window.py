r"""Window aggregation over TUMBLE, HOP and CUMULATE by slices, as Flink's ``SlicingWindowOperator``.

Semantics are those of :mod:`~streamsql.runtime.operators.window_agg` (window assignment, firing
at ``end - 1 <= watermark``, one insert-only row per (key, window), late rows); this module is
how they are computed, columnar from end to end.

**Slices.** Event time is cut into slices: a TUMBLE window is one slice; HOP and CUMULATE windows
are unions of consecutive slices of length ``slide`` / ``step`` (``size`` is a multiple of it).
A row goes into exactly one slice (no per-window copies for HOP), and a window is the
combination of its slices' partial aggregates. A slice is dropped when the last window that
contains it fires; a row whose slice has no window left (its last window end ``- 1 <=
watermark``) is late: dropped and counted in ``late_records``. A late row whose slice still has
an unfired window counts in those windows only, as Flink merges a late element into its
remaining windows.

**Per batch** (no per-row or per-key Python): the slice of every row is computed with numpy,
DuckDB computes one partial aggregate row per (key, slice), and the partial table is appended to
its slice. **On a watermark**, each due window's slices are combined by DuckDB (``sum`` of
counts, ``min``/``max`` of extremes, union of distinct-value lists) into the output batch: one
query for all the windows the watermark fires (each window's partials tagged with its index), so
sparse input whose watermark passes thousands of small windows at once costs one query, not one
per window.

The partial aggregates are the DuckDB partial / combine forms of the calls'
:mod:`streamsql.functions.aggregates` objects (COUNT a count; SUM and AVG a count and a sum;
MIN/MAX the extreme; COUNT(DISTINCT x) the list of distinct non-NULL values), one row per key.

**State.** A slice is kept in memory as Arrow tables of partial aggregates. At each checkpoint
(``snapshot_state``), the partials a slice received since the previous checkpoint are combined
and written as new entries, one per key group (Arrow IPC stream bytes), so a checkpoint writes
what changed, never the whole window:

=================================================== ==============================================
``kg + SLICE_TAG + slice_end(8) + checkpoint_id(8)`` partial aggregates of the slice's keys in key
                                                    group ``kg``: :data:`SLICE_PARTIALS` (Arrow IPC)
``WATERMARK_KEY``                                   the operator's watermark at the checkpoint
=================================================== ==============================================

Tags are :mod:`streamsql.state.layout`'s; ``kg`` is the key group of the key's
:func:`~streamsql.state.layout.encode_keys` bytes, as in every operator.

``slice_end`` is big-endian offset by 2^63 (so negative times sort first). When a slice has
accumulated many delta entries they are rewritten as one compacted set. The pending windows
(the operator's event-time timers) are the window ends of the slices in state: they are rebuilt
from the slice entries after a restore. Memory: the partial rows of the open slices (one row per
distinct key per slice after compaction).
"""

from __future__ import annotations

import bisect
import heapq
import struct

import numpy as np
import pyarrow as pa

from streamsql.core.elements import MAX_WATERMARK, Batch, Element, Watermark
from streamsql.functions import python_functions
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.base import Operator
from streamsql.runtime.operators.local_time import local_watermark, to_instant, to_local
from streamsql.runtime.operators.rowtime_nulls import fail_on_null
from streamsql.runtime.operators.window_agg import (
    add_late,
    ms_array,
    read_watermark,
    rowtimes,
    watermark_entry,
)
from streamsql.state.layout import (
    SLICE_TAG,
    WATERMARK_KEY,
    ValueFormat,
    encode_keys,
    group_by_items,
    key_groups,
)

#: A slice entry's value: Arrow IPC stream bytes of partial aggregates (their columns follow the calls).
SLICE_PARTIALS = ValueFormat("slicing-window/partials", 1)
_OFFSET = 2**63
_BE = struct.Struct(">Q")
_SLICE_COL = "__slice_end"
_WINDOW_COL = "__window"  # firing several windows in one query: the window's index
_COMPACT_EVERY = 16  # fresh partial tables kept before they are combined in memory
_REWRITE_AFTER = 16  # checkpoints of delta entries before a slice is rewritten compacted


class SliceAssigner:
    """Rowtimes → slices → windows, for a TUMBLE, HOP or CUMULATE spec (all times in ms).

    A slice is identified by its end; it covers ``[end - slice, end)``.
    """

    def __init__(self, spec: WindowSpec):
        if spec.kind not in ("TUMBLE", "HOP", "CUMULATE"):
            msg = f"SliceAssigner: {spec.kind} windows are not aligned"
            raise ValueError(msg)
        self.spec = spec
        self.slice = spec.size if spec.kind == "TUMBLE" else spec.slide

    def slice_ends(self, ts: np.ndarray) -> np.ndarray:
        """The slice end of each rowtime (int64 array)."""
        return ts - np.mod(ts - self.spec.offset, self.slice) + self.slice

    def last_window_ends(self, slice_ends: np.ndarray) -> np.ndarray:
        """The end of the last window containing each slice (its slice is dropped after it fires)."""
        spec = self.spec
        if spec.kind == "TUMBLE":
            return slice_ends
        if spec.kind == "HOP":
            return slice_ends - spec.slide + spec.size
        first = slice_ends - 1  # CUMULATE: the end of the slice's base window
        return first - np.mod(first - spec.offset, spec.size) + spec.size

    def window_ends(self, slice_end: int) -> range:
        """Ends of every window that contains the slice, ascending."""
        last = int(self.last_window_ends(np.array([slice_end], np.int64))[0])
        return range(slice_end, last + 1, self.slice)

    def window_start(self, window_end: int) -> int:
        """The start of the window ending at ``window_end``."""
        spec = self.spec
        if spec.kind == "CUMULATE":
            t = window_end - 1
            return t - (t - spec.offset) % spec.size
        return window_end - spec.size


class _Slice:
    """The partial aggregates of one slice: persisted (in state) and fresh (since the checkpoint)."""

    __slots__ = ("base", "entries", "fresh", "deltas")

    def __init__(self) -> None:
        self.base: list[pa.Table] = []  # already in keyed state
        self.fresh: list[pa.Table] = []  # received since the last checkpoint
        self.entries: list[bytes] = []  # its state keys
        self.deltas = 0  # checkpoints that added entries since the last rewrite


class SlicingWindowAggOperator(Operator):
    """Aggregates per (key, window) of a TUMBLE / HOP / CUMULATE window (module docstring).

    Args:
        spec: the window (TUMBLE, HOP or CUMULATE; times in ms).
        num_keys: the first ``num_keys`` input columns are the grouping key (without window).
        ts_index: the input column of the rowtime.
        aggs: aggregate calls over input columns (insert-only: no ``*_retract``).
        input_schema: Arrow schema of the input.
        output_schema: ``keys..., window_start, window_end, window_time, aggregates...``.

    Raises:
        PlanError: an aggregate that has no slice-combinable form.
    """

    stateful = True

    def __init__(self, spec: WindowSpec, num_keys: int, ts_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema):
        self.assigner = SliceAssigner(spec)
        self.spec = spec
        self.num_keys = num_keys
        self.ts_index = ts_index
        self.aggs = aggs
        self.output_schema = output_schema
        names = list(input_schema.names)
        keys = ['"' + names[i].replace('"', '""') + f'" AS __k{i}' for i in range(num_keys)]
        self.aggregates = Aggregates(aggs, input_schema, list(output_schema)[num_keys + 3:], "Window")
        partial = self.aggregates.partial_items(None, objects=False)
        combine = self.aggregates.combine_items()
        # rows grouped together share one state key: DOUBLE keys by Java's equals, as encode_keys
        key_types = input_schema.types[:num_keys]
        quoted = ['"' + names[i].replace('"', '""') + '"' for i in range(num_keys)]
        by_input = group_by_items(quoted, key_types)
        self._partial_sql = (f"SELECT {', '.join(keys + [_SLICE_COL] + partial)} FROM __in "
                             f"GROUP BY {', '.join(by_input + [_SLICE_COL])}")
        key_cols = [f"__k{i}" for i in range(num_keys)]
        by_keys = group_by_items(key_cols, key_types)
        self._combine_sql = (f"SELECT {', '.join(key_cols + combine)} FROM __in"
                             + (f" GROUP BY {', '.join(by_keys)}" if key_cols else ""))
        # several windows at once: their partials tagged with the window's index
        self._fire_sql = (f"SELECT {', '.join(key_cols + combine + [_WINDOW_COL])} FROM __in "
                          f"GROUP BY {', '.join(by_keys + [_WINDOW_COL])}")
        if self.aggregates.rowwise or self.aggregates.ordered:
            # a row-wise aggregate's partial is the list of its rows, which must keep their arrival
            # order (FIRST_VALUE, LISTAGG, Python aggregates), and a floating MIN/MAX takes the first
            # of equal values: DuckDB's parallel list() and first() do not keep it.
            # threads is a database's setting: a database of its own, not the shared one's cursor.
            self._con = python_functions.connect()
            self._con.execute("SET threads = 1")
        else:
            self._con = python_functions.cursor()
        self._schema: pa.Schema | None = None  # of partial tables (fixed by the first one)

    # -- lifecycle ----------------------------------------------------------------------------

    def open(self, ctx) -> None:
        """Called once; slices are loaded from state at the first element (after any restore)."""
        super().open(ctx)
        self.slices: dict[int, _Slice] = {}
        self.timers: set[int] = set()  # pending window ends (event-time timers)
        self._heap: list[int] = []
        self.watermark: int | None = None
        self._loaded = False

    def _ensure_loaded(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        loaded: dict[int, _Slice] = {}
        for k, v in self.ctx.state.items():
            if k == WATERMARK_KEY:
                wm = read_watermark(v)
                if self.watermark is None or wm > self.watermark:
                    self.watermark = wm
            elif k[2:4] == SLICE_TAG:
                end = _BE.unpack_from(k, 4)[0] - _OFFSET
                sl = loaded.setdefault(end, _Slice())
                sl.base.append(self._conform(pa.ipc.open_stream(pa.py_buffer(SLICE_PARTIALS.unwrap(v))).read_all()))
                sl.entries.append(k)
        for end, sl in loaded.items():
            sl.deltas = len({k[12:20] for k in sl.entries})  # checkpoints that wrote deltas
            self.slices[end] = sl
            self._register(end)

    def _register(self, slice_end: int) -> None:
        """Add the pending windows of a new slice (those not fired yet)."""
        wm = self.watermark
        for end in self.assigner.window_ends(slice_end):
            if (wm is None or end - 1 > wm) and end not in self.timers:
                self.timers.add(end)
                heapq.heappush(self._heap, end)

    # -- elements -----------------------------------------------------------------------------

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Partially aggregate ``batch`` per (key, slice) and append it to its slices."""
        self._ensure_loaded()
        table = batch.table
        if not self.spec.legacy:  # a legacy group window reads a NULL as 0 (rowtime_nulls.EPOCH)
            fail_on_null(table, self.ts_index, "window aggregate")  # as Flink's SliceAssigners
        ts, _ = rowtimes(table.column(self.ts_index))
        ends = self.assigner.slice_ends(to_local(ts, self.spec.zone))
        if self.watermark is not None:
            alive = self.assigner.last_window_ends(ends) - 1 > self.watermark
            if not alive.all():
                add_late(self.ctx.metrics, int(len(alive) - alive.sum()))
                table, ends = table.filter(pa.array(alive)), ends[alive]
        if len(ends) == 0:
            return []
        part = self._query(self._partial_sql, table.append_column(_SLICE_COL, pa.array(ends, pa.int64())))
        col = part.column(_SLICE_COL).to_numpy()
        part = part.drop_columns([_SLICE_COL])
        if col.min() == col.max():
            pieces = [(int(col[0]), part)]
        else:  # sorted by slice, then cut: one pass, not one filter of the whole batch per slice
            order = np.argsort(col, kind="stable")
            col, part = col[order], part.take(pa.array(order))
            cuts = [0, *(np.flatnonzero(np.diff(col)) + 1).tolist(), len(col)]
            pieces = [(int(col[a]), part.slice(a, b - a)) for a, b in zip(cuts, cuts[1:])]
        for end, piece in pieces:
            sl = self.slices.get(end)
            if sl is None:
                sl = self.slices[end] = _Slice()
                self._register(end)
            sl.fresh.append(self._conform(piece))
            if len(sl.fresh) > _COMPACT_EVERY:
                sl.fresh = [self._combine(sl.fresh)]
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Fire every window with ``end - 1 <= watermark`` (in end order), then forward it."""
        self._ensure_loaded()
        wm = local_watermark(watermark.timestamp, self.spec.zone)
        if self.watermark is None or wm > self.watermark:
            self.watermark = wm
        wm = self.watermark
        due: list[tuple[int, int, list[int]]] = []  # per window to fire: start, end, its slices' ends
        heap = self._heap
        slice_ends = sorted(self.slices)
        last = None  # the end of the last window fired
        while heap and (heap[0] - 1 <= wm or wm == MAX_WATERMARK):
            last = end = heapq.heappop(heap)
            self.timers.discard(end)
            start = self.assigner.window_start(end)
            # A row-wise aggregate's lists join in the order Flink merges the slices: a HOP window's
            # newest first (HoppingSliceAssigner), a CUMULATE window's oldest first (into the first slice)
            ends = slice_ends[bisect.bisect_right(slice_ends, start):bisect.bisect_right(slice_ends, end)]
            if self.spec.kind == "HOP":
                ends.reverse()
            if ends:
                due.append((start, end, ends))
        fired = self._fire(due) if due else None  # before the slices whose last window this was go
        if last is not None:
            # slices whose last window has fired (none of them is in a window not fired yet)
            done = np.asarray(slice_ends, np.int64)
            done = done[self.assigner.last_window_ends(done) <= last].tolist()
            deletes = [k for se in done for k in self.slices.pop(se).entries]
            if deletes:
                self.ctx.state.write([], deletes)
        return [Batch(fired), watermark] if due else [watermark]

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Write each slice's partials since the last checkpoint (per key group), and the watermark."""
        self._ensure_loaded()
        puts: list[tuple[bytes, bytes]] = []
        deletes: list[bytes] = []
        for end, sl in self.slices.items():
            if not sl.fresh:
                continue
            if sl.deltas >= _REWRITE_AFTER:  # many small deltas: rewrite the slice as one set
                sl.base, sl.fresh = [self._combine(sl.base + sl.fresh)], []
                deletes += sl.entries
                sl.entries, sl.deltas, delta = [], 0, sl.base[0]
            else:
                delta = self._combine(sl.fresh)
                sl.fresh = []
                sl.base.append(delta)
                if len(sl.base) > _COMPACT_EVERY:
                    sl.base = [self._combine(sl.base)]
            prefix = SLICE_TAG + _BE.pack(end + _OFFSET) + _BE.pack(checkpoint_id)
            for kg, blob in self._split_by_key_group(delta):
                key = kg + prefix
                puts.append((key, blob))
                sl.entries.append(key)
            sl.deltas += 1
        if self.watermark is not None:
            puts.append(watermark_entry(self.watermark))
        self.ctx.state.write(puts, deletes)

    # -- helpers ------------------------------------------------------------------------------

    def _query(self, sql: str, table: pa.Table) -> pa.Table:
        with self.aggregates.overflow_guard():
            return query_table(self._con, sql, table)

    def _conform(self, table: pa.Table) -> pa.Table:
        """Partial tables share one schema (the first one's), so they concatenate."""
        if self._schema is None:
            self._schema = table.schema
        elif table.schema != self._schema:
            table = table.cast(self._schema)
        return table

    def _combine(self, tables: list[pa.Table]) -> pa.Table:
        """One partial row per key: the combination of ``tables``' partials."""
        return self._conform(self._query(self._combine_sql, pa.concat_tables(tables)))

    def _fire(self, due: list[tuple[int, int, list[int]]]) -> pa.Table:
        """The output rows of the windows ``due`` (start, end, slice ends; in end order), in that order.

        One combine query for all of them (the partials tagged with their window's index), not one
        per window: a watermark that passes many sparse windows at once costs one query. Its input
        is each window's slices' partials one after the other (the order a row-wise aggregate
        folds them in), taken from one table of every slice involved: a HOP slice is in several
        windows, but is concatenated once, and the tagging is numpy, not per window and slice.
        """
        tables_of = self._slice_tables({se for _, _, ends in due for se in ends})
        if len(due) == 1:
            start, end, ends = due[0]
            part = self._combine([t for se in ends for t in tables_of[se]])
            n = part.num_rows
            return self._finalize(part, np.full(n, start, np.int64), np.full(n, end, np.int64))
        at: dict[int, tuple[int, int]] = {}  # slice end → (its first row in ``every``, its rows)
        tables: list[pa.Table] = []
        rows = 0
        for se in dict.fromkeys(se for _, _, ends in due for se in ends):
            n = sum(t.num_rows for t in tables_of[se])
            at[se] = (rows, n)
            rows += n
            tables += tables_of[se]
        every = pa.concat_tables(tables)
        pairs = [(w, *at[se]) for w, (_, _, ends) in enumerate(due) for se in ends]
        window, begin, length = (np.array(c, np.int64) for c in zip(*pairs))
        total = int(length.sum())
        # row i of the tagged input: row begin[p] + (i - offset of pair p) of ``every``
        offsets = np.cumsum(length) - length
        take = np.repeat(begin - offsets, length) + np.arange(total, dtype=np.int64)
        tagged = every.take(pa.array(take)).append_column(_WINDOW_COL, pa.array(np.repeat(window, length)))
        part = self._query(self._fire_sql, tagged)
        window = part.column(_WINDOW_COL).to_numpy()
        order = np.argsort(window, kind="stable")
        part = self._conform(part.drop_columns([_WINDOW_COL]).take(pa.array(order)))
        window = window[order]
        starts, ends = (np.array(c, np.int64)[window] for c in zip(*((s, e) for s, e, _ in due)))
        return self._finalize(part, starts, ends)

    def _slice_tables(self, ends: set[int]) -> dict[int, list[pa.Table]]:
        """The partial tables of the slices ``ends``, each slice's combined first when order matters.

        Flink keeps one accumulator per slice (its rows in order) and merges the slices'
        accumulators into a window's: a floating MIN/MAX (``Aggregates.ordered``) whose slice began
        with NaN stays NaN there, whatever later batches bring, so the slice's batches are combined
        before the slices are.
        """
        out = {}
        for se in ends:
            sl = self.slices[se]
            tables = sl.base + sl.fresh
            out[se] = [self._combine(tables)] if self.aggregates.ordered and len(tables) > 1 else tables
        return out

    def _split_by_key_group(self, table: pa.Table) -> list[tuple[bytes, bytes]]:
        """``table`` cut into one Arrow IPC blob per key group: ``[(kg 2 bytes, blob)]``."""
        kgs = key_groups(encode_keys(table.columns[: self.num_keys], table.num_rows))
        order = np.argsort(kgs, kind="stable")
        kgs = kgs[order]
        table = table.take(pa.array(order))
        cuts = [0, *(np.flatnonzero(np.diff(kgs)) + 1).tolist(), len(kgs)]
        out = []
        for a, b in zip(cuts, cuts[1:]):
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, table.schema) as writer:
                writer.write_table(table.slice(a, b - a))
            out.append((int(kgs[a]).to_bytes(2, "big"), SLICE_PARTIALS.wrap(sink.getvalue().to_pybytes())))
        return out

    def _finalize(self, part: pa.Table, starts: np.ndarray, ends: np.ndarray) -> pa.Table:
        """Output rows from combined partials, row ``i`` of window ``[starts[i], ends[i])`` (ms, int64)."""
        fields = list(self.output_schema)
        arrays = [part.column(i).cast(fields[i].type) for i in range(self.num_keys)]
        times = to_instant(ends - 1, self.spec.zone)
        for f, t in zip(fields[self.num_keys: self.num_keys + 3], (starts, ends, times)):
            arrays.append(ms_array(np.asarray(t, np.int64), f.type))
        for f, result in zip(fields[self.num_keys + 3:], self.aggregates.finish(part)):
            arrays.append(result.cast(f.type))
        return pa.Table.from_arrays(arrays, schema=self.output_schema)
