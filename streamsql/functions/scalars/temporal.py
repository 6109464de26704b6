"""Temporal functions: EXTRACT and its shorthands, DATE_FORMAT, TIMESTAMPDIFF/ADD, and more.

The others: FLOOR/CEIL(t TO unit), TO_TIMESTAMP, TO_DATE, UNIX_TIMESTAMP, FROM_UNIXTIME.

Flink's semantics that DuckDB does not share:

- DAYOFWEEK and EXTRACT(DOW) count 1 = Sunday .. 7 = Saturday (DuckDB: 0 = Sunday).
- TIMESTAMPDIFF counts whole elapsed units, truncated toward zero (DuckDB's date_diff counts
  crossed boundaries: 23:00 → 01:00 is 0 days in Flink, 1 in DuckDB). MONTH, QUARTER and YEAR
  count whole months as Calcite does: whole months between the dates (the day clamped to the
  month's end), minus one when the start plus them lands on the end's date at a later time.
- EXTRACT of a timestamp and FLOOR/CEIL(t TO MONTH | QUARTER | YEAR) work on its epoch
  milliseconds with Java's truncating division, as Flink: before 1970 HOUR/MINUTE/SECOND are
  negative and the day is the next one; CEIL to a month, quarter or year ignores the time of day.
- TO_DATE without a pattern reads the text as Flink's parseDate: year[-month[-day]], each part
  trimmed, the text cut at its first space ('42' is 0042-01-01, '2024-2' 2024-02-01).
- Format patterns are Java's (``yyyy-MM-dd HH:mm:ss``), translated to strftime at planning
  time: the pattern must be a literal, and a pattern letter without a translation is refused.
- UNIX_TIMESTAMP, FROM_UNIXTIME, and EXTRACT, FLOOR/CEIL and DATE_FORMAT of a TIMESTAMP_LTZ
  work in the session time zone (``'table.local-time-zone'``, read at planning; see
  :mod:`.clock`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable

import pyarrow as pa
from sqlglot import exp

from streamsql.core.timestamp_precision import truncate_sql
from streamsql.core.types import SqlType
from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars import (
    clock_hours,
    flink_months,
    java_fields,
    java_ints,
    simple_date,
    time_type,
    time_units,
)
from streamsql.functions.scalars.cast_text import java_trim, read_text, text_groups, time_of_day
from streamsql.functions.scalars.registry import (
    Call,
    bind,
    fail_sql,
    fixed,
    same_as,
    scalar,
    session_zone,
    sql_string,
    template,
)

T, D, S, INTEGER, N = "TIMESTAMP", "DATETIME", "STRING", "INTEGER", "NUMERIC"
BIGINT = fixed("BIGINT")

_PARTS = {"YEAR": "year({0})", "QUARTER": "quarter({0})", "MONTH": "month({0})", "WEEK": "week({0})",
          "DAY": "day({0})", "DOY": "dayofyear({0})", "DOW": "(dayofweek({0}) + 1)", "HOUR": "hour({0})",
          "MINUTE": "minute({0})", "SECOND": "second({0})"}
_TIME_PARTS = ("HOUR", "MINUTE", "SECOND")


def _part(c: Call, unit: str) -> exp.Expression:
    if unit not in _PARTS and unit not in time_units.EXTRA_EXTRACT:
        units = ", ".join([*_PARTS, *time_units.EXTRA_EXTRACT])
        msg = f"{c.name}: unsupported unit {unit} (supported: {units})"
        raise c.fail(msg)
    t = c.args[0].type
    if time_type.is_time(t):  # its milliseconds of the day, as a timestamp's of 1970-01-01
        refused = time_type.extract_refusal(unit, t)
        if refused is not None:
            raise c.fail(refused)
        value = time_type.on_epoch_day("{0}")
        if unit in time_units.EXTRA_EXTRACT:
            return template(time_units.extract_timestamp(unit, value, flink_day(value), sub_millis=False),
                            c.args[0])
        return template(_millis_part(value, unit), c.args[0])
    if unit in time_units.EXTRA_EXTRACT:
        if t is not None and t.name == "DATE" and unit in ("MICROSECOND", "NANOSECOND"):
            msg = f"unit {unit} can not be applied to DATE variable"  # Flink 2.3's words
            raise c.fail(msg)
        if t is not None and t.name == "DATE":
            return template(time_units.extract_date(unit, "{0}"), c.args[0])
        value = _wall_if_ltz(c, "{0}")
        return template(time_units.extract_timestamp(unit, value, flink_day(value)), c.args[0])
    if unit in _TIME_PARTS and t is not None and t.name == "DATE":
        # a DATE's time of day is midnight (Flink 2.3: EXTRACT(MINUTE FROM DATE '2024-02-29') is 0)
        return template("CASE WHEN {0} IS NULL THEN NULL ELSE CAST(0 AS BIGINT) END", c.args[0])
    # A TIMESTAMP_LTZ is an instant: its fields are those of its wall clock in the session time
    # zone, as Flink's EXTRACT (DuckDB's hour() of a TIMESTAMPTZ would read its own zone, UTC)
    value = _wall_if_ltz(c, "{0}")
    if t is not None and t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return template(_millis_part(value, unit), c.args[0])
    return template(_PARTS[unit].format(value), c.args[0])


# Flink's EXTRACT of a timestamp (ExtractCallGen, DateTimeUtils.convertExtract) works on its
# epoch milliseconds with Java's truncating / and %: a time field is (ms % factor) / unit, a date
# field is that of the day ms / 86400000. Before 1970 a time of day is negative and the day one
# later (HOUR(TIMESTAMP '1969-07-20 20:17:40') is -3, DAYOFMONTH 21), as Flink 2.3 prints them;
# DuckDB's // and % truncate as Java's do.
_TIME_FACTORS = {"HOUR": (86_400_000, 3_600_000), "MINUTE": (3_600_000, 60_000), "SECOND": (60_000, 1000)}


def _millis_part(value: str, unit: str) -> str:
    """DuckDB SQL of Flink's EXTRACT(unit FROM value) for a timestamp ``value`` (DuckDB SQL)."""
    if unit in _TIME_FACTORS:
        factor, size = _TIME_FACTORS[unit]
        return f"(({time_units.epoch_millis(value)} % {factor}) // {size})"
    return _PARTS[unit].format(flink_day(value))


def flink_day(value: str) -> str:
    """The DATE Flink's date functions see in a timestamp: epoch milliseconds / 86400000, truncated."""
    return f"(DATE '1970-01-01' + CAST({time_units.epoch_millis(value)} // 86400000 AS INTEGER))"


def _is_ltz(c: Call) -> bool:
    t = c.args[0].type
    return t is not None and t.name == "TIMESTAMP_LTZ"


def _wall_if_ltz(c: Call, value: str) -> str:
    """``value`` (SQL over the first argument), or its session-zone wall clock for a TIMESTAMP_LTZ."""
    return wall_clock(value) if _is_ltz(c) else value


@scalar("EXTRACT", group="temporal", sig=((D,), ("TIME",)), result=BIGINT)
def extract(c: Call) -> exp.Expression:
    """A field of a date or timestamp: EXTRACT(unit FROM t).

    Units: YEAR, QUARTER, MONTH, WEEK (ISO), DAY, DOY, DOW (1 = Sunday), HOUR, MINUTE, SECOND, and
    those of :mod:`.time_units` (MILLISECOND, MICROSECOND, NANOSECOND, EPOCH, DECADE, CENTURY,
    MILLENNIUM, ISODOW, ISOYEAR).
    """
    return _part(c, c.unit or "")


