"""The record timestamps a Kafka sink reads from its METADATA FROM 'timestamp' column."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pytest
from streamsql.connectors.kafka.metadata import RecordMetadata, epoch_millis

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.errors import ExecutionError
from streamsql.core.types import SqlType

UTC = dt.timezone.utc


def _ts(values, unit):
    return pa.chunked_array([pa.array(values, pa.timestamp(unit, tz="UTC"))])


def test_a_timestamp_ltz_6_column_gives_its_milliseconds():
    """A TIMESTAMP_LTZ(6) column failed the job ('Casting from timestamp[us, tz=UTC] to
    timestamp[ms, tz=UTC] would lose data'); Flink casts it to TIMESTAMP_LTZ(3): 1600000000123."""
    col = _ts([dt.datetime(2020, 9, 13, 12, 26, 40, 123456, tzinfo=UTC), None], "us")
    assert epoch_millis(col).tolist() == [1600000000123, 0]


def test_sub_millisecond_digits_are_cut_toward_the_past():
    col = _ts([-500, 1_999_999, 0], "ns")
    assert epoch_millis(col).tolist() == [-1, 1, 0]
    assert epoch_millis(_ts([3], "s")).tolist() == [3000]


def _sink_metadata() -> RecordMetadata:
    return RecordMetadata(TableDef("snk", [
        ColumnDef("id", SqlType("INT")),
        ColumnDef("ts", SqlType("TIMESTAMP_LTZ", 3), metadata_key="timestamp"),
    ], {"connector": "kafka"}))


def test_epoch_0_is_refused_not_written_as_the_time_of_sending():
    """Flink 2.3 writes TO_TIMESTAMP_LTZ(0, 3) as CreateTime 0 (tests/integration/
    kafka_timestamp_flink.json, kafka_metadata_epoch); librdkafka reads a timestamp of 0 as "now",
    so the record silently got the time of sending. A NULL still means the time of sending."""
    rows = pa.table({"id": [1, 2], "ts": _ts([1, None], "ms")})
    assert _sink_metadata().of(rows) == ([1, 0], None)
    rows = pa.table({"id": [1, 2], "ts": _ts([None, 0], "ms")})
    with pytest.raises(ExecutionError, match=r"Table 'snk': cannot write the record timestamp "
                       r"1970-01-01 00:00:00\.000 \(epoch 0\) of column 'ts'.*Flink writes CreateTime 0"):
        _sink_metadata().of(rows)
    with pytest.raises(ExecutionError, match="Invalid timestamp: -1. Timestamp should always be"):
        _sink_metadata().of(pa.table({"id": [1], "ts": _ts([-1], "ms")}))
