"""Rescale 2 -> 3 -> 1 through savepoints of a job with an append (exactly-once ``kafka``) sink.

A TUMBLE window aggregate keeps its pending windows in keyed state: each savepoint splits (2 -> 3)
or merges (3 -> 1) them by key group while a third of the input arrives between the runs. The
committed rows, read as a multiset (an append sink shows a duplicate as a second row), equal
DuckDB's GROUP BY over every record: no window lost, none emitted twice, none split in two.
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _rows
from tests.integration.test_parallel_savepoint import savepoint_settings

JOB = """INSERT INTO out_t SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(
  TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '30' SECOND)) GROUP BY k, window_start, window_end"""
COLUMNS = ["k", "ws", "n", "s"]
EXPECTED = """SELECT k, strftime(time_bucket(INTERVAL 30 SECOND, ts), '%Y-%m-%d %H:%M:%S') AS ws, COUNT(*),
  SUM(v) FROM src GROUP BY ALL"""


def _env(tmp_path, name: str, parallelism: int, bootstrap: str, topics: dict, bounded: bool,
         savepoint: str | None) -> StreamEnvironment:
    env = StreamEnvironment(savepoint_settings(tmp_path, name, parallelism, savepoint))
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
        'connector' = 'kafka', 'topic' = '{topics["src"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE out_t (k INT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH (
        'connector' = 'kafka', 'topic' = '{topics["out"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    return env


def _committed(bootstrap: str, topic: str) -> Counter:
    return Counter((k, ws[:19].replace("T", " "), n, s) for k, ws, n, s in _appends(bootstrap, topic, COLUMNS)
                   .elements())


def _fired(rows: list[dict]) -> Counter:
    """The windows a run over ``rows`` has fired: those whose end - 1 ms the watermark reached (the
    lowest of the partitions' newest ts, less 1 s; each partition is in ts order)."""
    newest = {}
    for r in rows:
        newest[r["id"] % PARTITIONS] = max(newest.get(r["id"] % PARTITIONS, ""), r["ts"])
    watermark = min(newest.values())
    return Counter(_duck(f"""SELECT * FROM ({EXPECTED}) WHERE CAST(ws AS TIMESTAMP) + INTERVAL 30 SECOND
        <= TIMESTAMP '{watermark}' - INTERVAL 1 SECOND + INTERVAL 1 MILLISECOND""", src=rows))


def _run_until_fired(tmp_path, name, parallelism, bootstrap, topics, rows, savepoint):
    """The job at ``parallelism`` (from ``savepoint``) until the windows of ``rows`` it can fire are
    committed; then STOP WITH SAVEPOINT: the savepoint's folder."""
    env = _env(tmp_path, name, parallelism, bootstrap, topics, bounded=False, savepoint=savepoint)
    job = env.execute_sql(JOB).job
    want = _fired(rows)
    deadline = time.monotonic() + 120
    while (got := _committed(bootstrap, topics["out"])) != want:
        assert not (got - want), f"rows no run over these records gives: {sorted(got - want)[:5]}"
        assert time.monotonic() < deadline and not job.done, f"missing {sorted(want - got)[:5]} ({job.error})"
        time.sleep(0.5)
    return env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]


def test_append_window_aggregate_rescaled_two_three_one(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topics = {"src": kafka_topic_factory("rsa_src", PARTITIONS), "out": kafka_topic_factory("rsa_out")}
    rows = _rows(34, 6000)
    name = f"rsa-{uuid.uuid4().hex[:8]}"
    _load(kafka_bootstrap, topics["src"], rows[:2000])
    savepoint = _run_until_fired(tmp_path, name, 2, kafka_bootstrap, topics, rows[:2000], None)
    _load(kafka_bootstrap, topics["src"], rows[2000:4000])
    savepoint = _run_until_fired(tmp_path, name, 3, kafka_bootstrap, topics, rows[:4000], savepoint)
    _load(kafka_bootstrap, topics["src"], rows[4000:])
    env = _env(tmp_path, name, 1, kafka_bootstrap, topics, bounded=True, savepoint=savepoint)
    job = env.execute_sql(JOB).job
    assert job.wait(180) == "FINISHED", job.error
    assert _committed(kafka_bootstrap, topics["out"]) == Counter(_duck(EXPECTED, src=rows))
