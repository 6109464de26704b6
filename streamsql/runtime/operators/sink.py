"""SinkOperator: hands batches to a connector's :class:`~streamsql.core.connector.Sink`.

It is also Flink's sink not-null enforcer (``ConstraintEnforcer``): a NULL in a column the sink
table declares NOT NULL — a PRIMARY KEY column is NOT NULL — fails the job with Flink's message,
or, with ``'table.exec.sink.not-null-enforcer' = 'DROP'``, the row is dropped (Flink's default is
``ERROR``). Every row kind is checked, as Flink does. Flink enforces before the sink's upsert
materializer (``CommonExecSink``: constraint validations, then the materializer), so a row it
drops is never held there; :class:`NotNullEnforcer` runs on the materializer's input too.
"""

from __future__ import annotations

from typing import Any, Callable

import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.catalog import TableDef
from streamsql.core.connector import Sink
from streamsql.core.elements import Batch, Element, Watermark
from streamsql.core.errors import ExecutionError
from streamsql.runtime.operators.base import Operator

#: Flink's option: ERROR (default) fails the job at a NULL in a NOT NULL column, DROP drops the row.
NOT_NULL_ENFORCER = "table.exec.sink.not-null-enforcer"


def not_null_columns(table: TableDef, names: list[str], also: list[str] = ()) -> list[tuple[int, str]]:
    """``(index in names, column name)`` of each written column that ``table`` declares NOT NULL.

    Args:
        table: the sink table (a PRIMARY KEY column is NOT NULL, as Flink's).
        names: the columns of the batches the sink is given, in order (the sink node's schema).
        also: columns the connector takes as NOT NULL whatever their type
            (:attr:`~streamsql.core.connector.ConnectorSpec.sink_not_null`).
    """
    key = {k.lower() for k in table.primary_key} | {a.lower() for a in also}
    required = {c.name.lower(): c.name for c in table.columns
                if c.type is not None and (not c.type.nullable or c.name.lower() in key)}
    return [(i, required[n.lower()]) for i, n in enumerate(names) if n.lower() in required]


class NotNullEnforcer:
    """Flink's sink not-null enforcer (``ConstraintEnforcer``) over batches: see module docstring.

    Flink runs it before the sink's upsert materializer, so a dropped row never reaches it
    (:class:`~streamsql.runtime.operators.sink_materializer.SinkUpsertMaterializer` applies it to
    its input; the sink applies it again, finding nothing).

    Args:
        columns: ``(index, name)`` of the NOT NULL columns of the batches (:func:`not_null_columns`).
    """

    def __init__(self, columns: list[tuple[int, str]] | None):
        self.columns = list(columns or [])
        self.drop = False

    def open(self, config) -> None:
        """Read ``'table.exec.sink.not-null-enforcer'`` (ERROR, the default, or DROP)."""
        self.drop = (config.get(NOT_NULL_ENFORCER) or "ERROR").upper() == "DROP"

    def __call__(self, batch: Batch) -> Batch:
        """``batch`` without its rows with a NULL in a NOT NULL column (DROP), or unchanged.

        Raises:
            ExecutionError: Flink's "Column 'k' is NOT NULL, however, a null value is being
                written into it ..." (enforcer ``ERROR``).
        """
        nulls = [(i, name) for i, name in self.columns if batch.table.column(i).null_count]
        if not nulls:
            return batch
        if not self.drop:
            msg = (f"Column '{nulls[0][1]}' is NOT NULL, however, a null value is being written into it. "
                   f"You can set job configuration '{NOT_NULL_ENFORCER}'='DROP' to suppress this "
                   f"exception and drop such records silently.")
            raise ExecutionError(msg)
        keep = pa.array([True] * batch.num_rows)
        for i, _ in nulls:
            keep = pc.and_(keep, pc.is_valid(batch.table.column(i)))
        mask = keep.to_numpy(zero_copy_only=False)
        return Batch(batch.table.filter(keep), None if batch.kinds is None else batch.kinds[mask])


class SinkOperator(Operator):
    """The last operator of a pipeline: writes rows, pre-commits at barriers.

    The commit itself (phase two) is driven by the checkpoint coordinator once every task has
    acknowledged the checkpoint, never by the barrier. The sink's own state
    (:meth:`Sink.snapshot`) is recorded in the checkpoint under :attr:`state_key`, next to the
    source positions, and handed back by :meth:`restore`.
    """

    def __init__(self, sink: Sink, name: str, not_null: list[tuple[int, str]] | None = None,
                 state_key: str = "", record: Callable[[int, str, Any], None] | None = None):
        """``not_null``: the NOT NULL columns of the batches (:func:`not_null_columns`), or none.

        ``record(n, state_key, state)``: records the sink's state in checkpoint n (the
        coordinator's ``record_position``); None: a sink with state cannot be checkpointed here.
        """
        self.sink = sink
        self.name = name
        self.rows_out = 0
        self.not_null = NotNullEnforcer(not_null)
        self.state_key = state_key
        self.record = record

    def open(self, ctx) -> None:
        """Open the connector's sink."""
        super().open(ctx)
        self.not_null.open(ctx.config)
        self.sink.open()

    def process_batch(self, batch: Batch, input_index: int) -> list[Element]:
        """Write ``batch`` to the sink (after the not-null enforcer, module docstring).

        Raises:
            ExecutionError: Flink's "Column 'k' is NOT NULL, however, a null value is being
                written into it ..." (enforcer ``ERROR``).
        """
        if self.not_null.columns:
            batch = self.not_null(batch)
            if not batch.num_rows:
                return []
        self.sink.write(batch)
        self.rows_out += batch.num_rows
        self.ctx.metrics["rows_out"] = self.ctx.metrics.get("rows_out", 0) + batch.num_rows
        return []

    def process_watermark(self, watermark: Watermark) -> list[Element]:
        """Hand the sink its input watermark (:meth:`Sink.on_watermark`), then forward it."""
        self.sink.on_watermark(watermark.timestamp)
        return [watermark]

    def raise_failure(self) -> None:
        """Raise a failure of the sink's work off the job thread (:meth:`Sink.raise_failure`)."""
        self.sink.raise_failure()

    def abort(self) -> None:
        """From the cancelling thread: a blocked write or flush returns soon (:meth:`Sink.abort`)."""
        self.sink.abort()

    def snapshot_state(self, checkpoint_id: int) -> None:
        """Phase one of two-phase commit: flush everything written so far; record the sink's state.

        Raises:
            ExecutionError: the sink has state and nothing records it (our bug, never silent).
        """
        self.sink.pre_commit(checkpoint_id)
        state = self.sink.snapshot(checkpoint_id)
        if state is None:
            return
        if self.record is None:
            msg = f"Sink '{self.name}' has state to checkpoint, but no checkpoint records it"
            raise ExecutionError(msg)
        self.record(checkpoint_id, self.state_key, state)

    def restore(self, positions: dict[str, Any]) -> None:
        """Hand the sink its state in the restored checkpoint's ``positions`` (None: a fresh start)."""
        self.sink.restore(positions.get(self.state_key) if self.state_key else None)

    def finish(self) -> list[Element]:
        """End of input: flush buffered rows."""
        self.sink.finish()
        return []

    def close(self) -> None:
        """Close the connector's sink."""
        self.sink.close()
