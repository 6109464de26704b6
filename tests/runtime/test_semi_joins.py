"""IN / EXISTS / NOT IN / NOT EXISTS as streaming semi and anti joins, checked against DuckDB.

The same queries run as streaming jobs (small batches, so both inputs interleave and a left row
meets its matches before and after it arrives) and as DuckDB batch queries over the same rows
(the final snapshot of a debezium changelog). NULL keys on both sides exercise NOT IN's
three-valued logic, where one NULL in the subquery empties the result.
"""

from __future__ import annotations

import pytest

from streamsql.core.elements import RowKind
from streamsql.core.errors import SqlError
from tests.runtime.oracle import assert_same, fold, make_env, write_debezium, write_jsonl
from tests.runtime.test_joins import L_COLS, R_COLS, _cdc, _duck, _rows, _table

BACKENDS = ["hashmap", "rocksdb"]

QUERIES = [
    "SELECT l.id, l.v FROM l WHERE l.k IN (SELECT k FROM r)",
    "SELECT id FROM l WHERE k IN (SELECT k FROM r WHERE w > 2) AND v > -3",
    "SELECT l.id FROM l WHERE EXISTS (SELECT * FROM r WHERE r.k = l.k AND r.w > l.v)",
    "SELECT l.id FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.t = l.s)",
    "SELECT l.id, l.k FROM l WHERE l.k NOT IN (SELECT k FROM r WHERE k IS NOT NULL)",
    "SELECT l.id FROM l WHERE l.k NOT IN (SELECT k FROM r WHERE w < 0)",  # r has NULL keys: empty result
    "SELECT l.id FROM l WHERE l.v NOT IN (SELECT w FROM r WHERE w IS NOT NULL AND w > 100)",  # empty subquery
    "SELECT l.id FROM l WHERE l.k + 1 IN (SELECT r.k + 1 FROM r WHERE r.t = 'x') AND l.k NOT IN "
    "(SELECT k FROM r WHERE k IS NOT NULL AND w > 3)",
    "SELECT l.k, COUNT(*) FROM l WHERE l.id IN (SELECT id FROM r) GROUP BY l.k",
    # correlated NOT IN: SQL's NULL rules per correlation key (r has NULL k and w)
    "SELECT id FROM l WHERE v NOT IN (SELECT w FROM r WHERE r.k = l.k)",
    "SELECT id FROM l WHERE k NOT IN (SELECT k FROM r WHERE r.t = l.s AND w > 0)",
    # correlated grouped subqueries: grouped by the correlation key too, joined on it
    "SELECT id FROM l WHERE v IN (SELECT MAX(w) FROM r WHERE r.k = l.k GROUP BY r.t)",
    "SELECT id FROM l WHERE EXISTS (SELECT r.t FROM r WHERE r.k = l.k GROUP BY r.t HAVING COUNT(*) > 1)",
    "SELECT id FROM l WHERE NOT EXISTS (SELECT DISTINCT r.t FROM r WHERE r.k = l.k AND r.w > 2)",
    # in HAVING: a filter over the aggregate (the grouping column correlates)
    "SELECT k, COUNT(*) AS n FROM l GROUP BY k HAVING k IN (SELECT k FROM r WHERE w > 0) AND COUNT(*) > 1",
    "SELECT l.k, SUM(v) FROM l GROUP BY l.k HAVING NOT EXISTS (SELECT 1 FROM r WHERE r.k = l.k AND r.w > 3)",
    # a row on the left of IN: column by column; NOT IN null-aware per column, keyless when uncorrelated
    "SELECT id FROM l WHERE (k, s) IN (SELECT k, t FROM r)",
    "SELECT id FROM l WHERE (k, s) NOT IN (SELECT k, t FROM r WHERE w > 2)",  # NULLs on both sides
    "SELECT id, k, s FROM l WHERE (k, s) NOT IN (SELECT k, t FROM r WHERE w > 2 AND k IS NOT NULL "
    "AND t IS NOT NULL)",
    "SELECT id FROM l WHERE (l.k, l.v) IN (SELECT MAX(k), w FROM r GROUP BY w)",
    "SELECT id FROM l WHERE (l.k, l.v) NOT IN (SELECT MAX(k), w FROM r WHERE w IS NOT NULL GROUP BY w)",
    "SELECT id FROM l WHERE (l.k, l.s) NOT IN (SELECT k, t FROM r WHERE w > 3 UNION ALL SELECT k, t FROM r "
    "WHERE w < -3)",
    "SELECT id FROM l WHERE (k + 1, UPPER(s)) NOT IN (SELECT k + 1, UPPER(t) FROM r WHERE w > 2 "
    "AND k IS NOT NULL)",
    "SELECT k, COUNT(*) FROM l GROUP BY k, s HAVING (k, s) IN (SELECT k, t FROM r WHERE w > 0)",
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("semi")
    return write_jsonl(d / "l.json", _rows(21, 120, L_COLS)), write_jsonl(d / "r.json", _rows(22, 40, R_COLS))


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 3), ("hashmap", None)],
                         ids=["rocksdb-batch3", "hashmap-batch-default"])
