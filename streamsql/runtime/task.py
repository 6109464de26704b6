"""A task runs one operator: it aligns barriers, merges watermarks and forwards outputs.

Tasks push elements downstream synchronously (on the job thread), so a task's ``receive``
runs the whole pipeline below it for that element.
"""

from __future__ import annotations

from typing import Protocol

from streamsql.core.elements import MAX_WATERMARK, Barrier, Batch, Element, EndOfInput, Watermark
from streamsql.core.faults import fault_point
from streamsql.runtime.alignment import BarrierAligner, WatermarkMerger
from streamsql.runtime.operators.base import IdleStatus, Operator, SplitStatus


class CheckpointListener(Protocol):
    """Who learns that a task processed barrier n (the checkpoint coordinator)."""

    def acknowledge(self, checkpoint_id: int, task_id: str) -> None:
        """Task ``task_id`` snapshotted its state for ``checkpoint_id``."""


class Task:
    """One operator plus its input handling.

    Args:
        task_id: the operator's stable id.
        operator: what it runs.
        num_inputs: input channels.
        listener: told when the task has snapshotted for a barrier.
        exactly_once: align barriers (EXACTLY_ONCE) or not (AT_LEAST_ONCE).
        downstream: where its output goes: (task, input index of that task) pairs.
    """

    def __init__(self, task_id: str, operator: Operator, num_inputs: int, listener: CheckpointListener,
                 exactly_once: bool = True, downstream: list[tuple[Task, int]] = ()):
        self.task_id = task_id
        self.operator = operator
        self.num_inputs = max(1, num_inputs)
        self.listener = listener
        self.downstream = list(downstream)
        self.aligner = BarrierAligner(self.num_inputs, exactly_once)
        self.watermarks = WatermarkMerger(self.num_inputs)
        self._held: list[tuple[Element, int]] = []
        self._ended = 0
        self.finished = False
        self.rows_in = 0
        self._last_barrier = 0
        self._pending_barrier: Barrier | None = None

    def emit(self, elements: list[Element]) -> None:
        """Push ``elements`` to every downstream task, in order."""
        for el in elements:
            for target, idx in self.downstream:
                target.receive(el, idx)

    def receive(self, element: Element, input_index: int = 0) -> None:
        """Process one element from input ``input_index``."""
        if self.aligner.is_blocked(input_index):
            fault_point("during_alignment")
            self._held.append((element, input_index))
            return
        if isinstance(element, Batch):
            self.rows_in += element.num_rows
            self.watermarks.activate(input_index)  # rows: the input is active again
            self.emit(self.operator.process_batch(element, input_index))
        elif isinstance(element, Watermark):
            combined = self.watermarks.update(input_index, element.timestamp)
            if combined is not None:
                self.emit(self.operator.process_watermark(Watermark(combined)))
        elif isinstance(element, Barrier):
            if element.checkpoint_id <= self._last_barrier:
                return  # already aligned (a finished input completed it); forward once only
            self._pending_barrier = element
            if self.aligner.on_barrier(element.checkpoint_id, input_index):
                self._checkpoint(element)
        elif isinstance(element, EndOfInput):
            self._end_input(input_index)
        elif isinstance(element, SplitStatus) and self.num_inputs == 1:
            # A status describes one source: it stops where inputs merge.
            self.emit(self.operator.process_split_status(element))
        elif isinstance(element, IdleStatus):
            # the merge leaves an idle input out; the task is idle once all of them are
            combined = self.watermarks.set_idle(input_index)
            if combined is not None:
                self.emit(self.operator.process_watermark(Watermark(combined)))
            if self.watermarks.all_idle():
                self.emit(self.operator.process_idle_status(element))

    def tick(self) -> None:
        """Let the operator act on processing time (see :meth:`Operator.on_tick`).

        Skipped while an input is held for alignment (its state must stay as of the barrier)
        and after end of input.
        """
        if self.finished or self._held or self.aligner.pending is not None:
            return
        self.emit(self.operator.on_tick())

    def _checkpoint(self, barrier: Barrier) -> None:
        self._last_barrier = barrier.checkpoint_id
        self.operator.snapshot_state(barrier.checkpoint_id)
        self.listener.acknowledge(barrier.checkpoint_id, self.task_id)
        self.emit([barrier])
        held, self._held = self._held, []
        for el, idx in held:
            self.receive(el, idx)

    def _end_input(self, input_index: int) -> None:
        self._ended += 1
        combined = self.watermarks.end(input_index)
        pending = self.aligner.pending
        if self.aligner.on_end(input_index) and pending is not None:
            self._checkpoint(self._pending_barrier)  # forward the barrier as it arrived
        if combined is not None:
            self.emit(self.operator.process_watermark(Watermark(combined)))
        if self._ended >= self.num_inputs:
            if combined != MAX_WATERMARK and self.watermarks.current != MAX_WATERMARK:
                self.emit(self.operator.process_watermark(Watermark(MAX_WATERMARK)))
            self.emit(self.operator.finish())
            self.finished = True
            self.emit([EndOfInput()])
