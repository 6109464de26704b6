"""An outer, semi or temporal join's non-equi ON condition is checked when the query is planned."""

from __future__ import annotations

import pytest

from streamsql.core.errors import SqlError


@pytest.fixture
def env(planning_env):
    return planning_env("(k INT, v INT, s STRING)", ("a", "b"), 3)


@pytest.mark.parametrize("join", ["LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
def test_outer_join_condition_type_error_is_a_planning_error_at_its_position(env, join):
    # EXPLAIN plans without building a job: the error must come from planning, with a caret
    on = "  ON a.k = b.k AND a.v < b.v AND a.v + b.v = UPPER(a.s)"
    sql = f"EXPLAIN SELECT a.k, b.v\nFROM a {join} b\n{on}"
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    err = ei.value
    assert "implicit type conversion between INTEGER and VARCHAR is not supported now" in str(err)  # Flink's
    # at the failing conjunct, not at the first one
    assert err.line == 3 and on.index("a.v +") < err.col <= len(on), str(err)
    assert "^" in str(err)


def test_semi_join_condition_type_error_is_a_planning_error(env):
    sql = "EXPLAIN SELECT a.k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k AND b.v = UPPER(a.s))"
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert ei.value.line == 1 and ei.value.col is not None, str(ei.value)
