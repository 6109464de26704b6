"""An OVER aggregate ordered by a non-time column in a parallel job (2 worker processes).

Rows go to a 3-partition Kafka topic, each partition key's rows to one partition (so they arrive
in the order produced, ``id`` ascending); the job runs with ``'parallelism.default' = '2'``, its
OVER aggregate's partitions split over two tasks by key group, into an ``upsert-kafka`` topic keyed
by ``id``. The topic's final rows must be DuckDB's window functions over the same rows.
"""

from __future__ import annotations

import random
import subprocess
import sys
import uuid
import zlib
from collections import Counter

import duckdb
import orjson
import pyarrow as pa
from confluent_kafka import Producer

from streamsql.testing.chaos import read_committed
from streamsql.testing.chaos_queries import fold_upsert

FRAMES = {"ROWS": "ORDER BY p NULLS FIRST, id ROWS UNBOUNDED PRECEDING",
          "RANGE": "ORDER BY p NULLS FIRST RANGE UNBOUNDED PRECEDING"}


def test_parallel_nontime_over_gives_duckdbs_table(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("ont_src", 3)
    outs = {frame: kafka_topic_factory(f"ont_out_{frame.lower()}", 2) for frame in FRAMES}
    rnd = random.Random(11)
    rows = [{"id": i, "k": f"k{rnd.randrange(12)}", "v": rnd.randrange(-5, 50),
             "p": rnd.choice([None, *range(8)])} for i in range(400)]
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 5, "enable.idempotence": True})
    for r in rows:
        producer.produce(src, orjson.dumps(r), partition=zlib.crc32(r["k"].encode()) % 3)
    producer.flush(60)
    sinks = "".join(f"""
CREATE TABLE out_{frame.lower()} (id INT, k STRING, p INT, n BIGINT, s BIGINT, hi BIGINT,
  PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{out}',
  'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', 'value.format' = 'json');"""
                    for frame, out in outs.items())
    inserts = "".join(f"""
INSERT INTO out_{frame.lower()} SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w, MAX(v) OVER w FROM ev
  WINDOW w AS (PARTITION BY k ORDER BY p {frame} BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
  ON CONFLICT DO DEDUPLICATE;""" for frame in outs)
    script = f"""
SET 'pipeline.name' = 'ont-{uuid.uuid4().hex[:8]}';
SET 'parallelism.default' = '2';
SET 'restart-strategy.type' = 'none';
CREATE TABLE ev (id INT, k STRING, v BIGINT, p INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
  'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');{sinks}
EXECUTE STATEMENT SET BEGIN{inserts}
END;"""
    (tmp_path / "job.sql").write_text(script)
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", "job.sql"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr

    con = duckdb.connect()
    con.register("ev", pa.Table.from_pylist(rows))
    for frame, out in outs.items():
        expected = Counter(con.execute(f"SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w, MAX(v) OVER w "
                                       f"FROM ev WINDOW w AS (PARTITION BY k {FRAMES[frame]})").fetchall())
        got = Counter(fold_upsert(read_committed(kafka_bootstrap, out), lambda key: key["id"],
                                  lambda r: (r["id"], r["k"], r["p"], r["n"], r["s"], r["hi"])))
        assert got == expected, frame
