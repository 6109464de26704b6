"""Interval literals with a field range (``INTERVAL '1 10:30:00' DAY TO SECOND``), as Flink reads them.

DuckDB parses only single-unit interval literals (``INTERVAL '2' HOUR``) and fails on a range
(``Parser Error: DAY TO SECOND is not supported``), so a range literal is read here, at planning,
into one unit: months for ``YEAR TO MONTH``, microseconds for the day-time ranges. The text has
Calcite's shapes (a leading sign applies to the whole interval):

==================  =====================  ==================  ===================
YEAR TO MONTH       ``'[+-]y-m'``           HOUR TO MINUTE      ``'[+-]h:m'``
DAY TO HOUR         ``'[+-]d h'``           HOUR TO SECOND      ``'[+-]h:m:s[.f]'``
DAY TO MINUTE       ``'[+-]d h:m'``         MINUTE TO SECOND    ``'[+-]m:s[.f]'``
DAY TO SECOND       ``'[+-]d h:m:s[.f]'``
==================  =====================  ==================  ===================
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

import sqlglot
from sqlglot import exp

from streamsql.functions.scalars.interval_qualifier import qualifier_sql
from streamsql.functions.scalars.java_ints import java_int
from streamsql.functions.scalars.registry import FunctionError

_NUM = r"(\d+)"
_SEC = r"(\d+(?:\.\d*)?)"
_SHAPES = {
    ("YEAR", "MONTH"): (rf"{_NUM}-{_NUM}", ("YEAR", "MONTH")),
    ("DAY", "HOUR"): (rf"{_NUM} {_NUM}", ("DAY", "HOUR")),
    ("DAY", "MINUTE"): (rf"{_NUM} {_NUM}:{_NUM}", ("DAY", "HOUR", "MINUTE")),
    ("DAY", "SECOND"): (rf"{_NUM} {_NUM}:{_NUM}:{_SEC}", ("DAY", "HOUR", "MINUTE", "SECOND")),
    ("HOUR", "MINUTE"): (rf"{_NUM}:{_NUM}", ("HOUR", "MINUTE")),
    ("HOUR", "SECOND"): (rf"{_NUM}:{_NUM}:{_SEC}", ("HOUR", "MINUTE", "SECOND")),
    ("MINUTE", "SECOND"): (rf"{_NUM}:{_SEC}", ("MINUTE", "SECOND")),
}
_SINGLE_UNITS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
#: The text of a single-unit literal: a number (the shapes Calcite refuses beyond that are let be).
_NUMBER = r"[+-]?\s*(\d+(\.\d*)?|\.\d+)"
_MICROS = {"DAY": 86_400_000_000, "HOUR": 3_600_000_000, "MINUTE": 60_000_000}
# The largest value of a field after the leading one (Calcite: hours < 24, minutes and seconds < 60).
_BOUND = {"MONTH": 11, "HOUR": 23, "MINUTE": 59, "SECOND": 59}


def single_unit(n: exp.Interval) -> exp.Interval | None:
    """``n`` as a single-unit interval DuckDB reads (MONTH or MICROSECOND); None without a range.

    Raises:
        FunctionError: the text does not have the range's shape, or a field after the leading one
            is out of its range (Calcite's validation).
    """
    span = n.unit
    if isinstance(n.this, exp.Literal) and n.this.is_string and isinstance(span, exp.Var) \
            and span.name.upper() in _SINGLE_UNITS and not re.fullmatch(_NUMBER, n.this.name.strip()):
        # not a number: Calcite refuses it when planning (DuckDB's CAST failed when the job ran)
        qualifier = qualifier_sql(n, span.name.upper())
        msg = f"Illegal interval literal format '{n.this.name}' for INTERVAL {qualifier}"
        raise FunctionError(msg, n)
    if not isinstance(span, exp.IntervalSpan) or not isinstance(n.this, exp.Literal):
        return None
    key = (span.this.name.upper(), span.expression.name.upper())
    text = n.this.name.strip()
    shape = _SHAPES.get(key)
    m = re.fullmatch(r"([+-]?)\s*" + shape[0], text) if shape else None
    qualifier = qualifier_sql(n, f"{key[0]} TO {key[1]}")  # with its precisions, as Calcite names it
    if m is None:
        msg = (f"Illegal interval literal format '{n.this.name}' for INTERVAL {qualifier}"
               if shape else f"Unsupported interval qualifier {key[0]} TO {key[1]}")
        raise FunctionError(msg, n)
    sign = -1 if m.group(1) == "-" else 1
    fields = dict(zip(shape[1], m.groups()[1:]))
    for name, value in list(fields.items())[1:]:
        if float(value) > _BOUND[name] + (0.999999 if name == "SECOND" else 0):
            msg = f"Illegal interval literal format '{n.this.name}' for INTERVAL {qualifier}"
            raise FunctionError(msg, n)
    if key == ("YEAR", "MONTH"):
        amount, unit = sign * (12 * int(fields["YEAR"]) + int(fields["MONTH"])), "MONTH"
    else:
        micros = sum(int(v) * _MICROS[k] for k, v in fields.items() if k != "SECOND")
        if "SECOND" in fields:  # Flink keeps milliseconds: the fraction's further digits are cut
            whole, _, frac = fields["SECOND"].partition(".")
            micros += int(whole) * 1_000_000 + int((frac + "000")[:3]) * 1000
        amount, unit = sign * micros, "MICROSECOND"
    return exp.Interval(this=exp.Literal.string(str(amount)), unit=exp.var(unit))


def whole_millis(n: exp.Interval) -> exp.Interval | None:
    """A single-unit day-time literal with digits below the millisecond as whole milliseconds.

    Flink 2.3 holds a day-time interval in milliseconds, the further digits cut toward zero
    (``INTERVAL '0.000123' SECOND`` is 0 ms, ``INTERVAL '1.0015' SECOND`` 1001 ms: ``CAST(ts AS
    TIMESTAMP(6)) + INTERVAL '0.0015' SECOND`` adds 1 ms); DuckDB would keep microseconds. None for
    any other interval (left as it is).
    """
    if isinstance(n.unit, exp.IntervalSpan) or not isinstance(n.this, exp.Literal) or n.unit is None \
            or n.unit.name.upper() not in _MILLIS:
        return None
    try:
        value = Decimal(n.this.name.strip()) * _MILLIS[n.unit.name.upper()]
    except InvalidOperation:
        return None
    if value == int(value):
        return None
    return exp.Interval(this=exp.Literal.string(str(int(value))), unit=exp.var("MILLISECOND"))


def interval_text(n: exp.Expression) -> str | None:
    """Flink's text of an interval literal (``CAST(... AS STRING)``), None for another value.

    ``+d hh:mm:ss.fff`` for a day-time one (Flink 2.3: ``CAST(INTERVAL '1.0015' SECOND AS STRING)``
    is ``+0 00:00:01.001``; its milliseconds, the further digits cut), ``+y-mm`` for a year-month one.
    """
    if isinstance(n, exp.Interval) and isinstance(n.this, exp.Literal) and isinstance(n.unit, exp.Var) \
            and n.unit.name.upper() in _MONTHS:
        try:
            months = int(Decimal(n.this.name.strip())) * _MONTHS[n.unit.name.upper()]
        except InvalidOperation:
            return None
        years, rest = divmod(abs(months), 12)
        return f"{'-' if months < 0 else '+'}{years}-{rest:02d}"
    ms = day_time_millis(n)
    if ms is None:
        return None
    sign, ms = ("-" if ms < 0 else "+"), abs(ms)
    days, ms = divmod(ms, 86_400_000)
    hours, ms = divmod(ms, 3_600_000)
    minutes, ms = divmod(ms, 60_000)
    return f"{sign}{days} {hours:02d}:{minutes:02d}:{ms // 1000:02d}.{ms % 1000:03d}"


_MILLIS = {"DAY": 86_400_000, "HOUR": 3_600_000, "MINUTE": 60_000, "SECOND": 1000, "MILLISECOND": 1}


def day_time_millis(n: exp.Expression) -> int | None:
    """The milliseconds of a day-time interval literal (Flink's INTERVAL DAY TO SECOND value).

    ``n`` is a single-unit interval (a range already read by :func:`single_unit`, in microseconds,
    cut toward zero to milliseconds as Flink keeps them). None for a year-month interval or an
    interval that is not a literal.
    """
    if not isinstance(n, exp.Interval) or not isinstance(n.this, exp.Literal) or n.unit is None:
        return None
    unit = n.unit.name.upper()
    try:
        value = Decimal(n.this.name.strip())
    except InvalidOperation:
        return None
    if unit == "MICROSECOND":
        return int(value / 1000)
    return int(value * _MILLIS[unit]) if unit in _MILLIS else None


_MONTHS = {"YEAR": 12, "MONTH": 1}
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _amount(n: exp.Interval) -> tuple[str, str] | None:
    """(DuckDB SQL of the amount, MILLISECOND or MONTH) of an interval, None if not known."""
    unit = n.unit.name.upper() if n.unit is not None else ""
    if not isinstance(n.this, exp.Literal):  # a product already: its amount in its unit
        return (n.this.sql(dialect="duckdb"), unit) if unit in ("MILLISECOND", "MONTH") else None
    if unit in _MONTHS:
        try:
            return str(int(Decimal(n.this.name.strip())) * _MONTHS[unit]), "MONTH"
        except InvalidOperation:
            return None
    ms = day_time_millis(n)
    return None if ms is None else (str(ms), "MILLISECOND")


def interval_product(n: exp.Expression, factor_type) -> exp.Interval | None:
    """``INTERVAL ... * k`` (or ``k * INTERVAL ...``) of an integer ``k``: one interval, or None.

    As Flink 2.3 multiplies them: a day-time interval's milliseconds times k (``INTERVAL '1.5'
    SECOND * id`` is id * 1,500 ms), a year-month interval's months times k in Java's int
    (wrapping around: ``INTERVAL '1' YEAR * j`` of -2147483648 adds 0 months); the result is an
    interval of MILLISECOND or MONTH whose amount is the product (DuckDB SQL). Flink refuses a
    DOUBLE or DECIMAL factor and a division (its code generator: ``Unsupported call``), so does
    the caller; a product anywhere but in a DATE/TIMESTAMP +/- (or another product) is refused.
    """
    if not isinstance(n, exp.Mul) or factor_type is None or factor_type.name not in _INTEGERS:
        return None
    interval, factor = (n.this, n.expression) if isinstance(n.this, exp.Interval) else (n.expression, n.this)
    if not isinstance(interval, exp.Interval) or isinstance(factor, exp.Interval):
        return None
    amount = _amount(interval)
    if amount is None:
        return None
    parent = n.parent
    while isinstance(parent, exp.Paren):
        parent = parent.parent
    if not isinstance(parent, (exp.Add, exp.Sub, exp.Mul)):
        msg = "An interval times a number is supported only added to or subtracted from a DATE or TIMESTAMP"
        raise FunctionError(msg, n)
    text = f"(({amount[0]}) * CAST(({factor.sql(dialect='duckdb')}) AS BIGINT))"
    if amount[1] == "MONTH":  # Flink multiplies months in an int: Java's int arithmetic wraps around
        text = java_int(text)
    return exp.Interval(this=sqlglot.parse_one(text, dialect="duckdb"), unit=exp.var(amount[1]))


def interval_months(n: exp.Expression) -> str | None:
    """DuckDB SQL of the months of a compiled year-month interval (a product too), else None."""
    amount = _amount(n) if isinstance(n, exp.Interval) else None
    return f"({amount[0]})" if amount is not None and amount[1] == "MONTH" else None


def interval_millis(n: exp.Interval) -> str | None:
    """DuckDB SQL of the milliseconds of a day-time interval product (a MILLISECOND interval), else None."""
    if isinstance(n.this, exp.Literal) or n.unit is None or n.unit.name.upper() != "MILLISECOND":
        return None
    return f"({n.this.sql(dialect='duckdb')})"
