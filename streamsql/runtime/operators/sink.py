"""SinkOperator: hands batches to a connector's :class:`~streamsql.core.connector.Sink`."""

from __future__ import annotations

from streamsql.core.connector import Sink
from streamsql.core.elements import Batch, Element
from streamsql.runtime.operators.base import Operator


class SinkOperator(Operator):
    """The last operator of a pipeline: writes rows, pre-commits at barriers.

    The commit itself (phase two) is driven by the checkpoint coordinator once every task has
    acknowledged the checkpoint, never by the barrier.
    """

    def __init__(self, sink: Sink, name: str):
        self.sink = sink
        self.name = name
        self.rows_out = 0

    def open(self, ctx) -> None:
        """Open the connector's sink."""
        super().open(ctx)
        self.sink.open()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Write ``batch`` to the sink."""
        self.sink.write(batch)
        self.rows_out += batch.num_rows
        self.ctx.metrics["rows_out"] = self.ctx.metrics.get("rows_out", 0) + batch.num_rows
        return []

    def check(self) -> None:
        """Raise a failure of the sink's work off the job thread (:meth:`Sink.check`)."""
        self.sink.check()

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Phase one of two-phase commit: flush everything written so far."""
        self.sink.pre_commit(checkpoint_id)

    def finish(self) -> list[Element]:
        """End of input: flush buffered rows."""
        self.sink.finish()
        return []

    def close(self) -> None:
        """Close the connector's sink."""
        self.sink.close()
