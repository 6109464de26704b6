"""Row-wise aggregates (a Python aggregate, LISTAGG, ARRAY_AGG, FIRST_VALUE) in OVER and SESSION aggregates.

Checked against DuckDB over the window tests' events (out of order by less than the watermark
delay, some NULL keys, values and rowtimes): the same OVER frames (ROWS frames order the rows of
one rowtime by arrival, ``ts, id`` for DuckDB) and the same sessions. In a session the order of
LISTAGG's and ARRAY_AGG's values follows Flink's merging of sessions (checked against Flink by
the compat cases ``listagg_session`` and ``listagg_legacy_session``), so here their values are
compared sorted. Refusals are checked at the call's position.
"""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, Watermark
from streamsql.core.errors import StatementError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec, WindowSpec
from streamsql.runtime.operators.over_agg import OverAggOperator
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from tests.functions.test_python_udaf_udtf import InsertOnlyCount, SumOfSquares
from tests.runtime.oracle import assert_same, duck_con, fold, make_env
from tests.runtime.test_windows import BACKENDS, COLS, SESSION_DUCK, ddl
from tests.runtime.test_windows import events as events  # noqa: F401  (the module fixture)


def _row(row, sort: bool) -> tuple:
    """A result row with its arrays as tuples (sorted, NULLs first, when ``sort``)."""
    def value(v):
        if isinstance(v, list):
            return tuple(sorted(v, key=lambda x: (x is not None, x))) if sort else tuple(v)
        return v
    return tuple(value(v) for v in row)


def _run(tmp_path, path, sql: str, backend: str, batch_size: int | None, sort: bool = False) -> Counter:
    env = make_env(tmp_path, backend, batch_size)
    env.execute_sql(ddl(path))
    env.create_temporary_function("sumsq", SumOfSquares)
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=60))
    assert all(kind.short == "+I" for kind, _ in changelog)
    assert res.job.metrics.get("late_records", 0) == 0
    return fold([(kind, _row(row, sort)) for kind, row in changelog])


def _duck(path, sql: str, sort: bool = False) -> Counter:
    con = duck_con({"raw": path}, COLS)
    con.execute("CREATE VIEW ev AS SELECT *, epoch_ms(ts) AS ms FROM raw WHERE ts IS NOT NULL")
    return Counter(_row(r, sort) for r in con.execute(sql).fetchall())


OVER_AGGS = ("sumsq(v) OVER w, LISTAGG(CAST(v AS STRING), ';') OVER w, ARRAY_AGG(v) OVER w, "
             "FIRST_VALUE(v) OVER w, LAST_VALUE(v) OVER w")
DUCK_OVER_AGGS = ("sum(v * v) OVER w, string_agg(CAST(v AS VARCHAR), ';') OVER w, list(v) OVER w, "
                  "first(v IGNORE NULLS) OVER w, last(v IGNORE NULLS) OVER w")