def _shorthand(unit: str):
    def build(c: Call) -> exp.Expression:
        """EXTRACT(<unit> FROM t)."""
        return _part(c, unit)

    return build


for _name, _unit in (("YEAR", "YEAR"), ("QUARTER", "QUARTER"), ("MONTH", "MONTH"), ("WEEK", "WEEK"),
                     ("DAYOFMONTH", "DAY"), ("DAYOFYEAR", "DOY"), ("DAYOFWEEK", "DOW"), ("HOUR", "HOUR"),
                     ("MINUTE", "MINUTE"), ("SECOND", "SECOND")):
    # a date unit of a TIME is refused at planning; Flink 2.3 plans it and fails the job at its first row
    _of_time = "" if _unit in ("HOUR", "MINUTE", "SECOND") else (
        f"{_name} of a TIME is refused at planning ('unit {_unit} can not be applied to time variable'); "
        "Flink 2.3 plans it and fails the job at its first row.")
    scalar(_name, group="temporal", sig=((D,), ("TIME",)), result=BIGINT,
           differences=_of_time)(_shorthand(_unit))


def wall_clock(instant: str) -> str:
    """DuckDB SQL of an instant's wall clock (TIMESTAMP) in the session time zone."""
    return f"timezone({sql_string(session_zone())}, {instant})"


def instant(wall: str) -> str:
    """DuckDB SQL of the instant (TIMESTAMPTZ) a wall clock (TIMESTAMP) is in the session time zone."""
    return f"timezone({sql_string(session_zone())}, CAST({wall} AS TIMESTAMP))"


# -- Java date/time patterns -----------------------------------------------------------------------
_YEAR = "\x01%Y\x02"
"""What Java's 'y' becomes in a format: %Y between markers, its leading zeros stripped after."""


_JAVA = {("y", 4): "%Y", ("y", 2): "%y", ("y", 1): _YEAR, ("M", 1): "%-m", ("M", 2): "%m", ("M", 3): "%b",
         ("M", 4): "%B", ("d", 1): "%-d", ("d", 2): "%d", ("H", 1): "%-H", ("H", 2): "%H", ("h", 1): "%-I",
         ("h", 2): "%I", ("m", 1): "%-M", ("m", 2): "%M", ("s", 1): "%-S", ("s", 2): "%S", ("S", 3): "%g",
         ("S", 6): "%f", ("a", 1): "%p", ("E", 1): "%a", ("E", 2): "%a", ("E", 3): "%a", ("E", 4): "%A",
         ("D", 3): "%j", ("D", 1): "%-j", ("L", 1): "%-m", ("L", 2): "%m", ("L", 3): "%b", ("L", 4): "%B"}


_WEEK = {1: "\x03", 2: "\x04"}
"""What Java's 'w' and 'ww' become in a format (not a parse): markers that :func:`formatted`
replaces with the week of the year, which strftime has not (see :func:`_week_of_year`)."""


def strftime_pattern(c: Call, java: str, parsing: bool = False, flavour: str | None = None,
                     fields: list | None = None, era_years: bool = False) -> str:
    """The strftime/strptime pattern for a Java DateTimeFormatter pattern.

    A format (``flavour`` given, see :mod:`.java_fields`) writes a marker for a letter strftime has
    no directive for, collected in ``fields``; with ``era_years`` its ``y`` letters too, as
    java.time writes a year outside 1..9999 (:data:`.java_fields.ERA_YEAR`).

    Raises:
        streamsql.functions.scalars.registry.FunctionError: for a pattern letter (or count)
            without a translation.
    """
    out = []
    for m in re.finditer(r"'([^']*)'|([A-Za-z])\2*|.", java):
        text = m.group(0)
        if m.group(1) is not None or text == "''":
            out.append((m.group(1) or "'").replace("%", "%%"))
        elif m.group(2):
            spec = _JAVA.get((text[0], len(text)))
            if era_years and text[0] == "y" and fields is not None:
                spec = java_fields.marker(java_fields.ERA_YEAR, len(text), java_fields.JAVA_TIME, fields)
            if text[0] == "w" and not parsing:
                spec = _WEEK.get(len(text))
            if flavour == java_fields.JULIAN and text[0] in java_fields.JULIAN_LETTERS:
                spec = None
            if spec is None and flavour is not None and fields is not None:
                spec = java_fields.marker(text[0], len(text), flavour, fields)
            if spec is None:
                msg = f"{c.name}: unsupported pattern letters '{text}' in '{java}'"
                raise c.fail(msg)
            out.append(spec.replace(_YEAR, "%Y").replace("%-", "%") if parsing else spec)
        elif text in "[]" and flavour == java_fields.JAVA_TIME and not parsing:
            continue  # an optional section of a format: written, its fields are all there
        else:
            out.append(text.replace("%", "%%"))
    return "".join(out)


_FIXED = {"y": (2, 4), "M": (2,), "d": (2,), "H": (2,), "h": (2,), "m": (2,), "s": (2,), "S": (3, 6)}


def fixed_width(java: str) -> int | None:
    """The length of every text a Java pattern writes, if all its fields have a fixed width."""
    width = 0
    for m in re.finditer(r"'([^']*)'|([A-Za-z])\2*|.", java):
        if m.group(2) and len(m.group(0)) not in _FIXED.get(m.group(2), ()):
            return None
        width += len(m.group(1)) if m.group(1) is not None else len(m.group(0))
    return width


def _pattern(c: Call, i: int, default: str, parsing: bool = False, flavour: str | None = None,
             fields: list | None = None, era_years: bool = False) -> str | None:
    java = c.literal(i, "the format") if len(c.args) > i else default
    if java is None:
        return None
    return sql_string(strftime_pattern(c, java, parsing, flavour, fields, era_years))


def formatted(c: Call, value: str, i: int, default: str,
              flavour: str = java_fields.JAVA_TIME) -> exp.Expression:
    """``value`` (DuckDB SQL over ``{0}``) formatted with the Java pattern of argument ``i``.

    strftime has no unpadded year: Java's 'y' writes year 99 as '99' where %Y writes '0099', so
    a pattern with 'y' strips the leading zeros of its %Y (one regex pass per row, only then).
    ``flavour``: the Java formatter whose letters are read (:mod:`.java_fields`).
    """
    out = _formatted(c, value, i, default, flavour, False)
    if out is None:
        return exp.Null()
    java = c.literal(i, "the format") if len(c.args) > i else default
    if flavour == java_fields.JAVA_TIME and re.search(r"(?<!')y", re.sub(r"'[^']*'", "", java)):
        # a year outside 1..9999: java.time's year of the era, a sign past the letters' width
        # (Flink 2.3: 'yyyy' of 10024 is +10024, of -976 (977 BC) 0977); the years strftime writes
        # as Java, the others per field
        era = _formatted(c, value, i, default, flavour, True)
        out = f"CASE WHEN year({value}) BETWEEN 1 AND 9999 THEN {out} ELSE {era} END"
    elif flavour == java_fields.SIMPLE and re.search(r"[yYMLdDw]", re.sub(r"'[^']*'", "", java)):
        # before 1582-10-15 SimpleDateFormat writes the Julian calendar's date (java_fields.JULIAN)
        julian = _formatted(c, value, i, default, java_fields.JULIAN, False)
        out = f"CASE WHEN {value} >= TIMESTAMP '1582-10-15' THEN {out} ELSE {julian} END"
    return template(out, c.args[0])


