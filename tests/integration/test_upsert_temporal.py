"""A versioned table written through ``upsert-kafka`` and read back by a temporal join, against Flink 2.3.

``upsert_temporal_flink.json`` is written by ``scripts/flink_upsert_temporal.py``: the statements,
and per scenario the records Flink's sink left in the rates topic and the temporal join's rows.
One INSERT writes 7 changes of the key ``EUR`` (hourly rates 100..106 from 00:00) and 2 of ``USD``
(50 at 00:00, 51 at 03:00); orders at ``EUR`` hh:30 and ``USD`` 01:00 / 04:00 join the version
valid at their time. Without ``'sink.buffer-flush.*'`` Flink writes every change (9 records, 9
rows: order i → 100 + i, 10 → 50, 11 → 51); StreamSQL compacted the epoch to each key's last
change (2 records), so the join found 2 rows. With both options (``buffered``) Flink too keeps
each key's last change: 2 records, 2 rows (order 6 → 106, 11 → 51).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from confluent_kafka import Consumer, TopicPartition

from streamsql import StreamEnvironment

ORACLE = json.loads((Path(__file__).parent / "upsert_temporal_flink.json").read_text())


def _records(bootstrap: str, topic: str) -> list[list]:
    """Every committed record of a one-partition topic, ``[key, value or None]`` (as the script reads)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "r", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        out = []
        while True:
            m = c.poll(10)
            if m is None or m.error():
                return out
            out.append([m.key().decode(), None if m.value() is None else m.value().decode()])
    finally:
        c.close()


@pytest.mark.parametrize("name", sorted(ORACLE["scenarios"]))
def test_versions_written_through_upsert_kafka_join_as_in_flink(name, kafka_bootstrap, kafka_topic_factory,
                                                                tmp_path):
    s = ORACLE["scenarios"][name]
    names = {"rates": kafka_topic_factory("upsert29-rates"), "orders": kafka_topic_factory("upsert29-orders"),
             "bootstrap": kafka_bootstrap, "buffer": s["buffer"]}
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                            "restart-strategy.type": "none"}) as env:
        for d in ORACLE["ddl"]:
            env.execute_sql(d.format(**names))
        for i in ORACLE["inserts"]:
            env.execute_sql(i).wait(120)
        records = _records(kafka_bootstrap, names["rates"])
        rows = sorted(list(row) for _, row in env.execute_sql(ORACLE["query"]).collect(timeout=120))
    # Flink's reducing buffer is a HashMap: the order across keys is its own, per key it is kept
    assert sorted(records) == sorted(s["records"]) and [r for r in records if "EUR" in r[0]] == [
        r for r in s["records"] if "EUR" in r[0]]
    assert rows == s["rows"]
