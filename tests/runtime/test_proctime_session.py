"""The rows of a processing-time SESSION window TVF: on an injected clock, and a job on the real broker.

At the operator level the clock is the test's, so the sessions are exact: a row's time is its
batch's arrival, a session is ``[first arrival, last arrival + gap)`` per PARTITION BY key and
goes out at the first tick at or past ``end - 1``; the time attribute and ``window_time`` of its
rows are that tick's processing time (Flink's ``PROCTIME_MATERIALIZE`` after the TVF); a session
open at a checkpoint fires after the restore, once, with the rows it had.

Against Apache Flink 2.3 (``scripts/flink_proctime_session.py`` writes
``proctime_session_flink.json``), the same queries read a Kafka topic written in the recording's
bursts, paced by the same offsets: which rows form a session (each session named by the bursts
its first and last rows came in) and the final tables of a GroupAggregate and a Top-N over the
rows are Flink's, and the bounds are the arrival times (a session starts within a second of its
first burst's sending and lasts gap + the time between its first and last burst).
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
from pathlib import Path

import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, Watermark
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.operators.proctime import ProcessingTimeOperator
from streamsql.runtime.operators.session_tvf import SessionTableFunctionOperator
from tests.runtime.harness import open_operator

BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
GAP = 2000
EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
LTZ = pa.timestamp("ms", tz="UTC")
SCHEMA = pa.schema([("k", pa.string()), ("v", pa.int32()), ("proc", LTZ)])
OUT = pa.schema(list(SCHEMA) + [pa.field("window_start", pa.timestamp("ms")),
                                pa.field("window_end", pa.timestamp("ms")), pa.field("window_time", LTZ)])
FLINK = json.loads((Path(__file__).parent / "proctime_session_flink.json").read_text())


class Clock:
    """A processing-time clock the test moves (ms)."""

    def __init__(self, now: int):
        self.now = now

    def __call__(self) -> int:
        return self.now


def _ms(value: dt.datetime) -> int:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.timezone.utc)
    return round((value - EPOCH).total_seconds() * 1000)


def _open(backend, workdir, clock, keyed=True):
    inner = SessionTableFunctionOperator(WindowSpec("SESSION", gap=GAP, proctime=True, zone="UTC"), 2,
                                         [0] if keyed else [], SCHEMA, OUT)
    op = ProcessingTimeOperator(inner, 2, stamped=(2, len(OUT) - 1))  # as builder.py: proc, window_time
    return open_operator(op, backend, workdir, "session-tvf-1", clock=clock)


def _batch(rows):
    """Rows (k, v); the time column holds 0 (the operator stamps the arrival)."""
    keys, values = zip(*rows)
    return Batch(pa.Table.from_arrays([pa.array(keys, pa.string()), pa.array(values, pa.int32()),
                                       pa.array([0] * len(rows), pa.int64()).cast(LTZ)], schema=SCHEMA))


def _rows(elements):
    """(k, v, proc, start, end, window_time) of the emitted rows, times in ms."""
    return [(r["k"], r["v"], *(_ms(r[c]) for c in ("proc", "window_start", "window_end", "window_time")))
            for el in elements if isinstance(el, Batch) for r in el.table.to_pylist()]


@pytest.mark.parametrize("keyed", [True, False])
def test_sessions_close_on_the_clock_with_their_arrival_bounds(tmp_path, keyed):
    clock = Clock(BASE + 1000)
    op, b = _open("hashmap", tmp_path / "w", clock, keyed)
    out = op.process_batch(_batch([("a", 1), ("b", 2), ("a", 3)]), 0)
    clock.now = BASE + 2500
    out += op.process_batch(_batch([("a", 4)]), 0)  # within a's gap: a's session grows
    out += op.process_watermark(Watermark(BASE + 60_000))  # an event-time watermark fires nothing
    clock.now = BASE + 2998
    out += op.on_tick()
    assert _rows(out) == []
    clock.now = BASE + 3100  # b's session [1 s, 3 s) is due (end - 1 <= 3.1 s), a's [1 s, 4.5 s) not
    fired = _rows(op.on_tick())
    if keyed:
        assert fired == [("b", 2, BASE + 3100, BASE + 1000, BASE + 3000, BASE + 3100)]
        clock.now = BASE + 4700
        fired = _rows(op.on_tick())
        assert fired == [("a", v, BASE + 4700, BASE + 1000, BASE + 4500, BASE + 4700) for v in (1, 3, 4)]
    else:  # one session for all rows, in arrival order
        assert fired == []
        clock.now = BASE + 4700
        fired = _rows(op.on_tick())
        assert fired == [(k, v, BASE + 4700, BASE + 1000, BASE + 4500, BASE + 4700)
                         for k, v in (("a", 1), ("b", 2), ("a", 3), ("a", 4))]
    assert _rows(op.on_tick()) == []  # once
    clock.now = BASE + 9000
    out = op.process_batch(_batch([("a", 5)]), 0)  # after the firing: a new session
    clock.now = BASE + 11_000
    assert _rows(out + op.on_tick()) == [("a", 5, BASE + 11_000, BASE + 9000, BASE + 11_000, BASE + 11_000)]
    b.close()


def test_end_of_input_drops_open_sessions_as_flink(tmp_path):
    """As every processing-time window here and in Flink 2.3: pending timers do not fire at the end."""
    clock = Clock(BASE)
    op, b = _open("hashmap", tmp_path / "w", clock)
    op.process_batch(_batch([("a", 1)]), 0)
    assert _rows(op.finish()) == []
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_restore_fires_an_open_session_once_with_its_rows(tmp_path, backend):
    """A session open at the checkpoint fires after the restore, once, with exactly its rows."""
    clock = Clock(BASE + 1000)
    first, b1 = _open(backend, tmp_path / "first", clock)
    first.process_batch(_batch([("a", 1), ("b", 2)]), 0)
    clock.now = BASE + 2000
    first.process_batch(_batch([("a", 3)]), 0)
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    first.process_batch(_batch([("a", 100)]), 0)  # after the checkpoint: replayed by the source
    b1.close()

    clock.now = BASE + 40_000  # the restart comes long after the sessions' ends
    second, b2 = _open(backend, tmp_path / "second", clock)
    b2.restore(str(tmp_path / "snap"))
    fired = _rows(second.on_tick())
    assert sorted(fired) == [("a", 1, BASE + 40_000, BASE + 1000, BASE + 4000, BASE + 40_000),
                             ("a", 3, BASE + 40_000, BASE + 1000, BASE + 4000, BASE + 40_000),
                             ("b", 2, BASE + 40_000, BASE + 1000, BASE + 3000, BASE + 40_000)]
    assert _rows(second.on_tick()) == []
    second.process_batch(_batch([("a", 100)]), 0)  # the replayed row: a session of the new time
    clock.now = BASE + 43_000  # (1 ms after the last firing: processing time only moves forward)
    assert _rows(second.on_tick()) == [("a", 100, BASE + 43_000, BASE + 40_001, BASE + 42_001, BASE + 43_000)]
    b2.close()


# -- against Flink 2.3 on the real broker: the same bursts, the same sessions ---------------------

LATENCY = 1500  # ms: a burst's rows reach the window operator within this of its sending (both engines)


def _instant(value) -> int:
    """A collected timestamp (Flink's ``YYYY-MM-DD hh:mm:ss.fff`` text or a datetime), UTC wall clock → ms."""
    if isinstance(value, str):
        value = dt.datetime.strptime(value, "%Y-%m-%d %H:%M:%S.%f")
    return _ms(value)


def _burst(ms: int, sent: list[int]) -> int:
    """The burst whose rows arrived at ``ms``: the last one sent before, at most :data:`LATENCY` before."""
    i = max(j for j, s in enumerate(sent) if s <= ms)
    assert ms - sent[i] < LATENCY, (ms, sent)
    return i


def _final(rows: list[list]) -> dict[tuple, int]:
    """The final table of a changelog ``[kind, cell, ...]``: row → count."""
    table: dict[tuple, int] = {}
    for kind, *cells in rows:
        row = tuple(cells)
        table[row] = table.get(row, 0) + (1 if kind in ("+I", "+U", "INSERT", "UPDATE_AFTER") else -1)
    return {r: n for r, n in table.items() if n}


def normalized(name: str, rows: list[list], sent: list[int]) -> dict[tuple, int]:
    """A scenario's final table, each session named by the bursts its first and last rows came in.

    ``window_start`` → the burst of the session's first row, ``window_end`` → that of its last one
    (``window_end - gap``); the warm-up and the sentinel sessions are left out. For ``rows``, the
    time attribute and ``window_time`` must be the emission's time: both at ``window_end - 1`` or
    within :data:`LATENCY` after it.
    """
    out: dict[tuple, int] = {}
    for row, n in _final(rows).items():
        if row[0] in ("w", "z"):
            continue
        if name == "group_aggregate":
            k, ws, count, total = row
            key = (k, _burst(_instant(ws), sent), count, total)
        elif name == "attached_aggregate":
            k, ws, we, count, top = row
            key = (k, _burst(_instant(ws), sent), _burst(_instant(we) - GAP, sent), count, top)
        else:
            k, v, ws, we = row[:4]
            key = (k, v, _burst(_instant(ws), sent), _burst(_instant(we) - GAP, sent))
            if name == "rows":
                wt, pt = _instant(row[4]), _instant(row[5])
                assert 0 <= wt - (_instant(we) - 1) < LATENCY and abs(pt - wt) <= 5, row
        out[key] = out.get(key, 0) + n
    return out


def test_normalized_flink_answers_are_the_bursts_sessions():
    """The recording reads as meant: a's first session spans bursts 0-1, b's 2-3, the rest one burst each."""
    run = FLINK["scenarios"]["rows"]["runs"][0]
    got = normalized("rows", run["rows"], run["sent"])
    assert got == {("a", 1, 0, 1): 1, ("a", 3, 0, 1): 1, ("a", 4, 0, 1): 1, ("b", 2, 0, 0): 1,
                   ("a", 5, 2, 2): 1, ("b", 6, 2, 3): 1, ("c", 7, 2, 2): 1, ("b", 8, 2, 3): 1,
                   ("a", 9, 4, 4): 1}


def _write_bursts(producer, topic: str, sent: list[int], bursts: list | None = None) -> None:
    """Write ``bursts`` (default: the recording's, ``[offset s, [[k, v], ...]]``), send times to ``sent``."""
    start = time.time()
    for offset, rows in bursts or FLINK["bursts"]:
        time.sleep(max(0.0, start + offset - time.time()))
        sent.append(round(time.time() * 1000))
        for k, v in rows:
            producer.produce(topic, json.dumps({"k": k, "v": v}).encode())
        producer.flush(10)


def test_kafka_sessions_and_their_aggregate_and_top_n_as_flink(kafka_bootstrap, kafka_topic_factory,
                                                               tmp_path):
    """Every recorded query at once, as jobs over one topic written in the recording's bursts.

    Each job's final table, normalized (:func:`normalized`), is Flink's: the same rows in the same
    sessions, the same GroupAggregate and Top-N results per session.
    """
    from confluent_kafka import Producer

    from tests.runtime.oracle import make_env

    topic = kafka_topic_factory("proctsession36")
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 0})
    producer.produce(topic, json.dumps({"k": "w", "v": 0}).encode())
    producer.flush(10)
    env = make_env(tmp_path)
    env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
    env.execute_sql("SET 'pipeline.auto-watermark-interval' = '50 ms'")
    env.execute_sql(f"CREATE TABLE ev ({FLINK['columns']}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                    f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                    "'scan.startup.mode' = 'earliest-offset')")
    scenarios = FLINK["scenarios"]
    results = {name: env.execute_sql(s["query"]) for name, s in scenarios.items()}
    rows: dict[str, list] = {name: [] for name in scenarios}
    iters = {name: iter(r.collect(timeout=60)) for name, r in results.items()}

    def read_until(name: str, key: str) -> None:
        while not rows[name] or rows[name][-1][1] != key:
            kind, row = next(iters[name])
            rows[name].append([kind.short, *row])

    sent: list[int] = []
    try:
        for name in scenarios:  # every job has read the warm-up row (its session came out)
            read_until(name, "w")
        writer = threading.Thread(target=_write_bursts, args=(producer, topic, sent))
        writer.start()
        writer.join()
        for name in scenarios:
            read_until(name, "z")
    finally:
        for r in results.values():
            r.job.cancel()
    for name, s in scenarios.items():
        flink = s["runs"][0]
        assert normalized(name, rows[name], sent) == normalized(name, flink["rows"], flink["sent"]), name


