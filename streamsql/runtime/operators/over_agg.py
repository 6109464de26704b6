r"""OVER aggregates ordered by event time, as Flink's ``RowTime*PrecedingFunction`` operators.

Semantics (times in **milliseconds**): a row waits in state until the watermark reaches its
rowtime (Flink's event-time timer at the rowtime), then it is emitted once, insert-only, with
the aggregates over its frame within its partition key:

- ``ROWS BETWEEN n PRECEDING AND CURRENT ROW``: the row and the ``n`` rows before it, in
  (rowtime, arrival) order — rows with the same rowtime are taken in arrival order, each with
  its own frame (Flink's ``RowTimeRowsBoundedPrecedingFunction``);
- ``RANGE BETWEEN r PRECEDING AND CURRENT ROW``: every row with a rowtime in
  ``[ts - r, ts]``, so rows with the same rowtime share one frame and one result (Flink's
  ``RowTimeRangeBoundedPrecedingFunction``);
- ``UNBOUNDED PRECEDING``: every row so far (ROWS: up to this one in arrival order; RANGE: up to
  its rowtime, ties included) (Flink's ``RowTime{Rows,Range}UnboundedPrecedingFunction``).

Rows are emitted in rowtime order (across keys too, within one watermark). Late rows are
dropped and counted in the job metric ``late_records``, by Flink's two rules: with an unbounded
frame a row is late when its rowtime is not after the operator's watermark; with a bounded
frame when it is not after the last rowtime emitted for its key (Flink's
``lastTriggeringTs``, 0 before the first: so a row at or before the epoch is late too), so a
row behind the watermark but newer than its key's last output is still taken, and emitted at
the next watermark. A bounded RANGE frame also has Flink's cleanup timers: each row taken at
``ts`` sets one at ``ts + 1.5 * preceding + 1`` ms unless the latest is at least
``ts + preceding + 1``; a cleanup timer that is not the latest (a later row set another) moves
the key's ``lastTriggeringTs`` to its time when it fires (a row at or before it is late then,
though it may be after every emitted rowtime), and the latest clears the key's state, its
``lastTriggeringTs`` (back to 0: an old row is taken again, in a frame of its own) too (Flink's
``RowTimeRangeBoundedPrecedingFunction``). A NULL rowtime reads as 0, 1970-01-01 00:00:00, as
in Flink 2.3 (an unbounded frame takes it first, or drops it as late; a bounded frame always
drops it as late: :mod:`~streamsql.runtime.operators.rowtime_nulls`). State: a row leaves the
pending rows once emitted; a bounded frame keeps the rows a later row of the key may still need
(ROWS: the last ``n``; RANGE: those within ``r`` of the key's last emitted rowtime, the rest are
retracted as rows are emitted), an unbounded frame only its accumulators — until the key's next row, as
Flink keeps them (until state TTL, not implemented here: a job with one is refused at open).

The aggregates are the object forms of :mod:`streamsql.functions.aggregates` (one accumulator
list per key): a row is added by folding its partial state (DuckDB, computed for the whole
batch with the row's sign, +1) and retracted from a bounded frame by folding the partial state
it was stored with for sign -1; MIN/MAX over a bounded frame are the ``*_retract`` multisets.
A row-wise aggregate (FIRST_VALUE, LISTAGG, ARRAY_AGG, a Python aggregate: its *_retract form
in a bounded frame, as Flink's) stores the row's arguments and accumulates or retracts them.

State layout (``key`` = :func:`~streamsql.state.layout.encode_keys` of the partition key,
``kg`` its key group):

=========================================== ===========================================
``kg + key``                                 :data:`OVER_KEY`: ``[accs, frame, pending,
                                             seq, timer, last, cleanup, cleanups]``: the
                                             accumulators over the frame; the frame's rows
                                             ``[ts, retract]`` (bounded frames); the rows
                                             not emitted yet ``[ts, seq, row, add,
                                             retract]``; the arrival counter; the pending
                                             timer end (or None); the last emitted rowtime
                                             (or cleanup time, below); a RANGE frame's
                                             latest cleanup time and its cleanup timers
                                             not fired yet
``kg + TIMER_TAG + end(8) + key``            the key's event-time timer: its earliest
                                             pending rowtime + 1
``WATERMARK_KEY``                            the watermark at the last checkpoint
=========================================== ===========================================
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.core.java_hash import double_key
from streamsql.core.names import apart
from streamsql.core.py_values import py_values
from streamsql.functions import python_functions
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import OVER_CONTEXT, AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.evaluator import query_table
from streamsql.runtime.operators.window_agg import WindowOperatorBase, add_late
from streamsql.state.layout import ValueFormat, encode_keys, with_key_groups

#: A partition key's accumulators, frame and pending rows (tagged msgpack).
OVER_KEY = ValueFormat("over-agg/key", 1)
_RID = "__rid"


class OverAggOperator(WindowOperatorBase):
    """Event-time OVER aggregates per partition key (see module docstring).

    Args:
        spec: the frame.
        num_keys: the first ``num_keys`` input columns are the partition key.
        ts_index: the input column of the rowtime.
        aggs: aggregate calls over input columns (``*_retract`` MIN/MAX for bounded frames).
        input_schema: Arrow schema of the input.
        output_schema: the input columns, then one column per call.
    """

    state_ttl_missing = "an OVER aggregate"

    def __init__(self, spec: OverSpec, num_keys: int, ts_index: int, aggs: list[AggSpec],
                 input_schema: pa.Schema, output_schema: pa.Schema):
        self.spec = spec
        self.num_keys = num_keys
        self.ts_index = ts_index
        self.output_schema = output_schema
        n_in = len(input_schema)
        self.rows = RowPartials(Aggregates(aggs, input_schema, list(output_schema)[n_in:], OVER_CONTEXT),
                                input_schema, spec.bounded)
        self.aggregates = self.rows.aggregates

    # -- elements -----------------------------------------------------------------------------

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Store the batch's rows as pending under their keys (late rows are dropped)."""
        self._ensure_loaded()
        # an unbounded frame drops rows at or behind the watermark; a bounded one per key, below
        bound = None if self.spec.bounded else self.watermark
        table, ts = self._rows_after(batch.table, self.ts_index, bound)
        if table.num_rows == 0:
            return []
        adds, retracts = self.rows.partials(table)
        rows = list(zip(*(py_values(c) for c in table.columns)))
        skeys = with_key_groups(encode_keys(table.columns[: self.num_keys], table.num_rows))
        by_key: dict[bytes, list[int]] = {}
        for i, k in enumerate(skeys):
            by_key.setdefault(k, []).append(i)
        keys = list(by_key)
        olds = self.ctx.state.get_many(keys)
        puts: list = []
        deletes: list = []
        late = 0
        for skey, old in zip(keys, olds):
            value = self._decode(old)
            pending, seq = value[2], value[3]
            for i in by_key[skey]:
                if self.spec.bounded and ts[i] <= value[5]:
                    late += 1
                    continue
                pending.append([int(ts[i]), seq, rows[i], adds[i], retracts[i]])
                seq += 1
                if self.spec.bounded and self.spec.kind == "RANGE":
                    self._register_cleanup(value, int(ts[i]))
            value[3] = seq
            self._set_timer(skey, value, puts, deletes)
            puts.append((skey, OVER_KEY.encode(value)))
        add_late(self.ctx.metrics, late)
        self.ctx.state.write(puts, deletes)
        return []

    def _decode(self, raw: bytes | None) -> list:
        """A key's state value (new: empty accumulators, nothing pending, ``last`` 0, no cleanup)."""
        if raw is None:
            return [self.aggregates.new(), [], [], 0, None, 0, None, []]
        value = OVER_KEY.decode(raw)
        return value if len(value) == 8 else [*value, None, []]  # (written before the cleanup fields)

    def _register_cleanup(self, value: list, ts: int) -> None:
        """A RANGE frame's cleanup timer for a row taken at ``ts``, as Flink's ``registerCleanupTimer``.

        A timer at ``ts + preceding * 1.5 + 1`` (ms) when the last one is before
        ``ts + preceding + 1``; the timers are never deleted (``value[7]``), ``value[6]`` is the latest.
        """
        off = self.spec.preceding
        if value[6] is None or value[6] < ts + off + 1:
            at = ts + int(off * 1.5) + 1
            if at not in value[7]:
                value[7].append(at)
            value[6] = at

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Emit the pending rows the watermark passed (in rowtime order), then forward it."""
        return self._fire_due_keys(watermark, self._fire_key)

    def _fire_key(self, skey: bytes, raw: bytes, wm: int, emitted: list, puts: list, deletes: list) -> None:
        """A key's pending rows up to ``wm`` into its frame and ``emitted``; its next timer."""
        value = self._decode(raw)
        value[4] = None  # its timer just fired
        self._emit_due(value, wm, emitted)
        self._set_timer(skey, value, puts, deletes)
        puts.append((skey, OVER_KEY.encode(value)))

    # -- frames -------------------------------------------------------------------------------

    def _emit_due(self, value: list, wm: int, emitted: list) -> None:
        """Move the pending rows with ``ts <= wm`` into the frame, appending their output rows."""
        pending = value[2]
        due = sorted((p for p in pending if p[0] <= wm), key=lambda p: (p[0], p[1]))
        cleanups = sorted(t for t in value[7] if t <= wm)
        if not due and not cleanups:
            return
        value[2] = [p for p in pending if p[0] > wm]
        value[7] = [t for t in value[7] if t > wm]
        acc, frame = value[0], value[1]
        spec = self.spec
        i = 0
        while i < len(due) or cleanups:
            if cleanups and (i == len(due) or cleanups[0] <= due[i][0]):
                # a RANGE frame's cleanup timer fires (before a row timer of a later rowtime; one
                # timer with a row timer of the same rowtime), as in Flink's
                # RowTimeRangeBoundedPrecedingFunction.onTimer: if it is the latest cleanup timer,
                # the key's state is cleared (``lastTriggeringTs`` too: 0, so an older row is taken
                # again); else it only moves ``lastTriggeringTs`` to its time, so a row at or before
                # it is late from then on
                at = cleanups.pop(0)
                if value[6] is not None and value[6] <= at:
                    acc = value[0] = self.aggregates.new()
                    frame.clear()
                    value[5], value[6] = 0, None
                    while i < len(due) and due[i][0] == at:  # (their input state is cleared)
                        i += 1
                    continue
                if i == len(due) or due[i][0] != at:
                    value[5] = at
                    continue
            j = i + 1
            if spec.kind == "RANGE":  # rows with the same rowtime share one frame
                while j < len(due) and due[j][0] == due[i][0]:
                    j += 1
            group = due[i:j]
            # the rows leaving the frame are retracted before the new ones accumulate, as Flink's
            # RowTime{Rows,Range}BoundedPrecedingFunction do: a floating accumulator (Welford's M2
            # of STDDEV/VAR) then ends on Flink's digits (the other order left -1e-12: NULL for 0)
            if spec.bounded:
                if spec.kind == "ROWS":  # (one row a group)
                    leaving = max(0, len(frame) - spec.preceding)
                else:  # RANGE: rows more than `preceding` before this rowtime leave
                    lower = group[0][0] - spec.preceding
                    leaving = next((n for n, r in enumerate(frame) if r[0] >= lower), len(frame))
                for _, retract in frame[:leaving]:
                    self.rows.fold(acc, retract, -1)
                del frame[:leaving]
            for ts, _, _, add, retract in group:
                self.rows.fold(acc, add, 1)
                if spec.bounded:
                    frame.append([ts, retract])
            result = self.aggregates.result(acc)
            emitted += [(ts, tuple(row) + result) for ts, _, row, _, _ in group]
            value[5] = group[0][0]
            i = j

    def _set_timer(self, skey: bytes, value: list, puts: list, deletes: list) -> None:
        """Keep the key's one timer at its earliest pending rowtime (+ 1: timers fire at ``end - 1``)."""
        times = [p[0] for p in value[2]] + value[7]
        end = min(times) + 1 if times else None
        if end != value[4]:
            if value[4] is not None:
                self.timers.remove(value[4], skey, deletes)
            if end is not None:
                self.timers.add(end, skey, puts)
            value[4] = end

    # -- batches ------------------------------------------------------------------------------

    def _to_table(self, rows: list[tuple]) -> pa.Table:
        """Output rows (Python values) → Arrow."""
        columns = list(zip(*rows))
        arrays = [pa.array(list(c), type=f.type) for c, f in zip(columns, self.output_schema)]
        return pa.Table.from_arrays(arrays, schema=self.output_schema)


