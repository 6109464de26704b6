"""Barrier alignment and watermark merging for tasks with several inputs.

Both are small classes of their own (as Arroyo's CheckpointCounter and WatermarkHolder) so
they can be tested without a job around them.
"""

from __future__ import annotations

from streamsql.core.elements import MAX_WATERMARK


class BarrierAligner:
    """Tracks which inputs delivered barrier n, blocking them under EXACTLY_ONCE.

    A blocked input's later elements are held back until barrier n has arrived on every live
    input.

    Args:
        num_inputs: input channels of the task.
        exactly_once: block inputs (True) or just count barriers (AT_LEAST_ONCE).
    """

    def __init__(self, num_inputs: int, exactly_once: bool = True):
        self.num_inputs = num_inputs
        self.exactly_once = exactly_once
        self.pending: int | None = None  # checkpoint id being aligned
        self.arrived: set[int] = set()
        self.ended: set[int] = set()

    def is_blocked(self, input_index: int) -> bool:
        """True when elements from ``input_index`` must be held back."""
        return self.exactly_once and self.pending is not None and input_index in self.arrived

    def on_barrier(self, checkpoint_id: int, input_index: int) -> bool:
        """Record barrier ``checkpoint_id`` on ``input_index``; True once it is aligned."""
        if self.pending is None:
            self.pending = checkpoint_id
        self.arrived.add(input_index)
        return self._complete()

    def on_end(self, input_index: int) -> bool:
        """An input finished; True if that completes a pending alignment."""
        self.ended.add(input_index)
        return self.pending is not None and self._complete()

    def _complete(self) -> bool:
        if len(self.arrived | self.ended) >= self.num_inputs:
            self.pending = None
            self.arrived = set()
            return True
        return False


class WatermarkMerger:
    """The combined watermark of several inputs.

    The minimum over inputs (finished inputs count as +inf), leaving out the idle ones (an
    :class:`~streamsql.runtime.operators.base.IdleStatus` came on them, and no row or watermark
    since), as Flink's ``StatusWatermarkValve`` leaves out an idle channel; once every input that
    has not finished is idle, the largest of their watermarks (the valve flushes it when its last
    active channel goes idle). Monotone: never returns a smaller value than before.

    An input active again after being idle is left out too until its watermark catches up with
    the combined one (the valve's *unaligned* channels): behind, it holds nobody back, and rows
    on it behind the combined watermark are late, as in Flink.
    """

    def __init__(self, num_inputs: int):
        self.values: list[int | None] = [None] * num_inputs
        self.current: int | None = None
        self.idle: set[int] = set()
        self.unaligned: set[int] = set()

    def update(self, input_index: int, timestamp: int) -> int | None:
        """Input ``input_index`` reached ``timestamp`` (ms); it is active again.

        Returns:
            the new combined watermark if it advanced, else None.
        """
        self.activate(input_index)
        old = self.values[input_index]
        if old is None or timestamp > old:
            self.values[input_index] = timestamp
        self._align(input_index)
        return self._combined()

    def activate(self, input_index: int) -> None:
        """Input ``input_index`` is active (rows or a watermark came): counted once aligned."""
        if input_index in self.idle:
            self.idle.discard(input_index)
            self.unaligned.add(input_index)
            self._align(input_index)

    def _align(self, input_index: int) -> None:
        """Count an unaligned input again once its watermark reached the combined one."""
        value = self.values[input_index]
        if self.current is None or (value is not None and value >= self.current):
            self.unaligned.discard(input_index)

    def set_idle(self, input_index: int) -> int | None:
        """Input ``input_index`` went idle: the new combined watermark if it advanced, else None."""
        if self.values[input_index] != MAX_WATERMARK:
            self.idle.add(input_index)
        return self._combined()

    def all_idle(self) -> bool:
        """Every input that has not finished is idle (the task is idle itself)."""
        return bool(self.idle) and all(i in self.idle or v == MAX_WATERMARK
                                       for i, v in enumerate(self.values))

    def _combined(self) -> int | None:
        if all(v == MAX_WATERMARK for v in self.values):
            low = MAX_WATERMARK
        else:
            active = [i for i, v in enumerate(self.values) if i not in self.idle and v != MAX_WATERMARK]
            counted = [self.values[i] for i in active if i not in self.unaligned]
            if active and not counted:  # only inputs behind, catching up: nothing to emit
                return None
            if not counted:  # every input idle: the largest of theirs, as Flink's valve flushes it
                seen = [v for v in self.values if v is not None and v != MAX_WATERMARK]
                counted = [max(seen, default=None)]
            if any(v is None for v in counted):
                return None
            low = min(counted)  # type: ignore[type-var]
        if self.current is None or low > self.current:
            self.current = low
            return low
        return None

    def end(self, input_index: int) -> int | None:
        """Input ``input_index`` finished (its watermark becomes +inf)."""
        self.idle.discard(input_index)
        return self.update(input_index, MAX_WATERMARK)
