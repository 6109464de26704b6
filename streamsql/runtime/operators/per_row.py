"""Run an operator one input row at a time, as Flink's operators run without mini-batch.

A versioned view's GROUP BY (:mod:`streamsql.plan.temporal`) must emit a change for every input
row: each aggregate change is a version of the temporal join's right side, and a per-batch
aggregate would fold several rows of one key into one change, losing the versions between them
(a probe row between them would join an older version, or none). :class:`PerRowOperator` hands
its inner operator each row of a batch as a batch of its own and returns their outputs in order;
everything else (watermarks, state, snapshots) is the inner operator's.
"""

from __future__ import annotations

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.runtime.operators.base import Operator, OperatorContext, SplitStatus


class PerRowOperator(Operator):
    """``inner``, fed one row per batch (module docstring).

    Args:
        inner: the operator (a GROUP BY aggregate).
    """

    def __init__(self, inner: Operator):
        self.inner = inner
        self.stateful = inner.stateful
        self.wants_ticks = inner.wants_ticks
        self.state_ttl_missing = inner.state_ttl_missing

    def open(self, ctx: OperatorContext) -> None:
        """Open the inner operator with the same context."""
        self.ctx = ctx
        self.inner.open(ctx)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """The inner operator's outputs for each row of ``batch`` in turn."""
        out: list[Element] = []
        for i in range(batch.num_rows):
            kinds = batch.kinds[i:i + 1] if batch.kinds is not None else None
            out += self.inner.process_batch(Batch(batch.table.slice(i, 1), kinds), input_index)
        return out

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """The inner operator's."""
        return self.inner.process_watermark(watermark)

    def process_split_status(self, status: SplitStatus) -> list[Element]:
        """The inner operator's."""
        return self.inner.process_split_status(status)

    def on_tick(self) -> list[Element]:
        """The inner operator's."""
        return self.inner.on_tick()

    def snapshot_state(self, checkpoint_id: int) -> None:
        """The inner operator's."""
        self.inner.snapshot_state(checkpoint_id)

    def finish(self) -> list[Element]:
        """The inner operator's."""
        return self.inner.finish()

    def close(self) -> None:
        """Close the inner operator."""
        self.inner.close()
