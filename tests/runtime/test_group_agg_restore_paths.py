"""GROUP BY state across checkpoints, failures and restores, against DuckDB over the same rows.

The ``hashmap`` backend keeps the columnar GROUP BY's accumulators in a column table that takes
restored entries out of the backend's dict at its first batch (be326c2: a barrier before that
batch lost every restored key from the snapshot). Each scenario drives the operator through the
job's own state path (:class:`~streamsql.runtime.job_state.JobState`: writes held back from an
operator's barrier to the backend snapshot, which completes the checkpoint; a restore converts a
snapshot of the other backend) with a script of steps, and crashes: the attempt's output after
its last completed checkpoint is discarded (an exactly-once sink's), a fresh operator restores
that checkpoint and replays the batches after its barrier. The committed changelog, folded,
must be DuckDB's GROUP BY over the rows still live at the end, and every -U/-D must retract a row
that is there (:func:`~tests.runtime.oracle.fold`).

Script steps: ``b`` the next batch, ``|`` a barrier (the operator's ``snapshot_state``), ``s``
the backend snapshot completing the checkpoint of the last barrier, ``f`` a checkpoint that
fails after the barrier (held-back writes released, no snapshot), ``x`` a crash and restore.
"""

from __future__ import annotations

import datetime as dt
import random
from collections import Counter

import duckdb
import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type
from streamsql.runtime.job_state import JobState
from streamsql.runtime.operators.base import OperatorContext
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import ColumnarGroupAggOperator
from streamsql.state.columns import ColumnTable
from streamsql.state.factory import create_backend
from tests.runtime.oracle import fold

OP_ID = "group-agg-1"
#: (call, DuckDB's expression over the live rows)
SUMS = [(("count_star", None), "COUNT(*)"), (("count", 1), "COUNT(x)"), (("sum", 1), "SUM(x)")]
EXTREMES = [(("min", 1), "MIN(x)"), (("max", 1), "MAX(x)")]
DISTINCT = [(("count_distinct", 1), "COUNT(DISTINCT x)")]


def _operator(cls, key_type, calls):
    inp = pa.schema([("k", key_type), ("x", pa.int64())])
    aggs, out = [], [("k", key_type)]
    for i, ((func, arg), _) in enumerate(calls):
        t = agg_output_type(func, None if arg is None else SqlType("BIGINT"))
        aggs.append(AggSpec(func, arg, t))
        out.append((f"a{i}", pa.int64()))
    return cls(1, aggs, inp, pa.schema(out)), inp


#: 2024-01-01 10:00:00.123456100 in epoch nanoseconds (TIMESTAMP(9) keys add 0..11 ns to it).
_NS_BASE = 1_704_103_200_123_456_100


def _python_rows(table: pa.Table) -> list[dict]:
    """``table.to_pylist()``, a nanosecond timestamp column as its epoch nanoseconds (ints)."""
    for i, f in enumerate(table.schema):
        if pa.types.is_timestamp(f.type) and f.type.unit == "ns":
            table = table.set_column(i, f.name, table.column(i).cast(pa.int64()))
    return table.to_pylist()


def _batches(inp, seed: int, n: int, changelog: bool, keys: int = 12):
    """Random batches; with ``changelog`` also -U/-D of live rows (sometimes every row of a key)."""
    rnd = random.Random(seed)
    string = pa.types.is_string(inp.field("k").type)
    timed = pa.types.is_time(inp.field("k").type)  # TIME keys: a minute and a half second each
    # TIMESTAMP(9) keys (epoch nanoseconds): one nanosecond apart, all in one microsecond
    nanos = pa.types.is_timestamp(inp.field("k").type)
    live: list[tuple] = []
    out = []
    for _ in range(n):
        rows, kinds = [], []
        if changelog and live and rnd.random() < 0.3:  # a key's every live row retracted: count 0
            k = rnd.choice(live)[0]
            for row in [r for r in live if r[0] == k]:
                live.remove(row)
                rows.append(row)
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
        for _ in range(rnd.randint(1, 12)):
            if changelog and live and rnd.random() < 0.35:
                rows.append(live.pop(rnd.randrange(len(live))))
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
                continue
            k = rnd.choice([None, *range(keys)])
            key = None if k is None else f"k{k}" if string else dt.time(0, k, 0, 500000) if timed \
                else _NS_BASE + k if nanos else k
            row = (key, rnd.choice([None, rnd.randint(-50, 50)]))
            live.append(row)
            rows.append(row)
            kinds.append(rnd.choice([RowKind.INSERT, RowKind.UPDATE_AFTER]) if changelog else RowKind.INSERT)
        table = pa.Table.from_arrays([pa.array([r[0] for r in rows], inp.field("k").type),
                                      pa.array([r[1] for r in rows], pa.int64())], schema=inp)
        out.append(Batch(table, np.array(kinds, np.int8) if changelog else None))
    return out, live


