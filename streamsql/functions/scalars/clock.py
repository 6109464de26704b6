"""The time family: the current time, instants (TIMESTAMP_LTZ) and time zones.

CURRENT_TIMESTAMP, NOW, LOCALTIMESTAMP, LOCALTIME, CURRENT_TIME, CURRENT_DATE, PROCTIME,
CURRENT_ROW_TIMESTAMP,
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
from streamsql.functions.scalars.cast_text import read_text
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
_NOW_MS = "date_trunc('millisecond', current_timestamp)"
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


@scalar("LOCALTIME", "CURRENT_TIME", group="temporal", sig=((),), result=fixed("TIME", 0),
        deterministic=False, nulls="never NULL", differences=_NOW)
def localtime(c: Call) -> exp.Expression:
    """The current time of day in the session time zone, TIME(0) as Flink 2.3 types both.

    Its milliseconds are kept in the value, as Flink's (a TIME(0) prints none: CAST AS STRING,
    the print sink and the JSON format show the value's).
    """
    return template(f"CAST({wall_clock(_NOW_MS)} AS TIME)")


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
        differences="The precision, format and zone must be literals. Precision 9 and a format ending in "
                    "7 to 9 S letters (TIMESTAMP_LTZ(7) to (9) in Flink) are refused. Of a DOUBLE or FLOAT, "
                    "the fraction of a millisecond (at precision 0 or 3) or of a microsecond (at 6) is "
                    "dropped, floored: Flink's TIMESTAMP_LTZ(3) value keeps it (its print sink shows "
                    "00:00:00.001500 for TO_TIMESTAMP_LTZ(1.5E0 + 0 * d, 3), EXTRACT and comparisons see it; "
                    "a TIMESTAMP_LTZ(3) holds milliseconds here). A DECIMAL beyond BIGINT's range is NULL "
                    "(Flink takes its lowest 64 bits).")
def to_timestamp_ltz(c: Call) -> exp.Expression:
    """An instant from a number of units of 10^-precision seconds, or from a date-time string.

    TO_TIMESTAMP_LTZ(n[, precision]): precision 0 (seconds), 3 (the default: milliseconds) or 6
    (microseconds), as Flink 2.3's ``DateTimeUtils.toTimestampData`` (:func:`epoch_micros`); the
    result is TIMESTAMP_LTZ(3) (milliseconds, floored: Flink's value keeps the fraction of a
    DOUBLE, ``00:00:00.001500`` for 1.5 ms), TIMESTAMP_LTZ(6) for precision 6 (microseconds).
    TO_TIMESTAMP_LTZ(s[,
    format[, zone]]): s parsed with a Java pattern (default 'yyyy-MM-dd HH:mm:ss.SSS', the
    fraction optional) as a wall clock in ``zone`` (default: UTC, as Flink 2.3 does whatever
    the session time zone; its documentation says the session zone). Without a format, the text is
    read as TO_TIMESTAMP(s) reads it ('yyyy-M-d[ H:m:s[.fraction]]'), and a string that does not
    parse fails the job, as in Flink. With one, the text is read as
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
    micros = epoch_micros(t, precision)
    # A TIMESTAMP_LTZ(3) holds milliseconds here (floored, as Flink's TimestampData millisecond);
    # a literal is folded while planning to the type's precision, of an integer at precision 6 to
    # milliseconds too (Flink 2.3's answer in the conformance cases)
    integral = t is not None and t.name in ("TINYINT", "SMALLINT", "INT", "BIGINT")
    if precision < 6 or (c.args[0].is_literal and integral):
        micros = f"({_floor_div(micros, 1000)} * 1000)"
    return template(f"timezone('UTC', make_timestamp({micros}))", c.args[0])


_MIN_SECOND, _MAX_SECOND = -62167219200, 253402300799
"""Flink's TIMESTAMP range in epoch seconds: 0000-01-01 00:00:00 to 9999-12-31 23:59:59 UTC."""


def _floor_div(n: str, d: int) -> str:
    """DuckDB SQL of ``n`` (a BIGINT) divided by ``d`` rounded down (DuckDB's ``//`` truncates)."""
    return f"(({n}) - ((({n}) % {d}) + {d}) % {d}) // {d}"


