"""The time family: the current time, instants (TIMESTAMP_LTZ) and time zones.

CURRENT_TIMESTAMP, NOW, LOCALTIMESTAMP, CURRENT_DATE, PROCTIME, CURRENT_ROW_TIMESTAMP,
TO_TIMESTAMP_LTZ, CONVERT_TZ.

The session time zone is Flink's ``'table.local-time-zone'`` (StreamSQL's default: UTC), read
when the statement is planned (:func:`~.registry.session_zone`). A TIMESTAMP_LTZ is an instant
(DuckDB's TIMESTAMPTZ); its wall clock in a zone is ``timezone(zone, t)``, and a wall clock in a
zone becomes an instant with ``timezone(zone, ts)`` (DuckDB's ICU functions, independent of the
connection's own TimeZone setting).

The current time is the start of the batch's evaluation, the same for every row of a batch:
Flink evaluates CURRENT_TIMESTAMP once per record in streaming mode (once per query in batch).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.config import is_time_zone
from streamsql.core.timestamp_precision import truncate_sql
from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import (
    Call,
    fail_sql,
    fixed,
    scalar,
    sql_string,
    template,
)
from streamsql.functions.scalars.temporal import DEFAULT_PARSE, parse_timestamp_data, wall_clock

S, N, INTEGER = "STRING", "NUMERIC", "INTEGER"
LTZ = fixed("TIMESTAMP_LTZ", 3)
_NOW = "Evaluated once per batch: every row of a batch gets the same time (Flink: once per record)."


def zone_literal(c: Call, i: int) -> str:
    """Argument ``i`` as a checked DuckDB time zone literal.

    Raises:
        FunctionError: when it is not a literal naming a time zone.
    """
    zone = c.literal(i, "the time zone")
    if zone is not None and not is_time_zone(zone):
        msg = f"{c.name}: '{zone}' is not a time zone (use an IANA name such as 'Europe/Berlin', or 'UTC')"
        raise c.fail(msg)
    return "NULL" if zone is None else sql_string(zone)


def _now(c: Call) -> exp.Expression:
    """The current instant, in milliseconds (TIMESTAMP_LTZ(3))."""
    return template("date_trunc('millisecond', current_timestamp)")


for _name in ("CURRENT_TIMESTAMP", "NOW", "PROCTIME", "CURRENT_ROW_TIMESTAMP"):
    scalar(_name, group="temporal", sig=((),), result=LTZ, deterministic=False, nulls="never NULL",
           differences=_NOW)(_now)


@scalar("LOCALTIMESTAMP", group="temporal", sig=((),), result=fixed("TIMESTAMP", 3), deterministic=False,
        nulls="never NULL", differences=_NOW)
def localtimestamp(c: Call) -> exp.Expression:
    """The current wall clock in the session time zone (TIMESTAMP(3))."""
    return template(wall_clock("date_trunc('millisecond', current_timestamp)"))


@scalar("CURRENT_DATE", group="temporal", sig=((),), result=fixed("DATE"), deterministic=False,
        nulls="never NULL", differences=_NOW)
def current_date(c: Call) -> exp.Expression:
    """Today in the session time zone."""
    return template(f"CAST({wall_clock('current_timestamp')} AS DATE)")


def _to_timestamp_ltz_type(c: Call) -> SqlType:
    """TIMESTAMP_LTZ(6) for ``TO_TIMESTAMP_LTZ(n, 6)``, else TIMESTAMP_LTZ(3), as Flink 2.3 types them.

    With a format: the precision of its fraction (:func:`_format_precision`).
    """
    second = c.args[1].value() if len(c.args) >= 2 and c.args[1].is_literal else None
    if isinstance(second, str):
        return SqlType("TIMESTAMP_LTZ", _format_precision(second))
    return SqlType("TIMESTAMP_LTZ", 6 if second == 6 else 3)


def _format_precision(java: str) -> int:
    """Flink's ``DateTimeUtils.precisionFromFormat``: the number of S letters ending the format, 3 to 9."""
    return max(3, min(len(java) - len(java.rstrip("S")), 9))


@scalar("TO_TIMESTAMP_LTZ", group="temporal", sig=((N,), (N, INTEGER), (S,), (S, S), (S, S, S)),
        result=_to_timestamp_ltz_type,
        nulls="NULL if any argument is NULL, the string does not parse or the number is out of range",
        differences="The precision, format and zone must be literals. A format ending in 7 to 9 S letters "
                    "(TIMESTAMP_LTZ(7) to (9) in Flink) is refused.")
