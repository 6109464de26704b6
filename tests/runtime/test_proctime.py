"""Processing-time windows and OVER: operators on an injected clock, a job on the real broker.

Results on processing time depend on when rows arrive, so the operator tests drive the clock
themselves (exact windows), and the job test asserts structure only: window bounds aligned to the
size, every row counted exactly once, a window firing while the source is idle.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, Watermark
from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import OverSpec, WindowSpec
from streamsql.runtime.operators.over_agg import OverAggOperator
from streamsql.runtime.operators.proctime import ProcessingTimeOperator
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from streamsql.runtime.operators.slicing_window import SlicingWindowAggOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import make_env
from tests.runtime.test_windows import IN_SCHEMA, OP_AGGS, OUT_SCHEMA

BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
BACKENDS = ["hashmap", "rocksdb"]
EPOCH = dt.datetime(1970, 1, 1)


class Clock:
    """A processing-time clock the test moves (ms)."""

    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


def _batch(rows, ts=0):
    """Rows (key, value); the time column holds ``ts`` (the operator must overwrite it)."""
    keys, values = zip(*rows)
    times = pa.array([ts] * len(rows), pa.int64()).cast(pa.timestamp("ms"))
    return Batch(pa.Table.from_arrays([pa.array(keys, pa.string()), times, pa.array(values, pa.int32())],
                                      schema=IN_SCHEMA))


def _rows(elements):
    return [tuple(r.values()) for el in elements if isinstance(el, Batch) for r in el.table.to_pylist()]


def _window_op(kind, backend, workdir, clock):
    if kind == "SESSION":
        inner = SessionWindowAggOperator(WindowSpec("SESSION", gap=3000, proctime=True), 1, 1, OP_AGGS,
                                         IN_SCHEMA, OUT_SCHEMA)
    else:
        spec = WindowSpec(kind, size=10_000, slide=5000 if kind in ("HOP", "CUMULATE") else 0, proctime=True)
        inner = SlicingWindowAggOperator(spec, 1, 1, OP_AGGS, IN_SCHEMA, OUT_SCHEMA)
    return open_operator(ProcessingTimeOperator(inner, 1), backend, workdir, "window-agg-1", clock=clock)


def _ms(value: dt.datetime) -> int:
    return round((value.replace(tzinfo=None) - EPOCH).total_seconds() * 1000)


def _fired(rows):
    """(key, start ms, end ms) → (count, sum) of fired window rows."""
    out = {}
    for k, ws, we, _wt, n, s, _d in rows:
        key = (k, _ms(ws), _ms(we))
        assert key not in out, f"window {key} fired twice"
        out[key] = (n, s)
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_tumble_fires_on_the_clock_by_arrival_not_by_watermark(tmp_path, backend):
    clock = Clock(BASE + 1000)
    op, b = _window_op("TUMBLE", backend, tmp_path / "w", clock)
    out = op.process_batch(_batch([("x", 1), ("y", 2)], ts=0), 0)  # the time column's value is ignored
    clock.now = BASE + 9000
    out += op.process_batch(_batch([("x", 4)], ts=BASE + 50_000), 0)
    out += op.process_watermark(Watermark(BASE + 60_000))  # an event-time watermark fires nothing
    assert _rows(out) == []
    clock.now = BASE + 9998
    assert _rows(op.on_tick()) == []  # end - 1 not reached yet
    clock.now = BASE + 12_000
    out = _rows(op.on_tick())  # no input since: the window fires on the clock alone
    assert _fired(out) == {("x", BASE, BASE + 10_000): (2, 5), ("y", BASE, BASE + 10_000): (1, 2)}
    out = op.process_batch(_batch([("x", 8)]), 0)  # arrives at 12 s: the next window
    clock.now = BASE + 25_000
    out += op.on_tick()
    assert _fired(_rows(out)) == {("x", BASE + 10_000, BASE + 20_000): (1, 8)}
    assert _rows(op.on_tick()) == []  # fired once only
    b.close()


@pytest.mark.parametrize("kind", ["HOP", "CUMULATE", "SESSION"])
def test_hop_cumulate_and_session_windows_on_processing_time(tmp_path, kind):
    clock = Clock(BASE + 4000)
    op, b = _window_op(kind, "hashmap", tmp_path / "w", clock)
    op.process_batch(_batch([("x", 1)]), 0)
    clock.now = BASE + 6000
    op.process_batch(_batch([("x", 2)]), 0)
    clock.now = BASE + 30_000
    fired = _fired(_rows(op.on_tick()))
    if kind == "HOP":  # size 10 s every 5 s: 4 s is in [-5, 5) and [0, 10), 6 s in [0, 10) and [5, 15)
        assert fired == {("x", BASE - 5000, BASE + 5000): (1, 1), ("x", BASE, BASE + 10_000): (2, 3),
                         ("x", BASE + 5000, BASE + 15_000): (1, 2)}
    elif kind == "CUMULATE":  # size 10 s in steps of 5 s: [0, 5) holds 4 s, [0, 10) both
        assert fired == {("x", BASE, BASE + 5000): (1, 1), ("x", BASE, BASE + 10_000): (2, 3)}
    else:  # gap 3 s: 4 s and 6 s are one session [4 s, 9 s)
        assert fired == {("x", BASE + 4000, BASE + 9000): (2, 3)}
    b.close()


def test_rows_never_land_in_a_fired_window_when_the_clock_steps_back(tmp_path):
    clock = Clock(BASE + 10_500)
    op, b = _window_op("TUMBLE", "hashmap", tmp_path / "w", clock)
    op.process_batch(_batch([("x", 1)]), 0)
    clock.now = BASE + 20_000
    assert _fired(_rows(op.on_tick())) == {("x", BASE + 10_000, BASE + 20_000): (1, 1)}
    clock.now = BASE + 19_000  # the wall clock went back 1 s
    op.process_batch(_batch([("x", 2)]), 0)
    clock.now = BASE + 30_000
    assert _fired(_rows(op.on_tick())) == {("x", BASE + 20_000, BASE + 30_000): (1, 2)}
    assert op.ctx.metrics.get("late_records", 0) == 0
    b.close()


def test_end_of_input_drops_open_windows_as_flink(tmp_path):
    clock = Clock(BASE)
    op, b = _window_op("TUMBLE", "hashmap", tmp_path / "w", clock)
    op.process_batch(_batch([("x", 1)]), 0)
    assert _rows(op.process_watermark(Watermark(MAX_WATERMARK)) + op.finish()) == []
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kind", ["TUMBLE", "SESSION"])
def test_restore_fires_a_due_window_once_with_its_rows(tmp_path, backend, kind):
    """A window open at the checkpoint fires after the restore, once, with exactly its rows."""
    clock = Clock(BASE + 1000)
    first, b1 = _window_op(kind, backend, tmp_path / "first", clock)
    first.process_batch(_batch([("x", 1), ("y", 2)]), 0)
    clock.now = BASE + 2000
    first.process_batch(_batch([("x", 3)]), 0)
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    first.process_batch(_batch([("x", 100)]), 0)  # after the checkpoint: replayed by the source
    b1.close()

    clock.now = BASE + 40_000  # the restart comes long after the window's end
    second, b2 = _window_op(kind, backend, tmp_path / "second", clock)
    b2.restore(str(tmp_path / "snap"))
    fired = _fired(_rows(second.on_tick()))
    end = BASE + 10_000 if kind == "TUMBLE" else None
    if kind == "TUMBLE":
        assert fired == {("x", BASE, end): (2, 4), ("y", BASE, end): (1, 2)}
    else:
        assert fired == {("x", BASE + 1000, BASE + 5000): (2, 4), ("y", BASE + 1000, BASE + 4000): (1, 2)}
    second.process_batch(_batch([("x", 100)]), 0)  # the replayed row: a window of the new time
    clock.now = BASE + 60_000
    again = _fired(_rows(second.on_tick()))
    assert [v for v in again.values()] == [(1, 100)]
    assert all(k[1] >= BASE + 40_000 for k in again)
    b2.close()


def _over_op(spec, clock, workdir, eager):
    out = pa.schema(list(IN_SCHEMA) + [("__o0", pa.int64())])
    inner = OverAggOperator(spec, 1, 1, [AggSpec("sum", 2, SqlType("BIGINT"))], IN_SCHEMA, out)
    op = ProcessingTimeOperator(inner, 1, eager=eager)
    return open_operator(op, "hashmap", workdir, "over-1", clock=clock)


def test_over_rows_emits_each_row_at_once_in_arrival_order(tmp_path):
    clock = Clock(BASE)
    op, b = _over_op(OverSpec("ROWS", 1, proctime=True), clock, tmp_path / "w", eager=True)
    first = [(r[0], r[2], r[3]) for r in _rows(op.process_batch(_batch([("x", 1), ("x", 2), ("y", 5)]), 0))]
    second = [(r[0], r[2], r[3]) for r in _rows(op.process_batch(_batch([("x", 4)]), 0))]  # same ms
    assert first == [("x", 1, 1), ("x", 2, 3), ("y", 5, 5)]
    assert second == [("x", 4, 6)]
    b.close()


def test_over_range_emits_on_the_clock(tmp_path):
    clock = Clock(BASE)
    op, b = _over_op(OverSpec("RANGE", 5000, proctime=True), clock, tmp_path / "w", eager=False)
    assert _rows(op.process_batch(_batch([("x", 1)]), 0)) == []
    clock.now = BASE + 4500
    out = op.on_tick() + op.process_batch(_batch([("x", 2)]), 0)
    clock.now = BASE + 9000
    out += op.on_tick() + op.process_batch(_batch([("x", 4)]), 0)
    clock.now = BASE + 9500
    out += op.on_tick()
    # 4.5 s: 1 + 2 (both within 5 s); 9 s: 2 + 4 (the row at 0 s left the frame)
    assert [(r[2], r[3]) for r in _rows(out)] == [(1, 1), (2, 3), (4, 6)]
    b.close()


# -- planning ---------------------------------------------------------------------------------------


@pytest.fixture
def penv(tmp_path):
    (tmp_path / "in.json").write_text("".join(json.dumps({"v": v, "ts": "2024-05-01 00:00:00"}) + "\n"
                                              for v in (1, 2, 3)))
    env = make_env(tmp_path)
    env.execute_sql("CREATE TABLE pt_src (v INT, ts TIMESTAMP(3), pt AS PROCTIME(), "
                    "WATERMARK FOR ts AS ts) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path / 'in.json'}', 'format' = 'json')")
    env.execute_sql("CREATE VIEW pev AS SELECT v, ts, pt FROM pt_src")  # passes the PROCTIME() column on
    yield env
    env.close()


@pytest.mark.parametrize(("sql", "expected"), [
    ("SELECT v, SUM(v) OVER (ORDER BY pt) FROM pev", [(1, 1), (2, 3), (3, 6)]),
    # processing-time windows, not event-time ones: nothing fires at end of input (an event-time
    # window over ts would fire there)
    ("SELECT COUNT(*) FROM pev GROUP BY TUMBLE(pt, INTERVAL '10' SECOND)", []),
    ("SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE pev, DESCRIPTOR(pt), INTERVAL '10' SECOND)) "
     "GROUP BY window_start, window_end", []),
])
def test_processing_time_attributes_through_a_view(penv, sql, expected):
    assert [tuple(r) for _, r in penv.execute_sql(sql).collect(timeout=60)] == expected


@pytest.mark.parametrize("sql", [
    "SELECT v, COUNT(v) OVER (ORDER BY pt RANGE BETWEEN INTERVAL '1' HOUR PRECEDING AND CURRENT ROW) "
    "FROM pev",
    "SELECT COUNT(*) FROM pev GROUP BY TUMBLE(pt, INTERVAL '1' MILLISECOND)",
])
def test_end_of_input_comes_before_any_processing_time_tick(penv, sql):
    """A bounded source's end of input follows its last batch in the same step, as Flink's ends
    after its last record: rows waiting on a processing-time timer are dropped there (compat case
    proctime_over_range_end_of_input, Flink's empty answer), even when the job's tick is due after
    every step (1 ms: a loaded machine), which fired them when the end came one poll later."""
    penv.execute_sql("SET 'pipeline.auto-watermark-interval' = '1 ms'")
    assert [tuple(r) for _, r in penv.execute_sql(sql).collect(timeout=60)] == []


@pytest.mark.parametrize(("sql", "message", "caret_at"), [
    ("SELECT TUMBLE_ROWTIME(pt, INTERVAL '10' SECOND) FROM pev GROUP BY TUMBLE(pt, INTERVAL '10' SECOND)",
     "use TUMBLE_PROCTIME", "TUMBLE_ROWTIME"),
    ("SELECT TUMBLE_PROCTIME(ts, INTERVAL '10' SECOND) FROM pev GROUP BY TUMBLE(ts, INTERVAL '10' SECOND)",
     "use TUMBLE_ROWTIME", "TUMBLE_PROCTIME"),
    # the window_start of a processing-time window is no time attribute to window again (its
    # window_time is one: tests/e2e/test_proctime_in_select.py)
    ("SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE w1, DESCRIPTOR(ws), INTERVAL '1' MINUTE)) "
     "GROUP BY window_start, window_end", "must be a time attribute", "ws), INTERVAL '1' MINUTE"),
])
def test_processing_time_planning_errors(penv, sql, message, caret_at):
    penv.execute_sql("CREATE VIEW w1 AS SELECT window_start AS ws, window_time AS wt FROM TABLE(TUMBLE("
                     "TABLE pev, DESCRIPTOR(pt), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, "
                     "window_time")
    with pytest.raises(SqlError, match=message) as e:
        penv.execute_sql(sql)
    assert sql[e.value.col - 1:].startswith(caret_at)


# -- a job on the real broker: an idle source still fires the window ------------------------------


def test_job_fires_processing_time_windows_while_the_source_is_idle(kafka_bootstrap, kafka_topic_factory,
                                                                     tmp_path):
    from confluent_kafka import Producer

    topic = kafka_topic_factory("proctime")
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    env = make_env(tmp_path)
    env.execute_sql("SET 'pipeline.auto-watermark-interval' = '50 ms'")
    env.execute_sql(f"CREATE TABLE s (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'kafka', "
                    f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                    f"'format' = 'json', 'scan.startup.mode' = 'earliest-offset')")
    result = env.execute_sql("SELECT k, window_start, window_end, COUNT(*) AS n, SUM(v) AS s FROM TABLE("
                             "TUMBLE(TABLE s, DESCRIPTOR(pt), INTERVAL '1' SECOND)) "
                             "GROUP BY k, window_start, window_end")
    sent = [("a", i) for i in range(1, 31)] + [("b", 100)]
    for k, v in sent:
        producer.produce(topic, json.dumps({"k": k, "v": v}).encode())
    producer.flush(10)
    rows = []
    deadline = time.monotonic() + 60
    it = iter(result.collect(timeout=60))
    # Nothing more is produced: the windows must fire on the clock alone.
    while sum(r[3] for r in rows) < len(sent) and time.monotonic() < deadline:
        kind, row = next(it)
        assert kind.short == "+I"
        rows.append(tuple(row))
    result.job.cancel()
    producer.flush(1)
    assert sum(r[3] for r in rows) == len(sent), rows
    assert Counter(r[0] for r in rows for _ in range(r[3])) == Counter(k for k, _ in sent)
    assert sum(r[4] for r in rows) == sum(v for _, v in sent)
    for _k, ws, we, _n, _s in rows:
        assert _ms(we) - _ms(ws) == 1000 and _ms(ws) % 1000 == 0
    assert len(set((r[0], r[1]) for r in rows)) == len(rows)  # each (key, window) once


# -- kill -9 and restart: an open window is neither lost nor counted twice ------------------------

_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
bs, src, dst, d, name = sys.argv[1:6]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "300 ms",
                         "execution.batch-size": "50", "pipeline.auto-watermark-interval": "50 ms"})
env.execute_sql(f"CREATE TABLE s (id BIGINT, k INT, v INT, pt AS PROCTIME()) WITH ("
                f"'connector'='kafka', 'topic'='{src}', 'properties.bootstrap.servers'='{bs}', "
                f"'format'='json', 'scan.startup.mode'='earliest-offset')")
env.execute_sql(f"CREATE TABLE d (ws TIMESTAMP(3), we TIMESTAMP(3), k INT, n BIGINT, s BIGINT) WITH ("
                f"'connector'='kafka', 'topic'='{dst}', 'properties.bootstrap.servers'='{bs}', "
                f"'format'='json', 'sink.delivery-guarantee'='exactly-once')")
env.execute_sql("INSERT INTO d SELECT window_start, window_end, k, COUNT(*), SUM(v) FROM TABLE(TUMBLE("
                "TABLE s, DESCRIPTOR(pt), INTERVAL '5' SECOND)) GROUP BY window_start, window_end, k")
env.wait_all()
"""


def test_kill_and_restart_counts_every_row_in_exactly_one_window(kafka_bootstrap, kafka_topic_factory,
                                                                  tmp_path):
    """Killed (-9) before a checkpoint commits, the job restarts from the last committed one: the
    windows open in it (5 s windows, the kill about 1 s in) fire after the restore, rows replayed
    count in later windows, and every row is committed in exactly one window (the job is unbounded:
    it runs until all are counted)."""
    import os
    import subprocess
    import sys
    import uuid

    from confluent_kafka import Producer

    from streamsql.testing.chaos import read_committed

    src, dst = kafka_topic_factory("pt-src"), kafka_topic_factory("pt-dst")
    events = [(i, i % 3, i % 100) for i in range(3000)]
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i, k, v in events:
        p.produce(src, json.dumps({"id": i, "k": k, "v": v}).encode())
    assert p.flush(30) == 0
    root = Path(__file__).resolve().parents[2]
    name = f"pt-{uuid.uuid4().hex[:8]}"
    args = [sys.executable, "-c", _CHILD, kafka_bootstrap, src, dst, str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": str(root), "STREAMSQL_FAULT": "after_snapshot_before_commit:3"}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    env.pop("STREAMSQL_FAULT")
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        rows = []
        while time.monotonic() < deadline and child.poll() is None:
            rows = [json.loads(v) for _, v in read_committed(kafka_bootstrap, dst)]
            if sum(r["n"] for r in rows) >= len(events):
                break
            time.sleep(1)
        assert child.poll() is None, child.stderr.read()[-2000:]
        time.sleep(2)  # nothing more may come: every row is counted already
        rows = [json.loads(v) for _, v in read_committed(kafka_bootstrap, dst)]
    finally:
        child.kill()
        child.wait(30)
    assert sum(r["n"] for r in rows) == len(events)
    assert sum(r["s"] for r in rows) == sum(v for _, _, v in events)
    assert Counter(r["k"] for r in rows for _ in range(r["n"])) == Counter(k for _, k, _ in events)
    assert len({(r["ws"], r["k"]) for r in rows}) == len(rows)  # each (window, key) once


# -- windows in the session time zone ---------------------------------------------------------------

KTM = "Asia/Kathmandu"  # UTC+05:45: an hour window starts at a local :00, 15 minutes past a UTC hour


@pytest.mark.parametrize(("sql", "windows"), [
    ("SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE pt_src, DESCRIPTOR(pt), "
     "INTERVAL '1' HOUR)) GROUP BY window_start, window_end", [("05:00", "06:00")]),
    ("SELECT window_start, window_end, COUNT(*) FROM TABLE(HOP(TABLE pt_src, DESCRIPTOR(pt), "
     "INTERVAL '1' HOUR, INTERVAL '2' HOUR)) GROUP BY window_start, window_end",
     [("04:00", "06:00"), ("05:00", "07:00")]),
    ("SELECT window_start, window_end, COUNT(*) FROM TABLE(CUMULATE(TABLE pt_src, DESCRIPTOR(pt), "
     "INTERVAL '1' HOUR, INTERVAL '1' DAY)) GROUP BY window_start, window_end",
     [("00:00", "06:00"), ("00:00", "07:00")]),
    ("SELECT TUMBLE_START(pt, INTERVAL '1' HOUR), TUMBLE_END(pt, INTERVAL '1' HOUR), COUNT(*) "
     "FROM pt_src GROUP BY TUMBLE(pt, INTERVAL '1' HOUR)", [("05:00", "06:00")]),
])
def test_processing_time_windows_are_cut_in_the_session_time_zone(penv, tmp_path, sql, windows):
    """As Flink's TimeWindowUtil: a PROCTIME() attribute is TIMESTAMP_LTZ, so its windows are cut
    on the wall clock of 'table.local-time-zone' and window_start / window_end are those wall
    clocks. (They were cut on UTC: an hourly window in Kathmandu was [00:00, 01:00) UTC, shown as
    00:00, where Flink shows the local [05:00, 06:00).)"""
    from streamsql.plan.nodes import walk
    from streamsql.plan.planner import Planner
    from streamsql.plan.windows import WindowAggNode
    from streamsql.runtime.builder import create_operator
    from streamsql.sql.parser import parse_statement

    penv.execute_sql(f"SET 'table.local-time-zone' = '{KTM}'")
    root = Planner(penv.catalog, penv.config, sql).plan_query(parse_statement(sql))
    node = next(n for n in walk([root]) if isinstance(n, WindowAggNode))
    clock = Clock(BASE + 10 * 60_000)  # 2024-05-01 00:10 UTC = 05:55 in Kathmandu
    op, b = open_operator(create_operator(node), "hashmap", tmp_path / "w", "window-agg-1", clock=clock)
    schema = node.inputs[0].schema
    rows = {f.name: [None] * 2 for f in schema}
    rows[schema.names[0]] = [1, 2] if pa.types.is_integer(schema.field(0).type) else rows[schema.names[0]]
    out = op.process_batch(Batch(pa.Table.from_pydict(rows, schema=schema)), 0)
    clock.now = BASE + 20 * 60_000  # 06:05 local: the window ending at 06:00 fires
    out += op.on_tick()
    clock.now = BASE + 80 * 60_000  # 07:05 local: the one ending at 07:00 (HOP, CUMULATE)
    out += op.on_tick()
    b.close()
    got = [(r[0].strftime("%H:%M"), r[1].strftime("%H:%M")) for r in _rows(out)]
    assert got == windows
    assert all(r[-1] == 2 for r in _rows(out)), _rows(out)
    assert all(r[0].date() == dt.date(2024, 5, 1) for r in _rows(out))
