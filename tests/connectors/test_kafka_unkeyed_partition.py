"""Where a Kafka sink's messages without a key go (``'sink.partitioner'`` = ``'default'``), without a broker.

Each ``produce_many`` call (a batch of rows) goes to one partition, the topic's partitions in
turn: the sticky placement of Flink's sink (the Java producer's default partitioner), chosen by
the session so that librdkafka's batch produce enqueues the batch at once instead of running its
partitioner per message (``connectors/kafka/session.py``). Keyed messages, a partition the sink
chose (``'fixed'``) and a table that names librdkafka's partitioner keep their placement. That
every row arrives is the integration tests' part (``tests/integration/test_kafka_batch_produce.py``).
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from streamsql.connectors.kafka.session import ProducerSession

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.types import SqlType


class _Handle:
    """Stands for the session's producer handle: records the partition of each call."""

    def __init__(self):
        self.calls: list[tuple[str, int, bool]] = []

    def produce_many(self, topic, keys, values, partition, timestamps, headers):
        self.calls.append((topic, partition, keys is not None))


def _session(**options: str) -> ProducerSession:
    table = TableDef("snk", [ColumnDef("v", SqlType("STRING"))],
                     {"connector": "kafka", "topic": "t", "format": "json",
                      "sink.delivery-guarantee": "at-least-once", **options})
    s = ProducerSession(ConnectorContext(table, "job", {}), "at-least-once", "Table 'snk' (kafka sink)")
    s.handle = _Handle()
    s._partitions["t"] = 4  # noqa: SLF001  (the topic's partition count, as open() looks it up)
    return s


VALUES = pa.array(['{"v":"a"}', '{"v":"b"}'])


def test_each_batch_without_keys_goes_to_one_partition_in_turn():
    s = _session()
    for _ in range(9):
        s.produce_many(None, VALUES)
    parts = [p for _, p, _ in s.handle.calls]
    assert all(0 <= p < 4 for p in parts)
    assert [(b - a) % 4 for a, b in zip(parts, parts[1:])] == [1] * 8  # every partition in turn


def test_keys_a_chosen_partition_and_librdkafkas_partitioner_keep_their_placement():
    s = _session()
    s.produce_many(pa.array([b"k1", b"k2"]), VALUES)  # by key: librdkafka's murmur2 partitioner
    s.produce_many(None, VALUES, 2)  # 'sink.partitioner' = 'fixed'
    assert s.handle.calls == [("t", -1, True), ("t", 2, False)]


@pytest.mark.parametrize("key", ["properties.sticky.partitioning.linger.ms", "properties.partitioner"])
def test_a_table_naming_librdkafkas_partitioner_keeps_it(key):
    s = _session(**{key: "0" if "linger" in key else "random"})
    s.produce_many(None, VALUES)
    s.produce_many(None, VALUES)
    assert [p for _, p, _ in s.handle.calls] == [-1, -1]