def _expected(calls, live: list[tuple]) -> Counter:
    con = duckdb.connect()
    con.execute("CREATE TABLE r (k VARCHAR, x BIGINT)")
    if live:
        con.executemany("INSERT INTO r VALUES (?, ?)", [(None if k is None else str(k), x) for k, x in live])
    rows = con.execute(f"SELECT k, {', '.join(sql for _, sql in calls)} FROM r GROUP BY k").fetchall()
    return Counter(rows)


class _Attempts:
    """The job's side: one state backend per attempt, its checkpoints, the committed output."""

    def __init__(self, cls, key_type, calls, backends, tmp_path):
        self.cls, self.key_type, self.calls = cls, key_type, calls
        self.backends, self.tmp = backends, tmp_path
        self.attempt = -1
        self.checkpoints: list[tuple[str, int, int]] = []  # (snapshot dir, batches before, output rows)
        self.barrier: tuple[int, int] | None = None
        self.out: list[tuple] = []
        self.pos = 0
        self.state: JobState | None = None
        self._open()

    def _open(self) -> None:
        if self.state is not None:
            self.state.close()
        self.attempt += 1
        backend = create_backend(self.backends[self.attempt % len(self.backends)])
        backend.open(str(self.tmp / f"attempt-{self.attempt}"))
        self.state = JobState(backend)
        self.op, _ = _operator(self.cls, self.key_type, self.calls)
        self.op.open(OperatorContext(OP_ID, self.state.keyed_state(OP_ID), {}, {}))
        if self.checkpoints:
            directory, self.pos, kept = self.checkpoints[-1]
            self.state.restore(directory)
            self.out = self.out[:kept]
        else:
            self.pos, self.out = 0, []
        self.barrier = None

    def step(self, step: str, batches: list[Batch]) -> None:
        if step == "b" and self.pos < len(batches):
            for el in self.op.process_batch(batches[self.pos], 0):
                rows = zip(el.kind_array(), _python_rows(el.table))
                self.out += [(RowKind(k), tuple(r.values())) for k, r in rows]
            self.pos += 1
        elif step == "|":
            self.op.snapshot_state(len(self.checkpoints) + 1)
            self.state.barrier(OP_ID)
            self.barrier = (self.pos, len(self.out))
        elif step == "s" and self.barrier is not None:
            directory = str(self.tmp / f"chk-{len(self.checkpoints) + 1}-{self.attempt}")
            self.state.snapshot(directory)
            self.checkpoints.append((directory, *self.barrier))
            self.barrier = None
        elif step == "f":
            self.state.release()
            self.barrier = None
        elif step == "x":
            self._open()

    def finish(self, batches: list[Batch]) -> list[tuple]:
        while self.pos < len(batches):
            self.step("b", batches)
        self.state.close()
        return self.out


def _play(cls, key_type, calls, backends, script: str, tmp_path, *, changelog: bool, seed: int):
    inp = _operator(cls, key_type, calls)[1]
    batches, live = _batches(inp, seed, 14, changelog)
    job = _Attempts(cls, key_type, calls, backends, tmp_path)
    for step in script.replace(" ", ""):
        job.step(step, batches)
    out = job.finish(batches)
    got = Counter({tuple(None if v is None else str(v) if i == 0 else v for i, v in enumerate(row)): n
                   for row, n in fold(out).items()})
    assert got == _expected(calls, live)
    return job


