"""WatermarkAssigner: ``WATERMARK FOR ts AS expr`` → watermarks, per source split.

As Flink's bounded-out-of-orderness strategy with per-split watermarks (the Kafka source
generates one watermark per partition and emits their minimum):

- per split (``Batch.splits``: the Kafka partition of each row; None = every row from split 0),
  the split's watermark is the largest value of ``expr`` seen so far (ms since the epoch; NULLs
  are ignored);
- the operator's watermark is the **minimum** over the splits that are neither idle nor
  finished, emitted after the batch (or tick) that advanced it — so a partition that runs ahead
  in event time does not make the rows of a lagging partition late;
- every split the source declares counts from the start: a partition that has had no row yet
  holds the watermark back (as Flink), unless it is idle. The source driver declares them as
  data: a :class:`~streamsql.runtime.operators.base.SplitStatus` (:attr:`Source.split_names`)
  before the first batch, and again when the source adds splits (Kafka's partition discovery);
  a split added while the job runs holds it back too, from then on, until it has rows or is idle;
- **idle**: with ``idle_timeout_ms > 0`` (``'scan.watermark.idle-timeout'`` or
  ``'table.exec.source.idle-timeout'``), a split without rows for that long (processing time)
  is left out until it has rows again. Idleness is checked on every batch and on the job's
  periodic tick (``'pipeline.auto-watermark-interval'``), so an empty partition stops blocking
  even when no more rows arrive at all. When *every* split is idle (the whole source went quiet,
  possibly before a tick could see only the empty partitions idle), the splits that have had
  rows count and the ones that never had any do not — so the rows already read are never held
  back by a partition that is empty for good (Flink would emit nothing then and could stall);
- **finished**: a split whose bounded read is complete (:meth:`Source.finished_splits`, sent
  in a new ``SplitStatus`` before the next batch) is left out for good, from the next batch or
  tick on; at end of input the final watermark (+inf) comes from the runtime anyway.

**Within a batch** (``eager_interval_ms``, a source without Flink's watermark push-down, such as
``filesystem``; one split): Flink's ``WatermarkAssignerOperator`` emits the watermark right after
a row once it has moved more than ``'pipeline.auto-watermark-interval'`` since the last one
emitted, so a later row behind it is late in every operator downstream (compat case
``match_late_rows`` and the other ``*_late_*`` cases, now without ``'execution.batch-size' =
'1'``). A batch holding a row below the running maximum is therefore cut after each row where
Flink would emit, each piece followed by that watermark; a batch of strictly rising rowtimes
needs no cut (no row can be at or behind an earlier watermark) and goes on whole. A row *equal*
to an earlier rowtime cuts too: an OVER aggregate drops a row not after the watermark (compat
case ``lag_rows_with_equal_rowtime``: Flink drops the second row of a rowtime).

**NULL rowtime**: with ``null_rowtime`` (a source without push-down), a batch holding a NULL in
the rowtime column fails the job with Flink's ``WatermarkAssignerOperator`` message
(:mod:`~streamsql.runtime.operators.rowtime_nulls`); without it (Kafka, whose Flink source ignores
a NULL watermark value) the row goes on and its NULL watermark value counts for nothing.

Watermarks only move forward: a split that comes back from idleness behind the others does not
pull the emitted watermark back. Split ids and statuses stop here: batches leave with
``splits = None``.

State (why it is checkpointed): after a restore the sources resume *after* the checkpointed
positions, so the rows that built each split's maximum are not replayed. Recomputing from the
replay would therefore lose progress: a partition with no row after the restore would hold the
watermark back forever (no idle timeout) or at least give a lower watermark than an
uninterrupted run, letting through rows the uninterrupted run drops as late. So each split's
maximum is written to keyed state at every barrier (operator-wide entries, outside any key
group, as the window operators' watermark):

================================ ===========================================================
``SPLIT_KEY_PREFIX + name``        the split's largest ``expr`` value (8-byte signed, big-endian)
================================ ===========================================================

and read back, by split *name* (Kafka: the position key ``"0"`` / ``"topic:0"``), before the
first element after a restore. Idleness is processing time and is not checkpointed: after a
restore every split starts as active.
"""

from __future__ import annotations

import struct
import time
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import MAX_WATERMARK, Batch, Element, Watermark
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import IdleStatus, Operator, OperatorContext, SplitStatus
from streamsql.runtime.operators.rowtime_nulls import fail_on_null
from streamsql.state.layout import SPLIT_KEY_PREFIX

