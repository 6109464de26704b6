"""A filter or projection between a window TVF and its window aggregate, planned as Flink 2.3 plans it.

Flink 2.3's EXPLAIN (``scripts/flink_window_calcs.py``; PyFlink 2.3.0 over a datagen table with a
WATERMARK on ``ts``) plans every one of these as an insert-only window aggregate: a Calc that only
passes window_start / window_end on (renamed or not) is pushed under the TVF
(``time_col=[ts]``), one that filters on or computes from them gives a window-attached aggregate
(``win_start=[window_start], win_end=[window_end]``). StreamSQL used to plan the first kind as an
updating GroupAggregate (refused into an append Kafka sink) and to refuse the second. Their rows,
late rows included, are compared with Flink's in the compat cases ``wintvf_*``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from streamsql.core.errors import SqlError

FLINK = json.loads((Path(__file__).parent / "window_calcs_flink.json").read_text())
DDL = ("CREATE TEMPORARY VIEW fv AS SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
       "INTERVAL '1' MINUTE)) WHERE v > 0")


def kind(plan: str) -> str:
    """``pushed``, ``attached`` or ``group``, as ``scripts/flink_window_calcs.py`` reads Flink's plan."""
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    if "WindowAggregate(" not in physical:
        return "group"
    return "attached" if "win_start=[" in physical else "pushed"


@pytest.fixture
def env(planning_env):
    env = planning_env("(k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)",
                       ("ev",), 5)
    env.execute_sql(DDL)
    return env


#: Flink plans these, StreamSQL refuses them (not supported yet, docs/windows.md): the words.
REFUSED_HERE = {q: "window columns a WHERE or a projection refers to is not supported yet"
                for q in FLINK if "ROLLUP" in q and "WHERE window_start" in q}


@pytest.mark.parametrize("query", list(FLINK))
def test_window_aggregate_through_calcs_as_flink(env, query):
    if query in REFUSED_HERE:
        with pytest.raises(SqlError, match=REFUSED_HERE[query]):
            env.execute_sql(f"EXPLAIN {query}")
        return
    plan = env.execute_sql(f"EXPLAIN {query}").message
    expected = FLINK[query]
    assert kind(plan) == expected
    if expected != "group":  # insert-only: an append Kafka sink takes it
        physical = plan.split("== Optimized Physical Plan ==")[1]
        assert "changelog=[insert-only]" in physical.split("WindowAggregate(")[1].split("\n")[0]
        assert "GroupAggregate" not in physical


def test_append_kafka_sink_takes_it(env):
    """The newcomer's INSERT into an append Kafka sink, refused before (an updating GroupAggregate)."""
    env.execute_sql("CREATE TABLE snk (ws TIMESTAMP(3), we TIMESTAMP(3), n BIGINT) WITH ("
                    "'connector' = 'kafka', 'topic' = 'wintvf33_snk', "
                    "'properties.bootstrap.servers' = '127.0.0.1:9', "
                    "'format' = 'json')")
    query = next(q for q in FLINK if "WHERE v > 0) GROUP BY window_start" in q)
    plan = env.execute_sql(f"EXPLAIN INSERT INTO snk {query}").message
    assert "window=[TUMBLE(time_col=[ts], size=[60 s])]" in plan
