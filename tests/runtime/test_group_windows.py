"""Legacy group windows (``GROUP BY TUMBLE|HOP|SESSION(ts, ...)``), checked against DuckDB.

Same events and DuckDB formulations as the window TVF tests (:mod:`tests.runtime.test_windows`):
the legacy syntax must give exactly what the equivalent window TVF aggregate gives.
"""

from __future__ import annotations

import pytest

from tests.runtime.oracle import assert_same, fold, make_env
from tests.runtime.test_over import assert_rejected_at
from tests.runtime.test_windows import AGGS, BACKENDS, DUCK_AGGS, SESSION_DUCK, TUMBLE_DUCK, check, ddl, duck
from tests.runtime.test_windows import events as events  # noqa: F401  (the module fixture)

T10 = "ts, INTERVAL '10' SECOND"
H = "ts, INTERVAL '5' SECOND, INTERVAL '10' SECOND"


@pytest.mark.parametrize("backend", BACKENDS)
def test_tumble(tmp_path, events, backend):  # noqa: F811
    sql = (f"SELECT k, TUMBLE_START({T10}), TUMBLE_END({T10}) AS we, {AGGS} FROM ev "
           f"GROUP BY TUMBLE({T10}), k")
    check(tmp_path, events, sql, TUMBLE_DUCK, backend, batch_size=7)


def test_tumble_rowtime_having_where(tmp_path, events):  # noqa: F811
    sql = ("SELECT TUMBLE_ROWTIME(ts, INTERVAL '1' MINUTE) AS rt, k, SUM(v) * 2 AS s2 FROM ev WHERE v > 0 "
           "GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE) HAVING COUNT(*) > 1 "
           "AND TUMBLE_END(ts, INTERVAL '1' MINUTE) > TIMESTAMP '2000-01-01 00:00:00'")
    duck_sql = ("SELECT epoch_ms(ms // 60000 * 60000 + 59999), k, SUM(v) * 2 FROM ev WHERE v > 0 "
                "GROUP BY ALL HAVING COUNT(*) > 1")
    check(tmp_path, events, sql, duck_sql, batch_size=5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_hop(tmp_path, events, backend):  # noqa: F811
    sql = f"SELECT k, HOP_START({H}), HOP_END({H}), {AGGS} FROM ev GROUP BY HOP({H}), k"
    duck_sql = (f"SELECT k, epoch_ms(ms // 5000 * 5000 - i * 5000), "
                f"epoch_ms(ms // 5000 * 5000 - i * 5000 + 10000), {DUCK_AGGS} "
                f"FROM ev, range(0, 2) r(i) GROUP BY ALL")
    check(tmp_path, events, sql, duck_sql, backend, batch_size=6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_session(tmp_path, events, backend):  # noqa: F811
    g = "ts, INTERVAL '3' SECOND"
    sql = f"SELECT k, SESSION_START({g}), SESSION_END({g}), {AGGS} FROM ev GROUP BY k, SESSION({g})"
    check(tmp_path, events, sql, SESSION_DUCK, backend, batch_size=5)


def test_cascading_on_tumble_rowtime(tmp_path, events):  # noqa: F811
    env = make_env(tmp_path, "hashmap", 8)
    env.execute_sql(ddl(events))
    env.execute_sql("CREATE VIEW per5 AS SELECT k, TUMBLE_ROWTIME(ts, INTERVAL '5' SECOND) AS rt, "
                    "SUM(v) AS s FROM ev WHERE v IS NOT NULL GROUP BY k, TUMBLE(ts, INTERVAL '5' SECOND)")
    sql = ("SELECT k, TUMBLE_START(rt, INTERVAL '20' SECOND), SUM(s) FROM per5 "
           "GROUP BY k, TUMBLE(rt, INTERVAL '20' SECOND)")
    actual = fold(env.execute_sql(sql).collect(timeout=30))
    expected = duck(events, "SELECT k, epoch_ms(ms // 20000 * 20000), SUM(v) FROM ev WHERE v IS NOT NULL "
                            "GROUP BY ALL")
    assert_same(actual, expected, sql)


def test_unaliased_auxiliary_is_named_as_flink(tmp_path, events):  # noqa: F811
    env = make_env(tmp_path)
    env.execute_sql(ddl(events))
    res = env.execute_sql(f"SELECT k, TUMBLE_START({T10}), COUNT(*) FROM ev GROUP BY k, TUMBLE({T10})")
    assert res.columns == ["k", "EXPR$1", "EXPR$2"]
    res.job.cancel()


@pytest.mark.parametrize(("sql", "message", "caret_at"), [
    (f"SELECT TUMBLE_START({T10}) FROM ev", r"No match found for function signature TUMBLE_START",
     "TUMBLE_START"),
    (f"SELECT TUMBLE_START({T10}), COUNT(*) FROM ev GROUP BY k", r"needs a GROUP BY TUMBLE\(...\)",
     "TUMBLE_START"),
    (f"SELECT TUMBLE_END(ts, INTERVAL '5' SECOND) FROM ev GROUP BY TUMBLE({T10})",
     r"must name the GROUP BY's group window: TUMBLE_END\(ts, INTERVAL '10' SECOND\)", "TUMBLE_END"),
    (f"SELECT HOP_START({T10}) FROM ev GROUP BY TUMBLE({T10})", "must name the GROUP BY's group window",
     "HOP_START"),
    (f"SELECT TUMBLE_PROCTIME({T10}) FROM ev GROUP BY TUMBLE({T10})", "use TUMBLE_ROWTIME",
     "TUMBLE_PROCTIME"),
    ("SELECT COUNT(*) FROM ev GROUP BY TUMBLE(id, INTERVAL '10' SECOND)",
     r"must be a time attribute .*\(ts\)", "id,"),
    ("SELECT COUNT(*) FROM ev GROUP BY TUMBLE(ts)", r"TUMBLE takes 2 arguments", "ts)"),  # its first token
    ("SELECT COUNT(*) FROM ev GROUP BY HOP(ts, INTERVAL '4' SECOND, INTERVAL '10' SECOND)",
     "integral multiple of its slide", "'10'"),
    (f"SELECT COUNT(*) FROM ev GROUP BY TUMBLE({T10}), SESSION(ts, INTERVAL '1' SECOND)",
     "Only one group window", "ts, INTERVAL '1'"),
    ("SELECT COUNT(*) FROM ev GROUP BY TUMBLE(ts, INTERVAL '1' MONTH)", "Unsupported size", "'1' MONTH"),
])
def test_planning_errors(tmp_path, sql, message, caret_at):
    assert_rejected_at(tmp_path, sql, message, caret_at)
