"""CURRENT_WATERMARK(x): x must be a rowtime attribute of the input, as in Flink 2.3.

The refusals' texts are Flink 2.3's (PyFlink, ``Table.sql_query``: "The argument of
CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP(3)'." for a timestamp that is
no rowtime, "... but 'INT' cannot be a time attribute." for another type); the rowtime case runs
(its answers are the compat cases ``current_watermark_*``, recorded from Flink).
"""

from __future__ import annotations

import datetime as dt

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import SqlError
from tests.plan.test_planner import caret_col


@pytest.fixture
def env(tmp_path):
    (tmp_path / "ev.json").write_text('{"id": 1, "ts": "2024-01-01 00:00:01", "t2": "2024-01-01 00:00:01"}\n'
                                      '{"id": 2, "ts": "2024-01-01 00:00:09", "t2": "2024-01-01 00:00:09"}\n')
    e = StreamEnvironment({"state.dir": str(tmp_path / "state"),
                           "execution.checkpointing.dir": str(tmp_path / "cp")})
    e.execute_sql(f"CREATE TABLE ev (id INT, ts TIMESTAMP(3), t2 TIMESTAMP(3), "
                  f"lt AS CAST(ts AS TIMESTAMP_LTZ(3)), "
                  f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/ev.json', 'format' = 'json')")
    e.execute_sql(f"CREATE TABLE plain (id INT, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
                  f"'path' = '{tmp_path}/ev.json', 'format' = 'json')")
    yield e
    e.close()


@pytest.mark.parametrize(("sql", "message", "col"), [
    ("SELECT CURRENT_WATERMARK(t2) FROM ev",
     "The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP(3)'.", 26),
    ("SELECT id, CURRENT_WATERMARK(ts) FROM plain",
     "The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP(3)'.", 30),
    ("SELECT id FROM ev WHERE ts > CURRENT_WATERMARK(lt)",
     "The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP_LTZ(3)'.", 48),
    ("SELECT CURRENT_WATERMARK(CAST(ts AS TIMESTAMP(3))) FROM ev",
     "The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP(3)'.", 31),
    ("SELECT CURRENT_WATERMARK(id) FROM ev",
     "CURRENT_WATERMARK() must be called with a single rowtime attribute argument, but 'INT' cannot be a "
     "time attribute.", 26),
])
def test_an_argument_that_is_no_rowtime_is_refused_as_in_flink(env, sql, message, col):
    with pytest.raises(SqlError) as e:
        env.execute_sql(sql)
    assert message in str(e.value)
    assert f"(line 1, column {col})" in str(e.value)  # the argument (a CAST's: its operand)
    assert caret_col(e.value) == col


def test_the_rowtime_argument_still_runs(env):
    """NULL before the first watermark (Flink's answer for the first row: compat case
    current_watermark_select), then the watermark before the row (09 - 1 s is past 01 - 1 s)."""
    res = env.execute_sql("SELECT id, CURRENT_WATERMARK(ts) AS wm FROM ev")
    rows = {row[0]: row[1] for kind, row in res.collect(timeout=60)}
    assert rows == {1: None, 2: dt.datetime(2024, 1, 1, 0, 0, 0)}
