"""A regular join keeps only the columns read above it (streamsql/plan/join_prune.py), as Flink's plan.

Results are DuckDB's over the same rows, for inner and outer joins, a residual condition over a
pruned side's column, and a changelog input (rows equal on the kept columns share an entry)."""

from __future__ import annotations

import pytest

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


@pytest.fixture
def env(tmp_path):
    paths = {name: write_jsonl(tmp_path / f"{name}.json", gen_rows(seed, 200))
             for name, seed in (("l", 3), ("r", 4))}
    e = make_env(tmp_path)
    for name, path in paths.items():
        create_table(e, name, path)
    e.con = duck_con(paths)
    yield e
    e.close()


def _join_line(env, sql: str) -> str:
    plan = env.execute_sql("EXPLAIN " + sql).message
    return next(ln for ln in plan.splitlines() if "Join(" in ln)


@pytest.mark.parametrize("sql, kept", [
    ("SELECT l.s, r.f FROM l JOIN r ON l.k = r.k", "select=[k, s, k0, f0]"),
    ("SELECT l.id, r.g FROM l LEFT JOIN r ON l.k = r.k AND r.x > l.x", "select=[id, k, x, g0, k0, x0]"),
    ("SELECT l.id, r.id FROM l FULL JOIN r ON l.k = r.k AND l.d < r.d "
     "WHERE l.b IS NULL OR r.s <> 'fig'",
     "select=[id, k, b, d, id0, k0, d0, s0]"),
    ("SELECT l.g, r.id, r.x * 2 FROM l RIGHT JOIN r ON l.g = r.g AND l.k = r.k",
     "select=[g, k, id0, g0, k0, x0]"),
])
def test_the_join_keeps_the_read_columns_and_gives_duckdbs_rows(env, sql, kept):
    assert kept in _join_line(env, sql)
    assert_same(stream_rows(env, sql), duck_rows(env.con, sql), sql)


def test_a_changelog_side_counts_rows_equal_on_the_kept_columns(env):
    # per (g, k) the max x, retracted and re-emitted as x grows; only g, k reach the join's state
    # (l.x > 0 is filtered below the join); output names stay those of the whole join (g0, k0)
    sql = ("SELECT l.id, m.g FROM l JOIN (SELECT g, k, MAX(x) AS mx FROM r GROUP BY g, k) m ON l.k = m.k "
           "WHERE l.x > 0")
    assert "select=[id, k, g0, k0]" in _join_line(env, sql)
    assert_same(stream_rows(env, sql), duck_rows(env.con, sql), sql)


def test_a_join_whose_every_column_is_read_is_unchanged(env):
    sql = "SELECT * FROM l JOIN r ON l.id = r.id"
    line = _join_line(env, sql)
    assert "select=[id, g, k, x, b, d, f, s, id0, g0, k0, x0, b0, d0, f0, s0]" in line
    assert_same(stream_rows(env, sql), duck_rows(env.con, sql), sql)
