"""Constructs that parse but are not implemented are refused at their position, never ignored.

Each of these used to plan and run as if the construct were absent: a temporal join as a
regular join (every version matched; temporal joins are now planned, see
tests/runtime/test_temporal_join.py), INSERT OVERWRITE as an append, a hint's options unused
(OPTIONS hints are now applied: tests/plan/test_options_hint.py).
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError


@pytest.fixture
def env(tmp_path):
    e = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql("CREATE TABLE o (k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
                  "WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
    e.execute_sql("CREATE TABLE r (k INT, w INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED, "
                  "WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
    e.execute_sql("CREATE TABLE s (k INT, v INT) WITH ('connector' = 'blackhole')")
    yield e
    e.close()


@pytest.mark.parametrize(
    ("sql", "message", "col"),
    [
        ("SELECT k, w FROM r FOR SYSTEM_TIME AS OF TIMESTAMP '2024-05-01 00:00:00'",
         "FOR SYSTEM_TIME AS OF is supported only on the table joined in a temporal join", 24),
        # after an alias: Flink's parser refuses it (the hint goes right after the table's name)
        ("SELECT k, v FROM o AS x /*+ OPTIONS('number-of-rows'='3') */", 'Encountered "/*+"', 25),
        ("SELECT k, v FROM o x /*+ OPTIONS('number-of-rows'='3') */", 'Encountered "/*+"', 22),
        ("SELECT k, v FROM o /*+ OPTIONS('number-of-rows'='3') */ /*+ OPTIONS('a'='b') */",
         'Encountered "/*+"', 57),
        ("SELECT k, v FROM o /*+ OPTIONS('number-of-rows') */",
         "Hint [OPTIONS] only support non empty key value options", 20),
        ("SELECT k, v FROM o /*+ FOO('a' = 'b') */",
         "Hint: FOO should be registered in the HintStrategyTable", 20),
        # after SELECT as after a table: Flink's hint strategy table's check (it was "not supported yet")
        ("SELECT /*+ FOO(o) */ k FROM o", "Hint: FOO should be registered in the HintStrategyTable", 12),
        ("SELECT /*+ MULTI_JOIN(o), ALIAS */ k FROM o",
         "expecting 1 table or view name specified in hint ALIAS", 27),
        ("SELECT k FROM o TABLESAMPLE (10 PERCENT)", "TABLESAMPLE is not supported", 17),
        # Flink 2.3 fails it too (CodeGenException: Unsupported call: $TUMBLE)
        ("SELECT k, SUM(v) FROM o GROUP BY TUMBLE(ts, INTERVAL '1' MINUTE), CUBE (k)",
         "ROLLUP and CUBE next to a group window (GROUP BY TUMBLE(...)) are not supported", 67),
        ("SELECT k FROM o WHERE CAST(v AS STRING) = 'a' COLLATE utf8", "COLLATE is not supported", None),
        # Calcite's (Flink's) words; it was read as the bytes 0A BC
        ("SELECT k, X'ABC' AS v FROM o", "Binary literal string must contain an even number of hexits", 11),
        # Calcite's parser joins 'a' 'b' only across a line break; it was joined here on one line too
        ("SELECT k, v FROM o WHERE CAST(v AS STRING) = 'a' 'b'", "String literal continued on same line", 50),
        ("SELECT k, v FROM o WHERE CAST(v AS STRING) = 'a' /* c */ 'b'", "String literal continued", 58),
    ],
)
def test_ignored_query_construct_is_rejected_at_its_position(env, sql, message, col):
    for stmt, shift in ((sql, 0), (f"INSERT INTO s SELECT k, v FROM ({sql})", 32),
                        (f"CREATE VIEW v1 AS {sql}", 18)):
        if stmt.startswith("INSERT") and "SUM" in sql:
            continue  # an updating result into blackhole: planned, but not what this test is about
        with pytest.raises(SqlError) as ei:
            env.execute_sql(stmt)
        assert message in ei.value.message
        assert ei.value.line == 1
        if col is not None:
            assert ei.value.col == col + shift
        assert "Catalog Error" not in str(ei.value)


@pytest.mark.parametrize(
    ("sql", "message", "col"),
    [
        ("INSERT OVERWRITE s SELECT k, v FROM o", "INSERT OVERWRITE is not supported", 8),
        ("INSERT INTO s PARTITION (k=1) SELECT k, v FROM o",
         "INSERT INTO ... PARTITION is not supported", 15),
    ],
)
def test_ignored_insert_construct_is_rejected_at_its_keyword(env, sql, message, col):
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert message in ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col)


def test_plain_comments_and_supported_queries_still_plan(env):
    env.execute_sql("EXPLAIN SELECT /* a note */ k, v FROM o -- trailing\n WHERE v > 1")
    env.execute_sql("EXPLAIN SELECT o.k, r.w FROM o JOIN r ON o.k = r.k")
    plan = env.execute_sql("EXPLAIN SELECT o.k, r.w FROM o JOIN r FOR SYSTEM_TIME AS OF o.ts "
                           "ON o.k = r.k").message
    assert "TemporalJoin(" in plan, plan


def test_string_literals_continue_across_a_line_break(env):
    """As Calcite: 'a' newline 'b' is 'ab' (also after a -- comment)."""
    rows = env.execute_sql("SELECT 'a'\n'b' AS s, 'c' -- x\n 'd' AS t").collect()
    assert [r[1] for r in rows] == [("ab", "cd")]
