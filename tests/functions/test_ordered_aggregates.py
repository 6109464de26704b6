"""FIRST_VALUE, LAST_VALUE and LISTAGG where they are not computed: refused at the call's position.

Their placements in OVER and SESSION aggregates: tests/functions/test_rowwise_placements.py.

Their answers are checked against Flink 2.3 by the compat cases tests/compat/cases/ordered_aggs_*.
"""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StatementError


@pytest.fixture
def env(tmp_path):
    (tmp_path / "t.json").write_text('{"s": "a", "n": 1, "ts": "2024-01-01 00:00:00"}\n')
    with StreamEnvironment({"state.dir": str(tmp_path / "state"),
                            "execution.checkpointing.dir": str(tmp_path / "cp")}) as e:
        e.execute_sql(f"CREATE TABLE t (s STRING, n INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH "
                      f"('connector' = 'filesystem', 'path' = '{tmp_path}/t.json', 'format' = 'json')")
        yield e


@pytest.mark.parametrize("sql, message, col", [
    ("SELECT LISTAGG(n) FROM t", "LISTAGG needs a STRING argument, got INT", 8),
    ("SELECT LISTAGG(s, s) FROM t", "The separator of LISTAGG must be a string literal", 19),
    ("SELECT LISTAGG(s, ',', 'x') FROM t", "LISTAGG takes one or two arguments", 8),
    ("SELECT FIRST_VALUE(DISTINCT s) FROM t", "FIRST_VALUE(DISTINCT ...) is not supported yet", 8),
    ("SELECT window_start, FIRST_VALUE(s) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, "
     "INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
     "FIRST_VALUE cannot be used in a HOP window aggregate", 22),
    ("SELECT LAST_VALUE(s) FROM TABLE(CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' SECOND, "
     "INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
     "LAST_VALUE cannot be used in a CUMULATE window aggregate", 8),
    ("SELECT LAST_VALUE(s) FROM t GROUP BY HOP(ts, INTERVAL '1' SECOND, INTERVAL '2' SECOND)",
     "LAST_VALUE cannot be used in a HOP window aggregate", 8),
    ("SELECT s FROM t WHERE FIRST_VALUE(n) > 1", "Aggregate function FIRST_VALUE(n) is not allowed here", 23),
])
def test_refused_at_the_call(env, sql, message, col):
    with pytest.raises(StatementError) as ei:
        env.execute_sql(sql)
    assert ei.value.message.startswith(message), ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)
