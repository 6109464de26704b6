"""State TTL ('table.exec.state.ttl'), as Flink's idle state retention, on an injected clock.

Flink's rule (StateTtlConfig OnCreateAndWrite / NeverReturnExpired, processing time): an entry
last written at ``w`` is gone from ``w + ttl`` on. The operators are driven batch by batch with
a clock the test sets, on both backends, with and without the accumulator cache, and across a
snapshot and restore (the write times are part of the checkpoint).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError, StreamSQLError
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import ColumnarGroupAggOperator, create_group_agg
from tests.runtime.harness import open_operator

BACKENDS = ["hashmap", "rocksdb"]
TTL = {"table.exec.state.ttl": "1 s"}
INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE


class Clock:
    """A processing-time clock the test moves (ms)."""

    def __init__(self) -> None:
        self.now = 0

    def __call__(self) -> int:
        return self.now


def _batch(schema: pa.Schema, rows: list[tuple], kinds: list[int] | None = None) -> Batch:
    cols = list(zip(*rows))
    table = pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(cols, schema)], schema=schema)
    return Batch(table, None if kinds is None else np.array(kinds, np.int8))


def changelog(elements) -> list[tuple]:
    """``(kind, *row)`` of every output row, by key (the first column; DuckDB's group order varies)."""
    out = []
    for el in elements:
        if isinstance(el, Batch):
            out += [(RowKind(k), *r.values()) for k, r in zip(el.kind_array(), el.table.to_pylist())]
    return sorted(out, key=lambda r: repr(r[1]))  # stable: a key's -U stays before its +U


# -- GROUP BY ---------------------------------------------------------------------------------------

AGG_IN = pa.schema([("k", pa.string()), ("v", pa.int64()), ("s", pa.string())])


def _group_agg(columnar: bool):
    """``SELECT k, SUM(v) ... GROUP BY k``: columnar; with MAX(s) over a changelog: the object operator."""
    calls = [AggSpec("count_star", None, SqlType("BIGINT", nullable=False)),
             AggSpec("sum", 1, SqlType("BIGINT"))]
    fields = [("k", pa.string()), ("n", pa.int64()), ("total", pa.int64())]
    if not columnar:
        calls.append(AggSpec("max_retract", 2, SqlType("STRING")))
        fields.append(("top", pa.string()))
    op = create_group_agg(1, calls, AGG_IN, pa.schema(fields))
    assert isinstance(op, ColumnarGroupAggOperator if columnar else GroupAggOperator)
    return op


def _open(op, backend, workdir, clock, cache=None, config=TTL):
    cfg = dict(config)
    if cache is not None:
        cfg["state.cache.max-entries"] = str(cache)
    return open_operator(op, backend, workdir, "group-agg-1", cfg, clock=clock)


def _rows(columnar: bool, *rows):
    """Input rows ``(k, v)``; the object operator's third column is the value as text."""
    return [(k, v, str(v)) for k, v in rows]


def _out(columnar: bool, kind, k, n, total, top=None):
    return (kind, k, n, total) if columnar else (kind, k, n, total, top)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("columnar", [True, False], ids=["columnar", "objects"])
@pytest.mark.parametrize("cache", [0, None], ids=["no-cache", "cache"])
def test_group_by_key_idle_for_the_ttl_starts_again(tmp_path, backend, columnar, cache):
    clock = Clock()
    op, b = _open(_group_agg(columnar), backend, tmp_path, clock, cache)
    run = lambda *rows: changelog(op.process_batch(_batch(AGG_IN, _rows(columnar, *rows)), 0))  # noqa: E731
    assert run(("a", 1), ("b", 5)) == [_out(columnar, INS, "a", 1, 1, "1"),
                                       _out(columnar, INS, "b", 1, 5, "5")]
    clock.now = 600
    assert run(("a", 2)) == [_out(columnar, UB, "a", 1, 1, "1"), _out(columnar, UA, "a", 2, 3, "2")]
    clock.now = 1599  # 'a' was written at 600: alive until 1600
    unchanged = _batch(AGG_IN, _rows(columnar, ("a", 5), ("a", 5)), [INS, D])
    assert changelog(op.process_batch(unchanged, 0)) == [_out(columnar, UB, "a", 2, 3, "2"),
                                                          _out(columnar, UA, "a", 2, 3, "2")], \
        "an unchanged result is emitted again when state TTL is on (as Flink), and the key is written"
    clock.now = 1000 + 1599  # 'b' (written at 0) expired at 1000; 'a' (written at 1599) at 2599
    assert run(("b", 7), ("a", 4)) == [_out(columnar, INS, "a", 1, 4, "4"),
                                       _out(columnar, INS, "b", 1, 7, "7")]
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("columnar", [True, False], ids=["columnar", "objects"])
def test_group_by_retraction_of_an_expired_key_emits_nothing(tmp_path, backend, columnar):
    clock = Clock()
    op, b = _open(_group_agg(columnar), backend, tmp_path, clock)
    op.process_batch(_batch(AGG_IN, _rows(columnar, ("a", 1))), 0)
    clock.now = 5000
    assert changelog(op.process_batch(_batch(AGG_IN, _rows(columnar, ("a", 1)), [D]), 0)) == []
    assert changelog(op.process_batch(_batch(AGG_IN, _rows(columnar, ("a", 3))), 0)) == [
        _out(columnar, INS, "a", 1, 3, "3")]
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("columnar", [True, False], ids=["columnar", "objects"])
def test_group_by_write_times_are_checkpointed(tmp_path, backend, columnar):
    """A restored operator expires the keys the uninterrupted one would: write times are in the snapshot."""
    clock = Clock()
    op, b = _open(_group_agg(columnar), backend, tmp_path / "a", clock)
    op.process_batch(_batch(AGG_IN, _rows(columnar, ("a", 1), ("b", 2))), 0)
    clock.now = 700
    op.process_batch(_batch(AGG_IN, _rows(columnar, ("b", 3))), 0)  # cached; written back at the snapshot
    clock.now = 900
    op.snapshot_state(1)
    b.snapshot(str(tmp_path / "chk-1"))
    b.close()
    restored, b2 = _open(_group_agg(columnar), backend, tmp_path / "b", clock)
    b2.restore(str(tmp_path / "chk-1"))
    clock.now = 1000  # 'a' (written at 0) is gone, 'b' (written at 700, not 900) lives until 1700
    assert changelog(restored.process_batch(_batch(AGG_IN, _rows(columnar, ("a", 4), ("b", 4))), 0)) == [
        _out(columnar, INS, "a", 1, 4, "4"), _out(columnar, UB, "b", 2, 5, "3"),
        _out(columnar, UA, "b", 3, 9, "4")]
    clock.now = 1000 + 1000
    assert changelog(restored.process_batch(_batch(AGG_IN, _rows(columnar, ("b", 1))), 0)) == [
        _out(columnar, INS, "b", 1, 1, "1")]
    b2.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_expired_state_is_purged_at_a_checkpoint(tmp_path, backend):
    clock = Clock()
    op, b = _open(_group_agg(True), backend, tmp_path, clock)
    op.process_batch(_batch(AGG_IN, _rows(True, ("a", 1), ("b", 2))), 0)
    op.snapshot_state(1)
    assert len(list(b.keyed_state("group-agg-1").items())) == 2
    clock.now = 1500
    op.process_batch(_batch(AGG_IN, _rows(True, ("c", 1))), 0)
    op.snapshot_state(2)
    assert len(list(b.keyed_state("group-agg-1").items())) == 1, "'a' and 'b' expired and were deleted"
    b.close()


def test_without_ttl_state_never_expires(tmp_path):
    clock = Clock()
    op, b = _open(_group_agg(True), "hashmap", tmp_path, clock, config={})
    op.process_batch(_batch(AGG_IN, _rows(True, ("a", 1))), 0)
    clock.now = 10 ** 12
    assert changelog(op.process_batch(_batch(AGG_IN, _rows(True, ("a", 1))), 0)) == [
        (UB, "a", 1, 1), (UA, "a", 2, 2)]
    unchanged = _batch(AGG_IN, _rows(True, ("a", 5), ("a", 5)), [INS, D])
    assert changelog(op.process_batch(unchanged, 0)) == [], "without TTL an unchanged result emits nothing"
    b.close()


def test_a_bad_ttl_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="'table.exec.state.ttl' = '1 fortnight' is not a duration"):
        _open(_group_agg(True), "hashmap", tmp_path, Clock(), config={"table.exec.state.ttl": "1 fortnight"})


