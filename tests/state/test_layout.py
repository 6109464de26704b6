"""The state layout: key encoding, key groups, tags and the tagged value codec."""

from __future__ import annotations

import datetime as dt
import math
import zlib
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from streamsql.state import layout
from streamsql.state.exceptions import StateError
from streamsql.state.layout import (
    MAX_PARALLELISM,
    NULL_INT_KEY,
    SQL_VALUE,
    StateFormatError,
    ValueFormat,
    decode_value,
    encode_keys,
    encode_value,
    key_group,
    key_groups,
    with_key_groups,
)

# -- keys -----------------------------------------------------------------------------------------


def test_single_integer_key_is_8_bytes_big_endian_and_null_is_one_byte():
    keys = encode_keys([pa.array([1, None, -2, 2**62], pa.int64())])
    assert keys == [(1).to_bytes(8, "big"), NULL_INT_KEY, (-2).to_bytes(8, "big", signed=True),
                    (2**62).to_bytes(8, "big")]


@pytest.mark.parametrize("t", [pa.int8(), pa.int16(), pa.int32(), pa.uint8(), pa.uint32(), pa.uint64()])
def test_integer_widths_agree(t):
    values = [0, 5, None, 100]
    assert encode_keys([pa.array(values, t)]) == encode_keys([pa.array(values, pa.int64())])
    two = [pa.array([1, 2], t), pa.array(["a", "b"])]
    assert encode_keys(two) == encode_keys([pa.array([1, 2], pa.int64()), pa.array(["a", "b"])])


def test_no_key_columns():
    assert encode_keys([], num_rows=3) == [b"", b"", b""]
    with pytest.raises(ValueError):
        encode_keys([])


def test_chunked_sliced_and_dictionary_columns_encode_as_plain_ones():
    plain = pa.array(["x", None, "yy", "x"])
    expect = encode_keys([plain])
    assert encode_keys([pa.chunked_array([plain[:1], plain[1:]])]) == expect
    assert encode_keys([pa.array(["pad", "x", None, "yy", "x"])[1:]]) == expect
    assert encode_keys([plain.dictionary_encode()]) == expect
    ints = pa.array([7, None, 9, 10])
    expect = encode_keys([pa.array([None, 9, 10]), pa.array([None, "yy", "x"])])
    assert encode_keys([ints[1:], plain[1:]]) == expect


def test_timestamp_units_agree():
    ms = pa.array([0, 1500, None], pa.timestamp("ms"))
    us = pa.array([0, 1_500_000, None], pa.timestamp("us"))
    ns = pa.array([0, 1_500_000_000, None], pa.timestamp("ns"))
    assert encode_keys([ms]) == encode_keys([us]) == encode_keys([ns])
    assert len(set(encode_keys([pa.array([1, 2], pa.timestamp("ns"))]))) == 2


def test_doubles_follow_java_equality():
    # Flink keys a DOUBLE as Double.equals: -0.0 apart from 0.0, every NaN one key
    keys = encode_keys([pa.array([0.0, -0.0, float("nan"), -float("nan"), 1.5, None], pa.float64())])
    assert keys[0] != keys[1]
    assert keys[2] == keys[3]
    assert len({keys[0], keys[1], keys[2], keys[4], keys[5]}) == 5
    assert encode_keys([pa.array([1.5], pa.float32())]) == encode_keys([pa.array([1.5])])


def test_null_differs_from_every_value_of_the_column():
    for arr in (pa.array([None, 0], pa.int64()), pa.array([None, ""]), pa.array([None, b""]),
                pa.array([None, False]), pa.array([None, 0.0]), pa.array([None, Decimal("0")])):
        a, b = encode_keys([arr])
        assert a != b


def test_decimal_and_date_and_time_keys():
    dec = pa.array([Decimal("1.50"), Decimal("-1.50"), Decimal("1.5")], pa.decimal128(10, 2))
    k = encode_keys([dec])
    assert k[0] == k[2] and k[0] != k[1]
    dates = pa.array([dt.date(2024, 1, 1), dt.date(1969, 12, 31)], pa.date32())
    assert encode_keys([dates]) == encode_keys([dates.cast(pa.date64())])
    times = pa.array([dt.time(1, 2, 3)], pa.time64("us"))
    assert encode_keys([times]) == encode_keys([pa.array([3723_000], pa.time32("ms"))])


