"""The columnar GROUP BY (fixed-width accumulators) against the general operator, batch by batch.

For every call the columnar operator supports, both operators get the same batches (insert-only
and changelogs with retractions; NULLs; integer and string keys) and must emit the same
changelog per batch; then the columnar one checkpoints, fails and restores (with caches that
evict all the time) and must still match. Values are chosen so that float sums are exact.
"""

from __future__ import annotations

import random

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, agg_output_type
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import (
    ColumnarGroupAggOperator,
    create_group_agg,
    fixed_width_supported,
)
from tests.runtime.test_group_agg_cache import _run, checkpointed_run, open_group_agg

T_LTZ = pa.timestamp("us", tz="UTC")
INPUT = [("x", pa.int64(), "BIGINT"), ("f", pa.float64(), "DOUBLE"),
         ("ts", pa.timestamp("ms"), "TIMESTAMP(3)"), ("lt", T_LTZ, "TIMESTAMP_LTZ(6)"),
         ("dt", pa.date32(), "DATE"), ("i", pa.int32(), "INT")]
INSERT_ONLY = [("count_star", None), ("count", 1), ("sum", 1), ("avg", 1), ("sum", 2), ("avg", 2),
               ("min", 1), ("max", 1), ("min", 2), ("max", 2), ("max", 3), ("min", 4), ("max", 5), ("max", 6)]
# the calls numpy groups (Aggregates.partials_numpy)
NUMPY_CALLS = [("count_star", None), ("count", 1), ("count", 3), ("min", 1), ("max", 1), ("min", 2),
               ("max", 2), ("max", 3), ("min", 4), ("max", 5), ("min", 6), ("max", 6)]
CHANGELOG = [("count_star", None), ("count", 1), ("sum", 1), ("avg", 1), ("sum", 2), ("avg", 6), ("count", 3)]
KEYS = {"bigint": pa.int64(), "int": pa.int32(), "string": pa.string()}


def _schemas(key_type, calls):
    inp = pa.schema([("k", key_type)] + [(n, t) for n, t, _ in INPUT])
    aggs, out = [], [("k", key_type)]
    for i, (func, arg) in enumerate(calls):
        sql_arg = None if arg is None else SqlType.parse(INPUT[arg - 1][2])
        t = agg_output_type(func, sql_arg)
        aggs.append(AggSpec(func, arg, t))
        out.append((f"a{i}", inp.field(arg).type if func in ("min", "max") else t.to_arrow()))
    return inp, aggs, pa.schema(out)


def _operator(cls, key_type, calls, backend_name, workdir, cache_entries=None):
    inp, aggs, out = _schemas(key_type, calls)
    op = cls(1, aggs, inp, out)
    return open_group_agg(op, backend_name, workdir, cache_entries)


def _batches(key_type, changelog, seed, n_batches=24, null_keys=True):
    rnd = random.Random(seed)
    pool = ([None, -(2**31), -1, 0, 1, 7, 2**31 - 1] + list(range(10, 30)) if pa.types.is_integer(key_type)
            else [None, "", "a", "ä"] + [f"k{i}" for i in range(25)])
    pool = pool if null_keys else pool[1:]
    inp = pa.schema([("k", key_type)] + [(n, t) for n, t, _ in INPUT])
    live, out = [], []
    for _ in range(n_batches):
        rows, kinds = [], []
        for _ in range(rnd.randint(1, 30)):
            if changelog and live and rnd.random() < 0.4:
                rows.append(live.pop(rnd.randrange(len(live))))
                kinds.append(rnd.choice([RowKind.DELETE, RowKind.UPDATE_BEFORE]))
                continue
            ms = 1_700_000_000_000 + rnd.randint(-10**7, 10**7)
            row = (rnd.choice(pool), rnd.choice([None, rnd.randint(-10**6, 10**6)]),
                   rnd.choice([None, rnd.randint(-400, 400) / 8]), rnd.choice([None, ms]),
                   rnd.choice([None, ms * 1000 + rnd.randint(0, 999)]),
                   rnd.choice([None, rnd.randint(-5, 20000)]),
                   rnd.choice([None, rnd.randint(-(2**31), 2**31 - 1)]))
            live.append(row)
            rows.append(row)
            kinds.append(rnd.choice([RowKind.INSERT, RowKind.UPDATE_AFTER]) if changelog else RowKind.INSERT)
        table = pa.Table.from_arrays([pa.array(list(c), f.type) for c, f in zip(zip(*rows), inp)], schema=inp)
        out.append(Batch(table, np.array(kinds, np.int8) if changelog else None))
    return out


