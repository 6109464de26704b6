"""Scalar subqueries on streams (a LEFT join with the subquery's one row, or with it grouped by its
correlation key), against DuckDB.

The queries run as streaming jobs in small batches, so the subquery's aggregate changes many times
while the query's rows arrive: every row is retracted and re-emitted as it changes, and the folded
result must be DuckDB's batch answer over the same rows (also over a debezium changelog).
"""

from __future__ import annotations

import pytest

from streamsql.core.errors import SqlError
from tests.runtime.oracle import assert_same, fold, make_env, write_debezium, write_jsonl
from tests.runtime.test_joins import L_COLS, R_COLS, _cdc, _duck, _rows, _table

QUERIES = [
    "SELECT id, v FROM l WHERE v > (SELECT AVG(CAST(v AS DOUBLE)) FROM l)",
    "SELECT l.id, (SELECT MAX(w) FROM r) AS top, l.v FROM l",
    "SELECT * FROM l WHERE v >= (SELECT MIN(w) FROM r WHERE t = 'x') AND k IS NOT NULL",
    "SELECT id, v - (SELECT MIN(v) FROM l) AS above FROM l WHERE k * 10 < (SELECT COUNT(*) FROM r)",
    "SELECT l.id, r.id FROM l JOIN r ON l.k = r.k WHERE l.v > (SELECT AVG(CAST(w AS DOUBLE)) FROM r)",
    "SELECT k, COUNT(*) FROM l WHERE v < (SELECT SUM(w) FROM r WHERE w > 100) GROUP BY k",  # NULL: no row
    # correlated: grouped by the correlation key; no match is NULL, COUNT of no rows 0 (also in expressions)
    "SELECT id, (SELECT MAX(w) FROM r WHERE r.k = l.k) AS top, (SELECT COUNT(*) FROM r WHERE k = l.k) AS n "
    "FROM l",
    "SELECT id FROM l WHERE v > (SELECT AVG(CAST(w AS DOUBLE)) FROM r WHERE t = 'x' AND l.k + 1 = r.k)",
    "SELECT id, (SELECT COUNT(w) * 2 + 1 FROM r WHERE r.k = l.k AND r.id = l.id) AS c FROM l",
    # correlated by other comparisons too: joined with the distinct outer values (Calcite's way)
    "SELECT id FROM l WHERE v > (SELECT AVG(CAST(w AS DOUBLE)) FROM r WHERE r.k = l.k AND r.id <> l.id)",
    "SELECT id, (SELECT COUNT(*) FROM r WHERE r.k = l.k AND r.w > l.v) AS n FROM l WHERE id > 3",
    # in HAVING: a filter over the aggregate
    "SELECT k, COUNT(*) AS n, MAX(v) FROM l GROUP BY k HAVING COUNT(*) * 3 > (SELECT COUNT(*) FROM r) / 4",
    "SELECT DISTINCT k FROM l GROUP BY k, s HAVING SUM(v) > (SELECT AVG(w) FROM r WHERE r.k = l.k)",
    # in the SELECT list of an aggregating query: above the aggregate (plan/scalar_in_aggregate.py)
    "SELECT k, COUNT(*), (SELECT MAX(w) FROM r) FROM l GROUP BY k",
    "SELECT k, SUM(v) - (SELECT MIN(w) FROM r) AS d, MAX(v) FROM l WHERE id > 2 GROUP BY k "
    "HAVING COUNT(*) > 1",
    "SELECT COUNT(*) - (SELECT COUNT(*) FROM r) AS n FROM l",
]


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("scalar")
    return write_jsonl(d / "l.json", _rows(31, 90, L_COLS)), write_jsonl(d / "r.json", _rows(32, 40, R_COLS))


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 4), ("hashmap", None)],
                         ids=["rocksdb-batch4", "hashmap-batch-default"])
@pytest.mark.parametrize("sql", QUERIES)
def test_scalar_subquery_equals_duckdb(tmp_path, files, backend, batch_size, sql):
    lp, rp = files
    env = make_env(tmp_path, backend, batch_size)
    _table(env, "l", lp, L_COLS)
    _table(env, "r", rp, R_COLS)
    assert "Join(joinType=[LeftOuterJoin]" in env.execute_sql("EXPLAIN " + sql).message or "LEFT" in sql
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=60))
    assert res.job.done
    expected = _duck({"l": (lp, L_COLS), "r": (rp, R_COLS)}, sql)
    assert_same(fold(changelog), expected, sql)
    if "w > 100" not in sql:
        assert expected


@pytest.mark.parametrize("sql", [
    "SELECT id, v FROM l WHERE v > (SELECT AVG(CAST(w AS DOUBLE)) FROM c)",
    "SELECT id, v, (SELECT MIN(w) FROM c WHERE c.k = l.k) AS low, "
    "(SELECT COUNT(*) FROM c WHERE c.k = l.k) AS n FROM l",
])
def test_scalar_subquery_over_a_changelog(tmp_path, files, sql):
    """The subquery's rows are updated and deleted: its value changes and the rows follow."""
    lp, _ = files
    events, final = _cdc(5, 120)
    env = make_env(tmp_path, "hashmap", 4)
    _table(env, "l", lp, L_COLS)
    _table(env, "c", write_debezium(tmp_path / "c.json", events), R_COLS, fmt="debezium-json")
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=60))
    snap = write_jsonl(tmp_path / "snap.json", final)
    assert_same(fold(changelog), _duck({"l": (lp, L_COLS), "c": (snap, R_COLS)}, sql), sql)


@pytest.mark.parametrize(("sql", "message", "caret"), [
    ("SELECT id FROM l WHERE v > (SELECT w FROM r)",
     "A scalar subquery on a stream must be an aggregate without GROUP BY", "SELECT w"),
    ("SELECT id FROM l WHERE v > (SELECT MAX(w) FROM r GROUP BY k)",
     "A scalar subquery on a stream must be an aggregate without GROUP BY", "SELECT MAX"),
    ("SELECT id, (SELECT MAX(w), MIN(w) FROM r) FROM l", "A scalar subquery must select one column",
     "SELECT MAX"),
    ("SELECT id FROM l WHERE v > (SELECT MAX(w) FROM r WHERE r.k = l.k AND (r.w > l.v OR l.v IS NULL))",
     "A correlated scalar subquery correlates by comparisons", "w > l.v"),
    ("SELECT id FROM l WHERE v > (SELECT MAX(w) + l.v FROM r)",
     "a correlated scalar subquery .* is not supported yet", "v FROM r"),
    # a correlated one in an aggregating SELECT (an uncorrelated one is answered: QUERIES)
    ("SELECT k, COUNT(*), (SELECT MAX(w) FROM r WHERE r.k = l.k) FROM l GROUP BY k",
     "A scalar subquery in the SELECT list of an aggregating query is not supported yet", "SELECT MAX"),
])
def test_scalar_subqueries_that_may_have_more_rows_are_rejected(tmp_path, files, sql, message, caret):
    env = make_env(tmp_path)
    _table(env, "l", files[0], L_COLS)
    _table(env, "r", files[1], R_COLS)
    with pytest.raises(SqlError, match=message) as e:
        env.execute_sql(sql)
    assert sql[e.value.col - 1:].startswith(caret), str(e.value)
