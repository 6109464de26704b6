"""print: Flink's print format per type, row kinds, identifier, stderr; blackhole."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pytest
from streamsql.connectors.print_sink import format_rows
from streamsql.connectors.registry import get_connector, known_connectors

from streamsql.core.connector import ConnectorContext
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError
from streamsql.core.float_text import java_float_text
from tests.connectors.helpers import schema_of, table_of

UTC = dt.timezone.utc


def lines(schema, data, kinds=None):
    t = pa.Table.from_pydict(data, schema=schema.to_arrow())
    return format_rows(Batch(t, None if kinds is None else np.array(kinds, np.int8)), schema)


def test_basic_row_and_null():
    s = schema_of(a="INT", b="STRING", c="STRING")
    assert lines(s, {"a": [1], "b": ["AB"], "c": [None]}) == ["+I[1, AB, null]"]


def test_decimals_plain_with_scale():
    s = schema_of(a="DECIMAL(10, 6)", b="DECIMAL(38, 18)", c="DECIMAL(20, 8)")
    out = lines(
        s, {"a": [Decimal("10")], "b": [Decimal("799.929496989092949698")], "c": [Decimal("0.00000001")]}
    )
    # BigDecimal.toString(): below 1E-6 at a scale above 6 in exponent form, as Flink 2.3 prints
    # (tests/functions/difffuzz_expected.json: a DECIMAL(38, 10) zero prints 0E-10)
    assert out == ["+I[10.000000, 799.929496989092949698, 1E-8]"]


def test_timestamps_as_local_date_time_and_instant():
    s = schema_of(t="TIMESTAMP(3)", u="TIMESTAMP(6)", l="TIMESTAMP_LTZ(3)")
    data = {
        "t": [
            dt.datetime(2024, 5, 1, 10),
            dt.datetime(2024, 5, 1, 10, 0, 1),
            dt.datetime(2024, 5, 1, 10, 0, 0, 1000),
            dt.datetime(1969, 12, 31, 23, 59, 59, 999000),
        ],
        "u": [
            dt.datetime(2024, 5, 1, 10, 0, 0, 123456),
            dt.datetime(2024, 5, 1, 10, 0, 0, 120000),
            None,
            None,
        ],
        "l": [
            dt.datetime(2024, 5, 1, 10, tzinfo=UTC),
            dt.datetime(2024, 5, 1, 10, 0, 0, 1000, tzinfo=UTC),
            None,
            None,
        ],
    }
    assert lines(s, data) == [
        "+I[2024-05-01T10:00, 2024-05-01T10:00:00.123456, 2024-05-01T10:00:00Z]",
        "+I[2024-05-01T10:00:01, 2024-05-01T10:00:00.120, 2024-05-01T10:00:00.001Z]",
        "+I[2024-05-01T10:00:00.001, null, null]",
        "+I[1969-12-31T23:59:59.999, null, null]",
    ]


def test_booleans_doubles_floats_dates_bytes():
    s = schema_of(b="BOOLEAN", d="DOUBLE", f="FLOAT", day="DATE", raw="BYTES", big="BIGINT")
    data = {
        "b": [True, False],
        "d": [123.456, 1e10],
        "f": [0.1, 3.0],
        "day": [dt.date(2024, 5, 1), dt.date(1970, 1, 1)],
        "raw": [b"\x01\xff", b""],
        "big": [-(2**63), 2**63 - 1],
    }
    assert lines(s, data) == [
        "+I[true, 123.456, 0.1, 2024-05-01, [1, -1], -9223372036854775808]",
        "+I[false, 1.0E10, 3.0, 1970-01-01, [], 9223372036854775807]",
    ]


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (1.0, "1.0"),
        (123.456, "123.456"),
        (-0.5, "-0.5"),
        (0.001, "0.001"),
        (0.0001, "1.0E-4"),
        (1e7, "1.0E7"),
        (9999999.0, "9999999.0"),
        (1.5e-10, "1.5E-10"),
        (-1.2345e20, "-1.2345E20"),
        (0.0, "0.0"),
        (-0.0, "-0.0"),
        (float("nan"), "NaN"),
        (float("inf"), "Infinity"),
        (float("-inf"), "-Infinity"),
        (100.0, "100.0"),
    ],
)
def test_java_double(x, text):
    assert java_float_text(pa.array([x])).to_pylist() == [text]


def test_java_float_uses_single_precision_digits():
    # JDK 17's Float.toString (java.lang.Float, run on this machine): a float's own digits, and a
    # whole float above 2**24 from its integer digits (the float 1.1e10f is 11000000512)
    got = java_float_text(pa.array([0.1, 1.1e10], pa.float32()), single=True).to_pylist()
    assert got == ["0.1", "1.10000005E10"]


def test_row_kinds_and_identifier_to_stdout_and_stderr(capsys):
    t = table_of("out", {"connector": "print", "print-identifier": "job1"}, id="INT", name="STRING")
    sink = get_connector("print").create_sink(ConnectorContext(t, "job", {}))
    assert sink.accepts_updates
    sink.open()
    batch = Batch(
        pa.table({"id": pa.array([1, 1, 1, 2], pa.int32()), "name": ["a", "a", "b", "z"]}),
        np.array([RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE], np.int8),
    )
    sink.write(batch)
    sink.pre_commit(1)
    assert capsys.readouterr().out.splitlines() == [
        "job1> +I[1, a]",
        "job1> -U[1, a]",
        "job1> +U[1, b]",
        "job1> -D[2, z]",
    ]
    t2 = table_of("err", {"connector": "print", "standard-error": "true"}, id="INT")
    err = get_connector("print").create_sink(ConnectorContext(t2, "job", {}))
    err.write(Batch(pa.table({"id": pa.array([7], pa.int32())})))
    err.finish()
    captured = capsys.readouterr()
    assert captured.err == "+I[7]\n" and captured.out == ""


def test_print_option_errors():
    t = table_of("out", {"connector": "print", "print-identifer": "x"}, id="INT")
    with pytest.raises(ConfigError, match=r"Table 'out'.*unknown option 'print-identifer'.*print-identifier"):
        get_connector("print").create_sink(ConnectorContext(t, "job", {}))
    t = table_of("out", {"connector": "print", "standard-error": "yes"}, id="INT")
    with pytest.raises(ConfigError, match=r"'standard-error' = 'yes'"):
        get_connector("print").create_sink(ConnectorContext(t, "job", {}))


def test_blackhole_and_registry():
    assert {"blackhole", "datagen", "filesystem", "print"} <= set(known_connectors())
    spec = get_connector("blackhole")
    assert spec.create_source is None
    sink = spec.create_sink(ConnectorContext(table_of("bh", {"connector": "blackhole"}, v="INT"), "job", {}))
    sink.write(Batch(pa.table({"v": [1, 2]}), np.array([0, 3], np.int8)))
    assert sink.accepts_updates and sink.rows == 2
    assert get_connector("print").create_source is None and get_connector("datagen").create_sink is None
