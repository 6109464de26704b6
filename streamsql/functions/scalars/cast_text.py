"""CAST / TRY_CAST of a string: the texts Flink 2.3 reads, and the values it reads from them.

DuckDB reads more texts than Flink and reads some differently (``'Infinity'`` is a DATE,
``'1_000'`` a number, ``'2024-02-03T10:20'`` and ``'... +01:00'`` timestamps, ``'12'`` no DATE),
so each target type has a *reader*: a DuckDB condition over the text that is true exactly where
Flink reads it, and the DuckDB SQL of the value Flink reads, evaluated only there. A text Flink
does not read fails the job for CAST (with the message below) and is NULL for TRY_CAST, as Flink.

=============== ======================================================================================
target          the text, as Flink reads it (its source)
=============== ======================================================================================
TINYINT..BIGINT trimmed: a sign, digits and an optional fraction, cut off (BinaryStringDataUtil.toLong)
DATE            cut at its first space (past the first character); ``y[-m[-d]]``, each part digits with
                blanks around it, a missing month or day is 1; year 0..9999 and a real day
                (DateTimeUtils.parseDate: ``'12'`` is 0012-01-01, ``' 7 '`` 0007-01-01)
TIMESTAMP(p)    ``yyyy-M-d[ H:m:s[.fraction]]``: four year digits, one or two month/day/hour/minute/
TIMESTAMP_LTZ   second digits, up to nine fraction digits cut to p, nothing around it; a day past the
                month's end is its last day (2024-02-30 is 02-29) and 24:00:00 the next midnight
                (DateTimeUtils' DEFAULT_TIMESTAMP_FORMATTER, a SMART java.time resolver); the LTZ
                is that wall clock in the session time zone
TIME(p)         ``h[:m[:s[.fraction]]]``, blanks around each part, hour 0..23, minute and second
                0..59; milliseconds rounded at the 4th fraction digit, then cut to p
DOUBLE, FLOAT   trimmed: Java's ``Double.valueOf``/``Float.valueOf`` (a ``d``/``f`` suffix,
                ``NaN``/``Infinity`` spelled so, no underscores)
DECIMAL(p, s)   p <= 18 and at most 18 bytes: Flink's own parser (toDecimalFromBytes): the character
                after the number is skipped (``'1@'`` is 1, ``'t'`` 0), leading zeros count as
                digits, HALF_UP; else blanks trimmed, java.math.BigDecimal's text, HALF_UP
=============== ======================================================================================

Not read as Flink (NULL here, a value there; none is a text a writer means): a year with a sign
or more than four digits in a TIMESTAMP (``'+12024-01-01'``), a month/day repeated
(``'2024-1212-03'``), hexadecimal floating point (``'0x1p3'``), a DECIMAL text that rounds past the
precision (Flink's parser gives ``'99999999.995'`` as 100000000.00 in a DECIMAL(10, 2)).
"""

from __future__ import annotations

import re

from sqlglot import exp

from streamsql.core.timestamp_precision import truncate_time_sql
from streamsql.core.types import SqlType
from streamsql.functions.scalars.registry import (
    bind,
    fail_sql,
    java_instant,
    session_zone,
    sql_string,
    template,
)

#: Java's String.trim(): every character up to U+0020 (RE2 cannot hold U+0000).
_TRIM = r"[\x01-\x20]*"
#: meta key of a compiled CAST of a string: "literal" (of a string literal, e.g. TIMESTAMP '...') or "text"
FROM_TEXT = "from_text"
#: meta key of a resolved column whose every value is a constant Flink's planner folds into a literal
#: before the expression over it runs (a VALUES column under its Calc: ``ValuesReduceRule``), so a CAST
#: of it is Calcite's literal cast (:mod:`streamsql.core.timestamp_precision`), not the run time's
FOLDED = "folded_constant"
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def java_trim(x: str) -> str:
    """DuckDB SQL of Java's ``String.trim()`` of ``x`` (DuckDB SQL)."""
    return f"regexp_replace({x}, '^{_TRIM}(.*?){_TRIM}$', '\\1', 's')"


