"""A Kafka source's ``headers`` and ``leader-epoch`` metadata columns read as Flink 2.3 reads them.

A newcomer's table with ``hdr MAP<STRING, BYTES> METADATA FROM 'headers'`` was refused (``reads
unknown key 'headers'; Kafka provides: topic, partition, offset, timestamp, timestamp-type``),
though Flink's Kafka source reads it (and ``leader-epoch``) and StreamSQL's sink writes it. Flink's
rows are in ``kafka_read_metadata_flink.json``, written by ``scripts/flink_kafka_read_metadata.py``.
"""

from __future__ import annotations

import json
from pathlib import Path

from confluent_kafka import Producer

from streamsql import StreamEnvironment

FLINK = json.loads((Path(__file__).parent / "kafka_read_metadata_flink.json").read_text())


def test_headers_and_leader_epoch_as_flink(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory("read-metadata")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for value, headers in FLINK["records"]:
        p.produce(topic, json.dumps(value).encode(),
                  headers=[(k, None if v is None else v.encode()) for k, v in headers])
    p.flush(30)
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql(
        "CREATE TABLE src (id INT, hdr MAP<STRING, BYTES> METADATA FROM 'headers', "
        "le INT METADATA FROM 'leader-epoch' VIRTUAL) WITH ('connector' = 'kafka', "
        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')")
    rows = sorted((list(row) for _, row in env.execute_sql(FLINK["query"]).collect()), key=lambda r: r[0])
    env.close()
    assert rows == FLINK["rows"]
