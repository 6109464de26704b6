"""Garbage into the canal-json, maxwell-json, ogg-json and avro decoders (break36).

As :mod:`tests.connectors.test_decoder_fuzz` does for json, csv, raw and debezium-json:
hypothesis feeds each format envelopes with unknown or missing types, ``data`` / ``old`` /
``before`` / ``after`` of the wrong kind, rows of wrong types, truncated and not-UTF-8 messages,
empty messages and tombstones, and (avro) random bytes and datums of another schema, truncated
or with bytes after them:

- with ``'<format>.ignore-parse-errors'`` every message is decoded or skipped and counted;
- without it (and for avro, which has no such option in Flink) a batch decodes or fails with
  :class:`~streamsql.core.errors.BadRecordError` naming the record (``topic[partition]@offset``);
- never anything else.

The avro values a datum holds but its column cannot (an ``int`` into TINYINT, a ``decimal`` of
more digits than the column's precision) are read as Flink's ``AvroToRowDataConverters``:
Java's ``Integer.byteValue()`` / ``shortValue()``, and ``DecimalData.fromUnscaledBytes``'s NULL.
"""

from __future__ import annotations

import io
import json
from decimal import Decimal

import fastavro
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.formats.avro import _plain, avro_schema

from streamsql.core.errors import BadRecordError
from tests.connectors.helpers import schema_of
from tests.connectors.test_decoder_fuzz import (
    COLUMNS,
    FUZZ,
    _check_decode,
    _corrupt,
    edge,
    json_objects,
    json_values,
)

IGNORE = {f: f"{f}.ignore-parse-errors" for f in ("canal-json", "maxwell-json", "ogg-json")}
rows = json_objects().map(lambda b: b.decode("utf-8", "replace"))
anything = json_values.map(json.dumps)


@st.composite
def canal_messages(draw) -> bytes:
    """A Canal message: any type (DDL, unknown, missing), ``data`` / ``old`` arrays or not."""
    kind = draw(st.sampled_from(['"INSERT"', '"UPDATE"', '"DELETE"', '"CREATE"', '"ALTER"', '"insert"',
                                 "null", "1"]))
    data = draw(st.one_of(st.lists(rows, max_size=3).map(lambda r: f"[{', '.join(r)}]"), anything))
    old = draw(st.one_of(st.lists(rows, max_size=3).map(lambda r: f"[{', '.join(r)}]"), anything))
    parts = [f'"type": {kind}', f'"data": {data}', f'"old": {old}', f'"database": {draw(anything)}',
             f'"ts": {draw(anything)}']
    return "{" + ", ".join(draw(st.permutations(parts))[:draw(st.integers(0, 5))]) + "}"


@st.composite
def maxwell_messages(draw) -> bytes:
    """A Maxwell message: any type (bootstrap events, unknown), ``data`` / ``old`` objects or not."""
    kind = draw(st.sampled_from(['"insert"', '"update"', '"delete"', '"bootstrap-start"', '"INSERT"',
                                 "null"]))
    parts = [f'"type": {kind}', f'"data": {draw(st.one_of(rows, anything))}',
             f'"old": {draw(st.one_of(rows, anything))}', f'"ts": {draw(anything)}']
    return "{" + ", ".join(draw(st.permutations(parts))[:draw(st.integers(0, 4))]) + "}"


@st.composite
def ogg_messages(draw) -> bytes:
    """A GoldenGate message: any ``op_type`` (truncate, unknown), images missing or of the wrong kind."""
    op = draw(st.sampled_from(['"I"', '"U"', '"D"', '"T"', '"i"', "null", "1"]))
    parts = [f'"op_type": {op}', f'"before": {draw(st.one_of(rows, anything))}',
             f'"after": {draw(st.one_of(rows, anything))}', f'"op_ts": {draw(anything)}']
    return "{" + ", ".join(draw(st.permutations(parts))[:draw(st.integers(0, 4))]) + "}"


MESSAGES = {"canal-json": canal_messages(), "maxwell-json": maxwell_messages(), "ogg-json": ogg_messages()}


def _garbled(messages):
    """Messages as bytes, some truncated or with bytes that are not UTF-8, among edge cases."""
    text = messages.map(str.encode)
    cut = st.builds(lambda m, n: m[: n % (len(m) + 1)], text, st.integers(0, 10**6))
    junk = st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80"])
    bad_utf8 = st.builds(_corrupt, text, st.integers(0, 10**6), junk)
    return st.lists(st.one_of(text, text, cut, bad_utf8, edge, st.binary(max_size=60)), min_size=1,
                    max_size=8)


