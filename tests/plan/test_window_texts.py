"""A window aggregate's ``window=[...]`` in EXPLAIN, spelled as Flink 2.3 spells it.

Flink 2.3's EXPLAIN (``scripts/flink_window_texts.py``, recorded in ``window_texts_flink.json``)
prints a window's size, slide, step, gap and offset in the largest unit that divides it
(``1 min``, ``90 s``, ``1500 ms``, ``2 d``: ``TimeUtils.formatWithHighestUnit``), and a SESSION
aggregate's PARTITION BY keys (``partition keys=[k]``) whether or not a Calc was pushed under its
TVF. StreamSQL printed ``60 s`` for a minute and no keys on those SESSION aggregates before.
Flink plans a local and a global aggregate (``slice_end=[$slice_end]``), StreamSQL one aggregate:
each of its texts is one of Flink's, and its ``time_col`` one is Flink's.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

_SCRIPT = Path(__file__).parents[2] / "scripts" / "flink_window_texts.py"
_spec = importlib.util.spec_from_file_location("flink_window_texts", _SCRIPT)
oracle = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(oracle)  # its queries and the DDL it shares with flink_window_calcs.py
FLINK = json.loads((Path(__file__).parent / "window_texts_flink.json").read_text())


@pytest.fixture
def env(planning_env):
    env = planning_env("(k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)",
                       ("ev",), 5)
    for statement in oracle.calcs.DDL[1:]:  # ev is the fixture's
        env.execute_sql(statement)
    return env


def test_every_query_was_recorded():
    assert list(FLINK) == oracle.QUERIES
    assert all(isinstance(texts, list) for texts in FLINK.values())  # Flink planned every one


@pytest.mark.parametrize("query", oracle.QUERIES)
def test_window_text_as_flink(env, query):
    ours = oracle.calcs.window_texts(env.execute_sql(f"EXPLAIN {query}").message)
    flink = FLINK[query]
    assert ours and set(ours) <= set(flink)
    assert [t for t in ours if "time_col=[" in t] == [t for t in flink if "time_col=[" in t]
