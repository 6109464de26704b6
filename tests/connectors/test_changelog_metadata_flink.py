"""The ``debezium-json`` and ``ogg-json`` metadata columns through real Kafka, as Flink 2.3.

Both formats' keys were refused (``value.source.table`` ...: unknown metadata key).
``changelog_metadata_flink.json`` holds the messages and what Flink 2.3 read from them with every
metadata column of the format (rows with their kinds, the metadata as text, or its error),
recorded by ``scripts/flink_changelog_metadata.py``; each test produces the same messages into a
topic of its own and runs the same SQL here.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from confluent_kafka import Producer

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

FLINK = json.loads((Path(__file__).parent / "changelog_metadata_flink.json").read_text())["cases"]
#: Per failing case: what our error and Flink's both say about the first message.
REASONS = {
    "debezium_bad": ('For input string: "soon"',) * 2,
    "ogg_bad": ("Text '2023-11-14T22:13:20.123456' could not be parsed",) * 2,
}


def _options(bootstrap: str, topic: str, fmt: str, extra: dict) -> str:
    opts = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": bootstrap, "format": fmt,
            "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset", **extra}
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def _plain(v):
    return str(v) if isinstance(v, Decimal) else v


@pytest.mark.parametrize("case", list(FLINK))
def test_metadata_as_flink(case, kafka_bootstrap, kafka_topic_factory, tmp_path):
    spec = FLINK[case]
    topic = kafka_topic_factory(f"registry36-{case.replace('_', '-')}")
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for m in spec["messages"]:
        p.produce(topic, json.dumps(m).encode())
    p.flush(30)
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
    query = spec["query"].replace(spec["query"].split(" FROM ")[-1], "src")
    env.execute_sql(f"CREATE TABLE src ({', '.join(spec['columns'])}) WITH "
                    f"({_options(kafka_bootstrap, topic, spec['format'], spec['options'])})")
    try:
        if "error" in spec:
            with pytest.raises(StreamSQLError) as e:
                list(env.execute_sql(query).collect())
            text = str(e.value)  # the first message fails, as in Flink, for the same reason
            assert f"{topic}[0]@0" in text and f"'{spec['format']}.ignore-parse-errors'" in text, text
            ours, flinks = REASONS[case]
            assert ours in text and flinks in spec["error"], (text, spec["error"])
        else:
            rows = [[k.short, *map(_plain, r)] for k, r in env.execute_sql(query).collect()]
            assert rows == spec["rows"]
    finally:
        env.close()
