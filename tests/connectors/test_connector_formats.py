"""Formats: decode/encode round trips, exact decimals, bad records, debezium kinds."""

from __future__ import annotations

import datetime as dt
import sys
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from streamsql.connectors.formats import format_options, make_decoder, make_encoder, validate_format_options
from streamsql.connectors.kafka.formats import format_setup

from streamsql.core.elements import RowKind
from streamsql.core.errors import BadRecordError, ConfigError
from tests.connectors.helpers import schema_of, table_of

UTC = dt.timezone.utc


def rows(batch):
    return batch.table.to_pylist()


ALL = dict(
    id="BIGINT",
    name="STRING",
    price="DECIMAL(10, 2)",
    qty="INT",
    ts="TIMESTAMP(3)",
    lt="TIMESTAMP_LTZ(3)",
    day="DATE",
    ok="BOOLEAN",
    score="DOUBLE",
    f="FLOAT",
    small="TINYINT",
    raw="BYTES",
)


def sample_table():
    s = schema_of(**ALL)
    data = {
        "id": [1, 2, None],
        "name": ['a"b,c\nd', "é", None],
        "price": [Decimal("10.00"), Decimal("-0.05"), None],
        "qty": [7, -1, None],
        "ts": [dt.datetime(2024, 5, 1, 10, 0, 0, 1000), dt.datetime(1969, 12, 31, 23, 59, 59), None],
        "lt": [
            dt.datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
            dt.datetime(2024, 5, 1, 23, 0, 0, 999000, tzinfo=UTC),
            None,
        ],
        "day": [dt.date(2024, 5, 1), dt.date(1970, 1, 1), None],
        "ok": [True, False, None],
        "score": [123.456, 1e20, None],
        "f": [1.5, -2.25, None],
        "small": [127, -128, None],
        "raw": [b"\x00\xff", b"", None],
    }
    return s, pa.Table.from_pydict(data, schema=s.to_arrow())


# ---------------------------------------------------------------------------------------- json


def test_json_round_trip_all_types(loc):
    s, t = sample_table()
    enc = make_encoder("json", s, {})
    out = enc.encode(t)
    assert out[0].startswith(
        b'{"id":1,"name":"a\\"b,c\\nd","price":1E+1,"qty":7,"ts":"2024-05-01 10:00:00.001",'
        b'"lt":"2024-05-01 10:00:00Z","day":"2024-05-01","ok":true,'
    )
    assert out[2] == (
        b'{"id":null,"name":null,"price":null,"qty":null,"ts":null,"lt":null,"day":null,"ok":null,'
        b'"score":null,"f":null,"small":null,"raw":null}'
    )
    back = make_decoder("json", s, {}).decode(out, loc)
    assert back.table.equals(t)
    assert back.kinds is None


def test_json_exact_decimal_in_and_out(loc):
    s = schema_of(factor="DECIMAL(38, 18)", amount="DECIMAL(10, 6)")
    dec = make_decoder("json", s, {})
    b = dec.decode([b'{"factor": 799.929496989092949698, "amount": 10}'], loc)
    assert b.table.schema.field("factor").type == pa.decimal128(38, 18)
    assert rows(b) == [{"factor": Decimal("799.929496989092949698"), "amount": Decimal("10.000000")}]
    out = make_encoder("json", s, {}).encode(b.table)
    assert out == [b'{"factor":799.929496989092949698,"amount":1E+1}']  # Flink's stripTrailingZeros()
    plain = make_encoder("json", s, {"json.encode.decimal-as-plain-number": "true"}).encode(b.table)
    assert plain == [b'{"factor":799.929496989092949698,"amount":10.000000}']


def test_json_exact_decimal_on_slow_path(loc):
    # a number into a STRING column forces the per-record path; decimals must stay exact there too
    s = schema_of(factor="DECIMAL(38, 18)", label="STRING")
    b = make_decoder("json", s, {}).decode([b'{"factor": 799.929496989092949698, "label": 12.50}'], loc)
    assert rows(b) == [{"factor": Decimal("799.929496989092949698"), "label": "12.50"}]


