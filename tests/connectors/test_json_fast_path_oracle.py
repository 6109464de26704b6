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
from streamsql.connectors.formats.json import JsonDecoder

from streamsql.core.errors import BadRecordError
from streamsql.core.types import Field, Schema, SqlType

EXAMPLES = int(os.environ.get("STREAMSQL_FUZZ_EXAMPLES", "150"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    derandomize="STREAMSQL_FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COUNTS = {"fast": 0, "slow": 0}

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
        assert fast.to_pylist() == slow.table.to_pylist(), payloads


def test_the_oracle_exercised_the_fast_path():
    """The comparison above is void unless Arrow's reader took many of the batches."""
    assert COUNTS["fast"] >= EXAMPLES // 4, COUNTS
    print(f"[fuzz] json fast path oracle: {COUNTS}")
