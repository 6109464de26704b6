"""A Calc over a Calc is merged into one, as Flink's FlinkCalcMergeRule (streamsql/plan/calc_merge.py).

``SELECT * FROM (SELECT a / b AS q, b FROM t) WHERE b <> 0`` planned two Calcs, the projection
below the filter: the job divided by every zero ``b`` and failed where Flink 2.3, which merges
them and filters first, returns the rows (compat case ``calc_merge_filter_first``).
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.plan.calc_merge import column_references


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("calc_merge")
    rows = [(1, 10, 2, "5"), (2, 10, 0, "x"), (3, None, 0, "7"), (4, 5, 5, "abc")]
    (tmp / "t.json").write_text("".join(
        f'{{"id": {i}, "a": {"null" if a is None else a}, "b": {b}, "s": "{s}"}}\n' for i, a, b, s in rows))
    e = StreamEnvironment({"state.dir": str(tmp / "state"), "execution.checkpointing.dir": str(tmp / "cp")})
    e.execute_sql(f"CREATE TABLE t (id INT, a INT, b INT, s STRING) WITH ('connector' = 'filesystem', "
                  f"'format' = 'json', 'path' = '{tmp}/t.json')")
    e.execute_sql("CREATE VIEW v AS SELECT id, CAST(s AS INT) AS n, s FROM t")
    yield e
    e.close()


def plan(env, sql: str) -> str:
    return env.execute_sql("EXPLAIN " + sql).message.split("\n\n")[0]


def calcs(text: str) -> list[str]:
    return [ln.strip().removeprefix("+- ") for ln in text.splitlines() if "Calc(" in ln]


def rows(env, sql: str) -> list[tuple]:
    return sorted(tuple(values) for _, values in env.execute_sql(sql).collect())


def test_filter_over_projection_is_one_calc_filtering_first(env):
    sql = "SELECT * FROM (SELECT id, a / b AS q, b FROM t) WHERE b <> 0"
    assert calcs(plan(env, sql)) == ["Calc(select=[id, a / b AS q, b], where=[b <> 0])"]
    assert rows(env, sql) == [(1, 5, 2), (4, 1, 5)]


def test_chains_views_and_aggregates_merge(env):
    two = "SELECT id, q FROM (SELECT id, q + 1 AS q, b FROM (SELECT id, a / b AS q, b FROM t)) WHERE b <> 0"
    assert calcs(plan(env, two)) == ["Calc(select=[id, (a / b) + 1 AS q], where=[b <> 0])"]
    assert rows(env, two) == [(1, 6), (4, 2)]
    view = "SELECT * FROM v WHERE s NOT IN ('x', 'abc')"
    assert len(calcs(plan(env, view))) == 1
    assert rows(env, view) == [(1, 5, "5"), (3, 7, "7")]
    agg = "SELECT b, SUM(q) FROM (SELECT a / b AS q, b FROM t) WHERE b <> 0 GROUP BY b"
    below = calcs(plan(env, agg))[-1]
    assert "a / b" in below and "where=[b <> 0]" in below, below


def test_filter_on_the_computed_column_still_computes_it(env):
    sql = "SELECT * FROM (SELECT id, a / b AS q, b FROM t) WHERE q > 1"
    assert calcs(plan(env, sql)) == ["Calc(select=[id, a / b AS q, b], where=[(a / b) > 1])"]
    with pytest.raises(Exception, match="Division by zero in a / b"):
        rows(env, sql)


def test_a_non_deterministic_column_used_twice_is_not_merged(env):
    twice = ("SELECT id, q FROM (SELECT id, a / b AS q, b, UUID() AS r FROM t) "
             "WHERE b <> 0 AND CHAR_LENGTH(r) > 0 AND CHAR_LENGTH(r) < 100")
    assert len(calcs(plan(env, twice))) == 2  # else one row would see two UUIDs (as Flink, not merged)
    once = "SELECT id, q FROM (SELECT id, a / b AS q, b, RAND() AS r FROM t) WHERE b <> 0 AND r < 2"
    assert calcs(plan(env, once)) == ["Calc(select=[id, a / b AS q], where=[b <> 0 AND RAND() < 2])"]


def test_column_references_skip_field_names():
    sql = ('struct_pack("a" := "x", "b" := ("y"."f")) = CAST("z" AS STRUCT("x" INTEGER)) '
           "AND 'the \"x\" text' <> \"w\"\"q\"")
    assert [name for *_, name in column_references(sql)] == ["x", "y", "z", 'w"q']
