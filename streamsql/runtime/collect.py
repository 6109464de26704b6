"""The collect sink: where a SELECT's changelog goes so the caller can iterate it."""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import ClassVar

from streamsql.core.connector import Sink
from streamsql.core.elements import Batch, RowKind
from streamsql.plan.nodes import PlanNode

END = object()


class CollectSink(Sink):
    """Puts ``(RowKind, row tuple)`` pairs on a bounded queue (back-pressure on the job)."""

    accepts_updates = True

    def __init__(self, maxsize: int = 100_000):
        self.queue: queue.Queue = queue.Queue(maxsize)

    def write(self, batch: Batch) -> None:
        """Queue every row of ``batch`` with its kind."""
        kinds = batch.kind_array()
        cols = [c.to_pylist() for c in batch.table.columns]
        for i, row in enumerate(zip(*cols)):
            self.queue.put((RowKind(int(kinds[i])), row))

    def finish(self) -> None:
        """End of a bounded query."""
        self.queue.put(END)


@dataclass(eq=False)
class CollectNode(PlanNode):
    """Plan root of a SELECT: collects its changelog for the caller (run by a ``SinkOperator``)."""

    sink: CollectSink = None  # type: ignore[assignment]

    kind: ClassVar[str] = "collect"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Collect(fields=[{', '.join(self.schema.names)}], changelog=[{self.inputs[0].mode}])"
