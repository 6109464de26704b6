"""Java's text parsers as Flink 2.3's JSON and CSV formats apply them: base64 BYTES and FLOAT.

Each expected value is Flink 2.3's answer, from the compat cases named (run on PyFlink).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
from streamsql.connectors.formats import make_decoder
from streamsql.connectors.formats.java_text import Base64Error, float32_of, parse_base64, parse_float

from streamsql.core.types import Field, Schema, SqlType

# kafka_json_bytes_base64_forms / kafka_csv_bytes_base64_forms: text -> bytes, or None (Flink: NULL)
BASE64 = {"AQ==": b"\x01", " AQ==": b"\x01", "AQ== ": b"\x01", "\nAQ==": b"\x01", "AQ==AQ==": b"\x01\x01",
          "AQID\tBA==": b"\x01\x02\x03\x04", "": b"", "+/8=": b"\xfb\xff", "AQ": None, "AQI": None,
          "A Q==": None, "!!": None, "====": None, "AQ=x": None, "AQIDBA": None, "YQ": None, "YWJj=": None,
          "-_8=": None}


@pytest.mark.parametrize("text", list(BASE64))
def test_base64_as_jackson(text):
    if BASE64[text] is None:
        with pytest.raises(Base64Error):
            parse_base64(text)
    else:
        assert parse_base64(text) == BASE64[text]


def test_base64_ending_after_one_padding_runs_past_the_json_string():
    # Flink's JSON parser reads the closing quote as the group's fourth character: the lenient
    # reader drops the record ("AQ=" is no row in kafka_json_bytes_base64_forms, NULL in csv)
    for text, past in (("AQ=", True), ("A", True), ("AQ", False), ("YWJj=", False)):
        with pytest.raises(Base64Error) as e:
            parse_base64(text)
        assert e.value.past_end is past, text
    schema = Schema([Field("id", SqlType.parse("INT")), Field("b", SqlType.parse("BYTES"))])
    dec = make_decoder("json", schema, {"json.ignore-parse-errors": "true"})
    batch = dec.decode([b'{"id":1,"b":"AQ="}', b'{"id":2,"b":"!!"}', b'{"id":3,"b":"AQ=="}'], None)
    assert batch.table.to_pylist() == [{"id": 2, "b": None}, {"id": 3, "b": b"\x01"}]
    assert dec.skipped == 1
    csv = make_decoder("csv", schema, {"csv.ignore-parse-errors": "true"})
    rows = csv.decode([b"1,AQ=", b"2,AQ=="], None).table.to_pylist()
    assert rows == [{"id": 1, "b": None}, {"id": 2, "b": b"\x01"}]


# kafka_json_float_single_rounding: text -> Java's Float.parseFloat, printed by Flink
FLOATS = {"1.00000005960464478": 1.0000001, "1.0000000596046448": 1.0000001, "1.00000005960464477": 1.0,
          "1.00000017881393432617187499": 1.0000001, "1.000000178813934326171875": 1.0000002,
          "16777217": 16777216.0, "33554435": 33554436.0, "3.4028235e38": 3.4028235e38, "0.1": 0.1}


@pytest.mark.parametrize("text", list(FLOATS))
def test_float_rounds_once(text):
    import numpy as np

    want = float(np.float32(FLOATS[text]))
    assert parse_float(text) == want
    assert float32_of(float(text), Decimal(text)) == want
    dec = make_decoder("json", Schema([Field("f", SqlType.parse("FLOAT"))]), {})
    assert dec.decode([b'{"f":"%s"}' % text.encode()], None).table.column(0).to_pylist() == [want]
    lenient = make_decoder("json", dec.schema, {"json.ignore-parse-errors": "true"})
    slow = lenient.decode([b'{"f":%s}' % text.encode(), b'{"f":"x"}'], None)  # "x": the per-record path
    assert slow.table.column(0).to_pylist() == [want, None]


def test_number_into_string_is_its_text():
    # kafka_json_number_into_string_text: Jackson's getText of the number token
    dec = make_decoder("json", Schema([Field("s", SqlType.parse("STRING"))]), {})
    texts = ["0.1e-7", "1.50e0", "1e21", "12e-1", "1E+2", "0.10", "-0.0", "123456789012345678.5", "-0"]
    rows = dec.decode([b'{"s":%s}' % t.encode() for t in texts], None).table.column(0).to_pylist()
    assert rows == texts
    # inside an object or array: Jackson's tree, doubles as Double.toString
    # (kafka_json_container_into_string_numbers)
    rows = dec.decode([b'{"s":{"a":1e2,"b":0.1e-7,"c":1.50,"d":-0,"e":[12345678901234567890.5]}}'], None)
    want = '{"a":100.0,"b":1.0E-8,"c":1.5,"d":0,"e":[1.2345678901234567E19]}'
    assert rows.table.column(0).to_pylist() == [want]


def test_decimal_beyond_28_digits_keeps_its_value():
    # abs() rounded to Python's default 28 digits: 38 nines became 1E+38, over DECIMAL(38, 0)'s
    # limit, and NULL (Flink 2.3: the value; compat case kafka_json_decimal_edges)
    s = Schema([Field("e", SqlType.parse("DECIMAL(38, 0)")), Field("x", SqlType.parse("INT"))])
    dec = make_decoder("json", s, {"json.ignore-parse-errors": "true"})
    nines = "9" * 38
    rows = dec.decode([b'{"e":%s}' % nines.encode(), b'{"e":1e38,"x":"bad"}'], None).table.to_pylist()
    assert rows == [{"e": Decimal(nines), "x": None}, {"e": None, "x": None}]


def test_debezium_number_into_string_is_the_double_text():
    # debezium-json reads a Jackson tree (kafka_debezium_number_into_string)
    s = Schema([Field("s", SqlType.parse("STRING")), Field("t", SqlType.parse("STRING"))])
    dec = make_decoder("debezium-json", s, {})
    batch = dec.decode([b'{"before":null,"after":{"s":0.1e-7,"t":1.50},"op":"c"}'], None)
    assert batch.table.to_pylist() == [{"s": "1.0E-8", "t": "1.5"}]
