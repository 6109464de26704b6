"""OVER aggregates, checked against DuckDB's window functions over the same rows.

The streaming side reads the window tests' events (out of order by less than the 5 s watermark
delay: nothing is late; some NULL keys and values); DuckDB computes the same OVER
clause as a batch. ROWS frames
order rows with the same rowtime by arrival, which is the file order, so DuckDB orders by
``ts, id``. Late rows, state cleaning and snapshot → restore are checked at the operator level
through the harness, on both backends.
"""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from streamsql.core.elements import Watermark
from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec
from streamsql.runtime.operators.over_agg import OverAggOperator
from tests.runtime.harness import open_operator, replay_across_restore
from tests.runtime.oracle import make_env
from tests.runtime.test_windows import (
    BACKENDS,
    BASE,
    IN_SCHEMA,
    _batch,
    _play,
    _rows,
    _script,
    check,
    ddl,
    run,
    write_events,
)
from tests.runtime.test_windows import events as events  # noqa: F401  (the module fixture)
from tests.runtime.test_windows import events_for_single_rows as events_for_single_rows  # noqa: F401

AGGS = "COUNT(*) OVER w, COUNT(v) OVER w, SUM(v) OVER w, MIN(v) OVER w, MAX(v) OVER w, AVG(v) OVER w"
DUCK_AGGS = ("COUNT(*) OVER w, COUNT(v) OVER w, SUM(v) OVER w, MIN(v) OVER w, MAX(v) OVER w, "
             "trunc(AVG(v) OVER w)")  # AVG of an INT is an INT in Flink (truncated)
FRAMES = [
    ("ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ORDER BY ts, id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW"),
    ("ROWS BETWEEN 0 PRECEDING AND CURRENT ROW", "ORDER BY ts, id ROWS BETWEEN CURRENT ROW AND CURRENT ROW"),
    ("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
     "ORDER BY ts, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"),
    ("RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW",
     "ORDER BY ts RANGE BETWEEN INTERVAL 10 SECOND PRECEDING AND CURRENT ROW"),
    ("RANGE BETWEEN INTERVAL '0' SECOND PRECEDING AND CURRENT ROW",
     "ORDER BY ts RANGE BETWEEN CURRENT ROW AND CURRENT ROW"),
    ("RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
     "ORDER BY ts RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"),
]


@pytest.mark.parametrize(("frame", "duck_frame"), FRAMES, ids=[f[0] for f in FRAMES])
@pytest.mark.parametrize("backend", BACKENDS)
def test_over_frames_match_duckdb(tmp_path, events, frame, duck_frame, backend):  # noqa: F811
    sql = (f"SELECT id, k, v, ts, {AGGS} FROM ev "
           f"WINDOW w AS (PARTITION BY k ORDER BY ts {frame})")
    duck_sql = f"SELECT id, k, v, ts, {DUCK_AGGS} FROM ev WINDOW w AS (PARTITION BY k {duck_frame})"
    check(tmp_path, events, sql, duck_sql, backend, batch_size=7)


@pytest.mark.parametrize("batch_size", [1, None])
def test_inline_over_without_partition_with_where_and_expressions(tmp_path, events, events_for_single_rows,  # noqa: F811
                                                                   batch_size):
    # One row per batch on the 120-row prefix (a round of the operators per row): it spans 353 s.
    events = events_for_single_rows if batch_size == 1 else events
    sql = ("SELECT id, SUM(v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) "
           "* 2 AS s2, COUNT(DISTINCT v) OVER (ORDER BY ts RANGE BETWEEN INTERVAL '1' MINUTE PRECEDING AND "
           "CURRENT ROW) AS d FROM ev WHERE v > 10")
    duck_sql = ("SELECT id, SUM(v) OVER w * 2, COUNT(DISTINCT v) OVER w FROM ev WHERE v > 10 "
                "WINDOW w AS (ORDER BY ts RANGE BETWEEN INTERVAL 1 MINUTE PRECEDING AND CURRENT ROW)")
    check(tmp_path, events, sql, duck_sql, batch_size=batch_size)


