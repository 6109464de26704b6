"""A Kafka source's JSON value decoder skips columns the job does not read, changing no record.

``JsonDecoder.narrow`` leaves out an unread column only when its value can never make a
record bad nor change another column: a STRING column (any JSON value converts), also under
``'json.ignore-parse-errors'`` (where a container in another column sends Flink's reader out of
step); with ``'json.fail-on-missing-field'`` nothing. Flink's Kafka
source decodes every column (compat cases ``kafka_json_unread_*`` hold its answers); here the
narrowed decoder is checked against the full one on the fuzzer's batches: the same
``BadRecordError`` (``topic[partition]@offset``, reason), or the same rows, values and counts;
except for batches with a payload beyond Python's parsers (:func:`beyond_python_parsers`), which
the decoder already takes or rejects by the path their batch takes.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.kafka import KafkaSource
from streamsql.connectors.kafka.decode import RecordDecoder
from streamsql.connectors.kafka.fetched import Located

from streamsql.core.errors import BadRecordError
from streamsql.core.types import Field, Schema, SqlType
from tests.connectors.helpers import schema_of, table_of
from tests.connectors.test_decoder_fuzz import COLUMNS, FUZZ, batches, json_values
from tests.connectors.test_json_fast_path_oracle import _type_text as oracle_type_text
from tests.connectors.test_json_fast_path_oracle import _value as oracle_value

OPTIONS = {"connector": "kafka", "topic": "fuzz", "properties.bootstrap.servers": "x:1", "format": "json"}


def columns(*names: str) -> frozenset[tuple[str, ...]]:
    """The paths of whole columns ``names`` (``ConnectorContext.read_columns``)."""
    return frozenset((n,) for n in names)


def names(schema) -> list[str]:
    return list(schema.names)


def narrowed(fmt: str, schema, options: dict[str, str], read: set[str]) -> list[str]:
    decoder = make_decoder(fmt, schema, options, "t")
    decoder.narrow(columns(*read))
    assert decoder.arrow_schema == decoder.schema.to_arrow()
    return names(decoder.schema)


def test_narrow_keeps_what_is_read_and_what_can_fail():
    schema = schema_of(id="INT", s="STRING", v="VARCHAR(5)", n="BIGINT", d="DATE", r="ROW<x STRING>")
    assert narrowed("json", schema, {}, {"id"}) == ["id", "n", "d", "r"]
    assert narrowed("json", schema, {}, {"ID", "S"}) == ["id", "s", "n", "d", "r"]
    assert narrowed("json", schema, {"json.ignore-parse-errors": "true"}, {"n"}) == ["id", "n", "d", "r"]
    assert narrowed("json", schema, {"json.fail-on-missing-field": "true"}, {"id"}) == names(schema)
    assert narrowed("json", schema_of(s="STRING", t="STRING"), {}, set()) == ["s", "t"]  # never no column
    flat = schema_of(id="INT", s="STRING", n="BIGINT")
    for fmt in ("csv", "debezium-json"):  # formats that do not say: every column
        assert narrowed(fmt, flat, {}, {"id"}) == names(flat)


def test_a_string_column_takes_any_nesting_the_parser_takes():
    """A STRING column holding a 700-deep array is that array's text (the recursive text of it
    failed with RecursionError): so leaving an unread STRING column undecoded changes nothing."""
    table = table_of("fuzz", OPTIONS, id="INT", s="STRING")
    deep = b"[" * 700 + b"]" * 700
    batch, metrics, _ = _decode(table, None, [b'{"id":1,"s":' + deep + b"}"])
    assert batch.table.column("s").to_pylist() == [deep.decode()] and metrics == {}


def beyond_python_parsers(v: bytes) -> bool:
    """A payload only the slow path rejects: a number of 4,300 digits or more (Python's int) or
    nesting deeper than the stdlib parser's recursion (~950 levels, 400 here to be safe).

    Arrow's fast path reads such a value in a field outside its schema, the slow path rejects the
    record, so whether it is a row depends on the path its batch takes, with or without unread
    columns; an unread column is such a field for the narrowed decoder.
    """
    if re.search(rb"[0-9]{4300}", v):
        return True
    depth = top = 0
    in_string = escaped = False
    for c in v:
        if in_string:
            in_string = escaped or c != 34
            escaped = not escaped and c == 92
        elif c == 34:
            in_string = True
        elif c in (91, 123):
            depth += 1
            top = max(top, depth)
        elif c in (93, 125):
            depth -= 1
    return top > 400


def _decode(table, read, values):
    """``(batch or the BadRecordError's text, metrics, decoder)`` through the Kafka source's decoder."""
    metrics: dict[str, int] = {}
    decoder = RecordDecoder(table, KafkaSource.formats(table), metrics, read)
    located = Located(np.zeros(len(values), np.int32), np.arange(100, 100 + len(values), dtype=np.int64),
                      (("fuzz", 0),))
    try:
        batch = decoder.decode(values, located)
    except BadRecordError as e:
        return str(e), metrics, decoder
    decoder.count_skipped()
    return batch, metrics, decoder


@pytest.mark.parametrize("lenient", [True, False], ids=["ignore-parse-errors", "strict"])
@FUZZ
@given(values=batches, read=st.sets(st.sampled_from(sorted(COLUMNS)), min_size=1))
def test_unread_columns_change_no_record(lenient, values, read):
    options = {**OPTIONS, **({"json.ignore-parse-errors": "true"} if lenient else {})}
    table = table_of("fuzz", options, **COLUMNS)
    full, full_metrics, _ = _decode(table, None, values)
    narrow, narrow_metrics, decoder = _decode(table, columns(*read), values)
    if isinstance(full, str) or isinstance(narrow, str) or narrow_metrics != full_metrics:
        if any(v is not None and beyond_python_parsers(v) for v in values):
            return  # decoded or rejected by which path the batch takes, unread columns or not
        assert narrow == full  # the same first bad record, the same reason
        return
    assert narrow_metrics == full_metrics
    decoded = names(decoder.vdec.schema)
    assert set(read) <= set(decoded)
    assert narrow.table.select(decoded).equals(full.table.select(decoded))
    assert narrow.table.schema == full.table.schema
    for name in set(COLUMNS) - set(decoded):
        assert narrow.table.column(name).null_count == narrow.num_rows


def test_bad_value_in_an_unread_column_still_fails_naming_the_record():
    table = table_of("fuzz", OPTIONS, id="INT", v="INT", s="STRING")
    values = [b'{"id":1,"v":1,"s":"a"}', b'{"id":2,"v":"abc","s":{"o":[1]}}']
    error, _, decoder = _decode(table, columns("id"), values)
    assert names(decoder.vdec.schema) == ["id", "v"]
    assert isinstance(error, str) and "fuzz[0]@101" in error and "'v'" in error, error


def test_unread_values_that_do_not_convert_are_rows_when_errors_are_ignored():
    table = table_of("fuzz", {**OPTIONS, "json.ignore-parse-errors": "true"}, id="INT", v="INT", d="DATE")
    values = [b'{"id":1,"v":"abc"}', b'{"id":2,"d":"no date"}', b"[1]", b'{"id":3,"v":NaN}', b'{"id":4}']
    batch, metrics, decoder = _decode(table, columns("id"), values)
    assert batch.table.column("id").to_pylist() == [1, 2, 4]
    assert metrics == {"bad_records": 2}  # the array and the NaN token, as Flink skips them


def test_an_unread_container_out_of_step_changes_the_record_as_in_flink():
    """Under 'json.ignore-parse-errors' an object or array in an INT column sends Flink's reader out
    of step: the later columns are NULL or the record is dropped (compat case
    kafka_json_container_into_scalar_ignored). Leaving that column undecoded when the job read
    only id and w gave (1, 5) ... (6, 5): six rows, w always 5, where Flink has four."""
    table = table_of("fuzz", {**OPTIONS, "json.ignore-parse-errors": "true"}, id="INT", v="INT", w="INT")
    values = [b'{"id":1,"v":{"x":1},"w":5}', b'{"id":2,"v":[1,2],"w":5}', b'{"id":3,"v":{"x":{"y":1}},"w":5}',
              b'{"id":4,"v":[],"w":5}', b'{"id":5,"v":{},"w":5}', b'{"id":6,"w":5,"v":{"x":1}}']
    full, _, _ = _decode(table, None, values)
    narrow, _, _ = _decode(table, columns("id", "w"), values)
    assert narrow.table.select(["id", "w"]).to_pylist() == [
        {"id": 1, "w": None}, {"id": 3, "w": None}, {"id": 5, "w": None}, {"id": 6, "w": 5}]
    assert narrow.table.select(["id", "w"]).equals(full.table.select(["id", "w"]))


@pytest.mark.parametrize("lenient", ["true", "false"])
def test_a_narrowed_decoder_keeps_the_timestamp_standard_on_the_per_record_path(lenient):
    """Narrowed, the per-record converter read ISO-8601 timestamps as SQL ones: NULL under
    'json.ignore-parse-errors' (a silent wrong answer), else a failed job."""
    options = {**OPTIONS, "json.timestamp-format.standard": "ISO-8601", "json.ignore-parse-errors": lenient}
    table = table_of("fuzz", options, id="INT", ts="TIMESTAMP(3)", s="STRING")
    values = [b'{"id":1,"ts":"2024-01-01T10:00:00.123","s":"a"}',
              b'{"id":' + (b'"x"' if lenient == "true" else b"2") + b',"ts":"2024-01-01T10:00:00","s":"b"}']
    full, _, _ = _decode(table, None, values)
    decoder = make_decoder("json", schema_of(id="INT", ts="TIMESTAMP(3)", s="STRING"), options, "t")
    decoder.narrow(columns("id", "ts"))
    rows = decoder._slow(values, np.arange(2), 0, 2, str)[0].table.to_pylist()  # the per-record path
    assert [r["ts"] for r in rows] == full.table.column("ts").to_pylist()
    assert rows[1]["ts"] is not None


# -- ROW fields ---------------------------------------------------------------------------------


def test_narrow_keeps_the_read_fields_of_a_row_and_those_that_can_fail():
    schema = schema_of(k="INT", p="ROW<x BIGINT, s STRING, q ROW<a STRING, b INT>, u ROW<c STRING>>",
                       t="STRING")
    decoder = make_decoder("json", schema, {}, "t")
    decoder.narrow(frozenset({("k",), ("p", "s")}))
    # x and b can fail the record, q and u too (a value that is no object); u has no other field
    assert [f.type.sql() for f in decoder.schema] == [
        "INT", "ROW<`x` BIGINT, `s` STRING, `q` ROW<`b` INT>, `u` ROW<`c` STRING>>"]
    decoder = make_decoder("json", schema, {}, "t")
    decoder.narrow(frozenset({("k",), ("p",), ("p", "s")}))  # all of p
    assert [f.type.sql() for f in decoder.schema] == ["INT", list(schema)[1].type.sql()]


def test_unread_fields_are_null_and_the_row_keeps_its_type_and_its_nulls():
    table = table_of("fuzz", OPTIONS, k="INT", p="ROW<x BIGINT, s STRING, t STRING>")
    values = [b'{"k":1,"p":{"x":1,"s":"a","t":{"deep":[1]}}}', b'{"k":2,"p":null}', b'{"k":3}',
              b'{"k":4,"p":{}}', b'{"k":5,"p":{"s":[1,2],"t":7}}']
    full, _, _ = _decode(table, None, values)
    narrow, _, decoder = _decode(table, frozenset({("k",), ("p", "s")}), values)
    assert narrow.table.schema == full.table.schema
    assert [f.type.sql() for f in decoder.vdec.schema] == ["INT", "ROW<`x` BIGINT, `s` STRING>"]
    assert narrow.table.column("p").to_pylist() == [
        {"x": 1, "s": "a", "t": None}, None, None, {"x": None, "s": None, "t": None},
        {"x": None, "s": "[1,2]", "t": None}]
    assert [r and r["s"] for r in full.table.column("p").to_pylist()] == ["a", None, None, None, "[1,2]"]


def test_a_bad_value_in_an_unread_field_still_fails_naming_the_record():
    table = table_of("fuzz", OPTIONS, k="INT", p="ROW<x INT, s STRING>")
    values = [b'{"k":1,"p":{"x":1,"s":"a"}}', b'{"k":2,"p":{"x":"two","s":"b"}}']
    full, _, _ = _decode(table, None, values)
    narrow, _, _ = _decode(table, frozenset({("k",), ("p", "s")}), values)
    assert isinstance(narrow, str) and "fuzz[0]@101" in narrow and narrow == full


def _paths(t, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
    out = [prefix]
    if t.name == "ROW":
        for n, ft in t.fields:
            out += _paths(ft, (*prefix, n))
    return out


def _mixed(t):
    """A value for type ``t``: mostly one that converts, sometimes any JSON value (bad or odd)."""
    if t.name == "ROW":
        good = st.none() | st.fixed_dictionaries({}, optional={n: _mixed(ft) for n, ft in t.fields})
    else:
        good = oracle_value(t)
    return st.one_of(good, good, good, json_values)


@st.composite
def _nested_case(draw):
    texts = draw(st.lists(oracle_type_text(), min_size=1, max_size=3))
    cols = {f"c{i}": t for i, t in enumerate(texts)}
    schema = schema_of(**cols)
    row = st.fixed_dictionaries({f.name: _mixed(f.type) for f in schema})
    records = draw(st.lists(row, min_size=1, max_size=6))
    every = [p for f in schema for p in _paths(f.type, (f.name,))]
    read = draw(st.sets(st.sampled_from(every), min_size=1))
    return cols, [json.dumps(r, separators=(",", ":")).encode() for r in records], frozenset(read)


def _at(row: dict, path: tuple[str, ...]):
    v = row
    for name in path:
        if v is None:
            return None
        v = v[name]
    return v


@pytest.mark.parametrize("lenient", [True, False], ids=["ignore-parse-errors", "strict"])
@FUZZ
@given(case=_nested_case())
def test_unread_row_fields_change_no_record(lenient, case):
    cols, values, read = case
    options = {**OPTIONS, **({"json.ignore-parse-errors": "true"} if lenient else {})}
    table = table_of("fuzz", options, **cols)
    full, full_metrics, _ = _decode(table, None, values)
    narrow, narrow_metrics, _ = _decode(table, read, values)
    if isinstance(full, str) or isinstance(narrow, str):
        assert narrow == full  # the same first bad record, the same reason
        return
    assert narrow_metrics == full_metrics
    assert narrow.table.schema == full.table.schema
    assert narrow.num_rows == full.num_rows
    for got, want in zip(narrow.table.to_pylist(), full.table.to_pylist()):
        for path in read:
            assert _at(got, path) == _at(want, path), (path, values)


def test_repeated_name_of_a_field_left_out_counts_as_flink():
    # Flink counts every occurrence of a field name toward the ROW's arity, also of a STRING
    # the job does not read; the narrowed decoder leaves that STRING out, so a record naming it
    # again goes per record, read with the full schema (compat cases
    # kafka_json_repeated_unread_string_narrowed, kafka_json_repeated_nested_unread_string_narrowed)
    s = Schema([Field("id", SqlType.parse("INT")), Field("s", SqlType.parse("STRING")),
                Field("x", SqlType.parse("INT")),
                Field("r", SqlType.parse("ROW<a INT, b STRING, c INT, d INT>"))])
    for options in ({}, {"json.ignore-parse-errors": "true"}):
        d = make_decoder("json", s, options)
        d.narrow(frozenset({("id",), ("x",), ("r", "a")}))
        batch = d.decode([b'{"id":1,"s":"a","s":"b","s":"c","x":5}', b'{"id":2,"x":6,"s":"a","s":"b"}',
                          b'{"id":3,"r":{"b":"x","b":"y","b":"z","b":"w","a":9}}',
                          b'{"id":4,"r":{"b":"x","a":8}}'], None)
        rows = batch.table.to_pylist()
        assert [(r["id"], r["x"], r["r"] and r["r"]["a"]) for r in rows] == [
            (1, None, None), (2, 6, None), (3, None, None), (4, None, 8)], options


def test_repeated_name_beside_records_without_it_counts_as_flink():
    # Flink 2.3's rows (compat case kafka_json_repeated_unread_string_narrowed_neighbours): the
    # record naming s three times (r.b four times) has x (r.a) NULL whatever the batch holds
    # besides; a batch-wide count of the name (3 and 4 in 5 records) passed it to Arrow
    s = Schema([Field("id", SqlType.parse("INT")), Field("s", SqlType.parse("STRING")),
                Field("x", SqlType.parse("INT")),
                Field("r", SqlType.parse("ROW<a INT, b STRING, c INT, d INT>"))])
    records = [b'{"id":1,"s":"a","s":"b","s":"c","x":5}',
               b'{"id":2,"r":{"b":"x","b":"y","b":"z","b":"w","a":9}}',
               b'{"id":3,"x":7,"r":{"a":8}}', b'{"id":4,"x":8}', b'{"id":5,"x":9}']
    flink = [(1, None, None), (2, None, None), (3, 7, 8), (4, 8, None), (5, 9, None)]
    for options in ({}, {"json.ignore-parse-errors": "true"}):
        for batch in (records, *([r] for r in records)):
            d = make_decoder("json", s, options)
            d.narrow(frozenset({("id",), ("x",), ("r", "a")}))
            rows = d.decode(batch, None).table.to_pylist()
            ids = {json.loads(p)["id"] for p in batch}
            assert [(r["id"], r["x"], r["r"] and r["r"]["a"]) for r in rows] == [
                f for f in flink if f[0] in ids], (options, batch)


def test_repeats_pattern_matches_a_name_twice_in_one_line_as_written():
    from streamsql.connectors.formats.json import line_matches, repeats_pattern

    p = repeats_pattern({"a.b", "é", "x y", "q"})
    assert line_matches(b'{"k":1}\n{"a.b":1,"z":{"a.b":2}}', p)  # any depth of the one line
    assert line_matches('{"é":"1","é":"2"}'.encode(), p)
    assert line_matches(b'{"x y":1,"x y":2}', p)
    assert not line_matches(b'{"a.b":1}\n{"a.b":2}', p)  # one in each of two lines
    assert not line_matches(b'{"aXb":1,"aXb":2,"q":1,"xy":1,"xy":2}', p)  # '.' and ' ' are themselves
    assert not line_matches(b'{"qq":1,"q2":2,"q":3}', p)


def test_whole_columns_left_out_are_read_and_dropped_without_the_name_search(monkeypatch):
    """A decoder narrowed by whole columns reads them with Arrow and drops them after the read
    (Arrow fails a record naming a column it reads twice), so no batch is searched for a name
    written twice (session 31: the search cost more than reading the columns); the kept columns
    are the full decoder's. A batch the wide read fails where the narrow one passes (an unread
    STRING holding a number) sends later batches to the narrow read and its search."""
    from streamsql.connectors.formats import json as json_format

    searched: list[int] = []
    search = json_format.line_matches
    monkeypatch.setattr(json_format, "line_matches", lambda data, p: searched.append(1) or search(data, p))
    s = schema_of(id="INT", s="STRING", x="INT", t="STRING")
    plain = [b'{"id":%d,"s":"a","x":%d,"t":"u"}' % (i, i * 2) for i in range(50)]
    odd = [b'{"id":1,"s":"a","s":"b","s":"c","x":5}', b'{"id":2,"x":6,"s":"a","t":"b","t":"c"}',
           b'{"id":3,"s":4,"x":7,"t":[1,{"a":2}]}', b'{"id":4,"x":8}']

    def narrowed_decoder(options):
        d = make_decoder("json", s, options)
        d.narrow(columns("id", "x"))
        assert names(d.schema) == ["id", "x"]
        return d

    for options in ({}, {"json.ignore-parse-errors": "true"}):
        full = make_decoder("json", s, options)
        want = full.decode(plain, None).table.select(["id", "x"])
        d = narrowed_decoder(options)
        assert d.decode(plain, None).table.equals(want) and not searched
        for batch in ([odd[0], *plain], [odd[1]], odd):  # repeated names: per record, as Flink
            d = narrowed_decoder(options)
            assert d.decode(batch, None).table.to_pylist() == full.decode(batch, None).table.select(
                ["id", "x"]).to_pylist(), batch
        d = narrowed_decoder(options)
        broken = [*plain[:10], b'{"id":99,"x":1', *plain[10:]]  # a bad record: the bisection finds it
        try:
            got = d.decode(broken, lambda j: f"record {j}").table.to_pylist()
        except BadRecordError as e:
            got = str(e)
        try:
            assert got == full.decode(broken, lambda j: f"record {j}").table.select(["id", "x"]).to_pylist()
        except BadRecordError as e:
            assert got == str(e) and "record 10" in got
        searched.clear()
        assert d.decode(plain, None).table.equals(want) and not searched  # still the wide read
        d = narrowed_decoder(options)
        assert d.decode([odd[2], odd[3]], None).table.to_pylist() == [{"id": 3, "x": 7}, {"id": 4, "x": 8}]
        searched.clear()
        assert d.decode(plain, None).table.equals(want) and searched  # the narrow read from now on
        searched.clear()
