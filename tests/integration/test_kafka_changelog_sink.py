"""The ``kafka`` sink with a changelog format (``debezium-json``) takes an updating result.

Flink's ``KafkaDynamicSink`` takes the changelog mode of its value format, so a GROUP BY into a
``'format' = 'debezium-json'`` Kafka table runs on Flink 2.3 and writes change events (+I/+U as
``"op": "c"``, -U/-D as ``"op": "d"``, the bytes of each event checked against Flink's encoder in
``scripts/flink_json_encode.py``). It was refused here as "only accepts inserts". The events,
replayed, must give DuckDB's answer over the same input.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter

import duckdb
import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import PlanError
from tests.integration.test_flights import read_committed
from tests.integration.test_kafka_connectors import produce

ROWS = [{"k": i % 7, "v": (i * 37) % 101 - 50} for i in range(500)]


def _env(tmp_path):
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                              "execution.checkpointing.interval": "200 ms",
                              "execution.batch-size": "40",  # many batches: the counts update
                              "restart-strategy.type": "none"})


def _source(env, bootstrap, topic):
    env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                    f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
                    "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")


@pytest.mark.parametrize("guarantee", ["at-least-once", "exactly-once"])
def test_group_by_into_debezium_json_kafka_sink(kafka_bootstrap, kafka_topic_factory, tmp_path, guarantee):
    src, out = kafka_topic_factory(partitions=1), kafka_topic_factory(partitions=1)
    produce(kafka_bootstrap, src, [(0, None, json.dumps(r)) for r in ROWS])
    with _env(tmp_path) as env:
        _source(env, kafka_bootstrap, src)
        env.execute_sql(f"CREATE TABLE `out` (k INT, n BIGINT, s INT) WITH ('connector' = 'kafka', "
                        f"'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        f"'format' = 'debezium-json', 'sink.delivery-guarantee' = '{guarantee}', "
                        f"'sink.transactional-id-prefix' = 'dbz-{uuid.uuid4().hex[:8]}')")
        env.execute_sql("INSERT INTO `out` SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").job.wait(120)

    events = [json.loads(v) for _, v in read_committed(kafka_bootstrap, out)]
    table: Counter = Counter()
    for e in events:  # replay: "c" adds the after row, "d" takes the before row away
        if e["op"] == "c":
            table[tuple(e["after"].values())] += 1
        else:
            assert e["op"] == "d" and e["after"] is None
            table[tuple(e["before"].values())] -= 1
            assert table[tuple(e["before"].values())] >= 0, f"retracts a row never added: {e}"
    final = sorted(row for row, n in table.items() for _ in range(n))

    con = duckdb.connect()
    con.execute("CREATE TABLE src (k INT, v INT)")
    con.executemany("INSERT INTO src VALUES (?, ?)", [(r["k"], r["v"]) for r in ROWS])
    assert final == sorted(con.sql("SELECT k, COUNT(*), SUM(v)::INT FROM src GROUP BY k").fetchall())
    assert any(e["op"] == "d" for e in events), "the counts were updated: -U rows are written as 'd'"


def test_json_kafka_sink_still_refuses_an_updating_result(kafka_bootstrap, tmp_path):
    with _env(tmp_path) as env:
        _source(env, kafka_bootstrap, "unused")
        env.execute_sql(f"CREATE TABLE `out` (k INT, n BIGINT) WITH ('connector' = 'kafka', 'topic' = 'x', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json')")
        with pytest.raises(PlanError, match="only accepts inserts"):
            env.execute_sql("INSERT INTO `out` SELECT k, COUNT(*) FROM src GROUP BY k")