def test_rowtime_stays_a_time_attribute_after_over(tmp_path, events):  # noqa: F811
    sql = ("SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND), MAX(s), COUNT(*) FROM (SELECT k, ts, "
           "SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev) "
           "GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)")
    duck_sql = ("SELECT k, epoch_ms(ms // 10000 * 10000), MAX(s), COUNT(*) FROM (SELECT k, ms, SUM(v) OVER "
                "(PARTITION BY k ORDER BY ts, id ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s FROM ev) "
                "GROUP BY ALL")
    check(tmp_path, events, sql, duck_sql, batch_size=9)


@pytest.mark.parametrize(("frame", "expected", "late"), [
    # Unbounded: late when not after the watermark (rows 3 and 5).
    ("ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", {(1, 1), (4, 9), (2, 11), (6, 43)}, 2),
    # Bounded: late only when not after the key's last emitted rowtime (Flink's lastTriggeringTs):
    # rows 3 (a, 3 s > a's last, 0 s) and 5 (b: nothing emitted yet) are behind the watermark but taken.
    ("ROWS BETWEEN 1 PRECEDING AND CURRENT ROW", {(1, 1), (3, 5), (5, 16), (4, 12), (2, 10), (6, 34)}, 0),
])
def test_late_rows_as_flink(tmp_path, frame, expected, late):
    s = 1000
    ev = [(1, "a", 1, BASE), (2, "a", 2, BASE + 12 * s),  # watermark 10 s after row 2: row 1 is emitted
          (3, "a", 4, BASE + 3 * s), (4, "a", 8, BASE + 11 * s), (5, "b", 16, BASE + 10 * s),
          (6, "a", 32, BASE + 20 * s)]
    path = write_events(tmp_path / "late.json", ev)
    sql = f"SELECT id, SUM(v) OVER (PARTITION BY k ORDER BY ts {frame}) FROM ev"
    for backend in BACKENDS:
        actual, metrics = run(tmp_path / backend, path, sql, backend, batch_size=1, delay="2")
        assert actual == Counter(expected)
        assert metrics.get("late_records", 0) == late


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_bounded_frame_drops_rows_not_after_the_keys_last_output(tmp_path, backend_name):
    metrics: dict = {}
    op, backend = _operator(OverSpec("RANGE", 5000), backend_name, tmp_path / "s", metrics)
    out = op.process_batch(_batch([("a", BASE, 1), ("a", BASE + 1000, 2), ("b", BASE + 500, 4)]), 0)
    out += op.process_watermark(Watermark(BASE + 1000))
    assert [(r[0], r[3], r[4], r[5]) for r in _rows(out)] == [("a", 1, 1, 1), ("b", 1, 4, 4), ("a", 2, 3, 2)]
    # Behind the watermark: a's row at 1 s is late (a emitted 1 s), b's at 0.7 s is taken (b emitted 0.5 s).
    out = op.process_batch(_batch([("a", BASE + 1000, 8), ("b", BASE + 700, 16)]), 0)
    out += op.process_watermark(Watermark(BASE + 1001))
    assert [(r[0], r[3], r[4], r[5]) for r in _rows(out)] == [("b", 2, 20, 16)]
    # each key keeps Flink's RANGE cleanup timer (1.5 * 5 s + 1 ms after its first row): a at 7.501 s,
    # b at 8.001 s (RowTimeRangeBoundedPrecedingFunction.registerCleanupTimer)
    assert metrics["late_records"] == 1 and len(op.timers) == 2
    out = op.process_watermark(Watermark(BASE + 7501))  # a's: its state cleared, lastTriggeringTs 0
    out += op.process_batch(_batch([("a", BASE + 500, 32), ("b", BASE + 600, 64)]), 0)
    out += op.process_watermark(Watermark(BASE + 7600))
    # a's old row is taken again, in a frame of its own; b's is late (b emitted 0.7 s)
    assert [(r[0], r[3], r[4], r[5]) for r in _rows(out)] == [("a", 1, 32, 32)]
    assert metrics["late_records"] == 2
    backend.close()


# -- operator level ---------------------------------------------------------------------------

OP_AGGS = [AggSpec("count_star", None, SqlType("BIGINT")), AggSpec("sum", 2, SqlType("BIGINT")),
           AggSpec("max_retract", 2, SqlType("INT"))]
