"""The sink not-null enforcer with an 'upsert-kafka' sink whose input retracts (deletes and -U rows
into tombstones), end to end through Kafka.

A group leaves the result (HAVING COUNT(*) < 3) with a -D, written as a tombstone; a group whose
MAX is still NULL (every v NULL so far) is a row with a NULL in the NOT NULL column ``m``. With
'table.exec.sink.not-null-enforcer' = 'ERROR' (Flink's default) the job fails in Flink's words; with
'DROP' those rows are dropped, every row kind, as Flink's ConstraintEnforcer does, so the final
table is DuckDB's groups with a non-NULL MAX.
"""

from __future__ import annotations

import random
import uuid
from collections import Counter

import duckdb
import orjson
import pytest
from confluent_kafka import Producer

from streamsql.core.errors import ExecutionError
from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import _upserts

QUERY = "INSERT INTO u SELECT k, MAX(v) FROM src GROUP BY k HAVING COUNT(*) < 3"
FLINK = "Column 'm' is NOT NULL, however, a null value is being written into it."


def _rows(n: int) -> list[dict]:
    rnd = random.Random(41)
    return [{"id": i, "k": rnd.randint(0, 30), "v": None if rnd.random() < 0.4 else rnd.randint(0, 99)}
            for i in range(n)]


def _env(tmp_path, bootstrap: str, src: str, out: str, enforcer: str) -> StreamEnvironment:
    env = StreamEnvironment({"pipeline.name": f"nn-{uuid.uuid4().hex[:8]}", "execution.batch-size": "7",
                             "execution.checkpointing.interval": "300 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state"),
                             "table.exec.sink.not-null-enforcer": enforcer,
                             "restart-strategy.type": "none"})
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT) WITH ('connector' = 'kafka',
        'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")
    env.execute_sql(f"""CREATE TABLE u (k INT, m INT NOT NULL, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    return env


@pytest.fixture
def loaded(kafka_bootstrap, kafka_topic_factory):
    src = kafka_topic_factory("nn_src")
    rows = _rows(300)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for r in rows:
        p.produce(src, orjson.dumps(r))
    p.flush(30)
    return src, rows


def test_drop_drops_the_null_rows_of_every_kind(kafka_bootstrap, kafka_topic_factory, tmp_path, loaded):
    src, rows = loaded
    out = kafka_topic_factory("nn_out")
    job = _env(tmp_path, kafka_bootstrap, src, out, "DROP").execute_sql(QUERY).job
    assert job.wait(120) == "FINISHED"
    con = duckdb.connect()
    con.execute("CREATE TABLE src (id INTEGER, k INTEGER, v INTEGER)")
    con.executemany("INSERT INTO src VALUES (?, ?, ?)", [(r["id"], r["k"], r["v"]) for r in rows])
    expected = con.execute("SELECT k, MAX(v) FROM src GROUP BY k HAVING COUNT(*) < 3 AND MAX(v) IS NOT NULL")
    assert _upserts(kafka_bootstrap, out, ["k", "m"]) == Counter(expected.fetchall())


def test_error_fails_in_flinks_words(kafka_bootstrap, kafka_topic_factory, tmp_path, loaded):
    src, _ = loaded
    out = kafka_topic_factory("nn_out")
    job = _env(tmp_path, kafka_bootstrap, src, out, "ERROR").execute_sql(QUERY).job
    with pytest.raises(ExecutionError, match=FLINK):
        job.wait(120)