def test_null_slots_with_leftover_bytes_encode_as_null():
    t = pa.decimal128(10, 2)
    data = pa.py_buffer(np.array([7, 0, 9, 0], "<u8").tobytes())  # slot 0: bytes behind a NULL
    validity = pa.py_buffer(bytes([0b10]))
    dirty = pa.Array.from_buffers(t, 2, [validity, data])
    clean = pa.array([None, Decimal("0.09")], t)
    assert dirty.to_pylist() == clean.to_pylist()
    assert encode_keys([dirty]) == encode_keys([clean])
    for t, values in ((pa.string(), ["junk", "a"]), (pa.int64(), [5, 6])):
        dirty = pa.array(values, t)
        dirty = pa.Array.from_buffers(t, 2, [validity, *dirty.buffers()[1:]])
        assert encode_keys([dirty, dirty]) == encode_keys([pa.array([None, values[1]], t)] * 2)


def test_nested_keys_fall_back_to_the_value_codec():
    arr = pa.array([[1, 2], None, [1, 2], []], pa.list_(pa.int64()))
    k = encode_keys([arr])
    assert k[0] == k[2] and len(set(k)) == 3


_SCALARS = {
    "int": (st.integers(-(2**63), 2**63 - 1), pa.int64()),
    "str": (st.text(max_size=6), pa.string()),
    "bytes": (st.binary(max_size=6), pa.binary()),
    "bool": (st.booleans(), pa.bool_()),
    "float": (st.floats(width=64), pa.float64()),
    "date": (st.dates(), pa.date32()),
    "ts": (st.datetimes(min_value=dt.datetime(1, 1, 1)), pa.timestamp("us")),
    "dec": (st.decimals(min_value=-(10**6), max_value=10**6, places=3), pa.decimal128(12, 3)),
}


def _sql_key(row: tuple) -> tuple:
    """The SQL identity of a key: NaNs are equal, -0.0 == 0.0 (Python already), None == None."""
    return tuple("NaN" if isinstance(v, float) and math.isnan(v) else v for v in row)


@st.composite
def _key_table(draw):
    kinds = draw(st.lists(st.sampled_from(sorted(_SCALARS)), min_size=1, max_size=3))
    row = st.tuples(*[st.one_of(st.none(), _SCALARS[k][0]) for k in kinds])
    rows = draw(st.lists(row, max_size=25))
    rows += draw(st.lists(st.sampled_from(rows), max_size=5)) if rows else []  # repeated keys
    return kinds, rows


@settings(max_examples=200, deadline=None)
@given(_key_table())
def test_equal_keys_give_equal_bytes_and_distinct_keys_distinct_bytes(table):
    kinds, rows = table
    cols = [pa.array([r[i] for r in rows], _SCALARS[k][1]) for i, k in enumerate(kinds)]
    keys = encode_keys(cols, num_rows=len(rows))
    assert len(keys) == len(rows)
    by_key: dict[tuple, bytes] = {}
    for row, enc in zip(rows, keys):
        assert by_key.setdefault(_sql_key(row), enc) == enc
    assert len(set(by_key.values())) == len(by_key)
    # Row-at-a-time encoding gives the same bytes as the batch.
    if rows:
        assert encode_keys([c[len(rows) - 1:] for c in cols]) == keys[-1:]


# -- key groups -----------------------------------------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=30), max_size=20), st.integers(0, 30))
def test_key_groups_are_crc32_modulo_max_parallelism(keys, width):
    fixed = [k.ljust(width, b"\x00")[:width] for k in keys]
    for batch in (keys, fixed):
        expect = [zlib.crc32(k) % MAX_PARALLELISM for k in batch]
        assert key_groups(batch).tolist() == expect == [key_group(k) for k in batch]
        assert with_key_groups(batch) == [g.to_bytes(2, "big") + k for g, k in zip(expect, batch)]
    assert key_groups([]).dtype == np.uint16


# -- tags -----------------------------------------------------------------------------------------


def test_operator_wide_entries_are_outside_every_key_group():
    assert int.from_bytes(layout.OPERATOR_KG, "big") >= MAX_PARALLELISM
    assert layout.WATERMARK_KEY == b"\xff\xff\x00W"
    assert layout.SPLIT_KEY_PREFIX == b"\xff\xff\x00S"
    assert (layout.TIMER_TAG, layout.SLICE_TAG, layout.JOIN_LEFT, layout.JOIN_RIGHT) == (
        b"\x00T", b"\x00S", b"L", b"R")