def _formatted(c: Call, value: str, i: int, default: str, flavour: str, era_years: bool) -> str | None:
    """:func:`formatted`'s DuckDB SQL, with its ``y`` letters as fields when ``era_years``."""
    fields: list = []
    fmt = _pattern(c, i, default, flavour=flavour, fields=fields, era_years=era_years)
    if fmt is None:
        return None
    shown = java_fields.julian_window(value) if flavour == java_fields.JULIAN else value
    out = java_fields.fill(f"strftime({shown}, {fmt})", value, fields, flavour)
    if _YEAR in fmt:
        out = f"regexp_replace({out}, '\x010*([0-9]+)\x02', '\\1', 'g')"
    for width, marker in _WEEK.items():
        if marker in fmt:
            week = f"{_week_of_year(value)}::VARCHAR"
            if width == 2:  # weeks are 1 to 53: 'ww' pads to two digits
                week = f"lpad({week}, 2, '0')"
            out = f"replace({out}, '{marker}', {week})"
    return out


def _week_of_year(value: str) -> str:
    """DuckDB SQL of Java's 'w' of a timestamp ``value``: the week of the week-based year.

    As in Flink's (the JVM's en-US) locale: weeks start on Sunday and week 1 is the one holding
    January 1 (so the last days of December can be week 1). It is the day of the year of the
    week's Saturday, in sevens.
    """
    saturday = f"(CAST({value} AS DATE) + (6 - dayofweek({value}))::INTEGER)"
    return f"((dayofyear({saturday}) - 1) // 7 + 1)"


@scalar("DATE_FORMAT", group="temporal", sig=((T, S), (S, S)), result=fixed("STRING"),
        differences="The format must be a literal.")
def date_format(c: Call) -> exp.Expression:
    """The timestamp (or a 'yyyy-MM-dd HH:mm:ss' string) formatted with a Java pattern.

    A timestamp as Flink's ``DateTimeUtils.formatTimestamp`` (java.time's ``DateTimeFormatter``); a
    string as ``formatTimestampString``: parsed by a lenient ``SimpleDateFormat`` of 'yyyy-MM-dd
    HH:mm:ss' in UTC (:func:`_simple_parse`: the rest of the text ignored, a fraction too; NULL where
    it does not parse) and written by a ``SimpleDateFormat`` of the pattern.
    """
    ts = c.args[0]
    if ts.type is not None and ts.type.name == "STRING":
        java = "yyyy-MM-dd HH:mm:ss"
        python = f"{_SIMPLE_MILLIS.name}(CAST({{0}} AS VARCHAR), {sql_string(java)}, 'UTC')"
        ms = _simple_parse(java, python, lambda parsed: f"epoch_ms({parsed})")
        return formatted(c, f"make_timestamp(({ms}) * 1000)", 1, "", java_fields.SIMPLE)
    # a TIMESTAMP(3) (DuckDB's TIMESTAMP_MS) goes through strftime's nanosecond overload, which
    # fails before 1677: strftime a microsecond TIMESTAMP
    value = "CAST({0} AS TIMESTAMP)"
    if ts.type is not None and ts.type.name == "TIMESTAMP_LTZ":
        value = wall_clock("{0}")
    return formatted(c, value, 1, "")


# -- differences, additions, rounding ----------------------------------------------------------------
_MS = {"SECOND": 1000, "MINUTE": 60_000, "HOUR": 3_600_000, "DAY": 86_400_000, "WEEK": 604_800_000}
_MONTHS = {"MONTH": 1, "QUARTER": 3, "YEAR": 12}


def _ts(text: str) -> str:
    return f"CAST({text} AS TIMESTAMP)"


def _timestampdiff_type(c: Call) -> SqlType:
    """INT; BIGINT for NANOSECOND, as Calcite types it."""
    return SqlType("BIGINT" if c.unit == "NANOSECOND" else "INT")


@scalar("TIMESTAMPDIFF", group="temporal", sig=((D, D), ("TIME", "TIME")), result=_timestampdiff_type)
def timestampdiff(c: Call) -> exp.Expression:
    """TIMESTAMPDIFF(unit, a, b): whole ``unit`` elapsed from a to b, truncated toward zero.

    A count of a unit of time is computed in a long and cut to the INT result as Java's ``(int)``
    (Flink 2.3: TIMESTAMPDIFF(SECOND, 1900-01-01, 2024-01-01) is -381911296), WEEK from those
    seconds, cut, divided by 604,800 (627 weeks from 2024-01-31 back to 1900-01-01); see
    :mod:`.time_units` for MILLISECOND, MICROSECOND, NANOSECOND, EPOCH, DECADE, CENTURY,
    MILLENNIUM, DOW, DOY, ISODOW and ISOYEAR.
    """
    unit = c.unit or ""
    if time_type.is_time(c.args[0].type) or time_type.is_time(c.args[1].type):
        between = time_type.diff(unit, "{0}", "{1}")
        if between is None:
            msg = f"TIMESTAMPDIFF: unit {unit} of TIMEs is not supported (HOUR, MINUTE, SECOND, MILLISECOND)"
            raise c.fail(msg)
        return template(between, *c.args)
    millis = f"({time_units.epoch_millis('{1}')} - {time_units.epoch_millis('{0}')})"
    if unit == "WEEK":  # Calcite's WEEK is seconds / 604,800, the seconds cut to an INT first (Flink 2.3:
        # TIMESTAMPDIFF(WEEK, TIMESTAMP '2024-01-31 23:59:59.999', TIMESTAMP '1900-01-01 00:00:00') is 627)
        return template(f"({java_ints.java_int(f'({millis} // 1000)')} // 604800)", *c.args)
    if unit in _MS or unit in time_units.DIFF_MILLIS:
        cut = java_ints.java_long if unit == "NANOSECOND" else java_ints.java_int
        return template(cut(time_units.millis_diff(unit, millis, _MS)), *c.args)
    if unit not in _MONTHS and unit not in time_units.DIFF_MONTHS:
        units = [*_MS, *time_units.DIFF_MILLIS, *_MONTHS, *time_units.DIFF_MONTHS]
        msg = f"TIMESTAMPDIFF: unsupported unit {unit} (supported: {', '.join(units)})"
        raise c.fail(msg)
    a, b = _ts("{0}"), _ts("{1}")
    d0, d1 = f"CAST({b} AS DATE)", f"CAST({a} AS DATE)"
    m0 = f"((year({b}) * 12 + month({b})) - (year({a}) * 12 + month({a})))"
    # Calcite's subtractMonths: whole months between the dates (symmetric), then one less when
    # the start plus those months lands on the end's date at a later time of day.
    # (each month count bound once: written out, the SQL was 2 KB and ~3x slower)
    x = bind(m0, "__m0", f"CASE WHEN {d0} >= {d1} THEN __m0 - CAST({d1} + to_months(__m0) > {d0} AS INTEGER) "
                         f"ELSE __m0 + CAST({d0} + to_months(-__m0) > {d1} AS INTEGER) END")
    months = bind(x, "__m1", f"__m1 - CAST(CAST({d1} + to_months(__m1) AS DATE) = {d0} "
                             f"AND CAST({b} AS TIME) < CAST({a} AS TIME) AS INTEGER)")
    return template(f"({months}) // {_MONTHS.get(unit) or time_units.DIFF_MONTHS[unit]}", *c.args)


_ADD = {"SECOND": "to_seconds({0})", "MINUTE": "to_minutes({0})", "HOUR": "to_hours({0})",
        "DAY": "to_days({0})", "WEEK": "to_weeks({0})", "MILLISECOND": "to_milliseconds({0})"}
