"""A TIMESTAMP or TIMESTAMP_LTZ value brought to a lower fractional precision, as Flink does it.

Flink never rounds a timestamp to a lower precision; it cuts digits off, in one of two ways
(both read from Flink 2.3's answers, compat cases ``timestamp_cast_precision`` and
``sink_timestamp_precision``):

- a value (a column, an expression, a sink's implicit cast) goes through Flink's
  ``DateTimeUtils.truncate(ts, p)``. Its ``TimestampData`` is epoch milliseconds (floored) plus
  a nano-of-millisecond. For ``p <= 3`` the *milliseconds* lose their last ``3 - p`` digits with
  Java's integer division, which truncates toward zero: before 1970 that moves the value *up*
  (``1969-12-31 23:59:59.5`` is ``1970-01-01 00:00:00`` at precision 0; ``23:59:58.5`` is
  ``23:59:59``). For ``p`` 4 and 5 the nano-of-millisecond loses its last ``9 - p`` digits (down),
  unless the nano-of-second, written as an integer, has at most ``p`` digits, in which case
  the value is kept whole (``10:00:00.000012`` stays so at precision 5; it prints ``.00001``);
- a TIMESTAMP literal (``CAST(TIMESTAMP '...' AS TIMESTAMP(p))``, folded by Calcite while
  planning) and a string parsed into a timestamp drop fraction digits from the wall clock: down,
  before 1970 too (``TIMESTAMP '1969-12-31 23:59:59.999'`` at precision 2 is ``23:59:59.99``).

DuckDB's own CAST to ``TIMESTAMP_MS``/``TIMESTAMP_S`` rounds to the nearest unit instead, which
gave ``10:00:01`` for ``10:00:00.5`` at precision 0, and so does its CAST of a ``TIMESTAMP_NS``
(precision 7 to 9, nanoseconds) to ``TIMESTAMP``: ``10:00:00.123456789`` became ``.123457``. A
nanosecond value is first cut down to the microsecond in nanoseconds (:func:`floor_ns_sql`), which
Flink's ``truncate`` does too (its nano-of-millisecond loses digits, down), then as above.
"""

from __future__ import annotations

import re

#: A column or a literal, in parentheses or not: written again at no cost.
_PLAIN = re.compile(r"""\(*(?:"(?:[^"]|"")*"|'(?:[^']|'')*'|-?[0-9]+)\)*""")


def truncate_sql(expr: str, precision: int, floor: bool = False, source: int = 6, ltz: bool = False) -> str:
    """DuckDB SQL of ``expr`` (a TIMESTAMP[_MS] or TIMESTAMPTZ) cut to ``precision`` fraction digits.

    The result has ``expr``'s DuckDB type family (a wall clock stays a wall clock, an instant an
    instant: the cut is an INTERVAL subtracted, so no time zone is involved); the caller casts it to
    the target type, which is then exact. Precision 6 and above is ``expr`` unchanged (DuckDB keeps
    microseconds).

    Args:
        expr: DuckDB SQL of the value.
        precision: the target's fractional-second precision (0-9).
        floor: cut the wall clock's digits down (a literal or a parsed string) instead of Flink's
            ``DateTimeUtils.truncate`` (see the module docstring).
        source: ``expr``'s precision; above 6 it is a ``TIMESTAMP_NS`` (``TIMESTAMPTZ_NS`` when
            ``ltz``), cut in nanoseconds first (:func:`floor_ns_sql`) and, below precision 6,
            cast to microseconds (then exact).
        ltz: ``expr`` is an instant (only read when ``source`` is above 6).
    """
    if source > 6 and precision < source:
        expr = floor_ns_sql(expr, max(precision, 6), ltz)
        if precision < 6:
            expr = f"CAST({expr} AS {'TIMESTAMPTZ' if ltz else 'TIMESTAMP'})"
    if precision >= 6:
        return expr
    if not _PLAIN.fullmatch(expr):
        # named up to seven times below: computed once per row (a RAND() or a Python function in
        # it cut one value by the digits of another: CAST(.. AS TIMESTAMP(0)) of 00:00:00.5 was
        # 23:59:59 the day before). The body names nothing but the parameter: nothing to hide.
        return f"list_transform([{expr}], lambda __tp: {_truncated('__tp', precision, floor)})[1]"
    return _truncated(expr, precision, floor)


