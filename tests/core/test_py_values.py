"""streamsql.core.py_values: TIMESTAMP(7..9) values as Python objects without pandas' help."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa

from streamsql.core.py_values import nanos_as_int, py_values, user_values

_NS = [1704103200123456789, 1704103200123456788, -1, None]  # the last but one: 1969-12-31 23:59:59.999999999


def test_nanoseconds_as_epoch_integers_that_arrow_builds_back():
    col = pa.array(_NS, pa.timestamp("ns"))
    values = py_values(col)
    assert values == _NS
    assert len(set(values[:2])) == 2  # 1 ns apart: two values (a datetime would hold one)
    assert pa.array(values, col.type).equals(col)
    ltz = pa.array(_NS, pa.timestamp("ns", tz="UTC"))
    assert py_values(ltz) == _NS


def test_nested_nanoseconds():
    t = pa.struct([("a", pa.list_(pa.timestamp("ns"))), ("m", pa.map_(pa.string(), pa.timestamp("ns"))),
                   ("s", pa.string())])
    col = pa.array([{"a": [5, None], "m": [("k", -1)], "s": "x"}, None], t)
    assert py_values(col) == [{"a": [5, None], "m": [("k", -1)], "s": "x"}, None]
    assert nanos_as_int(pa.list_(pa.timestamp("us"))) is None
    assert pa.array(py_values(col), t).equals(col)


def test_other_values_as_to_pylist():
    col = pa.array([dt.datetime(2024, 1, 1, 10, 0, 0, 123456)], pa.timestamp("us"))  # noqa: DTZ001
    assert py_values(col) == col.to_pylist()


def test_python_functions_get_pyflinks_datetime_cut_down():
    """PyFlink's TimestampCoderImpl: microsecond = milliseconds % 1000 * 1000 + nanoseconds // 1000."""
    wall = [dt.datetime(2024, 1, 1, 10, 0, 0, 123456), dt.datetime(2024, 1, 1, 10, 0, 0, 123456),  # noqa: DTZ001
            dt.datetime(1969, 12, 31, 23, 59, 59, 999999), None]  # noqa: DTZ001
    assert user_values(pa.array(_NS, pa.timestamp("ns"))) == wall
    nested = user_values(pa.array([[v for v in _NS]], pa.list_(pa.timestamp("ns"))))
    assert nested == [wall]
    utc = [None if w is None else w.replace(tzinfo=dt.timezone.utc) for w in wall]
    assert user_values(pa.array(_NS, pa.timestamp("ns", tz="UTC"))) == utc
