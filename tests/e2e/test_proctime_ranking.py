"""Deduplication and Top-N ordered by a PROCTIME() column rank rows by arrival, as Flink.

Every row of a batch gets the same PROCTIME(), so ``ORDER BY pt DESC`` (Flink's keep-last-row
deduplication) kept the *first* row of each key: ties ranked in arrival order. The expected
tables are Flink's processing-time semantics (the first / the last row per key).
"""

from __future__ import annotations

import json

import pytest

from streamsql import StreamEnvironment

ROWS = [("a", 1), ("a", 2), ("b", 3), ("a", 4), ("b", 5)]


@pytest.fixture
def env(tmp_path):
    (tmp_path / "in.json").write_text("".join(json.dumps({"k": k, "v": v}) + "\n" for k, v in ROWS))
    e = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql(f"CREATE TABLE t (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/in.json', 'format' = 'json')")
    yield e
    e.close()


def _fold(env, q: str) -> list[tuple]:
    table: list[tuple] = []
    for kind, row in env.execute_sql(q).collect(timeout=60):
        if kind.short in ("+I", "+U"):
            table.append(tuple(row))
        else:
            table.remove(tuple(row))
    return table


@pytest.mark.parametrize(("order", "n", "expected"), [
    ("DESC", 1, [("a", 4), ("b", 5)]),          # keep the last row per key
    ("ASC", 1, [("a", 1), ("b", 3)]),           # keep the first row per key
    ("DESC", 2, [("a", 2), ("a", 4), ("b", 3), ("b", 5)]),
])
def test_proctime_order_is_arrival_order(env, order, n, expected):
    assert sorted(_fold(env, f"SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k "
                                f"ORDER BY pt {order}) AS rn FROM t) WHERE rn <= {n}")) == expected
