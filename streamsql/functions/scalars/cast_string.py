"""``CAST(x AS STRING)`` as Flink renders values, where DuckDB's text differs.

======================== ======================================= =============================
source type              Flink                                    DuckDB's own cast
======================== ======================================= =============================
TIMESTAMP(p)             ``2024-03-10 07:59:50.120`` (exactly p   ``2024-03-10 07:59:50.12``
                         fraction digits)
TIMESTAMP_LTZ(p)         the same, in the session time zone       ``...50.12+00``
DOUBLE / FLOAT           Java's ``Double.toString`` /            ``1e+20``, ``0.0001``,
                         ``Float.toString`` (JDK 17's digits,    ``123456789.0``, ``inf``
                         :mod:`streamsql.core.float_text`):
                         ``1.0E20``, ``1.0E-4``, ``1.5``,
                         ``1.23456789E8``, ``Infinity``, ``NaN``
TIME(p)                  ``12:34:56.5``, ``12:34:56.0`` (p > 0:   ``12:34:56.500``
                         at most p digits, at least one:
                         :func:`time_text`)
BOOLEAN                  ``TRUE`` / ``FALSE``                      ``true`` / ``false``
ROW                      ``(1, a, NULL)``                          ``{'x': 1, ...}``
ARRAY                    ``[1, NULL]``                             ``[1, NULL]``
MAP                      ``{k=1, j=NULL}``                         ``{k=1, j=NULL}``
======================== ======================================= =============================

Inside a composite every value is written as its own CAST to STRING, NULL as ``NULL``; a structured
type's fields are named (``(name=Bob, age=NULL)``, OBJECT_OF's, as Flink 2.3).

Every other type keeps DuckDB's text, which is Flink's (DATE, DECIMAL with its scale,
integers, strings). Checked against Flink 2.3 by the conformance cases (tests/functions/cases.py).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.core.float_text import java_float_text
from streamsql.core.types import SqlType
from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.bitmap import text_sql
from streamsql.functions.scalars.registry import once, session_zone, sql_string

STRING_TYPES = ("STRING", "VARCHAR", "CHAR")


def flink_to_string(arg: str, t: SqlType | None) -> str | None:
    """DuckDB SQL rendering ``arg`` (compiled SQL of type ``t``) as Flink's CAST to STRING.

    Returns None where DuckDB's own cast already gives Flink's text. ``arg`` is computed once per
    row (:func:`~.registry.once`): a timestamp's text names it eleven times, and a Python
    function or RAND() in it ran as often, the text pieced together from different values.
    """
    if t is None or _text(arg, t) is None:
        return None
    return once(arg, lambda a: _text(a, t))


def _text(arg: str, t: SqlType) -> str | None:
    if t.name == "MULTISET":  # Flink's text of its MapData: {element=count, ...}
        t = t.counted()
    if t.is_composite:
        return _composite(arg, t, 0)
    if t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        # a naive TIMESTAMP(p <= 3) is DuckDB's TIMESTAMP_MS, whose strftime fails before 1677
        # ("Could not convert Timestamp to higher precision"): format it as a TIMESTAMP (µs)
        # (a TIMESTAMP(7..9) is a TIMESTAMP_NS: kept so, DuckDB's cast to TIMESTAMP rounds it)
        p = 6 if t.precision is None else t.precision
        ts = (f"timezone({sql_string(session_zone())}, {arg})" if t.name == "TIMESTAMP_LTZ"
              else f"CAST({arg} AS TIMESTAMP{'_NS' if p > 6 else ''})")
        return _timestamp(ts, p)
    if t.name == "DATE":  # DuckDB writes '10024-02-29', '0977-02-29 (BC)'
        return (f"CASE WHEN {arg} >= DATE '0001-01-01' AND {arg} < DATE '10000-01-01' "
                f"THEN CAST({arg} AS VARCHAR) ELSE {_four_year_digits(arg)} || strftime({arg}, '-%m-%d') END")
    if t.name in ("DOUBLE", "FLOAT"):
        return _java_double(arg, t.name == "FLOAT")
    if t.name == "BOOLEAN":
        return f"CASE WHEN {arg} THEN 'TRUE' WHEN NOT {arg} THEN 'FALSE' END"
    if t.name == "TIME":  # DuckDB writes the microseconds it holds
        return time_text(arg, t.precision or 0)
    if t.name == "BYTES":  # Flink: the bytes read as UTF-8 (BINARY(3)'s zero bytes are NUL characters)
        return utf8_text(arg)
    if t.name == "BITMAP":  # Flink: Bitmap.toString(), {1,2,3}
        return text_sql(arg)
    return None


def time_text(arg: str, p: int) -> str:
    """DuckDB SQL of Flink's text of a TIME(p) ``arg``: Calcite's ``unixTimeToString(time, p)``.

    ``HH:mm:ss``, then for p > 0 a ``.`` and the milliseconds' first p digits without trailing
    zeros, at least one (``12:34:56.0``, ``12:34:56.5``, ``12:34:56.123``; TIME(1) of .987 is
    ``.9``), as PyFlink 2.3 prints them (``scripts/flink_time.py``).
    """
    whole = f"left(CAST({arg} AS VARCHAR), 8)"  # 24:00:00 too: Flink's CEIL of 23:59:59.999 TO SECOND
    if not p:
        return whole
    digits = f"left(lpad(CAST(epoch_us({arg}) // 1000 % 1000 AS VARCHAR), 3, '0'), {min(p, 3)})"
    return f"{whole} || '.' || coalesce(nullif(rtrim({digits}, '0'), ''), '0')"


def utf8_text(arg: str) -> str:
    """DuckDB SQL of bytes ``arg`` read as Java's ``new String(bytes, UTF_8)`` (Flink's CAST to STRING).

    Each malformed part is U+FFFD (``CAST(X'FF' AS STRING)`` is one character, checked with
    PyFlink 2.3), where DuckDB's cast writes a backslash escape (``xFF``); valid UTF-8 is DuckDB's
    ``decode``.
    """
    return f"coalesce(try(decode({arg})), {_UTF8_REPLACE.name}({arg}))"


_UTF8_REPLACE = register(VectorFunction(
    "__streamsql_utf8_replace", "CAST",
    lambda a: rowwise(lambda b: b.decode("utf-8", "replace"), (a,), pa.string()), ("BLOB",), "VARCHAR"))


def _composite(arg: str, t: SqlType, depth: int) -> str:
    def text(value: str, vt: SqlType) -> str:
        inner = _composite(value, vt, depth + 1) if vt.is_composite else flink_to_string(value, vt)
        return f"coalesce({inner or f'CAST({value} AS VARCHAR)'}, 'NULL')"

    if t.name == "ROW":  # a structured type's fields are named: (name=Bob, age=42), as Flink 2.3
        named = (lambda n: sql_string(f"{n}=") + " || ") if t.class_name is not None else (lambda n: "")
        parts = " || ', ' || ".join(named(n) + text(f"struct_extract({arg}, {sql_string(n)})", ft)
                                    for n, ft in t.fields)
        return f"CASE WHEN {arg} IS NOT NULL THEN '(' || {parts or repr('')} || ')' END"
    v = f"__s{depth}"
    if t.name == "ARRAY":
        items = f"list_transform({arg}, lambda {v}: {text(v, t.children[0])})"
        return f"('[' || array_to_string({items}, ', ') || ']')"
    key, value = f"{v}['key']", f"{v}['value']"  # not {v}.key: a user's column {v} would be read
    pair = f"{text(key, t.children[0])} || '=' || {text(value, t.children[1])}"
    return f"('{{' || array_to_string(list_transform(map_entries({arg}), lambda {v}: {pair}), ', ') || '}}')"


def _four_year_digits(value: str) -> str:
    """DuckDB SQL of the year of a DATE or TIMESTAMP as Flink 2.3's CAST to STRING writes it.

    Four characters ``'0' + (year / 10^k) % 10`` in Java's int arithmetic (Calcite's ``int4``):
    a year past 9999 loses its leading digits (10024 is '0024'), a year before 1 is written with
    characters below '0' (-976 is "0')*"), as Flink prints them.
    """
    year = f"year({value})"
    return " || ".join(f"chr(48 + CAST(({year} // {k}) % 10 AS INTEGER))" for k in (1000, 100, 10, 1))


def _timestamp(ts: str, precision: int) -> str:
    """``yyyy-MM-dd HH:mm:ss`` and exactly ``precision`` fraction digits.

    ``ts`` is a DuckDB TIMESTAMP, or a TIMESTAMP_NS for ``precision`` above 6 (its nanoseconds).

    A year outside 1..9999 as Flink writes it (:func:`_four_year_digits`).
    """
    text = (f"CASE WHEN {ts} >= TIMESTAMP '0001-01-01' AND {ts} < TIMESTAMP '10000-01-01' "
            f"THEN strftime({ts}, '%Y-%m-%d %H:%M:%S') "
            f"ELSE {_four_year_digits(ts)} || strftime({ts}, '-%m-%d %H:%M:%S') END")
    if precision > 6:  # a TIMESTAMP_NS: years 1677..2262 (the bounds above are out of its range)
        text = f"strftime({ts}, '%Y-%m-%d %H:%M:%S')"
    if precision == 0:
        return f"({text})"
    frac = f"substr(strftime({ts}, '{'%n' if precision > 6 else '%f'}'), 1, {precision})"
    return f"(({text}) || '.' || {frac})"


def _java_text(values: pa.ChunkedArray | pa.Array, single: bool) -> pa.Array:
    return java_float_text(values, single=single)


_DOUBLE_TEXT = register(VectorFunction("__streamsql_java_double_text", "CAST(DOUBLE AS STRING)",
                                       lambda a: _java_text(a, False), ("DOUBLE",), "VARCHAR"))
_FLOAT_TEXT = register(VectorFunction("__streamsql_java_float_text", "CAST(FLOAT AS STRING)",
                                      lambda a: _java_text(a, True), ("FLOAT",), "VARCHAR"))


def java_double_text(arg: str) -> str:
    """DuckDB SQL of Java's ``Double.toString`` of the DOUBLE ``arg``."""
    return _java_double(arg, False)


def _java_double(arg: str, single: bool) -> str:
    """Java's ``Double.toString`` / ``Float.toString`` of ``arg`` (:mod:`streamsql.core.float_text`).

    A vectorized Python function over the batch, the formatter the sinks use (JDK 17's text, e.g.
    ``1.0E20``, ``1.23456792E8`` for the FLOAT 123456789.123, ``NaN``, ``-Infinity``).
    """
    f = _FLOAT_TEXT if single else _DOUBLE_TEXT
    return f"{f.name}(CAST({arg} AS {'FLOAT' if single else 'DOUBLE'}))"
