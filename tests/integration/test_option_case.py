"""Kafka options in any case, as Flink 2.3 reads its enum and boolean options: a source with
``'scan.startup.mode' = 'EARLIEST-OFFSET'`` and ``'scan.bounded.mode' = 'LATEST-OFFSET'`` reads
the whole topic and ends (the values were refused, and once accepted, the reader compared them with
the lower-case names)."""

from __future__ import annotations

import orjson
from confluent_kafka import Producer

from streamsql import StreamEnvironment


def test_kafka_enum_options_in_capitals_read_the_topic(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory("optcase", 2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(50):
        p.produce(topic, orjson.dumps({"id": i}), partition=i % 2)
    p.flush(30)
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp"),
                            "state.dir": str(tmp_path / "state")}) as env:
        env.execute_sql(f"CREATE TABLE src (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                        "'scan.startup.mode' = 'EARLIEST-OFFSET', 'scan.bounded.mode' = 'Latest-Offset', "
                        "'json.ignore-parse-errors' = 'FALSE')")
        ids = sorted(row[0] for _, row in env.execute_sql("SELECT id FROM src").collect())
    assert ids == list(range(50))
