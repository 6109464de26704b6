"""The collect sink: where a SELECT's changelog goes so the caller can iterate it."""

from __future__ import annotations

import queue
from dataclasses import dataclass
from typing import ClassVar

import pyarrow as pa
import pyarrow.compute as pc

from streamsql.core.connector import Sink
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ExecutionError
from streamsql.core.types import SqlType
from streamsql.core.variant_text import flink_text, flink_texts
from streamsql.plan.nodes import PlanNode

END = object()


class CollectSink(Sink):
    """Puts ``(RowKind, row tuple)`` pairs on a bounded queue (back-pressure on the job)."""

    accepts_updates = True

    def __init__(self, maxsize: int = 100_000, types: list[SqlType] | None = None):
        self.queue: queue.Queue = queue.Queue(maxsize)
        #: The result columns' SQL types (the plan's; None: each field's own metadata).
        self.types = types

    def write(self, batch: Batch) -> None:
        """Queue every row of ``batch`` with its kind.

        Raises:
            ExecutionError: a DATE or TIMESTAMP value Python's ``datetime`` cannot hold (past year
                9999 or before year 1; Flink 2.3 computes them, ``TIMESTAMPADD(YEAR, 8000, ts)``).
        """
        kinds = batch.kind_array()
        types = self.types or [SqlType.of_field(f) for f in batch.table.schema]
        cols = [_shown(c, f.name, t) for c, f, t in zip(batch.table.columns, batch.table.schema, types)]
        for i, row in enumerate(zip(*cols)):
            self.queue.put((RowKind(int(kinds[i])), row))

    def finish(self) -> None:
        """End of a bounded query."""
        self.queue.put(END)


def _shown(column, name: str, t: SqlType) -> list:
    """The Python values of result column ``name`` of type ``t``, VARIANTs (at any depth) as Flink shows them.

    A VARIANT is carried as a text that spells a number's kind (:mod:`streamsql.core.variant_text`).
    """
    if t.name == "VARIANT":
        return _values(flink_texts(column), name)
    values = _values(column, name)
    return [_variants_shown(v, t) for v in values] if _holds_variant(t) else values


def _holds_variant(t: SqlType) -> bool:
    return t.name == "VARIANT" or any(_holds_variant(c) for c in t.children)


def _variants_shown(v, t: SqlType):
    """``v`` (a collected value of type ``t``) with each VARIANT inside it as Flink's text."""
    if v is None or not _holds_variant(t):
        return v
    if t.name == "VARIANT":
        return flink_text(v)
    if t.name == "ROW":
        return {k: _variants_shown(x, ft) for (k, x), ft in zip(v.items(), t.children)}
    if t.name == "MAP":
        kt, vt = t.children
        return [(_variants_shown(k, kt), _variants_shown(x, vt)) for k, x in v]
    return [_variants_shown(x, t.children[0]) for x in v]


def _values(column, name: str) -> list:
    """The Python values of a result column (DATE and TIMESTAMP as ``datetime``).

    A TIMESTAMP(7..9) gives its microseconds (a ``datetime`` holds no more): cut down.

    Raises:
        ExecutionError: a date Python cannot hold; a TIME of 24:00:00 (a CEIL of 23:59:59.999 TO
            SECOND), which Flink 2.3's conversion to ``LocalTime`` fails on: ``Hour out of range: [24]``
            (Arrow would wrap it to 00:00:00).
    """
    if pa.types.is_time(column.type) and len(column) and \
            (pc.max(column.cast(pa.time64("us")).cast(pa.int64())).as_py() or 0) >= 86_400_000_000:
        msg = (f"Column '{name}' holds the TIME 24:00:00, which has no Python time (Flink fails the job "
               "too: Hour out of range: [24]); CAST it to STRING to read it")
        raise ExecutionError(msg)
    if pa.types.is_timestamp(column.type) and column.type.unit == "ns":
        # a TIMESTAMP(7..9): a Python datetime holds microseconds, the nanoseconds past them are cut
        # (down; CAST the column to STRING to read all nine digits)
        column = pc.floor_temporal(column, unit="microsecond").cast(pa.timestamp("us", column.type.tz))
    try:
        return column.to_pylist()
    except (ValueError, OverflowError) as e:
        msg = (f"Column '{name}' holds a date or timestamp outside the years 1..9999, which a Python "
               f"datetime cannot hold ({e}); CAST it to STRING to read it, or write it to a sink")
        raise ExecutionError(msg) from e


@dataclass(eq=False)
class CollectNode(PlanNode):
    """Plan root of a SELECT: collects its changelog for the caller (run by a ``SinkOperator``)."""

    sink: CollectSink = None  # type: ignore[assignment]

    kind: ClassVar[str] = "collect"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Collect(fields=[{', '.join(self.schema.names)}], changelog=[{self.inputs[0].mode}])"