def test_json_decimal_rounds_half_up_and_overflow_is_null(loc):
    s = schema_of(p="DECIMAL(5, 2)")
    dec = make_decoder("json", s, {})
    b = dec.decode([b'{"p": 1.235}', b'{"p": -1.235}', b'{"p": "2.5"}', b'{"p": 1234.5}'], loc)
    assert [r["p"] for r in rows(b)] == [Decimal("1.24"), Decimal("-1.24"), Decimal("2.50"), None]


def test_json_timestamps_dates_as_flinks_formatters(loc):
    # Flink 2.3 (compat cases kafka_json_timestamp_*): the SQL standard reads 'yyyy-MM-dd HH:mm:ss[.f]'
    # ('Z' after it for TIMESTAMP_LTZ) and nothing else: no 'T', no offset, no epoch number
    s = schema_of(ts="TIMESTAMP(3)", lt="TIMESTAMP_LTZ(3)", d="DATE")
    dec = make_decoder("json", s, {})
    vals = [
        b'{"ts": "2024-05-01 10:00:00.000", "lt": "2024-05-01 10:00:00Z", "d": "2024-05-01"}',
        b'{"ts": "2024-05-01 10:00:00.123456", "lt": "2024-05-01 10:00:00.000001Z", "d": null}',
    ]
    r = rows(dec.decode(vals, loc))
    assert r[0] == {
        "ts": dt.datetime(2024, 5, 1, 10),
        "lt": dt.datetime(2024, 5, 1, 10, tzinfo=UTC),
        "d": dt.date(2024, 5, 1),
    }
    assert r[1]["ts"] == dt.datetime(2024, 5, 1, 10, 0, 0, 123000) and r[1]["lt"] == r[0]["lt"]
    for bad in (b'{"lt": "2024-05-01T10:00:00Z"}', b'{"lt": "2024-05-01 12:00:00+02:00"}',
                b'{"lt": "2024-05-01 10:00:00"}', b'{"ts": 1714557600000}'):
        with pytest.raises(BadRecordError, match=r"topic\[2\]@1234: field '(ts|lt)': cannot convert"):
            make_decoder("json", s, {}).decode([bad], loc)
    lenient = make_decoder("json", s, {"json.ignore-parse-errors": "true"})
    offset = b'{"ts": "2024-05-01 10:00:00+01:00", "lt": "2024-05-01T10:00:00Z"}'
    assert rows(lenient.decode([offset], loc)) == [{"ts": None, "lt": None, "d": None}]  # never 09:00
    iso = make_decoder("json", s, {"json.timestamp-format.standard": "ISO-8601"})
    assert rows(iso.decode([b'{"ts": "2024-05-01T10:00", "lt": "2024-05-01T10:00:00.5Z"}'], loc)) == [
        {"ts": dt.datetime(2024, 5, 1, 10), "lt": dt.datetime(2024, 5, 1, 10, 0, 0, 500000, tzinfo=UTC),
         "d": None}
    ]


def test_json_lenient_kinds_follow_flink(loc):
    s = schema_of(n="INT", x="DOUBLE", s="STRING", b="BOOLEAN")
    r = rows(
        make_decoder("json", s, {}).decode(
            [b'{"n": "12", "x": "1.5", "s": {"a": [1, 2.50]}, "b": "true"}'], loc
        )
    )
    # a container's numbers as Jackson's tree writes them: 2.50 is the double 2.5 (compat case
    # kafka_json_container_into_string_numbers)
    assert r == [{"n": 12, "x": 1.5, "s": '{"a":[1,2.5]}', "b": True}]


def test_json_missing_and_extra_fields_and_tombstones(loc):
    s = schema_of(a="INT", b="STRING")
    dec = make_decoder("json", s, {})
    b = dec.decode([b'{"a": 1, "zzz": {"deep": [1]}}', None, b'{"b": "x"}', None], loc)
    assert rows(b) == [{"a": 1, "b": None}, {"a": None, "b": "x"}]
    assert dec.tombstones == 2 and dec.skipped == 0
    assert dec.source_index.tolist() == [0, 2]


def test_json_fail_on_missing_field(loc):
    s = schema_of(a="INT", b="STRING")
    dec = make_decoder("json", s, {"json.fail-on-missing-field": "true"})
    assert rows(dec.decode([b'{"a": 1, "b": null}'], loc)) == [{"a": 1, "b": None}]  # explicit null is fine
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235.*field 'b' is missing"):
        dec.decode([b'{"a": 1, "b": "x"}', b'{"a": 2}'], loc)


