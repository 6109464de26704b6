"""A Kafka source's fetch and Python's garbage collector, real broker.

consume() creates a GC-tracked ``Message`` per record (~10,000 per batch) with the collector
paused (:func:`streamsql.connectors.kafka.reader.gc_paused`). Handed back to the caller after
the pause, they made the next allocation run a young collection over all of them, every batch (4 %
of a Q0 profile's samples). ``ReaderSource.fetch`` takes what the decode needs and drops them
inside the pause, so their reference counts free them and a fetch causes no collection.
"""

from __future__ import annotations

import gc
import time

from confluent_kafka import Producer
from streamsql.connectors.kafka import KafkaSource

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.types import SqlType


def test_a_fetch_frees_its_messages_before_the_collector_resumes(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("fetch-gc", partitions=1)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(3_000):
        p.produce(topic, b'{"id":%d}' % i)
    assert p.flush(30) == 0
    table = TableDef("src", [ColumnDef("id", SqlType.parse("INT"))], {
        "connector": "kafka", "topic": topic, "properties.bootstrap.servers": kafka_bootstrap,
        "format": "json", "scan.startup.mode": "earliest-offset"})
    src = KafkaSource(ConnectorContext(table, "job", {}))
    src.open(None)
    collections: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            collections.append(info["generation"])

    was = gc.isenabled()
    gc.enable()
    try:
        first = src.fetch(1, 10.0)  # waits for the first fetch; librdkafka queues the rest
        assert first is not None
        time.sleep(1.0)
        gc.collect()
        gc.callbacks.append(note)
        try:
            fetched = src.fetch(10_000, 0.0)  # what is queued, inside the pause
            garbage = [[] for _ in range(100)]  # allocations after the pause
        finally:
            gc.callbacks.remove(note)
        assert fetched is not None and len(fetched.values) > 1_000
        assert garbage and collections == []
    finally:
        if not was:
            gc.disable()
        src.close()
