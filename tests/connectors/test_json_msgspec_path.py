"""The JSON decoder's msgspec fast path gives the existing decoder's rows, types and errors.

:mod:`streamsql.connectors.formats.json_msgspec` decodes flat batches with msgspec before Arrow's
reader; a batch it cannot decode exactly as Flink's JSON format goes on to the existing paths
(Arrow's reader, then per record: what the compat cases check against Flink 2.3). The property
test decodes random batches of random flat schemas twice, with the msgspec path and without it
(``_msg = None``: the decoder as before), and asks for the same table or the same error: values of
the right and wrong JSON kinds, out-of-range integers, absent, repeated, extra and escaped field
names, whitespace around colons, strings starting with ``:`` or a space, invalid UTF-8, ``NaN``,
trailing text, several objects in one message, empty messages and non-objects; some decoders
narrowed to some columns (Q2's shape), some with ``'json.ignore-parse-errors'``.
"""

from __future__ import annotations

import base64
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamsql.connectors.formats.json import JsonDecoder
from streamsql.connectors.formats.json_msgspec import MsgspecReader, one_key_per_column

from streamsql.core.errors import BadRecordError
from streamsql.core.types import Field, Schema, SqlType

EXAMPLES = int(os.environ.get("STREAMSQL_FUZZ_EXAMPLES", "300"))
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, database=None,
                    derandomize="STREAMSQL_FUZZ_EXAMPLES" not in os.environ,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COUNTS = {"msgspec": 0, "other": 0}

_TYPES = ["BIGINT", "INT", "SMALLINT", "TINYINT", "BOOLEAN", "STRING", "TIMESTAMP(3)", "TIMESTAMP_LTZ(3)",
          "DATE", "TIME(0)", "BYTES", "DOUBLE"]

_ANY = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6), st.sampled_from([":x", " x", "a\"b", "é", "\\", "2024-05-01 10:00:00.123"]),
)


def _good(t: SqlType) -> st.SearchStrategy:
    """A value of the column's JSON kind (mostly one Flink reads)."""
    return {
        "BIGINT": st.integers(-(2**63), 2**63 - 1), "INT": st.integers(-(2**31), 2**31 - 1),
        "SMALLINT": st.integers(-(2**15), 2**15), "TINYINT": st.integers(-130, 130),
        "BOOLEAN": st.booleans(), "STRING": st.text(max_size=8),
        "TIMESTAMP": st.datetimes().map(lambda d: d.isoformat(" ")[:23]).flatmap(
            lambda s: st.sampled_from([s, s[:19], s.replace(" ", "T"), s[:10], s + "+01:00"])),
        "TIMESTAMP_LTZ": st.datetimes().map(lambda d: d.isoformat(" ")[:23] + "Z"),
        "DATE": st.dates().map(str) | st.just("2024-02-30"),
        "TIME": st.times().map(lambda t: t.isoformat()[:12]) | st.just("25:00:00"),
        "BYTES": st.binary(max_size=6).map(lambda b: base64.b64encode(b).decode()) | st.just("%%"),
        "DOUBLE": st.floats(allow_nan=False, allow_infinity=False),
    }[t.name]


def _text(v) -> str:
    return json.dumps(v, ensure_ascii=False)


@st.composite
def _record(draw, schema: Schema) -> bytes:
    """One message: the columns' fields, then nasty edits now and then."""
    pairs = []
    for f in schema:
        v = draw(st.one_of(_good(f.type), _good(f.type), st.none(), _ANY))
        pairs.append((f.name, _text(v)))
    edit = draw(st.sampled_from(["none"] * 8 + [
        "drop", "repeat", "extra", "space_colon", "escape_key", "nested", "array_value", "big_exponent",
        "trailing", "two_objects", "empty", "blank", "null", "array", "nan", "bad_utf8", "leading_ws",
        "shuffle", "bom", "control", "lone_surrogate"]))
    i = draw(st.integers(0, len(pairs) - 1))
    if edit == "drop":
        del pairs[i]
    elif edit == "repeat":
        pairs.insert(draw(st.integers(0, len(pairs))), (pairs[i][0], _text(draw(_ANY))))
    elif edit == "extra":
        pairs.insert(draw(st.integers(0, len(pairs))), ("zz", _text(draw(_ANY))))
    elif edit == "nested":
        pairs[i] = (pairs[i][0], '{"' + schema.fields[0].name + '":1}')
    elif edit == "array_value":
        pairs[i] = (pairs[i][0], "[1,2]")
    elif edit == "big_exponent":
        odd = ["1e3", "1.0", "-0", "1E400", "00", "-", "12345678901234567890"]
        pairs[i] = (pairs[i][0], draw(st.sampled_from(odd)))
    elif edit == "shuffle":
        pairs = draw(st.permutations(pairs))
    body = ",".join(
        ('"\\u00' + format(ord(n[0]), "02x") + n[1:] + '"' if edit == "escape_key" and j == i else _text(n))
        + (" : " if edit == "space_colon" and j == i else ":") + v
        for j, (n, v) in enumerate(pairs))
    text = "{" + body + "}"
    out = {
        "trailing": text + " x", "two_objects": text + text, "empty": "", "blank": "  ", "null": "null",
        "array": "[" + text + "]", "nan": text.replace(":", ":NaN,\"q\":", 1) if pairs else text,
        "leading_ws": " \t" + text + " ", "bom": "\ufeff" + text,
        "control": text.replace('":', '\x01":', 1), "lone_surrogate": text[:-1] + ',"s":"\\ud800"}',
    }.get(edit, text).encode()
    if edit == "bad_utf8":
        out = out[:-1] + b',"b":"\xff\xfe"}'
    return out


