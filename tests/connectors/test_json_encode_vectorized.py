"""The vectorized JSON encoder writes exactly the bytes of the per-row reference encoder."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import orjson
import pyarrow as pa
import pytest
from streamsql.connectors.formats import json_encode as J
from streamsql.connectors.kafka.native import payload_list

from tests.connectors.helpers import schema_of

UTC = dt.timezone.utc

SCHEMA = schema_of(
    id="BIGINT",
    name="STRING",
    price="DECIMAL(10, 2)",
    tiny="DECIMAL(20, 10)",
    qty="INT",
    small="TINYINT",
    ts="TIMESTAMP(3)",
    ts0="TIMESTAMP(0)",
    ts6="TIMESTAMP(6)",
    lt="TIMESTAMP_LTZ(3)",
    day="DATE",
    ok="BOOLEAN",
    score="DOUBLE",
    f="FLOAT",
    raw="BYTES",
)

NAMES = [
    "plain",
    "",
    'quo"te',
    "back\\slash",
    "nl\nand\ttab\r",
    "ctl\x00\x01\x1f\x7f",
    "unicode é ☃ 𝄞 \u2028 \u2029",
    "/slash",
    None,
    "a,b:c{}[]",
]
DOUBLES = [0.1, 1e20, 1e-7, 100.0, -0.0, float("nan"), float("inf"), 123456789.123, None, 2.5e300]


def varied_table() -> pa.Table:
    n = len(NAMES)
    ts = dt.datetime(2024, 5, 1, 10, 0, 0, 123456)
    cols = {
        "id": [i if i != 3 else None for i in range(n)],
        "name": NAMES,
        "price": [Decimal("10.00"), Decimal("-0.01"), None, Decimal("12345678.99")]
        + [Decimal(i) for i in range(6)],
        "tiny": [Decimal("0.0000000001"), Decimal("1E-8"), Decimal("0"), None] + [Decimal("1.5")] * 6,
        "qty": [1, -2, None, 2**31 - 1, -(2**31), 0, 5, 6, 7, 8],
        "small": [1, None, -128, 127, 0, 1, 2, 3, 4, 5],
        "ts": [ts, None] + [ts + dt.timedelta(days=i * 400) for i in range(8)],
        "ts0": [ts] * 9 + [None],
        "ts6": [None] + [ts] * 9,
        "lt": [ts.replace(tzinfo=UTC)] * 5 + [None] * 5,
        "day": [dt.date(2024, 5, 1), None] + [dt.date(1970 + i, 1, 2) for i in range(8)],
        "ok": [True, False, None] * 3 + [True],
        "score": DOUBLES,
        "f": [0.1, None, 1e20, 3.0, float("nan"), -1.5, 0.0, 7.25, 1e-7, 2.0],
        "raw": [b"\x00\xff", None, b"", b"abc"] * 2 + [b"x", b"y"],
    }
    return pa.Table.from_pydict(cols, schema=SCHEMA.to_arrow())


@pytest.mark.parametrize("iso", [False, True])
def test_vectorized_matches_rows(iso):
    opts = {"json.timestamp-format.standard": "ISO-8601"} if iso else {}
    t = varied_table()
    ref = J.encode_rows(t, SCHEMA, opts)
    got = J.encode_vectorized(t, SCHEMA, opts)
    assert got == ref
    assert J.JsonEncoder(SCHEMA, opts).encode(t) == ref
    assert payload_list(J.JsonEncoder(SCHEMA, opts).encode_array(t)) == ref  # what a batch produce sends
    for p in got:
        orjson.loads(p)  # valid JSON


def test_vectorized_chunked_sliced_and_strings_only():
    t = varied_table()
    chunked = pa.concat_tables([t.slice(0, 3), t.slice(3, 4), t.slice(7)])
    assert J.encode_vectorized(chunked, SCHEMA, {}) == J.encode_rows(t, SCHEMA, {})
    part = t.slice(2, 5)
    assert J.encode_vectorized(part, SCHEMA, {}) == J.encode_rows(part, SCHEMA, {})
    s = schema_of(**{'we"ird': "STRING", "é": "DOUBLE"})
    st = pa.table({'we"ird': NAMES, "é": DOUBLES}, schema=s.to_arrow())
    assert J.encode_vectorized(st, s, {}) == J.encode_rows(st, s, {})
    clean = st.slice(0, 2)  # no character to escape: the vectorized-only path
    assert J.encode_vectorized(clean, s, {}) == J.encode_rows(clean, s, {})


def test_vectorized_all_null_and_empty():
    t = pa.table({n: pa.nulls(4, f.type.to_arrow()) for n, f in zip(SCHEMA.names, SCHEMA.fields)})
    assert J.encode_vectorized(t, SCHEMA, {}) == J.encode_rows(t, SCHEMA, {})
    enc = J.JsonEncoder(SCHEMA, {})
    assert enc.encode(t.slice(0, 0)) == []
    empty = schema_of()
    assert J.JsonEncoder(empty, {}).encode(pa.table({"x": [1, 2]}).select([])) == [b"{}", b"{}"]
    assert enc.encode_array(t.slice(0, 0)) is None  # no array: the sink encodes row by row
    assert J.JsonEncoder(empty, {}).encode_array(pa.table({"x": [1, 2]}).select([])) is None


def test_fallback_on_repeated_names():
    s = schema_of(a="INT")
    s.fields.append(s.fields[0])
    t = pa.Table.from_arrays([pa.array([1, 2], pa.int32())] * 2, names=["a", "a"])
    enc = J.JsonEncoder(s, {})
    assert enc.encode(t) == J.encode_rows(t, s, {}) == [b'{"a":1}', b'{"a":2}']


@pytest.mark.parametrize("iso", [False, True])
def test_vectorized_null_free_columns(iso):
    """Columns without NULLs take the path that puts the quotes into the join's separators."""
    opts = {"json.timestamp-format.standard": "ISO-8601"} if iso else {}
    t = varied_table()
    for f, col in zip(SCHEMA.fields, t.columns):
        s = schema_of(**{f.name: f.type.sql()})
        one = pa.table({f.name: col.drop_null()})
        assert one.column(0).null_count == 0
        assert J.encode_vectorized(one, s, opts) == J.encode_rows(one, s, opts), f.name
    both = pa.table({"a": t.column("ts").drop_null(), "b": t.column("day").drop_null()})
    s = schema_of(a="TIMESTAMP(3)", b="DATE")
    assert J.encode_vectorized(both, s, opts) == J.encode_rows(both, s, opts)
