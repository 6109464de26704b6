"""``'key.fields-prefix'`` on ``kafka`` and ``upsert-kafka``, against Apache Flink 2.3's own records.

``key_prefix_flink.json`` is written by ``scripts/flink_key_prefix.py`` (Flink's sink records, the
rows Flink's source read back, Flink's errors). The same statements run here: the kafka sink
writes Flink's records byte for byte; the upsert sink the same last value per key (Flink writes a
record per input row, StreamSQL one per key and batch); reading the topic back gives Flink's rows.
It was refused as an unknown option.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError
from tests.integration.test_flights import read_committed

SCENARIOS = {s["name"]: s for s in json.loads((Path(__file__).parent / "key_prefix_flink.json").read_text())
             ["scenarios"]}


def _env(tmp_path):
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                              "restart-strategy.type": "none"})


def _ddl(s, topic, bootstrap, read=False):
    ddl = s["ddl"].format(topic=topic, bootstrap=bootstrap)
    if read:  # as the script: bounded, from the beginning
        start = ", 'scan.startup.mode' = 'earliest-offset'" if "'kafka'" in s["ddl"] else ""
        ddl = ddl[:-1] + start + ", 'scan.bounded.mode' = 'latest-offset')"
    return ddl


def fold(changelog: list[list]) -> Counter:
    """The final table of ``[kind, *cells]`` rows (+I/+U add a row, -U/-D take it away)."""
    table: Counter = Counter()
    for kind, *row in changelog:
        table[tuple(row)] += 1 if kind in ("+I", "+U") else -1
    return +table


def _write_and_read(s, kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory(s["name"].replace("_", "-"))
    with _env(tmp_path / "w") as env:
        env.execute_sql(_ddl(s, topic, kafka_bootstrap))
        env.execute_sql(s["insert"]).job.wait(60)
    records = [[k.decode(), v.decode()] for k, v in read_committed(kafka_bootstrap, topic)]
    with _env(tmp_path / "r") as env:
        env.execute_sql(_ddl(s, topic, kafka_bootstrap, read=True))
        result = env.execute_sql(s["read"])
        rows = [[kind.short, *row] for kind, row in result.collect(timeout=60)]
    return records, rows


def test_kafka_sink_and_source_with_a_key_prefix(kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SCENARIOS["kafka_sink"]
    records, rows = _write_and_read(s, kafka_bootstrap, kafka_topic_factory, tmp_path)
    assert records == s["records"]
    assert rows == s["rows"]


def test_upsert_kafka_with_a_key_prefix(kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SCENARIOS["upsert_sink"]
    records, rows = _write_and_read(s, kafka_bootstrap, kafka_topic_factory, tmp_path)
    assert dict(records) == dict(s["records"])  # the last value of each key
    assert fold(rows) == fold(s["rows"])


@pytest.mark.parametrize("name", ["prefix_with_all", "key_field_not_prefixed"])
def test_key_prefix_refused_as_flink(name, kafka_bootstrap, tmp_path):
    s = SCENARIOS[name]
    with _env(tmp_path) as env, pytest.raises(ConfigError) as e:
        env.execute_sql(_ddl(s, f"unused-{uuid.uuid4().hex[:6]}", kafka_bootstrap))
        env.execute_sql(s["insert"])
    assert s["error"] in str(e.value)
