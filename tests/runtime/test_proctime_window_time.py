"""``window_time`` of processing-time windows: the processing time of the emission, as Flink 2.3.

Over ``proc AS PROCTIME()``, Flink 2.3 keeps a window's ``window_time`` (TVF rows, window
aggregates, the legacy ``TUMBLE_PROCTIME``) a processing-time attribute and materializes it
(``PROCTIME_MATERIALIZE``) where it is read: its value is the processing time then, not
``window_end - 1`` (``scripts/flink_proctime_window_time.py`` records it to
``proctime_window_time_flink.json``). So here too: the operators, built from planned queries, run on
an injected clock (exact times), and jobs on the real broker are compared with Flink's recording
(the relation of ``window_time`` to the windows and to the time the row was received).
"""

from __future__ import annotations

import datetime as dt
import json
import time
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch
from tests.runtime.harness import open_operator
from tests.runtime.oracle import make_env
from tests.runtime.test_proctime import BASE, Clock

RECORDED = Path(__file__).parent / "proctime_window_time_flink.json"
FLINK = json.loads(RECORDED.read_text())
COLUMNS = FLINK["columns"]
TVF = {"TUMBLE": "INTERVAL '2' SECOND", "HOP": "INTERVAL '1' SECOND, INTERVAL '2' SECOND",
       "CUMULATE": "INTERVAL '1' SECOND, INTERVAL '2' SECOND"}
SESSION = "TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(proc), INTERVAL '2' SECOND))"


def _tvf(kind: str) -> str:
    return f"TABLE({kind}(TABLE ev, DESCRIPTOR(proc), {TVF[kind]}))"


@pytest.fixture
def env(tmp_path):
    (tmp_path / "in.json").write_text(json.dumps({"k": "a", "v": 1}) + "\n")
    env = make_env(tmp_path)
    env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
    env.execute_sql(f"CREATE TABLE ev ({COLUMNS}) WITH ('connector' = 'filesystem', "
                    f"'path' = '{tmp_path / 'in.json'}', 'format' = 'json')")
    yield env
    env.close()


def _ms(value: dt.datetime) -> int:
    return round(value.timestamp() * 1000)


def _operator(env, sql: str, workdir: Path, clock: Clock):
    """The plan's window operator (TVF or window aggregate) as the job builds it, opened on ``clock``."""
    from streamsql.plan.nodes import walk
    from streamsql.plan.planner import Planner
    from streamsql.plan.windows import SessionTableFunctionNode, WindowAggNode, WindowTableFunctionNode
    from streamsql.runtime.builder import create_operator
    from streamsql.sql.parser import parse_statement

    root = Planner(env.catalog, env.config, sql).plan_query(parse_statement(sql))
    node = next(n for n in walk([root])
                if isinstance(n, (WindowAggNode, WindowTableFunctionNode, SessionTableFunctionNode)))
    op, backend = open_operator(create_operator(node), "hashmap", workdir, "window-1", clock=clock)
    schema = node.inputs[0].schema
    rows = {f.name: [None] * 2 for f in schema}
    rows.update({n: ["a", "a"] for n in schema.names if n == "k"})
    return op, backend, Batch(pa.Table.from_pydict(rows, schema=schema)), node


@pytest.mark.parametrize("sql", [
    *(f"SELECT k, window_start, window_end, window_time, COUNT(*) AS n FROM {_tvf(kind)} "
      "GROUP BY k, window_start, window_end, window_time" for kind in TVF),
    f"SELECT k, window_start, window_end, window_time, COUNT(*) AS n FROM {SESSION} "
    "GROUP BY k, window_start, window_end, window_time",
    "SELECT k, TUMBLE_PROCTIME(proc, INTERVAL '2' SECOND) AS wt, COUNT(*) AS n FROM ev "
    "GROUP BY k, TUMBLE(proc, INTERVAL '2' SECOND)",
    "SELECT k, SESSION_PROCTIME(proc, INTERVAL '2' SECOND) AS wt, COUNT(*) AS n FROM ev "
    "GROUP BY k, SESSION(proc, INTERVAL '2' SECOND)",
])
def test_window_aggregate_window_time_is_the_firing_time(env, tmp_path, sql):
    """Rows arriving at 0.3 s; the clock's next tick after the window's end is at 2.7 s (4.7 s for
    the session: 0.3 s + gap): the window's row carries that tick's time as window_time, not
    window_end - 1 (was 1.999 s)."""
    clock = Clock(BASE + 300)
    op, backend, batch, node = _operator(env, sql, tmp_path / "w", clock)
    assert op.process_batch(batch, 0) == []
    fired_at = BASE + (4700 if "SESSION" in sql else 2700)
    clock.now = fired_at
    out = [r for el in op.on_tick() if isinstance(el, Batch) for r in el.table.to_pylist()]
    backend.close()
    assert out, sql
    we, wt = node.schema.names[node.num_keys + 1:node.num_keys + 3]  # keys, start, end, time, aggregates
    for row in out:
        assert _ms(row[we]) - 1 < fired_at
        assert _ms(row[wt]) == fired_at, row


