"""The lookup join operator on a counting lookup source: one lookup per batch, and the cache options."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.connector import LookupSource
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError
from streamsql.runtime.operators.lookup_join import LookupJoinOperator
from tests.runtime.harness import open_operator

LEFT = pa.schema([("oid", pa.int32()), ("k", pa.int32())])
DIM = pa.schema([("id", pa.int32()), ("name", pa.string())])
OUT = pa.schema(list(LEFT) + list(DIM))


class CountingSource(LookupSource):
    """A dimension table in memory that records every lookup call."""

    def __init__(self, rows):
        self.rows = rows
        self.calls: list[list[tuple]] = []

    def open(self) -> None:
        pass

    def lookup(self, keys):
        self.calls.append(sorted(keys))
        return [r for r in self.rows if (r[0],) in set(keys)]


class Clock:
    def __init__(self):
        self.now = 0

    def __call__(self):
        return self.now


def _op(tmp_path, source, clock=None, join_type="LEFT", **options):
    op = LookupJoinOperator(join_type, [1], [0], LEFT, DIM, OUT, None, True, lambda cfg: source,
                            ({**options}, "dim"))
    return open_operator(op, "hashmap", tmp_path / "w", "lookup-1", clock=clock)


def _batch(keys, start=0):
    return Batch(pa.table({"oid": pa.array(range(start, start + len(keys)), pa.int32()),
                           "k": pa.array(keys, pa.int32())}, schema=LEFT))


def _rows(out):
    return [tuple(r.values()) for el in out for r in el.table.to_pylist()]


def test_one_lookup_per_batch_for_its_distinct_keys_rows_in_input_order(tmp_path):
    src = CountingSource([(1, "a"), (2, "b"), (2, "b2")])
    op, b = _op(tmp_path, src)
    keys = [1, 2, 3, None, 1, 2] * 5
    rows = _rows(op.process_batch(_batch(keys), 0))
    assert src.calls == [[(1,), (2,), (3,)]]  # one call; NULL is never looked up
    expected = []
    for oid, k in enumerate(keys):
        match = [r for r in src.rows if r[0] == k]
        expected += [(oid, k, *m) for m in match] or [(oid, k, None, None)]
    assert rows == expected
    b.close()


def test_inner_join_drops_rows_without_a_match(tmp_path):
    op, b = _op(tmp_path, CountingSource([(1, "a")]), join_type="INNER")
    assert _rows(op.process_batch(_batch([1, 2, None]), 0)) == [(0, 1, 1, "a")]
    b.close()


def test_no_cache_looks_every_batch_up(tmp_path):
    src = CountingSource([(1, "a")])
    op, b = _op(tmp_path, src)
    op.process_batch(_batch([1]), 0)
    op.process_batch(_batch([1]), 0)
    assert len(src.calls) == 2
    b.close()


def test_partial_cache_expires_after_write_and_after_access(tmp_path):
    clock = Clock()
    src = CountingSource([(1, "a")])
    op, b = _op(tmp_path, src, clock, **{"lookup.cache": "PARTIAL",
                                         "lookup.partial-cache.expire-after-write": "10 s",
                                         "lookup.partial-cache.expire-after-access": "3 s"})
    op.process_batch(_batch([1, 2]), 0)
    for t in (2000, 4000, 6000, 8000):  # used every 2 s: access keeps it, until 10 s after the write
        clock.now = t
        op.process_batch(_batch([1, 2]), 0)
    assert len(src.calls) == 1
    clock.now = 10_000
    op.process_batch(_batch([1]), 0)
    assert src.calls[-1] == [(1,)] and len(src.calls) == 2
    clock.now = 13_500  # not used for 3.5 s
    op.process_batch(_batch([1]), 0)
    assert len(src.calls) == 3
    b.close()


def test_partial_cache_max_rows_evicts_the_least_recently_used_and_missing_keys(tmp_path):
    src = CountingSource([(1, "a"), (2, "b"), (3, "c")])
    op, b = _op(tmp_path, src, **{"lookup.cache": "PARTIAL", "lookup.partial-cache.max-rows": "2",
                                  "lookup.partial-cache.cache-missing-key": "false"})
    op.process_batch(_batch([1, 2]), 0)
    op.process_batch(_batch([1]), 0)       # 1 is now the most recent
    op.process_batch(_batch([3]), 0)       # evicts 2
    op.process_batch(_batch([1, 2, 9]), 0)  # 2 again; 9 has no row and is not cached
    op.process_batch(_batch([9]), 0)
    assert src.calls == [[(1,), (2,)], [(3,)], [(2,), (9,)], [(9,)]]
    b.close()


@pytest.mark.parametrize(("options", "message"), [
    ({"lookup.cache": "FULL"}, "must be NONE or PARTIAL"),
    ({"lookup.cache": "PARTIAL"}, "needs 'lookup.partial-cache.max-rows'"),
])
def test_bad_cache_options_fail_at_open(tmp_path, options, message):
    with pytest.raises(ConfigError, match=message):
        _op(tmp_path, CountingSource([]), **options)


def test_row_kinds_of_an_updating_input_are_kept(tmp_path):
    op = LookupJoinOperator("LEFT", [1], [0], LEFT, DIM, OUT, None, False,
                            lambda cfg: CountingSource([(1, "a")]), ({}, "dim"))
    op, b = open_operator(op, "hashmap", tmp_path / "w", "lookup-1")
    kinds = np.array([RowKind.INSERT, RowKind.DELETE, RowKind.UPDATE_AFTER], np.int8)
    batch = _batch([1, 2, 1])
    out = op.process_batch(Batch(batch.table, kinds), 0)
    assert out[0].kind_array().tolist() == kinds.tolist()
    assert _rows(out) == [(0, 1, 1, "a"), (1, 2, None, None), (2, 1, 1, "a")]
    b.close()