# -- a parallel job: the rows exchanged by the PARTITION BY key, sessions per task -----------------

#: ``[offset s, [[k, v], ...]]``: a's first session spans bursts 0 and 1; z is the sentinel.
PARALLEL_BURSTS = [[0.0, [["a", 1], ["b", 2], ["c", 3], ["d", 4]]], [1.0, [["a", 5]]],
                   [6.0, [["a", 6], ["b", 7]]], [11.0, [["z", 0]]]]


def test_parallel_job_sessions_per_partition_key(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """At parallelism 2 the TVF runs in a stage of 2 tasks behind an exchange on k (as Flink's
    ``hash[k]``); each task closes its keys' sessions on its own clock; the exactly-once sink
    gets every row once, in its session (rows reach the TVF once the exchange's transaction
    commits: the 300 ms checkpoints delay them, well within the gap)."""
    from confluent_kafka import Producer

    from streamsql.environment import StreamEnvironment
    from streamsql.testing.chaos import read_committed

    src, dst = kafka_topic_factory("proctsession36-src", 2), kafka_topic_factory("proctsession36-dst")
    env = StreamEnvironment({"parallelism.default": "2", "pipeline.name": f"proctsession36-{dst[-10:]}",
                             "execution.checkpointing.interval": "300 ms", "table.local-time-zone": "UTC",
                             "pipeline.auto-watermark-interval": "50 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "st")})
    env.execute_sql(f"CREATE TABLE ev ({FLINK['columns']}) WITH ('connector' = 'kafka', 'topic' = '{src}', "
                    f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                    "'scan.startup.mode' = 'earliest-offset')")
    env.execute_sql(f"CREATE TABLE d (k STRING, v INT, ws TIMESTAMP(3), we TIMESTAMP(3)) WITH ('connector' = "
                    f"'kafka', 'topic' = '{dst}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                    "'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')")
    insert = ("INSERT INTO d SELECT k, v, window_start, window_end FROM TABLE(SESSION(TABLE ev "
              "PARTITION BY k, DESCRIPTOR(proc), INTERVAL '2' SECOND))")
    stages = env.execute_sql(f"EXPLAIN {insert}").message.split("== Stages ==\n")[1].splitlines()
    assert any("distribution=[hash[k]]" in s for s in stages)
    assert any(s.startswith("Stage 1: parallelism=2") and "window-tvf" in s for s in stages), stages
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 0})
    producer.produce(src, json.dumps({"k": "w", "v": 0}).encode())  # warm-up: out once the job runs
    producer.flush(10)
    job = env.execute_sql(insert).job

    def read_until(key: str) -> list[dict]:
        deadline, out = time.monotonic() + 60, []
        while time.monotonic() < deadline and not any(r["k"] == key for r in out):
            time.sleep(0.5)
            out = [json.loads(v) for _, v in read_committed(kafka_bootstrap, dst)]
        return out

    sent: list[int] = []
    try:
        read_until("w")
        start = time.time()
        for offset, rows in PARALLEL_BURSTS:
            time.sleep(max(0.0, start + offset - time.time()))
            sent.append(round(time.time() * 1000))
            for i, (k, v) in enumerate(rows):  # both partitions, so both source tasks read
                producer.produce(src, json.dumps({"k": k, "v": v}).encode(), partition=(v + i) % 2)
            producer.flush(10)
        out = read_until("z")
    finally:
        job.cancel()
        env.close()
    got = sorted((r["k"], r["v"], _burst(_instant(r["ws"].replace("T", " ")), sent),
                  _burst(_instant(r["we"].replace("T", " ")) - GAP, sent)) for r in out if r["k"] not in "wz")
    assert got == [("a", 1, 0, 1), ("a", 5, 0, 1), ("a", 6, 2, 2), ("b", 2, 0, 0), ("b", 7, 2, 2),
                   ("c", 3, 0, 0), ("d", 4, 0, 0)]


# -- kill -9 and restart: an open session is neither lost nor emitted twice -----------------------

_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
bs, src, dst, d, name = sys.argv[1:6]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "300 ms",
                         "execution.batch-size": "20", "pipeline.auto-watermark-interval": "50 ms",
                         "table.local-time-zone": "UTC"})
