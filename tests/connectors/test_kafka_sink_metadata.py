"""The record timestamps a Kafka sink reads from its METADATA FROM 'timestamp' column."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
from streamsql.connectors.kafka.metadata import epoch_millis

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
