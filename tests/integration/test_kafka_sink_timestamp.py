"""The Kafka record timestamps (and headers) our kafka / upsert-kafka sinks write are Flink's.

``kafka_timestamp_flink.json`` holds what Flink 2.3 wrote for each scenario
(``scripts/flink_kafka_timestamp.py``): the time of sending unless the sink declares a
``METADATA FROM 'timestamp'`` column (rowtime in the input or not), that column's instant when it
does (NULL: the time of sending), headers from a ``headers`` column, and Flink's error for a
metadata key a sink cannot write. Each scenario runs here over the same source records (five JSON
records with CreateTime 1700000000000 + 1000 i) and must write the same records: key, value,
timestamp type and timestamp (``"now"``: within the run).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

_FLINK = json.loads(Path(__file__).with_name("kafka_timestamp_flink.json").read_text("utf-8"))
SCENARIOS = {s["name"]: s for s in _FLINK["scenarios"]}


def _dump(bootstrap: str, topic: str) -> list[list]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dump", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    try:
        lo, hi = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
        c.assign([TopicPartition(topic, 0, lo)])
        out: list[list] = []
        deadline = time.monotonic() + 30
        while len(out) < hi - lo and time.monotonic() < deadline:
            m = c.poll(1)
            if m is None or m.error():
                continue
            k, v = m.key(), m.value()
            rec = [None if k is None else k.decode(), None if v is None else v.decode(), *m.timestamp()]
            if m.headers():
                rec.append([[hk, None if hv is None else hv.decode()] for hk, hv in m.headers()])
            out.append(rec)
        return out
    finally:
        c.close()


@pytest.mark.parametrize("name", [
    pytest.param(n, marks=pytest.mark.xfail(reason="read an empty topic in the clean-clone CI at "
                 "eaa5be1 and dc002d6, passes against the dev broker: not yet understood", strict=False))
    if n == "upsert_metadata" else n for n in sorted(SCENARIOS)])
def test_sink_record_timestamps_are_flinks(name, kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SCENARIOS[name]
    # The records carry 2023 timestamps: under the broker's 24 h retention, its periodic check
    # (every 5 min) could delete them before they are read, so these topics keep everything.
    keep = {"retention.ms": "-1"}
    src, dst = kafka_topic_factory("ts-src", config=keep), kafka_topic_factory("ts-dst", config=keep)
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for i, rec in enumerate(_FLINK["source"]):
        p.produce(src, json.dumps(rec, separators=(",", ":")).encode(), timestamp=_FLINK["t0"] + 1000 * i)
    p.flush(30)
    env = StreamEnvironment({"state.backend.type": "hashmap", "table.local-time-zone": "UTC",
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    ddl = _FLINK["source_ddl"]
    env.execute_sql(ddl.format(name="src", wm=", WATERMARK FOR ts AS ts", src=src, bootstrap=kafka_bootstrap))
    env.execute_sql(ddl.format(name="src_plain", wm="", src=src, bootstrap=kafka_bootstrap))
    with_ = s["with"].format(topic=dst, bootstrap=kafka_bootstrap)
    env.execute_sql(f"CREATE TABLE snk ({s['sink']}) {with_}")
    start = int(time.time() * 1000)
    if "error" in s:
        with pytest.raises(StreamSQLError) as e:
            env.execute_sql(f"INSERT INTO snk {s['insert']}").job.wait()
        assert s["error"] in str(e.value)
        return
    env.execute_sql(f"INSERT INTO snk {s['insert']}").job.wait()
    end = int(time.time() * 1000)
    got = _dump(kafka_bootstrap, dst)
    for r in got:
        if start <= r[3] <= end and r[3] not in {x[3] for x in s["records"]}:
            r[3] = "now"
    assert sorted(got, key=repr) == sorted(s["records"], key=repr)  # upsert: keys in any order