def test_json_bad_record_error_names_location_reason_excerpt(loc):
    s = schema_of(a="INT", b="STRING")
    dec = make_decoder("json", s, {})
    with pytest.raises(BadRecordError) as e:
        dec.decode([b'{"a": 1}', b'{"a": 2}', b'{"a": "x' + b"y" * 500 + b'"}'], loc)
    msg = str(e.value)
    assert "topic[2]@1236" in msg and "field 'a'" in msg and "INT" in msg
    assert '{"a": "xyyy' in msg and len(msg) < 400
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1234: invalid JSON"):
        dec.decode([b'{"a": 1'], loc)


def test_json_out_of_range_error_names_the_number_as_written(loc):
    """A huge number is named by its text (Jackson's getText): it was the double's integer (300
    digits for 1e300, and 99999999999999991611392 for 99999999999999999999999)."""
    dec = make_decoder("json", schema_of(a="INT", b="BIGINT"), {})
    huge = b"99999999999999999999999"  # parsed as a double: named as Java prints it (the excerpt follows)
    cases = ((b"1e300", "1.0E300", "a"), (huge, "1.0E23", "a"), (b"-1.5E19", "-1.5E19", "b"))
    for text, shown, field in cases:
        payload = b'{"a": 1, "b": 2}'.replace(b'1' if field == "a" else b'2', text, 1)
        with pytest.raises(BadRecordError) as e:
            dec.decode([payload], loc)
        assert f"topic[2]@1234: field '{field}': {shown} is out of range for " in str(e.value)
        assert len(str(e.value)) < 400


def test_json_ignore_parse_errors_skips_and_counts(loc):
    s = schema_of(a="INT", b="STRING")
    dec = make_decoder("json", s, {"json.ignore-parse-errors": "true"})
    vals = [b'{"a": 1}', b"not json", b'{"a": 99999999999}', b"[1, 2]", b"", b'{"a": 1}{"a": 2}', b'{"a": 3}']
    b = dec.decode(vals, loc)
    # out of range for INT: NULL, the row kept; an empty payload no row; the first of two objects
    # a row (Flink 2.3: compat cases kafka_json_garbage_ignored, kafka_json_concatenated)
    assert [r["a"] for r in rows(b)] == [1, None, 1, 3]
    assert (dec.skipped, dec.tombstones) == (2, 1)
    assert dec.source_index.tolist() == [0, 2, 5, 6]


def test_json_newlines_inside_payloads(loc):
    s = schema_of(a="INT", b="STRING")
    b = make_decoder("json", s, {}).decode([b'{\n  "a": 1,\r\n  "b": "x\\ny"\n}', b'{"a": 2}'], loc)
    assert rows(b) == [{"a": 1, "b": "x\ny"}, {"a": 2, "b": None}]


def test_json_config_errors():
    s = schema_of(a="INT")
    with pytest.raises(ConfigError, match="both"):
        make_decoder("json", s, {"json.ignore-parse-errors": "true", "json.fail-on-missing-field": "true"})
    with pytest.raises(ConfigError, match=r"Table 'orders'.*'json\.ignore-parse-error'.*supported"):
        make_decoder("json", s, {"json.ignore-parse-error": "true"}, table="orders")
    with pytest.raises(ConfigError, match="'json.fail-on-missing-field' = 'yes'"):
        validate_format_options("json", {"json.fail-on-missing-field": "yes"})
    with pytest.raises(ConfigError, match="unknown format 'protobuf'.*csv.*json"):
        make_decoder("protobuf", s, {})
    assert "json.ignore-parse-errors" in [o.key for o in format_options("json")]


