"""An expression failing on a value fails the job in our words, as Flink fails it (never DuckDB's),
naming the function, the value and the record: ``path:line`` of a file, ``topic[partition]@offset``
of a Kafka record.

Found by a newcomer run: ``k / 0`` failed with DuckDB's "Use TRY(...) ... or SET
error_on_division_by_zero=false", advice about settings StreamSQL does not have.
"""

from __future__ import annotations

import json

import pytest
from confluent_kafka import Producer

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError


@pytest.fixture
def env(tmp_path):
    (tmp_path / "in.json").write_text(json.dumps({"id": 1, "s": "1@"}) + "\n")
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql(f"CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/in.json', 'format' = 'json')")
    e.execute_sql("CREATE TABLE o (a INT) WITH ('connector' = 'blackhole')")
    yield e
    e.close()


@pytest.mark.parametrize(("expr", "says"), [
    ("id / 0", "Division by zero in id / 0: an integer or DECIMAL divided by 0 fails the job, as in Flink"),
    # The division as written (DuckDB's own message would name the DECIMAL's unscaled value '#0')
    ("CAST(CAST(id AS DECIMAL(5, 2)) / 0 AS INT)",
     "Division by zero in CAST(id AS DECIMAL(5, 2)) / 0: an integer or DECIMAL divided by 0 fails"),
    ("id % (id - 1)", "Division by zero in id % (id - 1): an integer or DECIMAL divided by 0 fails"),
    ("CAST(s AS INT)", "CAST('1@' AS INT) failed: the value is not a valid INT (Flink fails the job too)"),
    # Flink reads '1@' as 1.0 (its DECIMAL parser skips one stray last character), not '1@x'
    ("CAST(CAST(s || 'x' AS DECIMAL(4, 1)) AS INT)",
     "CAST('1@x' AS DECIMAL(4, 1)) failed: the value is not a number or has more digits than the type holds"),
])
def test_a_failing_expression_says_what_failed_in_flinks_terms(env, expr, says):
    with pytest.raises(StreamSQLError) as ei:
        env.execute_sql(f"INSERT INTO o SELECT {expr} FROM t").wait(60)
    text = str(ei.value)
    assert says in text
    assert "Error:" not in text and "error_on_division_by_zero" not in text and "INT32" not in text
    assert "Could not" not in text and "#0" not in text
    assert text.endswith("in.json:1)"), text  # the record: the file's first line


def _lines(path, values):
    path.write_text("".join(json.dumps({"id": i, "s": v}) + "\n" for i, v in enumerate(values, 1)))


@pytest.mark.parametrize(("query", "says"), [
    ("SELECT CAST(s AS INT) FROM t", "CAST('x7' AS INT) failed"),
    # Under a filter, the failing row is found among the rows it kept.
    ("SELECT CAST(s AS INT) FROM t WHERE id > 1", "CAST('x7' AS INT) failed"),
    # Named as written: DuckDB's message would quote the CAST's compiled SQL, and the CAST's
    # own failure inside it must not be taken for this one's.
    ("SELECT 1000 / (CAST(s AS INT) - 5) FROM t WHERE s <> 'x7'",
     "Division by zero in 1000 / (CAST(s AS INT) - 5):"),
])
def test_a_failing_expression_names_the_files_line(tmp_path, query, says):
    """Lines 1-6 of the file; line 4 holds 'x7' (not a number), line 5 the 5 (divisor 0)."""
    _lines(tmp_path / "in.json", ["1", "2", "3", "x7", "5", "6"])
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE t (id INT, s STRING) WITH ('connector' = 'filesystem', "
                        f"'path' = '{tmp_path}/in.json', 'format' = 'json')")
        env.execute_sql("CREATE TABLE o (a INT) WITH ('connector' = 'blackhole')")
        with pytest.raises(StreamSQLError) as ei:
            env.execute_sql(f"INSERT INTO o {query}").wait(60)
    text = str(ei.value)
    line = 4 if "x7" in says else 5
    assert says in text and text.endswith(f"(record {tmp_path}/in.json:{line})"), text


def test_a_failing_expression_names_the_kafka_record(tmp_path, kafka_bootstrap, kafka_topic_factory):
    """Partition 1 holds offsets 0-2; the record at offset 1 is not a number."""
    topic = kafka_topic_factory("runtime-errors", partitions=2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for part, values in ((0, ["1", "2"]), (1, ["3", "oops", "4"])):
        for v in values:
            p.produce(topic, json.dumps({"s": v}).encode(), partition=part)
    assert p.flush(30) == 0
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE k (s STRING) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')")
        env.execute_sql("CREATE TABLE o (a INT) WITH ('connector' = 'blackhole')")
        with pytest.raises(StreamSQLError) as ei:
            env.execute_sql("INSERT INTO o SELECT CAST(s AS INT) + 1 FROM k WHERE s <> '2'").wait(60)
    text = str(ei.value)
    assert "CAST('oops' AS INT) failed" in text and text.endswith(f"(record {topic}[1]@1)"), text


@pytest.mark.parametrize(("query", "says"), [
    ("SELECT SUM(id) / MIN(id - 1) FROM t GROUP BY s", "Division by zero in SUM(id) / MIN(id - 1):"),
    ("SELECT COUNT(*) % (id - 1) FROM t GROUP BY id", "Division by zero in COUNT(*) % (id - 1):"),
    ("SELECT 7 / SUM(id - 1) FROM t GROUP BY s HAVING COUNT(*) > 0", "Division by zero in 7 / SUM(id - 1):"),
])
def test_a_failing_expression_over_an_aggregate_names_it_as_written(env, query, says):
    """Not the aggregate's internal columns (``__agg0 / __agg1``, ``__k0``)."""
    with pytest.raises(StreamSQLError) as ei:
        env.execute_sql(f"INSERT INTO o {query}").wait(60)
    text = str(ei.value)
    assert says in text and "__" not in text, text
