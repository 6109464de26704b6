"""The regular join's state layout (one entry per row of a side): duplicates, retractions, restore.

Operator-level, on both backends: exact duplicate rows are counted (one entry with a count, or one
entry each on an insert-only side), retracting one of two duplicates keeps the other, an outer
side's match counts survive a snapshot and restore, and a snapshot of the earlier layout (one value
per side and key) is refused instead of read as empty state.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import Batch, RowKind
from streamsql.runtime.operators.join import StreamingJoinOperator
from streamsql.runtime.operators.join_state import JOIN_ROW, JoinState
from streamsql.state.layout import (
    JOIN_LEFT,
    StateFormatError,
    ValueFormat,
    encode_keys,
    map_prefixes,
    split_map_key,
    with_key_groups,
)
from tests.runtime.harness import open_operator

BACKENDS = ["hashmap", "rocksdb"]
L = pa.schema([("k", pa.int64()), ("v", pa.string())])
R = pa.schema([("k", pa.int64()), ("w", pa.string())])
OUT = pa.schema([("k", pa.int64()), ("v", pa.string()), ("k0", pa.int64()), ("w", pa.string())])
UB, D = RowKind.UPDATE_BEFORE, RowKind.DELETE


def _batch(schema, rows, kinds=None) -> Batch:
    table = pa.Table.from_pylist([dict(zip(schema.names, r)) for r in rows], schema=schema)
    return Batch(table, None if kinds is None else np.array(kinds, np.int8))


def _out(elements) -> list[tuple]:
    out = []
    for b in elements:
        kinds = b.kind_array().tolist()
        out += [(RowKind(kind).name, r["v"], r["w"]) for r, kind in zip(b.table.to_pylist(), kinds)]
    return out


def _join(tmp_path, backend_name, join_type="INNER", name="j", insert_only=(False, False)):
    op = StreamingJoinOperator(join_type, [0], [0], L, R, OUT, inputs_insert_only=insert_only)
    return open_operator(op, backend_name, tmp_path / name, "join-1")


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("insert_only", [(False, False), (True, True)])
def test_duplicate_rows_are_counted(tmp_path, backend_name, insert_only):
    op, backend = _join(tmp_path, backend_name, insert_only=insert_only)
    op.process_batch(_batch(L, [(1, "a"), (1, "a")]), 0)  # one batch
    op.process_batch(_batch(L, [(1, "a")]), 0)  # and a later one
    assert Counter(_out(op.process_batch(_batch(R, [(1, "x")]), 1))) == Counter({("INSERT", "a", "x"): 3})
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_retracting_one_of_two_duplicates_keeps_the_other(tmp_path, backend_name):
    op, backend = _join(tmp_path, backend_name)
    op.process_batch(_batch(L, [(1, "a"), (1, "a")]), 0)
    op.process_batch(_batch(R, [(1, "x")]), 1)
    assert _out(op.process_batch(_batch(L, [(1, "a")], [D]), 0)) == [("DELETE", "a", "x")]
    assert _out(op.process_batch(_batch(R, [(1, "y")]), 1)) == [("INSERT", "a", "y")]
    assert _out(op.process_batch(_batch(L, [(1, "a")], [UB]), 0)) == [("UPDATE_BEFORE", "a", "x"),
                                                                      ("UPDATE_BEFORE", "a", "y")]
    assert _out(op.process_batch(_batch(R, [(1, "z")]), 1)) == []  # no left row left
    op.process_batch(_batch(L, [(1, "a")], [D]), 0)  # a retraction of a row not in state ...
    op.process_batch(_batch(L, [(1, "a")]), 0)  # ... leaves its count at zero, not -1
    assert _out(op.process_batch(_batch(R, [(1, "q")]), 1)) == [("INSERT", "a", "q")]
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_outer_match_counts_survive_restore(tmp_path, backend_name):
    first, b1 = _join(tmp_path, backend_name, "LEFT", "first")
    assert _out(first.process_batch(_batch(L, [(1, "a")]), 0)) == [("INSERT", "a", None)]
    assert _out(first.process_batch(_batch(R, [(1, "x"), (1, "y")]), 1)) == [
        ("DELETE", "a", None), ("INSERT", "a", "x"), ("INSERT", "a", "y")]
    first.snapshot_state(1)
    b1.snapshot(str(tmp_path / "snap"))
    b1.close()
    second, b2 = _join(tmp_path, backend_name, "LEFT", "second")
    b2.restore(str(tmp_path / "snap"))
    # a has two matches: losing one keeps it matched, losing the other pads it again
    assert _out(second.process_batch(_batch(R, [(1, "x")], [D]), 1)) == [("DELETE", "a", "x")]
    assert _out(second.process_batch(_batch(R, [(1, "y")], [D]), 1)) == [("DELETE", "a", "y"),
                                                                         ("INSERT", "a", None)]
    assert _out(second.process_batch(_batch(L, [(1, "a")], [D]), 0)) == [("DELETE", "a", None)]
    b2.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_rows_with_a_null_key_are_kept_but_never_match(tmp_path, backend_name):
    op, backend = _join(tmp_path, backend_name, "FULL")
    assert _out(op.process_batch(_batch(L, [(None, "a")]), 0)) == [("INSERT", "a", None)]
    assert _out(op.process_batch(_batch(R, [(None, "x")]), 1)) == [("INSERT", None, "x")]
    assert _out(op.process_batch(_batch(L, [(None, "a")], [D]), 0)) == [("DELETE", "a", None)]
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_state_of_the_earlier_layout_is_refused_clearly(tmp_path, backend_name):
    op, backend = _join(tmp_path, backend_name)
    key = encode_keys([pa.array([1], pa.int64())])[0]
    (grouped,) = with_key_groups([key])
    old = ValueFormat("join/rows", 1)  # the earlier layout: all rows of a side and key in one value
    old_key = grouped[:2] + JOIN_LEFT + grouped[2:]
    backend.keyed_state("join-1").write([(old_key, old.encode([[1, 0, 1, "a"]]))])
    with pytest.raises(StateFormatError, match="expected 'join/layout' v2.*start the job afresh"):
        op.process_batch(_batch(R, [(1, "x")]), 1)
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_rows_entry_of_another_format_is_refused(tmp_path, backend_name):
    op, backend = _join(tmp_path, backend_name)
    op.process_batch(_batch(L, [(1, "a")]), 0)
    state = backend.keyed_state("join-1")
    rows = [(k, v) for k, v in state.items() if v[:3] == JOIN_ROW.tag]
    assert len(rows) == 1
    prefix, entry = split_map_key(rows[0][0])
    state.write_maps([(prefix, entry, ValueFormat("join/row", 99).encode([1, 0, 1, "a"]))])
    with pytest.raises(StateFormatError, match="expected 'join/row' v1"):
        op.process_batch(_batch(R, [(1, "x")]), 1)
    backend.close()


class _Recording:
    """A state view that records the sizes of its map writes."""

    def __init__(self, view):
        self.view, self.writes = view, []

    def __getattr__(self, name):
        return getattr(self.view, name)

    def write_maps(self, puts, deletes=()):
        self.writes.append((len(puts), len(deletes)))
        self.view.write_maps(puts, deletes)


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_a_change_writes_its_own_entry_only(tmp_path, backend_name):
    """O(changed rows): a new row of a hot key puts one entry; the key's other rows stay as written."""
    op, backend = _join(tmp_path, backend_name)
    op.process_batch(_batch(L, [(7, f"r{i}") for i in range(200)]), 0)
    before = dict(backend.keyed_state("join-1").items())
    rec = _Recording(op.join_state.views[0])
    op.join_state.views = (rec, rec)
    op.process_batch(_batch(L, [(7, "new")]), 0)
    assert rec.writes == [(1, 0)]  # one put, whatever the key's 200 other rows
    after = dict(backend.keyed_state("join-1").items())
    assert {k: v for k, v in after.items() if k in before} == before
    backend.close()


