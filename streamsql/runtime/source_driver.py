"""SourceDriver: polls a connector source and injects barriers at the position it records."""

from __future__ import annotations

from streamsql.core.connector import Source
from streamsql.core.elements import Barrier, EndOfInput
from streamsql.core.faults import fault_point
from streamsql.runtime.task import Task


class SourceDriver:
    """Drives one :class:`~streamsql.core.connector.Source` (the source task).

    Args:
        source_id: stable id (key of its position in checkpoint metadata).
        source: the connector's reader.
        coordinator: told the position at each barrier.
        batch_rows: most rows per poll (``'execution.batch-size'``).
    """

    def __init__(self, source_id: str, source: Source, coordinator, batch_rows: int):
        self.source_id = source_id
        self.source = source
        self.coordinator = coordinator
        self.batch_rows = batch_rows
        self.downstream: list[tuple[Task, int]] = []
        self._barrier: int | None = None
        self.ended = False
        self.rows = 0

    def connect(self, target: Task, input_index: int) -> None:
        """Send this source's output to ``target``'s input ``input_index``."""
        self.downstream.append((target, input_index))

    def _emit(self, element) -> None:
        for target, idx in self.downstream:
            target.receive(element, idx)

    def request_barrier(self, checkpoint_id: int) -> None:
        """Inject barrier ``checkpoint_id`` at the next :meth:`step` (at once if ended)."""
        self._barrier = checkpoint_id
        if self.ended:
            self._inject()

    @property
    def barrier_requested(self) -> bool:
        """True while a requested barrier has not been injected yet."""
        return self._barrier is not None

    def inject_barrier(self) -> None:
        """Inject the requested barrier now (used by the final checkpoint)."""
        if self._barrier is not None:
            self._inject()

    def _inject(self) -> None:
        n, self._barrier = self._barrier, None
        fault_point("before_barrier")
        self.coordinator.record_position(n, self.source_id, self.source.position())
        self._emit(Barrier(n, 0))

    def step(self, timeout_s: float) -> bool:
        """Inject a requested barrier, then poll once; True if rows were emitted."""
        if self._barrier is not None:
            self._inject()
        if self.ended:
            return False
        batch = self.source.poll(self.batch_rows, timeout_s)
        if batch is not None and batch.num_rows:
            self.rows += batch.num_rows
            self._emit(batch)
            return True
        if self.source.bounded and self.source.finished():
            self.ended = True
            self._emit(EndOfInput())
        return False
