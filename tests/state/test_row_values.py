"""encode_rows: the vectorized values decode to exactly what the per-row msgpack encoding decodes to.

The reference is Arrow's own ``to_pylist`` of each row, encoded by :meth:`ValueFormat.encode`
(the per-row path every operator used) and decoded; the vectorized bytes must decode to the
same Python values, type for type (datetime with or without tzinfo, int, float, str, bytes).
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest

from streamsql.runtime.operators.join_state import JOIN_ROW, rows_of
from streamsql.state.layout import SQL_VALUE
from streamsql.state.row_values import encode_rows

UTC = dt.timezone.utc


def _same(a, b) -> bool:
    """Equal values of equal types (NaN equal to NaN)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, dt.datetime):
        return a == b and a.tzinfo == b.tzinfo
    return a == b


def _check(table: pa.Table, fmt=JOIN_ROW) -> None:
    n = table.num_rows
    lead = [np.arange(n, dtype=np.int64) - 3, np.full(n, 2**40, np.int64)]
    values = encode_rows(fmt, lead, table)
    assert values is not None
    assert len(values) == n
    for i, (v, row) in enumerate(zip(values, rows_of(table))):
        expected = fmt.decode(fmt.encode([int(lead[0][i]), int(lead[1][i]), *row]))
        got = fmt.decode(v)
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            assert _same(g, e), (i, g, e)


def test_numbers_booleans_and_nulls():
    _check(pa.table({
        "i8": pa.array([-128, 127, None, 0, 5], pa.int8()),
        "i32": pa.array([None, -2**31, 2**31 - 1, 7, -1], pa.int32()),
        "i64": pa.array([-2**63, 2**63 - 1, 0, None, 31], pa.int64()),
        "u64": pa.array([2**64 - 1, 0, None, 2**63, 9], pa.uint64()),
        "u8": pa.array([255, 0, 1, None, 128], pa.uint8()),
        "f32": pa.array([1.5, None, float("nan"), -0.0, 3.4e38], pa.float32()),
        "f64": pa.array([-0.0, 1e-300, float("inf"), float("nan"), None], pa.float64()),
        "b": pa.array([True, False, None, True, False]),
    }))


def test_strings_and_binaries_of_every_header_length():
    texts = ["", "a", "x" * 31, "y" * 32, "é" * 100, "z" * 255, "w" * 256, "v" * 65535, "u" * 65536, None,
             "日本語"]
    _check(pa.table({
        "s": pa.array(texts, pa.string()),
        "ls": pa.array(texts, pa.large_string()),
        "bin": pa.array([t.encode() if t is not None else None for t in texts], pa.binary()),
        "lbin": pa.array([t.encode() if t is not None else None for t in reversed(texts)], pa.large_binary()),
    }))


def test_dictionary_and_chunked_columns():
    chunked = pa.chunked_array([pa.array(["a", None]), pa.array(["bb"])])
    dictionary = pa.array(["p", "q", "p"]).dictionary_encode()
    _check(pa.table({"c": chunked, "d": dictionary}))


@pytest.mark.parametrize("unit", ["s", "ms", "us"])
@pytest.mark.parametrize("tz", [None, "UTC"])
def test_timestamps_before_and_after_the_epoch(unit, tz):
    stamps = [dt.datetime(1970, 1, 1), dt.datetime(1969, 12, 31, 23, 59, 59), dt.datetime(1, 1, 1),
              dt.datetime(9999, 12, 31, 23, 59, 59), dt.datetime(2024, 2, 29, 12, 34, 56, 789000),
              dt.datetime(1900, 3, 1, 0, 0, 1), dt.datetime(2000, 12, 31, 23, 59, 58, 999000)]
    if unit == "us":
        stamps.append(dt.datetime(1969, 12, 31, 23, 59, 59, 999999))
    if tz is not None:
        stamps = [s.replace(tzinfo=UTC) for s in stamps]
    _check(pa.table({"t": pa.array(stamps + [None], pa.timestamp(unit, tz))}))


def test_dates():
    dates = [dt.date(1970, 1, 1), dt.date(1969, 12, 31), dt.date(1, 1, 1), dt.date(9999, 12, 31), None,
             dt.date(2024, 2, 29)]
    _check(pa.table({"d": pa.array(dates, pa.date32())}))


def test_many_columns_take_an_array16_header():
    _check(pa.table({f"c{i}": pa.array([i, None, -i], pa.int64()) for i in range(20)}))


def test_another_format_keeps_its_tag():
    _check(pa.table({"x": [1, 2]}), fmt=SQL_VALUE)


@pytest.mark.parametrize("array", [
    pa.array([Decimal("1.5")], pa.decimal128(5, 2)),
    pa.array([dt.datetime(2024, 1, 1)], pa.timestamp("ns")),
    pa.array([dt.datetime(2024, 1, 1)], pa.timestamp("ms", "Europe/Berlin")),
    pa.array([dt.time(1, 2)], pa.time64("us")),
    pa.array([[1, 2]], pa.list_(pa.int64())),
    pa.array([{"a": 1}]),
], ids=["decimal", "ns", "berlin", "time", "list", "struct"])
def test_other_types_are_left_to_the_per_row_path(array):
    assert encode_rows(JOIN_ROW, [], pa.table({"x": array})) is None
