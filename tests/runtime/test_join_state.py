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


def test_insert_only_sides_need_no_ttl_free_read():
    """A side that is insert-only and has no state TTL appends; TTL or a changelog input counts."""
    from streamsql.state.ttl import StateTtl

    ttl = StateTtl(1000)
    assert JoinState(None, (None, None), (True, False)).appends == (True, False)
    assert JoinState(None, (ttl, None), (True, True)).appends == (False, True)