@st.composite
def _cases(draw):
    texts = draw(st.lists(st.sampled_from(_TYPES), min_size=1, max_size=4)) + ["STRING"]
    schema = Schema([Field(f"c{i}", SqlType.parse(t)) for i, t in enumerate(texts)])
    records = draw(st.lists(_record(schema), min_size=1, max_size=6))
    # the path is a narrowed decoder's: mostly the last column (a STRING) unread
    names = [f.name for f in schema]
    read = draw(st.sets(st.sampled_from(names[:-1]), min_size=1)
                | st.sets(st.sampled_from(names), min_size=1))
    ignore = draw(st.sampled_from([False, False, True]))
    return schema, records, read, ignore


def _decoder(schema: Schema, read, ignore: bool, msgspec: bool) -> JsonDecoder:
    d = JsonDecoder(schema, {"json.ignore-parse-errors": "true"} if ignore else {})
    d.narrow(frozenset((n,) for n in read))
    if not msgspec:
        d._msg = None
    return d


def _outcome(d: JsonDecoder, records: list[bytes]):
    try:
        b = d.decode(records, lambda i: f"offset {i}")
    except BadRecordError as e:
        return "error", str(e)
    rows = [{k: repr(v) for k, v in r.items()} for r in b.table.to_pylist()]
    return str(b.table.schema), rows, list(d.source_index), d.skipped, d.tombstones


@SETTINGS
@given(_cases())
def test_the_msgspec_path_gives_the_existing_decoders_outcome(case):
    schema, records, read, ignore = case
    new = _decoder(schema, read, ignore, True)
    took = new._msg is not None and new._msg.read(records) is not None
    COUNTS["msgspec" if took else "other"] += 1
    assert _outcome(new, records) == _outcome(_decoder(schema, read, ignore, False), records), records


def test_the_property_test_reaches_both_paths():
    """Run after the property test in this module: both outcomes of the msgspec path were drawn."""
    if not COUNTS["msgspec"] + COUNTS["other"]:
        pytest.skip("run with the property test")
    assert COUNTS["msgspec"] >= 20 and COUNTS["other"] >= 20, COUNTS


BIDS = Schema([Field(n, SqlType.parse(t)) for n, t in [
    ("auction", "BIGINT"), ("bidder", "BIGINT"), ("price", "BIGINT"), ("channel", "STRING"),
    ("url", "STRING"), ("date_time", "TIMESTAMP(3)"), ("extra", "STRING")]])
Q2 = {"auction", "price", "date_time"}
BID = (b'{"auction":1000,"bidder":90161,"price":3387054,"channel":"Facebook","url":"https://x/y?a=1",'
       b'"date_time":"2023-11-14 22:13:20.000","extra":"xx"}')


@pytest.mark.parametrize("read", [Q2, {"auction"}])
def test_benchmark_bids_take_the_msgspec_path(read):
    d = _decoder(BIDS, read, False, True)
    records = [BID, BID.replace(b"1000", b"1001").replace(b'"xx"', b"null")]
    assert d._msg.read(records) is not None
    assert _outcome(d, records) == _outcome(_decoder(BIDS, read, False, False), records)
    assert d._msg is not None  # still on