_SIGNED = struct.Struct(">q")
NO_DATA = np.iinfo(np.int64).min  # a split's maximum before its first row


def _monotonic_ms() -> float:
    return time.monotonic() * 1000


class WatermarkAssignerOperator(Operator):
    """Forwards batches; emits the minimum of the per-split watermarks when it advances.

    Args:
        query: one item, the watermark expression, over the input's columns.
        idle_timeout_ms: a split without rows for this long is idle (0 = never).
        clock: processing time in ms (monotonic); for tests.
        null_rowtime: ``(rowtime column, table name)``: a NULL in that column fails the job, as
            Flink's ``WatermarkAssignerOperator``; None: NULL rowtimes pass (module docstring).
    """

    stateful = True

    def __init__(self, query: BatchQuery, idle_timeout_ms: int = 0,
                 clock: Callable[[], float] | None = None, eager_interval_ms: int | None = None,
                 every_emit: bool = False, null_rowtime: tuple[str, str] | None = None):
        self.query = query
        self.null_rowtime = null_rowtime
        self.eager_interval_ms = eager_interval_ms
        self.every_emit = every_emit  # cut rising rowtimes too: a CURRENT_WATERMARK downstream sees each
        self.idle_timeout_ms = idle_timeout_ms
        self.wants_ticks = idle_timeout_ms > 0
        self.idle_sent = False  # an IdleStatus went out since the last rows
        self.clock = clock or _monotonic_ms
        self.declared: tuple[str, ...] = ()  # the source's splits (none declared: learnt from batches)
        self.finished: frozenset[int] = frozenset()
        self.current: int | None = None  # the last watermark emitted
        self.names: list[str] = []
        self.maxes = np.empty(0, np.int64)
        self.last_rows = np.empty(0, np.float64)  # processing time of each split's last row
        self._restored: dict[str, int] = {}
        self._started = False
        self.ctx = None

    def open(self, ctx: OperatorContext) -> None:
        """Called once; idleness of the declared splits counts from here.

        The per-split state is read at the first batch or tick (after any restore).
        """
        super().open(ctx)
        self._opened_at = self.clock()

    # -- splits -----------------------------------------------------------------------------------
    def _start(self) -> None:
        if self._started:
            return
        self._started = True
        state = getattr(self.ctx, "state", None)
        if state is not None:
            for k, v in state.items():
                if k.startswith(SPLIT_KEY_PREFIX):
                    self._restored[k[len(SPLIT_KEY_PREFIX):].decode()] = _SIGNED.unpack(v)[0]
        names = list(self.declared)
        self._grow(max(1, len(names)), names, getattr(self, "_opened_at", None))

    def _grow(self, n: int, names: list[str] | None = None, since: float | None = None) -> None:
        """Make sure splits ``0 .. n-1`` exist.

        New ones have no data yet; their idleness counts from ``since`` (default now).
        """
        old = len(self.names)
        if n <= old:
            return
        new = [(names[i] if names and i < len(names) else ("" if i == 0 else str(i)))
               for i in range(old, n)]
        self.names += new
        restored = [self._restored.get(nm, NO_DATA) for nm in new]
        self.maxes = np.concatenate([self.maxes, restored]).astype(np.int64)
        since = self.clock() if since is None else since
        self.last_rows = np.concatenate([self.last_rows, np.full(n - old, since)])

    # -- elements ---------------------------------------------------------------------------------
    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Fold the batch's rows into their splits' maxima.

        Forwards the batch (without split ids), then a watermark if the minimum over live splits
        advanced.
        """
        self._start()
        n = batch.num_rows
        out: list[Element] = []
        if n and self.null_rowtime is not None:
            column, table = self.null_rowtime
            fail_on_null(batch.table, batch.table.schema.get_field_index(column), f"table '{table}'")
        if n:
            ids = batch.splits if batch.splits is not None else np.zeros(n, np.int32)
            self._grow(int(ids.max()) + 1)
            values = self.query.run(Batch(batch.table, origin=batch.origin)).table.column(0)
            ms = values.cast(pa.timestamp("ms", tz=values.type.tz)).cast(pa.int64())
            v = pc.fill_null(ms, NO_DATA).to_numpy()
            if self.eager_interval_ms is not None and len(self.names) == 1 and batch.splits is None:
                out, batch, v = self._eager_pieces(batch, v)
            np.maximum.at(self.maxes, ids[len(ids) - len(v):], v)  # NULLs are NO_DATA: no effect
            self.last_rows[np.bincount(ids, minlength=len(self.names)) > 0] = self.clock()
        kept = batch if batch.splits is None else Batch(batch.table, batch.kinds, origin=batch.origin)
        out.append(kept)
        return out + self._advance()

    def _eager_pieces(self, batch: Batch, v: np.ndarray) -> tuple[list[Element], Batch, np.ndarray]:
        """Cut ``batch`` where Flink's assigner emits a watermark (module docstring).

        Returns:
            The leading pieces, each followed by its watermark; the rest of the batch and its
            watermark values (the whole batch when no cut is needed).
        """
        prior = int(self.maxes[0])
        running = np.maximum.accumulate(np.concatenate([[prior], v]))[1:]
        # A row at or behind an earlier row's rowtime may be late for an operator downstream (an
        # OVER aggregate drops a row not after the watermark: equal is late); strictly rising
        # rowtimes never are, and need no cut.
        if not self.every_emit and not (v[1:] <= running[:-1]).any():
            return [], batch, v
        out: list[Element] = []
        last = self.current if self.current is not None else 0  # Flink's lastWatermark starts at 0
        start = 0
        for i in np.flatnonzero(running - last > self.eager_interval_ms):
            if running[i] - last <= self.eager_interval_ms:
                continue  # an earlier cut in this batch moved ``last`` past it
            last = int(running[i])
            out += [self._slice(batch, start, i + 1), Watermark(last)]
            start = i + 1
        if out:
            self.maxes[0] = max(int(self.maxes[0]), last)
            self.current = last
        return out, self._slice(batch, start, len(v)), v[start:]

    @staticmethod
    def _slice(batch: Batch, lo: int, hi: int) -> Batch:
        kinds = None if batch.kinds is None else batch.kinds[lo:hi]
        origin = batch.origin
        where = None if origin is None else (lambda i: origin(i + lo))
        return Batch(batch.table.slice(lo, hi - lo), kinds, origin=where)

    def process_split_status(self, status: SplitStatus) -> list[Element]:
        """Take the source's splits and finished splits; nothing is forwarded.

        The splits are used from the first batch, the finished ones from the next batch or tick.
        """
        self.declared = status.names
        self.finished = status.finished
        if self._started and len(status.names) > len(self.names) or any(
                nm != old for nm, old in zip(status.names, self.names)):
            # splits discovered while running (Kafka: new partitions): named, counted from now
            self._grow(len(status.names), list(status.names))
            self.names[:len(status.names)] = list(status.names)
        return []

    def on_tick(self) -> list[Element]:
        """Processing time passed: a split may have become idle, releasing the watermark."""
        self._start()
        return self._advance()

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Upstream watermarks are replaced by this table's own (only the final one passes)."""
        return [watermark] if watermark.timestamp == MAX_WATERMARK else []

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Persist each split's maximum (by split name)."""
        state = getattr(self.ctx, "state", None)
        if state is None or not self._started:
            return  # not started: the state restored, if any, is still in the backend unchanged
        puts = [(SPLIT_KEY_PREFIX + nm.encode(), _SIGNED.pack(int(m)))
                for nm, m in zip(self.names, self.maxes) if m != NO_DATA]
        if puts:
            state.write(puts)

    # -- the combined watermark -------------------------------------------------------------------
    def live_splits(self) -> np.ndarray:
        """Mask of the splits that count: neither idle nor finished."""
        live = np.ones(len(self.names), dtype=bool)
        if self.idle_timeout_ms > 0:
            live &= self.clock() - self.last_rows < self.idle_timeout_ms
        for i in self.finished:
            if i < len(live):
                live[i] = False
        return live

    def combined(self) -> int | None:
        """The minimum of the live splits' maxima (every split idle: of those with rows).

        None while a live split has no row yet, or no split has any.
        """
        live = self.live_splits()
        if not live.any():
            live = self.maxes != NO_DATA
            for i in self.finished:
                if i < len(live):
                    live[i] = False
            if not live.any():
                return None
        low = int(self.maxes[live].min())
        return None if low == NO_DATA else low

    def _advance(self) -> list[Element]:
        out: list[Element] = []
        wm = self.combined()
        if wm is not None and (self.current is None or wm > self.current):
            self.current = wm
            out.append(Watermark(wm))
        idle = (self.idle_timeout_ms > 0 and len(self.names) > len(self.finished)
                and not self.live_splits().any())
        if idle and not self.idle_sent:  # every split idle: the source is (IdleStatus), once
            out.append(IdleStatus())
        self.idle_sent = idle
        return out
