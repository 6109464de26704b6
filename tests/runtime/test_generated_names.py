"""User columns named as the planner's own columns (``__agg0``, ``__k0``, ``__ws``, ``__rank_number``,
``__scalar_0``, ``__l``, ``__copy``, ``__rid``...), in every operator that adds columns of its own.

Flink allows any column name, so a user's ``__agg0`` must stay the user's column next to an
aggregate's result. Before the planner's names were kept apart (marked references in scopes,
names picked apart from the schema they join) these queries failed with internal errors
(ambiguous or duplicate columns), refused valid queries, dropped a user's column from a Top-N's
result, returned wrong rows (INTERSECT / EXCEPT ALL read the user's ``__agg0`` as the count) or
ran a query Flink refuses (an ungrouped ``__k0`` read as the first grouping key). Expected rows:
DuckDB's answer to the same query over the same rows.
"""

from __future__ import annotations

import json

import duckdb
import pytest

from streamsql.core.errors import SqlError
from tests.runtime.oracle import assert_same, duck_rows, make_env, stream_rows

NAMES = ["__agg0", "__agg1", "__k0", "__a0", "__e", "__ts", "__ws", "__rid", "__copy", "__l", "__r",
         "__rank_number", "__rank_p0", "__rank_o0", "__rank_qualify", "__scalar_0", "__scalar_key_0"]
TUMBLE_START = "time_bucket(INTERVAL '20 seconds', ts)"

# (StreamSQL query, DuckDB query or None for the same text)
QUERIES = [
    # OVER: the partition keys, time and results sat beside the passed columns under the same names
    ("SELECT id, `__k0`, `__ts`, `__a0`, `__agg0`, `__rid`, SUM(`__agg0`) OVER (PARTITION BY `__k0` "
     "ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM t", None),
    ("SELECT id, `__agg0`, MAX(`__a0`) OVER (PARTITION BY g ORDER BY ts RANGE BETWEEN INTERVAL '10' "
     "SECOND PRECEDING AND CURRENT ROW) FROM t", None),
    # a group window's placeholders (__ws...) beside the input's columns
    ("SELECT TUMBLE_START(ts, INTERVAL '20' SECOND), g, SUM(`__ws`), SUM(`__agg0`) FROM t "
     "GROUP BY TUMBLE(ts, INTERVAL '20' SECOND), g",
     f"SELECT {TUMBLE_START}, g, SUM(__ws), SUM(__agg0) FROM t GROUP BY {TUMBLE_START}, g"),
    ("SELECT g, `__k0`, SUM(`__agg0`) AS `__agg1`, COUNT(DISTINCT `__e`) FROM t GROUP BY g, `__k0` "
     "HAVING MAX(`__agg1`) > 0", None),
    # Top-N, deduplication, QUALIFY: the rank number and keys are hidden columns of their own
    ("SELECT id, g, `__rank_number`, `__rank_p0`, `__rank_o0`, rn FROM (SELECT *, ROW_NUMBER() OVER "
     "(PARTITION BY g ORDER BY `__rank_o0` DESC) AS rn FROM t) WHERE rn <= 2", None),
    ("SELECT id, g, `__rank_number` FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY UPPER(g) ORDER BY "
     "`__rank_number` + 1 DESC) AS rn FROM t) WHERE rn <= 2", None),
    ("SELECT id, g, `__rank_number`, `__rank_qualify` FROM t "
     "QUALIFY ROW_NUMBER() OVER (PARTITION BY g ORDER BY `__rank_qualify` DESC) = 1", None),
    ("SELECT id, g, `__rank_number`, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY g ORDER BY ts) "
     "AS rn FROM t) WHERE rn = 1", None),
    # INTERSECT / EXCEPT: the side tags, counts and copy number beside the user's columns
    ("SELECT g, `__agg0` FROM t WHERE x > 1 INTERSECT SELECT g, `__agg0` FROM t WHERE x < 4", None),
    ("SELECT g AS `__copy`, x AS `__agg1` FROM t EXCEPT ALL SELECT g, x FROM t WHERE id > 5", None),
    ("SELECT x AS `__l`, g AS `__r` FROM t INTERSECT ALL SELECT x, g FROM t WHERE id > 3", None),
    # scalar subqueries: their value and join keys beside the query's columns, their qualifier
    ("SELECT id, `__scalar_0`, `__scalar_key_0`, (SELECT MAX(x) FROM t) AS m FROM t", None),
    ("SELECT id, (SELECT MAX(`__scalar_0`) FROM t) FROM t", None),
    ("SELECT id, `__scalar_0` FROM t AS `__scalar` WHERE x > "
     "(SELECT AVG(x) FROM t AS i WHERE i.g = `__scalar`.g)", None),
]


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """(a StreamSQL environment with table t, a DuckDB connection with the same rows as t)."""
    tmp = tmp_path_factory.mktemp("generated_names")
    rows = []
    for i in range(12):
        row = {"id": i, "g": "abc"[i % 3], "x": i * 7 % 5, "ts": f"2024-01-01 00:00:{i * 5:02d}.000"}
        row.update({n: 1000 * (j + 1) + (i * 37 + j) % 11 for j, n in enumerate(NAMES)})
        rows.append(row)
    path = tmp / "t.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    cols = ", ".join(f"`{n}` INT" for n in NAMES)
    env = make_env(tmp)
    env.execute_sql(f"CREATE TABLE t (id INT, g STRING, x INT, ts TIMESTAMP(3), {cols}, "
                    f"WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                    f"'format' = 'json')")
    types = ", ".join([f"'{n}': 'INTEGER'" for n in ["id", "x", *NAMES]]
                      + ["'g': 'VARCHAR'", "'ts': 'TIMESTAMP'"])
    con = duckdb.connect()
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_json('{path}', columns = {{{types}}})")
    yield env, con
    env.close()


@pytest.mark.parametrize(("query", "duck"), QUERIES)
def test_a_column_named_as_the_planners_own_is_the_users(tables, query, duck):
    env, con = tables
    expected = duck_rows(con, (duck or query).replace("`", '"'))
    assert expected, "the query must return rows for the comparison to mean something"
    assert_same(stream_rows(env, query), expected, query)


@pytest.mark.parametrize("column", ["__k0", "__agg0"])
def test_an_ungrouped_column_named_as_a_grouping_key_is_refused(tables, column):
    """Flink refuses it (as DuckDB does); `__k0` was read as the first grouping key, `__agg0` 'not found'."""
    env, con = tables
    query = f"SELECT g, `{column}` FROM t GROUP BY g"
    with pytest.raises(duckdb.BinderException):
        con.execute(query.replace("`", '"'))
    with pytest.raises(SqlError, match=f"Column '{column}' must appear in the GROUP BY clause"):
        env.execute_sql(query)