@pytest.mark.parametrize("kind", [*TVF, "SESSION"])
def test_window_tvf_rows_window_time_is_their_emission(env, tmp_path, kind):
    """TUMBLE / HOP / CUMULATE rows go out at their arrival (0.3 s): window_time and proc are that
    time (was window_end - 1); a SESSION's rows go out when it closes (4.7 s): both that time."""
    clock = Clock(BASE + 300)
    tvf = _tvf(kind) if kind in TVF else SESSION
    op, backend, batch, _ = _operator(env, f"SELECT * FROM {tvf}", tmp_path / "w", clock)
    out = op.process_batch(batch, 0)
    if kind == "SESSION":
        clock.now = BASE + 4700
        out += op.on_tick()
    rows = [r for el in out if isinstance(el, Batch) for r in el.table.to_pylist()]
    backend.close()
    emitted = BASE + (4700 if kind == "SESSION" else 300)
    assert len(rows) == {"TUMBLE": 2, "HOP": 4, "CUMULATE": 4, "SESSION": 2}[kind]  # windows x 2 rows
    for row in rows:
        assert (_ms(row["window_time"]), _ms(row["proc"])) == (emitted, emitted), row
        assert _ms(row["window_start"]) <= BASE + 300 < _ms(row["window_end"]), row


# -- against Flink 2.3's recording, on the real broker ---------------------------------------------

LATENCY = 1500  # ms: a burst's rows reach the window operator within this of its sending (both engines)
SHAPES = {"tumble_rows": "rows", "hop_rows": "rows", "cumulate_rows": "rows", "tumble_agg": "agg",
          "hop_agg": "agg", "cumulate_agg": "agg", "legacy_tumble": "agg", "top_n_over_tvf_rows": "top_n"}


def normalized(name: str, rows: list[list], sent: list[int]) -> set[tuple]:
    """A run's rows (``[kind, received ms, cell, ...]``) as what does not depend on the run's timing.

    Each row's window_time is checked against the run's times: TVF rows (and a Top-N over them)
    carry their arrival (window_time within the window, equal to ``proc``, within
    :data:`LATENCY` of its burst's sending), a window aggregate's row its firing (window_time at
    or after ``window_end - 1``, within :data:`LATENCY`, not after the row was received). What
    is left: the rows' keys and values (with their burst) or the windows' counts.
    """
    from tests.runtime.test_proctime_session import _burst, _final, _instant

    if SHAPES[name] == "top_n":  # the final (k, v) per k; window_time of each +I / +U row its emission
        for kind, _, k, v, ws, we, wt in rows:
            if kind in ("+I", "+U") and k not in ("w", "z"):
                assert _instant(ws) <= _instant(wt) < _instant(we), (k, v, wt)
        final = _final([[kind, *cells[:2]] for kind, _, *cells in rows])
        return {r for r in final if r[0] not in ("w", "z")}
    out = set()
    for row in _final([[kind, *cells] for kind, _, *cells in rows]):
        k = row[0]
        if k in ("w", "z"):
            continue
        received = next(r[1] for r in rows if tuple(r[2:]) == row)
        if SHAPES[name] == "agg":
            ws, we, wt, n = (_instant(c) if i < 3 else c for i, c in enumerate(row[1:5]))
            assert 0 <= wt - (we - 1) < LATENCY and wt <= received + 5, (name, row)
            out.add((k, n))
            continue
        v, ws, we, wt = row[1], _instant(row[2]), _instant(row[3]), _instant(row[4])
        assert ws <= wt < we, (name, row)
        if SHAPES[name] == "rows":
            assert abs(_instant(row[5]) - wt) <= 5, (name, row)
        out.add((k, v, _burst(wt, sent)))
    return out