@pytest.mark.parametrize("backend_name", BACKENDS)
def test_an_inner_appending_side_writes_a_block_per_key_and_reads_old_rows_too(tmp_path, backend_name):
    """One entry per join key of a batch (its rows in order, duplicates kept), read back next to an
    entry of one row as written before blocks (a snapshot of the earlier version)."""
    op, backend = _join(tmp_path, backend_name, insert_only=(True, True))
    rec = _Recording(op.join_state.views[0])
    op.join_state.views = (rec, rec)
    op.process_batch(_batch(L, [(1, "a"), (2, "b"), (1, "c"), (1, "a")]), 0)
    assert rec.writes == [(2, 0)]  # keys 1 and 2: two entries for four rows
    (prefix,) = map_prefixes(with_key_groups(encode_keys([pa.array([1], pa.int64())])), JOIN_LEFT)
    backend.keyed_state("join-1").write_maps([(prefix, b"o" * 16, JOIN_ROW.encode([1, 0, 1, "old"]))])
    assert Counter(_out(op.process_batch(_batch(R, [(1, "x"), (3, "y")]), 1))) == Counter(
        {("INSERT", "a", "x"): 2, ("INSERT", "c", "x"): 1, ("INSERT", "old", "x"): 1})
    assert _out(op.process_batch(_batch(L, [(2, "d")]), 0)) == []
    assert Counter(_out(op.process_batch(_batch(R, [(2, "z")]), 1))) == Counter(
        {("INSERT", "b", "z"): 1, ("INSERT", "d", "z"): 1})
    backend.close()