def test_a_decoder_of_every_column_keeps_arrows_path():
    """For all columns msgspec cost more than Arrow's reader (benchmarks/README.md, session 32)."""
    assert JsonDecoder(BIDS, {})._msg is None
    assert _decoder(BIDS, {f.name for f in BIDS}, False, True)._msg is None


@pytest.mark.parametrize("edit", [
    lambda r: r.replace(b'"bidder":90161,', b""),  # absent
    lambda r: r.replace(b'"bidder":90161,', b'"bidder":90161,"bidder":1,'),  # repeated
    lambda r: r.replace(b'"extra":"xx"', b'"extra":"xx","more":1'),  # outside the table
    lambda r: r.replace(b'"price":', b'"price" :'),  # not counted by ":
    lambda r: r.replace(b'"xx"', b'"x\\u0078"'),  # an escape
    lambda r: r.replace(b'"xx"', b'"\xc3\xa9"'),  # non-ASCII but valid: taken
    lambda r: r.replace(b"90161", b"9e4"),  # a number with an exponent into a BIGINT
    lambda r: r.replace(b'"xx"', b"12"),  # a number into an unread STRING (Flink's text): taken
    lambda r: r.replace(b'"xx"', b"[1,[2]]"),  # an array into an unread STRING: taken
    lambda r: r.replace(b'"2023-11-14 22:13:20.000"', b"1700000000000"),  # a number into a TIMESTAMP
])
def test_batches_the_path_does_not_take_go_on_with_the_same_rows(edit):
    records = [BID, edit(BID)]
    d = _decoder(BIDS, Q2, False, True)
    taken = d._msg.read(records) is not None
    assert taken == (b"\xc3" in records[1] or b'"extra":12' in records[1] or b"[1,[2]]" in records[1])
    assert _outcome(d, records) == _outcome(_decoder(BIDS, Q2, False, False), records)


def test_invalid_utf8_in_an_unread_string_is_a_bad_record_as_before():
    """msgspec checks the syntax of an unread STRING (``Raw``) but not its UTF-8: the batch check does."""
    records = [BID, BID.replace(b'"xx"', b'"x\xff"')]
    d = _decoder(BIDS, Q2, False, True)
    assert d._msg.read(records) is None
    outcome = _outcome(d, records)
    assert outcome[0] == "error" and outcome == _outcome(_decoder(BIDS, Q2, False, False), records)


@pytest.mark.parametrize("ignore", [False, True])
@pytest.mark.parametrize("depth", [999, 5000])
def test_nesting_past_msgspecs_limit_in_an_unread_string_goes_on_as_before(depth, ignore):
    """msgspec raises RecursionError (not a DecodeError) for ~1000 levels in a ``Raw`` field: that
    batch is the other paths' (break32: it was a traceback out of decode())."""
    records = [BID, BID.replace(b'"xx"', b"[" * depth + b"]" * depth)]
    d = _decoder(BIDS, Q2, ignore, True)
    assert d._msg.read(records) is None
    assert _outcome(d, records) == _outcome(_decoder(BIDS, Q2, ignore, False), records)


def test_a_batch_arrow_takes_and_msgspec_does_not_turns_msgspec_off():
    d = _decoder(BIDS, Q2, False, True)
    d.decode([BID, BID.replace(b'"bidder":90161,', b"")], str)  # an absent field: Arrow's path
    assert d._msg is None
    d = _decoder(BIDS, Q2, False, True)
    d.decode([BID, BID.replace(b"90161", b"9.5")], str)  # a bad record: per record, msgspec stays
    assert d._msg is not None


def test_one_key_per_column_counts_key_ends():
    assert one_key_per_column(b'{"a":1,"b":"x"}\n{"a":2,"b":"y"}', 4)
    assert not one_key_per_column(b'{"a":1,"b":":x"}', 2)  # a string starting with ':' counts
    assert not one_key_per_column(b'{"a" :1,"b":"x","b":"y"}', 2)  # a space before the colon
    assert not one_key_per_column(b'{"a":1,"b":" x"}', 2)


def test_types_outside_the_path_leave_it_off():
    for t in ("DECIMAL(10, 2)", "DOUBLE", "ROW<a INT>"):
        schema = Schema([Field("x", SqlType.parse(t)), Field("s", SqlType.parse("STRING"))])
        assert _decoder(schema, {"x"}, False, True)._msg is None
    d = JsonDecoder(BIDS, {"json.fail-on-missing-field": "true"})
    d.narrow(frozenset((n,) for n in Q2))
    assert d._msg is None
    assert MsgspecReader.takes(BIDS)
