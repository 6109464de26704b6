"""Grouping sets through Kafka at parallelism 2, stopped WITH SAVEPOINT and restored: a ROLLUP into an
upsert-kafka table and a window ROLLUP into an exactly-once Kafka topic equal DuckDB's answer over
every record. The set number ``$e`` is part of the aggregate's key, so it must hash, split and
restore with the other keys; NULL data keys (k NULL in some records) stay apart from the rolled-up
NULLs (GROUPING_ID tells them apart in the sink's key)."""

from __future__ import annotations

import time
import uuid
from collections import Counter

import pytest

from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _rows, _upserts
from tests.integration.test_parallel_savepoint import savepoint_settings

JOB = """EXECUTE STATEMENT SET BEGIN
INSERT INTO agg SELECT COALESCE(k, -1), COALESCE(v % 3, -9), GROUPING_ID(k, v % 3), COUNT(*), SUM(v)
  FROM src GROUP BY ROLLUP (k, v % 3) ON CONFLICT DO DEDUPLICATE;
INSERT INTO win SELECT window_start, k, GROUPING(k), COUNT(*), MAX(v)
  FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
  GROUP BY window_start, window_end, ROLLUP (k);
END"""
AGG = ["k", "r", "gid", "c", "s"]
WIN = ["ws", "k", "gk", "c", "m"]


def _env(tmp_path, name: str, bootstrap: str, topics: dict, bounded: bool, backend: str,
         savepoint: str | None = None) -> StreamEnvironment:
    env = StreamEnvironment(savepoint_settings(tmp_path, name, 2, savepoint,
                                               **{"state.backend.type": backend}))
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
        'connector' = 'kafka', 'topic' = '{topics["src"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE agg (k INT, r INT, gid BIGINT, c BIGINT, s BIGINT,
        PRIMARY KEY (k, r, gid) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topics["agg"]}',
        'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json', 'value.format' = 'json')""")
    env.execute_sql(f"""CREATE TABLE win (ws TIMESTAMP(3), k INT, gk BIGINT, c BIGINT, m INT) WITH (
        'connector' = 'kafka', 'topic' = '{topics["win"]}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    return env


def _agg(rows: list[dict]) -> Counter:
    return Counter(_duck("SELECT COALESCE(k, -1), COALESCE(v % 3, -9), GROUPING(k, v % 3), COUNT(*), SUM(v) "
                         "FROM src GROUP BY ROLLUP (k, v % 3)", src=rows))


def _win(rows: list[dict]) -> Counter:
    return Counter((ws.strftime("%Y-%m-%d %H:%M:%S"), k, g, c, m) for ws, k, g, c, m in _duck(
        "SELECT date_trunc('minute', ts) AS ws, k, GROUPING(k), COUNT(*), MAX(v) FROM src "
        "GROUP BY ROLLUP (date_trunc('minute', ts), k) HAVING GROUPING(date_trunc('minute', ts)) = 0",
        src=rows))


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_rollups_through_kafka_at_parallelism_two_and_a_savepoint(kafka_bootstrap, kafka_topic_factory,
                                                                   tmp_path, backend):
    topics = {"src": kafka_topic_factory("gs_src", PARTITIONS), "agg": kafka_topic_factory("gs_agg"),
              "win": kafka_topic_factory("gs_win")}
    rows = _rows(19, 4000)
    for r in rows[::17]:
        r["k"] = None  # data NULLs next to the rolled-up ones
    first, second = rows[:2000], rows[2000:]
    _load(kafka_bootstrap, topics["src"], first)
    name = f"gs-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path, name, kafka_bootstrap, topics, bounded=False, backend=backend)
    job = env.execute_sql(JOB).job
    deadline, agg_first = time.monotonic() + 120, _agg(first)
    while _upserts(kafka_bootstrap, topics["agg"], AGG) != agg_first:  # the first half is in
        assert time.monotonic() < deadline and not job.done, "the job did not produce the first half"
        time.sleep(0.5)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]

    _load(kafka_bootstrap, topics["src"], second)
    env = _env(tmp_path, name, kafka_bootstrap, topics, bounded=True, backend=backend, savepoint=savepoint)
    assert env.execute_sql(JOB).job.wait(180) == "FINISHED"
    assert _upserts(kafka_bootstrap, topics["agg"], AGG) == _agg(rows)
    got = Counter((ws.replace("T", " ")[:19], k, g, c, m)
                  for ws, k, g, c, m in _appends(kafka_bootstrap, topics["win"], WIN))
    assert got == _win(rows)  # one row per window and set, none lost, none twice