# Flink 2.3 adds a unit of months as its multiplier in months times n, an INT product that wraps
# around: TIMESTAMPADD(YEAR, 2147483647, DATE '2000-03-01') is 1999-03-01 (-12 months), DECADE
# 1990-03-01 (-120); ISOYEAR's multiplier is YEAR's
for _unit, _months in (("MONTH", 1), ("QUARTER", 3), ("YEAR", 12), ("ISOYEAR", 12), ("DECADE", 120),
                       ("CENTURY", 1200), ("MILLENNIUM", 12000)):
    _ADD[_unit] = f"to_months({java_ints.java_int(f'CAST({{0}} AS BIGINT) * {_months}')})"
_DAY_UNITS = ("DAY", "WEEK", "MONTH", "QUARTER", "YEAR", *time_units.YEAR_ROUNDED)


def _date_unit(c: Call, unit: str, allowed) -> None:
    t = c.args[-1].type
    if unit not in allowed:
        msg = f"{c.name}: unsupported unit {unit} (supported: {', '.join(allowed)})"
        raise c.fail(msg)
    if t is not None and t.name == "DATE" and unit not in _DAY_UNITS:
        msg = f"{c.name}: unit {unit} of a DATE is not supported yet"
        raise c.fail(msg)


def _is_date(c: Call) -> bool:
    t = c.args[-1].type
    return t is not None and t.name == "DATE"


def _timestampadd_type(c: Call) -> SqlType | None:
    """The operand's type, but a DATE plus hours, minutes or seconds is a TIMESTAMP(6).

    As Calcite types it (Flink 2.3: TIMESTAMPADD(HOUR, 3, DATE '2024-02-29') is 2024-02-29 03:00:00).
    """
    if _is_date(c) and (c.unit or "") not in (*_DAY_UNITS, "ISOYEAR", *time_units.ADD_NULL):
        return SqlType("TIMESTAMP", 6)
    return same_as(1)(c)


@scalar("TIMESTAMPADD", group="temporal", sig=((INTEGER, D), (INTEGER, "TIME")), result=_timestampadd_type)
def timestampadd(c: Call) -> exp.Expression:
    """TIMESTAMPADD(unit, n, t): t plus n units; months clamp the day to the month's end.

    DOW, DOY, ISODOW and EPOCH give NULL, ISOYEAR adds years, as Flink 2.3 (:mod:`.time_units`).
    """
    unit = c.unit or ""
    operand = c.args[-1].type
    if time_type.is_time(operand):
        added = time_type.add(unit, "{0}", "{1}")
        if added is None:
            msg = (f"TIMESTAMPADD: unit {unit} of a TIME is not supported (HOUR, MINUTE, SECOND, "
                   "MILLISECOND, DAY ...)")
            raise c.fail(msg)
        return template(added, *c.args)
    if unit in time_units.ADD_NULL:
        t = _timestampadd_type(c)
        return template(f"CAST(NULL AS {t.duckdb()})") if t is not None else exp.Null()
    if unit not in _ADD or (unit == "MILLISECOND" and _is_date(c)):  # Flink 2.3 refuses the latter too
        units = [*_ADD, *time_units.ADD_NULL]
        msg = f"{c.name}: unsupported unit {unit} (supported: {', '.join(units)}; MILLISECOND not of a DATE)"
        raise c.fail(msg)
    value = "CAST({1} AS TIMESTAMP)" if _is_date(c) and unit not in _DAY_UNITS else "{1}"
    added = value + " + " + _ADD[unit].replace("{0}", "CAST({0} AS INTEGER)")
    operand = c.args[-1].type
    if _ADD[unit].startswith("to_months(") and operand is not None and operand.name in ("DATE", "TIMESTAMP"):
        # Flink's month arithmetic, which leaves the calendar before 4800 BC (.flink_months)
        months = _ADD[unit][len("to_months("):-1].replace("{0}", "CAST({0} AS INTEGER)")
        added = flink_months.add_months_sql(value, months, value == "{1}" and operand.name == "DATE")
    # Past the years DuckDB holds (a TIMESTAMP's 290309 BC..294247) its error names neither the call
    # nor the operands; Flink 2.3 gives a value there whose year it prints garbled (TIMESTAMPADD(DAY,
    # 2147483647, ...) is ')+()-06-21'), or fails (WEEK of a DATE: integer overflow): fail, saying so.
    what = "'TIMESTAMPADD(" + unit + ", ' || CAST({0} AS VARCHAR) || ', ' || CAST({1} AS VARCHAR) || ')'"
    kind = "DATE" if _is_date(c) and unit in _DAY_UNITS else "TIMESTAMP"
    message = (f"{what} || ' is out of the range of a {kind} here (Flink 2.3 gives a value there whose "
               "year it prints garbled, or fails)'")
    checked = (f"CASE WHEN __r IS NULL AND {{0}} IS NOT NULL AND {{1}} IS NOT NULL THEN {fail_sql(message)} "
               "ELSE __r END")
    return template(bind(f"try({added})", "__r", checked), *c.args)