def test_json_decode_10k_is_vectorized(loc):
    s = schema_of(
        id="BIGINT",
        name="STRING",
        price="DECIMAL(10, 2)",
        qty="INT",
        ts="TIMESTAMP(3)",
        ok="BOOLEAN",
        score="DOUBLE",
    )
    vals = [
        (
            f'{{"id":{i},"name":"user_{i % 100}","price":{i % 9999}.{i % 100:02d},"qty":{i % 50},'
            f'"ts":"2024-05-01 10:00:{i % 60:02d}.{i % 1000:03d}","ok":{"true" if i % 2 else "false"},'
            f'"score":{i / 7}}}'
        ).encode()
        for i in range(10_000)
    ]
    dec = make_decoder("json", s, {})
    dec.decode(vals, loc)
    # Count Python-level calls instead of timing (a timed assertion flakes under load): a
    # per-record path makes at least one Python call per record, the vectorized one a few hundred.
    calls = 0

    def hook(frame, event, arg):
        nonlocal calls
        calls += event == "call"

    sys.setprofile(hook)
    try:
        b = dec.decode(vals, loc)
    finally:
        sys.setprofile(None)
    assert b.num_rows == 10_000 and rows(b)[123]["price"] == Decimal("123.23")
    assert calls < 2_000, f"10k JSON records made {calls} Python calls: decoding is per-record"


# ---------------------------------------------------------------------------------------- csv


def test_csv_round_trip_with_quoting(loc):
    s, t = sample_table()
    enc = make_encoder("csv", s, {})
    out = enc.encode(t)
    # as Flink 2.3's csv format writes them (json_encode_flink.json, cases csv_*): DECIMAL stripped
    # (1E+1), timestamps without trailing fraction zeros and quoted (a space), Java's float text
    assert out[0] == (
        b'1,"a""b,c\nd",1E+1,7,"2024-05-01 10:00:00.001","2024-05-01 10:00:00Z",2024-05-01,true,'
        b"123.456,1.5,127,AP8="
    )
    assert out[2] == b",,,,,,,,,,,"
    back = make_decoder("csv", s, {}).decode(out[:2], loc)
    assert back.table.equals(t.slice(0, 2))
    # Flink reads an empty field as the text "" (compat case kafka_csv_empty_fields_ignored): no
    # BIGINT, so the row of NULLs written with the default null literal does not read back
    with pytest.raises(BadRecordError, match=r"field 'id': cannot convert '' to BIGINT"):
        make_decoder("csv", s, {}).decode(out[2:], loc)
    back = make_decoder("csv", s, {"csv.ignore-parse-errors": "true"}).decode(out[2:], loc)
    assert back.table.to_pylist() == [{**dict.fromkeys(s.names), "name": "", "ok": False, "raw": b""}]


def test_csv_options_delimiter_null_literal_quote(loc):
    s = schema_of(a="INT", b="STRING", c="DECIMAL(38, 18)")
    opts = {"csv.field-delimiter": "|", "csv.null-literal": "N/A", "csv.quote-character": "'"}
    dec = make_decoder("csv", s, opts)
    b = dec.decode([b"1|'x|y'|799.929496989092949698", b"N/A|N/A|N/A", b"3||1"], loc)
    assert rows(b) == [
        {"a": 1, "b": "x|y", "c": Decimal("799.929496989092949698")},
        {"a": None, "b": None, "c": None},
        {"a": 3, "b": "", "c": Decimal(1)},
    ]
    out = make_encoder("csv", s, opts).encode(b.table)
    assert out == [b"1|'x|y'|799.929496989092949698", b"N/A|N/A|N/A", b"3||1"]  # DECIMAL stripped, as Flink


def test_csv_bad_records(loc):
    s = schema_of(a="INT", b="STRING")
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235.*2 fields expected but was 3.*record: 2,x,y"):
        make_decoder("csv", s, {}).decode([b"1,a", b"2,x,y"], loc)
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1234.*field 'a'.*'abc'.*INT"):
        make_decoder("csv", s, {}).decode([b"abc,a"], loc)
    dec = make_decoder("csv", s, {"csv.ignore-parse-errors": "true"})
    b = dec.decode([b"1,a", b"2,x,y", b"zz,q", None, b"4,d", b"5"], loc)
    # Flink: too many fields skips the record; a value that does not convert and missing trailing
    # fields are NULL, the row kept
    assert rows(b) == [{"a": 1, "b": "a"}, {"a": None, "b": "q"}, {"a": 4, "b": "d"}, {"a": 5, "b": None}]
    assert (dec.skipped, dec.tombstones, dec.source_index.tolist()) == (1, 1, [0, 2, 4, 5])


