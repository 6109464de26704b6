"""A filter or projection between a window TVF and its window aggregate, planned as Flink 2.3 plans it.

Flink 2.3's EXPLAIN (``scripts/flink_window_calcs.py``; PyFlink 2.3.0 over a datagen table with a
WATERMARK on ``ts``) plans every one of these as an insert-only window aggregate: a Calc that only
passes window_start / window_end on (renamed or not) is pushed under the TVF
(``time_col=[ts]``), one that filters on or computes from them gives a window-attached aggregate
(``win_start=[window_start], win_end=[window_end]``). StreamSQL used to plan the first kind as an
updating GroupAggregate (refused into an append Kafka sink) and to refuse the second. Their rows,
late rows included, are compared with Flink's in the compat cases ``wintvf_*``.

wintvf34 added: grouping sets over window-attached rows (a window aggregate over the Expand when
every set holds both window columns, else a GroupAggregate, as Flink), processing-time TVFs (a
window-attached one is a GroupAggregate in Flink 2.3), Calcs between a SESSION TVF and its
aggregate (pushed under it: refused here before), and window Top-N, deduplication and joins whose
inputs have Calcs. session35: Flink's window-attached SESSION aggregate, SESSION TVF rows under a
Top-N, deduplication, join or GroupAggregate run (:mod:`streamsql.runtime.operators.session_tvf`);
grouping sets over a SESSION stay refused here (:func:`refused_here`); proctsession36: a
processing-time SESSION TVF's rows run too (a GroupAggregate over them, as Flink 2.3);
processing-time window Top-N, deduplication and joins are refused in
Flink 2.3's words (``"error: ..."`` in the recording).
"""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import pytest

from streamsql.core.errors import SqlError

_SCRIPT = Path(__file__).parents[2] / "scripts" / "flink_window_calcs.py"
_spec = importlib.util.spec_from_file_location("flink_window_calcs", _SCRIPT)
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)  # its DDL, queries and reading of a plan (PyFlink is imported in main only)
FLINK = json.loads((Path(__file__).parent / "window_calcs_flink.json").read_text())
kind = oracle.kind


@pytest.fixture
def env(planning_env):
    env = planning_env("(k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)",
                       ("ev",), 5)
    for statement in oracle.DDL[1:]:  # ev is the fixture's
        env.execute_sql(statement)
    return env


#: Flink plans these, StreamSQL refuses them (not supported yet, docs/windows.md): the words.
SESSION_SETS = "GROUPING SETS, ROLLUP and CUBE in a SESSION window aggregation are not supported yet"


def refused_here(query: str) -> str | None:
    """What StreamSQL says to a query Flink 2.3 plans over SESSION TVF rows (not supported yet), else None.

    session35 runs the rest: the window-attached SESSION aggregate, Top-N, deduplication and joins
    over SESSION TVF rows, and a GroupAggregate over them (a Calc dropping the PARTITION BY key, a
    GROUP BY without it or without window_end); proctsession36 a processing-time one's rows.
    """
    flink = FLINK[query]
    if "SESSION" not in query or flink in ("pushed", "attached") or flink.startswith("error: "):
        return None
    if "ROLLUP" in query:
        return SESSION_SETS
    return None


def test_refused_here_as_listed():
    """The SESSION shapes StreamSQL still refuses: grouping sets."""
    refused = sorted(FLINK[q] for q in FLINK if refused_here(q))
    assert refused == ["group"]


@pytest.mark.parametrize("query", list(FLINK))
def test_window_aggregate_through_calcs_as_flink(env, query):
    expected = FLINK[query]
    refusal = expected.removeprefix("error: ") if expected.startswith("error: ") else refused_here(query)
    if refusal is not None:  # Flink's refusal in its words, or ours of what it plans (not supported yet)
        with pytest.raises(SqlError, match=re.escape(refusal)):
            env.execute_sql(f"EXPLAIN {query}")
        return
    plan = env.execute_sql(f"EXPLAIN {query}").message
    assert kind(plan) == expected
    if expected in ("pushed", "attached"):  # insert-only: an append Kafka sink takes it
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
    assert "window=[TUMBLE(time_col=[ts], size=[1 min])]" in plan


_WINDOWS = Path(__file__).parent / "window_calcs_session_windows_flink.json"
FLINK_WINDOWS = json.loads(_WINDOWS.read_text()) if _WINDOWS.exists() else {}


@pytest.mark.parametrize("query", [q for q in FLINK_WINDOWS if not refused_here(q)])
def test_session_tvf_explain_shows_flinks_windows(env, query):
    """A SESSION TVF's ``window=[...]`` texts as in Flink 2.3's EXPLAIN (session35, polish35).

    StreamSQL prints ``window=[...]`` on the window TVF and the window aggregate (a window-attached
    one's ``SESSION(win_start=[...], win_end=[...], gap=[...], partition keys=[...])``, one whose
    Calcs were pushed under the TVF ``SESSION(time_col=[ts], gap=[...], partition keys=[...])``);
    each is one of Flink's for the query (a TUMBLE's size too: ``1 min``).
    """
    ours = oracle.window_texts(env.execute_sql(f"EXPLAIN {query}").message)
    assert ours and set(ours) <= set(FLINK_WINDOWS[query])