@pytest.mark.parametrize("lenient", [True, False], ids=["ignore-parse-errors", "strict"])
@pytest.mark.parametrize("fmt", sorted(MESSAGES))
@FUZZ
@given(data=st.data())
def test_changelog_formats_never_crash(fmt, lenient, data):
    """Every message decoded, skipped and counted (lenient) or named (strict); nothing else raised."""
    values = data.draw(_garbled(MESSAGES[fmt]))
    decoder = make_decoder(fmt, schema_of(**COLUMNS), {IGNORE[fmt]: "true"} if lenient else {}, "fuzz")
    _check_decode(decoder, values, lenient, True)


AVRO_COLUMNS = {"i": "INT", "n": "TINYINT", "sm": "SMALLINT", "b": "BIGINT", "d": "DOUBLE", "f": "FLOAT",
                "m": "DECIMAL(10, 2)", "s": "STRING", "y": "BYTES", "t": "BOOLEAN", "ts": "TIMESTAMP(3)",
                "dt": "DATE", "tm": "TIME(3)", "a": "ARRAY<INT>", "mp": "MAP<STRING, BIGINT>"}
#: Another table's schema: its datums read as garbage, or fail, under :data:`AVRO_COLUMNS`.
OTHER_COLUMNS = {"x": "BIGINT", "s": "STRING", "z": "ARRAY<STRING>"}


def _datum(columns: dict[str, str], record: dict) -> bytes:
    buf = io.BytesIO()
    fastavro.schemaless_writer(buf, fastavro.parse_schema(_plain(avro_schema(schema_of(**columns)))), record)
    return buf.getvalue()


others = st.fixed_dictionaries({"x": st.integers(-2**63, 2**63 - 1), "s": st.text(max_size=20),
                                "z": st.lists(st.text(max_size=5), max_size=4)}).map(
    lambda r: _datum(OTHER_COLUMNS, r))
ints = st.integers(-2**31, 2**31 - 1)
ours = st.fixed_dictionaries(
    {"i": ints, "n": ints, "sm": ints, "b": st.integers(-2**63, 2**63 - 1), "m": st.binary(max_size=12),
     "s": st.text(max_size=10), "dt": ints, "tm": ints, "ts": st.integers(-2**63, 2**63 - 1)}).map(
    lambda r: _datum(AVRO_COLUMNS, r))
avro_batches = st.lists(st.one_of(
    st.binary(max_size=80), others, ours, st.builds(lambda m, n: m[: n % (len(m) + 1)], ours, st.integers()),
    st.builds(lambda m, junk: m + junk, ours, st.binary(min_size=1, max_size=3)), st.just(b""), st.none()),
    min_size=1, max_size=8)


@FUZZ
@given(values=avro_batches)
@example(values=[_datum(AVRO_COLUMNS, {"m": b""})])  # a decimal of zero bytes: Java's BigInteger fails
def test_avro_never_crashes(values):
    """Every datum decodes, or the batch fails naming the record (Flink's avro format has no skip option)."""
    _check_decode(make_decoder("avro", schema_of(**AVRO_COLUMNS), {}, "fuzz"), values, False, False)


def test_avro_narrows_ints_and_nulls_overlong_decimals_as_flink(loc):
    """An ``int`` datum into TINYINT / SMALLINT keeps its low bits (Java's ``byteValue()`` /
    ``shortValue()``, as Flink's ``AvroToRowDataConverters``); a ``decimal`` of more digits than the
    column's precision is NULL (``DecimalData.fromUnscaledBytes``); one of zero bytes fails, named."""
    columns = {"n": "TINYINT", "sm": "SMALLINT", "m": "DECIMAL(5, 2)"}
    decoder = make_decoder("avro", schema_of(**columns), {}, "t")
    values = [_datum(columns, {"n": 2**31 - 1, "sm": 40_000, "m": (10**6).to_bytes(4, "big")}),
              _datum(columns, {"n": 200, "sm": -32_769, "m": (-99_999).to_bytes(4, "big", signed=True)})]
    got = decoder.decode(values, loc).table.to_pylist()
    assert got == [{"n": -1, "sm": -25_536, "m": None}, {"n": -56, "sm": 32_767, "m": Decimal("-999.99")}]
    with pytest.raises(BadRecordError, match=r"at topic\[2\]@1235: .*zero bytes"):
        decoder.decode([values[0], _datum(columns, {"m": b""})], loc)
