"""Per-partition watermarks of the Kafka source, end to end against the real broker.

Flink's Kafka source generates a watermark per partition and emits the minimum, so rows that are
out of order *across* partitions by more than the watermark delay are not late, as long as each
partition is in order within the delay. An idle partition ('scan.watermark.idle-timeout' or
'table.exec.source.idle-timeout') stops holding the watermark back.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import time
from collections import Counter

import duckdb
import pytest
from confluent_kafka import Producer

from tests.runtime.oracle import assert_same, fold, make_env

BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms


def _fmt(ms: int) -> str:
    return (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def produce(bootstrap: str, topic: str, records: list[tuple[int, dict]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for part, value in records:
        p.produce(topic, json.dumps(value).encode(), None, part)
    assert p.flush(30) == 0


def ddl(topic: str, bootstrap: str, extra: str = "", bounded: bool = True) -> str:
    opts = (f"'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
            f"'scan.startup.mode' = 'earliest-offset', 'format' = 'json'")
    if bounded:
        opts += ", 'scan.bounded.mode' = 'latest-offset'"
    return (f"CREATE TABLE ev (id INT, p INT, ts TIMESTAMP(3), "
            f"WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ({opts}{extra})")


TUMBLE = ("SELECT window_start, window_end, COUNT(*) AS n, SUM(id) AS s FROM TABLE(TUMBLE(TABLE ev, "
          "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end")


def skewed_events(seed: int) -> list[tuple[int, dict]]:
    """Partition 0 runs 100 s ahead of partition 1 in event time; each partition is out of
    order by at most 1.5 s (less than the 2 s delay). Partition 0's rows are produced first."""
    rnd = random.Random(seed)
    out = []
    for part, start in ((0, BASE + 100_000), (1, BASE)):
        for i in range(300):
            ts = start + i * 400 - rnd.randint(0, 1500)
            out.append((part, {"id": part * 1000 + i, "p": part, "ts": _fmt(ts)}))
    return out


def duck_expected(events: list[tuple[int, dict]]) -> Counter:
    con = duckdb.connect()
    con.execute("CREATE TABLE ev (id INTEGER, ts TIMESTAMP)")
    con.executemany("INSERT INTO ev VALUES (?, ?)", [(e["id"], e["ts"]) for _, e in events])
    rows = con.execute("SELECT time_bucket(INTERVAL 10 SECOND, ts) AS ws, ws + INTERVAL 10 SECOND, "
                       "COUNT(*), SUM(id) FROM ev GROUP BY ws").fetchall()
    return Counter(tuple(r) for r in rows)


@pytest.mark.parametrize("batch_size", [7, None])
def test_partition_ahead_does_not_make_lagging_partition_late(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                              batch_size):
    topic = kafka_topic_factory("wm-skew", partitions=2)
    events = skewed_events(11)
    produce(kafka_bootstrap, topic, events)
    env = make_env(tmp_path, "hashmap", batch_size)
    env.execute_sql(ddl(topic, kafka_bootstrap))
    res = env.execute_sql(TUMBLE)
    changelog = list(res.collect(timeout=60))
    assert res.job.done
    assert res.job.metrics.get("late_records", 0) == 0
    actual = fold(changelog)
    assert sum(r[2] for r in actual.elements()) == len(events)  # every row counted
    assert_same(actual, duck_expected(events), TUMBLE)


def _wait_rows(res, want: int, timeout: float) -> list:
    got: list = []
    deadline = time.monotonic() + timeout
    while len(got) < want and time.monotonic() < deadline:
        chunk = res.poll(timeout=0.2)
        if chunk is None:
            break
        got += chunk
    return got


@pytest.mark.parametrize("how", ["table-option", "engine-key"])
def test_idle_partition_does_not_block_the_watermark(kafka_bootstrap, kafka_topic_factory, tmp_path, how):
    topic = kafka_topic_factory("wm-idle", partitions=2)
    # only partition 0 has rows: 0 .. 35 s; partition 1 stays empty
    events = [(0, {"id": i, "p": 0, "ts": _fmt(BASE + i * 1000)}) for i in range(36)]
    produce(kafka_bootstrap, topic, events)
    env = make_env(tmp_path)
    if how == "table-option":
        idle = ", 'scan.watermark.idle-timeout' = '300 ms'"
        env.execute_sql(ddl(topic, kafka_bootstrap, idle, bounded=False))
    else:
        env.execute_sql("SET 'table.exec.source.idle-timeout' = '300 ms'")
        env.execute_sql(ddl(topic, kafka_bootstrap, bounded=False))
    res = env.execute_sql(TUMBLE)
    try:
        got = _wait_rows(res, 3, 30)
    finally:
        res.job.cancel()
    # watermark = 35 s - 2 s = 33 s: windows [0,10), [10,20), [20,30) fire, [30,40) does not
    start = dt.datetime(2024, 5, 1)
    assert sorted((row[0] - start).total_seconds() for _, row in got) == [0, 10, 20]
    assert sorted(row[2] for _, row in got) == [10, 10, 10]


def test_empty_partition_blocks_without_idle_timeout(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory("wm-block", partitions=2)
    produce(kafka_bootstrap, topic, [(0, {"id": i, "p": 0, "ts": _fmt(BASE + i * 1000)}) for i in range(36)])
    env = make_env(tmp_path)
    env.execute_sql(ddl(topic, kafka_bootstrap, bounded=False))
    assert "idleTimeout" not in str(env.execute_sql(f"EXPLAIN {TUMBLE}").rows)
    res = env.execute_sql(TUMBLE)
    try:
        got = _wait_rows(res, 1, 3)
    finally:
        res.job.cancel()
    assert got == []  # as Flink: partition 1 has no data yet, so the watermark stays back


def test_bad_idle_timeout_fails_at_planning(kafka_bootstrap, kafka_topic_factory, tmp_path):
    from streamsql.core.errors import StreamSQLError

    topic = kafka_topic_factory("wm-bad", partitions=1)
    env = make_env(tmp_path)
    env.execute_sql(ddl(topic, kafka_bootstrap, ", 'scan.watermark.idle-timeout' = 'soon'"))
    with pytest.raises(StreamSQLError, match="scan.watermark.idle-timeout"):
        env.execute_sql(TUMBLE)
