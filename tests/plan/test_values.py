"""VALUES and SELECT without FROM: planning (types, EXPLAIN, errors) and the Values source.

Types and errors are Flink 2.3's (compat cases ``values_*``, whose expected.json Flink wrote);
these tests pin what the compat suite cannot see: DESCRIBE, positions, the source's restore.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError
from streamsql.plan.nodes import ValuesNode


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql("CREATE TABLE o (id BIGINT, name STRING) WITH ('connector' = 'blackhole')")
    yield e
    e.close()


def _rows(env, sql):
    return [row for _, row in env.execute_sql(sql).collect(timeout=60)]


def test_describe_a_view_over_values_gives_flinks_least_restrictive_types(env):
    env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT * FROM (VALUES (1, 'a', 2.5, 'xy', TIMESTAMP "
                    "'2024-01-01 10:00:00'), (3000000000, 'abc', 3, 'zz', "
                    "TIMESTAMP '2024-01-01 10:00:00.12')) AS t(id, name, d, c, ts)")
    types = {r[0]: r[1] for r in _rows(env, "DESCRIBE v")}
    assert types == {"id": "BIGINT", "name": "VARCHAR(3)", "d": "DECIMAL(11, 1)", "c": "CHAR(2)",
                     "ts": "TIMESTAMP(2)"}


def test_ragged_chars_are_not_padded_and_typeof_is_exact(env):
    rows = _rows(env, "SELECT TYPEOF(b), CONCAT('[', b, ']'), TYPEOF(n) FROM (VALUES ('a', -1), ('abc', 2))"
                      " AS v(b, n)")
    assert rows == [("VARCHAR(3) NOT NULL", "[a]", "INT NOT NULL"),
                    ("VARCHAR(3) NOT NULL", "[abc]", "INT NOT NULL")]


def test_select_without_from_and_top_level_values_and_view(env):
    assert _rows(env, "SELECT 1 + 2 AS x, UPPER('ab')") == [(3, "AB")]
    assert _rows(env, "VALUES (1, 'a'), (2, 'b')") == [(1, "a"), (2, "b")]
    env.execute_sql("CREATE TEMPORARY VIEW w AS VALUES (1), (2)")
    assert _rows(env, "SELECT EXPR$0 * 10 FROM w") == [(10,), (20,)]
    assert _rows(env, "SELECT * FROM (VALUES ROW(1, 'a'), (ROW(2, 'b'))) AS v(k, s)") == [(1, "a"), (2, "b")]


def test_explain_shows_the_values_node(env):
    text = env.execute_sql("EXPLAIN INSERT INTO o VALUES (1, 'a'), (2, UPPER('b'))").message
    assert "Values(tuples=[[{ 1, 'a' }, { 2, UPPER('b') }]]" in text, text
    assert "Values(tuples=[[{ 0 }]]" in env.execute_sql("EXPLAIN SELECT 1").message


@pytest.mark.parametrize(("sql", "fragment", "col"), [
    ("INSERT INTO o VALUES (1, 'a'), (2, NULL)", "Illegal use of 'NULL'", 36),
    ("INSERT INTO o VALUES (1, 'a'), (2)", "Values passed to VALUES operator must have compatible types", 33),
    ("INSERT INTO o (id, name) VALUES (1, 'a'), (2)", "Number of columns must match number of query", 44),
    ("INSERT INTO o VALUES (1, 'a', 3)", "Different number of columns", 13),
    ("SELECT * FROM (VALUES (1), ('x')) AS v(a)", "column 1 has INT and CHAR(1)", 29),
    ("SELECT * FROM (VALUES (1, 2)) AS v(a)", "List of column aliases must have same degree", 34),
    ("SELECT * FROM (VALUES (x)) AS v(a)", "Column 'x' not found in any table", 24),
    # a comma missing between two rows: sqlglot read the second row as an alias of the VALUES and
    # dropped it silently (Flink's parser stops at its '(')
    ("INSERT INTO o VALUES (1, 'a') (2, 'b')", "a comma is missing between two rows of VALUES", 31),
    ("SELECT * FROM (VALUES (1), (2) (3)) AS v(a)", "a comma is missing between two rows", 32),
    ("SELECT 1, 'a' UNION ALL VALUES (2, 'b') (3, 'c')", "a comma is missing between two rows", 41),
    ("VALUES (1) (2)", "a comma is missing between two rows", 12),
])
def test_errors_are_flinks_words_at_their_position(env, sql, fragment, col):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert fragment in ei.value.message, ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)
    assert "^" in str(ei.value)


def test_insert_value_is_a_synonym_of_values(env):
    # Flink 2.3 plans INSERT INTO o VALUE (1) (Calcite's synonym); 980d80e had refused it
    assert env.execute_sql("INSERT INTO o VALUE (1, 'a')").job.wait(60) == "FINISHED"


def test_values_source_resumes_after_its_checkpointed_position():
    from streamsql.runtime.values_source import ValuesSource

    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE o (id BIGINT, name STRING) WITH ('connector' = 'blackhole')")
    from streamsql.plan.planner import Planner
    from streamsql.sql.parser import parse_statement

    insert = parse_statement("INSERT INTO o VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    sink = Planner(env.catalog, env.config).plan_insert(insert)
    node = next(n for n in _walk(sink) if isinstance(n, ValuesNode))
    src = ValuesSource(node)
    src.open(None)
    assert src.poll(2, 0).table.column(0).to_pylist() == [1, 2]
    position = src.position()
    assert position == {"offset": 2} and not src.finished()
    again = ValuesSource(node)
    again.open(position)  # restored from the checkpoint that recorded 2 rows out
    assert again.poll(10, 0).table.column(0).to_pylist() == [3]
    assert again.finished() and again.poll(10, 0) is None
    env.close()


def _walk(node):
    yield node
    for i in node.inputs:
        yield from _walk(i)


def test_seeded_rand_of_values_starts_again_when_the_source_opens_again():
    """Flink's RAND(42) in a VALUES row is one ``java.util.Random`` per call site, created when its
    operator opens (``RandCallGen``): a restored job draws the same values again. Flink's answer to the
    two rows (``tests/functions/flink_rand.json``, ``scripts/flink_rand.py``) is 0 and 0; a Random
    shared by the process went on drawing (3, 8 on the second open)."""
    import json
    from pathlib import Path

    from streamsql.plan.planner import Planner
    from streamsql.runtime.values_source import ValuesSource
    from streamsql.sql.parser import parse_statement

    flink = json.loads((Path(__file__).parents[1] / "functions" / "flink_rand.json").read_text())
    query = "SELECT * FROM (VALUES (RAND_INTEGER(42, 10)), (RAND_INTEGER(42, 10))) AS t(x)"
    rows = next(q["rows"] for q in flink["queries"] if q["query"] == query)
    env = StreamEnvironment()
    env.execute_sql("CREATE TABLE o (x INT) WITH ('connector' = 'blackhole')")
    sink = Planner(env.catalog, env.config).plan_insert(parse_statement(f"INSERT INTO o {query}"))
    node = next(n for n in _walk(sink) if isinstance(n, ValuesNode))
    for _ in range(2):  # the job's first run, then its restore
        src = ValuesSource(node)
        src.open(None)
        assert src.poll(10, 0).table.column(0).to_pylist() == [r[1] for r in rows]
    env.close()