@pytest.mark.parametrize("frame", ["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW",
                                   "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_over_frames_match_duckdb(tmp_path, events, frame, backend):  # noqa: F811
    sql = f"SELECT id, k, v, {OVER_AGGS} FROM ev WINDOW w AS (PARTITION BY k ORDER BY ts {frame})"
    duck_sql = (f"SELECT id, k, v, {DUCK_OVER_AGGS} FROM ev "
                f"WINDOW w AS (PARTITION BY k ORDER BY ts, id {frame})")
    assert_same(_run(tmp_path, events, sql, backend, 5), _duck(events, duck_sql), sql)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("batch_size", [1, 7, None])
def test_session_matches_duckdb(tmp_path, events, backend, batch_size):  # noqa: F811
    sql = ("SELECT k, window_start, window_end, sumsq(v), ARRAY_AGG(v), COUNT(*) FROM TABLE("
           "SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, "
           "window_end")
    duck_sql = SESSION_DUCK.split("SELECT k, epoch_ms")[0] + (
        "SELECT k, epoch_ms(min(ms)), epoch_ms(max(ms) + 3000), sum(v * v), list(v), COUNT(*) FROM s "
        "GROUP BY k, sid")
    actual = _run(tmp_path, events, sql, backend, batch_size, sort=True)
    assert_same(actual, _duck(events, duck_sql, sort=True), sql)


@pytest.mark.parametrize(("sql", "message", "col"), [
    ("SELECT window_start, JSON_ARRAYAGG(k) FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
     "JSON_ARRAYAGG cannot be used in a CUMULATE window aggregate", 22),
    ("SELECT window_start, ARRAY_AGG(DISTINCT k) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
     "ARRAY_AGG(DISTINCT ...) in a HOP window aggregate is not supported yet", 22),
    # Flink's global window phase takes a distinct map's values in hash order (compat
    # array_agg_distinct_tumble, listagg_distinct_tumble): refused, not answered in arrival order
    ("SELECT window_start, ARRAY_AGG(DISTINCT k) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
     "ARRAY_AGG(DISTINCT ...) in a TUMBLE window aggregate is not supported yet", 22),
    ("SELECT window_start, LISTAGG(DISTINCT k, '-') FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
     "LISTAGG(DISTINCT ...) in a TUMBLE window aggregate is not supported yet", 22),
    ("SELECT window_start, LISTAGG(DISTINCT k) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND, INTERVAL '2' SECOND)) GROUP BY window_start, window_end",
     "This function does not support retraction. (Flink 2.3 refuses LISTAGG(DISTINCT ...) in a HOP", 22),
    ("SELECT k, LISTAGG(DISTINCT k, '-', '+') FROM ev GROUP BY k", "LISTAGG takes one or two arguments", 11),
    ("SELECT window_start, FIRST_VALUE(k) FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), "
     "INTERVAL '1' SECOND)) GROUP BY window_start, window_end",
     "FIRST_VALUE cannot be used in a SESSION window aggregate", 22),
    ("SELECT window_start, once(v) FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' SECOND)) "
     "GROUP BY window_start, window_end",
     "Python aggregate function 'once' needs 'merge' in a SESSION window", 22),
    ("SELECT k, PERCENTILE(v, 1.5) FROM ev GROUP BY k",
     "The percentage of PERCENTILE must be a numeric literal between 0.0 and 1.0", 25),
    ("SELECT k, PERCENTILE(v, ARRAY[0.5, -0.1]) FROM ev GROUP BY k",
     "The percentage of PERCENTILE must be a numeric literal between 0.0 and 1.0", 37),
    ("SELECT k, PERCENTILE(v, v) FROM ev GROUP BY k",
     "The percentage of PERCENTILE must be a numeric literal between 0.0 and 1.0", 25),
    ("SELECT k, PERCENTILE(k, 0.5) FROM ev GROUP BY k",
     "PERCENTILE needs a numeric argument, got STRING", 11),
    ("SELECT k, PERCENTILE(v) FROM ev GROUP BY k", "PERCENTILE takes two or three arguments", 11),
    ("SELECT k, JSON_ARRAYAGG(k) OVER (PARTITION BY k ORDER BY ts) FROM ev",
     "JSON_ARRAYAGG cannot be used in an OVER window (as in Flink)", 11),
    ("SELECT k, JSON_ARRAYAGG(MAP[v, v]) FROM ev GROUP BY k",  # positioned at the value
     "JSON_ARRAYAGG: values of type MAP<INT, INT> are not supported yet", 29),
    ("SELECT k, JSON_OBJECTAGG(KEY k VALUE MAP[v, v]) FROM ev GROUP BY k",
     "JSON_OBJECTAGG: values of type MAP<INT, INT> are not supported yet", 42),
    ("SELECT k, once(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM ev",
     "Function 'once' (tests.functions.test_python_udaf_udtf.InsertOnlyCount) does not implement at least "
     "one method named 'retract', which it needs over an updating input (a changelog source, a GROUP BY, a "
     "regular join) and in a bounded OVER frame", 11),
])
def test_refused_at_the_call(tmp_path, sql, message, col):
    (tmp_path / "ev.json").write_text("")
    env = make_env(tmp_path)
    env.execute_sql(ddl(tmp_path / "ev.json"))
    env.create_temporary_function("once", InsertOnlyCount())
    with pytest.raises(StatementError) as ei:
        env.execute_sql(sql)
    assert ei.value.message.startswith(message), ei.value.message
    assert (ei.value.line, ei.value.col) == (1, col), str(ei.value)


ROWWISE_AGGS = [AggSpec("count_star", None, SqlType("BIGINT")),
                AggSpec("array_agg", 2, SqlType.array(SqlType("INT"))),
                AggSpec("percentile", 2, SqlType("DOUBLE"))]


def _percentile_args(table: pa.Table) -> pa.Table:
    return table.append_column("__p", pa.array([0.5] * table.num_rows, pa.float64()))


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("kind", ["SESSION", "OVER"])
def test_snapshot_restore_keeps_row_wise_accumulators(tmp_path, backend_name, kind):
    """ARRAY_AGG and PERCENTILE (the value and its percentage: two argument columns) across a restore."""
    from tests.runtime.harness import open_operator, replay_across_restore
    from tests.runtime.test_windows import IN_SCHEMA, _batch, _rows, _script

    in_schema = IN_SCHEMA.append(pa.field("__p", pa.float64()))
    if kind == "SESSION":
        out = pa.schema(list(in_schema)[:1] + [("__ws", pa.timestamp("ms")), ("__we", pa.timestamp("ms")),
                                              ("__wt", pa.timestamp("ms")), ("__agg0", pa.int64()),
                                              ("__agg1", pa.list_(pa.int32())), ("__agg2", pa.float64())])

        def make(workdir):
            op = SessionWindowAggOperator(WindowSpec("SESSION", gap=3000), 1, 1, ROWWISE_AGGS, in_schema, out)
            return open_operator(op, backend_name, workdir, "w")
    else:
        out = pa.schema(list(in_schema) + [("__agg0", pa.int64()), ("__agg1", pa.list_(pa.int32())),
                                           ("__agg2", pa.float64())])

        def make(workdir):
            op = OverAggOperator(OverSpec("ROWS", 3), 1, 1, ROWWISE_AGGS, in_schema, out)
            return open_operator(op, backend_name, workdir, "over")

    def play(op, steps):
        outs = []
        for what, arg in steps:
            outs += (op.process_batch(Batch(_percentile_args(_batch(arg).table)), 0) if what == "batch"
                     else op.process_watermark(Watermark(arg)))
        return [tuple(tuple(v) if isinstance(v, list) else v for v in r) for r in _rows(outs)]

    expected, actual, _, pending = replay_across_restore(make, play, _script(5), 31, tmp_path)
    assert pending > 0
    assert Counter(actual) == Counter(expected)
    assert any(r[-2] and len(r[-2]) > 1 for r in expected)  # some arrays hold several values