def test_csv_allow_comments_and_tab(loc):
    s = schema_of(a="INT", b="STRING")
    dec = make_decoder("csv", s, {"csv.allow-comments": "true", "csv.field-delimiter": "\\t"})
    assert rows(dec.decode([b"# header\n1\tx", b" 2\tx"], loc)) == [{"a": 1, "b": "x"}, {"a": 2, "b": "x"}]
    # a message of comments only: Flink 2.3 fails it (No content to map), or skips it (compat cases
    # kafka_csv_comment_only_fails, kafka_csv_comments_skipped)
    with pytest.raises(BadRecordError, match=r"@1234: no content"):
        dec.decode([b"# header", b"1\tx"], loc)
    lenient = make_decoder("csv", s, {"csv.allow-comments": "true", "csv.field-delimiter": "\\t",
                                      "csv.ignore-parse-errors": "true"})
    assert rows(lenient.decode([b"# header", b"1\tx"], loc)) == [{"a": 1, "b": "x"}]
    assert lenient.skipped == 1
    with pytest.raises(ConfigError, match="'csv.field-delimiter' must be a single character"):
        make_decoder("csv", s, {"csv.field-delimiter": ";;"})


# ---------------------------------------------------------------------------------------- raw


def test_raw_string_bytes_charset(loc):
    s = schema_of(line="STRING")
    dec = make_decoder("raw", s, {})
    b = dec.decode([b"hello, world", None, "é".encode(), b"\xff"], loc)
    assert [r["line"] for r in rows(b)] == ["hello, world", None, "é", "\ufffd"]
    assert make_encoder("raw", s, {}).encode(pa.table({"line": ["é", None]})) == ["é".encode(), None]
    latin = make_decoder("raw", s, {"raw.charset": "ISO-8859-1"})
    assert rows(latin.decode([b"\xe9"], loc)) == [{"line": "é"}]
    assert make_encoder("raw", s, {"raw.charset": "ISO-8859-1"}).encode(pa.table({"line": ["é"]})) == [
        b"\xe9"
    ]
    bs = schema_of(payload="BYTES")
    assert rows(make_decoder("raw", bs, {}).decode([b"\x00\x01"], loc)) == [{"payload": b"\x00\x01"}]
    with pytest.raises(ConfigError, match="exactly one physical column"):
        make_decoder("raw", schema_of(a="STRING", b="STRING"), {})
    with pytest.raises(ConfigError, match="'raw.charset' = 'nope'"):
        make_decoder("raw", s, {"raw.charset": "nope"})


# ---------------------------------------------------------------------------------------- debezium


DBZ = [
    b'{"before": null, "after": {"id": 1, "price": 10.5, "name": "a"}, "op": "c"}',
    b'{"before": null, "after": {"id": 2, "price": 799.929496989092949698, "name": "b"}, "op": "r"}',
    None,
    b'{"before": {"id": 1, "price": 10.5, "name": "a"}, '
    b'"after": {"id": 1, "price": 11, "name": "a2"}, "op": "u"}',
    b'{"before": {"id": 2, "price": 1, "name": "b"}, "after": null, "op": "d"}',
]


def test_debezium_kinds_and_order(loc):
    s = schema_of(id="INT", price="DECIMAL(38, 18)", name="STRING")
    dec = make_decoder("debezium-json", s, {})
    b = dec.decode(DBZ, loc)
    assert b.kinds.dtype == np.int8
    assert [RowKind(k).short for k in b.kinds] == ["+I", "+I", "-U", "+U", "-D"]
    assert [(r["id"], r["name"]) for r in rows(b)] == [(1, "a"), (2, "b"), (1, "a"), (1, "a2"), (2, "b")]
    assert rows(b)[1]["price"] == Decimal("799.929496989092949698")
    assert dec.source_index.tolist() == [0, 1, 3, 3, 4]
    assert dec.tombstones == 1 and dec.changelog


def test_debezium_slow_path_matches_fast_path(loc):
    s = schema_of(id="INT", price="DECIMAL(38, 18)", name="STRING")
    fast = make_decoder("debezium-json", s, {}).decode(DBZ, loc)
    # a number into the STRING column forces the per-record path for the batch
    odd = DBZ + [b'{"before": null, "after": {"id": 3, "price": 0.1, "name": 42}, "op": "c"}']
    dec = make_decoder("debezium-json", s, {})
    slow = dec.decode(odd, loc)
    assert slow.table.slice(0, 5).equals(fast.table)
    assert slow.kinds.tolist() == fast.kinds.tolist() + [0]
    assert rows(slow)[5] == {"id": 3, "price": Decimal("0.1"), "name": "42"}