def to_timestamp_ltz(c: Call) -> exp.Expression:
    """An instant from epoch seconds/milliseconds, or from a date-time string.

    TO_TIMESTAMP_LTZ(n[, precision]): n in units of 10^-precision seconds (0: seconds, 3, the
    default: milliseconds; 6: microseconds, kept: Flink 2.3's result is TIMESTAMP_LTZ(6), except
    for a literal ``n``, which Flink's planner folds to a value cut down to milliseconds:
    ``TO_TIMESTAMP_LTZ(1709214330, 6)`` is ``00:28:29.214000``); the others are cut down to
    milliseconds, TIMESTAMP_LTZ(3), as Flink. TO_TIMESTAMP_LTZ(s[,
    format[, zone]]): s parsed with a Java pattern (default 'yyyy-MM-dd HH:mm:ss.SSS', the
    fraction optional) as a wall clock in ``zone`` (default: UTC, as Flink 2.3 does whatever
    the session time zone; its documentation says the session zone). Without a format, a
    string that does not parse fails the job, as in Flink. With one, the text is read as
    TO_TIMESTAMP reads it (Flink's ``parseTimestampData``: java.time, else java.sql's
    ``Timestamp.valueOf``), at the precision of the format's last S letters (Flink's
    ``precisionFromFormat``: 3 to 9; 7 to 9 refused here; of a literal text milliseconds, as
    Flink's planner folds it).
    """
    t = c.args[0].type
    if (t is not None and t.name == "STRING") or (t is None and c.args[0].is_literal
                                                   and isinstance(c.args[0].value(), str)):
        return _parse_ltz(c)
    precision = c.literal(1, "the precision") if len(c.args) == 2 else 3
    if precision is None:
        return exp.Null()
    if precision not in (0, 3, 6):
        msg = f"TO_TIMESTAMP_LTZ: precision {precision} is not supported yet; supported: 0 (seconds), "
        msg += "3 (milliseconds), 6 (microseconds)"
        raise c.fail(msg)
    if precision == 6:
        micros = "floor(CAST({0} AS DOUBLE))"
        if c.args[0].is_literal:  # folded while planning: Flink 2.3 keeps milliseconds
            micros = "floor(CAST({0} AS DOUBLE) / 1000) * 1000"
        # Flink gives NULL outside its TIMESTAMP range (years 0000-9999)
        return template(f"CASE WHEN abs({micros}) < 253402300800000000 "
                        f"THEN timezone('UTC', make_timestamp(CAST({micros} AS BIGINT))) END", c.args[0])
    ms = epoch_millis(c.args[0].type, precision)
    return template(f"CASE WHEN {ms} BETWEEN {_MIN_EPOCH_MS} AND {_MAX_EPOCH_MS} "
                    f"THEN timezone('UTC', make_timestamp(CAST({ms} AS BIGINT) * 1000)) END", c.args[0])


_MIN_EPOCH_MS, _MAX_EPOCH_MS = -62167219200000, 253402300799999
"""Flink's TIMESTAMP range in epoch milliseconds: 0000-01-01 00:00:00.000 to 9999-12-31 23:59:59.999 UTC."""


def epoch_millis(t: SqlType | None, precision: int) -> str:
    """DuckDB SQL (over ``{0}``) of the epoch milliseconds Flink makes of a number of unit 10^-precision s.

    As Flink 2.3's ``TO_TIMESTAMP_LTZ`` (precision 0: seconds, 3: milliseconds): of seconds only those
    in [0000-01-01, 9999-12-31 23:59:59] are taken (NULL for the others; the caller's range check on
    the milliseconds gives NULL past the range). A DECIMAL is cut toward zero to whole units
    (``BigDecimal.setScale(0, DOWN)``: ``-1.5`` seconds is ``-1``); an integer is exact. A DOUBLE (or
    FLOAT) is floored to milliseconds, as Flink's planner folds a constant (``-1.5E0`` ms is ``-2``;
    computed per row Flink keeps its sub-millisecond digits, which a TIMESTAMP_LTZ(3) here cannot
    hold).
    """
    seconds = f"BETWEEN {_MIN_EPOCH_MS // 1000} AND {_MAX_EPOCH_MS // 1000}"
    if t is not None and t.name in ("DOUBLE", "FLOAT"):
        x = "CAST({0} AS DOUBLE)"
        return f"floor({x})" if precision == 3 else f"(CASE WHEN {x} {seconds} THEN floor({x} * 1000) END)"
    whole = "trunc({0})" if t is not None and t.name == "DECIMAL" else "{0}"
    if precision == 3:
        return whole
    return f"(CASE WHEN {whole} {seconds} THEN CAST({whole} AS BIGINT) * 1000 END)"


def _parse_ltz(c: Call) -> exp.Expression:
    zone = zone_literal(c, 2) if len(c.args) == 3 else "'UTC'"
    if len(c.args) == 1:
        wall = DEFAULT_PARSE
        failed = fail_sql("'TO_TIMESTAMP_LTZ: cannot parse ''' || {0} || ''' as yyyy-MM-dd HH:mm:ss[.SSS]'")
        wall = f"CASE WHEN {{0}} IS NULL OR {wall} IS NOT NULL THEN {wall} ELSE {failed} END"
        # Flink keeps milliseconds of the text, cut down (DateTimeUtils.parseTimestampData at precision 3)
        cut = truncate_sql(f"CAST({wall} AS TIMESTAMP)", 3, floor=True)
        return template(f"timezone({zone}, {cut})", c.args[0])
    java = c.literal(1, "the format")
    if java is None:
        return exp.Null()
    precision = _format_precision(java)
    if precision > 6:
        msg = f"TO_TIMESTAMP_LTZ: a format ending in {precision} S letters is not supported (at most 6)"
        raise c.fail(msg)
    if c.args[0].is_literal:  # folded while planning: Flink 2.3 keeps milliseconds (as of a number)
        precision = 3
    # as TO_TIMESTAMP reads it (Flink's parseTimestampData at the format's precision), in the zone
    return template(f"timezone({zone}, {parse_timestamp_data(c, java, precision)})", c.args[0])


@scalar("CONVERT_TZ", group="temporal", sig=((S, S, S),), result=fixed("STRING"),
        nulls="NULL if any argument is NULL or the string does not parse",
        differences="The zones must be literals; an unknown zone is refused at planning (Flink takes GMT).")
def convert_tz(c: Call) -> exp.Expression:
    """A 'yyyy-MM-dd HH:mm:ss' wall clock in zone ``from`` as the wall clock in zone ``to``."""
    source, target = zone_literal(c, 1), zone_literal(c, 2)
    # fractions of a second parse, and are dropped from the result, as in Flink
    wall = f"CAST({DEFAULT_PARSE} AS TIMESTAMP)"
    converted = f"timezone({target}, timezone({source}, {wall}))"
    return template(f"strftime({converted}, '%Y-%m-%d %H:%M:%S')", c.args[0])
