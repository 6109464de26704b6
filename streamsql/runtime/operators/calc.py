"""Calc: fused projection and filter (Flink's name), evaluated per batch by DuckDB."""

from __future__ import annotations

from streamsql.core.elements import Batch, Element
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator


class CalcOperator(Operator):
    """Evaluates ``SELECT items FROM batch WHERE condition`` on each batch; keeps row kinds."""

    def __init__(self, query: BatchQuery):
        self.query = query

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Project and filter ``batch``; empty results are not sent on."""
        out = self.query.run(batch)
        return [out] if out.num_rows else []
