"""The JSON decoder's batch fast path gives the per-record path's rows, at any nesting.

The per-record path (orjson + :mod:`streamsql.connectors.formats.convert`) applies Flink's
conversions value by value and is what the compat cases check against Flink 2.3; the fast path
(Arrow's reader + :func:`~streamsql.connectors.formats.common.fix_types`) must either give the
same rows or give up (the caller then goes per record). Random schemas of ROW and ARRAY columns
over every scalar type, random values written as a producer would (odd forms included: extra
fraction digits, numbers with exponents, base64 of any bytes, NULL at every level, absent
fields, timestamp and date text Flink does not read): each batch the fast path accepts is
compared with the per-record decode, and a batch the per-record path fails must not be accepted.

Found with it: a BYTES inside a ROW or ARRAY was read as its base64 text's bytes by the fast
path (compat case ``json_nested_bytes``).
"""

from __future__ import annotations

import base64
import json
import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamsql.connectors.formats.common import try_fast
from streamsql.connectors.formats.csv import CsvDecoder
from streamsql.connectors.formats.json import JsonDecoder

from streamsql.core.errors import BadRecordError
from streamsql.core.types import Field, Schema, SqlType

EXAMPLES = int(os.environ.get("STREAMSQL_FUZZ_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    derandomize="STREAMSQL_FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COUNTS = {"fast": 0, "slow": 0, "csv fast": 0, "csv slow": 0}

_SCALARS = ["BIGINT", "INT", "DOUBLE", "DECIMAL(7, 2)", "BOOLEAN", "STRING", "TIMESTAMP(3)",
            "TIMESTAMP(0)", "TIMESTAMP_LTZ(3)", "DATE", "BYTES"]


def _type_text(depth: int = 0) -> st.SearchStrategy[str]:
    scalar = st.sampled_from(_SCALARS)
    if depth >= 2:
        return scalar
    row = st.lists(_type_text(depth + 1), min_size=1, max_size=3).map(
        lambda ts: "ROW<" + ", ".join(f"f{i} {t}" for i, t in enumerate(ts)) + ">")
    array = _type_text(depth + 1).map(lambda t: f"ARRAY<{t}>")
    return st.one_of(scalar, scalar, row, array)


def _value(t: SqlType) -> st.SearchStrategy:
    """A JSON value for a column of type ``t``: mostly convertible, NULL anywhere."""
    n = t.name
    if n == "ROW":
        fields = {name: _value(c) for name, c in t.fields}
        present = st.fixed_dictionaries({}, optional=fields)  # absent fields: NULL (not failing)
        return st.none() | present
    if n == "ARRAY":
        return st.none() | st.lists(_value(t.children[0]), max_size=3)
    base = {
        "BIGINT": st.integers(-(2**63), 2**63 - 1),
        "INT": st.integers(-(2**31), 2**31 - 1),
        "DOUBLE": st.floats(allow_nan=False, allow_infinity=False) | st.integers(-10**6, 10**6),
        "DECIMAL": st.decimals(min_value=-99999, max_value=99999, places=4, allow_nan=False).map(float)
        | st.integers(-99999, 99999),
        "BOOLEAN": st.booleans(),
        "STRING": st.text(max_size=8),
        "TIMESTAMP": st.datetimes().map(lambda d: d.isoformat(" ")).flatmap(
            lambda s: st.sampled_from([s, s[:19], s[:19] + ".5", s[:23], s[:19] + ".1234567",
                                       s.replace(" ", "T"), s[:19] + "+01:00", s[:10]])),
        "TIMESTAMP_LTZ": st.datetimes().map(lambda d: d.isoformat(" ")[:23] + "Z"),
        "DATE": st.dates().map(str) | st.sampled_from(["2024-02-30", "2024-1-5", "20240105"]),
        "BYTES": st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()),
    }[n]
    return st.none() | base


@st.composite
def _batches(draw):
    texts = draw(st.lists(_type_text(), min_size=1, max_size=3))
    schema = Schema([Field(f"c{i}", SqlType.parse(t)) for i, t in enumerate(texts)])
    records = draw(st.lists(st.fixed_dictionaries({f.name: _value(f.type) for f in schema}),
                            min_size=1, max_size=6))
    return schema, [json.dumps(r, separators=(",", ":")).encode() for r in records]


def _canon(v):
    """``v`` with floats as their repr (NaN equal to NaN, -0.0 unequal to 0.0), containers walked."""
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, dict):
        return {k: _canon(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_canon(x) for x in v]
    return v


@SETTINGS
@given(_batches())
def test_the_fast_path_gives_the_per_record_rows(batch):
    schema, payloads = batch
    decoder = JsonDecoder(schema, {})
    fast = try_fast(decoder._fast, payloads)
    COUNTS["fast" if fast is not None else "slow"] += 1
    try:
        slow, _ = decoder._slow(payloads, list(range(len(payloads))), 0, len(payloads), str)
    except BadRecordError:  # a value Flink does not read: the fast path must not have read it
        assert fast is None, (payloads, fast.to_pylist())
        return
    if fast is not None:
        assert _canon(fast.to_pylist()) == _canon(slow.table.to_pylist()), payloads


# -- CSV: the same comparison over flat rows of text fields --------------------------------------

_CSV_TYPES = ["BIGINT", "INT", "TINYINT", "DOUBLE", "DECIMAL(7, 2)", "BOOLEAN", "STRING", "TIMESTAMP(3)",
              "TIMESTAMP_LTZ(3)", "DATE", "BYTES"]
_ODD_TEXT = ["", " ", "null", "NULL", "1e3", "+5", "-0", " 7", "7 ", "0x10", "NaN", "Infinity", "true",
             "TRUE", "yes", "1.5", "1.005", "99999999999999999999", "2024-02-30", "2024-01-01T10:00:00",
             "2024-01-01 10:00:00.1234", "2024-01-01 10:00:00Z", "AAAA", "===", "é", "a,b", 'q"uote']


def _csv_text(t: SqlType) -> st.SearchStrategy[str]:
    base = {
        "BIGINT": st.integers(-(2**63), 2**63 - 1).map(str), "INT": st.integers(-(2**31), 2**31 - 1).map(str),
        "TINYINT": st.integers(-200, 200).map(str),
        "DOUBLE": st.floats(allow_nan=False, allow_infinity=False).map(repr),
        "DECIMAL": st.decimals(min_value=-99999, max_value=99999, places=3, allow_nan=False).map(str),
        "BOOLEAN": st.sampled_from(["true", "false"]), "STRING": st.text(max_size=6),
        "TIMESTAMP": st.datetimes().map(lambda d: d.isoformat(" ")[:23]),
        "TIMESTAMP_LTZ": st.datetimes().map(lambda d: d.isoformat(" ")[:23] + "Z"),
        "DATE": st.dates().map(str),
        "BYTES": st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()),
    }[t.name]
    return base | st.sampled_from(_ODD_TEXT)


