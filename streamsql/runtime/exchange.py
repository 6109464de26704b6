"""The runtime side of a keyed exchange: rows routed by key group to the downstream tasks.

Task ``p`` of a stage of P tasks owns the key groups that the run's key-group assignment gives
it (:func:`~streamsql.state.layout.task_of_key_groups`: ranges of the bit-reversed key groups,
or, for a run started before the assignment was recorded, Flink's ``kg * P // 128`` ranges), the
key group being that of the row's key in the one key encoding of keyed state
(:func:`~streamsql.state.layout.encode_keys`, :func:`~streamsql.state.layout.key_groups`): a row
reaches the task whose keyed state holds its key. :class:`ExchangeSinkOperator` splits each batch
by that and hands each part to the Kafka writer (:mod:`streamsql.connectors.kafka.exchange`); it
broadcasts its task's watermark and end of input.
"""

from __future__ import annotations

import numpy as np

from streamsql.connectors.kafka.exchange import ExchangeWriter
from streamsql.core.elements import Batch, Element, Watermark
from streamsql.runtime.operators.base import IdleStatus, Operator
from streamsql.state.layout import KG_ASSIGNMENT, encode_keys, key_groups, task_of_key_groups


def owner_tasks(batch: Batch, keys: list[int], tasks: int, assignment: int = KG_ASSIGNMENT) -> np.ndarray:
    """The task (int64, one per row) owning each row's key group among ``tasks`` tasks."""
    columns = [batch.table.column(i) for i in keys]
    return task_of_key_groups(key_groups(encode_keys(columns, batch.num_rows)), tasks, assignment)


class ExchangeSinkOperator(Operator):
    """The last operator of an upstream stage: rows by key group into the exchange.

    Args:
        writer: the exchange's Kafka writer.
        keys: the key column indexes.
        partitions: the downstream stage's parallelism.
        assignment: the run's key-group assignment (:func:`~streamsql.state.layout.task_of_key_groups`).
    """

    def __init__(self, writer: ExchangeWriter, keys: list[int], partitions: int,
                 assignment: int = KG_ASSIGNMENT):
        self.writer = writer
        self.keys = keys
        self.partitions = partitions
        self.assignment = assignment

    def open(self, ctx) -> None:
        """Open the writer (joins the task's transaction)."""
        super().open(ctx)
        self.writer.open()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Write each task's rows of ``batch`` to its partition."""
        self.ctx.metrics["rows_exchanged"] = self.ctx.metrics.get("rows_exchanged", 0) + batch.num_rows
        if self.partitions == 1 or not batch.num_rows:
            self.writer.write(0, batch)
            return []
        owner = owner_tasks(batch, self.keys, self.partitions, self.assignment)
        order = np.argsort(owner, kind="stable")
        sorted_owner = owner[order]
        bounds = np.flatnonzero(np.diff(sorted_owner)) + 1
        table = batch.table.take(order)
        kinds = batch.kinds[order] if batch.kinds is not None else None
        for start, stop in zip(np.r_[0, bounds], np.r_[bounds, len(order)]):
            part = Batch(table.slice(start, stop - start), kinds[start:stop] if kinds is not None else None)
            self.writer.write(int(sorted_owner[start]), part)
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Broadcast the task's watermark."""
        self.writer.watermark(watermark.timestamp)
        return []

    def process_idle_status(self, status: IdleStatus) -> list[Element]:
        """Broadcast that the task's source went idle (the downstream tasks leave it out)."""
        self.writer.idle()
        return []

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Pre-commit: every record so far is acknowledged, invisible until the commit."""
        self.writer.pre_commit(checkpoint_id)

    def finish(self) -> list[Element]:
        """End of input: broadcast it (after the final watermark)."""
        self.writer.end()
        return []

    def close(self) -> None:
        """Release the writer."""
        self.writer.close()