# -- regular join -----------------------------------------------------------------------------------

LEFT = pa.schema([("k", pa.int64()), ("l", pa.string())])
RIGHT = pa.schema([("k2", pa.int64()), ("r", pa.string())])


def _join(join_type: str, backend, workdir, clock):
    from streamsql.runtime.operators.join import StreamingJoinOperator

    out = pa.schema(list(LEFT) + list(RIGHT))
    op = StreamingJoinOperator(join_type, [0], [0], LEFT, RIGHT, out, insert_only=join_type == "INNER")
    return open_operator(op, backend, workdir, "join-1", dict(TTL), clock=clock)


def _side(op, side: int, *rows, kinds=None):
    schema = LEFT if side == 0 else RIGHT
    return [(RowKind(k), *r.values()) for el in op.process_batch(_batch(schema, list(rows), kinds), side)
            if isinstance(el, Batch) for k, r in zip(el.kind_array(), el.table.to_pylist())]


@pytest.mark.parametrize("backend", BACKENDS)
def test_join_rows_expire_one_by_one(tmp_path, backend):
    """Each row of a key has its own write time (Flink's JoinRecordStateView), not the key's."""
    clock = Clock()
    op, b = _join("INNER", backend, tmp_path, clock)
    assert _side(op, 0, (1, "l1")) == []
    clock.now = 600
    assert _side(op, 0, (1, "l2")) == []
    assert _side(op, 1, (1, "r1")) == [(INS, 1, "l1", 1, "r1"), (INS, 1, "l2", 1, "r1")]
    clock.now = 1100  # l1 (written at 0) is gone; l2 (600) lives until 1600; r1 (600) too
    assert _side(op, 1, (1, "r2")) == [(INS, 1, "l2", 1, "r2")]
    assert _side(op, 0, (1, "l3")) == [(INS, 1, "l3", 1, "r1"), (INS, 1, "l3", 1, "r2")]
    clock.now = 1600
    assert _side(op, 0, (1, "l4")) == [(INS, 1, "l4", 1, "r2")], "r1 expired at 1600, r2 lives until 2100"
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_outer_join_association_changes_are_writes(tmp_path, backend):
    clock = Clock()
    op, b = _join("LEFT", backend, tmp_path, clock)
    assert _side(op, 0, (1, "l")) == [(INS, 1, "l", None, None)]
    clock.now = 800
    assert _side(op, 1, (1, "r1")) == [(D, 1, "l", None, None), (INS, 1, "l", 1, "r1")]
    clock.now = 1500  # l's associations changed at 800: alive until 1800
    assert _side(op, 1, (1, "r2")) == [(INS, 1, "l", 1, "r2")]
    clock.now = 2500  # l (1500) and r1 (800), r2 (1500) are gone: a retraction of r2 finds nothing
    assert _side(op, 1, (1, "r2"), kinds=[D]) == []
    assert _side(op, 0, (1, "l")) == [(INS, 1, "l", None, None)]
    b.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_join_write_times_are_checkpointed(tmp_path, backend):
    clock = Clock()
    op, b = _join("INNER", backend, tmp_path / "a", clock)
    _side(op, 0, (1, "l1"))
    clock.now = 900
    _side(op, 1, (2, "r1"))
    op.snapshot_state(1)
    b.snapshot(str(tmp_path / "chk-1"))
    b.close()
    restored, b2 = _join("INNER", backend, tmp_path / "b", clock)
    b2.restore(str(tmp_path / "chk-1"))
    clock.now = 1000
    assert _side(restored, 1, (1, "r2")) == [], "the left row (written at 0) expired at 1000"
    assert _side(restored, 0, (2, "l2")) == [(INS, 2, "l2", 2, "r1")], "the right row lives until 1900"
    b2.close()


