"""``WATERMARK FOR ts AS SOURCE_WATERMARK()`` as Flink 2.3 (``tests/sql/flink_source_watermark.json``).

Recorded by ``scripts/flink_source_watermark.py``: for datagen, filesystem and Kafka tables Flink
accepts the CREATE TABLE and the EXPLAIN, and a job reading the table fails with
``SourceWatermarkFunction``'s message (none of them implements ``SupportsSourceWatermark``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from confluent_kafka import Producer

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

FLINK = json.loads((Path(__file__).parent / "flink_source_watermark.json").read_text())


@pytest.mark.parametrize("connector", ["datagen", "filesystem", "kafka"])
def test_source_watermark_as_flink(connector, tmp_path, kafka_bootstrap, kafka_topic_factory):
    steps = [s for s in FLINK["steps"] if f"'connector' = '{connector}'" in s["statement"]]
    name = steps[0]["statement"].split()[2]
    reads = re.compile(rf"\b(FROM|TABLE\() {name}\b|TABLE\(TABLE {name}\b")
    steps += [s for s in FLINK["steps"] if reads.search(s["statement"])]
    records = "".join(json.dumps(r) + "\n" for r in FLINK["records"])
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.json").write_text(records)
    topic = kafka_topic_factory("funcs32-source-watermark")
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for r in FLINK["records"]:
        p.produce(topic, json.dumps(r).encode())
    p.flush(30)
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "table.local-time-zone": "UTC"})
    try:
        for step in steps:
            sql = re.sub(r"'topic' = '[^']*'", f"'topic' = '{topic}'", step["statement"])
            sql = sql.replace("/tmp/funcs32_sw", str(tmp_path / "in"))
            sql = sql.replace("127.0.0.1:9092", kafka_bootstrap)
            if step["flink"] == "error":
                message = step["flink_error"].split(" / ")[-1]
                with pytest.raises(StreamSQLError) as e:
                    list(env.execute_sql(sql))
                assert message in str(e.value)
                continue
            result = env.execute_sql(sql)
            if sql.startswith("EXPLAIN"):
                assert "watermark=[SOURCE_WATERMARK()]" in result.message
    finally:
        env.close()