# -- values ---------------------------------------------------------------------------------------

_UTC = dt.timezone.utc
_leaves = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(), st.binary(),
    st.decimals(allow_nan=False, allow_infinity=False), st.dates(), st.datetimes(),
    st.datetimes(timezones=st.just(_UTC)), st.times(), st.timedeltas(),
)
_hashable = st.recursive(_leaves, lambda inner: st.lists(inner, max_size=3).map(tuple), max_leaves=6)
_values = st.recursive(
    _leaves,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
                            st.dictionaries(_hashable, inner, max_size=3)),
    max_leaves=20,
)


def _typed(v):
    """``v`` with the type of every node, so that 1 == 1.0 == True and [] == () do not hide a change."""
    if isinstance(v, (list, tuple)):
        return type(v).__name__, [_typed(x) for x in v]
    if isinstance(v, dict):
        return "dict", [(_typed(k), _typed(x)) for k, x in v.items()]
    return type(v).__name__, v


@settings(max_examples=300, deadline=None)
@given(_values)
def test_value_round_trip_keeps_values_and_types(value):
    data = encode_value(value)
    assert data[:3] == SQL_VALUE.tag
    assert _typed(decode_value(data)) == _typed(value)


def test_special_values_round_trip():
    values = [2**200, -(2**100), Decimal("-0.000123"), Decimal("1E+30"), float("inf"),
              dt.datetime(2024, 5, 6, 7, 8, 9, 10, tzinfo=dt.timezone(dt.timedelta(hours=-3))),
              dt.datetime(1, 1, 1), dt.date(9999, 12, 31), dt.time(23, 59, 59, 999999),
              -dt.timedelta(days=3, microseconds=1), {(1, "a"): [1, 2], None: ()},
              np.int64(7), np.float32(0.5)]
    for v in values:
        assert decode_value(encode_value(v)) == v
    assert math.isnan(decode_value(encode_value(float("nan"))))


def test_no_pickle_for_other_objects():
    with pytest.raises(TypeError, match="not a SQL value"):
        encode_value(object())
    with pytest.raises(TypeError):
        encode_value({1, 2})


def test_a_value_of_another_format_is_refused_clearly():
    old = ValueFormat("test/rows", 1)
    new = ValueFormat("test/rows", 2)
    data = old.encode([1, 2])
    assert old.decode(data) == [1, 2]
    with pytest.raises(StateFormatError, match=r"expected 'test/rows' v2, found 'test/rows' v1.*snapshot"):
        new.decode(data)
    with pytest.raises(StateFormatError, match="unknown format"):
        new.decode(b"\x80\x04pickled")
    with pytest.raises(StateFormatError):
        new.unwrap(data)
    assert issubclass(StateFormatError, StateError)


def test_raw_payloads_are_tagged_too():
    fmt = ValueFormat("test/fixed-width", 1)
    payload = np.arange(4, dtype="<i8").tobytes()
    data = fmt.wrap(payload)
    assert bytes(fmt.unwrap(data)) == payload
    with pytest.raises(StateFormatError):
        SQL_VALUE.unwrap(data)


def test_formats_are_registered_once_per_tag():
    assert ValueFormat("test/rows", 1) == ValueFormat("test/rows", 1)  # declaring again is fine
    first = ValueFormat("test/collide", 1)
    other = ValueFormat("test/collide", 1)
    layout._FORMATS[first.tag] = ValueFormat("test/other", 7)  # simulate a crc collision
    try:
        with pytest.raises(StateError, match="have one tag"):
            ValueFormat("test/collide", 1)
    finally:
        layout._FORMATS[first.tag] = other


def test_subclasses_are_stored_as_their_sql_base_type():
    import enum
    from collections import namedtuple

    class Kind(enum.IntEnum):
        A = 3

    point = namedtuple("point", "x y")
    assert _typed(decode_value(encode_value([Kind.A, point(1, 2)]))) == _typed([3, (1, 2)])
    with pytest.raises(TypeError, match="time zone"):
        encode_value(dt.time(1, tzinfo=dt.timezone.utc))