def epoch_micros(t: SqlType | None, precision: int) -> str:
    """DuckDB SQL (over ``{0}``) of the epoch microseconds of a number of units of 10^-precision s.

    As Flink 2.3's ``DateTimeUtils.toTimestampData`` (precision 0, 3 or 6). NULL when the instant
    is before 0000-01-01 or after 9999-12-31 23:59:59 (whole seconds, floored).

    - A DOUBLE or FLOAT (widened to a double): NULL when ``n / 10^p`` (a double) is outside the
      range, else ``(long) (n * 10^(9 - p))`` nanoseconds (truncated toward zero, saturating at
      Java's long range, NaN 0), floored to microseconds here;
    - a DECIMAL: cut toward zero to whole units (``setScale(0, DOWN)``), then as an integer;
    - an integer: ``floorDiv(n, 10^p)`` seconds checked against the range, exact.
    """
    if t is not None and t.name in ("DOUBLE", "FLOAT"):
        x, seconds = "CAST({0} AS DOUBLE)", f"(CAST({{0}} AS DOUBLE) / {10.0 ** precision!r})"
        nanos = f"({x} * {10.0 ** (9 - precision)!r})"
        java_long = (f"CASE WHEN isnan({nanos}) THEN 0 WHEN {nanos} >= 9.223372036854775807e18 "
                     f"THEN 9223372036854775807 WHEN {nanos} <= -9.223372036854775808e18 "
                     f"THEN -9223372036854775808 ELSE CAST(trunc({nanos}) AS BIGINT) END")
        return (f"(CASE WHEN isnan({seconds}) OR {seconds} BETWEEN {float(_MIN_SECOND)!r} "
                f"AND {float(_MAX_SECOND)!r} THEN {_floor_div(java_long, 1000)} END)")
    units = "trunc({0})" if t is not None and t.name == "DECIMAL" else "{0}"
    scale = 10 ** precision
    low, high = _MIN_SECOND * scale, _MAX_SECOND * scale + scale - 1
    return (f"(CASE WHEN {units} BETWEEN {low} AND {high} "
            f"THEN CAST({units} AS BIGINT) * {10 ** (6 - precision)} END)")


def _parse_ltz(c: Call) -> exp.Expression:
    zone = zone_literal(c, 2) if len(c.args) == 3 else "'UTC'"
    if len(c.args) == 1:
        # as TO_TIMESTAMP(s) reads it (Flink's default formatter 'yyyy-M-d[ H:m:s[.fraction]]', SMART:
        # '2024-2-3' is 2024-02-03 00:00, '2024-02-30' 2024-02-29), failing the job where that is NULL
        wall = read_text(SqlType("TIMESTAMP", 3))
        failed = fail_sql("'TO_TIMESTAMP_LTZ: cannot parse ''' || {0} || ''' as yyyy-M-d[ H:m:s[.fraction]]'")
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


WATERMARK_VARIABLE = "__streamsql_current_watermark"
"""The DuckDB variable (``getvariable``) holding the evaluating operator's current watermark, ms since
the epoch (unset: NULL); the Calc operator sets it on its connection before each batch."""


def _watermark_type(c: Call) -> SqlType:
    t = c.args[0].type
    ltz = t is not None and t.name == "TIMESTAMP_LTZ"
    return SqlType("TIMESTAMP_LTZ", 3) if ltz else SqlType("TIMESTAMP", 3)


@scalar("CURRENT_WATERMARK", group="temporal", sig=(("TIMESTAMP",),), result=_watermark_type,
        deterministic=False, nulls="NULL before the operator's first watermark",
        differences="Evaluated in a projection or filter (a Calc) only. As in Flink, the argument must be "
                    "a rowtime attribute of the input (anything else is refused in Flink's words: `The "
                    "argument of CURRENT_WATERMARK() must be a rowtime attribute, but was 'TIMESTAMP(3)'.`). "
                    "Flink's use: `WHERE CURRENT_WATERMARK(ts) IS NULL OR ts > CURRENT_WATERMARK(ts)` keeps "
                    "the rows that are not late.")
def current_watermark(c: Call) -> exp.Expression:
    """CURRENT_WATERMARK(rowtime): the watermark of the operator evaluating the row, as the rowtime's type.

    As Flink's: NULL until the first watermark reached the operator (per task, as Flink's per subtask),
    then the last watermark before the row; a TIMESTAMP(3) for a TIMESTAMP rowtime, a TIMESTAMP_LTZ(3)
    for a TIMESTAMP_LTZ one. The value is the variable :data:`WATERMARK_VARIABLE` the Calc operator sets.
    """
    ms = f"getvariable('{WATERMARK_VARIABLE}')"
    if _watermark_type(c).name == "TIMESTAMP_LTZ":
        return exp.Var(this=f"(make_timestamptz(CAST({ms} AS BIGINT) * 1000))")
    return exp.Var(this=f"(CAST(epoch_ms(CAST({ms} AS BIGINT)) AS TIMESTAMP_MS))")