# -- ranking ----------------------------------------------------------------------------------------

RANKED = pa.schema([("k", pa.int32()), ("v", pa.int32()), ("rn", pa.int64())])


def _top2(backend, workdir, clock):
    from types import SimpleNamespace

    from streamsql.runtime.operators.rank import RankSpec, TopNOperator

    node = SimpleNamespace(partition=[0], order=[1], descending=[True], nulls_first=[False], rank_start=1,
                           rank_end=2, rn_index=2, output_rank=True, new_row_wins_ties=False, window_end=None,
                           limit=False)
    op = TopNOperator(RankSpec(node, RANKED), updating_input=False)
    return open_operator(op, backend, workdir, "rank-1", dict(TTL), clock=clock)


@pytest.mark.parametrize("backend", BACKENDS)
def test_top_n_partition_idle_for_the_ttl_ranks_again(tmp_path, backend):
    clock = Clock()
    op, b = _top2(backend, tmp_path, clock)
    run = lambda *rows: changelog(op.process_batch(_batch(RANKED, [(k, v, 0) for k, v in rows]), 0))  # noqa: E731
    assert run((1, 10), (1, 20)) == [(INS, 1, 20, 1), (INS, 1, 10, 2)]
    clock.now = 999
    assert run((1, 15)) == [(UB, 1, 10, 2), (UA, 1, 15, 2)]
    clock.now = 1999  # the partition was last written at 999
    assert run((1, 5)) == [(INS, 1, 5, 1)], "a fresh partition: the earlier rows are forgotten, not retracted"
    op.snapshot_state(1)
    b.close()