def test_insert_only_sides_need_no_ttl_free_read():
    """A side that is insert-only and has no state TTL appends; TTL or a changelog input counts."""
    from streamsql.state.ttl import StateTtl

    ttl = StateTtl(1000)
    assert JoinState(None, (None, None), (True, False)).appends == (True, False)
    assert JoinState(None, (ttl, None), (True, True)).appends == (False, True)


TL = pa.schema([("k", pa.int64()), ("t", pa.timestamp("ms")), ("d", pa.date32()), ("x", pa.float64()),
                ("b", pa.bool_()), ("s", pa.string())])
TR = pa.schema([("k", pa.int64()), ("u", pa.timestamp("us", "UTC")), ("n", pa.int32()),
                ("m", pa.decimal128(6, 2))])


def _typed(schema, seed: int, n: int) -> pa.Table:
    import datetime as dt
    from decimal import Decimal
    rnd = np.random.default_rng(seed)
    base = dt.datetime(2024, 2, 28, 23, 59, 59, 999000)
    cols = {"k": [None if rnd.random() < 0.1 else int(rnd.integers(0, 6)) for _ in range(n)]}
    for f in schema:
        if f.name == "k":
            continue
        cols[f.name] = [None if rnd.random() < 0.2 else {
            "t": base + dt.timedelta(milliseconds=int(rnd.integers(-10**10, 10**10))),
            "u": (base + dt.timedelta(microseconds=int(rnd.integers(-10**13, 10**13)))).replace(
                tzinfo=dt.timezone.utc),
            "d": dt.date(1969, 12, 25) + dt.timedelta(days=int(rnd.integers(0, 20000))),
            "x": float(rnd.choice([-0.0, 1.5, float("inf"), -2.25e300])),
            "b": bool(rnd.random() < 0.5), "s": "é" * int(rnd.integers(0, 300)),
            "n": int(rnd.integers(-2**31, 2**31)), "m": Decimal(int(rnd.integers(-99999, 99999))) / 100,
        }[f.name] for _ in range(n)]
    return pa.table(cols, schema=schema)


@pytest.mark.parametrize("backend_name", BACKENDS)
@pytest.mark.parametrize("insert_only", [(True, True), (True, False), (False, True)])
def test_appending_sides_join_every_type_as_a_nested_loop_does(tmp_path, backend_name, insert_only):
    """Batches of both sides in turn, a snapshot and restore half-way: the output is the nested-loop
    join of Arrow's own rows (NULL keys never match), whichever side appends (column by column)."""
    out_schema = pa.schema(list(TL) + [pa.field("k0", pa.int64())] + list(TR)[1:])

    def open_join(name):
        op = StreamingJoinOperator("INNER", [0], [0], TL, TR, out_schema,
                                   insert_only=insert_only == (True, True), inputs_insert_only=insert_only)
        return open_operator(op, backend_name, tmp_path / name, "join-1")

    batches = [(i % 2, _typed(TL if i % 2 == 0 else TR, i, 1 + 7 * i)) for i in range(8)]
    op, backend = open_join("first")
    got = Counter()
    for step, (side, table) in enumerate(batches):
        if step == 4:
            op.snapshot_state(1)
            backend.snapshot(str(tmp_path / "snap"))
            backend.close()
            op, backend = open_join("second")
            backend.restore(str(tmp_path / "snap"))
        for b in op.process_batch(Batch(table), side):
            assert set(b.kind_array().tolist()) <= {RowKind.INSERT}
            got.update(tuple(r.values()) for r in b.table.to_pylist())
    backend.close()
    lefts = [r for s, t in batches if s == 0 for r in t.to_pylist()]
    rights = [r for s, t in batches if s == 1 for r in t.to_pylist()]
    expected = Counter(tuple(lr.values()) + tuple(rr.values()) for lr in lefts for rr in rights
                       if lr["k"] is not None and lr["k"] == rr["k"])
    assert sum(expected.values()) > 20
    assert got == expected