class RowPartials:
    """Each row's partial aggregate states, and their folding into one accumulator list.

    What the OVER operators share (this one and :mod:`~streamsql.runtime.operators.over_nontime`):
    the partial states of every row of a batch are computed by DuckDB at once (one group per row),
    then folded one row at a time into a key's accumulators as the frame requires.

    Args:
        aggregates: the calls (:class:`~streamsql.functions.accumulators.Aggregates`).
        input_schema: Arrow schema of the rows.
        retracts: compute each row's partial for sign -1 too (rows leave a bounded frame).
    """

    def __init__(self, aggregates: Aggregates, input_schema: pa.Schema, retracts: bool):
        self.aggregates = aggregates
        self.retracts = retracts
        # Per row: each state's partial for sign +1 (and -1 when rows leave the frame), or for a
        # multiset state its argument value.
        items = []
        for s in aggregates.states:
            if s.multiset:
                items.append(f"any_value({s.arg})")
                continue
            for sign in ("1", "-1") if retracts else ("1",):
                items += s.partial(sign)
        # the row number goes next to the input's columns: named apart from them (a user's __rid)
        self._rid = apart(_RID, input_schema.names)
        rid = f'"{self._rid}"'
        self._partial_sql = (f"SELECT {', '.join(items)} FROM __in GROUP BY {rid} ORDER BY {rid}"
                             if items else "")
        self._con = python_functions.cursor()

    def partials(self, table: pa.Table) -> tuple[list[list], list[list]]:
        """Per row and state: the partial state for sign +1 and for sign -1 (bounded frames)."""
        n = table.num_rows
        states = self.aggregates.states
        if not self._partial_sql:
            return [[] for _ in range(n)], [[] for _ in range(n)]
        with self.aggregates.overflow_guard():
            part = query_table(self._con, self._partial_sql,
                               table.append_column(self._rid, pa.array(np.arange(n, dtype=np.int64))))
        cols = iter(part.columns)
        per_state_add, per_state_sub = [], []
        for s in states:
            if s.multiset:
                values = py_values(next(cols))
                per_state_add.append(values)
                per_state_sub.append(values)
                continue
            add = [s.to_objects(next(cols)) for _ in s.columns]
            per_state_add.append(list(zip(*add)))
            if self.retracts:
                sub = [s.to_objects(next(cols)) for _ in s.columns]
                per_state_sub.append(list(zip(*sub)))
            else:
                per_state_sub.append([None] * n)
        adds = [list(r) for r in zip(*per_state_add)]
        retracts = [list(r) for r in zip(*per_state_sub)]
        return adds, retracts

    def fold(self, acc: list, partials: list, sign: int) -> None:
        """Fold one row's partial states (multiset values, row-wise arguments: with ``sign``) into ``acc``."""
        for j, (s, part) in enumerate(zip(self.aggregates.states, partials)):
            if s.rowwise:  # the row's arguments (a list of one struct): accumulate or retract them
                args = tuple(part[0][0].values()) if isinstance(part[0][0], dict) else ()
                s.fold_rows([acc], j, [[a] for a in args], [0], [sign])
            elif s.multiset:
                if part is not None:  # a float keyed as Java's Double.equals (-0.0 apart, NaN one)
                    s.fold_multiset([acc], j, [0], [double_key(part)], [sign])
            else:
                s.fold([acc], j, [[p] for p in part])
