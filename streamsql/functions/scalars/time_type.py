"""Flink's TIME in the temporal functions: EXTRACT / HOUR / MINUTE / SECOND and FLOOR / CEIL TO.

Flink holds a TIME as an int of milliseconds of the day, and its EXTRACT and FLOOR/CEIL of a TIME
work on those milliseconds as on a timestamp's of 1970-01-01 (``ExtractCallGen``,
``DateTimeUtils.timestampFloor``): so here a TIME is put on 1970-01-01 (``DATE '1970-01-01' +
t``, a DuckDB TIMESTAMP) and the timestamp code computes the field, or the rounded timestamp,
whose time of day is the result (``CEIL(TIME '23:30:00' TO HOUR)`` is 00:00:00, the next day's
midnight's time). Only the units of a time of day apply to a TIME; Flink refuses the others
(:data:`TIME_UNITS`, messages as Flink 2.3's: ``scripts/flink_time.py``).
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.timestamp_precision import floor_ns_sql, truncate_time_sql
from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import (
    FunctionError,
    session_zone,
    sql_string,
    template,
    type_of,
)

#: The units of EXTRACT that Flink 2.3 refuses for a TIME while planning, and those it computes.
REFUSED_EXTRACT = ("MICROSECOND", "NANOSECOND")
TIME_UNITS = ("HOUR", "MINUTE", "SECOND", "MILLISECOND")
#: Calcite's TIME literal: SimpleDateFormat('HH:mm:ss'), not lenient, then any fraction digits.
_LITERAL = re.compile(r"([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.([0-9]*))?")


def is_time(t: SqlType | None) -> bool:
    """Whether ``t`` is a TIME(p)."""
    return t is not None and t.name == "TIME"


def on_epoch_day(value: str) -> str:
    """DuckDB SQL of the TIMESTAMP at the TIME ``value`` (DuckDB SQL) of 1970-01-01."""
    return f"(DATE '1970-01-01' + {value})"


def extract_refusal(unit: str, t: SqlType) -> str | None:
    """Flink's message for EXTRACT of ``unit`` from a TIME of type ``t``, None when Flink computes it.

    Flink 2.3 computes HOUR, MINUTE, SECOND and MILLISECOND; it refuses MICROSECOND and NANOSECOND
    ("unit MICROSECOND can not be applied to TIME(3) NOT NULL variable") and fails the job on a
    date unit ("unit DAY can not be applied to time variable"), refused here while planning.
    """
    if unit in TIME_UNITS:
        return None
    if unit in REFUSED_EXTRACT:
        return f"unit {unit} can not be applied to {t} variable"
    return f"unit {unit} can not be applied to time variable"


#: Milliseconds of each unit TIMESTAMPDIFF / TIMESTAMPADD / FLOOR / CEIL apply to a time of day.
_UNIT_MILLIS = {"HOUR": 3_600_000, "MINUTE": 60_000, "SECOND": 1000, "MILLISECOND": 1}
_DATE_UNITS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR")


def millis(value: str) -> str:
    """DuckDB SQL of the TIME ``value``'s milliseconds of the day (BIGINT), as Flink holds it."""
    return f"(epoch_us({value}) // 1000)"


def from_millis(ms: str) -> str:
    """DuckDB SQL of the TIME at ``ms`` milliseconds of the day, wrapped around it.

    Not cut to a p: Flink keeps a computed TIME's milliseconds; a constant is cut where it is folded
    (:func:`~streamsql.functions.scalars.reduced.as_literal`).
    """
    return f"(TIME '00:00:00' + to_milliseconds((({ms}) % 86400000 + 86400000) % 86400000))"


END_OF_DAY = "TIME '24:00:00'"
"""DuckDB SQL of the TIME Flink 2.3's CEIL of 23:59:59.999 TO SECOND gives: 86400000 ms of the day.

Flink keeps it: ``CAST`` prints ``24:00:00.0``, it compares greater than every other time, ``HOUR``
of it is 0, ``+ INTERVAL`` wraps it; its conversion to a ``LocalTime`` (a sink's format, a
collected row) fails the job (recorded by ``scripts/flink_query_gaps.py``). DuckDB's TIME holds
24:00:00 too.
"""


def rounded(value: str, unit: str, ceil: bool) -> str | None:
    """DuckDB SQL of FLOOR/CEIL(``value`` TO ``unit``) of a TIME, as Flink 2.3; None: unit refused.

    A unit of a day or more leaves the time as it is (``FLOOR(TIME '12:44:31' TO DAY)`` is
    12:44:31); a CEIL past the last whole unit of the day is :data:`END_OF_DAY`, as Flink's TIME
    then holds 86400000 ms.
    """
    if unit in _DATE_UNITS:
        return value
    size = _UNIT_MILLIS.get(unit)
    if size is None:
        return None
    ms = millis(value)
    out = f"({ms} // {size} * {size})"
    if ceil:
        out = f"(CASE WHEN {ms} % {size} = 0 THEN {ms} ELSE {out} + {size} END)"
        return f"(CASE WHEN {out} >= 86400000 THEN {END_OF_DAY} ELSE {from_millis(out)} END)"
    return from_millis(out)