@pytest.mark.parametrize("sql", QUERIES)
def test_semi_anti_join_equals_duckdb(tmp_path, files, backend, batch_size, sql):
    lp, rp = files
    env = make_env(tmp_path, backend, batch_size)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    plan = env.execute_sql("EXPLAIN " + sql).message
    assert "LeftSemiJoin" in plan or "LeftAntiJoin" in plan, plan
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=30))
    assert res.job.done
    expected = _duck({"l": (lp, L_COLS), "r": (rp, R_COLS)}, sql)
    assert_same(fold(changelog), expected, sql)
    if sql == QUERIES[0]:
        assert all(k == RowKind.INSERT for k, _ in changelog), "semi join of insert-only inputs: insert-only"
    if "w < 0" in sql:
        assert not expected, "a NULL in the subquery makes every NOT IN unknown"


CDC_QUERIES = [
    "SELECT l.id FROM l WHERE l.k IN (SELECT k FROM c)",
    "SELECT l.id FROM l WHERE NOT EXISTS (SELECT * FROM c WHERE c.k = l.k AND c.w >= l.v)",
    "SELECT l.id, l.k FROM l WHERE l.k NOT IN (SELECT k FROM c)",
    "SELECT c.id FROM c WHERE c.k NOT IN (SELECT k FROM l WHERE k IS NOT NULL) AND c.w > -4",
    "SELECT l.id FROM l WHERE l.v NOT IN (SELECT w FROM c WHERE c.k = l.k)",
    "SELECT l.id FROM l WHERE EXISTS (SELECT c.t FROM c WHERE c.k = l.k GROUP BY c.t HAVING SUM(c.w) > 0)",
    "SELECT l.id FROM l WHERE (l.k, l.s) IN (SELECT k, t FROM c)",
    "SELECT l.id, l.k, l.s FROM l WHERE (l.k, l.s) NOT IN (SELECT k, t FROM c WHERE w > 0)",
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sql", CDC_QUERIES)
def test_semi_anti_join_over_changelog(tmp_path, files, backend, sql):
    """Rows of the subquery come and go (debezium updates and deletes, NULL keys among them)."""
    lp, _ = files
    events, final = _cdc(9, 150)
    env = make_env(tmp_path, backend, 4)
    _table(env, "l", lp, L_COLS)
    _table(env, "c", write_debezium(tmp_path / "c.json", events), R_COLS, fmt="debezium-json")
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=30))
    assert res.job.done
    snap = write_jsonl(tmp_path / "snap.json", final)
    assert_same(fold(changelog), _duck({"l": (lp, L_COLS), "c": (snap, R_COLS)}, sql), sql)
    assert any(k == RowKind.DELETE for k, _ in changelog), "rows are retracted as matches come and go"


@pytest.mark.parametrize(("sql", "message"), [
    ("SELECT id FROM l WHERE k IN (SELECT k FROM r) OR v > 0",
     "Subqueries in WHERE are not supported yet; [NOT] IN (SELECT ...) and [NOT] EXISTS (...) are supported"),
    ("SELECT id FROM l WHERE EXISTS (SELECT r.t FROM r WHERE r.k > l.k GROUP BY r.t)",
     "A correlated subquery with GROUP BY or DISTINCT may only correlate by equalities"),
    ("SELECT id FROM l WHERE k IN (SELECT k, w FROM r)", "The subquery of IN must select one column"),
    ("SELECT id FROM l WHERE (k, v) IN (SELECT k FROM r)",
     "the row on the left of IN has 2 columns, the subquery selects 1"),
    ("SELECT id FROM l WHERE (k, v) NOT IN (SELECT k, w, t FROM r GROUP BY k, w, t)",
     "the row on the left of IN has 2 columns, the subquery selects 3"),
    ("SELECT id FROM l WHERE EXISTS (SELECT * FROM r WHERE r.w > 0)",
     "a streaming join needs an equality condition between the two inputs"),
    ("SELECT id FROM l WHERE EXISTS (SELECT * FROM r WHERE r.k = l.k AND r.w IN (SELECT v FROM l))",
     "A subquery inside a subquery's WHERE is not supported yet"),
    ("SELECT id, k IN (SELECT k FROM r) FROM l", "Subqueries in the SELECT list are not supported yet"),
])
def test_unsupported_subqueries_are_rejected(tmp_path, files, sql, message):
    env = make_env(tmp_path)
    _table(env, "l", files[0], L_COLS)
    _table(env, "r", files[1], R_COLS)
    with pytest.raises(SqlError) as ei:
        env.execute_sql(sql)
    assert message in ei.value.message, ei.value.message
    assert ei.value.line == 1 and ei.value.col is not None
