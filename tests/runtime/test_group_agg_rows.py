"""A GROUP BY's batch cut where one fold would not give Flink's row-by-row answer (group_agg_rows).

Flink's answers for the cut batches are ``tests/functions/test_float_aggs.py``'s (a lone -0.0
after 0.0 hidden by the equaliser, a key emptied and started again); here: the equaliser's
comparison as Flink's generated code writes it (``EqualiserCodeGenerator``: ``left == right`` for
a primitive field), that a batch is folded whole where nothing needs a cut (the fast path), and
that both operators cut alike.
"""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.elements import RowKind
from streamsql.core.types import SqlType
from streamsql.functions.accumulators import Aggregates
from streamsql.functions.aggregates import AggSpec
from streamsql.runtime.operators.group_agg import GroupAggOperator
from streamsql.runtime.operators.group_agg_columnar import ColumnarGroupAggOperator
from streamsql.runtime.operators.group_agg_rows import flink_parts, results_equal
from tests.runtime.harness import open_operator
from tests.runtime.test_state_ttl import _batch, changelog

INS, UB, UA, DEL = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
SCHEMA = pa.schema([("k", pa.int32()), ("d", pa.float64())])
OUT = pa.schema([("k", pa.int32()), ("s", pa.float64())])
SUM = [AggSpec("sum", 1, SqlType("DOUBLE"))]


def test_results_equal_is_javas_double_equality():
    nan = math.nan
    assert results_equal((-0.0, 1), (0.0, 1)), "-0.0 == 0.0 in Java"
    assert not results_equal((nan,), (nan,)), "NaN == NaN is false in Java: Flink emits the update"
    assert results_equal((None, "a"), (None, "a"))
    assert not results_equal((None,), (0.0,))
    assert not results_equal((1.0, "a"), (1.0, "b"))


def _no_counts(keys, rows):
    msg = "an insert-only batch needs no state"
    raise AssertionError(msg)


def test_a_batch_is_folded_whole_unless_it_must_be_cut():
    aggs = Aggregates(SUM, SCHEMA, list(OUT)[1:], "GROUP BY", row_count=True)
    plain = _batch(SCHEMA, [(1, 0.0), (1, 2.0), (2, -0.0)])  # -0.0: but its key's only row
    assert flink_parts(plain, 1, aggs, _no_counts) is None
    # a changelog whose key keeps a row all along (2 in state): the counts from state say so
    upd = _batch(SCHEMA, [(1, 2.0), (1, 3.0), (1, 4.0)], [UB, UA, INS])
    assert flink_parts(upd, 1, aggs, lambda keys, rows: np.array([2])) is None
    # ... the same batch over a key with one row in state is cut after its -U (the key is emptied)
    cut = flink_parts(upd, 1, aggs, lambda keys, rows: np.array([1]))
    assert [p.table.column("d").to_pylist() for p in cut] == [[2.0], [3.0, 4.0]]
    # two -0.0/0.0 rows of one key: one row per batch, the other keys in one
    mixed = _batch(SCHEMA, [(1, -0.0), (2, 5.0), (1, 0.0), (2, 1.0)])
    parts = flink_parts(mixed, 1, aggs, _no_counts)
    assert [p.table.to_pylist() for p in parts] == [
        [{"k": 2, "d": 5.0}, {"k": 2, "d": 1.0}], [{"k": 1, "d": -0.0}], [{"k": 1, "d": 0.0}]]


@pytest.mark.parametrize("backend", ["hashmap", "rocksdb"])
@pytest.mark.parametrize("operator", [GroupAggOperator, ColumnarGroupAggOperator])
def test_both_operators_answer_as_flinks_row_by_row_aggregate(tmp_path, operator, backend):
    """SUM of -0.0 then 0.0 shows -0.0 (the equal update not emitted); a key emptied and refilled
    in one batch restarts from NULL: Infinity, retracted, leaves no NaN (Flink's answers:
    tests/functions/float_aggs_flink.json, groups 2 of ``t`` and 6 of ``c``)."""
    op = operator(1, SUM, SCHEMA, OUT)
    open_operator(op, backend, tmp_path, config={"state.cache.max-entries": "0"})
    out = op.process_batch(_batch(SCHEMA, [(1, -0.0), (1, 0.0), (2, math.inf)]), 0)
    out += op.process_batch(_batch(SCHEMA, [(2, math.inf), (2, 1.5)], [DEL, INS]), 0)
    rows = changelog(out)
    assert [(k, key) for k, key, _ in rows] == [(INS, 1), (INS, 2), (DEL, 2), (INS, 2)]
    assert math.copysign(1, rows[0][2]) == -1, "the -0.0 emitted stays Flink's last row"
    assert rows[-1][2] == 1.5
