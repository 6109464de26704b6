"""INSERT ... VALUES against the real broker: every sink, bounded jobs that finish, exactly-once.

A job whose only sources are VALUES is bounded (Flink's Values): it finishes through the embedding
API and ``streamsql run``; its Values source's position is part of each checkpoint, so a job killed
with ``kill -9`` (fault injection) and run again neither loses nor repeats a row; next to an
unbounded Kafka source the VALUES side ends and the job goes on.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import orjson
from confluent_kafka import Producer

from streamsql.core.faults import reset_counts
from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import fold_upserts, read_committed

ROWS = [(1, "a", "1.5"), (2, "bb", "2.25"), (3, "ccc", None)]
#: A Kafka sink writes in transactions committed with each checkpoint only when told (Flink's default
#: is at-least-once): without it a restore writes the rows after the checkpoint again, as it should.
EXACTLY_ONCE = "'sink.delivery-guarantee' = 'exactly-once'"
VALUES = "(1, 'a', 1.5), (2, 'bb', 2.25), (3, 'ccc', CAST(NULL AS DECIMAL(10, 2)))"


def _kafka(bootstrap, topic, extra=""):
    return (f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}'{extra}")


def _values(records):
    return [orjson.loads(v) for _, v in records]


def test_insert_values_into_kafka_upsert_kafka_and_filesystem(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                               monkeypatch):
    monkeypatch.chdir(tmp_path)
    plain, upsert = kafka_topic_factory("values_kafka"), kafka_topic_factory("values_upsert")
    env = StreamEnvironment({"execution.checkpointing.interval": "1 s"})
    env.execute_sql(f"CREATE TABLE k (id BIGINT, name VARCHAR(2), d DECIMAL(10, 2)) WITH ("
                    f"'connector' = 'kafka', {_kafka(kafka_bootstrap, plain)}, 'format' = 'json')")
    env.execute_sql(f"CREATE TABLE u (id INT, name STRING, d DOUBLE, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                    f"'connector' = 'upsert-kafka', {_kafka(kafka_bootstrap, upsert)}, "
                    "'key.format' = 'json', 'value.format' = 'json')")
    env.execute_sql(f"CREATE TABLE f (id INT, name STRING, d DECIMAL(10, 2)) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{tmp_path}/out.json', 'format' = 'json')")
    # Flink 2.3 refuses an insert-only query into an upsert sink without ON CONFLICT (no upsert key)
    upserts = ("INSERT INTO u (name, id, d) VALUES ('x', 1, 1), ('y', 2, 2.5), ('z', 1, 3) "
               "ON CONFLICT DO DEDUPLICATE")
    for sql in (f"INSERT INTO k VALUES {VALUES}", upserts, f"INSERT INTO f VALUES {VALUES}"):
        assert env.execute_sql(sql).wait(120) == "FINISHED", sql
    env.close()
    assert sorted(_values(read_committed(kafka_bootstrap, plain)), key=lambda r: r["id"]) == [
        {"id": 1, "name": "a", "d": 1.5}, {"id": 2, "name": "bb", "d": 2.25},
        {"id": 3, "name": "cc", "d": None}]
    assert fold_upserts(read_committed(kafka_bootstrap, upsert)) == {
        (1,): {"id": 1, "name": "z", "d": 3.0}, (2,): {"id": 2, "name": "y", "d": 2.5}}
    rows = [json.loads(line) for line in (tmp_path / "out.json").read_text().splitlines()]
    assert sorted(rows, key=lambda r: r["id"]) == [
        {"id": 1, "name": "a", "d": 1.5}, {"id": 2, "name": "bb", "d": 2.25},
        {"id": 3, "name": "ccc", "d": None}]


def test_streamsql_run_of_a_values_script_finishes(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory("values_run")
    script = tmp_path / "script.sql"
    script.write_text(f"CREATE TABLE k (id INT, name STRING) WITH ('connector' = 'kafka', "
                      f"{_kafka(kafka_bootstrap, topic)}, 'format' = 'json');\n"
                      "INSERT INTO k SELECT 1, 'x';\nINSERT INTO k (name, id) VALUES ('y', 2), ('z', 3);\n")
    p = subprocess.run([sys.executable, "-m", "streamsql", "run", str(script)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=180)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stderr.count("FINISHED") == 2, p.stderr
    assert sorted(r["id"] for r in _values(read_committed(kafka_bootstrap, topic))) == [1, 2, 3]


def _crash_script(tmp_path, bootstrap, topic, n):
    rows = ", ".join(f"({i}, 'row {i}')" for i in range(n))
    script = tmp_path / "crash.sql"
    script.write_text("SET 'execution.checkpointing.interval' = '100 ms';\n"
                      "SET 'execution.batch-size' = '7';\n"
                      f"CREATE TABLE k (id INT, name STRING) WITH ('connector' = 'kafka', "
                      f"{_kafka(bootstrap, topic)}, 'format' = 'json', {EXACTLY_ONCE});\n"
                      f"INSERT INTO k SELECT id, name FROM (VALUES {rows}) AS v(id, name) WHERE id >= 0;\n")
    return script


def test_values_job_killed_and_rerun_neither_loses_nor_repeats_a_row(kafka_bootstrap, kafka_topic_factory,
                                                                    tmp_path):
    n = 700
    topic = kafka_topic_factory("values_crash")
    script = _crash_script(tmp_path, kafka_bootstrap, topic, n)
    command = [sys.executable, "-m", "streamsql", "run", str(script)]
    # the second checkpoint: the final one if the job is quick (a loaded CI run finished 700 rows in
    # two), so the kill always comes with one checkpoint committed and the last rows not yet
    env = {**os.environ, "STREAMSQL_FAULT": "after_snapshot_before_commit:2"}
    first = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=180, env=env)
    assert first.returncode == 137, first.stdout + first.stderr
    before = sorted(r["id"] for r in _values(read_committed(kafka_bootstrap, topic)))
    assert 0 < len(before) < n, f"the crash should come mid-way: {len(before)} of {n} rows committed"
    second = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=180)
    assert second.returncode == 0, second.stdout + second.stderr
    after = sorted(r["id"] for r in _values(read_committed(kafka_bootstrap, topic)))
    assert after == list(range(n))  # every row once: none lost, none repeated


def test_in_process_restart_resumes_the_values_source(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "after_snapshot_before_commit:2")
    reset_counts()
    n = 700
    topic = kafka_topic_factory("values_restart")
    env = StreamEnvironment({"restart-strategy.type": "fixed-delay",
                             "restart-strategy.fixed-delay.delay": "100 ms",
                             "execution.checkpointing.interval": "100 ms", "execution.batch-size": "7",
                             "pipeline.name": f"values-restart-{uuid.uuid4().hex[:6]}"})
    env.execute_sql(f"CREATE TABLE k (id INT) WITH ('connector' = 'kafka', {_kafka(kafka_bootstrap, topic)}, "
                    f"'format' = 'json', {EXACTLY_ONCE})")
    job = env.execute_sql("INSERT INTO k SELECT x FROM (VALUES " + ", ".join(f"({i})" for i in range(n))
                          + ") AS v(x) WHERE x >= 0").job
    assert job.wait(180) == "FINISHED"
    env.close()
    assert job.metrics["restarts"] == 1
    assert sorted(r["id"] for r in _values(read_committed(kafka_bootstrap, topic))) == list(range(n))


def test_values_union_all_with_an_unbounded_stream_keeps_running(kafka_bootstrap, kafka_topic_factory,
                                                                  tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    src, out = kafka_topic_factory("values_union_in"), kafka_topic_factory("values_union_out")
    env = StreamEnvironment({"execution.checkpointing.interval": "200 ms"})
    env.execute_sql(f"CREATE TABLE s (id BIGINT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
                    f"'connector' = 'kafka', {_kafka(kafka_bootstrap, src)}, 'format' = 'json', "
                    "'scan.startup.mode' = 'earliest-offset')")
    env.execute_sql(f"CREATE TABLE o (id BIGINT) WITH ('connector' = 'kafka', "
                    f"{_kafka(kafka_bootstrap, out)}, 'format' = 'json')")
    job = env.execute_sql("INSERT INTO o SELECT id FROM s UNION ALL VALUES (100), (101)").job
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(3):
        p.produce(src, orjson.dumps({"id": i, "ts": f"2024-01-01 00:00:0{i}"}))
    p.flush(30)
    deadline = time.monotonic() + 60
    ids: list[int] = []
    while time.monotonic() < deadline and len(ids) < 5:
        time.sleep(0.5)
        ids = sorted(r["id"] for r in _values(read_committed(kafka_bootstrap, out)))
    assert ids == [0, 1, 2, 100, 101]
    assert job.status == "RUNNING"  # the VALUES side ended; the Kafka side goes on
    env.close()
