"""COUNT(DISTINCT x) under state TTL, on an injected clock: each value expires on its own, as Flink's.

Flink keeps the distinct values in a MapState whose entries expire ``ttl`` after their own last
write (DistinctAggCodeGen); the count moves only when a value first arrives or is last retracted,
so a value that expired counts again when it comes back. Insert-only input writes an entry when
the value is new only; a changelog input on every change. Flink's results with a long TTL (the
plain answer) are the compat cases ``state_ttl_count_distinct*``.
"""

from __future__ import annotations

import pyarrow as pa
import pytest

from streamsql.core.elements import RowKind
from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import create_group_agg
from tests.runtime.harness import open_operator
from tests.runtime.test_state_ttl import TTL, Clock, _batch, changelog

INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
IN = pa.schema([("k", pa.string()), ("v", pa.int64())])
OUT = pa.schema([("k", pa.string()), ("n", pa.int64()), ("d", pa.int64())])


def _open(tmp_path, backend, updating, clock):
    calls = [AggSpec("count_star", None, SqlType("BIGINT", nullable=False)),
             AggSpec("count_distinct", 1, SqlType("BIGINT", nullable=False))]
    op = create_group_agg(1, calls, IN, OUT, updating_input=updating)
    assert isinstance(op, GroupAggOperator)
    return open_operator(op, backend, tmp_path, "group-agg-1", TTL, clock=clock)


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_insert_only_a_value_expires_a_ttl_after_its_first_arrival(tmp_path, backend):
    clock = Clock()
    op, b = _open(tmp_path, backend, False, clock)
    run = lambda *rows: changelog(op.process_batch(_batch(IN, list(rows)), 0))  # noqa: E731
    assert run(("a", 1), ("a", 2)) == [(INS, "a", 2, 2)]
    clock.now = 600
    assert run(("a", 1)) == [(UB, "a", 2, 2), (UA, "a", 3, 2)], "1 is not new: its entry is not rewritten"
    clock.now = 1000  # 1 and 2 (written at 0) expired; the key (written at 600) did not
    assert run(("a", 1)) == [(UB, "a", 3, 2), (UA, "a", 4, 3)], "an expired value counts again, as Flink's"
    clock.now = 1500
    assert run(("a", 1)) == [(UB, "a", 4, 3), (UA, "a", 5, 3)], "1 (written at 1000) is alive"
    clock.now = 2500 + 1000  # the key itself expired: everything starts again
    assert run(("a", 2)) == [(INS, "a", 1, 1)]
    b.close()


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
def test_changelog_every_change_rewrites_a_value_and_an_expired_one_is_not_subtracted(tmp_path, backend):
    clock = Clock()
    op, b = _open(tmp_path, backend, True, clock)
    run = lambda rows, kinds: changelog(op.process_batch(_batch(IN, rows, kinds), 0))  # noqa: E731
    assert run([("a", 1), ("a", 2), ("a", 2)], [INS, INS, INS]) == [(INS, "a", 3, 2)]
    clock.now = 600
    assert run([("a", 2)], [D]) == [(UB, "a", 3, 2), (UA, "a", 2, 2)], "2 is still there once"
    clock.now = 1200  # 1 (written at 0) expired; 2 (rewritten at 600) did not
    assert run([("a", 1)], [D]) == [(UB, "a", 2, 2), (UA, "a", 1, 2)], \
        "retracting an expired value changes no count (its multiplicity goes to -1, as Flink's)"
    assert run([("a", 1)], [INS]) == [(UB, "a", 1, 2), (UA, "a", 2, 2)], "-1 + 1 is 0: not counted"
    assert run([("a", 1)], [INS]) == [(UB, "a", 2, 2), (UA, "a", 3, 3)], "0 + 1: counted again"
    clock.now = 1700  # 2 (written at 600) expired
    assert run([("a", 2)], [INS]) == [(UB, "a", 3, 3), (UA, "a", 4, 4)]
    b.close()


def test_several_distinct_calls_are_still_refused_with_a_ttl(tmp_path):
    from streamsql.core.errors import ConfigError

    calls = [AggSpec("count_distinct", 1, SqlType("BIGINT", nullable=False)),
             AggSpec("count_distinct", 0, SqlType("BIGINT", nullable=False))]
    op = create_group_agg(1, calls, IN, OUT)
    with pytest.raises(ConfigError, match="several COUNT\\(DISTINCT"):
        open_operator(op, "hashmap", tmp_path, "group-agg-1", TTL, clock=Clock())
