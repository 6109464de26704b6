"""A query writing more than one rowtime attribute column into a table, refused as by Flink 2.3.

Flink 2.3 (PyFlink 2.3.0, explain_sql of each INSERT over datagen tables with a WATERMARK on
``ts``) refuses with ``TableException: The query contains more than one rowtime attribute column
[ts, ts0] for writing into table 'default_catalog.default_database.snk'.`` for an interval join and
a window join selecting both inputs' rowtimes and for one rowtime selected twice, into a print or a
blackhole sink; a CAST of one to TIMESTAMP(3) plans. StreamSQL used to run them all. The compat
cases ``*_rowtimes_fails`` / ``rowtime_twice_fails`` run three of them on Flink.
"""

from __future__ import annotations

import pytest

from streamsql.core.errors import PlanError

SINK_COLS = "(id INT, ta TIMESTAMP(3), tb TIMESTAMP(3))"
TWO = "The query contains more than one rowtime attribute column [{}] for writing into table 'snk'."
INTERVAL = "FROM a JOIN b ON a.id = b.id AND a.ts BETWEEN b.ts - INTERVAL '1' MINUTE AND b.ts"
WINDOWED = ("FROM (SELECT * FROM TABLE(TUMBLE(TABLE a, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) l JOIN "
            "(SELECT * FROM TABLE(TUMBLE(TABLE b, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) r ON l.id = r.id "
            "AND l.window_start = r.window_start AND l.window_end = r.window_end")


@pytest.fixture
def env(planning_env):
    return planning_env("(id INT, ts TIMESTAMP(3), t2 TIMESTAMP(3), WATERMARK FOR ts AS ts)", ("a", "b"), 5)


@pytest.mark.parametrize(
    ("connector", "select", "names"),
    [
        ("print", f"SELECT a.id, a.ts, b.ts {INTERVAL}", "ts, ts0"),
        ("blackhole", f"SELECT a.id, a.ts, b.ts {INTERVAL}", "ts, ts0"),
        ("print", f"SELECT a.id, a.ts AS x, b.ts AS y {INTERVAL}", "x, y"),
        ("print", f"SELECT l.id, l.ts, r.ts {WINDOWED}", "ts, ts0"),
        ("print", "SELECT id, ts, ts FROM a", "ts, ts0"),
    ],
)
def test_two_rowtimes_into_a_sink_are_refused(env, connector, select, names):
    env.execute_sql(f"CREATE TABLE snk {SINK_COLS} WITH ('connector' = '{connector}')")
    stmt = f"INSERT INTO snk {select}"
    with pytest.raises(PlanError) as ei:
        env.execute_sql(f"EXPLAIN {stmt}")
    assert ei.value.message.startswith(TWO.format(names))
    start = len("EXPLAIN INSERT INTO snk ") + select.index(", ", select.index(", ") + 1) + 2
    item = select[start - len("EXPLAIN INSERT INTO snk "):].split(" FROM ")[0]  # the second rowtime's item
    assert ei.value.line == 1
    assert start < ei.value.col <= start + len(item)


@pytest.mark.parametrize(
    "select",
    [
        f"SELECT a.id, a.ts, CAST(b.ts AS TIMESTAMP(3)) {INTERVAL}",
        "SELECT id, ts, t2 FROM a",  # one rowtime, one plain TIMESTAMP
    ],
)
def test_one_rowtime_into_a_sink_plans(env, select):
    env.execute_sql(f"CREATE TABLE snk {SINK_COLS} WITH ('connector' = 'print')")
    env.execute_sql(f"EXPLAIN INSERT INTO snk {select}")