def test_eligibility():
    inp, aggs, out = _schemas(pa.int64(), INSERT_ONLY)
    assert fixed_width_supported(aggs, inp)
    assert isinstance(create_group_agg(1, aggs, inp, out), ColumnarGroupAggOperator)
    for func, t in [("sum", pa.decimal128(10, 2)), ("max", pa.string()), ("count_distinct", pa.int64()),
                    ("max_retract", pa.int64()), ("sum", pa.timestamp("ms"))]:
        schema = pa.schema([("k", pa.int64()), ("a", t)])
        agg = AggSpec(func, 1, SqlType("BIGINT"))
        assert not fixed_width_supported([agg], schema)
        assert isinstance(create_group_agg(1, [agg], schema, schema), GroupAggOperator)


# Each key type with each input kind, on the backends in turn (every pair of the three meets); the
# other six combinations under -m slow.
@pytest.mark.parametrize(("backend_name", "key", "changelog"), [
    pytest.param(b, k, c, id=f"{'changelog' if c else 'insert-only'}-{k}-{b}",
                 marks=() if (i + c) % 2 == ("hashmap", "rocksdb").index(b) else pytest.mark.slow)
    for c in (False, True) for i, k in enumerate(KEYS) for b in ("hashmap", "rocksdb")])
def test_same_changelog_as_general_operator_and_exact_restores(tmp_path, backend_name, key, changelog):
    key_type, calls = KEYS[key], CHANGELOG if changelog else INSERT_ONLY
    batches = _batches(key_type, changelog, seed=len(key) + 10 * changelog)
    ref, ref_backend = _operator(GroupAggOperator, key_type, calls, backend_name, tmp_path / "ref")
    expected = _run(ref, batches)
    ref_backend.close()
    col, col_backend = _operator(ColumnarGroupAggOperator, key_type, calls, backend_name, tmp_path / "col")
    assert _run(col, batches) == expected
    col_backend.close()
    assert any(k == RowKind.UPDATE_BEFORE for b in expected for k, _ in b)  # the script does change results
    if changelog:
        assert any(k == RowKind.DELETE for b in expected for k, _ in b)

    for cache_entries in (0, 3):
        def make(workdir, n=cache_entries):
            return _operator(ColumnarGroupAggOperator, key_type, calls, backend_name, workdir, n)

        assert checkpointed_run(make, batches, tmp_path / f"c{cache_entries}") == expected


