"""SourceDriver: polls a connector source and injects barriers at the position it records."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from streamsql.core.connector import Source
from streamsql.core.elements import Barrier, Batch, EndOfInput, RowKind, Watermark
from streamsql.core.faults import fault_point
from streamsql.runtime.operators.base import IdleStatus, SplitStatus
from streamsql.runtime.task import Task


class BarrierSource(Protocol):
    """What a source driver asks of the checkpoint coordinator."""

    def requested_barrier(self) -> int | None:
        """The checkpoint whose barrier sources should inject now, or None."""

    def record_position(self, checkpoint_id: int, source_id: str, position: Any) -> None:
        """A source injected barrier ``checkpoint_id`` at ``position``."""


def changes(batch: Batch) -> int:
    """The changes a source's batch carries: its rows, an update's -U/+U pair counted once.

    What a job's "rows in" counts: a changelog source (``upsert-kafka``, ``debezium-json``,
    ``mysql-cdc``) turns one record that updates a key into a -U row and a +U row, and counting
    both would double the records read (Flink's source counts the record once).
    """
    if batch.kinds is None:
        return batch.num_rows
    return batch.num_rows - int(np.count_nonzero(batch.kinds == RowKind.UPDATE_BEFORE))


class SourceDriver:
    """Drives one :class:`~streamsql.core.connector.Source` (the source task).

    Besides batches, barriers, end of input and the watermark a source carries itself
    (:meth:`Source.watermark <streamsql.core.connector.Source.watermark>`) and its idleness
    (:meth:`Source.is_idle <streamsql.core.connector.Source.is_idle>`, an :class:`IdleStatus` once per
    idle spell), it sends a
    :class:`SplitStatus` (the source's splits and which of them finished) when the source opens
    and before the batch that follows a change, so that watermark generation needs no
    connector object.

    Args:
        source_id: stable id (key of its position in checkpoint metadata).
        source: the connector's reader.
        coordinator: says which barrier to inject; told the position at each barrier.
        batch_rows: most rows per poll (``'execution.batch-size'``).
        downstream: where its output goes: (task, input index of that task) pairs.
    """

    def __init__(self, source_id: str, source: Source, coordinator: BarrierSource, batch_rows: int,
                 downstream: list[tuple[Task, int]]):
        self.source_id = source_id
        self.source = source
        self.coordinator = coordinator
        self.batch_rows = batch_rows
        self.downstream = list(downstream)
        self._injected = 0  # the last barrier injected
        self._positions: dict[int, Any] = {}  # checkpoint id -> the position at its barrier
        self._status = SplitStatus()
        self._watermark: int | None = None  # the last one the source itself carried
        self._idle_sent = False  # an IdleStatus went out and the source is still idle
        self.ended = False
        self.rows = 0  # changes read (see changes())

    def _emit(self, element) -> None:
        for target, idx in self.downstream:
            target.receive(element, idx)

    def open(self, position: dict | None) -> None:
        """Open the source at ``position`` (None: its startup options) and send its splits."""
        self.source.open(position)
        self._status = SplitStatus(tuple(self.source.split_names), frozenset(self.source.finished_splits()))
        self._emit(self._status)

    def inject_barrier(self) -> None:
        """Inject the barrier the coordinator requests, if not injected yet."""
        n = self.coordinator.requested_barrier()
        if n is None or n <= self._injected:
            return
        self._injected = n
        fault_point("before_barrier")
        position = self.source.position()
        self._positions[n] = position
        self.coordinator.record_position(n, self.source_id, position)
        self._emit(Barrier(n, 0))

    def committed(self, checkpoint_id: int) -> None:
        """Checkpoint ``checkpoint_id`` committed: tell the source its position in it."""
        position = self._positions.pop(checkpoint_id, None)
        for n in [n for n in self._positions if n < checkpoint_id]:  # failed or subsumed ones
            del self._positions[n]
        if position is not None:
            self.source.checkpoint_committed(checkpoint_id, position)

    def step(self, timeout_s: float) -> bool:
        """Inject a requested barrier, then poll once; True if rows were emitted."""
        self.inject_barrier()
        if self.ended:
            return False
        batch = self.source.poll(self.batch_rows, timeout_s)
        finished = frozenset(self.source.finished_splits())
        names = self._status.names
        if len(self.source.split_names) != len(names):  # splits discovered (Kafka partitions)
            names = tuple(self.source.split_names)
        if finished != self._status.finished or names is not self._status.names:
            self._status = SplitStatus(names, finished)
            self._emit(self._status)
        if batch is not None and batch.num_rows:
            self.rows += changes(batch)
            self._emit(batch)
        mark = self.source.watermark()  # after the rows it covers
        if mark is not None and (self._watermark is None or mark > self._watermark):
            self._watermark = mark
            self._emit(Watermark(mark))
        idle = self.source.is_idle()  # an exchange whose upstream tasks all went idle: say so, once
        if idle and not self._idle_sent:
            self._emit(IdleStatus())
        self._idle_sent = idle
        # the end of input right after the last batch, in the same step: nothing (a processing-time
        # tick of the job loop) runs between them, as Flink's bounded source ends after its last record
        if self.source.bounded and self.source.finished():
            self.ended = True
            self._emit(EndOfInput())
        return batch is not None and batch.num_rows > 0