def read_text(target: SqlType, bad: str = "NULL") -> str:
    """DuckDB SQL of Flink reading the string ``{0}`` as ``target``: its value, or ``bad`` (SQL).

    See the module table; ``target`` is one that :func:`reads_string_as`. The plain texts DuckDB
    reads as Flink take DuckDB's cast (:func:`_fast`); only the others the reader's own test.
    """
    ok, value, *let = _READERS[target.name](target)
    slow = f"CASE WHEN {ok} THEN {value} ELSE {bad} END"
    if let:  # what the test and the value read from the text, once
        slow = bind(let[0][1], let[0][0], slow)
    fast = _fast(target)
    plain = f"WHEN {fast[0]} AND {fast[1]} IS NOT NULL THEN {fast[1]} " if fast else ""
    return f"CASE WHEN {{0}} IS NULL THEN NULL {plain}ELSE {slow} END"


def reads_string_as(target: SqlType) -> bool:
    """True when a CAST of a string to ``target`` is compiled here (see the module table)."""
    return target.name in _READERS


def cast_string(n: exp.Cast | exp.TryCast, target: SqlType) -> exp.Expression:
    """CAST / TRY_CAST of the string ``n.this`` to ``target`` as Flink reads the text.

    Where Flink does not read the text, CAST fails the job ("CAST('x' AS DATE) failed: the value
    is not a valid DATE ...") and TRY_CAST is NULL.
    """
    bad = "NULL"
    if isinstance(n, exp.Cast) and not isinstance(n, exp.TryCast):
        flink = str(target).replace("INTEGER", "INT")
        why = ("is not a number or has more digits than the type holds" if target.name == "DECIMAL"
               else f"is not a valid {flink}")
        bad = fail_sql(f"'CAST(''' || {{0}} || ''' AS {flink}) failed: the value {why} "
                       "(Flink fails the job too); use TRY_CAST to get NULL instead'")
    literal = isinstance(n.this, exp.Literal)
    text = n.this.sql(dialect="duckdb")
    if literal and "safe" not in n.args and target.name == "TIMESTAMP":
        # TIMESTAMP '... .9999999995' (as written: sqlglot's CAST of it has no ``safe``): Calcite's
        # literal keeps nine fraction digits (scripts/flink_timestamp_precision.py)
        text = re.sub(r"(\.[0-9]{9})[0-9]+'$", r"\1'", text)
    out = template(read_text(target, bad), f"({text})")
    out.meta[FROM_TEXT] = "literal" if literal else "text"
    return out


_DIGIT = "[0-9]"


def _digits(lo: int, hi: int) -> str:
    """A regular expression of ``lo`` to ``hi`` digits, without braces (see _TIMESTAMP)."""
    return _DIGIT * lo + "[0-9]?" * (hi - lo)


def _fast(t: SqlType) -> tuple[str, str] | None:
    """The common, plain texts that DuckDB reads as Flink does: (their test, DuckDB's value).

    A reader's own test costs a few regular expressions per row (~10 µs); these texts take one
    and DuckDB's cast. Types with no such shortcut: None.
    """
    date = f"{_digits(4, 4)}-{_digits(2, 2)}-{_digits(2, 2)}"
    if t.name == "DATE":
        # what follows a space is dropped, as parseDate does
        return f"regexp_full_match({{0}}, '{date}( .*)?')", "TRY_CAST(left({0}, 10) AS DATE)"
    if t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        k = t.precision if t.precision is not None else 6
        fraction = f"(\\.{_digits(1, k)})?" if k else ""
        text = f"{date}( ([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]{fraction})?"
        # year 0 is no TIMESTAMP in Flink; nanoseconds (k > 6) hold the years 1678..2261 only
        years = "NOT starts_with({0}, '0000')" if k <= 6 else "left({0}, 4) BETWEEN '1678' AND '2261'"
        test = f"regexp_full_match({{0}}, '{text}') AND {years}"
        if t.name == "TIMESTAMP":
            return test, f"TRY_CAST({{0}} AS {t.duckdb()})"
        wall = "TIMESTAMP" if k <= 6 else "TIMESTAMP_NS"
        return test, java_instant(sql_string(session_zone()), f"TRY_CAST({{0}} AS {wall})")
    if t.name == "DECIMAL":
        p, s = t.precision or 10, t.scale or 0
        if p > 18:
            return "regexp_full_match({0}, '-?[0-9]+(\\.[0-9]+)?')", f"TRY_CAST({{0}} AS {t.duckdb()})"
        if p == s:
            return None
        # Flink's parser counts every integer digit, leading zeros too, against p - s
        return (f"strlen({{0}}) <= 18 AND regexp_full_match({{0}}, '-?{_digits(1, p - s)}(\\.[0-9]+)?')",
                f"TRY_CAST({{0}} AS {t.duckdb()})")
    if t.name in ("DOUBLE", "FLOAT"):
        return ("regexp_full_match({0}, '-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?')",
                f"TRY_CAST({{0}} AS {t.duckdb()})")
    return None