#: After a restore (``x``): a barrier before any batch, completed before or after the next batch; a
#: batch touching some keys between barrier and snapshot; two restores in a row; a failed
#: checkpoint between two barriers; crashes right after a restore; every restored key's rows
#: retracted after a restore (the changelog scripts retract whole keys).
SCRIPTS = {
    "barrier-before-first-batch": "bb|s bb|s x |s x |s bb x bb",
    "barrier-then-batch-then-snapshot": "bbb|s x |bs x |bbs x b|bs x",
    "restore-twice-in-a-row": "bb|s x x |s x x bb|s x x b|bs x x",
    "failed-checkpoint-after-restore": "bb|s x |bf b|s x |bf |bs x",
    "crash-before-any-batch": "b|s bb x x b x |s x",
}


def _restore_cases() -> list:
    """(script, backends, changelog): every script with both input kinds on alternating backends (each
    attempt on the other backend: both backends' snapshots and restores), and on each backend alone
    with one input kind, the other one's in turn; the other ten under -m slow."""
    cases = []
    for changelog in (False, True):
        for name, backends in (("hashmap", ("hashmap",)), ("rocksdb", ("rocksdb",)),
                               ("alternating", ("rocksdb", "hashmap"))):
            for i, script in enumerate(SCRIPTS):
                default = name == "alternating" or (i + changelog + (name == "rocksdb")) % 2 == 0
                kind = "changelog" if changelog else "insert-only"
                cases.append(pytest.param(script, backends, changelog, id=f"{kind}-{name}-{script}",
                                          marks=() if default else pytest.mark.slow))
    return cases


@pytest.mark.parametrize(("script", "backends", "changelog"), _restore_cases())
def test_columnar_group_by_restores_give_duckdbs_answer(tmp_path, script, backends, changelog):
    calls = SUMS + ([] if changelog else EXTREMES)
    for key_type in (pa.int64(), pa.string()):  # the table's integer index, and its bytes keys
        job = _play(ColumnarGroupAggOperator, key_type, calls, backends, SCRIPTS[script],
                    tmp_path / str(key_type), changelog=changelog, seed=len(script) + changelog)
        assert isinstance(job.op.cache, ColumnTable) == (backends[job.attempt % len(backends)] == "hashmap")


@pytest.mark.parametrize("script", list(SCRIPTS))
@pytest.mark.parametrize("backends", [("hashmap",), ("hashmap", "rocksdb")], ids=["hashmap", "alternating"])
def test_count_distinct_restores_give_duckdbs_answer(tmp_path, script, backends):
    """COUNT(DISTINCT x) has no fixed width: the general operator, in the hashmap backend's dict."""
    _play(GroupAggOperator, pa.int64(), SUMS + DISTINCT, backends, SCRIPTS[script], tmp_path,
          changelog=True, seed=len(script))


@pytest.mark.parametrize("cls", [GroupAggOperator, ColumnarGroupAggOperator], ids=["general", "columnar"])
@pytest.mark.parametrize("backends", [("hashmap",), ("rocksdb",), ("rocksdb", "hashmap")],
                         ids=["hashmap", "rocksdb", "alternating"])
def test_time_keys_survive_checkpoints_and_restores(tmp_path, cls, backends):
    """TIME keys (``time64[us]``) in keyed state: snapshots of both backends and restores."""
    _play(cls, pa.time64("us"), SUMS + EXTREMES, backends, SCRIPTS["barrier-then-batch-then-snapshot"],
          tmp_path, changelog=False, seed=7)


@pytest.mark.parametrize("cls", [ColumnarGroupAggOperator], ids=["columnar"])
@pytest.mark.parametrize("backends", [("hashmap",), ("rocksdb",), ("rocksdb", "hashmap")],
                         ids=["hashmap", "rocksdb", "alternating"])
def test_timestamp_9_keys_survive_checkpoints_and_restores(tmp_path, cls, backends):
    """TIMESTAMP(9) keys (``timestamp[ns]``) one nanosecond apart stay apart in keyed state, through
    snapshots of both backends and restores (as Flink's TimestampData keys: nanoseconds kept)."""
    _play(cls, pa.timestamp("ns"), SUMS + EXTREMES, backends, SCRIPTS["barrier-then-batch-then-snapshot"],
          tmp_path, changelog=False, seed=7)