def _csv_field(text: str, quote: bool) -> str:
    if quote or any(c in text for c in ',"\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


@st.composite
def _csv_batches(draw):
    texts = draw(st.lists(st.sampled_from(_CSV_TYPES), min_size=1, max_size=4))
    schema = Schema([Field(f"c{i}", SqlType.parse(t)) for i, t in enumerate(texts)])
    rows = draw(st.lists(st.tuples(*[st.tuples(_csv_text(f.type), st.booleans()) for f in schema]),
                         min_size=1, max_size=6))
    payloads = [",".join(_csv_field(text, q) for text, q in row).encode() for row in rows]
    options = draw(st.sampled_from([{}, {"csv.null-literal": "null"}, {"csv.ignore-parse-errors": "true"}]))
    return schema, payloads, options


@SETTINGS
@given(_csv_batches())
def test_the_csv_fast_path_gives_the_per_record_rows(batch):
    schema, payloads, options = batch
    decoder = CsvDecoder(schema, options)
    fast = try_fast(decoder._fast, payloads)
    COUNTS["csv fast" if fast is not None else "csv slow"] += 1
    try:
        slow, _ = decoder._slow(payloads, list(range(len(payloads))), 0, len(payloads), str)
    except BadRecordError:
        assert fast is None, (payloads, fast.to_pylist())
        return
    if fast is not None:
        assert _canon(fast.to_pylist()) == _canon(slow.table.to_pylist()), payloads


def test_the_oracle_exercised_the_fast_path():
    """The comparison above is void unless Arrow's reader took many of the batches."""
    assert COUNTS["fast"] >= EXAMPLES // 4 and COUNTS["csv fast"] >= EXAMPLES // 10, COUNTS
    print(f"[fuzz] json fast path oracle: {COUNTS}")
