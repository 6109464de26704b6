"""The operators of TO_CHANGELOG and FROM_CHANGELOG: row kinds to op codes and back, per batch.

Stateless (Flink 2.3's ``ToChangelogFunction`` / ``FromChangelogFunction`` have row semantics and
keep no state), so a checkpoint snapshots nothing for them; whole batches are mapped with numpy
and Arrow compute, never row by row. The plan node (:mod:`streamsql.plan.changelog_ptf`) holds
the mappings.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.elements import Batch, Element
from streamsql.core.errors import ExecutionError
from streamsql.runtime.operators.base import Operator


class ToChangelogOperator(Operator):
    """TO_CHANGELOG: each row becomes +I, led by its row kind's code; unmapped kinds are dropped.

    Args:
        codes: row kind byte (0..3: +I, -U, +U, -D) → the op code written for it.
        passed: input column indexes after the op column, in output order.
        schema: the output schema (the op column first).
    """

    def __init__(self, codes: dict[int, str], passed: list[int], schema: pa.Schema):
        self.schema = schema
        self.passed = passed
        self.codes = pa.array([codes.get(k) for k in range(4)], pa.string())
        self.mapped = np.array([k in codes for k in range(4)])

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """The batch's rows with a mapped kind, as +I rows with their op code first."""
        kinds = batch.kind_array()
        table = batch.table
        keep = self.mapped[kinds]
        if not keep.all():
            table, kinds = table.filter(pa.array(keep)), kinds[keep]
        if not table.num_rows:
            return []
        op = self.codes.take(pa.array(kinds.astype(np.int64)))
        columns = [op, *(table.column(i) for i in self.passed)]
        return [Batch(pa.Table.from_arrays(columns, schema=self.schema))]


class FromChangelogOperator(Operator):
    """FROM_CHANGELOG: each row's op code gives its row kind; the op column is dropped.

    Args:
        kinds: op code → row kind byte (0..3).
        op_index: the op column's index in the input.
        passed: input column indexes kept, in output order.
        schema: the output schema.

    Raises (from :meth:`process_batch`):
        ExecutionError: a NULL op code, or one not in ``kinds``, in Flink's words
            (``FromChangelogFunction``); the job fails, as Flink's does.
    """

    def __init__(self, kinds: dict[str, int], op_index: int, passed: list[int], schema: pa.Schema):
        self.codes = pa.array(list(kinds), pa.string())
        self.kind_of = np.array(list(kinds.values()), dtype=np.int8)
        self.op_index = op_index
        self.passed = passed
        self.schema = schema

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """The batch's rows under the kinds their op codes name."""
        table = batch.table
        op = table.column(self.op_index).cast(pa.string())
        if op.null_count:
            msg = "Received NULL op code. Every changelog row must carry an operation code."
            raise ExecutionError(_where(msg, batch, _first(op.is_null())))
        at = pc.index_in(op, value_set=self.codes)
        if at.null_count:
            bad = _first(at.is_null())
            defined = ", ".join(self.codes.to_pylist())
            msg = f"Received invalid op code '{op[bad].as_py()}'. Defined op codes are: [{defined}]."
            raise ExecutionError(_where(msg, batch, bad))
        kinds = self.kind_of[at.to_numpy(zero_copy_only=False)]
        out = pa.Table.from_arrays([table.column(i) for i in self.passed], schema=self.schema)
        return [Batch(out, kinds if kinds.any() else None)]


def _first(mask: pa.ChunkedArray) -> int:
    """The index of the first True of ``mask``."""
    return int(np.flatnonzero(mask.to_numpy(zero_copy_only=False))[0])


def _where(msg: str, batch: Batch, row: int) -> str:
    """``msg`` with the record it is about (``topic[partition]@offset``) when the batch knows it."""
    return f"{msg} (record {batch.origin(row)})" if batch.origin is not None else msg