def _integer(t: SqlType) -> tuple[str, str]:
    # Trimmed of ' ' only (BinaryStringData.trim); '1.5' is 1: the fraction is cut off before DuckDB
    # converts (DuckDB would round it); the digits may be missing before a '.' ('.5', '-.' and '.'
    # are 0 in Flink 2.3): a '0' after the sign reads them so.
    trimmed = "trim({0}, ' ')"
    cast = f"TRY_CAST(regexp_replace(split_part({trimmed}, '.', 1), '^([+-]?)', '\\10') AS {t.duckdb()})"
    ok = f"regexp_full_match({trimmed}, '[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]*)') AND {cast} IS NOT NULL"
    return ok, cast


_DATE = f"{_TRIM}([0-9]+){_TRIM}(?:-{_TRIM}([0-9]+){_TRIM}(?:-{_TRIM}([0-9]+){_TRIM})?)?"


def _date(_: SqlType) -> tuple[str, str]:
    # parseDate drops what follows the first ' ' unless the text starts with it
    cut = "(CASE WHEN strpos({0}, ' ') > 1 THEN left({0}, strpos({0}, ' ') - 1) ELSE {0} END)"
    part = [f"TRY_CAST(nullif(regexp_extract({cut}, '^{_DATE}$', {i}), '') AS INTEGER)" for i in (1, 2, 3)]
    y, m, d = part[0], f"coalesce({part[1]}, 1)", f"coalesce({part[2]}, 1)"
    ok = (f"CASE WHEN regexp_full_match({cut}, '{_DATE}') AND {y} BETWEEN 0 AND 9999 "
          f"AND {m} BETWEEN 1 AND 12 THEN {d} BETWEEN 1 AND day(last_day(make_date({y}, {m}, 1))) "
          "ELSE false END")
    return ok, f"make_date({y}, {m}, {d})"


# No {m,n} repetition: the SQL built here may become part of a str.format template (registry.template).
_D1_2 = "[0-9][0-9]?"
_TIMESTAMP = (f"([0-9][0-9][0-9][0-9])-({_D1_2})-({_D1_2})"
              f"(?: ({_D1_2}):({_D1_2}):({_D1_2})(?:\\.({'[0-9]?' * 9}))?)?")


def _wall_clock(t: SqlType) -> tuple[str, str, tuple[str, str]]:
    """The TIMESTAMP(p) text: its validity and the wall clock (DuckDB TIMESTAMP), over its groups.

    The third item binds the name both use to the text's groups (one regular expression).
    """
    digits = t.precision if t.precision is not None else 6

    groups, (y, m, d, h, mi, s) = text_groups("{0}", _TIMESTAMP, 6, "__ts", 7)  # BIGINTs
    fraction = "__ts['g7']"
    micros = f"CAST(rpad(left({fraction}, {min(digits, 6)}), 6, '0') AS BIGINT)" if digits else "0"
    month = f"make_date({y}, {m}, 1)"
    midnight = f"({h} = 24 AND {mi} = 0 AND {s} = 0 AND regexp_full_match({fraction}, '0*'))"
    # the year is never empty where the pattern matches
    ok = (f"__ts['g1'] <> '' AND {y} >= 1 AND {m} BETWEEN 1 AND 12 "
          f"AND {d} BETWEEN 1 AND 31 AND ({h} <= 23 OR {midnight}) AND {mi} <= 59 AND {s} <= 59")
    wall = (f"(CAST({month} AS TIMESTAMP) + to_days(least({d}, day(last_day({month}))) - 1) "
            f"+ {time_of_day(h, mi, s, micros)})")
    if digits > 6:  # the 7th to 9th digits as nanoseconds (DuckDB's INTERVAL holds microseconds)
        nanos = f"CAST(rpad(substr({fraction}, 7, {digits - 6}), 3, '0') AS BIGINT)"
        wall = f"make_timestamp_ns(epoch_ns(CAST({wall} AS TIMESTAMP_NS)) + {nanos})"
    return ok, wall, ("__ts", groups)


