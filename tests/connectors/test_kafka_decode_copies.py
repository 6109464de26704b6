"""A Kafka source's extra decodes (``decode_copy``), for the pipeline's extra decode threads.

The ``kafka`` source gives decodes with a decoder of their own: the same rows as its own decode
(narrowed to the columns read alike), bad records named and counted into the job's metrics the
same way, so that several decode threads change nothing but which thread decodes. upsert-kafka
derives its changelog from the per-key values of every earlier batch: it gives none (one decode
thread, in order). No broker: nothing here connects.
"""

from __future__ import annotations

import numpy as np
import pytest
from streamsql.connectors.kafka import KafkaSource
from streamsql.connectors.kafka.fetched import Fetched, Located
from streamsql.connectors.kafka.upsert import UpsertKafkaSource

from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import BadRecordError
from tests.connectors.helpers import table_of

OPTIONS = {"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "x:1", "format": "json"}
COLS = {"id": "INT", "v": "BIGINT", "s": "STRING"}


def _fetched(values: list[bytes]) -> Fetched:
    n = len(values)
    return Fetched(values, Located(np.zeros(n, np.int32), np.arange(7, 7 + n, dtype=np.int64), (("t", 0),)))


def _source(options: dict[str, str], read: frozenset[tuple[str, ...]] | None = None) -> KafkaSource:
    return KafkaSource(ConnectorContext(table_of("t", options, **COLS), "job", {}, read_columns=read))


def test_a_copy_decodes_as_the_source_itself_and_counts_into_the_same_metrics():
    src = _source({**OPTIONS, "json.ignore-parse-errors": "true"}, frozenset({("id",)}))
    copy = src.decode_copy()
    values = [b'{"id":1,"v":2,"s":"a"}', b"[1]", b'{"id":3,"v":"x"}', b"", b'{"id":4,"s":{"o":1}}']
    own = src.decode(_fetched(values))
    other = copy(_fetched(values))
    assert other.table.equals(own.table)
    assert other.table.column("id").to_pylist() == [1, 3, 4]
    assert other.table.column("s").null_count == 3  # not read: left undecoded by both
    assert src.metrics == {"bad_records": 2, "empty_records": 2}  # the array and the empty value, twice


def test_a_copy_names_a_bad_record_as_the_source_does():
    src = _source(OPTIONS)
    values = [b'{"id":1}', b'{"id":"two"}']
    with pytest.raises(BadRecordError) as own:
        src.decode(_fetched(values))
    with pytest.raises(BadRecordError) as other:
        src.decode_copy()(_fetched(values))
    assert str(other.value) == str(own.value) and "t[0]@8" in str(other.value)


def test_copies_keep_no_state_of_each_other():
    src = _source(OPTIONS)
    a, b = src.decode_copy(), src.decode_copy()
    assert a(_fetched([b'{"id":1}'])).table.column("id").to_pylist() == [1]
    assert b(_fetched([b'{"id":2}', b'{"id":3}'])).table.column("id").to_pylist() == [2, 3]
    assert a(_fetched([b""])) is None  # no rows: None, as the source's own decode


def test_upsert_kafka_decodes_one_batch_at_a_time():
    options = {"connector": "upsert-kafka", "topic": "t", "properties.bootstrap.servers": "x:1",
               "key.format": "json", "value.format": "json"}
    table = table_of("t", options, **COLS)
    table.primary_key = ["id"]
    assert UpsertKafkaSource(ConnectorContext(table, "job", {})).decode_copy() is None