OUT_SCHEMA = pa.schema(list(IN_SCHEMA) + [("__agg0", pa.int64()), ("__agg1", pa.int64()),
                                          ("__agg2", pa.int32())])


def _operator(spec, backend_name, workdir, metrics):
    op = OverAggOperator(spec, 1, 1, OP_AGGS, IN_SCHEMA, OUT_SCHEMA)
    return open_operator(op, backend_name, workdir, "over-agg-1", metrics=metrics)


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("spec", [OverSpec("ROWS", 3), OverSpec("RANGE", 4000), OverSpec("RANGE")],
                         ids=["rows", "range", "unbounded"])
def test_snapshot_restore_keeps_pending_rows_and_timers(tmp_path, backend_name, spec):
    expected, actual, ref_metrics, pending = replay_across_restore(
        lambda d: _operator(spec, backend_name, d, {}), lambda op, s: _rows(_play(op, s)), _script(11), 31,
        tmp_path)
    assert pending > 0, "the cut must leave rows pending"
    assert Counter(actual) == Counter(expected)
    assert len(expected) > 50
    assert ref_metrics.get("late_records", 0) >= 1


# -- planning errors --------------------------------------------------------------------------

@pytest.mark.parametrize(("sql", "message", "caret_at"), [
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING) FROM ev",
     "must end at CURRENT ROW", "1 FOLLOWING"),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY ts DESC) FROM ev", "ascending order", "ts DESC"),
    ("SELECT SUM(v) OVER (PARTITION BY k ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM ev",
     r"Non-time attribute sort is not supported for bounded OVER window. ORDER BY an event-time "
     r"attribute \(ts\)",
     "id ROWS"),
    ("SELECT SUM(v) OVER (PARTITION BY k) FROM ev", "ORDER BY exactly one time attribute", "OVER"),
    ("SELECT SUM(v) OVER (ORDER BY ts), COUNT(*) OVER (PARTITION BY k ORDER BY ts) FROM ev",
     "All aggregates must be computed on the same window", "OVER (PARTITION"),
    ("SELECT ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) FROM ev",
     "supported for Top-N and deduplication", "OVER (PARTITION"),
    ("SELECT SUM(v) OVER w FROM ev", "Window 'w' is not defined", "w FROM"),
    ("SELECT SUM(v) OVER (ORDER BY ts), SUM(v) FROM ev", "needs an OVER clause", "SUM(v) FROM"),
    ("SELECT k, SUM(v) OVER (ORDER BY ts) FROM ev GROUP BY k", "cannot be combined with GROUP BY",
     "GROUP BY"),
    ("SELECT SUM(v) OVER (ORDER BY ts RANGE BETWEEN 3 PRECEDING AND CURRENT ROW) FROM ev",
     "needs an INTERVAL", "3 PRECEDING"),
    ("SELECT id FROM ev WHERE SUM(v) OVER (ORDER BY ts) > 1", "not supported yet", "OVER (ORDER"),
    ("SELECT SUM(n) OVER (ORDER BY ts ROWS 1 PRECEDING) FROM (SELECT MAX(ts) AS ts, COUNT(*) AS n FROM ev "
     "GROUP BY k)", "Non-time attribute sort is not supported for bounded OVER window", "ts ROWS"),
    ("SELECT COUNT(*) FILTER (WHERE v > 1) OVER (ORDER BY ts) FROM ev",  # Flink's words (breaker run)
     "OVER must be applied to aggregate function", "COUNT(*) FILTER"),
])
def test_planning_errors(tmp_path, sql, message, caret_at):
    assert_rejected_at(tmp_path, sql, message, caret_at)


def assert_rejected_at(tmp_path, sql: str, message: str, caret_at: str) -> None:
    """Planning ``sql`` over the events table fails with ``message``, its caret where ``caret_at`` starts."""
    env = make_env(tmp_path)
    env.execute_sql(ddl(tmp_path / "none.json"))
    with pytest.raises(SqlError, match=message) as err:
        env.execute_sql(sql)
    e = err.value
    assert e.line == 1 and sql[e.col - 1:].startswith(caret_at), (e.col, str(e))
