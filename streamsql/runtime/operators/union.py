"""UNION ALL: forwards every input (barrier alignment and watermark merging are the task's)."""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.elements import Batch, Element
from streamsql.runtime.operators.base import Operator


class UnionOperator(Operator):
    """Merges inputs with the same column types into one stream, renaming to the first's names."""

    def __init__(self, schema: pa.Schema):
        self.schema = schema

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Forward ``batch`` under the union's schema."""
        t = batch.table
        if t.schema != self.schema:
            t = t.rename_columns(self.schema.names).cast(self.schema)
        return [Batch(t, batch.kinds)]