# -- operators whose TTL is not implemented ---------------------------------------------------------

def test_operators_without_ttl_refuse_it(tmp_path):
    """Flink expires a semi/anti join's state under TTL; keeping it instead would be a silent difference."""
    from streamsql.runtime.operators.semi_join import SemiAntiJoinOperator

    joined = pa.schema(list(LEFT) + list(RIGHT))
    refused = r"'table.exec.state.ttl' = '1 s' is not implemented for a semi or anti join"
    with pytest.raises(ConfigError, match=refused):
        open_operator(SemiAntiJoinOperator(True, False, [0], [0], LEFT, RIGHT, joined), "hashmap",
                      tmp_path / "a", "semi-1", dict(TTL))
    open_operator(SemiAntiJoinOperator(True, False, [0], [0], LEFT, RIGHT, joined), "hashmap", tmp_path / "b",
                  "semi-1", {"table.exec.state.ttl": "0 ms"})[1].close()


def test_a_job_with_several_distinct_aggregates_fails_as_it_starts(tmp_path):
    """One COUNT(DISTINCT) runs under TTL (tests/runtime/test_distinct_ttl.py); several are refused."""
    from tests.runtime.oracle import make_env

    path = tmp_path / "o.json"
    path.write_text('{"k": 1, "v": 2}\n')
    env = make_env(tmp_path)
    env.execute_sql("SET 'table.exec.state.ttl' = '1 h'")
    env.execute_sql(f"CREATE TABLE o (k INT, v INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                    "'format' = 'json')")
    assert list(env.execute_sql("SELECT k, COUNT(DISTINCT v) FILTER (WHERE v > 0) FROM o GROUP BY k")
                .collect(timeout=30))
    sql = "SELECT k, COUNT(DISTINCT v), COUNT(DISTINCT v) FILTER (WHERE v > 0) FROM o GROUP BY k"
    with pytest.raises(StreamSQLError, match="not implemented for a GROUP BY with several COUNT") as e:
        list(env.execute_sql(sql).collect(timeout=30))
    assert "Traceback" not in str(e.value)


def test_a_job_with_an_operator_without_ttl_fails_as_it_starts(tmp_path):
    from tests.runtime.oracle import make_env

    (tmp_path / "o.json").write_text('{"k": 1}\n')
    env = make_env(tmp_path)
    env.execute_sql("SET 'table.exec.state.ttl' = '1 h'")
    path = tmp_path / "o.json"
    env.execute_sql(f"CREATE TABLE o (k INT) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                    "'format' = 'json')")
    assert list(env.execute_sql("SELECT k, COUNT(*) FROM o GROUP BY k").collect(timeout=30))
    with pytest.raises(StreamSQLError, match="not implemented for a semi or anti join") as e:
        list(env.execute_sql("SELECT k FROM o WHERE k NOT IN (SELECT k + 1 FROM o)").collect(timeout=30))
    assert "Traceback" not in str(e.value)