@pytest.mark.parametrize("backend_name", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("key", ["bigint", "int"])
def test_numpy_partials_give_the_same_changelog(tmp_path, backend_name, key):
    """COUNT, MIN and MAX by one integer key without NULLs: numpy groups the batch, no DuckDB."""
    key_type = KEYS[key]
    batches = _batches(key_type, False, seed=7, null_keys=False)
    ref, ref_backend = _operator(GroupAggOperator, key_type, NUMPY_CALLS, backend_name, tmp_path / "ref")
    expected = _run(ref, batches)
    ref_backend.close()
    col, col_backend = _operator(ColumnarGroupAggOperator, key_type, NUMPY_CALLS, backend_name, tmp_path)
    assert _run(col, batches) == expected
    assert "_lazy__con" not in vars(col)  # DuckDB was never needed
    col_backend.close()
    assert any(k == RowKind.UPDATE_BEFORE for b in expected for k, _ in b)


@pytest.mark.parametrize("key_type", [pa.int8(), pa.int16(), pa.int32(), pa.int64(), pa.uint32()])
def test_numpy_partials_are_duckdbs(key_type):
    """Per type, the partial states numpy gives are the ones of DuckDB's query (in key order)."""
    rng = np.random.default_rng(3)
    n = 3000
    nulls = rng.random(n) < 0.2
    ms = rng.integers(-(10**12), 10**12, n)
    table = pa.table({
        "k": pa.array(rng.integers(0, 100, n)).cast(key_type),
        "x": pa.array(rng.integers(-(2**62), 2**62, n), mask=nulls),
        "f": pa.array(rng.integers(-400, 400, n) / 8, mask=rng.random(n) < 0.5),
        "ts": pa.array(ms, mask=nulls).cast(pa.timestamp("ms")),
        "lt": pa.array(ms * 1000, mask=nulls).cast(T_LTZ),
        "dt": pa.array(rng.integers(-5, 20000, n), pa.int32()).cast(pa.date32()),
        "i": pa.array(rng.integers(-(2**31), 2**31 - 1, n), pa.int32(), mask=nulls),
        "only_null": pa.array([None] * n, pa.int64()),
    })
    calls = [*NUMPY_CALLS, ("max", 7), ("count", 7)]
    aggs = [AggSpec(f, a, SqlType("BIGINT")) for f, a in calls]
    out = pa.schema([("k", key_type)] + [(f"a{i}", pa.int64()) for i in range(len(calls))])
    op = ColumnarGroupAggOperator(1, aggs, table.schema, out)
    mine = op.aggregates.partials_numpy(table, 1)
    _, duck = op._partials(Batch(table))
    mine, duck = mine.sort_by("k"), duck.sort_by("k")
    assert mine.column_names == duck.column_names
    for a, b in zip(mine.columns, duck.columns):  # DuckDB names UTC 'Etc/UTC'
        assert a.type == b.type or (a.type, b.type) == (T_LTZ, pa.timestamp("us", tz="Etc/UTC"))
        assert a.equals(b.cast(a.type))


def test_numpy_partials_leave_the_rest_to_duckdb():
    table = pa.table({"k": pa.array([1, 2, None], pa.int64()), "s": ["a", "b", "c"],
                      "f": [1.0, float("nan"), 2.0], "u": pa.array([1, 2, 3], pa.uint64()), "x": [1, 2, 3]})

    def partials(calls, key=0):
        t = table.select([key] + [i for i in range(len(table.schema)) if i != key])
        names = t.schema.names
        aggs = [AggSpec(f, None if a is None else names.index(a), SqlType("BIGINT")) for f, a in calls]
        out = pa.schema([("k", t.schema.field(0).type)] + [(f"a{i}", pa.int64()) for i in range(len(calls))])
        return ColumnarGroupAggOperator(1, aggs, t.schema, out).aggregates.partials_numpy(t, 1)

    assert partials([("count_star", None)], key=0) is None  # a NULL key
    assert partials([("count_star", None)], key=1) is None  # a string key
    assert partials([("count_star", None)], key=3) is None  # an unsigned 64-bit key
    assert partials([("max", "f")], key=4) is None  # a NaN, which DuckDB orders above numbers
    assert partials([("sum", "x")], key=4) is None  # SUM: DuckDB's HUGEINT and its range check
    assert partials([("count", "s"), ("max", "x")], key=4) is not None


@pytest.mark.parametrize("cls", [ColumnarGroupAggOperator, GroupAggOperator], ids=["columnar", "general"])
@pytest.mark.parametrize("split", [True, False], ids=["across-batches", "within-a-batch"])
def test_bigint_sum_wraps_around_as_java(tmp_path, split, cls):
    """A SUM past BIGINT keeps the low 64 bits, as Flink 2.3's (2 * (2^63 - 10) is -20), in DuckDB's
    partial sums (within a batch) and in the state (across batches)."""
    inp, aggs, out = _schemas(pa.int64(), [("sum", 1)])
    op, backend = open_group_agg(cls(1, aggs, inp, out), "hashmap", tmp_path / "o")
    big = 2**63 - 10

    def batch(values):
        cols = [pa.array([1] * len(values), pa.int64()), pa.array(values, pa.int64())]
        cols += [pa.nulls(len(values), f.type) for f in list(inp)[2:]]
        return Batch(pa.Table.from_arrays(cols, schema=inp))

    changes = _run(op, [batch([big]), batch([big])] if split else [batch([big, big])])
    backend.close()
    assert [row[-1] for kind, row in changes[-1] if kind != RowKind.UPDATE_BEFORE] == [-20], changes


@pytest.mark.parametrize("writer, reader, message", [
    (GroupAggOperator, ColumnarGroupAggOperator,
     "expected 'group-agg/fixed-width' v1, found 'group-agg/objects' v1"),
    (ColumnarGroupAggOperator, GroupAggOperator,
     "expected 'group-agg/objects' v1, found 'group-agg/fixed-width' v1"),
    (ColumnarGroupAggOperator, "other-calls", "another layout of 'group-agg/fixed-width' v1"),
])
def test_restoring_state_of_another_format_fails_clearly(tmp_path, writer, reader, message):
    from streamsql.state.layout import StateFormatError

    inp, aggs, out = _schemas(pa.int64(), [("count_star", None), ("sum", 1)])
    batches = _batches(pa.int64(), False, seed=5, n_batches=4)
    op, backend = open_group_agg(writer(1, aggs, inp, out), "hashmap", tmp_path / "w")
    _run(op, batches)
    op.snapshot_state(1)
    backend.snapshot(str(tmp_path / "chk-1"))
    backend.close()
    if reader == "other-calls":
        inp, aggs, out = _schemas(pa.int64(), [("count_star", None), ("max", 2), ("sum", 1)])
        reader = ColumnarGroupAggOperator
    restored, backend = open_group_agg(reader(1, aggs, inp, out), "hashmap", tmp_path / "r")
    backend.restore(str(tmp_path / "chk-1"))
    with pytest.raises(StateFormatError, match=message):
        restored.process_batch(batches[0], 0)
    backend.close()


def _keyed_batch(inp, keys, kind=RowKind.INSERT):
    cols = [pa.array(keys, pa.int64())] + [pa.array(list(range(len(keys))), pa.int64())]
    cols += [pa.nulls(len(keys), f.type) for f in list(inp)[2:]]
    return Batch(pa.Table.from_arrays(cols, schema=inp), np.full(len(keys), kind, np.int8))


def test_hashmap_keeps_the_columns_and_snapshots_what_the_cache_writes(tmp_path):
    """On hashmap the values stay numpy columns (no cache); its snapshot holds the very bytes
    the write-behind cache writes on RocksDB."""
    from streamsql.state.cache import WriteBehindCache
    from streamsql.state.columns import ColumnTable

    batches = _batches(pa.int64(), True, seed=3)
    stored = {}
    for backend_name, kind in [("hashmap", ColumnTable), ("rocksdb", WriteBehindCache)]:
        op, backend = _operator(ColumnarGroupAggOperator, pa.int64(), CHANGELOG, backend_name,
                                tmp_path / backend_name)
        assert isinstance(op.cache, kind)
        _run(op, batches)
        op.snapshot_state(1)
        stored[backend_name] = dict(backend.keyed_state("group-agg-1").items())
        backend.close()
    assert stored["hashmap"] == stored["rocksdb"]
    assert len(stored["hashmap"]) > 5


def test_snapshot_holds_the_state_as_of_the_barrier(tmp_path):
    """Rows after snapshot_state (the operator's barrier) and before the backend snapshot (once
    every task acknowledged) are not in the snapshot: replaying them after a restore counts them once."""
    inp, aggs, out = _schemas(pa.int64(), [("count_star", None), ("sum", 1)])
    first, b1 = open_group_agg(ColumnarGroupAggOperator(1, aggs, inp, out), "hashmap", tmp_path / "a")
    _run(first, [_keyed_batch(inp, [1, 2, 3])])
    first.snapshot_state(1)
    after = _keyed_batch(inp, [2, 3, 4])
    expected = _run(first, [after])
    b1.snapshot(str(tmp_path / "chk-1"))
    b1.close()
    second, b2 = open_group_agg(ColumnarGroupAggOperator(1, aggs, inp, out), "hashmap", tmp_path / "b")
    b2.restore(str(tmp_path / "chk-1"))
    assert _run(second, [after]) == expected
    b2.close()


def test_restored_keys_stay_in_a_snapshot_whose_barrier_came_before_the_first_batch(tmp_path):
    """Restored entries move into the columns at the first batch. A barrier before that batch and
    a backend snapshot after it (another task acknowledged later) must still hold them: the crash
    campaign two-sinks-hashmap lost every key's count this way (lost=500 duplicated=500)."""
    inp, aggs, out = _schemas(pa.int64(), [("count_star", None), ("sum", 1)])
    first, b1 = open_group_agg(ColumnarGroupAggOperator(1, aggs, inp, out), "hashmap", tmp_path / "a")
    _run(first, [_keyed_batch(inp, [1, 2, 3])])
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "chk-1"))
    as_of_1 = dict(b1.keyed_state("group-agg-1").items())
    b1.close()
    second, b2 = open_group_agg(ColumnarGroupAggOperator(1, aggs, inp, out), "hashmap", tmp_path / "b")
    b2.restore(str(tmp_path / "chk-1"))
    second.snapshot_state(2)  # its barrier: no batch since the restore
    expected = _run(second, [_keyed_batch(inp, [3, 4])])  # epoch 3, before the last acknowledgement
    b2.snapshot(str(tmp_path / "chk-2"))
    b2.close()
    third, b3 = open_group_agg(ColumnarGroupAggOperator(1, aggs, inp, out), "hashmap", tmp_path / "c")
    b3.restore(str(tmp_path / "chk-2"))
    assert dict(b3.keyed_state("group-agg-1").items()) == as_of_1
    assert _run(third, [_keyed_batch(inp, [3, 4])]) == expected  # key 3 counted from its restored value
    b3.close()


