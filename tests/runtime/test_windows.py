"""Window TVFs and window aggregation, checked against DuckDB over the same rows.

The streaming side reads a JSON-lines file through a ``filesystem`` table with
``WATERMARK FOR ts AS ts - INTERVAL '5' SECOND``; rows arrive out of order but never by more
than the watermark delay, so no row is late and DuckDB, computing the windows with floor
arithmetic on ``epoch_ms(ts)``, must give exactly the same multiset. Small
``'execution.batch-size'`` values make windows and sessions span many batches. Late rows are
checked on hand-made inputs; snapshot → restore is checked at the operator level against an
uninterrupted run.
"""

from __future__ import annotations

import datetime as dt
import json
import random
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, Watermark
from streamsql.core.errors import SqlError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.plan.specs import WindowSpec
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from streamsql.runtime.operators.slicing_window import SLICE_PARTIALS, SlicingWindowAggOperator
from streamsql.runtime.operators.window_agg import assign_windows
from tests.runtime.harness import open_operator, replay_across_restore
from tests.runtime.oracle import assert_same, duck_con, duck_rows, fold, make_env

BACKENDS = ["hashmap", "rocksdb"]
BASE = 1714521600000  # 2024-05-01 00:00:00 UTC, ms
COLS = [("id", "INT", "INTEGER"), ("k", "STRING", "VARCHAR"), ("v", "INT", "INTEGER"),
        ("ts", "TIMESTAMP(3)", "TIMESTAMP")]
AGGS = ("COUNT(*) AS n, COUNT(v) AS nv, SUM(v) AS s, MIN(v) AS lo, MAX(v) AS hi, AVG(v) AS av, "
        "COUNT(DISTINCT v) AS d")
# AVG of an INT is an INT in Flink, truncated toward zero; DuckDB's is a DOUBLE.
DUCK_AGGS = AGGS.replace("AVG(v)", "trunc(AVG(v))")


def _fmt(ms: int | None) -> str | None:
    if ms is None:
        return None
    return (dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def write_events(path: Path, events: list[tuple]) -> Path:
    """Rows (id, k, v, ts_ms) as JSON lines."""
    with path.open("w") as f:
        for i, k, v, ts in events:
            f.write(json.dumps({"id": i, "k": k, "v": v, "ts": _fmt(ts)}) + "\n")
    return path


def gen_events(seed: int, n: int, max_disorder: int = 4000) -> list[tuple]:
    """Rows with keys (some NULL), values (some NULL), and rowtimes out of order by at most
    ``max_disorder`` ms (less than the 5 s watermark delay: nothing is late). No NULL rowtime: a
    filesystem table fails on one, as Flink (``test_null_rowtime.py``)."""
    rnd = random.Random(seed)
    t = BASE + rnd.randint(0, 9999)
    out = []
    for i in range(n):
        t += rnd.choice([0, 200, 700, 1500, 2500, 9000]) if rnd.random() > 0.02 else 40_000
        ts = t - rnd.randint(0, max_disorder)
        k = rnd.choice(["a", "b", "c", None]) if rnd.random() > 0.05 else None
        v = rnd.randint(-20, 100) if rnd.random() > 0.1 else None
        rnd.random()  # was a 1% chance of a NULL rowtime: kept, so the rows stay the same
        out.append((i, k, v, ts))
    return out


@pytest.fixture(scope="module")
def events(tmp_path_factory) -> Path:
    return write_events(tmp_path_factory.mktemp("windows") / "ev.json", gen_events(20240501, 400))


@pytest.fixture(scope="module")
def events_for_single_rows(tmp_path_factory) -> Path:
    """The first 120 of :func:`events`' rows, for runs of one row per batch (each batch costs the
    job a round of its operators: 400 such took 8-11 s a run). They still hold what the checks
    need: NULL keys, values and rowtimes, rows out of order, a 40 s gap."""
    rows = gen_events(20240501, 120)
    ts = [t for *_, t in rows if t is not None]
    assert all(any(r[i] is None for r in rows) for i in (1, 2))
    assert any(b < a for a, b in zip(ts, ts[1:])) and any(b - a > 30_000 for a, b in zip(ts, ts[1:]))
    return write_events(tmp_path_factory.mktemp("windows") / "ev120.json", rows)


def ddl(path: Path, delay: str = "5") -> str:
    cols = ", ".join(f"{c} {t}" for c, t, _ in COLS)
    return (f"CREATE TABLE ev ({cols}, WATERMARK FOR ts AS ts - INTERVAL '{delay}' SECOND) WITH ("
            f"'connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")


def run(tmp_path, path: Path, sql: str, backend="hashmap", batch_size=None, delay="5"):
    env = make_env(tmp_path, backend, batch_size)
    env.execute_sql(ddl(path, delay))
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=30))
    assert res.job.done
    assert all(kind.short == "+I" for kind, _ in changelog), "a window aggregate is insert-only"
    return fold(changelog), res.job.metrics


