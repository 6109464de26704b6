"""Metadata columns of a Kafka table (``METADATA FROM 'offset'``, ...), Flink's keys.

A source produces its physical columns, then its metadata columns in declaration order
(:func:`source_schema`); :func:`metadata_arrays` reads them from the messages of a batch: Flink's
keys ``topic``, ``partition``, ``headers``, ``leader-epoch``, ``offset``, ``timestamp``,
``timestamp-type``. A sink
writes the ``timestamp`` and ``headers`` keys (:class:`RecordMetadata`), the ``topic`` key when its
``'topic'`` option does not name exactly one topic (each row's topic: :class:`.routing.TopicRouting`),
and refuses the others unless VIRTUAL (:func:`check_sink_metadata`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from confluent_kafka import Message
from streamsql.connectors.formats import readable_metadata
from streamsql.connectors.kafka.options import topics_of

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.types import Field, Schema, SqlType

#: Readable metadata keys: Flink's names and the SQL type they are produced as, in Flink's order
#: (``KafkaDynamicSource.ReadableMetadata``).
READABLE_METADATA = {
    "topic": SqlType("STRING"),
    "partition": SqlType("INT"),
    "headers": SqlType.parse("MAP<STRING, BYTES>"),
    "leader-epoch": SqlType("INT"),
    "offset": SqlType("BIGINT"),
    "timestamp": SqlType("TIMESTAMP_LTZ", 3),
    "timestamp-type": SqlType("STRING"),
}
#: Flink's class of the ``kafka`` and ``upsert-kafka`` sources, in its metadata error.
SOURCE_CLASS = "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSource"

_TS_TYPES = np.array(["NoTimestampType", "CreateTime", "LogAppendTime"], dtype=object)


def qualified_name(table: TableDef) -> str:
    """The table's name as Flink's messages print it (``default_catalog.default_database.t``)."""
    return table.name if "." in table.name else f"default_catalog.default_database.{table.name}"


def value_metadata(table: TableDef) -> dict[str, SqlType]:
    """The value format's metadata keys as the table names them (``'value.database'``, ...).

    As Flink's ``KafkaDynamicSource.listReadableMetadata``: the value format's keys prefixed
    ``value.`` (:func:`~streamsql.connectors.formats.readable_metadata`), before the connector's.
    """
    fmt = (table.options.get("value.format") or table.options.get("format") or "").strip().lower()
    return {f"value.{k}": t for k, t in readable_metadata(fmt).items()}


def check_metadata(table: TableDef) -> None:
    """Raise ConfigError for a metadata column the Kafka source cannot produce (Flink's message).

    The error carries the column, so that it points at the key in the CREATE TABLE.
    """
    keys = [*value_metadata(table), *READABLE_METADATA]
    for c in table.metadata_columns:
        if c.metadata_key not in keys:
            msg = (
                f"Invalid metadata key '{c.metadata_key}' in column '{c.name}' of table "
                f"'{qualified_name(table)}'. The DynamicTableSource class '{SOURCE_CLASS}' supports the "
                "following metadata keys for reading:\n" + "\n".join(keys)
            )
            raise ConfigError(msg, table=table.name, column=c.name)


def source_schema(table: TableDef) -> Schema:
    """Physical columns then metadata columns (declaration order), as a source produces them."""
    fields = list(table.physical_schema.fields)
    fields += [Field(c.name, c.type) for c in table.metadata_columns]
    return Schema(fields)


def metadata_arrays(table: TableDef, msgs: list[Message], idx: np.ndarray,
                    value: dict[str, pa.Array] | None = None) -> list[pa.Array]:
    """Metadata column values of the rows from the messages selected by ``idx`` (declaration order).

    ``value``: the value format's metadata (``'value.<key>'`` → an array aligned with ``idx``).
    """
    out = []
    cache: dict[str, Any] = dict(value or {})
    for c in table.metadata_columns:
        key = c.metadata_key
        if key not in cache:
            if key == "topic":
                arr = pa.array([msgs[i].topic() for i in idx], pa.string())
            elif key == "partition":
                arr = pa.array([msgs[i].partition() for i in idx], pa.int32())
            elif key == "offset":
                arr = pa.array([msgs[i].offset() for i in idx], pa.int64())
            elif key == "timestamp":
                ts = [msgs[i].timestamp() for i in idx]
                arr = pa.array([t[1] if t[0] else None for t in ts], pa.int64()).cast(
                    pa.timestamp("ms", tz="UTC")
                )
            elif key == "headers":
                arr = pa.array([_headers(msgs[i].headers()) for i in idx], c.type.to_arrow())
            elif key == "leader-epoch":
                arr = pa.array([msgs[i].leader_epoch() for i in idx], pa.int32())
            else:  # timestamp-type
                arr = pa.array([_TS_TYPES[msgs[i].timestamp()[0]] for i in idx], pa.string())
            cache[key] = arr
        arr = cache[key]
        target = c.type.to_arrow()
        out.append(arr if arr.type == target else arr.cast(target))
    return out


def _headers(headers: list | None) -> list[tuple[str, bytes | None]]:
    """A record's headers as map entries, as Flink's ``KafkaDynamicSource`` reads them.

    Flink puts each header into a ``HashMap`` in the record's order: a key that repeats keeps its
    last value, at the place of its first (the map's entries are ordered here, a Java map's are not).
    No headers is an empty map, not NULL; a header without a value is a NULL value.
    """
    entries: dict[str, bytes | None] = {}
    for k, v in headers or ():
        entries[k] = v
    return list(entries.items())


# --------------------------------------------------------------------------------------------
# sinks

#: Writable metadata keys of the ``kafka`` / ``upsert-kafka`` sinks and their SQL types, in Flink's
#: order (``KafkaDynamicSink.WritableMetadata``: ``topic`` is ``STRING NOT NULL`` there).
WRITABLE_METADATA = {
    "topic": SqlType("STRING"),
    "headers": SqlType.parse("MAP<STRING, BYTES>"),
    "timestamp": SqlType("TIMESTAMP_LTZ", 3),
}


def writable_metadata(table: TableDef) -> list[str]:
    """The metadata keys the table's sink writes, as Flink's ``KafkaDynamicSink.listWritableMetadata``.

    ``topic`` is left out when ``'topic'`` names exactly one topic: every row goes there.
    """
    single = len(topics_of(table)) == 1
    return [k for k in WRITABLE_METADATA if not (k == "topic" and single)]


def not_null_metadata(table: TableDef) -> list[str]:
    """The written ``topic`` column: NOT NULL whatever its declared type.

    Flink's sink types it ``STRING NOT NULL``: a NULL fails the job (or drops the row) in the sink's
    not-null enforcer.
    """
    written = "topic" in writable_metadata(table)
    return [c.name for c in table.metadata_columns
            if written and c.metadata_key == "topic" and not c.virtual]


def check_sink_metadata(table: TableDef, sink_class: str) -> None:
    """Raise ConfigError for a written (not VIRTUAL) metadata column the sink cannot write.

    The message is Flink's (``DynamicSinkUtils``), with the sink class's Flink name.
    """
    qualified = qualified_name(table)
    keys = writable_metadata(table)
    for c in table.metadata_columns:
        if not c.virtual and c.metadata_key not in keys:
            msg = (
                f"Invalid metadata key '{c.metadata_key}' in column '{c.name}' of table '{qualified}'. "
                f"The DynamicTableSink class '{sink_class}' supports the following metadata keys for "
                f"writing:\n" + "\n".join(keys)
            )
            raise ConfigError(msg, table=table.name, column=c.name)


class RecordMetadata:
    """The record timestamp and headers a Kafka sink writes, from its written metadata columns.

    As Flink's ``DynamicKafkaRecordSerializationSchema``: the ``timestamp`` column's instant is
    the record's timestamp (CreateTime), a NULL (or no such column) leaves it to the producer (the
    time of sending); the ``headers`` column's entries are the record's headers. VIRTUAL columns
    are not written.

    Args:
        table: the sink's table; its rows reach the sink with the written metadata columns by name.
    """

    def __init__(self, table: TableDef):
        self.table = table.name
        written = {c.metadata_key: c.name for c in table.metadata_columns if not c.virtual}
        self.timestamp = written.get("timestamp")
        self.headers = written.get("headers")
        #: the ``topic`` column (read by the sink's :class:`.routing.TopicRouting`, not here)
        self.topic = written.get("topic")

    def __bool__(self) -> bool:
        return bool(self.timestamp or self.headers)

    def of(self, rows: pa.Table) -> tuple[list[int] | None, list | None]:
        """``(timestamps, headers)`` of every row, each None when the sink writes none.

        Timestamps are epoch milliseconds, 0 for NULL (librdkafka then stamps the time of
        sending); headers are ``[(key, bytes), ...]`` or None.

        Raises:
            ExecutionError: for a timestamp before 1970, which Kafka refuses (as Flink's producer:
                ``Invalid timestamp``); for exactly 1970-01-01 00:00:00.000, which Flink writes
                (CreateTime 0) but librdkafka cannot: it reads 0 as "the time of sending", and
                the record would silently carry another timestamp.
        """
        ts = hdr = None
        if self.timestamp:
            col = rows.column(self.timestamp)
            ms = epoch_millis(col)
            if (ms < 0).any():
                bad = int(ms[ms < 0][0])
                msg = f"Invalid timestamp: {bad}. Timestamp should always be non-negative or null."
                raise ExecutionError(msg)
            if (ms == 0).any() and ((ms == 0) & ~col.is_null().to_numpy(zero_copy_only=False)).any():
                msg = (
                    f"Table '{self.table}': cannot write the record timestamp 1970-01-01 00:00:00.000 "
                    f"(epoch 0) of column '{self.timestamp}': the Kafka client (librdkafka) takes a "
                    "timestamp of 0 for 'the time of sending', where Flink writes CreateTime 0. Write "
                    "NULL for the time of sending, or another instant."
                )
                raise ExecutionError(msg)
            ts = ms.tolist()
        if self.headers:
            hdr = rows.column(self.headers).to_pylist()
        return ts, hdr


#: Units of an Arrow timestamp per millisecond.
_PER_MS = {"ms": 1, "us": 1_000, "ns": 1_000_000}


def epoch_millis(col: pa.ChunkedArray) -> np.ndarray:
    """Epoch milliseconds (int64) of a TIMESTAMP / TIMESTAMP_LTZ column of any precision, 0 for NULL.

    Digits below the millisecond are cut toward the past, as Flink's cast to the metadata's
    ``TIMESTAMP_LTZ(3)`` (``DateTimeUtils.truncate``: an instant's epoch millis are kept, its
    sub-millisecond digits dropped); a column of precision 6 failed Arrow's cast to milliseconds.
    """
    raw = col.cast(pa.int64()).fill_null(0).to_numpy()
    unit = col.type.unit
    return raw * 1_000 if unit == "s" else raw // _PER_MS[unit]

