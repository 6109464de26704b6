"""``'topic-pattern'`` and every ``'scan.bounded.mode'`` on ``upsert-kafka``, against Apache Flink 2.3.

``upsert_bounded_flink.json`` is written by ``scripts/flink_upsert_bounded.py``: the records it
produced into two one-partition topics and, per scenario, the changelog Flink's bounded read gave
(sorted) or Flink's error. The same records go into two fresh topics here; each scenario's table
must give Flink's changelog or be refused with Flink's reason. Both options were refused as
unknown (``topic-pattern``) or not one of 'unbounded', 'latest-offset' (``scan.bounded.mode``).
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError

ORACLE = json.loads((Path(__file__).parent / "upsert_bounded_flink.json").read_text())
SCENARIOS = {s["name"]: s for s in ORACLE["scenarios"]}
T0 = ORACLE["t0"]
#: Flink's message (or, for the two our wording extends, the part of it we keep).
REFUSED = {
    "pattern_specific_offsets_refused": "only supports specific offset for single topic",
    "topic_list_specific_offsets_refused": "only supports specific offset for single topic",
    "timestamp_missing_millis_refused": None,
    "specific_offsets_missing_refused": None,
    "sink_pattern_refused": None,  # Flink fails the job at its first row, StreamSQL at planning
}


@pytest.fixture(scope="module")
def topics(kafka_admin, kafka_bootstrap):
    """Two topics ``<prefix>-a`` / ``-b`` holding the oracle's records, and a group at its offset."""
    from confluent_kafka import Consumer, Producer, TopicPartition
    from confluent_kafka.admin import NewTopic

    prefix = f"upsert-bounded-{uuid.uuid4().hex[:8]}"
    names = {"a": f"{prefix}-a", "b": f"{prefix}-b", "prefix": prefix, "group": f"{prefix}-g",
             "bootstrap": kafka_bootstrap}
    # retention.ms = -1: records timestamped in 2023 would go at the broker's next retention check
    new = [NewTopic(names[t], 1, 1, config={"retention.ms": "-1"}) for t in "ab"]
    for f in kafka_admin.create_topics(new).values():
        f.result(60)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for t in "ab":
        for k, v, dt in ORACLE["records"][t]:
            value = None if v is None else json.dumps({"k": k, "v": v}, separators=(",", ":")).encode()
            key = json.dumps({"k": k}, separators=(",", ":")).encode()
            p.produce(names[t], value, key=key, timestamp=T0 + dt)
    p.flush(30)
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": names["group"],
                  "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(names["a"], 0, ORACLE["group_offset"])], asynchronous=False)
    c.close()
    yield names
    for f in kafka_admin.delete_topics([names["a"], names["b"]], operation_timeout=10).values():
        try:
            f.result(15)
        except Exception:  # noqa: BLE001  (cleanup only)
            pass


def _ddl(s: dict, names: dict) -> str:
    """The scenario's CREATE TABLE, filled in as ``scripts/flink_upsert_bounded.py`` does."""
    text = f"CREATE TABLE u ({ORACLE['columns']}) WITH ({ORACLE['base']}, {s['with']})"
    return text.format(**names, t0_plus_3000=T0 + 3000, t0_plus_1500=T0 + 1500)


def _env(tmp_path):
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                              "restart-strategy.type": "none"})


@pytest.mark.parametrize("name", [n for n, s in SCENARIOS.items() if "rows" in s and "insert" not in s])
def test_bounded_read_gives_flinks_changelog(name, topics, tmp_path):
    s = SCENARIOS[name]
    with _env(tmp_path) as env:
        env.execute_sql(_ddl(s, topics))
        result = env.execute_sql("SELECT k, v FROM u")
        rows = sorted([kind.short, *row] for kind, row in result.collect(timeout=60))
    assert rows == s["rows"]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_as_flink(name, topics, tmp_path):
    s = SCENARIOS[name]
    assert "error" in s, s  # Flink refused it
    statement = s.get("insert", "SELECT k, v FROM u")
    with _env(tmp_path) as env, pytest.raises(ConfigError) as e:
        env.execute_sql(_ddl(s, topics))
        if "source" in s:
            base = ORACLE["base"].format(**topics)
            env.execute_sql(s["source"].format(**topics, columns=ORACLE["columns"], base=base))
        list(env.execute_sql(statement).collect(timeout=60))
    assert (REFUSED[name] or s["error"]) in str(e.value)
