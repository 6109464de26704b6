"""Pattern letters of Java's date formatters that strftime has no directive for.

A format pattern is translated to strftime at planning time (:mod:`.temporal`); these letters are
written into the strftime pattern as marker characters, which :func:`fill` replaces with their
field computed per row in DuckDB SQL. Two flavours, as Flink 2.3 formats:

- ``java.time`` (``DateTimeFormatter``, DATE_FORMAT): ``S`` x n is the fraction of the second cut
  to n digits ('S' of .123 is '1', 'SSSS' '1230'); ``u`` is the year; ``Y`` the week-based year;
  ``n`` the nano-of-second, ``A`` the milli-of-day, ``N`` the nano-of-day; ``Q``/``q`` the
  quarter; ``e``/``c`` the day of the week from Sunday = 1; ``W`` the week of the month (from
  Sunday, week 1 holds the 1st), ``F`` ``(day - 1) % 7 + 1`` (Java's ALIGNED_DAY_OF_WEEK_IN_MONTH);
  ``G`` the era, AD; 'yyy', 'yyyyy' the year padded to 3, 5 digits. An optional section ``[...]``
  is always written (a timestamp has every field);
- ``SimpleDateFormat`` (FROM_UNIXTIME): ``S`` x n is the milliseconds as a number padded to n
  digits; ``u`` the day number of the week (1 = Monday .. 7 = Sunday); ``Y`` the week-based year.

Before 1582-10-15 ``SimpleDateFormat`` writes the Julian calendar's date (its calendar's cutover),
and the year of the era (1 BC for the year 0): the ``JULIAN`` flavour (see :func:`julian_window`).

In all, ``k`` is the hour 1..24 (midnight is 24) and ``K`` the hour of the half day 0..11, n
letters padded to n digits. The week-based year is that of the week's Saturday in Flink's JVM
locale (``en``: weeks from Sunday, week 1 holds January 1), as ``w`` (see
``temporal._week_of_year``): 1999-12-31 is in 2000, and 'YY' writes its last two digits.
"""

from __future__ import annotations

JAVA_TIME, SIMPLE, JULIAN = "java.time", "SimpleDateFormat", "SimpleDateFormat before 1582-10-15"
JULIAN_LETTERS = "yYEw"
"""The letters the ``JULIAN`` flavour writes as fields; strftime writes its others over
:func:`julian_window` (the month, the day, the day of the year: the Julian calendar's) or as ``SIMPLE``."""
ERA_YEAR = "y*"
"""The field java.time's ``y`` letters write for any year: the year of the era (977 for the proleptic
year -976), n letters padded to n digits, with a '+' past them from four letters on (SignStyle
EXCEEDS_PAD: 'yyyy' of 10024 is +10024), two letters its last two digits."""

_FIRST_MARKER = 0xE000  # private-use characters: never in a pattern's literal text


def _padded(sql: str, count: int) -> str:
    """A number's text, zero-padded to at least ``count`` digits (never cut)."""
    return f"printf('%0{count}d', {sql})" if count > 1 else f"CAST({sql} AS VARCHAR)"


def _saturday(v: str) -> str:
    """DuckDB SQL of the DATE of the Saturday ending the week (from Sunday) of ``v``."""
    return f"(CAST({v} AS DATE) + (6 - dayofweek({v}))::INTEGER)"


def _week_year(v: str) -> str:
    return f"year({_saturday(v)})"


def _of_era(year: str) -> str:
    """DuckDB SQL of the year of the era of the proleptic ``year`` (1 BC for the year 0)."""
    return f"(CASE WHEN {year} <= 0 THEN 1 - {year} ELSE {year} END)"


def _cycles(v: str) -> str:
    """DuckDB SQL of the whole 4-year Julian cycles (1461 days) from 0201-01-01 to the day of ``v``."""
    return f"CAST(floor(date_diff('day', DATE '0201-01-01', CAST({v} AS DATE)) / 1461) AS BIGINT)"


def julian_window(v: str) -> str:
    """DuckDB SQL of the TIMESTAMP ``v`` moved by whole 4-year Julian cycles into 0201 .. 0204.

    There the Gregorian and the Julian calendars agree (years 201-203 common, 204 leap in both): its
    month, day, day of the year and time of day are ``v``'s in the Julian calendar, its year is the
    Julian year minus 4 x :func:`_cycles` (a cycle is 1461 days in the Julian calendar); the day of
    the week is not ``v``'s.
    """
    return f"({v} - to_days(CAST(1461 * {_cycles(v)} AS INTEGER)))"


def _julian_year(v: str, era: bool) -> str:
    """DuckDB SQL of the Julian year of the day of ``v``: of the era (1 BC for the year 0) if ``era``."""
    year = f"(year({julian_window(v)}) + 4 * {_cycles(v)})"
    return _of_era(year) if era else year