def duck(path: Path, sql: str) -> Counter:
    con = duck_con({"raw": path}, COLS)
    con.execute("CREATE VIEW ev AS SELECT *, epoch_ms(ts) AS ms FROM raw WHERE ts IS NOT NULL")
    return duck_rows(con, sql)


def check(tmp_path, path, sql, duck_sql, backend="hashmap", batch_size=None):
    actual, metrics = run(tmp_path, path, sql, backend, batch_size)
    assert_same(actual, duck(path, duck_sql), sql)
    assert metrics.get("late_records", 0) == 0
    return actual


# -- assignment -----------------------------------------------------------------------------------

def test_assign_windows_vectorized():
    ts = np.array([0, 4999, 5000, 12_345, -1], dtype=np.int64)
    rows, s, e = assign_windows(ts, WindowSpec("TUMBLE", size=10_000))
    assert list(s) == [0, 0, 0, 10_000, -10_000] and list(e - s) == [10_000] * 5
    assert list(rows) == list(range(5))
    rows, s, e = assign_windows(ts, WindowSpec("HOP", size=10_000, slide=5000))
    assert list(rows) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4]
    assert list(s) == [-5000, 0, -5000, 0, 0, 5000, 5000, 10_000, -10_000, -5000]
    rows, s, e = assign_windows(np.array([0, 3999, 9999]), WindowSpec("CUMULATE", size=10_000, slide=2000))
    assert list(zip(rows, s, e)) == [(0, 0, 2000), (0, 0, 4000), (0, 0, 6000), (0, 0, 8000), (0, 0, 10_000),
                                     (1, 0, 4000), (1, 0, 6000), (1, 0, 8000), (1, 0, 10_000), (2, 0, 10_000)]
    _, s, _ = assign_windows(np.array([7]), WindowSpec("TUMBLE", size=10, offset=3))
    assert list(s) == [3]


# -- oracle comparisons ---------------------------------------------------------------------------

TUMBLE_DUCK = (f"SELECT k, epoch_ms(ms // 10000 * 10000), epoch_ms(ms // 10000 * 10000 + 10000), {DUCK_AGGS} "
               f"FROM ev GROUP BY ALL")


def backend_batches(sizes: tuple) -> list:
    """(backend, batch size) for each of both, ids as ``size-backend``; one row per batch on RocksDB
    under -m slow (~10 s a run): one row per batch is the operator's own path (windows spanning many
    batches), run on the heap backend, and RocksDB's state is read and written batch by batch at
    the other sizes."""
    return [pytest.param(b, n, id=f"{n}-{b}", marks=pytest.mark.slow if (b, n) == ("rocksdb", 1) else ())
            for n in sizes for b in BACKENDS]


@pytest.mark.parametrize(("backend", "batch_size"), backend_batches((1, 7, None)))
def test_tumble_per_key(tmp_path, events, events_for_single_rows, backend, batch_size):
    sql = (f"SELECT k, window_start, window_end, {AGGS} FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
           f"INTERVAL '10' SECONDS)) GROUP BY k, window_start, window_end")
    rows = events_for_single_rows if batch_size == 1 else events
    check(tmp_path, rows, sql, TUMBLE_DUCK, backend, batch_size)


def test_tumble_window_time_having_where_alias(tmp_path, events):
    sql = ("SELECT w.window_start, w.window_time, k, SUM(v) * 2 AS s2 FROM TABLE(TUMBLE(TABLE ev, "
           "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) AS w WHERE v > 0 GROUP BY w.window_start, w.window_end, k "
           "HAVING COUNT(*) > 1")
    duck_sql = ("SELECT epoch_ms(ms // 60000 * 60000), epoch_ms(ms // 60000 * 60000 + 59999), k, SUM(v) * 2 "
                "FROM ev WHERE v > 0 GROUP BY ALL HAVING COUNT(*) > 1")
    check(tmp_path, events, sql, duck_sql, batch_size=5)


def test_tumble_with_offset(tmp_path, events):
    sql = ("SELECT window_start, window_end, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
           "INTERVAL '10' SECOND, INTERVAL '3' SECOND)) GROUP BY window_start, window_end")
    duck_sql = ("SELECT epoch_ms((ms - 3000) // 10000 * 10000 + 3000), "
                "epoch_ms((ms - 3000) // 10000 * 10000 + 13000), COUNT(*) FROM ev GROUP BY ALL")
    check(tmp_path, events, sql, duck_sql, batch_size=9)