def test_debezium_bad_events(loc):
    s = schema_of(id="INT")
    dec = make_decoder("debezium-json", s, {})
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235.*unknown \"op\" value 'x'"):
        dec.decode([b'{"after": {"id": 1}, "op": "c"}', b'{"after": {"id": 1}, "op": "x"}'], loc)
    with pytest.raises(BadRecordError, match="REPLICA IDENTITY"):
        dec.decode([b'{"before": null, "after": {"id": 1}, "op": "u"}'], loc)
    ign = make_decoder("debezium-json", s, {"debezium-json.ignore-parse-errors": "true"})
    b = ign.decode([b'{"after": {"id": 1}, "op": "x"}', b"garbage", b'{"before": {"id": 5}, "op": "d"}'], loc)
    assert rows(b) == [{"id": 5}] and b.kinds.tolist() == [RowKind.DELETE] and ign.skipped == 2


def test_debezium_schema_include_and_encode(loc):
    s = schema_of(id="INT", v="DECIMAL(10, 2)")
    dec = make_decoder("debezium-json", s, {"debezium-json.schema-include": "true"})
    b = dec.decode(
        [
            b'{"schema": {"type": "struct"}, '
            b'"payload": {"before": null, "after": {"id": 1, "v": 2.5}, "op": "c"}}'
        ],
        loc,
    )
    assert rows(b) == [{"id": 1, "v": Decimal("2.50")}]
    enc = make_encoder("debezium-json", s, {})
    t = pa.table({"id": [1, 1], "v": pa.array([Decimal("1.00"), Decimal("2.00")], pa.decimal128(10, 2))})
    out = enc.encode(t, np.array([RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER], np.int8))
    assert out == [
        b'{"before":{"id":1,"v":1},"after":null,"op":"d"}',
        b'{"before":null,"after":{"id":1,"v":2},"op":"c"}',
    ]
    back = make_decoder("debezium-json", s, {}).decode(out, loc)
    assert back.kinds.tolist() == [RowKind.DELETE, RowKind.INSERT]


# ---------------------------------------------------------------------------------------- large batches


def _big(n):
    return [f'{{"id": {i}, "v": {i}.5, "s": "r{i}"}}'.encode() for i in range(n)]


def test_large_batch_bad_records_are_bisected_in_order(loc):
    s = schema_of(id="INT", v="DECIMAL(10, 1)", s="STRING")
    vals = _big(30_000)  # > 1 MiB: Arrow reads it in several blocks
    vals[12_345] = b'{"id": "oops"}'
    vals[29_999] = b"{"
    dec = make_decoder("json", s, {"json.ignore-parse-errors": "true"})
    b = dec.decode(vals, loc)
    ids = b.table.column("id").to_pylist()
    assert ids == [None if i == 12_345 else i for i in range(29_999)]  # "oops" into INT: NULL (Flink)
    assert b.table.column("v").to_pylist()[:2] == [Decimal("0.5"), Decimal("1.5")]
    assert dec.skipped == 1
    assert dec.source_index.tolist() == list(range(29_999))
    with pytest.raises(BadRecordError, match=r"topic\[2\]@13579:"):  # 1234 + 12345: the first bad one
        make_decoder("json", s, {}).decode(vals, loc)


def test_large_batch_lenient_record_keeps_everything(loc):
    s = schema_of(id="INT", v="DECIMAL(10, 1)", s="STRING")
    vals = _big(5000)
    vals[4000] = b'{"id": 4000, "v": "4000.5", "s": 4000}'  # number into STRING: slow path for its range
    b = make_decoder("json", s, {}).decode(vals, loc)
    assert b.table.column("s").to_pylist() == [f"r{i}" if i != 4000 else "4000" for i in range(5000)]


