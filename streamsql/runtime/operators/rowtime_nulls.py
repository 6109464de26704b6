"""What an operator does with a NULL rowtime, as Flink 2.3: fail, drop and count, or read it as 0.

Flink 2.3 (``flink-table-runtime-2.3.0``; ``scripts/flink_null_rowtime.py`` runs the queries,
``tests/runtime/null_rowtime_flink.json`` holds the answers):

- ``WatermarkAssignerOperator``, the watermark of a source *without* watermark push-down (every
  connector but ``kafka`` / ``upsert-kafka``), fails the job: :data:`NULL_ROWTIME`. Every query
  over such a table fails there, whatever consumes the rowtime (or nothing does);
- a source with push-down (Kafka) ignores a NULL watermark value and passes the row on; then
  - the window TVF aggregate of TUMBLE / HOP / CUMULATE (``SliceAssigners``) fails: :data:`NULL_ROWTIME`;
  - the SESSION window aggregate (``SessionUnsliceAssigner``) fails: :data:`NULL_SESSION_ROWTIME`;
  - the window TVF without aggregation (``WindowTableFunctionOperator``) drops the row and counts
    it in its metric ``numNullRowTimeRecordsDropped``: here the job metric ``null_rowtime_records``;
  - the other consumers read the rowtime as a long that is 0 for a NULL: :data:`EPOCH`,
    1970-01-01 00:00:00. So a legacy ``GROUP BY TUMBLE|HOP|SESSION`` puts the row in a 1970
    window (``WindowSpec.legacy``); an OVER aggregate, an ``ORDER BY`` rowtime and
    MATCH_RECOGNIZE take it first, or drop it as late (counted in ``late_records``) once their
    watermark (a bounded OVER frame: the key's last emitted rowtime, 0 at first) is at or past
    the epoch; an interval join joins it with the other side's rows near 1970 only (another
    NULL too); in a temporal join a probe row finds only a version of 1970, and a version with a
    NULL rowtime is its key's version from 1970 on. The row itself keeps its NULL in the output.

The checks are one ``null_count`` of the Arrow column per batch (no per-row work); the epoch is
filled in, vectorised, only for a batch that has NULLs
(:func:`~streamsql.runtime.operators.window_agg.rowtimes`).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.errors import ExecutionError

#: Flink's message (``WatermarkAssignerOperator``, ``SliceAssigners``).
NULL_ROWTIME = "RowTime field should not be null, please convert it to a non-null long value."
#: Flink's message for a session window (``UnsliceAssigners.SessionUnsliceAssigner``), word for word.
NULL_SESSION_ROWTIME = "rowtimeIndex should not be null, please convert it to a non-null long value."
#: What a NULL rowtime reads as where Flink reads the field as a long (ms since the epoch).
EPOCH = 0
#: The job metric counting rows dropped for their NULL rowtime (:mod:`streamsql.core.counters`).
METRIC = "null_rowtime_records"


def fail_on_null(table: pa.Table, index: int, where: str, message: str = NULL_ROWTIME) -> None:
    """Fail the job when column ``index`` (the rowtime) of ``table`` holds a NULL.

    Args:
        table: a batch's rows.
        index: the rowtime column's position in ``table``.
        where: what reads it, for the message (e.g. ``"window aggregate"``).
        message: Flink's words (:data:`NULL_ROWTIME` or :data:`NULL_SESSION_ROWTIME`).

    Raises:
        ExecutionError: ``message`` then ``(column 'ts' of the window aggregate)``.
    """
    column = table.column(index)
    if column.null_count:
        msg = f"{message} (column '{table.schema.names[index]}' of the {where})"
        raise ExecutionError(msg)


def count_dropped(metrics: dict, n: int) -> None:
    """Count ``n`` rows dropped for their NULL rowtime in the job metric :data:`METRIC`."""
    if n:
        metrics[METRIC] = metrics.get(METRIC, 0) + int(n)
