"""Flink's per-table parallelism and the Kafka connector 5.0 options that were refused as unknown.

Flink 2.3 with flink-sql-connector-kafka 5.0.0 accepts 'scan.parallelism' and 'sink.parallelism' on
kafka and upsert-kafka (KafkaDynamicTableFactory / UpsertKafkaDynamicTableFactory.optionalOptions),
'sink.parallelism' on print and filesystem, 'scan.parallelism' on datagen and filesystem, and
'sink.transaction-naming-strategy' (enum TransactionNamingStrategy: INCREMENTING, POOLING) on both
Kafka connectors; their refusal texts are Flink's (checked with PyFlink, see the commit). The
filesystem/print outcomes are compat cases (tests/compat/cases/option_*parallelism*); here the
Kafka ones, against the real broker: the rows written are the rows read, exactly once.
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StatementError
from tests.integration.test_kafka_connectors import jrec, produce, read_all


def kafka_table(name: str, topic: str, bootstrap: str, extra: str = "") -> str:
    return (f"CREATE TABLE {name} (id BIGINT, name STRING) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
            f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json'{extra})")


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                           "state.dir": str(tmp_path / "st"), "execution.checkpointing.interval": "200 ms"})
    yield e
    e.close()


def test_kafka_job_with_per_table_parallelism_writes_every_row_once(env, kafka_bootstrap,
                                                                   kafka_topic_factory):
    src, dst = kafka_topic_factory("po-src", partitions=3), kafka_topic_factory("po-dst", partitions=2)
    produce(kafka_bootstrap, src, [(i % 3, None, jrec(i)) for i in range(300)])
    env.execute_sql(kafka_table("s", src, kafka_bootstrap, ", 'scan.startup.mode' = 'earliest-offset', "
                                "'scan.bounded.mode' = 'latest-offset', 'scan.parallelism' = '3'"))
    env.execute_sql(kafka_table("d", dst, kafka_bootstrap, ", 'sink.parallelism' = '2', "
                                "'sink.delivery-guarantee' = 'exactly-once', "
                                "'sink.transaction-naming-strategy' = 'pooling'"))
    result = env.execute_sql("INSERT INTO d SELECT id, name FROM s")
    lines = result.message.splitlines()
    assert lines[1] == ("[INFO] Table 's': 'scan.parallelism' = '3' is accepted; the source is read by the "
                        "job's 1 task ('parallelism.default'), which changes no result (Flink's sources keep "
                        "a watermark per partition).")
    assert lines[2] == ("[INFO] Table 'd': 'sink.parallelism' = '2' is accepted; the sink writes from the "
                        "job's 1 task ('parallelism.default'), which changes no row written.")
    assert result.job.wait(120) == "FINISHED"
    got = sorted(json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, dst))
    assert got == list(range(300))


def test_upsert_kafka_accepts_the_options(env, kafka_bootstrap):
    env.execute_sql("CREATE TABLE u (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ("
                    "'connector' = 'upsert-kafka', 'topic' = 'u', "
                    f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', "
                    "'value.format' = 'json', 'scan.parallelism' = '2', 'sink.parallelism' = '4', "
                    "'sink.transaction-naming-strategy' = 'INCREMENTING')")
    plan = env.execute_sql("EXPLAIN INSERT INTO u SELECT id, COUNT(*) FROM u GROUP BY id").message
    assert "Sink(table=[u]" in plan


def test_fixed_partitioner_note_names_the_difference(env, kafka_bootstrap):
    env.execute_sql("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    env.execute_sql(kafka_table("f", "t", kafka_bootstrap, ", 'sink.parallelism' = '4', "
                                "'sink.partitioner' = 'fixed'"))
    result = env.execute_sql("INSERT INTO f SELECT id, 'x' FROM g")
    assert ("With 'sink.partitioner' = 'fixed' each task writes one partition (task index modulo "
            "partitions), where Flink's 4 sink subtasks each write one") in result.message
    result.job.cancel()


@pytest.mark.parametrize(("value", "message"), [
    ("0", "Invalid configured parallelism 0 for table 'k'."),
    ("-1", "Invalid configured parallelism -1 for table 'k'."),
    ("many", "Table 'k': Could not parse value 'many' for key 'sink.parallelism'."),
])
def test_bad_sink_parallelism_refused_when_written(env, kafka_bootstrap, value, message):
    env.execute_sql("CREATE TABLE g (id BIGINT) WITH ('connector' = 'datagen', 'number-of-rows' = '3')")
    env.execute_sql(kafka_table("k", "t", kafka_bootstrap, f", 'sink.parallelism' = '{value}'"))
    with pytest.raises(StatementError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        env.execute_sql("INSERT INTO k SELECT id, 'x' FROM g")
    assert (err.value.line, err.value.col) == (1, 13)  # at the sink's name in the INSERT