def test_recorded_flink_window_times_read_as_meant():
    """Flink's recording: rows carry their arrival, aggregates their firing; the windows' counts."""
    got = {name: normalized(name, s["runs"][0]["rows"], s["runs"][0]["sent"])
           for name, s in FLINK["scenarios"].items() if name in SHAPES and s["runs"]}
    rows = {("a", 1, 0), ("b", 2, 0), ("a", 3, 0), ("a", 4, 1)}
    assert got == {"tumble_rows": rows, "hop_rows": rows, "cumulate_rows": rows,
                   "tumble_agg": {("a", 2), ("b", 1), ("a", 1)}, "hop_agg": {("a", 2), ("b", 1), ("a", 1)},
                   "cumulate_agg": {("a", 2), ("b", 1), ("a", 1)},
                   "legacy_tumble": {("a", 2), ("b", 1), ("a", 1)},
                   "top_n_over_tvf_rows": {("a", 4), ("b", 2)}}


def test_kafka_window_times_as_flink(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Every recorded query (window_time and proc cast to TIMESTAMP(3), the UTC wall clock, as
    PyFlink can only collect them so), as jobs over one topic written in the
    recording's bursts: the same rows and window counts, each window_time in the same relation to
    the windows and the clock as Flink's (:func:`normalized`)."""
    from confluent_kafka import Producer

    from tests.runtime.test_proctime_session import _write_bursts

    topic = kafka_topic_factory("proctwt36")
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 0})
    producer.produce(topic, json.dumps({"k": "w", "v": 0}).encode())
    producer.flush(10)
    env = make_env(tmp_path)
    env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
    env.execute_sql("SET 'pipeline.auto-watermark-interval' = '50 ms'")
    env.execute_sql(f"CREATE TABLE ev ({COLUMNS}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                    f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                    "'scan.startup.mode' = 'earliest-offset')")
    scenarios = {name: s for name, s in FLINK["scenarios"].items() if name in SHAPES and s["runs"]}
    results = {name: env.execute_sql(s["query"]) for name, s in scenarios.items()}
    rows: dict[str, list] = {name: [] for name in scenarios}
    iters = {name: iter(r.collect(timeout=60)) for name, r in results.items()}

    def read_until(name: str, key: str) -> None:
        while not rows[name] or rows[name][-1][2] != key:
            kind, row = next(iters[name])
            rows[name].append([kind.short, round(time.time() * 1000), *row])

    sent: list[int] = []
    try:
        for name in scenarios:  # every job has read the warm-up row (its window came out)
            read_until(name, "w")
        _write_bursts(producer, topic, sent, FLINK["bursts"])
        for name in scenarios:
            read_until(name, "z")
    finally:
        for r in results.values():
            r.job.cancel()
    got = {name: normalized(name, rows[name], sent) for name in scenarios}
    runs = {name: s["runs"][0] for name, s in scenarios.items()}
    assert got == {name: normalized(name, run["rows"], run["sent"]) for name, run in runs.items()}


def test_describe_marks_window_time_as_flink(env):
    """DESCRIBE of a view over each recorded query (bare, not cast): Flink's names and types, the
    window's time ``TIMESTAMP_LTZ(3) *PROCTIME*`` (not null), as the PROCTIME() column passed on.

    Not compared: the null column of window_start, window_end and COUNT(*), NOT NULL in Flink,
    nullable here, and the Top-N's window_time, which Flink still marks ``*PROCTIME*`` after the
    (updating) Top-N and StreamSQL does not, as after an aggregation or a join
    (docs/processing-time.md)."""
    got, want = {}, {}
    for name, s in FLINK["scenarios"].items():
        if "describe" not in s or name == "top_n_over_tvf_rows":
            continue
        env.execute_sql(f"CREATE TEMPORARY VIEW v_{name} AS {s['describe_query']}")
        rows = env.execute_sql(f"DESCRIBE v_{name}").rows
        got[name] = [[r[0], r[1]] + ([r[2]] if "*" in r[1] else []) for r in rows]
        want[name] = [[r[0], r[1]] + ([r[2]] if "*" in r[1] else []) for r in s["describe"]]
    assert got == want