def text_groups(text: str, pattern: str, n: int, name: str,
                total: int | None = None) -> tuple[str, list[str]]:
    """The groups of ``pattern`` in ``text``: (DuckDB SQL of all of them, the first ``n`` as BIGINTs).

    The first is a STRUCT of ``total`` (default ``n``) strings ``g1``, ``g2`` ... (all empty where
    the text does not match), one regular expression; the BIGINTs read it under the name ``name``
    (:func:`~streamsql.functions.scalars.registry.bind`), 0 where a group is empty, NULL where its
    digits overflow a BIGINT (Java's ``Integer.parseInt`` throws there: no value, as
    ``CAST('9223372036854775808' AS TIME)`` fails Flink 2.3's job; read as 0, it was 00:00:00).
    """
    names = ", ".join(f"'g{i}'" for i in range(1, (total or n) + 1))
    groups = f"regexp_extract({text}, '^{pattern}$', [{names}])"
    return groups, [f"(CASE WHEN {name}['g{i}'] = '' THEN 0 ELSE TRY_CAST({name}['g{i}'] AS BIGINT) END)"
                    for i in range(1, n + 1)]


def time_of_day(h: str, mi: str, s: str, micros: str) -> str:
    """DuckDB SQL of the INTERVAL ``h:mi:s`` plus ``micros`` microseconds (operands: BIGINT SQL)."""
    return f"to_microseconds({h} * 3600000000 + {mi} * 60000000 + {s} * 1000000 + {micros})"


def _timestamp(t: SqlType) -> tuple[str, str, tuple[str, str]]:
    ok, wall, let = _wall_clock(t)
    return ok, f"CAST({wall} AS {t.duckdb()})", let


def _timestamp_ltz(t: SqlType) -> tuple[str, str, tuple[str, str]]:
    ok, wall, let = _wall_clock(t)
    return ok, java_instant(sql_string(session_zone()), wall), let


_JAVA_NUMBER = r"[+-]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?)"


def _floating(t: SqlType) -> tuple[str, str]:
    trimmed = java_trim("{0}")
    return (f"regexp_full_match({trimmed}, '{_JAVA_NUMBER}')",
            f"CAST(regexp_replace({trimmed}, '[fFdD]$', '') AS {t.duckdb()})")


#: Flink's own DECIMAL parser (BinaryStringDataUtil.toDecimalFromBytes), for up to 18 digits and bytes:
#: blanks, a sign, digits with one '.', then one more byte that is read and skipped (so '1d' is 1
#: and 't' is 0, but of a character of several UTF-8 bytes the others are left, no blanks: '語' and
#: 'ß' are no DECIMAL, as Flink 2.3's TRY_CAST is NULL; '[:^ascii:]' keeps them out) or an exponent
#: (itself ended by one skipped byte), then blanks.
_BLANKS = "[ \n\t]*"
_FLINK_DECIMAL = (f"{_BLANKS}([+-]?)([0-9]*)(?:\\.([0-9]*))?(?:|[^0-9.eE[:^ascii:]]{_BLANKS}|[eE]"
                  f"|[eE]([+-]?[0-9]+)(?:[^0-9[:^ascii:]]{_BLANKS})?"
                  f"|[eE](?:[+-][^0-9[:^ascii:]]|[^0-9+[:^ascii:]-]){_BLANKS})")
#: java.math.BigDecimal's text, once Flink trimmed its blanks (precision over 18, or a longer text).
_BIG_DECIMAL = "[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?"


