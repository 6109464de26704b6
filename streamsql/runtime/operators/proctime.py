"""Processing time for the time-driven operators: their processing-time timers, on the wall clock.

A window aggregate, a window TVF or an OVER aggregate over a ``PROCTIME()`` attribute runs its
event-time operator unchanged, driven by the processing time instead of the watermark, as Flink's
operators use their processing-time timer service:

- **time of a row**: the operator's processing time when the row *arrives at the operator*
  (Flink materializes a proctime attribute where it is used), in ms since the epoch; it
  replaces the time column of the batch, so a row belongs to the window of its arrival. The
  processing time is kept strictly increasing batch after batch and after every timer firing
  (``max(wall clock, previous + 1)``), so a row never lands in a window that has already fired
  even if the wall clock steps back.
- **timers**: every ``'pipeline.auto-watermark-interval'`` (the task loop's tick, also while no
  input arrives) the operator's pending event-time timers up to the processing time fire, as if
  a watermark at that time had arrived: a window ``[start, end)`` fires once the clock reaches
  ``end - 1``. ROWS frames and UNBOUNDED PRECEDING OVER aggregates fire at once, in the batch
  (Flink's ``ProcTimeRowsBoundedPrecedingFunction`` and ``ProcTimeUnboundedPrecedingFunction``
  emit in ``processElement``).
- **emitted time attributes**: the output columns ``stamped`` (a processing-time window's
  ``window_time``, a SESSION TVF's time attribute column) are set to the processing time of the
  emission in every batch the operator sends (a firing's tick, or the arrival of a batch a TVF
  passes on at once): Flink 2.3 keeps them processing-time attributes and materializes them
  where they are read (``PROCTIME_MATERIALIZE``, the processing time then), not ``window_end -
  1`` (recorded: ``scripts/flink_proctime_window_time.py``).
- **watermarks** of the input pass through untouched and fire nothing.
- **checkpoints**: the pending windows and their timers are the inner operator's keyed state, so
  a snapshot holds them; after a restore, a timer whose time has passed fires at the first tick
  (Flink: restored processing-time timers that are due fire at once).
- **end of input**: pending processing-time timers are dropped, not fired: Apache Flink 2.3
  emits nothing for a processing-time window still open when a bounded input ends (nor for a
  bounded RANGE OVER row still waiting), so neither do we.

Output is insert-only, as the inner operator's.
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.runtime.operators.base import Operator, OperatorContext, SplitStatus


def stamp_time(table: pa.Table, index: int, ms: int) -> pa.Table:
    """``table`` with its timestamp column ``index`` set to instant ``ms`` (since the epoch) in every row."""
    field = table.schema.field(index)
    unit = pa.timestamp("ms", tz=getattr(field.type, "tz", None))
    stamp = pa.array([ms] * table.num_rows, pa.int64()).cast(unit).cast(field.type)
    return table.set_column(index, field, stamp)


class ProcessingTimeOperator(Operator):
    """Runs a watermark-driven operator on processing time (see the module docstring).

    Args:
        inner: the event-time operator (window aggregate, window TVF, OVER aggregate).
        ts_index: the input column the inner operator reads as its time.
        eager: fire the inner operator's timers right after each batch (rows frames, unbounded
            OVER), not only at ticks.
        stamped: output columns (of the inner operator's batches) set to the processing time of
            their emission: its processing-time attributes (module docstring).
    """

    wants_ticks = True

    def __init__(self, inner: Operator, ts_index: int, eager: bool = False, stamped: tuple[int, ...] = ()):
        self.inner = inner
        self.ts_index = ts_index
        self.eager = eager
        self.stamped = stamped
        self.stateful = inner.stateful
        self.state_ttl_missing = inner.state_ttl_missing
        self.time = 0  # the processing time (ms): strictly after every batch and firing so far

    def open(self, ctx: OperatorContext) -> None:
        """Open the inner operator with the same context (its clock is the processing time)."""
        self.ctx = ctx
        self.inner.open(ctx)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Stamp ``batch`` with the processing time of its arrival; pass it to the inner operator."""
        self.time = max(self.ctx.clock(), self.time + 1)
        out = self.inner.process_batch(Batch(stamp_time(batch.table, self.ts_index, self.time), batch.kinds),
                                       input_index)
        if self.eager:
            out += self._fire()
        return self._stamp(out)

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """An event-time watermark fires nothing here: forward it."""
        return [watermark]

    def process_split_status(self, status: SplitStatus) -> list[Element]:
        """Forward the source's split status."""
        return [status]

    def on_tick(self) -> list[Element]:
        """The wall clock moved: fire the inner operator's timers that are due."""
        self.time = max(self.ctx.clock(), self.time)
        return self._fire()

    def _fire(self) -> list[Element]:
        out = self.inner.process_watermark(Watermark(self.time))
        return self._stamp([el for el in out if not isinstance(el, Watermark)])

    def _stamp(self, out: list[Element]) -> list[Element]:
        """``out`` with the :attr:`stamped` columns of its batches set to the processing time."""
        if not self.stamped:
            return out
        stamped = []
        for el in out:
            if isinstance(el, Batch):
                table = el.table
                for index in self.stamped:
                    table = stamp_time(table, index, self.time)
                el = dataclasses.replace(el, table=table)
            stamped.append(el)
        return stamped

    def snapshot_state(self, checkpoint_id: int) -> None:
        """The inner operator's snapshot: its pending windows and timers are keyed state."""
        self.inner.snapshot_state(checkpoint_id)

    def finish(self) -> list[Element]:
        """End of input: pending processing-time timers are dropped, as Flink does."""
        return [el for el in self.inner.finish() if not isinstance(el, Watermark)]

    def close(self) -> None:
        """Close the inner operator."""
        self.inner.close()
