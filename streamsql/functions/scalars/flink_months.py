"""Months added to a DATE or TIMESTAMP as Flink 2.3 adds them, also before 4800 BC.

Flink's ``DateTimeUtils.addMonths`` (TIMESTAMPADD of MONTH, QUARTER, YEAR ..., and ``+``/``-`` of a
year-month interval) splits the date into year, month and day with Calcite's Julian-day algorithm
(``julianExtract``), adds the months, clamps the day to the month's end and joins them again
(``ymdToJulian``), all in Java's ``int`` arithmetic, whose division truncates toward zero. For a
Julian day below 32,044 (before 4800-03-01 BC in the proleptic Gregorian calendar) those divisions
are not floor divisions and the answer leaves the calendar: ``TIMESTAMPADD(YEAR, -7000, TIMESTAMP
'2024-01-01 00:00:00')`` is not -4976-01-01 in Flink. Elsewhere it is the proleptic Gregorian
answer, DuckDB's (negative years and year 0 included, checked against Flink's output).

So the SQL here (:func:`add_months_sql`) adds the months with DuckDB where the operand and the
result are both from 4799 BC on, and otherwise runs Flink's algorithm step by step in Python
(:func:`add_months_days`, row by row, only for those rows).
"""

from __future__ import annotations

import pyarrow as pa

from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.registry import bind

_EPOCH_JULIAN = 2440588
#: -4799-01-01 (astronomical years) in days from 1970-01-01: from there on DuckDB's answer is Flink's.
SAFE_FROM_DAYS = -2472326


def _int(v: int) -> int:
    """Java's ``int`` of ``v`` (the low 32 bits, signed)."""
    return (v + 2**31) % 2**32 - 2**31


def _div(a: int, b: int) -> int:
    """Java's integer division: toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _rem(a: int, b: int) -> int:
    """Java's ``%``: the sign of the dividend."""
    return a - b * _div(a, b)


def _julian_ymd(julian: int) -> tuple[int, int, int]:
    """Calcite's ``julianExtract`` of YEAR, MONTH and DAY (Claus Tondering's algorithm, Java ints)."""
    j = _int(julian + 32044)
    g, dg = _div(j, 146097), _rem(j, 146097)
    c = _div((_div(dg, 36524) + 1) * 3, 4)
    dc = dg - c * 36524
    b, db = _div(dc, 1461), _rem(dc, 1461)
    a = _div((_div(db, 365) + 1) * 3, 4)
    da = db - a * 365
    y = _int(g * 400 + c * 100 + b * 4 + a)
    m = _div(da * 5 + 308, 153) - 2
    d = da - _div((m + 4) * 153, 5) + 122
    return _int(y - 4800 + _div(m + 2, 12)), _rem(m + 2, 12) + 1, d + 1


def _ymd_julian(year: int, month: int, day: int) -> int:
    """Calcite's ``ymdToJulian`` in Java ints."""
    a = _div(14 - month, 12)
    y = _int(year + 4800 - a)
    m = month + 12 * a - 3
    return _int(day + _div(153 * m + 2, 5) + _int(365 * y) + _div(y, 4) - _div(y, 100) + _div(y, 400) - 32045)


def _last_day(y: int, m: int) -> int:
    if m == 2:
        return 29 if _rem(y, 4) == 0 and (_rem(y, 100) != 0 or _rem(y, 400) == 0) else 28
    return 30 if m in (4, 6, 9, 11) else 31


def add_months_days(days: int, months: int) -> int:
    """Flink's ``DateTimeUtils.addMonths(int date, int m)``: the epoch day ``days`` plus ``months``."""
    y0, m0, d0 = _julian_ymd(_int(days + _EPOCH_JULIAN))
    m0 = _int(m0 + months)
    y0 = _int(y0 + m0 // 12)  # floorDiv
    m0 %= 12  # floorMod
    if m0 == 0:
        y0, m0 = y0 - 1, 12
    return _ymd_julian(y0, m0, min(d0, _last_day(y0, m0))) - _EPOCH_JULIAN


_ADD_MONTHS = register(VectorFunction(
    "__streamsql_flink_add_months", "Function TIMESTAMPADD",
    lambda d, m: rowwise(add_months_days, (d, m), pa.int64()), ("BIGINT", "INTEGER"), "BIGINT"))


def add_months_sql(value: str, months: str, date: bool) -> str:
    """DuckDB SQL of ``value`` (a DATE when ``date``, else a TIMESTAMP) plus ``months`` (an INTEGER).

    DuckDB's calendar arithmetic where operand and result are from 4799 BC on, Flink's algorithm
    (:func:`add_months_days`) before: the time of day kept, the day moved. Both SQL texts are
    templates (``{0}``...) of the caller.
    """
    low = f"(DATE '1970-01-01' + ({SAFE_FROM_DAYS})::INTEGER)"
    days = "(CAST(__fv AS DATE) - DATE '1970-01-01')"
    moved = f"CAST({_ADD_MONTHS.name}({days}, __fn) - {days} AS INTEGER)"
    slow = f"CAST(__fv + {moved} AS DATE)" if date else f"__fv + to_days({moved})"
    body = bind("__fv + to_months(__fn)", "__fm",
                f"CASE WHEN __fv >= {low} AND __fm >= {low} THEN __fm ELSE {slow} END")
    return bind(value, "__fv", bind(months, "__fn", body))
