"""Metadata columns of a Kafka source (``METADATA FROM 'offset'``, ...), Flink's keys.

A source produces its physical columns, then its metadata columns in declaration order
(:func:`source_schema`); :func:`metadata_arrays` reads them from the messages of a batch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from confluent_kafka import Message
from streamsql.connectors.kafka.options import table_prefix

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError
from streamsql.core.types import Field, Schema, SqlType

#: Readable metadata keys: Flink's names and the SQL type they are produced as.
READABLE_METADATA = {
    "topic": SqlType("STRING"),
    "partition": SqlType("INT"),
    "offset": SqlType("BIGINT"),
    "timestamp": SqlType("TIMESTAMP_LTZ", 3),
    "timestamp-type": SqlType("STRING"),
}

_TS_TYPES = np.array(["NoTimestampType", "CreateTime", "LogAppendTime"], dtype=object)


def check_metadata(table: TableDef) -> None:
    """Raise ConfigError for a metadata column the Kafka source cannot produce."""
    for c in table.metadata_columns:
        if c.metadata_key not in READABLE_METADATA:
            msg = (
                f"{table_prefix(table)}metadata column '{c.name}' reads unknown key "
                f"'{c.metadata_key}'; Kafka provides: {', '.join(READABLE_METADATA)}"
            )
            raise ConfigError(msg)


def source_schema(table: TableDef) -> Schema:
    """Physical columns then metadata columns (declaration order), as a source produces them."""
    fields = list(table.physical_schema.fields)
    fields += [Field(c.name, c.type) for c in table.metadata_columns]
    return Schema(fields)


def metadata_arrays(table: TableDef, msgs: list[Message], idx: np.ndarray) -> list[pa.Array]:
    """Metadata column values of the messages selected by ``idx`` (declaration order)."""
    out = []
    cache: dict[str, Any] = {}
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
            else:  # timestamp-type
                arr = pa.array([_TS_TYPES[msgs[i].timestamp()[0]] for i in idx], pa.string())
            cache[key] = arr
        arr = cache[key]
        target = c.type.to_arrow()
        out.append(arr if arr.type == target else arr.cast(target))
    return out