@pytest.mark.parametrize("backend", BACKENDS)
def test_hop(tmp_path, events, backend):
    sql = (f"SELECT k, window_start, window_end, {AGGS} FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
           f"INTERVAL '5' SECOND, INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k")
    duck_sql = (f"SELECT k, epoch_ms(ms // 5000 * 5000 - i * 5000), "
                f"epoch_ms(ms // 5000 * 5000 - i * 5000 + 10000), {DUCK_AGGS} "
                f"FROM ev, range(0, 2) r(i) GROUP BY ALL")
    check(tmp_path, events, sql, duck_sql, backend, batch_size=6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_cumulate(tmp_path, events, backend):
    sql = (f"SELECT k, window_start, window_end, {AGGS} FROM TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), "
           f"INTERVAL '2' SECOND, INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end")
    duck_sql = (f"SELECT k, epoch_ms(ms // 10000 * 10000), epoch_ms(ms // 10000 * 10000 + j * 2000), "
                f"{DUCK_AGGS} "
                f"FROM ev, range(1, 6) r(j) WHERE ms // 10000 * 10000 + j * 2000 > ms GROUP BY ALL")
    check(tmp_path, events, sql, duck_sql, backend, batch_size=4)


SESSION_DUCK = f"""
WITH b AS (SELECT *, CASE WHEN ms - lag(ms) OVER (PARTITION BY k ORDER BY ms) <= 3000 THEN 0 ELSE 1 END AS brk
           FROM ev),
     s AS (SELECT *, sum(brk) OVER (PARTITION BY k ORDER BY ms ROWS UNBOUNDED PRECEDING) AS sid FROM b)
SELECT k, epoch_ms(min(ms)), epoch_ms(max(ms) + 3000), {DUCK_AGGS} FROM s GROUP BY k, sid
"""


@pytest.mark.parametrize(("backend", "batch_size"), backend_batches((1, 5, None)))
def test_session(tmp_path, events, events_for_single_rows, backend, batch_size):
    sql = (f"SELECT k, window_start, window_end, {AGGS} FROM TABLE(SESSION(TABLE ev PARTITION BY k, "
           f"DESCRIPTOR(ts), INTERVAL '3' SECOND)) GROUP BY k, window_start, window_end")
    rows = events_for_single_rows if batch_size == 1 else events
    check(tmp_path, rows, sql, SESSION_DUCK, backend, batch_size)


def test_session_without_partition_global(tmp_path, events):
    sql = ("SELECT window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), "
           "INTERVAL '3' SECOND)) GROUP BY window_start, window_end")
    duck_sql = SESSION_DUCK.replace("PARTITION BY k ", "").replace(
        f"SELECT k, epoch_ms(min(ms)), epoch_ms(max(ms) + 3000), {DUCK_AGGS} FROM s GROUP BY k, sid",
        "SELECT epoch_ms(min(ms)), epoch_ms(max(ms) + 3000), COUNT(*) FROM s GROUP BY sid")
    check(tmp_path, events, sql, duck_sql, batch_size=3)


def test_tumble_without_aggregation(tmp_path, events):
    sql = "SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
    duck_sql = ("SELECT id, k, v, ts, epoch_ms(ms // 10000 * 10000), epoch_ms(ms // 10000 * 10000 + 10000), "
                "epoch_ms(ms // 10000 * 10000 + 9999) FROM ev")
    check(tmp_path, events, sql, duck_sql, batch_size=7)


def test_hop_without_aggregation(tmp_path, events):
    sql = ("SELECT id, window_start, window_end FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
           "INTERVAL '5' SECOND, INTERVAL '10' SECOND))")
    duck_sql = ("SELECT id, epoch_ms(ms // 5000 * 5000 - i * 5000), "
                "epoch_ms(ms // 5000 * 5000 - i * 5000 + 10000) FROM ev, range(0, 2) r(i)")
    check(tmp_path, events, sql, duck_sql, batch_size=7)


def test_window_tvf_over_view_and_cascade(tmp_path, events):
    """A view passing the rowtime through keeps it a time attribute; the window_time of a window
    aggregate is one too (cascading windows, as Flink)."""
    env = make_env(tmp_path, "hashmap", 8)
    env.execute_sql(ddl(events))
    env.execute_sql("CREATE VIEW v1 AS SELECT k, v, ts AS rt FROM ev WHERE v IS NOT NULL")
    env.execute_sql("CREATE VIEW per5 AS SELECT k, window_time AS wt, SUM(v) AS s FROM TABLE(TUMBLE("
                    "TABLE v1, DESCRIPTOR(rt), INTERVAL '5' SECOND)) GROUP BY k, window_start, window_end")
    sql = ("SELECT k, window_start, SUM(s) FROM TABLE(TUMBLE(TABLE per5, DESCRIPTOR(wt), "
           "INTERVAL '20' SECOND)) GROUP BY k, window_start, window_end")
    actual = fold(env.execute_sql(sql).collect(timeout=30))
    expected = duck(events, "SELECT k, epoch_ms(ms // 20000 * 20000), SUM(v) FROM ev WHERE v IS NOT NULL "
                            "GROUP BY ALL")
    assert_same(actual, expected, sql)


# -- late rows ------------------------------------------------------------------------------------

S = 1000


def test_late_rows_dropped_and_counted(tmp_path):
    # watermark = max ts - 2 s; batch size 1, so each row is followed by its watermark.
    ev = [(1, "a", 1, BASE + 0), (2, "a", 1, BASE + 12 * S),   # wm 10 s: fires [0, 10)
          (3, "a", 1, BASE + 3 * S),                             # late: [0, 10) fired → dropped
          (4, "a", 1, BASE + 11 * S), (5, "b", 1, BASE + 9500),  # 9.5 s late (other key, same window)
          (6, "a", 1, BASE + 25 * S)]
    path = write_events(tmp_path / "late.json", ev)
    sql = ("SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
           "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end")
    for backend in BACKENDS:
        actual, metrics = run(tmp_path / backend, path, sql, backend, batch_size=1, delay="2")
        w = lambda s: dt.datetime(2024, 5, 1) + dt.timedelta(seconds=s)  # noqa: E731
        assert actual == Counter({("a", w(0), 1): 1, ("a", w(10), 2): 1, ("a", w(20), 1): 1})
        assert metrics["late_records"] == 2


def test_hop_late_row_counts_in_open_windows_only(tmp_path):
    # wm 10 s fires [0, 10) (and [-5, 5)); a row at 8 s then still belongs to [5, 15).
    ev = [(1, "a", 1, BASE + 1 * S), (2, "a", 1, BASE + 12 * S), (3, "a", 1, BASE + 8 * S),
          (4, "a", 1, BASE + 2 * S)]  # 2 s: its windows [-5,5) and [0,10) fired → dropped
    path = write_events(tmp_path / "late.json", ev)
    sql = ("SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, "
           "INTERVAL '10' SECOND)) GROUP BY window_start, window_end")
    actual, metrics = run(tmp_path, path, sql, batch_size=1, delay="2")
    w = lambda s: dt.datetime(2024, 5, 1) + dt.timedelta(seconds=s)  # noqa: E731
    assert actual == Counter({(w(-5), 1): 1, (w(0), 1): 1, (w(5), 2): 1, (w(10), 1): 1})
    assert metrics["late_records"] == 1


def test_session_late_row_bridges_open_sessions(tmp_path):
    """The shared case session_merge, one row per batch: the 00:20 row arrives after 00:45 and
    merges [00:00, 00:30) and [00:45, 01:15); a row whose session already fired is dropped."""
    ev = [(1, "a", 1, BASE), (2, "a", 1, BASE + 45 * S), (3, "a", 1, BASE + 20 * S),
          (4, "a", 1, BASE + 500 * S),          # wm 440 s: fires [0, 75 s)
          (5, "a", 1, BASE + 10 * S),           # late: would be [10, 40) → dropped
          (6, "a", 1, BASE + 470 * S)]          # late alone ([470, 500)) but merges with [500, 530)
    path = write_events(tmp_path / "s.json", ev)
    sql = ("SELECT k, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE ev PARTITION BY k, "
           "DESCRIPTOR(ts), INTERVAL '30' SECOND)) GROUP BY k, window_start, window_end")
    for bs in (1, 2, None):
        actual, metrics = run(tmp_path / str(bs), path, sql, batch_size=bs, delay="60")
        w = lambda s: dt.datetime(2024, 5, 1) + dt.timedelta(seconds=s)  # noqa: E731
        # In one batch too: the watermark moves after each row as Flink's WatermarkAssignerOperator
        # emits it (d61c792), so 00:10 is late whatever the batch size.
        assert actual == Counter({("a", w(0), w(75), 3): 1, ("a", w(470), w(530), 2): 1}), bs
        assert metrics.get("late_records", 0) == 1


# -- planning errors ------------------------------------------------------------------------------

def test_descriptor_must_be_time_attribute(tmp_path, events):
    env = make_env(tmp_path)
    env.execute_sql(ddl(events))
    env.execute_sql(f"CREATE TABLE plain (k STRING, ts TIMESTAMP(3)) WITH ('connector' = 'filesystem', "
                    f"'path' = '{events}', 'format' = 'json')")
    sql = "SELECT * FROM TABLE(TUMBLE(TABLE plain, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
    with pytest.raises(SqlError) as e:
        env.execute_sql(sql)
    assert "time column 'ts'" in e.value.message and "WATERMARK" in e.value.message
    assert (e.value.line, e.value.col) == (1, sql.index("DESCRIPTOR(ts)") + len("DESCRIPTOR(") + 1)
    with pytest.raises(SqlError, match="time column 'k'.*time attributes of 'ev': ts"):
        env.execute_sql("SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(k), INTERVAL '10' SECOND))")


@pytest.mark.parametrize(("sql", "message"), [
    ("SELECT * FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '3' SECOND, INTERVAL '10' SECOND))",
     "integral multiple of slide"),
    ("SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MONTH))", "Unsupported size"),
    ("SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), 10))", "must be an INTERVAL"),
    # (SESSION TVF rows run, as Flink 2.3's: compat cases session_tvf_*)
    # (and a GroupAggregate over them: GROUP BY k, window_start; GROUP BY window_start, window_end without k)
    # (a WHERE on window columns runs, as Flink 2.3's: compat cases wintvf_where_window_*)
    # Flink 2.3's ValidationException, word for word (wide fuzz seed 200628)
    ("SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '-5' SECOND))",
     r"TUMBLE table function parameters must satisfy abs\(offset\) < size, but got size 5000 ms and "
     r"offset -5000 ms\. \(line 1, column 84\)"),
])
def test_planning_errors(tmp_path, events, sql, message):
    env = make_env(tmp_path)
    env.execute_sql(ddl(events))
    with pytest.raises(SqlError, match=message):
        env.execute_sql(sql)


def test_interval_spellings(tmp_path, events):
    env = make_env(tmp_path)
    env.execute_sql(ddl(events))
    for interval, text in [("INTERVAL '1' HOUR", "3600 s"), ("INTERVAL '90' SECONDS", "90 s"),
                           ("INTERVAL '2' MINUTES", "120 s"), ("INTERVAL '1:30' MINUTE TO SECOND", "90 s"),
                           ("INTERVAL '1' DAY", "86400 s"), ("INTERVAL '1.5' SECOND", "1500 ms")]:
        plan = env.execute_sql(f"EXPLAIN SELECT COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
                               f"{interval})) GROUP BY window_start, window_end").message
        assert f"WindowAggregate(groupBy=[], window=[TUMBLE(time_col=[ts], size=[{text}])]" in plan, plan
        assert "changelog=[insert-only]" in plan


def test_window_aggregate_into_append_only_sink(tmp_path, events):
    env = make_env(tmp_path)
    env.execute_sql(ddl(events))
    env.execute_sql(f"CREATE TABLE `out` (k STRING, ws TIMESTAMP(3), n BIGINT) WITH ("
                    f"'connector' = 'filesystem', 'path' = '{tmp_path / 'out.json'}', 'format' = 'json')")
    plan = env.execute_sql("EXPLAIN INSERT INTO `out` SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE("
                           "TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, "
                           "window_end").message
    assert "input=[insert-only]" in plan


# -- snapshot → restore (operator level) ----------------------------------------------------------

IN_SCHEMA = pa.schema([("__k0", pa.string()), ("__ts", pa.timestamp("ms")), ("__a1", pa.int32())])
OUT_SCHEMA = pa.schema([("__k0", pa.string()), ("__ws", pa.timestamp("ms")), ("__we", pa.timestamp("ms")),
                        ("__wt", pa.timestamp("ms")), ("__agg0", pa.int64()), ("__agg1", pa.int64()),
                        ("__agg2", pa.int64())])
OP_AGGS = [AggSpec("count_star", None, SqlType("BIGINT")), AggSpec("sum", 2, SqlType("BIGINT")),
           AggSpec("count_distinct", 2, SqlType("BIGINT"))]


def _batch(rows):
    k, ts, v = zip(*rows)
    times = pa.array(ts, pa.int64()).cast(pa.timestamp("ms"))
    arrays = [pa.array(k, pa.string()), times, pa.array(v, pa.int32())]
    return Batch(pa.Table.from_arrays(arrays, schema=IN_SCHEMA))


def _operator(kind, backend_name, workdir, metrics):
    if kind == "SESSION":
        op = SessionWindowAggOperator(WindowSpec("SESSION", gap=3000), 1, 1, OP_AGGS, IN_SCHEMA, OUT_SCHEMA)
    else:
        slide = {"HOP": 5000, "CUMULATE": 2000}.get(kind, 0)
        spec = WindowSpec(kind, size=10_000, slide=slide)
        op = SlicingWindowAggOperator(spec, 1, 1, OP_AGGS, IN_SCHEMA, OUT_SCHEMA)
    return open_operator(op, backend_name, workdir, "window-agg-1", metrics=metrics)


@pytest.mark.parametrize("kind", ["TUMBLE", "HOP", "SESSION"])
@pytest.mark.parametrize("split", [True, False], ids=["across-batches", "within-a-batch"])
def test_bigint_sum_wraps_around_as_java(tmp_path, kind, split):
    """A window's SUM past BIGINT keeps the low 64 bits, as Flink 2.3's (2 * (2^63 - 10) is -20)."""
    schema = pa.schema([("__k0", pa.string()), ("__ts", pa.timestamp("ms")), ("__a1", pa.int64())])
    out = pa.schema(list(OUT_SCHEMA)[:4] + [("__agg0", pa.int64())])
    aggs = [AggSpec("sum", 2, SqlType("BIGINT"))]
    if kind == "SESSION":
        op = SessionWindowAggOperator(WindowSpec("SESSION", gap=3000), 1, 1, aggs, schema, out)
    else:
        spec = WindowSpec(kind, size=10_000, slide=5000 if kind == "HOP" else 0)
        op = SlicingWindowAggOperator(spec, 1, 1, aggs, schema, out)
    op, backend = open_operator(op, "hashmap", tmp_path / "w", "w")

    def batch(values):
        times = pa.array([BASE + i for i in range(len(values))], pa.int64()).cast(pa.timestamp("ms"))
        cols = [pa.array(["a"] * len(values)), times, pa.array(values, pa.int64())]
        return Batch(pa.Table.from_arrays(cols, schema=schema))

    big = 2**63 - 10
    emitted = []
    for values in ([[big], [big]] if split else [[big, big]]):
        emitted += op.process_batch(batch(values), 0)
    emitted += op.process_watermark(Watermark(BASE + 60_000))
    backend.close()
    sums = [row[-1] for row in _rows(emitted)]
    assert sums and set(sums) == {-20}, sums


def _rows(elements):
    out = []
    for el in elements:
        if isinstance(el, Batch):
            out += [tuple(r.values()) for r in el.table.to_pylist()]
    return out


def _script(seed):
    rnd = random.Random(seed)
    t, steps = 0, []
    for _ in range(30):
        rows = []
        for _ in range(rnd.randint(1, 6)):
            t += rnd.randint(0, 1500)
            rows.append((rnd.choice("xyz"), BASE + t - rnd.randint(0, 2000), rnd.randint(0, 5)))
        steps.append(("batch", rows))
        steps.append(("wm", BASE + t - 2500))
    steps.append(("batch", [("x", BASE, 1)]))  # late for every window kind by now
    steps.append(("wm", MAX_WATERMARK))
    return steps


def _play(op, steps):
    out = []
    for what, arg in steps:
        out += op.process_batch(_batch(arg), 0) if what == "batch" else op.process_watermark(Watermark(arg))
    return out


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("kind", ["TUMBLE", "HOP", "CUMULATE", "SESSION"])
def test_snapshot_restore_keeps_pending_windows_and_timers(tmp_path, backend_name, kind):
    cut = 31  # after 15 batches and 15 watermarks, plus one more batch: windows are pending
    expected, actual, ref_metrics, pending = replay_across_restore(
        lambda d: _operator(kind, backend_name, d, {}), lambda op, s: _rows(_play(op, s)), _script(7), cut,
        tmp_path)
    assert pending > 0, "the cut must leave windows pending"
    assert Counter(actual) == Counter(expected)
    assert len(expected) > 5
    assert ref_metrics.get("late_records", 0) >= 1


@pytest.mark.parametrize("kind", ["TUMBLE", "HOP", "CUMULATE"])
def test_a_watermark_fires_many_sparse_windows_in_one_query(tmp_path, kind):
    """Sparse rows (one every ~1.3 s) over hours: the final watermark fires hundreds of windows with one
    combine query, each window's rows (COUNT, SUM, COUNT DISTINCT) as counted from the input."""
    rnd = random.Random(3)
    rows = [(rnd.choice("xy"), BASE + 1300 * i + rnd.randint(0, 999), rnd.randint(0, 3)) for i in range(3000)]
    op, backend = _operator(kind, "hashmap", tmp_path / "w", {})
    queries = []
    query = op._query
    op._query = lambda sql, table: queries.append(sql) or query(sql, table)
    assert op.process_batch(_batch(rows), 0) == []
    out = op.process_watermark(Watermark(MAX_WATERMARK))
    assert len(queries) == 2  # the partial aggregate, then every window's combination at once
    got = [(k, ws, we, n, sm, d) for k, ws, we, _, n, sm, d in _rows(out)]
    assert len(got) > 700  # TUMBLE: ~390 windows of two keys; HOP and CUMULATE more
    assert [we for *_, we, _, _, _ in got] == sorted(we for *_, we, _, _, _ in got), "in end order"
    expected = {}
    for k, ts, v in rows:
        for start, end in _windows(kind, ts - BASE):
            expected.setdefault((k, start, end), []).append(v)
    epoch = dt.datetime(1970, 1, 1)
    assert Counter(got) == Counter(
        (k, epoch + dt.timedelta(milliseconds=BASE + start), epoch + dt.timedelta(milliseconds=BASE + end),
         len(vs), sum(vs), len(set(vs))) for (k, start, end), vs in expected.items())
    backend.close()


def _windows(kind: str, t: int) -> list[tuple[int, int]]:
    """The windows ``[start, end)`` of ``_operator(kind)`` holding ``t`` (ms after BASE, itself aligned)."""
    if kind == "TUMBLE":
        return [(t - t % 10_000, t - t % 10_000 + 10_000)]
    if kind == "HOP":
        last = t - t % 5000
        return [(last - 5000, last + 5000), (last, last + 10_000)]
    start = t - t % 10_000
    return [(start, end) for end in range(start + 2000, start + 10_001, 2000) if end > t]


# -- kill -9 and restart (job level, Kafka) -------------------------------------------------------

_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
bs, src, dst, d, name, backend = sys.argv[1:7]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "50 ms",
                         "execution.batch-size": "20", "state.backend.type": backend})