def _truncated(expr: str, precision: int, floor: bool) -> str:
    """:func:`truncate_sql`'s SQL, ``expr`` written where it is used (below precision 6)."""
    # + 0 µs: a TIMESTAMP_MS or TIMESTAMP_S becomes a TIMESTAMP (an instant stays one), whose
    # epoch_us DuckDB computes past 2262 too (of a TIMESTAMP_MS it goes through nanoseconds and
    # fails: "Could not convert Timestamp to higher precision" for CAST(DATE '9990-01-01' AS
    # TIMESTAMP(3)) into a TIMESTAMP(3) column)
    us = f"epoch_us(({expr}) + to_microseconds(0))"
    if floor:
        delta = _floor_mod(us, 10 ** (6 - precision))
    elif precision <= 3:  # epoch ms floored, then its last digits cut toward zero (Java's l / m * m)
        ms = f"(({us} - {_floor_mod(us, 1000)}) // 1000)"
        delta = f"({us} - 1000 * ({ms} - {ms} % {10 ** (3 - precision)}))"
    else:
        delta = (f"CASE WHEN {_floor_mod(us, 1_000_000)} < {10 ** (precision - 3)} THEN 0 "
                 f"ELSE {_floor_mod(us, 10 ** (6 - precision))} END")
    return f"(({expr}) - to_microseconds({delta}))"


def floor_ns_sql(expr: str, precision: int, ltz: bool = False) -> str:
    """DuckDB SQL of the ``TIMESTAMP_NS`` ``expr`` (``TIMESTAMPTZ_NS`` if ``ltz``) cut to ``precision``.

    The type stays (nanoseconds); the digits past ``precision`` (0-9) are dropped toward the past,
    as Flink's ``DateTimeUtils.truncate`` drops the nano-of-millisecond's (precision 4 to 8; a
    lower precision's milliseconds are cut by :func:`truncate_sql` afterwards). DuckDB has no
    nanosecond INTERVAL: the value is rebuilt from its epoch nanoseconds.
    """
    if precision >= 9:
        return expr

    def cut(x: str) -> str:
        ns = f"epoch_ns({x})"
        rebuilt = f"make_timestamp_ns({ns} - {_floor_mod(ns, 10 ** (9 - precision))})"
        return f"timezone('UTC', {rebuilt})" if ltz else rebuilt

    if _PLAIN.fullmatch(expr):
        return cut(expr)
    return f"list_transform([{expr}], lambda __tn: {cut('__tn')})[1]"


def _floor_mod(x: str, m: int) -> str:
    """DuckDB SQL of ``x`` modulo ``m`` in ``[0, m)`` (DuckDB's ``%`` keeps the dividend's sign)."""
    return f"((({x}) % {m} + {m}) % {m})"


def truncate_time_sql(expr: str, precision: int) -> str:
    """DuckDB SQL of the TIME ``expr`` cut to ``min(precision, 3)`` fraction digits, as Flink's TIME.

    Flink holds a TIME as an int of milliseconds of the day, so TIME(p) for p > 3 is TIME(3) (its
    DESCRIBE shows so) and a TIME(p < 3) value loses its last digits, down
    (``CAST(TIME '12:34:56.987' AS TIME(1))`` is ``12:34:56.9``; ``scripts/flink_time.py``); a
    TIME of 24:00:00 stays (``scripts/flink_query_gaps.py``).
    """
    unit = 10 ** (6 - min(precision, 3))  # microseconds of the kept unit
    us = f"epoch_us(CAST({expr} AS TIME))"
    cut = f"(TIME '00:00:00' + to_microseconds({us} // {unit} * {unit}))"
    # 24:00:00 (Flink's CEIL of 23:59:59.999 TO SECOND, 86400000 ms) stays: DuckDB's + wraps it
    return f"(CASE WHEN {us} >= 86400000000 THEN TIME '24:00:00' ELSE {cut} END)"