def test_large_debezium_and_csv_batches_with_bad_records(loc):
    s = schema_of(id="INT")
    vals = [f'{{"before": null, "after": {{"id": {i}}}, "op": "c"}}'.encode() for i in range(3000)]
    vals[1500] = b'{"before": null, "after": {"id": "x"}, "op": "c"}'  # "x" into INT: NULL (Flink)
    vals[1700] = b'{"before": null, "after": {"id": 1700}'  # not JSON: skipped
    dec = make_decoder("debezium-json", s, {"debezium-json.ignore-parse-errors": "true"})
    b = dec.decode(vals, loc)
    assert b.table.column("id").to_pylist() == [None if i == 1500 else i for i in range(3000) if i != 1700]
    assert b.kinds.tolist() == [0] * 2999 and dec.skipped == 1
    csv_vals = [f"{i},x".encode() for i in range(3000)]
    csv_vals[10] = b"1,2,3"
    cdec = make_decoder("csv", schema_of(id="INT", s="STRING"), {"csv.ignore-parse-errors": "true"})
    assert cdec.decode(csv_vals, loc).num_rows == 2999 and cdec.skipped == 1


def test_json_timestamp_precision_and_iso_standard():
    s = schema_of(t0="TIMESTAMP(0)", t6="TIMESTAMP(6)", lt="TIMESTAMP_LTZ(3)")
    t = pa.Table.from_pydict(
        {
            "t0": [dt.datetime(2024, 5, 1, 10, 0, 1, 999000)],
            "t6": [dt.datetime(2024, 5, 1, 10, 0, 0, 123456)],
            "lt": [dt.datetime(2024, 5, 1, 10, tzinfo=UTC)],
        },
        schema=s.to_arrow(),
    )
    assert make_encoder("json", s, {}).encode(t) == [
        b'{"t0":"2024-05-01 10:00:01","t6":"2024-05-01 10:00:00.123456","lt":"2024-05-01 10:00:00Z"}'
    ]
    iso = make_encoder("json", s, {"json.timestamp-format.standard": "ISO-8601"}).encode(t)
    assert iso == [
        b'{"t0":"2024-05-01T10:00:01","t6":"2024-05-01T10:00:00.123456","lt":"2024-05-01T10:00:00Z"}'
    ]


def test_an_unknown_option_names_the_closest_known_one(tmp_path):
    """A misspelt connector or format option says which key was meant (newcomer finding)."""
    from streamsql import StreamEnvironment

    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")})
    env.execute_sql("CREATE TABLE t (a INT) WITH ('connector' = 'datagen', 'number-of-rowz' = '1')")
    env.execute_sql("CREATE TABLE o (a INT) WITH ('connector' = 'print')")
    with pytest.raises(ConfigError, match="unknown option 'number-of-rowz'.*did you mean 'number-of-rows'"):
        env.execute_sql("INSERT INTO o SELECT a FROM t")
    env.close()


def test_a_bad_record_error_names_the_option_that_skips_it(loc):
    """The failure a newcomer sees first says how to skip such records, with the DDL's key."""
    s = schema_of(a="INT", b="STRING")
    for fmt, bad in [("json", b'{"a": 1'), ("csv", b"abc,a"), ("debezium-json", b'{"op": "x"}')]:
        with pytest.raises(BadRecordError) as e:
            make_decoder(fmt, s, {}).decode([bad], loc)
        assert (f"; with '{fmt}.ignore-parse-errors' = 'true' a value that does not convert is NULL (the row "
                "kept) and a record that does not parse is skipped; record: ") in str(e.value)
    # not for json.fail-on-missing-field, which cannot be combined with ignore-parse-errors
    with pytest.raises(BadRecordError) as e:
        make_decoder("json", s, {"json.fail-on-missing-field": "true"}).decode([b'{"a": 2}'], loc)
    assert "ignore-parse-errors" not in str(e.value)


def test_a_kafka_key_formats_bad_record_names_the_key_option(loc):
    table = table_of("t", {"connector": "upsert-kafka", "key.format": "json", "value.format": "json"},
                     k="STRING", v="INT")
    table.primary_key = ["k"]
    _, kdec = format_setup(table, ["k"]).make_decoders(table)
    with pytest.raises(BadRecordError, match=r"'key\.json\.ignore-parse-errors' = 'true' a value that "
                                               r"does not convert is NULL"):
        kdec.decode([b'{"k": '], loc)
