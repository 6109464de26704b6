"""Calc: fused projection and filter (Flink's name), evaluated per batch by DuckDB."""

from __future__ import annotations

from streamsql.core.elements import Batch, Element, Watermark
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator


class CalcOperator(Operator):
    """Evaluates ``SELECT items FROM batch WHERE condition`` on each batch; keeps row kinds.

    CURRENT_WATERMARK(rowtime) in the query is this operator's current watermark: NULL until the
    first one arrives, then the last one before the batch (per task, as Flink's per subtask).
    """

    def __init__(self, query: BatchQuery):
        self.query = query
        query.keep_watermark()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Project and filter ``batch``; empty results are not sent on."""
        out = self.query.run(batch)
        return [out] if out.num_rows else []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Keep the watermark for CURRENT_WATERMARK; forward it."""
        self.query.set_watermark(watermark.timestamp)
        return [watermark]
