"""EXPLAIN shows expressions in Flink SQL: the user's function names and Flink's types.

It printed the DuckDB SQL the binder generates: ``CAST((CASE WHEN strlen(("name")) <> length(("name"))
THEN ((__streamsql_upper_1(...` for ``UPPER(name)``, ``strftime(("ts"), '%Y-%m-%d')`` for
``DATE_FORMAT``, ``"id" // 2`` for ``id / 2``. The plan's shape (its operators) is unchanged.
"""

from __future__ import annotations

import re

import pytest

from streamsql import StreamEnvironment


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("explain")
    (tmp / "src.json").write_text('{"id": 1}\n')
    e = StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")})
    opts = f"'connector' = 'filesystem', 'format' = 'json', 'path' = '{tmp}/src.json'"
    e.execute_sql(f"CREATE TABLE src (id INT, name STRING, x BIGINT, d DECIMAL(10,2), b BOOLEAN, "
                  f"ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ({opts})")
    e.execute_sql(f"CREATE TABLE src2 (id INT, name STRING) WITH ({opts})")
    yield e
    e.close()


# DuckDB's spellings that a Flink user never wrote: the binder's macros, DuckDB functions and types.
DUCKDB = re.compile(r"__streamsql_|strlen|strftime|\bINT64\b|//|\"|\bTEXT\b|TIMESTAMP_MS|\btrunc\(|"
                    r"\blength\(|\bCASE WHEN \(", re.IGNORECASE)


def explain(env, sql: str) -> str:
    return env.execute_sql("EXPLAIN " + sql).message


def operators(plan: str) -> list[str]:
    return [ln.strip().removeprefix("+- ").split("(")[0] for ln in plan.split("\n\n")[0].splitlines()[1:]]


def test_select_items_and_where_are_the_users_expressions(env):
    plan = explain(env, "SELECT CAST(x AS BIGINT) AS c, CAST(id AS STRING) AS s, UPPER(name) AS u, "
                        "SUBSTRING(name, 2, 3) AS ss, id / 2 AS half, CHAR_LENGTH(name) AS l, "
                        "CAST(d AS INT) AS di, DATE_FORMAT(ts, 'yyyy-MM-dd') AS df, COALESCE(name, 'z') AS z "
                        "FROM src WHERE name LIKE 'a%' AND x > 1")
    for text in ("CAST(x AS BIGINT) AS c", "CAST(id AS STRING) AS s", "UPPER(name) AS u",
                 "SUBSTRING(name, 2, 3) AS ss", "id / 2 AS half", "CHAR_LENGTH(name) AS l",
                 "CAST(d AS INT) AS di",
                 "DATE_FORMAT(ts, 'yyyy-MM-dd') AS df", "COALESCE(name, 'z') AS z", "name LIKE 'a%'", "x > 1",
                 "watermark=[ts - INTERVAL '5' SECOND]"):
        assert text in plan, f"{text} not in:\n{plan}"
    assert not DUCKDB.search(plan), plan
    assert operators(plan) == ["Calc", "WatermarkAssigner", "TableSourceScan"], plan


def test_join_and_aggregate_plans_keep_their_shape_in_flink_terms(env):
    plan = explain(env, "SELECT a.id, UPPER(c.name) FROM src a JOIN src2 c "
                        "ON a.id = c.id AND LOWER(c.name) = 'q'")
    for text in ("UPPER(name0) AS EXPR$1", "where=[(id = id0)]", "LOWER(name) = 'q'"):
        assert text in plan, f"{text} not in:\n{plan}"
    assert not DUCKDB.search(plan), plan
    # src's columns other than id are not read: a Calc keeps id alone under the join (as Flink's plan)
    assert operators(plan) == ["Calc", "Join", "Calc", "WatermarkAssigner", "TableSourceScan", "Calc",
                               "TableSourceScan"], plan
    plan = explain(env, "SELECT name, SUM(d) FROM src WHERE id IN (1, 2) GROUP BY name HAVING COUNT(*) > 1")
    # Flink's names: the SELECT item's EXPR$1, the HAVING-only call's $f2 (its output position)
    assert "select=[name, SUM(d) AS EXPR$1, COUNT(*) AS $f2]" in plan and "where=[id IN (1, 2)]" in plan, plan
    assert not DUCKDB.search(plan), plan
