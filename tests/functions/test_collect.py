"""COLLECT's refusals, each at its position: where Flink's order of a MULTISET's elements is not
reproduced here (window and OVER aggregates, element types whose Java hash is not), and CARDINALITY of a
MULTISET (Flink's code generator fails on it). Its answers in a GROUP BY are compared with Flink 2.3's by
``tests/sql/test_flink_query_gaps.py`` (script "collect")."""

from __future__ import annotations

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError


@pytest.fixture
def env():
    with StreamEnvironment() as e:
        e.execute_sql("CREATE TABLE w (k INT, s STRING, d DECIMAL(5, 2), ts TIMESTAMP(3), "
                      "WATERMARK FOR ts AS ts) WITH ('connector' = 'datagen', 'number-of-rows' = '5')")
        yield e


@pytest.mark.parametrize("sql, message, col", [
    ("SELECT window_start, COLLECT(s) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
     "GROUP BY window_start, window_end", "COLLECT in a TUMBLE window aggregate is not supported yet", 22),
    ("SELECT COLLECT(s) FROM w GROUP BY TUMBLE(ts, INTERVAL '1' SECOND)",
     "COLLECT in a TUMBLE window aggregate is not supported yet", 8),
    ("SELECT k, COLLECT(s) OVER (PARTITION BY k ORDER BY ts) FROM w",
     "COLLECT in an OVER window is not supported yet", 11),
    ("SELECT k, COLLECT(d) FROM w GROUP BY k", "COLLECT of DECIMAL(5, 2) is not supported yet", 11),
    ("SELECT k, CARDINALITY(COLLECT(s)) FROM w GROUP BY k",
     "No match found for function signature CARDINALITY(<MULTISET>)", 11),
    ("SELECT k, COLLECT(s, s) FROM w GROUP BY k", "Invalid number of arguments to function 'COLLECT'", 11),
])
def test_refused_at_its_position(env, sql, message, col):
    with pytest.raises(StreamSQLError) as ei:
        env.execute_sql(sql)
    assert message in str(ei.value), str(ei.value)
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)


def test_describe_says_multiset(env):
    env.execute_sql("CREATE TEMPORARY VIEW v AS SELECT k, COLLECT(s) AS m FROM w GROUP BY k")
    assert [r[:2] for r in env.execute_sql("DESCRIBE v").rows] == [("k", "INT"), ("m", "MULTISET<STRING>")]
