"""WatermarkAssigner: ``WATERMARK FOR ts AS expr`` → watermarks after each batch.

As Flink's bounded-out-of-orderness strategy: the watermark is the largest value of ``expr``
seen so far (ms since the epoch), emitted after the batch that advanced it, so every row of a
batch is ahead of the watermark that follows it.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from streamsql.runtime.elements import Batch, Element, Watermark
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator


class WatermarkAssignerOperator(Operator):
    """Forwards batches and emits a watermark whenever the max of the watermark expression grows."""

    def __init__(self, query: BatchQuery):
        self.query = query  # one item: the watermark expression
        self.current: int | None = None

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Forward ``batch``, then a watermark if it advanced."""
        out: list[Element] = [batch]
        values = self.query.run(Batch(batch.table)).table.column(0)
        if len(values):
            top = pc.max(values.cast(pa.timestamp("ms", tz=values.type.tz))).value
            if top is not None and (self.current is None or top > self.current):
                self.current = top
                out.append(Watermark(top))
        return out

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Upstream watermarks are replaced by this table's own (only the final one passes)."""
        return [watermark] if watermark.timestamp == 2**63 - 1 else []
