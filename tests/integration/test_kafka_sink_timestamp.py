"""The Kafka record timestamps (and headers) our kafka / upsert-kafka sinks write are Flink's.

``kafka_timestamp_flink.json`` holds what Flink 2.3 wrote for each scenario
(``scripts/flink_kafka_timestamp.py``): the time of sending unless the sink declares a
``METADATA FROM 'timestamp'`` column (rowtime in the input or not), that column's instant when it
does (NULL: the time of sending), headers from a ``headers`` column, and Flink's error for a
metadata key a sink cannot write. Each scenario runs here over the same source records (five JSON
records with CreateTime 1700000000000 + 1000 i) and must write the same records: key, value,
timestamp type and timestamp (``"now"``: within the run) — except the instant 1970-01-01
00:00:00.000, which Flink writes (CreateTime 0) and StreamSQL refuses (:data:`REFUSED`).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

_FLINK = json.loads(Path(__file__).with_name("kafka_timestamp_flink.json").read_text("utf-8"))
SCENARIOS = {s["name"]: s for s in _FLINK["scenarios"]}
#: Where StreamSQL refuses what Flink writes: a record timestamp of exactly 1970-01-01 00:00:00.000
#: (Flink: CreateTime 0), which librdkafka cannot write (it reads 0 as "the time of sending").
REFUSED = {"kafka_metadata_epoch": "cannot write the record timestamp 1970-01-01 00:00:00.000 (epoch 0)",
           "upsert_metadata_epoch": "cannot write the record timestamp 1970-01-01 00:00:00.000 (epoch 0)"}


def _dump(bootstrap: str, topic: str) -> list[list]:
    """The records a read_committed reader sees in partition 0 *now*, to the partition's end.

    Read at once after the job: a finished job's records must already be visible (the last
    commit of an exactly-once job waits for its transaction's markers). The end is librdkafka's
    partition EOF: counting messages against the offsets waited 30 s for every transactional topic,
    whose commit marker takes an offset but is never a message.
    """
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dump", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    try:
        c.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        out: list[list] = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            m = c.poll(1)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    return out
                continue
            k, v = m.key(), m.value()
            rec = [None if k is None else k.decode(), None if v is None else v.decode(), *m.timestamp()]
            if m.headers():
                rec.append([[hk, None if hv is None else hv.decode()] for hk, hv in m.headers()])
            out.append(rec)
        msg = f"{topic}: no end of partition within 30 s; read {out}"
        raise AssertionError(msg)
    finally:
        c.close()


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_sink_record_timestamps_are_flinks(name, kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SCENARIOS[name]
    # The records carry 2023 timestamps: under the broker's 24 h retention, its periodic check
    # (every 5 min) could delete them before they are read, so these topics keep everything.
    keep = {"retention.ms": "-1"}
    src, dst = kafka_topic_factory("ts-src", config=keep), kafka_topic_factory("ts-dst", config=keep)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
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
    if "error" in s or name in REFUSED:
        with pytest.raises(StreamSQLError) as e:
            env.execute_sql(f"INSERT INTO snk {s['insert']}").job.wait()
        if name in REFUSED:
            assert [0, 1, 2, 3, 4] == sorted(r[3] for r in s["records"])  # Flink wrote CreateTime 0 .. 4
        # a refused metadata key points at it in the CREATE TABLE: the message is the error's own
        assert s.get("error", REFUSED.get(name)) in getattr(e.value, "message", str(e.value))
        return
    env.execute_sql(f"INSERT INTO snk {s['insert']}").job.wait()
    end = int(time.time() * 1000)
    got = _dump(kafka_bootstrap, dst)
    for r in got:
        if start <= r[3] <= end and r[3] not in {x[3] for x in s["records"]}:
            r[3] = "now"
    assert sorted(got, key=repr) == sorted(s["records"], key=repr)  # upsert: keys in any order


#: The parallel case: a stateless job of one stage whose two tasks both write the sink (each its
#: own transaction), so the job's end deletes no exchange topic first (that took long enough to
#: hide the markers' delay).
PARALLEL = {"sink": "id INT, v STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'",
            "with": ("WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
                     "'{bootstrap}', 'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')"),
            "insert": "SELECT id, v, ts FROM src"}


@pytest.mark.parametrize("parallelism", [1, 2])
def test_a_finished_exactly_once_job_is_visible_at_once(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                        parallelism):
    """When ``wait()`` returns, a read_committed reader sees the job's last transaction(s).

    ``commit_transaction()`` returns before the broker writes the COMMIT marker into the
    partition; until then the partition's last stable offset (a read_committed reader's end)
    stays below the records. Records timestamped years ago make the marker's append roll the
    segment (older than ``log.roll.hours``), tens of ms later: ``upsert_metadata`` above read an
    empty topic in the clean-clone CI so. Here the readers are connected before the jobs end, so
    they ask at once; 5 jobs (without the wait for the markers, 2 or 3 of the 5 were behind in
    each of 3 runs). A parallel job waits once every task committed (a task's last commit does
    not: a sibling's open transaction would hold it back). The parallel case passed without that
    wait too (0 of 45 jobs behind, against 9 of 16 single-process jobs without theirs: the first
    task's marker rolls the segment, the last one's is quick), but nothing made it so.
    """
    keep = {"retention.ms": "-1"}
    src = kafka_topic_factory("vis-src", parallelism, config=keep)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i, rec in enumerate(_FLINK["source"]):
        p.produce(src, json.dumps(rec, separators=(",", ":")).encode(), timestamp=_FLINK["t0"] + 1000 * i,
                  partition=i % parallelism)
    p.flush(30)
    readers = {lv: Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": "vis", "isolation.level": lv})
               for lv in ("read_committed", "read_uncommitted")}
    env = StreamEnvironment({"state.backend.type": "hashmap", "parallelism.default": str(parallelism),
                             "execution.checkpointing.dir": str(tmp_path / "cp")})
    env.execute_sql(_FLINK["source_ddl"].format(name="src", wm="", src=src, bootstrap=kafka_bootstrap))
    s = SCENARIOS["upsert_metadata"] if parallelism == 1 else PARALLEL
    behind = []
    try:
        for i in range(5):
            dst = kafka_topic_factory("vis-dst", config=keep)
            tp = TopicPartition(dst, 0)
            for c in readers.values():
                c.get_watermark_offsets(tp, timeout=10, cached=False)  # connected, metadata known
            with_ = s["with"].format(topic=dst, bootstrap=kafka_bootstrap)
            env.execute_sql(f"CREATE TABLE snk{i} ({s['sink']}) {with_}")
            env.execute_sql(f"INSERT INTO snk{i} {s['insert']}").job.wait()
            ends = {lv: c.get_watermark_offsets(tp, timeout=10, cached=False)[1] for lv, c in readers.items()}
            if ends["read_committed"] != ends["read_uncommitted"]:
                behind.append((i, ends))
    finally:
        for c in readers.values():
            c.close()
    assert behind == [], behind
