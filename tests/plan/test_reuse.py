"""Sub-plan reuse (streamsql/plan/reuse.py): a table read twice is scanned once, as Flink's plan.

Results are DuckDB's over the same rows; a checkpoint of the plan without reuse is refused by the
state signatures, not misread."""

from __future__ import annotations

import pytest

from streamsql.checkpoint.operators import StateMappingError, claim_state
from streamsql.core.config import Config
from streamsql.core.errors import ConfigError
from streamsql.plan.planner import Planner
from streamsql.plan.state_signature import state_signatures
from streamsql.sql.parser import parse_statement
from tests.runtime.oracle import (
    assert_same,
    create_table,
    duck_con,
    duck_rows,
    gen_rows,
    make_env,
    stream_rows,
    write_jsonl,
)

SELF_JOIN = ("SELECT a.id, a.x, b.id, b.s FROM (SELECT id, x, k FROM t WHERE x > 0) a "
             "JOIN (SELECT id, s, k FROM t WHERE s IS NOT NULL) b ON a.k = b.k")
TWO_COUNTS = ("SELECT c.g, c.k, c.n FROM (SELECT g, k, COUNT(*) AS n FROM t GROUP BY g, k) c "
              "JOIN (SELECT k, MAX(n) AS mx FROM (SELECT g, k, COUNT(*) AS n FROM t GROUP BY g, k) "
              "GROUP BY k) m "
              "ON c.k = m.k AND c.n >= m.mx")  # Nexmark q5's shape: each k's most frequent g


@pytest.fixture
def env(tmp_path):
    path = write_jsonl(tmp_path / "t.json", gen_rows(7, 300))
    e = make_env(tmp_path)
    create_table(e, "t", path)
    e.con = duck_con({"t": path})
    yield e
    e.close()


def _explain(env, sql: str) -> str:
    return env.execute_sql("EXPLAIN " + sql).message.split("\n\n")[0]


def test_a_table_read_twice_is_scanned_once_and_joins_as_duckdb(env):
    plan = _explain(env, SELF_JOIN)
    assert plan.count("TableSourceScan") == 1
    assert "fields=[id, g, k, x, b, d, f, s])(reuse_id=[1])" in plan
    assert plan.count("Reused(reference_id=[1])") == 1
    assert plan.count("Calc(") == 3  # each side's filter, and the projection above the join
    assert_same(stream_rows(env, SELF_JOIN), duck_rows(env.con, SELF_JOIN), SELF_JOIN)


def test_an_equal_aggregate_under_both_sides_runs_once(env):
    plan = _explain(env, TWO_COUNTS)
    assert plan.count("COUNT(*) AS n]") == 1 and plan.count("MAX(n) AS mx]") == 1, plan
    assert plan.count("TableSourceScan") == 1 and "Reused(reference_id=[1])" in plan
    assert_same(stream_rows(env, TWO_COUNTS), duck_rows(env.con, TWO_COUNTS), TWO_COUNTS)


def test_non_deterministic_expressions_are_computed_per_reader(env):
    sql = ("SELECT r FROM (SELECT RAND() AS r, id FROM t) "
           "UNION ALL SELECT r FROM (SELECT RAND() AS r, id FROM t)")
    plan = _explain(env, sql)
    assert plan.count("RAND()") == 2  # two Calcs over the one (deterministic) scan
    assert plan.count("TableSourceScan") == 1


@pytest.mark.parametrize("key", ["table.optimizer.reuse-sub-plan-enabled",
                                 "table.optimizer.reuse-source-enabled"])
def test_flinks_keys_switch_it_off(env, key):
    env.execute_sql(f"SET '{key}' = 'false'")
    plan = _explain(env, SELF_JOIN)
    assert plan.count("TableSourceScan") == 2 and "Reused" not in plan
    assert_same(stream_rows(env, SELF_JOIN), duck_rows(env.con, SELF_JOIN), SELF_JOIN)


def test_a_bad_value_is_refused(env):
    with pytest.raises(ConfigError, match="'table.optimizer.reuse-sub-plan-enabled' = 'sometimes' must be"):
        env.execute_sql("SET 'table.optimizer.reuse-sub-plan-enabled' = 'sometimes'")


def _signatures(env, reuse: str) -> dict:
    env.execute_sql("CREATE TABLE IF NOT EXISTS out_t (a INT, x INT, b INT, s STRING) "
                    "WITH ('connector' = 'blackhole')")
    sql = "INSERT INTO out_t " + SELF_JOIN
    cfg = Config({**env.config.settings, "table.optimizer.reuse-sub-plan-enabled": reuse})
    return state_signatures([Planner(env.catalog, cfg, sql).plan_insert(parse_statement(sql))])


def test_a_checkpoint_of_the_plan_without_reuse_is_refused_not_misread(env):
    before, after = _signatures(env, "false"), _signatures(env, "true")
    assert len([k for k in before if k.startswith("scan")]) == 2
    assert len([k for k in after if k.startswith("scan")]) == 1
    with pytest.raises(StateMappingError, match="Cannot map checkpoint/savepoint state for operator join-"):
        claim_state(before, after, location="/cp/chk-1", job="job", ignore=False)
    assert claim_state(after, after, location="/cp/chk-1", job="job", ignore=False) == []