def test_deleted_keys_are_compacted_away_and_results_stay_right(tmp_path):
    """Keys whose rows are all retracted leave dead slots; a snapshot with more dead than live
    compacts them, and the operator goes on exactly as the general one."""
    inp, aggs, out = _schemas(pa.int64(), [("count_star", None), ("sum", 1)])
    ops = {cls: open_group_agg(cls(1, aggs, inp, out), "hashmap", tmp_path / cls.__name__)
           for cls in (ColumnarGroupAggOperator, GroupAggOperator)}
    keys = list(range(3000))
    steps = [_keyed_batch(inp, keys), _keyed_batch(inp, keys[:2000], RowKind.DELETE), "checkpoint",
             _keyed_batch(inp, keys[1000:2500]), "checkpoint"]
    for cls, (op, backend) in ops.items():
        outputs = []
        for i, step in enumerate(steps):
            if step == "checkpoint":
                op.snapshot_state(i)
                backend.snapshot(str(tmp_path / f"{cls.__name__}-{i}"))
            else:
                outputs += _run(op, [step])
        if cls is ColumnarGroupAggOperator:  # compacted: only the keys with rows kept their slots
            assert len(op.cache) == 2000
        ops[cls] = (outputs, dict(backend.keyed_state("group-agg-1").items()))
        backend.close()
    (col_out, col_state), (gen_out, gen_state) = ops.values()
    assert col_out == gen_out
    assert len(col_state) == len(gen_state) == 2000  # keys 1000..2999 have rows


def test_hashmap_restore_of_keys_of_another_type_fails_clearly(tmp_path):
    """String-key state restored into an operator keyed by one integer column is refused."""
    from streamsql.state.layout import StateFormatError

    calls = [("count_star", None), ("sum", 1)]
    writer, backend = _operator(ColumnarGroupAggOperator, pa.string(), calls, "hashmap", tmp_path / "w")
    _run(writer, _batches(pa.string(), False, seed=2, n_batches=3))
    writer.snapshot_state(1)
    backend.snapshot(str(tmp_path / "chk-1"))
    backend.close()
    reader, backend = _operator(ColumnarGroupAggOperator, pa.int64(), calls, "hashmap", tmp_path / "r")
    backend.restore(str(tmp_path / "chk-1"))
    with pytest.raises(StateFormatError, match="not one integer column's"):
        _run(reader, _batches(pa.int64(), False, seed=2, n_batches=1))
    backend.close()
