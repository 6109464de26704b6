"""break32: regular joins without a condition over both inputs (sqlgaps32) over changelog inputs,
outer, at parallelism 1 and 2: the changes folded equal DuckDB's answer."""

from __future__ import annotations

import pytest

from tests.runtime.test_joins import _duck, _stream, _with_changelog, files  # noqa: F401 - a fixture

QUERIES = [
    "SELECT l.id, c.id, c.w FROM l, c WHERE l.id < 15",
    "SELECT l.id, c.id, c.w FROM l LEFT JOIN c ON TRUE WHERE l.id < 10",
    "SELECT c.id, d.id FROM c FULL JOIN c AS d ON c.w = 3",
    "SELECT c.id, l.id FROM c LEFT JOIN (SELECT * FROM l WHERE l.id < 6) l ON c.w > 0",
    "SELECT c.id, d.id FROM c RIGHT JOIN c AS d ON d.t = 'x'",
    "SELECT a.n, c.id FROM (SELECT COUNT(*) AS n FROM c) a CROSS JOIN c",
    "SELECT a.n, b.m FROM (SELECT k, COUNT(*) AS n FROM c GROUP BY k) a FULL JOIN "
    "(SELECT t, MAX(w) AS m FROM c GROUP BY t) b ON TRUE",
]


@pytest.mark.parametrize("parallelism", [1, 2])
@pytest.mark.parametrize("sql", QUERIES)
def test_join_without_condition_over_changelog_inputs(tmp_path, files, sql, parallelism):  # noqa: F811
    env, paths = _with_changelog(tmp_path, files, "hashmap", 7)
    env.execute_sql(f"SET 'parallelism.default' = '{parallelism}'")
    actual, _ = _stream(env, sql, timeout=60)
    assert actual == _duck(paths, sql), sql
