"""A floating SUM/AVG's batch fold with numpy is the row-by-row addition, bit for bit.

Flink adds a SUM's (and an AVG's) values one at a time in arrival order, in DOUBLE (SUM of FLOAT
in FLOAT): ``Sum.fold`` does it in a Python loop over each key's value list, ``Sum.fold_columns``
with ``np.add.at`` (unbuffered, index order). Both must give the same bits, NaN, the infinities
and -0.0 included, from accumulators empty or not.
"""

from __future__ import annotations

import struct

import numpy as np
import pyarrow as pa
import pytest

from streamsql.core.types import SqlType
from streamsql.functions.aggregates import AggSpec, Avg, Sum

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 1e308, -1e308, 5e-324]


def _call(cls, arrow_type: pa.DataType):
    name = "FLOAT" if arrow_type == pa.float32() else "DOUBLE"
    return cls(0, AggSpec(cls.func, 0, SqlType(name)), '"x"', arrow_type, arrow_type, "s", "GROUP BY")


def _partials(rng, keys: int, arrow_type: pa.DataType) -> tuple[pa.Array, pa.Array]:
    """Per key: a signed count and its list of values (some empty, some NULL lists)."""
    lists = []
    for _ in range(keys):
        n = int(rng.integers(0, 12))
        vals = rng.normal(0, 1e3, n)
        special = rng.random(n) < 0.2
        vals[special] = rng.choice(SPECIAL, int(special.sum()))
        with np.errstate(over="ignore"):  # 1e308 as FLOAT: Infinity
            vals = vals.astype(np.float32 if arrow_type == pa.float32() else np.float64)
        lists.append(None if n == 0 and rng.random() < 0.5 else [float(v) for v in vals])
    counts = pa.array([len(v or ()) for v in lists], pa.int64())
    return counts, pa.array(lists, pa.list_(pa.float64()))


def _bits(acc: list) -> tuple:
    s, n = acc
    return (None if s is None else ("NaN" if s != s else struct.pack(">d", s))), n


@pytest.mark.parametrize("cls", [Sum, Avg])
@pytest.mark.parametrize("arrow_type", [pa.float64(), pa.float32()])
def test_numpy_fold_is_the_python_loop_bit_for_bit(cls, arrow_type):
    rng = np.random.default_rng(30)
    call = _call(cls, arrow_type)
    loop = [[call.create()] for _ in range(200)]
    vect = [[call.create()] for _ in range(200)]
    for _ in range(5):  # batches over the same accumulators: the sums carried over start each key
        counts, lists = _partials(rng, 200, arrow_type)
        call.fold(loop, 0, [counts.to_pylist(), lists.to_pylist()])
        call.fold_columns(vect, 0, [pa.chunked_array([counts]), pa.chunked_array([lists])])
    assert [_bits(a[0]) for a in vect] == [_bits(a[0]) for a in loop]
    assert any(a[0][0] is not None and a[0][0] != a[0][0] for a in loop), "NaN was covered"


def test_a_lone_minus_zero_sums_to_minus_zero_and_averages_to_zero():
    """As Flink: SUM starts NULL and takes -0.0 as is; AVG sums from 0 (0.0 + -0.0 = 0.0)."""
    for cls, sign in ((Sum, -1.0), (Avg, 1.0)):
        call = _call(cls, pa.float64())
        acc = [call.create()]
        call.fold_columns([acc], 0, [pa.chunked_array([pa.array([1])]),
                                     pa.chunked_array([pa.array([[-0.0]])])])
        assert np.copysign(1.0, acc[0][0]) == sign


def test_decimal_sum_adds_exactly_past_28_digits():
    """A DECIMAL(38, 0) SUM folded row by row keeps every digit: Python's default decimal context
    rounds to 28 digits (a difference-fuzz case, SUM(CAST(b AS DECIMAL(38, 0)) * b * b), gave
    ...089000000 where Flink gave ...088850728 once the batch took the row-by-row fold)."""
    from decimal import Decimal

    t = pa.decimal128(38, 0)
    call = Sum(0, AggSpec("sum", 0, SqlType("DECIMAL", 38, 0)), '"x"', t, t, "s", "GROUP BY")
    a, b = Decimal("1881681285337851695957261088000000"), Decimal("850728")
    acc = [a, 1]
    call.fold([[acc]], 0, [[1], [b]])
    assert acc[0] == Decimal("1881681285337851695957261088850728")
