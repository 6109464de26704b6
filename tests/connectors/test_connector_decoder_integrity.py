"""Decoder integrity: the vectorized fast path never merges, drops or mislabels records.

Regressions: several JSON values in one payload balanced by an empty payload (3 payloads → 3 rows,
offsets shifted); line breaks inside CSV Kafka messages merging messages; invalid UTF-8 copied
through into string columns; a top-level JSON ``null`` (crashes Arrow's reader when it comes first);
whitespace-only lines in files; control bytes in bad-record excerpts.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.formats.common import bad_record
from streamsql.connectors.formats.convert import excerpt

from streamsql.core.errors import BadRecordError
from tests.connectors.helpers import schema_of
from tests.connectors.test_connector_filesystem import read_all, src_of

S = schema_of(id="INT", name="STRING")
IGNORE = {"json.ignore-parse-errors": "true"}


def rows(batch):
    return [(r["id"], r["name"]) for r in batch.table.to_pylist()]


# ------------------------------------------------------------------------ json: one row per payload


def _invalid_utf8(bad: bytes, what: str):
    vals = [b'{"id":0,"name":"\xc3\xa9"}', bad, b'{"id":2,"name":"ok"}']
    return pytest.param(vals, 1, [(0, "é"), (2, "ok")], [0, 2], 1, id=f"invalid-utf8-{what}")


@pytest.mark.parametrize(
    ("vals", "first_bad", "kept", "index", "skipped"),
    [
        _invalid_utf8(b'{"id":1,"name":"\xff\xfe"}', "in-a-string"),
        _invalid_utf8(b'{"id":1,"name":"\xed\xa0\x80"}', "encoded-surrogate"),
        # in an ignored field: invalid on the slow path too
        _invalid_utf8(b'{"id":1,"name":"ok","n\xffx":1}', "in-an-ignored-field"),
        _invalid_utf8(rb'{"id":1,"name":"\ud800"}', "lone-surrogate-escape"),
    ],
)
def test_json_bad_payload_is_a_located_bad_record(loc, vals, first_bad, kept, index, skipped):
    with pytest.raises(BadRecordError, match=rf"topic\[2\]@{1234 + first_bad}: invalid JSON"):
        make_decoder("json", S, {}).decode(vals, loc)
    dec = make_decoder("json", S, IGNORE)
    b = dec.decode(vals, loc)
    assert rows(b) == kept
    assert dec.source_index.tolist() == index  # each row keeps its own offset
    assert dec.skipped == skipped
    b.table.validate(full=True)


@pytest.mark.parametrize("blank", [b"", b"   ", b" \t\r\n "], ids=["empty", "spaces", "whitespace"])
def test_json_first_value_of_a_payload_and_blank_payloads_as_flink(loc, blank):
    """As Flink 2.3 (compat cases kafka_json_concatenated, kafka_json_empty_value and
    kafka_json_whitespace_value): a payload is read up to the end of its first object, an empty one
    is no row (a tombstone), a blank one is a bad record."""
    # Two JSON values in one payload, "balanced" by a blank payload: 3 payloads, 2 rows.
    vals = [b'{"id":1,"name":"a"}{"id":2,"name":"b"}', blank, b'{"id":3,"name":"c"}']
    lenient = make_decoder("json", S, IGNORE)
    assert rows(lenient.decode(vals, loc)) == [(1, "a"), (3, "c")] and lenient.source_index.tolist() == [0, 2]
    if blank:
        assert (lenient.skipped, lenient.tombstones) == (1, 0)
        skip = re.escape("; with 'json.ignore-parse-errors' = 'true' a value that does not convert is NULL "
                         "(the row kept) and a record that does not parse is skipped")
        with pytest.raises(BadRecordError, match=rf"topic\[2\]@1235: empty record{skip}; record: "):
            make_decoder("json", S, {}).decode(vals, loc)
        return
    assert (lenient.skipped, lenient.tombstones) == (0, 1)
    strict = make_decoder("json", S, {})
    assert rows(strict.decode(vals, loc)) == [(1, "a"), (3, "c")] and strict.tombstones == 1


def test_json_large_batch_with_merged_and_empty_payloads(loc):
    vals = [b'{"id":%d,"name":"n"}' % i for i in range(1000)]
    vals[100] = b'{"id":100,"name":"n"} {"id":-1,"name":"x"}'
    vals[900] = b"  "
    dec = make_decoder("json", S, IGNORE)
    b = dec.decode(vals, loc)
    want = [i for i in range(1000) if i != 900]  # 100: its first object, as Flink
    assert [r[0] for r in rows(b)] == want and dec.source_index.tolist() == want and dec.skipped == 1
    with pytest.raises(BadRecordError, match=r"topic\[2\]@2134:"):
        make_decoder("json", S, {}).decode(vals, loc)


def test_json_top_level_null_is_a_bad_record_not_a_null_row(loc):
    dec = make_decoder("json", S, IGNORE)
    b = dec.decode([b'{"id":1,"name":"a"}', b"null", b'{"id":2,"name":"b"}'], loc)
    assert rows(b) == [(1, "a"), (2, "b")] and dec.skipped == 1
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235: expected a JSON object"):
        make_decoder("json", S, {}).decode([b'{"id":1}', b" null "], loc)


def test_json_leading_null_does_not_crash_arrow():
    # Arrow's JSON reader segfaults when a block starts with a top-level null: run in a child.
    code = (
        "from streamsql.connectors.formats import make_decoder\n"
        "from tests.connectors.helpers import schema_of\n"
        "d = make_decoder('json', schema_of(id='INT'), {'json.ignore-parse-errors': 'true'})\n"
        "b = d.decode([b'null', b' null', b'{\"id\": 1}'], str)\n"
        "print(b.table.column('id').to_pylist(), d.skipped)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[1] 2"


def test_json_fast_path_still_takes_well_formed_batches():
    dec = make_decoder("json", S, {})
    assert dec._fast([b'{"id":1,"name":"a"}', b'  {"id":2}', b'\t{"id":3,"name":"\xc3\xa9"}']) is not None
    for bad in ([b'{"id":1}{"id":2}', b""], [b'{"id":1}', b"  "], [b"null"], [b'{"id":1}\x00']):
        assert dec._fast(bad) is None


def test_debezium_multi_value_and_empty_payloads(loc):
    ev = b'{"before": null, "after": {"id": %d, "name": "n"}, "op": "c"}'
    vals = [ev % 1 + ev % 2, b" ", ev % 3]
    dec = make_decoder("debezium-json", S, {"debezium-json.ignore-parse-errors": "true"})
    b = dec.decode(vals, loc)
    assert rows(b) == [(3, "n")] and dec.source_index.tolist() == [2] and dec.skipped == 2
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235: empty record"):
        make_decoder("debezium-json", S, {}).decode([ev % 1, b" ", ev % 3], loc)
    strict = make_decoder("debezium-json", S, {})  # an empty message is no change (Flink 2.3:
    b = strict.decode([ev % 1, b"", ev % 3], loc)  # compat case kafka_debezium_empty_value)
    assert rows(b) == [(1, "n"), (3, "n")] and strict.tombstones == 1


# ---------------------------------------------------------------------------------------- json: UTF-8


def test_json_invalid_utf8_in_a_large_batch(loc):
    vals = [b'{"id":%d,"name":"\xc3\xa9%d"}' % (i, i) for i in range(2000)]
    vals[1500] = b'{"id":1500,"name":"\xc3"}'
    dec = make_decoder("json", S, IGNORE)
    b = dec.decode(vals, loc)
    assert b.num_rows == 1999 and dec.skipped == 1 and 1500 not in dec.source_index.tolist()
    b.table.validate(full=True)


def test_debezium_invalid_utf8_is_a_bad_record(loc):
    vals = [b'{"before": null, "after": {"id": 1, "name": "\xff"}, "op": "c"}']
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1234: invalid JSON"):
        make_decoder("debezium-json", S, {}).decode(vals, loc)


# ------------------------------------------------------------------ csv: one message, one record


def test_csv_line_breaks_inside_messages_do_not_merge_them(loc):
    vals = [b"1,a\n2,b", b'3,"x', b'4,y"', b"5,e"]
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235: malformed CSV"):
        make_decoder("csv", S, {}).decode(vals, loc)
    dec = make_decoder("csv", S, {"csv.ignore-parse-errors": "true"})
    b = dec.decode(vals, loc)
    # each message on its own, its first record read as Flink's (compat case
    # kafka_csv_multiline_first_record): '1,a\n2,b' is (1, a), '4,y"' a record
    assert rows(b) == [(1, "a"), (4, 'y"'), (5, "e")]
    assert dec.source_index.tolist() == [0, 2, 3] and dec.skipped == 1
    assert rows(dec.decode([b"1,a\r2,b", b"3,c"], loc)) == [(1, "a"), (3, "c")]  # a lone CR too
    assert dec.skipped == 1


def test_csv_quoted_line_breaks_and_trailing_newlines_still_decode(loc):
    s = schema_of(id="INT", name="STRING", raw="BYTES")
    dec = make_decoder("csv", s, {})
    b = dec.decode([b'1,"a\nb",AP8=', b"2,c,\r\n", b'3,"d\r\ne",'], loc)
    assert b.table.to_pylist() == [
        {"id": 1, "name": "a\nb", "raw": b"\x00\xff"},  # per record: BYTES still base64
        {"id": 2, "name": "c", "raw": b""},  # an empty field is empty bytes, as Flink's (base64 of "")
        {"id": 3, "name": "d\r\ne", "raw": b""},
    ]
    assert dec._fast([b"1,a,\n", b"2,b,\r\n"]) is not None  # trailing line ends stay vectorized
    assert dec._fast([b"1,a,\n\n2,b,"]) is None


def test_json_bad_base64_on_the_fast_path_is_a_located_bad_record(loc):
    s = schema_of(id="INT", raw="BYTES")
    with pytest.raises(BadRecordError, match=r"topic\[2\]@1235: field 'raw': cannot base64-decode"):
        make_decoder("json", s, {}).decode([b'{"id":1,"raw":"AP8="}', b'{"id":2,"raw":"abc"}'], loc)


# ---------------------------------------------------------------------------------------- filesystem


def test_filesystem_skips_whitespace_only_lines(tmp_path):
    f = tmp_path / "ws.json"
    f.write_bytes(b'{"id":1,"name":"a"}\n   \n\t\n{"id":2,"name":"b"}\n \n{"id":x}\n  ')
    src, ctx = src_of(f)
    src.open(None)
    with pytest.raises(BadRecordError, match=rf"{f}:6: invalid JSON"):  # lines keep their numbers
        read_all(src)
    src, ctx = src_of(f, extra={"json.ignore-parse-errors": "true"})
    src.open(None)
    assert [r["id"] for r in read_all(src, 2)] == [1, 2]
    assert ctx.metrics.get("bad_records") == 1  # the bad line, not the blank ones


def test_filesystem_whitespace_line_after_the_first_chunk(tmp_path, monkeypatch):
    import streamsql.connectors.filesystem as fs

    monkeypatch.setattr(fs, "_CHUNK", 64)
    f = tmp_path / "ws.json"
    f.write_bytes(b"".join(b'{"id":%d,"name":"a"}\n' % i for i in range(20)) + b"    \n" + b'{"id":20}\n')
    src, _ = src_of(f)
    src.open(None)
    assert [r["id"] for r in read_all(src, 7)] == list(range(21))


# ---------------------------------------------------------------------------------------- excerpts


def test_excerpt_escapes_control_bytes():
    assert excerpt(b'{"a":"\x00\x1b[31m\xff"}\n') == '{"a":"\\x00\\x1b[31m\\xff"}\\n'
    assert excerpt("tab\there\u2028") == "tab\\there\\u2028"
    assert excerpt("héllo ünïcode") == "héllo ünïcode"
    assert excerpt(b"x" * 500, 10) == "x" * 10 + "..."
    msg = str(bad_record("json", "t[0]@1", "invalid JSON", b"\x00\x07garbage\r\n\x9b"))
    assert msg.isprintable() and "\\x00\\x07garbage\\r\\n\\x9b" in msg


def test_bad_record_error_has_no_raw_control_bytes(loc):
    with pytest.raises(BadRecordError) as e:
        make_decoder("json", S, {}).decode([b"\xff\xfe\x00garbage"], loc)
    assert str(e.value).isprintable() and "\\xff\\xfe\\x00garbage" in str(e.value)
