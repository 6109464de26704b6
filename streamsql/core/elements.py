"""Stream elements: what flows on every channel between tasks, in order.

Three kinds, as in Flink and Arroyo:

1. :class:`Batch` — a columnar record batch (Arrow) plus a row-kind per row (+I/-U/+U/-D) and,
   from a source with several splits (Kafka partitions), the split each row was read from;
2. :class:`Watermark` — event-time progress in ms since the epoch, monotone per channel;
3. :class:`Barrier` — the marker of checkpoint n.

:class:`EndOfInput` closes a channel (a bounded source finished). It implies a final
watermark of +inf, as Flink's ``MAX_WATERMARK``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum

import numpy as np
import pyarrow as pa


class RowKind(IntEnum):
    """Changelog row kinds, with Flink's byte values and short strings."""

    INSERT = 0
    UPDATE_BEFORE = 1
    UPDATE_AFTER = 2
    DELETE = 3

    @property
    def short(self) -> str:
        """Flink's short string: +I, -U, +U, -D."""
        return ("+I", "-U", "+U", "-D")[self]


#: +1 for rows that add to a result (+I, +U), -1 for rows that take away (-U, -D), by RowKind.
SIGN = np.array([1, -1, 1, -1], dtype=np.int64)

MAX_WATERMARK = 2**63 - 1


@dataclass
class Batch:
    """A columnar batch of rows with their row kinds (and source splits).

    Attributes:
        table: the rows, an Arrow table (columns = the edge's schema).
        kinds: an int8 numpy array of :class:`RowKind` values, one per row, or None when every
            row is +I (the common insert-only case carries no kinds at all).
        splits: an int32 numpy array, one per row: the index, into the source's
            :attr:`~streamsql.core.connector.Source.split_names`, of the split (Kafka
            partition) the row was read from; None when every row comes from split 0 (always so
            for a single-split source) or splits do not matter. Set by sources, kept aligned by the Calc that
            computes columns between the scan and the WatermarkAssigner (per-split watermarks),
            and dropped by the assigner: operators downstream of it always see None.
        origin: where row ``i`` was read from, ``origin(i)``: ``topic[partition]@offset`` of a
            Kafka record or ``path:line`` of a file's line; set by sources and kept by the Calcs
            up to the first operator that regroups rows, so that an expression failing on a
            value names its record (None: not known).
    """

    table: pa.Table
    kinds: np.ndarray | None = None
    splits: np.ndarray | None = None
    origin: Callable[[int], str] | None = None

    @property
    def num_rows(self) -> int:
        """Rows in the batch."""
        return self.table.num_rows

    def kind_array(self) -> np.ndarray:
        """Row kinds as an int8 array (materialized +I for insert-only batches)."""
        if self.kinds is None:
            return np.zeros(self.table.num_rows, dtype=np.int8)
        return self.kinds

    def signs(self) -> np.ndarray:
        """+1/-1 per row (see :data:`SIGN`)."""
        if self.kinds is None:
            return np.ones(self.table.num_rows, dtype=np.int64)
        return SIGN[self.kinds]

    @property
    def insert_only(self) -> bool:
        """True when every row is +I."""
        return self.kinds is None or not self.kinds.any()


@dataclass(frozen=True)
class Watermark:
    """Event time has reached ``timestamp`` ms: no more rows with a smaller rowtime are expected."""

    timestamp: int


@dataclass(frozen=True)
class Barrier:
    """The marker of checkpoint ``checkpoint_id``, as Arroyo's CheckpointBarrier.

    Attributes:
        checkpoint_id: n, increasing from 1 within a job's life (continues after a restore).
        timestamp: trigger time, ms since the epoch.
        then_stop: the job stops once this checkpoint completes (stop-with-savepoint).
    """

    checkpoint_id: int
    timestamp: int
    then_stop: bool = False


@dataclass(frozen=True)
class EndOfInput:
    """The channel is finished (bounded input exhausted)."""


Element = Batch | Watermark | Barrier | EndOfInput