env.execute_sql(f"CREATE TABLE s (id BIGINT, k INT, pt AS PROCTIME()) WITH ("
                f"'connector'='kafka', 'topic'='{src}', 'properties.bootstrap.servers'='{bs}', "
                f"'format'='json', 'scan.startup.mode'='earliest-offset')")
env.execute_sql(f"CREATE TABLE d (id BIGINT, k INT, ws TIMESTAMP(3), we TIMESTAMP(3)) WITH ("
                f"'connector'='kafka', 'topic'='{dst}', 'properties.bootstrap.servers'='{bs}', "
                f"'format'='json', 'sink.delivery-guarantee'='exactly-once')")
env.execute_sql("INSERT INTO d SELECT id, k, window_start, window_end FROM TABLE(SESSION("
                "TABLE s PARTITION BY k, DESCRIPTOR(pt), INTERVAL '2' SECOND))")
env.wait_all()
"""


def test_kill_and_restart_emits_every_row_once_in_a_session(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Killed (-9) before checkpoint 3 commits, the job restarts from checkpoint 2: the sessions open
    in it (2 s gap; the kill about 1 s in) fire after the restore with the rows they had, the rows
    read after it are replayed into sessions of the restart's time (new ones, or a restored session
    they extend when the restart comes within its gap, as sessions merge), and every row is committed
    exactly once (the job is unbounded: it runs until all came)."""
    import os
    import subprocess
    import sys
    import uuid

    from confluent_kafka import Producer

    from streamsql.testing.chaos import read_committed

    src, dst = kafka_topic_factory("proctsession36-src"), kafka_topic_factory("proctsession36-dst")
    events = [(i, i % 3) for i in range(2000)]
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i, k in events:
        p.produce(src, json.dumps({"id": i, "k": k}).encode())
    assert p.flush(30) == 0
    root = Path(__file__).resolve().parents[2]
    args = [sys.executable, "-c", _CHILD, kafka_bootstrap, src, dst, str(tmp_path),
            f"proctsession36-{uuid.uuid4().hex[:8]}"]
    env = {**os.environ, "PYTHONPATH": str(root), "STREAMSQL_FAULT": "after_snapshot_before_commit:3"}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    env.pop("STREAMSQL_FAULT")
    restart = round(time.time() * 1000)
    child = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    try:
        deadline = time.monotonic() + 120
        rows: list[dict] = []
        while time.monotonic() < deadline and child.poll() is None and len(rows) < len(events):
            time.sleep(1)
            rows = [json.loads(v) for _, v in read_committed(kafka_bootstrap, dst)]
        assert child.poll() is None, child.stderr.read()[-2000:]
        time.sleep(3)  # nothing more may come: every row is out already
        rows = [json.loads(v) for _, v in read_committed(kafka_bootstrap, dst)]
    finally:
        child.kill()
        child.wait(30)
    assert sorted(r["id"] for r in rows) == [i for i, _ in events]  # each row once
    assert all(r["k"] == i % 3 for r in rows for i in [r["id"]])
    starts = {(r["k"], _instant(r["ws"].replace("T", " ")), _instant(r["we"].replace("T", " ")))
              for r in rows}
    assert all(we - ws >= GAP for _, ws, we in starts)
    assert any(ws < restart for _, ws, _ in starts), "a session restored from checkpoint 2 fired at restart"
    # a replayed row arrives after the restart, so its session ends at least a gap after it: a new
    # session, or a restored open one it extended (the restart came within the gap of its last row)
    assert any(we >= restart + GAP for _, _, we in starts), "no session of the restart's time"