def _julian_field(letter: str, count: int, v: str) -> str | None:
    """DuckDB SQL of a :data:`JULIAN_LETTERS` field of ``v`` as ``SimpleDateFormat`` writes it then."""
    saturday = _saturday(v)
    if letter in "yY" and (letter == "y" or count in (1, 2, 4)):
        # the week-based year is the calendar's, not of the era (Flink: 'Y' of 1944 BC is -1943)
        year = _julian_year(v, True) if letter == "y" else _julian_year(saturday, False)
        return f"lpad(CAST({year} % 100 AS VARCHAR), 2, '0')" if count == 2 else _padded(year, count)
    if letter == "E":
        return f"strftime({v}, '{'%a' if count <= 3 else '%A'}')"
    if letter == "w" and count <= 2:
        return _padded(f"(dayofyear({julian_window(saturday)}) - 1) // 7 + 1", count)
    return None


def _field(letter: str, count: int, flavour: str, v: str) -> str | None:
    """DuckDB SQL (VARCHAR) of the field ``letter`` x ``count`` of the TIMESTAMP ``v``, or None."""
    if flavour == JULIAN and letter in JULIAN_LETTERS:
        return _julian_field(letter, count, v)
    if letter == ERA_YEAR:
        of_era = _of_era(f"year({v})")
        if count == 2:
            return f"lpad(CAST({of_era} % 100 AS VARCHAR), 2, '0')"
        sign = f"CASE WHEN {of_era} >= {10 ** count} THEN '+' ELSE '' END || " if count >= 4 else ""
        return sign + _padded(of_era, count)
    if letter == "k" and count <= 2:
        return _padded(f"CASE WHEN hour({v}) = 0 THEN 24 ELSE hour({v}) END", count)
    if letter == "K" and count <= 2:
        return _padded(f"hour({v}) % 12", count)
    if letter == "Y" and count in (1, 2, 4):
        year = _week_year(v)
        return f"lpad(CAST({year} % 100 AS VARCHAR), 2, '0')" if count == 2 else _padded(year, count)
    if flavour == JAVA_TIME:
        return _java_time_field(letter, count, v)
    if letter == "S" and count <= 9:
        return _padded(f"(microsecond({v}) // 1000) % 1000", count)
    if letter == "u" and count <= 2:
        return _padded(f"isodow({v})", count)
    return None


def _java_time_field(letter: str, count: int, v: str) -> str | None:
    """DuckDB SQL of a DateTimeFormatter field strftime lacks (``en`` locale, as Flink's JVM)."""
    micros = f"strftime({v}, '%f')"
    of_day = f"(epoch_us({v}) - epoch_us(CAST(CAST({v} AS DATE) AS TIMESTAMP)))"
    fields = {
        "S": (range(1, 10), f"left({micros}, {count})" if count <= 6 else f"rpad({micros}, {count}, '0')"),
        "n": (range(1, 10), _padded(f"microsecond({v}) % 1000000 * 1000", count)),  # nano-of-second
        "A": (range(1, 10), _padded(f"{of_day} // 1000", count)),  # milli-of-day
        "N": (range(1, 16), _padded(f"{of_day} * 1000", count)),  # nano-of-day
        "Q": (range(1, 3), _padded(f"quarter({v})", count)),
        "q": (range(1, 3), _padded(f"quarter({v})", count)),
        "e": (range(1, 3), _padded(f"dayofweek({v}) + 1", count)),  # localized: Sunday is 1 in en
        "c": (range(1, 2), _padded(f"dayofweek({v}) + 1", count)),
        # week of the month from Sunday, week 1 holding the 1st; F: Java's ALIGNED_DAY_OF_WEEK_IN_MONTH
        "W": (range(1, 2), f"CAST((day({v}) + dayofweek(date_trunc('month', {v})) - 1) // 7 + 1 AS VARCHAR)"),
        "F": (range(1, 2), f"CAST((day({v}) - 1) % 7 + 1 AS VARCHAR)"),
        "G": (range(1, 4), "'AD'"),
    }
    if letter in fields and count in fields[letter][0]:
        return fields[letter][1]
    if letter in "yu" and (count != 4 or letter == "u"):
        if count == 2:
            return f"lpad(CAST(year({v}) % 100 AS VARCHAR), 2, '0')"
        return _padded(f"year({v})", count) if letter == "u" or count >= 3 else None
    return None


def marker(letter: str, count: int, flavour: str, fields: list[tuple[str, int]]) -> str | None:
    """The marker to write for ``letter`` x ``count`` (None: not a field of this module).

    ``fields`` collects the pattern's fields in marker order, for :func:`fill`.
    """
    if _field(letter, count, flavour, "x") is None:
        return None
    fields.append((letter, count))
    return chr(_FIRST_MARKER + len(fields) - 1)


def fill(text: str, value: str, fields: list[tuple[str, int]], flavour: str) -> str:
    """DuckDB SQL of ``text`` (strftime's output over ``value``) with each marker replaced."""
    for n, (letter, count) in enumerate(fields):
        text = f"replace({text}, '{chr(_FIRST_MARKER + n)}', {_field(letter, count, flavour, value)})"
    return text