def _decimal(t: SqlType) -> tuple[str, str]:
    p, s = t.precision or 10, t.scale or 0

    def group(i: int) -> str:
        return f"regexp_extract({{0}}, '^{_FLINK_DECIMAL}$', {i})"

    sign, whole, fraction, exponent = (group(i) for i in (1, 2, 3, 4))
    # not a sign alone, nor blanks alone
    own_text = (f"regexp_full_match({{0}}, '{_FLINK_DECIMAL}') "
                f"AND NOT regexp_full_match({{0}}, '{_BLANKS}[+-]?')")
    # a longer exponent overflows or throws in Flink as 999 does here
    exp10 = (f"(CASE WHEN {exponent} = '' THEN 0 ELSE greatest(-999, least(999, coalesce(TRY_CAST({exponent} "
             f"AS INTEGER), CASE WHEN {exponent} LIKE '-%' THEN -999 ELSE 999 END))) END)")
    change = f"({exp10} - length({fraction}) + {s})"
    digits = f"(length({whole}) + length({fraction}))"
    significand = f"coalesce(TRY_CAST(nullif({whole} || {fraction}, '') AS HUGEINT), 0)"
    # Flink rounds HALF_UP by adding 5 at the first dropped digit; more than 18 dropped digits
    # throw (DecimalDataUtils.power10 past its table), more digits than p overflow: both fail.
    unscaled = (f"(CASE WHEN {change} >= 0 THEN {significand} * CAST(pow(10, {change}) AS HUGEINT) "
                f"ELSE ({significand} + 5 * CAST(pow(10, -{change} - 1) AS HUGEINT)) "
                f"// CAST(pow(10, -{change}) AS HUGEINT) END)")
    unit = "0." + "0" * (s - 1) + "1" if s else "1"
    own = (f"TRY_CAST(CAST((CASE WHEN {sign} = '-' THEN -1 ELSE 1 END) * {unscaled} AS DECIMAL(38, 0)) "
           f"* {unit} AS {t.duckdb()})")
    trimmed = f"regexp_replace({{0}}, '^{_BLANKS}(.*?){_BLANKS}$', '\\1', 's')"
    big = f"TRY_CAST({trimmed} AS {t.duckdb()})"
    by_flink = f"{p} <= 18 AND strlen({{0}}) <= 18"
    fits = (f"CASE WHEN {own_text} AND {digits} + {change} <= {p} AND {change} > -19 "
            f"THEN {own} IS NOT NULL END")
    ok = (f"CASE WHEN {by_flink} THEN coalesce({fits}, false) "
          f"ELSE regexp_full_match({trimmed}, '{_BIG_DECIMAL}') AND {big} IS NOT NULL END")
    return ok, f"CASE WHEN {by_flink} THEN {own} ELSE {big} END"


#: Flink's DateTimeUtils.parseTime: ``h[:m[:s[.fraction]]]``, each part digits with blanks around it.
_TIME = (f"{_TRIM}([0-9]+){_TRIM}(?::{_TRIM}([0-9]+){_TRIM}(?::{_TRIM}([0-9]+){_TRIM}"
         f"(?:\\.{_TRIM}([0-9]*){_TRIM})?)?)?")


def _time(t: SqlType) -> tuple[str, str, tuple[str, str]]:
    """A TIME(p) text as Flink 2.3 reads it: its milliseconds of the day, cut to p digits.

    ``h[:m[:s[.fraction]]]`` with blanks around the parts (``'12'`` is 12:00:00, ``'12:34'``
    12:34:00); an hour over 23, a minute or second over 59 is no TIME ("Invalid time format:
    '24:00:00'. Expected format: HH:mm:ss[.fff] ..."); the fraction is read to milliseconds, rounded
    up when the fourth digit is 5 or more (``'12:34:56.9996'`` is 12:34:57, and ``'23:59:59.9999'``
    fails as Flink's "Hour out of range: [24]"); then cut to p digits (``CAST('12:34:56.5' AS
    TIME)`` is 12:34:56). All read from PyFlink 2.3 (conformance cases).
    """
    groups, (h, mi, s) = text_groups("{0}", _TIME, 3, "__tm", 4)
    fraction = "__tm['g4']"
    millis = (f"(CASE WHEN {fraction} = '' THEN 0 ELSE CAST(rpad(left({fraction}, 3), 3, '0') AS BIGINT) "
              f"+ CASE WHEN substr({fraction}, 4, 1) >= '5' THEN 1 ELSE 0 END END)")
    total = f"({h} * 3600000 + {mi} * 60000 + {s} * 1000 + {millis})"
    ok = f"__tm['g1'] <> '' AND {h} <= 23 AND {mi} <= 59 AND {s} <= 59 AND {total} < 86400000"
    value = truncate_time_sql(f"(TIME '00:00:00' + to_milliseconds({total}))", t.precision or 0)
    return ok, value, ("__tm", groups)


_READERS = {**dict.fromkeys(_INTEGERS, _integer), "DATE": _date, "TIMESTAMP": _timestamp,
            "TIMESTAMP_LTZ": _timestamp_ltz, "DOUBLE": _floating, "FLOAT": _floating, "DECIMAL": _decimal,
            "TIME": _time}
