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

from streamsql.core.timestamp_precision import truncate_time_sql
from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import FunctionError, template, type_of

#: The units of EXTRACT that Flink 2.3 refuses for a TIME ("unit MICROSECOND can not be applied to
#: TIME(3) NOT NULL variable"), and the units of FLOOR/CEIL TO it rounds a TIME to.
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
    """Flink's message for EXTRACT of ``unit`` from a TIME of type ``t``, None when Flink computes it."""
    if unit not in REFUSED_EXTRACT:
        return None
    return f"unit {unit} can not be applied to {t} variable"


def rounding_refusal(unit: str, what: str) -> str | None:
    """The message for ``what`` (FLOOR/CEIL) of a TIME to ``unit``, None for a unit of a time of day."""
    if unit in TIME_UNITS:
        return None
    return f"{what}: unit {unit} of a TIME is not supported (a TIME rounds to HOUR, MINUTE, SECOND, MILLISECOND)"


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
    value = f"{int(m.group(1)):02d}:{int(m.group(2)):02d}:{int(m.group(3)):02d}" + (f".{digits}" if digits else "")
    return f"TIME '{value}'", SqlType("TIME", len(digits))


def compile_cast(n: exp.Cast, t: SqlType) -> exp.Expression | None:
    """A CAST to the TIME(p) ``t`` Flink computes differently from DuckDB (compiled operand), or None.

    A ``TIME '...'`` literal (:func:`literal`); a TIME or TIMESTAMP cut to p digits (Flink holds
    milliseconds and cuts, :func:`~streamsql.core.timestamp_precision.truncate_time_sql`).
    """
    if is_literal(n):
        return template(literal(n)[0])
    source = type_of(n.this)
    if source is not None and source.name in ("TIME", "TIMESTAMP"):
        return template(truncate_time_sql("{0}", t.precision or 0), f"({n.this.sql(dialect='duckdb')})")
    return None

