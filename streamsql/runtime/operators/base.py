"""The operator contract.

Only :meth:`Operator.process_batch` is required. The runtime calls, in order, per operator:
``open(ctx)`` once → any interleaving of ``process_batch`` and ``process_watermark`` →
``snapshot_state(n)`` when barrier n has been aligned on all inputs (the operator's keyed state
lives in the backend already; this hook is for what it buffers in memory) → ... →
``finish()`` at end of input → ``close()``. A :class:`SplitStatus` from the source driver
reaches ``process_split_status`` (forwarded by default, so it passes a computed-columns Calc on
its way to the watermark assigner).
An operator with ``wants_ticks`` also gets ``on_tick()`` about every
``'pipeline.auto-watermark-interval'`` (processing time; never while its input is held for
barrier alignment, never after end of input) — for work driven by the clock rather than by
elements, like declaring an idle Kafka partition.
A method returns the elements to send downstream, in order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from streamsql.core.config import duration_ms
from streamsql.core.elements import Batch, Element, Watermark
from streamsql.state.base import KeyedState
from streamsql.state.ttl import StateTtl, wall_clock_ms


@dataclass(frozen=True)
class SplitStatus:
    """The splits of the source upstream, as data (the source driver sends it).

    Sent once when the source opens and again whenever a split finishes, always before the
    batch that follows, so an operator never needs the connector object.

    Attributes:
        names: the source's splits (:attr:`Source.split_names
            <streamsql.core.connector.Source.split_names>`; empty for a single-split source).
        finished: indices into ``names`` of the splits that will return no more rows.
    """

    names: tuple[str, ...] = ()
    finished: frozenset[int] = frozenset()


@dataclass(frozen=True)
class IdleStatus:
    """Every split of the source upstream is idle (Flink's ``WatermarkStatus.IDLE``), as data.

    Sent by the watermark assigner once when all its splits went idle
    (``'scan.watermark.idle-timeout'``); the next rows make the source active again. Single-input
    operators forward it; where inputs merge (:class:`~streamsql.runtime.alignment.WatermarkMerger`)
    the idle input is left out of the watermark (as Flink's ``StatusWatermarkValve`` leaves out an
    idle channel) and the status goes on once every input is idle. A parallel job's exchange tells
    the downstream tasks, whose merged watermark leaves this task out until it sends rows or a
    watermark.
    """


@dataclass
class OperatorContext:
    """What an operator gets at open.

    Attributes:
        operator_id: stable id (also its state namespace), e.g. ``"group-agg-3"``.
        state: the operator's keyed state, or None for stateless operators.
        config: the engine configuration (string values).
        metrics: counters shared with the job handle.
        clock: processing time in ms (the wall clock; tests inject their own), for state TTL.
    """

    operator_id: str
    state: KeyedState | None
    config: dict[str, str]
    metrics: dict[str, Any] = field(default_factory=dict)
    clock: Callable[[], int] = wall_clock_ms


def state_ttl(ctx: OperatorContext, hinted_ms: int | None = None) -> StateTtl | None:
    """The operator's state TTL; None for never.

    ``hinted_ms`` is the TTL of the operator's STATE_TTL hint (0: never), else (None) the job's
    ``'table.exec.state.ttl'`` applies (Flink's default '0 ms': never), as Flink lets the hint
    override the key.

    Raises:
        ConfigError: the key's value is not a duration.
    """
    key = "table.exec.state.ttl"
    ms = duration_ms(ctx.config.get(key) or "0 ms", key) if hinted_ms is None else hinted_ms
    return StateTtl(ms, ctx.clock) if ms > 0 else None


class Operator:
    """Transforms stream elements. Subclasses implement :meth:`process_batch`."""

    stateful: bool = False
    wants_ticks: bool = False  # call on_tick() periodically (read after open)
    #: What the operator is, when Flink expires its state under 'table.exec.state.ttl' and this
    #: operator does not implement that yet: opening it with a TTL then fails instead of
    #: keeping state Flink would have dropped.
    state_ttl_missing: str | None = None

    def open(self, ctx: OperatorContext) -> None:
        """Called once before any element.

        Raises:
            ConfigError: ``'table.exec.state.ttl'`` is set for an operator in :attr:`state_ttl_missing`.
        """
        self.ctx = ctx
        if self.state_ttl_missing and state_ttl(ctx):
            from streamsql.core.errors import ConfigError

            ttl = ctx.config.get("table.exec.state.ttl")
            msg = (f"'table.exec.state.ttl' = '{ttl}' is not implemented for {self.state_ttl_missing} yet: "
                   "Flink would expire its idle state, StreamSQL would keep it. Remove the key from this "
                   "job's settings (state is then kept for ever)")
            raise ConfigError(msg)

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Process one batch from input ``input_index``; return output elements."""
        raise NotImplementedError

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """The combined input watermark advanced; default: forward it."""
        return [watermark]

    def process_split_status(self, status: SplitStatus) -> list[Element]:
        """The source's splits changed; default: forward the status."""
        return [status]

    def process_idle_status(self, status: IdleStatus) -> list[Element]:
        """The source upstream went idle; default: forward the status."""
        return [status]

    def on_tick(self) -> list[Element]:
        """Processing time passed (only when ``wants_ticks``); return output elements."""
        return []

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Barrier ``checkpoint_id`` is aligned: persist in-memory buffers into keyed state."""

    def finish(self) -> list[Element]:
        """End of all input (after the final watermark); return last outputs."""
        return []

    def close(self) -> None:
        """Release resources; also called after a failure."""
