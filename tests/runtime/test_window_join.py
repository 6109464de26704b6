"""Window joins (two window TVFs joined on window_start, window_end and keys), checked against DuckDB.

Rows are out of order by less than the watermark delay, so none is late and the result must
equal DuckDB's join of the same rows bucketed into the same windows. Late rows (dropped and
counted, as Flink's WindowJoinOperator) and state cleanup are checked at the operator level.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from streamsql.core.elements import MAX_WATERMARK, Batch, RowKind, Watermark
from streamsql.runtime.operators.window_join import WindowJoinOperator
from tests.runtime.harness import open_operator
from tests.runtime.oracle import assert_same, fold
from tests.runtime.test_joins import BASE, _duck_timed, _events, _timed_env

TVF = "(SELECT * FROM TABLE(TUMBLE(TABLE {t}, DESCRIPTOR(ts), INTERVAL '2' SECOND))) {a}"
ON = "ON A.window_start = B.window_start AND A.window_end = B.window_end AND A.k = B.k"
BUCKET = "(SELECT *, time_bucket(INTERVAL 2 SECOND, ts) AS ws FROM {t} WHERE ts IS NOT NULL) {a}"


@pytest.fixture(scope="module")
def timed(tmp_path_factory):
    d = tmp_path_factory.mktemp("window_join")
    return _events(d / "a.json", 31, 200), _events(d / "b.json", 32, 150)


@pytest.mark.parametrize(("backend", "batch_size"), [("rocksdb", 4), ("hashmap", None)],
                         ids=["rocksdb-batch4", "hashmap-batch-default"])
@pytest.mark.parametrize("kind", ["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
def test_window_join_equals_duckdb(tmp_path, timed, backend, batch_size, kind):
    env = _timed_env(tmp_path, timed, backend, batch_size)
    sql = (f"SELECT A.id, B.id, A.window_start, B.window_end FROM {TVF.format(t='a', a='A')} {kind} "
           f"{TVF.format(t='b', a='B')} {ON} AND A.id % 3 <> B.id % 3")
    plan = env.execute_sql("EXPLAIN " + sql).message
    assert "WindowJoin(" in plan, plan
    res = env.execute_sql(sql)
    changelog = list(res.collect(timeout=30))
    assert res.job.done and res.job.metrics.get("late_records", 0) == 0
    assert all(k == RowKind.INSERT for k, _ in changelog), "a window join is insert-only"
    duck = (f"SELECT A.id, B.id, A.ws, B.ws + INTERVAL 2 SECOND FROM {BUCKET.format(t='a', a='A')} {kind} "
            f"{BUCKET.format(t='b', a='B')} ON A.ws = B.ws AND A.k = B.k AND A.id % 3 <> B.id % 3")
    assert_same(fold(changelog), _duck_timed(timed, duck), sql)


def test_windows_of_other_sizes_stay_a_regular_join(tmp_path, timed):
    env = _timed_env(tmp_path, timed)
    other = TVF.format(t="b", a="B").replace("'2' SECOND", "'4' SECOND")
    plan = env.execute_sql(f"EXPLAIN SELECT A.id FROM {TVF.format(t='a', a='A')} JOIN {other} {ON}").message
    assert "WindowJoin(" not in plan and "Join(joinType=[InnerJoin]" in plan, plan


SIDE = pa.schema([("k", pa.int32()), ("we", pa.timestamp("ms")), ("v", pa.string())])
OUT = pa.schema(list(SIDE) + [pa.field(f"{f.name}0", f.type) for f in SIDE])


def _batch(rows) -> Batch:
    k, we, v = zip(*rows)
    ends = pa.array(we, pa.int64()).cast(pa.timestamp("ms"))
    return Batch(pa.Table.from_arrays([pa.array(k, pa.int32()), ends, pa.array(v, pa.string())], schema=SIDE))


def _rows(elements):
    return sorted((r["v"], r["v0"]) for el in elements if isinstance(el, Batch) for r in el.table.to_pylist())


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
def test_late_rows_are_dropped_and_state_cleaned(tmp_path, backend_name):
    op = WindowJoinOperator("FULL", [0, 1], [0, 1], 1, 1, SIDE, SIDE, OUT)
    metrics: dict = {}
    op, backend = open_operator(op, backend_name, tmp_path / "wj", "wj-1", metrics=metrics)
    end1, end2 = BASE + 1000, BASE + 2000
    op.process_batch(_batch([(1, end1, "a1"), (2, end1, "a2"), (None, end1, "an")]), 0)
    op.process_batch(_batch([(1, end1, "b1"), (3, end2, "b3")]), 1)
    assert _rows(op.process_watermark(Watermark(end1 - 2))) == []
    out = op.process_watermark(Watermark(end1 - 1))  # the first window closes
    assert _rows(out) == sorted([("a1", "b1"), ("a2", None), ("an", None)])
    assert isinstance(out[-1], Watermark) and out[-1].timestamp == end1 - 1
    op.process_batch(_batch([(1, end1, "late")]), 0)
    assert metrics["late_records"] == 1
    assert _rows(op.process_watermark(Watermark(MAX_WATERMARK))) == [(None, "b3")]
    assert not list(backend.keyed_state("wj-1").items())
    backend.close()