def diff(unit: str, a: str, b: str) -> str | None:
    """DuckDB SQL of TIMESTAMPDIFF(unit, a, b) of two TIMEs: whole units from a to b, toward zero (INT).

    As Flink 2.3 (``TIMESTAMPDIFF(MINUTE, TIME '13:00:00', TIME '12:00:30')`` is -59); None for a
    unit other than HOUR, MINUTE, SECOND, MILLISECOND.
    """
    size = _UNIT_MILLIS.get(unit)
    if size is None:
        return None
    return f"CAST(trunc(({millis(b)} - {millis(a)}) / {size}) AS INTEGER)"


def add(unit: str, n: str, value: str) -> str | None:
    """DuckDB SQL of TIMESTAMPADD(unit, n, a TIME value): wrapped around midnight.

    A unit of a day or more leaves the time as it is (Flink 2.3: TIMESTAMPADD(DAY, 1, TIME
    '12:00:00') is 12:00:00); None for another unit.
    """
    if unit in _DATE_UNITS:
        return value
    size = _UNIT_MILLIS.get(unit)
    if size is None:
        return None
    return from_millis(f"{millis(value)} + CAST({n} AS BIGINT) * {size}")


def is_literal(n: exp.Expression) -> bool:
    """``TIME '...'`` as written (sqlglot's CAST of it has no ``safe`` argument; a CAST(... AS TIME) has)."""
    return (isinstance(n, exp.Cast) and isinstance(n.this, exp.Literal) and n.this.is_string
            and "safe" not in n.args and n.to.this == exp.DataType.Type.TIME)


def literal(n: exp.Cast) -> tuple[str, SqlType]:
    """A ``TIME '...'`` literal: (DuckDB SQL of its value, its type), as Calcite reads it.

    The type is TIME(number of fraction digits written, at most 3) and the value keeps whole
    milliseconds, cut (``TIME '12:34:56.987654'`` is 12:34:56.987 of a TIME(3)).

    Raises:
        FunctionError: Calcite's ``Illegal TIME literal '24:00:00': not in format 'HH:mm:ss'``.
    """
    text = n.this.this
    m = _LITERAL.fullmatch(text)
    if m is None or int(m.group(1)) > 23 or int(m.group(2)) > 59 or int(m.group(3)) > 59:
        msg = f"Illegal TIME literal '{text}': not in format 'HH:mm:ss'"
        raise FunctionError(msg, n)
    digits = (m.group(4) or "")[:3]
    h, mi, s = (int(m.group(i)) for i in (1, 2, 3))
    value = f"{h:02d}:{mi:02d}:{s:02d}" + (f".{digits}" if digits else "")
    return f"TIME '{value}'", SqlType("TIME", len(digits))


def compile_cast(n: exp.Cast, t: SqlType) -> exp.Expression | None:
    """A CAST to the TIME(p) ``t`` Flink computes differently from DuckDB (compiled operand), or None.

    A ``TIME '...'`` literal (:func:`literal`); a TIME or TIMESTAMP cut to p digits (Flink holds
    milliseconds and cuts, :func:`~streamsql.core.timestamp_precision.truncate_time_sql`); a
    TIMESTAMP_LTZ's wall clock in the session time zone, cut so (as Flink's cast of an instant to
    TIME; DuckDB has no cast from TIMESTAMPTZ to TIME and failed in its own words).
    """
    if is_literal(n):
        return template(literal(n)[0])
    source = type_of(n.this)
    value = f"({n.this.sql(dialect='duckdb')})"
    if source is not None and source.name in ("TIMESTAMP", "TIMESTAMP_LTZ") and (source.precision or 0) > 6:
        # a TIMESTAMP_NS: cut to its microsecond first (DuckDB's casts of it round)
        ltz = source.name == "TIMESTAMP_LTZ"
        value = f"CAST({floor_ns_sql(value, 6, ltz)} AS {'TIMESTAMPTZ' if ltz else 'TIMESTAMP'})"
    if source is not None and source.name in ("TIME", "TIMESTAMP"):
        return template(truncate_time_sql("{0}", t.precision or 0), value)
    if source is not None and source.name == "TIMESTAMP_LTZ":
        wall = f"CAST(timezone({sql_string(session_zone())}, {{0}}) AS TIMESTAMP)"
        return template(truncate_time_sql(wall, t.precision or 0), value)
    return None