_TRUNC_UNITS = ("YEAR", "QUARTER", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND")
_DATE_ROUNDED = ("YEAR", "QUARTER", "MONTH")


def _floor_ceil_date(c: Call, unit: str, fn: str) -> exp.Expression:
    """FLOOR/CEIL of a DATE to a DAY, a smaller unit or one of DATE_ITSELF (the date itself) or to a WEEK.

    A week starts on Sunday (Flink 2.3's julianDateFloor: CEIL(DATE '2024-02-29' TO WEEK) is
    2024-03-03).
    """
    if unit != "WEEK":
        return template("{0}", c.args[0])
    return template(_week_rounded("{0}", fn), c.args[0])


def _week_rounded(day: str, fn: str) -> str:
    """DuckDB SQL of the DATE ``day`` (SQL) rounded down / up to a week starting on Sunday."""
    floor = f"CAST({day} - to_days(CAST(dayofweek({day}) AS INTEGER)) AS DATE)"
    if fn == "ceil":
        floor = f"CASE WHEN dayofweek({day}) = 0 THEN {day} ELSE CAST({floor} + to_days(7) AS DATE) END"
    return floor


def floor_ceil_to(c: Call, fn: str) -> exp.Expression:
    """FLOOR(t TO unit) / CEIL(t TO unit): t rounded down / up to a whole unit.

    CEIL keeps a t already on the boundary.
    """
    unit = c.unit or ""
    t = c.args[0].type
    if time_type.is_time(t):  # its milliseconds of the day rounded (time_type.rounded)
        out = time_type.rounded("{0}", unit, fn == "ceil")
        if out is None:
            msg = (f"{c.name}: unit {unit} of a TIME is not supported (HOUR, MINUTE, SECOND, MILLISECOND, "
                   "DAY ...)")
            raise c.fail(msg)
        return template(out, c.args[0])
    if _is_date(c) and unit in (*_TIME_PARTS, "DAY", "WEEK", "MILLISECOND", *time_units.DATE_ITSELF):
        return _floor_ceil_date(c, unit, fn)
    t = c.args[0].type
    if unit == "ISOYEAR" and t is not None and t.name == "TIMESTAMP":  # Flink's 12 ms (.time_units)
        rounded = time_units.twelve_millis(time_units.epoch_millis("{0}"), fn == "ceil")
        return template(f"make_timestamp(CAST({rounded} AS BIGINT) * 1000)", c.args[0])
    if unit == "MILLISECOND":  # Flink rounds the epoch milliseconds: both drop what is below one
        value = _wall_if_ltz(c, "{0}")
        return template(_back_from_wall(c, value, f"date_trunc('millisecond', {value})"), c.args[0])
    if unit == "WEEK":  # a timestamp: its day (Flink's epoch ms / 86400000) to the week, as a DATE's
        value = _wall_if_ltz(c, "{0}")
        week = _week_rounded(flink_day(value), fn)
        return template(_back_from_wall(c, value, f"CAST({week} AS TIMESTAMP)"), c.args[0])
    if unit in time_units.YEAR_ROUNDED:
        if _is_date(c):
            return template(time_units.year_boundary(unit, "{0}", fn == "ceil"), c.args[0])
        value = _wall_if_ltz(c, "{0}")
        boundary = time_units.year_boundary(unit, flink_day(value), fn == "ceil")
        return template(_back_from_wall(c, value, f"CAST({boundary} AS TIMESTAMP)"), c.args[0])
    _date_unit(c, unit, [*_TRUNC_UNITS, *time_units.YEAR_ROUNDED, "MILLISECOND"])
    # A TIMESTAMP_LTZ is rounded on its wall clock in the session time zone (its local day,
    # hour, ...), then shifted back by the UTC offset *of the value itself*, as Flink's
    # DateTimeUtils.timestampFloor/Ceil(unit, ts, tz) do: across a DST change the result is an
    # hour off the local boundary (FLOOR(03:00 EDT TO DAY) prints 23:00 of the day before in
    # New York), as in Flink 2.3 (compat case ltz_floor_ceil_local_zone)
    wall = value = _wall_if_ltz(c, "{0}")
    t = c.args[0].type
    if unit in _DATE_ROUNDED and t is not None and t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        # Flink (DateTimeUtils.timestampFloor/Ceil) rounds the timestamp's day (epoch ms / 86400000,
        # truncated) to a MONTH, QUARTER or YEAR, whatever its time of day: CEIL(2024-01-01 12:00
        # TO QUARTER) is 2024-01-01 00:00, and before 1970 the day is the next one, as Flink 2.3
        value = f"CAST({flink_day(value)} AS TIMESTAMP)"
    floor = f"date_trunc('{unit.lower()}', {value})"
    if fn == "ceil":
        step = _ADD[unit].format("1")
        floor = f"CASE WHEN {floor} = {value} THEN {value} ELSE {floor} + {step} END"
    # the offset of the value itself, not of its day (a TIMESTAMP_LTZ's month kept its time of day)
    return template(_back_from_wall(c, wall, floor), c.args[0])


def _back_from_wall(c: Call, value: str, rounded: str) -> str:
    """``rounded`` (a wall clock), or for a TIMESTAMP_LTZ the instant: shifted back by its offset.

    The offset is that of the value itself, ``value`` (its wall clock), as Flink's
    DateTimeUtils.timestampFloor/Ceil(unit, ts, tz).
    """
    if _is_ltz(c):
        return f"timezone('UTC', {rounded} - ({value} - timezone('UTC', {{0}})))"
    return rounded


#: DuckDB SQL parsing ``{0}`` as Flink's default 'yyyy-MM-dd HH:mm:ss' parser does, which also
#: takes fractions of a second ('2024-03-10 01:30:00.000', as CAST(ts AS STRING) writes them).
DEFAULT_PARSE = "coalesce(try_strptime({0}, '%Y-%m-%d %H:%M:%S.%f'), try_strptime({0}, '%Y-%m-%d %H:%M:%S'))"


# TO_TIMESTAMP(text) reads the text as CAST(text AS TIMESTAMP(3)) does (DateTimeUtils'
# DEFAULT_TIMESTAMP_FORMATTER: 'yyyy-M-d[ H:m:s[.fraction]]', a day past the month's end its last
# day), NULL where that fails. TO_TIMESTAMP(text, pattern) (parseTimestampData(text, pattern))
# parses with the pattern (java.time, SMART: a day past the month's end is its last day) and where
# that fails falls back on java.sql: the text trimmed (String.trim), with a space
# Timestamp.valueOf, else Date.valueOf at midnight. Those read 'yyyy-M-d[ H:m:s[.fraction]]': four
# year characters, one or two month and day characters (a '+' sign counts: Integer.parseInt), month
# 1..12, day 1..31, any hour, minute and second (with a sign), one to nine fraction digits; a day,
# hour, minute or second past its range rolls over (java.util.Date is lenient: 2024-02-30 is
# 2024-03-01, 25:61 02:01 the next day), and the year 0000 is 0001. So, as Flink 2.3,
# TO_TIMESTAMP('2024-02-29') is 2024-02-29 00:00:00 and TO_TIMESTAMP(' 2024-1-5 7:8:9.5 ',
# 'yyyy-MM-dd HH:mm:ss') 2024-01-05 07:08:09.5 (compat case to_timestamp_java_sql_fallback).
_YEAR4 = "([0-9][0-9][0-9][0-9]|\\+[0-9][0-9][0-9])"
_FIELD2 = "([0-9][0-9]?|\\+[0-9])"
_INT9 = "([+-]?[0-9]" + "[0-9]?" * 8 + ")"  # no {m,n}: the SQL is a str.format template
_JAVA_SQL = f"{_YEAR4}-{_FIELD2}-{_FIELD2}(?: {_INT9}:{_INT9}:{_INT9}(?:\\.([0-9]" + "[0-9]?" * 8 + "))?)?"
_D2 = "([0-9][0-9])"
#: the patterns read exactly, as java.time reads them (strptime would also take '2024-2-3' or two
#: spaces, and no day past the month's end): their regular expression over the text
_DAY = "[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]"
#: the plain texts of :data:`_EXACT_PATTERNS` (hours 00-23), which DuckDB's cast reads as java.time
#: does where it reads them at all (a real day; not the year 0000)
_EXACT_FAST = {"yyyy-MM-dd HH:mm:ss": f"{_DAY} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]", "yyyy-MM-dd": _DAY}
_EXACT_PATTERNS = {"yyyy-MM-dd HH:mm:ss": f"([0-9][0-9][0-9][0-9])-{_D2}-{_D2} {_D2}:{_D2}:{_D2}",
                   "yyyy-MM-dd": f"([0-9][0-9][0-9][0-9])-{_D2}-{_D2}()()()"}


def java_sql_timestamp(text: str) -> str:
    """DuckDB SQL of java.sql ``Timestamp.valueOf`` / ``Date.valueOf`` of ``text``.

    As Flink's TO_TIMESTAMP falls back on them (see above): a TIMESTAMP (microseconds) or NULL. Not
    as Java: a Julian leap day before 1582 (Flink fails the job) and an hour, minute or second of
    ten digits or more are NULL.
    """
    groups, (y, m, d, h, mi, s) = text_groups(java_trim(text), _JAVA_SQL, 6, "__js", 7)
    micros = "CAST(rpad(left(__js['g7'], 6), 6, '0') AS BIGINT)"
    ok = f"__js['g1'] <> '' AND {m} BETWEEN 1 AND 12 AND {d} BETWEEN 1 AND 31"  # a year where it matches
    value = (f"CAST(make_date(greatest({y}, 1), {m}, 1) AS TIMESTAMP) + to_days(CAST({d} - 1 AS INTEGER)) "
             f"+ {time_of_day(h, mi, s, micros)}")
    return f"({bind(groups, '__js', f'CASE WHEN {ok} THEN {value} END')})"


def _exact_pattern(text: str, shape: str) -> str:
    """DuckDB SQL of java.time (SMART) reading ``text`` in one of :data:`_EXACT_PATTERNS`, or NULL.

    Exactly the pattern's widths; a day past the month's end is its last day, 24:00:00 the next
    midnight.
    """
    groups, (y, m, d, h, mi, s) = text_groups(text, shape, 6, "__xp")
    month = f"make_date({y}, {m}, 1)"
    ok = (f"__xp['g1'] <> '' AND {y} >= 1 AND {m} BETWEEN 1 AND 12 "  # the year: the shape matched
          f"AND {d} BETWEEN 1 AND 31 AND ({h} <= 23 OR ({h} = 24 AND {mi} = 0 AND {s} = 0)) "
          f"AND {mi} <= 59 AND {s} <= 59")
    value = (f"CAST({month} AS TIMESTAMP) + to_days(CAST(least({d}, day(last_day({month}))) - 1 AS INTEGER)) "
             f"+ to_seconds({h} * 3600 + {mi} * 60 + {s})")
    return f"({bind(groups, '__xp', f'CASE WHEN {ok} THEN {value} END')})"


#: Letters java.time's DateTimeFormatter does not know ("Unknown pattern letter: f"): Flink's
#: TO_TIMESTAMP is NULL with such a pattern (DATE_FORMAT fails the job: refused here).
_UNKNOWN_TO_JAVA_TIME = re.compile(r"[bfijlortCIJPRTU]")


@scalar("TO_TIMESTAMP", group="temporal", sig=((S,), (S, S)), result=fixed("TIMESTAMP", 3),
        nulls="NULL if any argument is NULL or the string does not parse",
        differences="The format must be a literal. With a format other than 'yyyy-MM-dd HH:mm:ss' or "
                    "'yyyy-MM-dd', a day past the month's end is read by the fallback (2024-02-30 → "
                    "2024-03-01) where Flink's pattern reads the month's last day (2024-02-29). Where the "
                    "fallback reads more than three fraction digits, Flink's TIMESTAMP(3) keeps them all "
                    "(it prints 10:00:00.123456); here they are cut to milliseconds.")
def to_timestamp(c: Call) -> exp.Expression:
    """The string read as Flink's TO_TIMESTAMP reads it (see above), as a TIMESTAMP(3).

    Its fraction is cut down to TIMESTAMP(3)'s milliseconds, as Flink (the result's cast to
    ``TIMESTAMP_MS`` would round: ``10:00:00.999999`` became ``10:00:01``).
    """
    if len(c.args) == 1:  # TRY_CAST(s AS TIMESTAMP(3))
        return template(read_text(SqlType("TIMESTAMP", 3)), c.args[0])
    java = c.literal(1, "the format")
    if java is None or _UNKNOWN_TO_JAVA_TIME.search(re.sub(r"'[^']*'", "", java)):
        return exp.Null()  # Flink 2.3: the formatter refuses the pattern on every row: NULL
    return template(parse_timestamp_data(c, java, 3), c.args[0])


def parse_timestamp_data(c: Call, java: str, precision: int) -> str:
    """DuckDB SQL (over ``{0}``) of Flink's ``DateTimeUtils.parseTimestampData(text, java, precision)``.

    What TO_TIMESTAMP(s, java) and TO_TIMESTAMP_LTZ(s, java[, zone]) read: the wall clock (a
    TIMESTAMP) java.time's ``DateTimeFormatter.ofPattern(java)`` reads (:func:`_java_time_parse`),
    else java.sql's ``Timestamp.valueOf`` / ``Date.valueOf`` of the trimmed text
    (:func:`java_sql_timestamp`), else NULL; its fraction cut down to ``precision`` digits. The
    letter ``u`` (java.time's proleptic year) is read as ``y`` (its year of the era): the same year
    for the unsigned digits read here (Flink 2.3: TO_TIMESTAMP('42', 'u') is 0042-01-01 00:00; a
    negative year, '-42', is NULL here).
    """
    java = re.sub(r"'[^']*'|u", lambda m: "y" if m.group(0) == "u" else m.group(0), java)
    fast = ""
    if java in _EXACT_PATTERNS:
        parsed = _exact_pattern("{0}", _EXACT_PATTERNS[java])
        fast = (f"WHEN regexp_full_match({{0}}, '{_EXACT_FAST[java]}') AND NOT starts_with({{0}}, '0000') "
                "AND TRY_CAST({0} AS TIMESTAMP) IS NOT NULL THEN TRY_CAST({0} AS TIMESTAMP) ")
    else:
        parsed = _java_time_parse(c, java)
    either = f"coalesce({parsed}, {java_sql_timestamp('{0}')})"
    either = bind(either, "__tt", truncate_sql("__tt", precision, floor=True))  # named 4 times
    return f"CASE {fast}ELSE {either} END" if fast else either


#: The letters java.time reads as numbers (``M`` and ``L`` up to two letters): n letters read exactly
#: n digits (strictly, as ``DateTimeFormatter.ofPattern``: 'dd' is two digits, 'SSSSSS' six; 'yyyy'
#: four, unsigned), one letter any number of digits.
_NUMBER_LETTERS = frozenset("yMLdDHhmsS")


#: The week fields of the JVM's locale (en-US): ``Y`` the week-based year, ``w`` its week. java.time
#: resolves them into a date only with a day of the week (``E``, ``e``, ``c``), and checks them against
#: a date the other letters give; otherwise Flink's ``fromTemporalAccessor`` never asks for them.
_WEEK_LETTERS = "Yw"


def _ignored_week_fields(c: Call, java: str) -> bool:
    """Whether ``java`` has week fields that java.time reads but that make no difference here.

    True when it has ``Y`` or ``w`` and nothing they could resolve with or be checked against (no
    day of the week, no date from ``y`` with ``M`` and ``d`` or ``D``) and each stands apart from
    another field (java.time's adjacent-value parsing not copied); then they are digits to read
    and drop (Flink 2.3: TO_TIMESTAMP('2024', 'YYYY') is 1970-01-01 00:00:00, TO_TIMESTAMP('60 5',
    'D w') too).

    Raises:
        streamsql.functions.scalars.registry.FunctionError: for the other patterns with ``Y`` or ``w``.
    """
    tokens = [m.group(0) for m in re.finditer(r"'[^']*'|([A-Za-z])\1*|.", java)]
    letters = "".join(t for t in tokens if t[0].isalpha())
    if not any(w in letters for w in _WEEK_LETTERS):
        return False
    date = "y" in letters and ("D" in letters or (re.search("[ML]", letters) and "d" in letters))
    adjacent = any(a[0] in _WEEK_LETTERS and b[0].isalpha() or b[0] in _WEEK_LETTERS and a[0].isalpha()
                   for a, b in zip(tokens, tokens[1:]))
    if date or adjacent or re.search("[Eec]", letters):
        msg = (f"{c.name}: the week fields 'Y' and 'w' with a day of the week, a date or another field "
               f"next to them are not supported yet in '{java}'")
        raise c.fail(msg)
    return True


#: Counts of ``S`` letters java.time reads that strptime cannot (it reads six digits: ``%f``): the
#: digits below the microsecond are read and cut out (down on the wall clock; every reader of the
#: value keeps at most microseconds: TO_TIMESTAMP's TIMESTAMP(3), Flink 2.3's answer for
#: ``TO_TIMESTAMP('... 10:00:00.123456789', 'yyyy-MM-dd HH:mm:ss.SSSSSSSSS')`` is 10:00:00.123).
_CUT_FRACTION = (7, 8, 9)


def _kept_letters(text: str, letter: str | None, drop: str) -> str:
    """A pattern's run of letters as strptime reads it: none for a dropped field, six ``S`` for 7 to 9."""
    if letter and letter in drop:
        return ""
    return "SSSSSS" if letter == "S" and len(text) in _CUT_FRACTION else text


def _java_time_parse(c: Call, java: str, hours: bool = True) -> str:
    """DuckDB SQL (over ``{0}``) of ``DateTimeFormatter.ofPattern(java)`` reading the text, or NULL.

    By strptime (:func:`strftime_pattern`), where the text has the widths java.time reads (a regular
    expression of them; a name of a day or month, or AM/PM, is any text there). Without a year in
    the pattern the year is 1970, as Flink's ``fromTemporalAccessor`` takes it (strptime's: 1900),
    and a day of the year is not read. Week fields that make no difference
    (:func:`_ignored_week_fields`) are read as digits, then cut out of the text strptime reads; the
    hour letters ``k`` and ``K`` are rewritten to ``HH`` / ``hh``, and an hour 24 of ``H`` is the next
    day's midnight (:mod:`.clock_hours`; ``hours`` False: the pattern is one it rewrote already).
    Seven to nine ``S`` are read, their digits below the microsecond cut out (:data:`_CUT_FRACTION`).
    """
    hours = clock_hours.rewrite(java) if hours else None
    if hours is not None:  # k / K: the text rewritten to HH / hh, read with the pattern without them
        if re.search(f"[{_WEEK_LETTERS}]", re.sub(r"'[^']*'", "", java)):
            msg = (f"{c.name}: the hour letters 'k' and 'K' with the week fields 'Y' and 'w' are not "
                   f"supported yet in '{java}'")
            raise c.fail(msg)
        plain, read = hours
        return read(_java_time_parse(c, plain, hours=False).replace("{0}", "__kh"))
    weeks = _ignored_week_fields(c, java)
    # with them, a day of the year without a year is dropped too (java.time never resolves it)
    drop = _WEEK_LETTERS + ("D" if "y" not in re.sub(r"'[^']*'", "", java) else "") if weeks else ""
    parts: list[tuple[bool, str]] = []  # (a field to drop, its regular expression)
    for m in re.finditer(r"'([^']*)'|([A-Za-z])\2*|.", java):
        text = m.group(0)
        if m.group(2) and text[0] in drop:
            # 'w' is one or two digits, 'ww' two; 'Y' as 'y' ('YY' two, 'YYYY' four); 'DD' two or three
            width = ("{1,2}" if text == "w" else "+" if text in ("Y", "D") else "{2,3}" if text == "DD"
                     else f"{{{len(text)}}}")
            parts.append((True, f"[0-9]{width}"))
        elif m.group(2) and text[0] == "S" and len(text) in _CUT_FRACTION:
            # java.time reads the n digits; strptime the first six, those below them are cut out
            parts.extend([(False, "[0-9]{6}"), (True, f"[0-9]{{{len(text) - 6}}}")])
        elif m.group(2) and text[0] in _NUMBER_LETTERS and (text[0] not in "ML" or len(text) <= 2):
            parts.append((False, "[0-9]+" if len(text) == 1 else f"[0-9]{{{len(text)}}}"))
        elif m.group(2):
            parts.append((False, ".*?"))
        else:
            parts.append((False, re.escape((m.group(1) or "'") if m.group(1) is not None or text == "''"
                                           else text)))
    shape = [part for _, part in parts]
    text = "{0}"
    if any(cut for cut, _ in parts):
        # the text without the week fields: the runs of other parts as groups, put back together
        runs = [(drop, "".join(p for _, p in run))
                for drop, run in itertools.groupby(parts, key=lambda part: part[0])]
        grouped = "".join(f"(?:{r})" if drop else f"({r})" for drop, r in runs)
        back = "".join(f"\\{n + 1}" for n in range(sum(not drop for drop, _ in runs)))
        # '#' before both: strptime does not read a text that starts with a space as its pattern says
        text = f"'#' || regexp_replace({{0}}, {sql_string('^' + grouped + '$')}, {sql_string(back)})"
        text = text.replace("{", "{{").replace("}", "}}").replace("{{0}}", "{0}")
        java = "'#'" + re.sub(r"'[^']*'|([A-Za-z])\1*", lambda t: _kept_letters(t.group(0), t.group(1), drop),
                              java)
    fmt, letters = strftime_pattern(c, java, True), re.sub(r"'[^']*'", "", java)
    if "y" not in letters:
        fmt, text = "%Y|" + fmt, f"'1970|' || {text}"
    shape_sql = sql_string("".join(shape)).replace("{", "{{").replace("}", "}}")  # a template's text
    parsed = f"try_strptime({text}, {sql_string(fmt)})"
    if "y" not in letters and "D" in letters and not re.search("[MLd]", letters):
        # a day of the year without a year is not read into the date (Flink: TO_TIMESTAMP('100', 'DDD')
        # is 1970-01-01 00:00:00), only the time of day
        parsed = f"(TIMESTAMP '1970-01-01' + ({parsed} - date_trunc('day', {parsed})))"
    return f"CASE WHEN regexp_full_match({{0}}, {shape_sql}) THEN {parsed} END"


# Flink's DateTimeUtils.parseDate (TO_DATE without a pattern): the text before its first space
# (a space at position 0 does not count), split at its first two hyphens into year[-month[-day]]
# (month and day default to 1), each part trimmed and all digits; the year 0 .. 9999 and a real
# day of the month, else NULL. So '42' is 0042-01-01, ' 12 ' 0012-01-01, '2024-2' 2024-02-01,
# '2024-02-29 10:00' 2024-02-29, and ' 2024 - 02 - 03' (leading space) 2024-02-03.
_DATE_PARTS = r"^\s*(\d+)\s*(?:-\s*(\d+)\s*(?:-\s*(\d+)\s*)?)?$"


def flink_parse_date(text: str) -> str:
    """DuckDB SQL of Flink's ``parseDate`` of the string ``text`` (DuckDB SQL): a DATE or NULL."""
    head = f"CASE WHEN strpos({text}, ' ') > 1 THEN left({text}, strpos({text}, ' ') - 1) ELSE {text} END"
    parts = f"regexp_extract({head}, '{_DATE_PARTS}', ['y', 'm', 'd'])"

    def part(name: str, default: str) -> str:
        value = f"{parts}.{name}"
        return f"CASE WHEN {value} = '' THEN {default} ELSE TRY_CAST({value} AS BIGINT) END"

    y, m, d = part("y", "NULL"), part("m", "1"), part("d", "1")
    ymd = f"lpad(CAST({y} AS VARCHAR), 4, '0') || '-' || CAST({m} AS VARCHAR) || '-' || CAST({d} AS VARCHAR)"
    return f"CASE WHEN {y} BETWEEN 0 AND 9999 THEN CAST(try_strptime({ymd}, '%Y-%-m-%-d') AS DATE) END"


_SIMPLE_DAYS = register(VectorFunction(
    "__streamsql_simple_date_days", "Function TO_DATE",
    lambda s, f: rowwise(simple_date.parse_days, (s, f), pa.int32()).cast(pa.date32()),
    ("VARCHAR", "VARCHAR"), "DATE"))
_SIMPLE_MILLIS = register(VectorFunction(
    "__streamsql_simple_date_millis", "Function UNIX_TIMESTAMP",
    lambda s, f, z: rowwise(simple_date.parse_millis, (s, f, z), pa.int64()),
    ("VARCHAR", "VARCHAR", "VARCHAR"), "BIGINT"))


#: The patterns whose plain texts strptime reads as a lenient SimpleDateFormat does (every field in
#: range, a Gregorian year from 1600 on): the regular expression of such a text's start (Java ignores
#: the rest), its length and the strptime pattern. Other texts go to :mod:`.simple_date`.
_PLAIN_DATE = "(1[6-9]|[2-9][0-9])[0-9][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])"
_PLAIN = {"yyyy-MM-dd": (_PLAIN_DATE, 10, "%Y-%m-%d"),
          "yyyy-MM-dd HH:mm:ss": (f"{_PLAIN_DATE} ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]", 19,
                                  "%Y-%m-%d %H:%M:%S")}


def _simple_parse(java: str, python: str, fast: Callable[[str], str]) -> str:
    """DuckDB SQL (over ``{0}``) of a numeric pattern's parse, as a lenient ``SimpleDateFormat``.

    ``python`` (a call of :mod:`.simple_date`), or for a plain text of :data:`_PLAIN` ``fast`` of
    strptime's timestamp (Python where strptime fails: a day past the month's end).
    """
    if java not in _PLAIN:
        return python
    shape, width, fmt = _PLAIN[java]
    parsed = fast(f"try_strptime(left({{0}}, {width}), '{fmt}')")
    return f"coalesce(CASE WHEN regexp_matches({{0}}, '^{shape}') THEN {parsed} END, {python})"


_TEXT_LETTERS = ("A pattern with other letters than y, M, MM, d, D, w, H, k, m, s, S (names of days or "
                 "months, AM/PM, h) is read by strptime: strictly, in the year 1900 when it has no year, "
                 "without the Julian calendar before 1582.")


@scalar("TO_DATE", group="temporal", sig=((S,), (S, S)), result=fixed("DATE"),
        nulls="NULL if any argument is NULL or the string does not parse",
        differences="The format must be a literal. Flink gives a garbage date for a text its pattern does "
                    "not read; NULL here. " + _TEXT_LETTERS)
def to_date(c: Call) -> exp.Expression:
    """The string parsed with a Java pattern, or without one as Flink's ``DateTimeUtils.parseDate``.

    With a pattern, as Flink's ``DateTimeUtils.parseDate(text, pattern)``: a lenient
    ``SimpleDateFormat`` in UTC (:mod:`.simple_date`; the plain 'yyyy-MM-dd' text by strptime).
    """
    if len(c.args) == 1:
        return template(flink_parse_date("{0}"), c.args[0])
    java = c.literal(1, "the format")
    if java is not None and simple_date.elements(java) is not None:  # as SimpleDateFormat (.simple_date)
        python = f"{_SIMPLE_DAYS.name}(CAST({{0}} AS VARCHAR), {sql_string(java)})"
        return template(_simple_parse(java, python, lambda ts: f"CAST({ts} AS DATE)"), c.args[0])
    fmt = _pattern(c, 1, "yyyy-MM-dd", parsing=True)
    return exp.Null() if fmt is None else template(f"try_strptime({{0}}, {fmt})", c.args[0])


@scalar("UNIX_TIMESTAMP", group="temporal", sig=((), (S,), (S, S)), result=BIGINT, deterministic=False,
        nulls="NULL if any argument is NULL; -9223372036854775808 (as Flink) if the string does not parse",
        differences="The format must be a literal; UNIX_TIMESTAMP() is the time the batch is evaluated. "
                    + _TEXT_LETTERS)
def unix_timestamp(c: Call) -> exp.Expression:
    """Seconds since 1970-01-01 00:00:00 UTC of now, or of a string.

    The string is parsed with a Java pattern (default 'yyyy-MM-dd HH:mm:ss') in the session
    time zone, as Flink's ``DateTimeUtils.unixTimestamp``: a lenient ``SimpleDateFormat`` gives
    epoch milliseconds, divided by 1000 as a Java ``long`` (toward zero: ``1969-12-31
    23:59:59.500`` is 0). A pattern of numbers is parsed by :mod:`.simple_date` (a plain text of
    the default pattern by strptime); others by strptime, where ``S`` is a number of milliseconds
    of any length, not a fraction (:func:`_millis_field`).
    """
    if not c.args:
        return template("epoch(current_timestamp)")
    java = c.literal(1, "the format") if len(c.args) > 1 else "yyyy-MM-dd HH:mm:ss"
    if java is None:
        return exp.Null()
    if simple_date.elements(java) is not None:  # as SimpleDateFormat (see .simple_date)
        zone = sql_string(session_zone())
        python = f"{_SIMPLE_MILLIS.name}(CAST({{0}} AS VARCHAR), {sql_string(java)}, {zone})"
        ms = _simple_parse(java, python, lambda ts: f"epoch_ms({instant(ts)})")
    else:
        ms = _millis_field(c, java)
    if ms is None:
        fmt = sql_string(strftime_pattern(c, java, parsing=True))
        # like SimpleDateFormat it ignores text after a fixed-width pattern's end ('... 13:45:30.999')
        parsed = f"try_strptime({{0}}, {fmt})"
        width = fixed_width(java)
        if width:
            parsed = f"coalesce({parsed}, try_strptime(left({{0}}, {width}), {fmt}))"
        ms = f"epoch_ms({instant(parsed)})"
    seconds = f"CAST(trunc({ms} / 1000) AS BIGINT)"
    # Flink returns Long.MIN_VALUE for a string that does not parse
    return template(f"CASE WHEN {{0}} IS NOT NULL THEN coalesce({seconds}, -9223372036854775808) END",
                    c.args[0])


def _millis_field(c: Call, java: str) -> str | None:
    """DuckDB SQL (over ``{0}``) of the epoch milliseconds of a Java pattern ending in ``S`` letters.

    As a lenient ``SimpleDateFormat`` parses them (None for a pattern without them at its end, before
    only literal text). ``S`` reads the whole number there (after spaces or tabs, with an optional ``-``) as
    milliseconds, which the lenient calendar adds: ``'123456'`` with ``'SSSSSS'`` is 123.456
    seconds, ``'13:45:30.5'`` with ``'HH:mm:ss.SSS'`` 30.005. The fields before it must have a
    fixed width (``yyyy-MM-dd HH:mm:ss.``); without any, the date is 1970-01-01 00:00:00 in the
    session time zone. NULL when the text does not parse.
    """
    m = re.fullmatch(r"(.*?)(S+)((?:'[^']*'|[^A-Za-z'])*)", java)
    if m is None:
        return None
    head = m.group(1)
    width = fixed_width(head) if head else 0
    if width is None or "S" in head:
        return None
    digits = f"TRY_CAST(regexp_extract(substr({{0}}, {width + 1}), '^[ \t]*(-?[0-9]+)', 1) AS BIGINT)"
    if head:
        fmt = sql_string(strftime_pattern(c, head, parsing=True))
        base = f"try_strptime(left({{0}}, {width}), {fmt})"
    else:
        base = "TIMESTAMP '1970-01-01 00:00:00'"
    return f"(epoch_ms({instant(base)}) + {digits})"


@scalar("FROM_UNIXTIME", group="temporal", sig=((INTEGER,), (INTEGER, S)), result=fixed("STRING"),
        differences="The format must be a literal.")
def from_unixtime(c: Call) -> exp.Expression:
    """Seconds since the epoch, formatted.

    With a Java pattern (default 'yyyy-MM-dd HH:mm:ss') in the session time zone. The seconds
    times 1000 wrap around as Java's long (Flink's ``new Date(unixtime * 1000)``: 9223372036854775807
    is 1969-12-31 23:59:59 in UTC).
    """
    millis = java_ints.java_long("CAST({0} AS HUGEINT) * 1000")
    wall = wall_clock(f"timezone('UTC', make_timestamp(CAST({millis} AS BIGINT) * 1000))")
    return formatted(c, wall, 1, "yyyy-MM-dd HH:mm:ss", java_fields.SIMPLE)