env.execute_sql(f"CREATE TABLE s (id BIGINT, k INT, v INT, ts TIMESTAMP(3), "
                f"WATERMARK FOR ts AS ts - INTERVAL '2' SECOND) WITH ('connector'='kafka', 'topic'='{src}', "
                f"'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset')")
env.execute_sql(f"CREATE TABLE d (ws TIMESTAMP(3), k INT, n BIGINT, s BIGINT) WITH ('connector'='kafka', "
                f"'topic'='{dst}', 'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'sink.delivery-guarantee'='exactly-once')")
env.execute_sql("INSERT INTO d SELECT window_start, k, COUNT(*), SUM(v) FROM TABLE(TUMBLE(TABLE s, "
                "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end, k")
env.wait_all()
"""


@pytest.mark.parametrize(("fault", "backend"), [("after_snapshot_before_commit", "rocksdb"),
                                                 ("during_commit", "hashmap")])
def test_kill_and_restart_window_aggregate_is_exactly_once(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                            fault, backend):
    """A job killed (-9) at a checkpoint's commit resumes from the last committed checkpoint: its
    pending windows and their timers come back with the state, and every window is committed
    exactly once (compared with the windows computed over the input)."""
    import os
    import subprocess
    import sys
    import uuid

    from confluent_kafka import Producer

    from streamsql.testing.chaos import read_committed

    src, dst = kafka_topic_factory("win-src"), kafka_topic_factory("win-dst")
    rnd = random.Random(3)
    events = [(i, rnd.randrange(3), rnd.randrange(100), BASE + i * 100 - rnd.randint(0, 1500))
              for i in range(3000)]
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i, k, v, ts in events:
        p.produce(src, json.dumps({"id": i, "k": k, "v": v, "ts": _fmt(ts)}).encode())
    assert p.flush(30) == 0
    name = f"win-{uuid.uuid4().hex[:8]}"
    root = Path(__file__).resolve().parents[2]
    args = [sys.executable, "-c", _CHILD, kafka_bootstrap, src, dst, str(tmp_path), name, backend]
    env = {**os.environ, "PYTHONPATH": str(root), "STREAMSQL_FAULT": f"{fault}:4"}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    committed_before = len(read_committed(kafka_bootstrap, dst))
    env.pop("STREAMSQL_FAULT")
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    actual = Counter()
    for _, value in read_committed(kafka_bootstrap, dst):
        row = json.loads(value)
        ws = dt.datetime.fromisoformat(row["ws"].replace("T", " ").rstrip("Z"))
        actual[(ws, row["k"], row["n"], row["s"])] += 1
    expected = Counter()
    windows: dict = {}
    for _, k, v, ts in events:
        w = windows.setdefault((ts // 10_000 * 10_000, k), [0, 0])
        w[0] += 1
        w[1] += v
    for (ws, k), (n, s) in windows.items():
        expected[(dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ws), k, n, s)] += 1
    assert actual == expected
    assert 0 < committed_before < len(expected), "the kill must fall between windows firing"


@pytest.mark.parametrize("key_type", ["string", "int"])
def test_slice_state_is_split_by_key_group(tmp_path, key_type):
    """Each checkpointed slice entry holds only rows of its key group (as GROUP BY places keys)."""
    from streamsql.state.layout import encode_keys, key_group

    typ = pa.string() if key_type == "string" else pa.int64()
    schema = pa.schema([("__k0", typ), ("__ts", pa.timestamp("ms")), ("__a1", pa.int32())])
    out = pa.schema([("__k0", typ)] + list(OUT_SCHEMA)[1:])
    op = SlicingWindowAggOperator(WindowSpec("TUMBLE", size=10_000), 1, 1, OP_AGGS, schema, out)
    op, backend = open_operator(op, "rocksdb", tmp_path / "s", "w")
    state = backend.keyed_state("w")
    keys = [f"k{i}" for i in range(300)] if key_type == "string" else list(range(-150, 150))
    rowtimes = pa.array([BASE] * 300, pa.int64()).cast(pa.timestamp("ms"))
    columns = [pa.array(keys, typ), rowtimes, pa.array(range(300), pa.int32())]
    table = pa.Table.from_arrays(columns, schema=schema)
    op.process_batch(Batch(table), 0)
    op.snapshot_state(1)
    seen = []
    for k, v in state.items():
        if k[2:4] != b"\x00S":
            continue
        rows = pa.ipc.open_stream(pa.py_buffer(SLICE_PARTIALS.unwrap(v))).read_all().column(0)
        enc = encode_keys([rows])
        assert {key_group(e) for e in enc} == {int.from_bytes(k[:2], "big")}
        seen += rows.to_pylist()
    assert sorted(seen) == sorted(keys)
    backend.close()


def test_window_aggregates_over_every_type_match_duckdb(tmp_path):
    """DECIMAL sums and averages, DOUBLE, BIGINT, strings and COUNT(DISTINCT) in one TUMBLE window
    aggregate (the slice partials of each type combine exactly as DuckDB's GROUP BY)."""
    from tests.runtime.oracle import COLUMNS, gen_rows, write_jsonl

    rows = gen_rows(11, 600)
    for r in rows:
        r["ts"] = _fmt(BASE + r["id"] * 700)
    path = write_jsonl(tmp_path / "typed.json", rows)
    cols = COLUMNS + [("ts", "TIMESTAMP(3)", "TIMESTAMP")]
    env = make_env(tmp_path, "rocksdb", 37)
    env.execute_sql(f"CREATE TABLE t ({', '.join(f'{c} {t}' for c, t, _ in cols)}, "
                    f"WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', "
                    f"'path' = '{path}', 'format' = 'json')")
    aggs = ("COUNT(*), SUM(d), AVG(d), AVG(f), MIN(f), SUM(b), MAX(x), MIN(s), MAX(s), "
            "COUNT(DISTINCT s), COUNT(x)")
    res = env.execute_sql(f"SELECT g, window_start, {aggs} FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), "
                          f"INTERVAL '10' SECOND)) GROUP BY g, window_start, window_end")
    actual = fold(list(res.collect(timeout=30)))
    con = duck_con({"raw": path}, cols)
    expected = duck_rows(con, f"SELECT g, time_bucket(INTERVAL 10 SECOND, ts), {aggs} FROM raw GROUP BY ALL")
    assert sum(actual.values()) > 50  # many windows, several groups each
    assert_same(actual, expected, "typed window aggregate")


def test_null_rowtime_into_a_window_aggregate_fails_the_job_as_flink(tmp_path):
    """Flink 2.3 (PyFlink 2.3.0, 2026-12-05, filesystem json source, this query): the job fails with
    ``java.lang.RuntimeException: RowTime field should not be null, please convert it to a
    non-null long value.``, and so does the TVF read without aggregation
    (``scripts/flink_null_rowtime.py``; more operators in ``test_null_rowtime.py``)."""
    rows = [(1, "a", 1, BASE), (2, "b", 1, None), (3, "a", 1, BASE + 90_000)]
    path = write_events(tmp_path / "ev.json", rows)
    env = make_env(tmp_path)
    env.execute_sql(ddl(path))
    res = env.execute_sql("SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
                          "INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, k")
    with pytest.raises(Exception, match="RowTime field should not be null"):
        list(res.collect(timeout=30))
