"""SUM of INT / SMALLINT is INT / SMALLINT (Flink's type); a total outside it wraps around as Java's.

As Flink 2.3, whose SUM adds in the result type (compat cases ``sum_small_ints_wrap_*`` hold
Flink's answers). Every form of the SUM is covered: the fixed-width group aggregate, the object
form (beside a COUNT(DISTINCT)), a window aggregate.
"""

from __future__ import annotations

import pytest

from tests.runtime.oracle import make_env, stream_rows, write_jsonl

QUERIES = [
    "SELECT k, SUM(v) FROM t GROUP BY k",
    "SELECT k, SUM(v), COUNT(DISTINCT v) FROM t GROUP BY k",
    "SELECT k, SUM(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) "
    "GROUP BY k, window_start, window_end",
]


def _env(tmp_path, sql_type: str, values: list[int]):
    rows = [{"k": "a", "v": v, "ts": "2024-05-01 00:00:00"} for v in values]
    path = write_jsonl(tmp_path / "t.jsonl", rows)
    env = make_env(tmp_path, batch_size=1)
    env.execute_sql(f"CREATE TABLE t (k STRING, v {sql_type}, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) "
                    f"WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
    return env


@pytest.mark.parametrize("sql", QUERIES, ids=["fixed-width", "objects", "window"])
@pytest.mark.parametrize(("sql_type", "top"), [("INT", 2**31 - 1), ("SMALLINT", 2**15 - 1)])
def test_total_beyond_the_result_type_wraps_as_java(tmp_path, sql, sql_type, top):
    env = _env(tmp_path, sql_type, [top, 1])
    assert [row[1] for row in stream_rows(env, sql)][-1] == -top - 1


@pytest.mark.parametrize("sql", QUERIES, ids=["fixed-width", "objects", "window"])
def test_total_at_the_bound_is_exact(tmp_path, sql):
    env = _env(tmp_path, "INT", [2**31 - 2, 1, -5, 5])
    assert [row[1] for row in stream_rows(env, sql)] == [2**31 - 1]
