"""DOUBLE keys -0.0, 0.0 and NaN in a parallel job (2 worker processes): Java's equality end to end.

Flink keys a DOUBLE by ``Double.equals`` (``tests/state/test_float_keys.py`` holds its answers):
-0.0 and 0.0 are two groups, every NaN one. In a parallel job the exchange routes a row by its
key's bytes too, so each of those keys must reach one task and be counted there once. Rows go to a
3-partition Kafka topic at random; the job (``'parallelism.default' = '2'``) groups them by ``d``
into an ``upsert-kafka`` topic keyed by ``d`` (with ``CAST(d AS STRING)`` beside it). The oracle
is DuckDB grouping by ``CAST(d AS VARCHAR)`` (-0.0, 0.0 and NaN are distinct strings: Flink's keys).
"""

from __future__ import annotations

import random
import subprocess
import sys
import uuid
from collections import Counter

import duckdb
import orjson
import pyarrow as pa
from confluent_kafka import Producer

from streamsql.testing.chaos import read_committed
from streamsql.testing.chaos_queries import fold_upsert

VALUES = [0.0, -0.0, float("nan"), None, 1.5, -1.5]


def _json(v):
    return "NaN" if isinstance(v, float) and v != v else v  # JSON has no NaN literal: Flink reads "NaN"


def test_parallel_group_by_keeps_negative_zero_apart(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("fk_src", 3)
    out = kafka_topic_factory("fk_out", 2)
    rnd = random.Random(28)
    keys = [v for v in VALUES if v is not None]  # the sink's primary key is NOT NULL
    rows = [{"id": i, "d": rnd.choice(keys), "e": rnd.choice(VALUES)} for i in range(600)]
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 5, "enable.idempotence": True})
    for r in rows:
        producer.produce(src, orjson.dumps({k: _json(v) for k, v in r.items()}), partition=rnd.randrange(3))
    producer.flush(60)
    script = f"""
SET 'pipeline.name' = 'fk-{uuid.uuid4().hex[:8]}';
SET 'parallelism.default' = '2';
SET 'restart-strategy.type' = 'none';
SET 'execution.batch-size' = '16';
CREATE TABLE ev (id INT, d DOUBLE, e DOUBLE) WITH ('connector' = 'kafka', 'topic' = '{src}',
  'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE totals (d DOUBLE, s STRING, n BIGINT, ids BIGINT, es BIGINT, PRIMARY KEY (d) NOT ENFORCED)
  WITH ('connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
  'key.format' = 'json', 'value.format' = 'json');
INSERT INTO totals SELECT d, CAST(d AS STRING), COUNT(*), SUM(id), COUNT(DISTINCT e) FROM ev GROUP BY d;
"""
    (tmp_path / "job.sql").write_text(script)
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", "job.sql"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr

    con = duckdb.connect()
    con.register("ev", pa.Table.from_pylist(rows, pa.schema([("id", pa.int32()), ("d", pa.float64()),
                                                             ("e", pa.float64())])))
    expected = Counter(
        (None if s is None else s.replace("nan", "NaN"), n, ids, es) for s, n, ids, es in con.execute(
            "SELECT CAST(d AS VARCHAR), count(*), sum(id), count(DISTINCT CAST(e AS VARCHAR)) "
            "FROM ev GROUP BY CAST(d AS VARCHAR)").fetchall())
    assert len(expected) == 5  # -0.0 and 0.0 two groups, NaN one
    # the record key is the DOUBLE: its JSON text (-0.0, NaN) tells the keys apart, as it must
    got = Counter(fold_upsert(read_committed(kafka_bootstrap, out), lambda key: repr(key["d"]),
                              lambda r: (r["s"], r["n"], r["ids"], r["es"])))
    assert got == expected
