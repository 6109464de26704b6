"""The job metrics that count rows a job skipped or dropped, and how ``streamsql run`` names them.

Each is a key of a job's ``metrics`` dict, added to where the rows are skipped
(:func:`streamsql.core.connector.count`), summed over a parallel job's tasks, carried in a
worker's task report, and printed when not zero by the job summary, each task's line and
DESCRIBE JOB (``streamsql.jobs``). A row the engine drops without a count is a silent wrong
answer: every such place counts here.
"""

from __future__ import annotations

#: (metric key, what the job summary says after the count, DESCRIBE JOB's label).
DROPPED: tuple[tuple[str, str, str], ...] = (
    # undecodable source records skipped ('json.ignore-parse-errors', upsert-kafka NULL keys)
    ("bad_records", "bad records skipped", "Bad records"),
    # Kafka records that are no row, as in Flink: tombstones into an append source, empty values
    # of formats whose deserializer gives no row for them (json)
    ("empty_records", "empty records skipped", "Empty records"),
    # rows behind the watermark (window aggregates, joins and Top-N, OVER, deduplication)
    ("late_records", "late records dropped", "Late records"),
    # rows with a NULL rowtime a window TVF without aggregation drops (Flink's
    # numNullRowTimeRecordsDropped; where Flink fails the job instead, so does StreamSQL)
    ("null_rowtime_records", "rows with a NULL rowtime dropped", "NULL-rowtime records"),
    # -U/-D rows of a row the sink upsert materializer no longer holds ('table.exec.state.ttl')
    ("dropped_retractions", "retractions of expired rows dropped", "Dropped retractions"),
)

#: The metric keys of :data:`DROPPED`.
KEYS: tuple[str, ...] = tuple(key for key, _, _ in DROPPED)
