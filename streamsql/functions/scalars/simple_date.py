"""Java's lenient ``SimpleDateFormat.parse``, for TO_DATE and UNIX_TIMESTAMP patterns of numbers.

Flink 2.3's ``TO_DATE(s, fmt)`` (``DateTimeUtils.parseDate``, in UTC) and ``UNIX_TIMESTAMP(s, fmt)``
(``DateTimeUtils.unixTimestamp``, in the session time zone) parse with a cached
``java.text.SimpleDateFormat`` (lenient, the JVM's ``en`` locale: weeks from Sunday, week 1 holds
January 1). strptime has no week of the year (``w``) and reads a day of the year (``D``) neither
leniently ('400' is day 35 of the next year) nor in Java's default year, 1970; so a pattern with
``D`` or ``w`` is parsed here, as ``SimpleDateFormat`` and ``GregorianCalendar`` do:

- each field skips spaces and tabs, then reads a number (an optional ``-`` and digits; exactly n
  digits when the next pattern element is a number too, as 'yyyyww'); other pattern text must
  match as it is; text after the pattern's end is ignored;
- ``yy`` (or ``y``) of exactly two digits is a year within 80 years before and 20 after now;
- the date comes from the field set last among the complete combinations (``Calendar``'s
  ``selectFields``): ``d`` (with ``M``, or January), else ``D``, else ``w`` alone (the Sunday of
  that week: week 1 starts on the Sunday on or before January 1), else January 1; so ``w`` beside
  ``d`` or ``D`` is read and ignored. Out-of-range values roll over (lenient);
- a date before 1582-10-15 is in the Julian calendar (Java's cutover), a day of the year or week
  of 1582 too.

Letters read: ``y M MM d D w H k m s S`` and ``X XX XXX`` (a zone offset in the text, which then
replaces the session's); a pattern with others keeps strptime's translation
(:mod:`.temporal`), or is refused there.
"""

from __future__ import annotations

import datetime
import functools
import re
import zoneinfo
from collections.abc import Callable

LETTERS = frozenset("yMdDwHkmsSX")
"""Pattern letters :func:`parse_millis` reads (``M`` as a number: one or two letters; ``X`` an ISO
8601 zone offset, one to three letters)."""

_EPOCH = 719_163  # fixed day (1 = 0001-01-01 Gregorian) of 1970-01-01
_CUTOVER = 577_736  # fixed day of 1582-10-15, the first Gregorian day of Java's calendar
_DAY = 86_400_000
_FIELD = {"y": "year", "M": "month", "d": "day", "D": "day_of_year", "w": "week", "H": "hour",
          "k": "hour", "m": "minute", "s": "second", "S": "milli"}
_NUMBER = re.compile(r"-?\d+")


@functools.lru_cache(maxsize=64)
def elements(java: str) -> tuple[tuple[str, int | str], ...] | None:
    """``java`` as ``(letter, count)`` fields and ``("", text)`` literals.

    None when a letter is not in :data:`LETTERS` (or ``M`` has more than two).
    """
    out: list[tuple[str, int | str]] = []
    for m in re.finditer(r"'([^']*)'|([A-Za-z])\2*|.", java):
        text = m.group(0)
        if m.group(1) is not None or text == "''":
            out.append(("", m.group(1) or "'"))
        elif m.group(2):
            if text[0] not in LETTERS or (text[0] in "MX" and len(text) > 2 + (text[0] == "X")):
                return None
            out.append((text[0], len(text)))
        else:
            out.append(("", text))
    return tuple(out)


def _int(digits: str) -> int:
    """Java's ``Number.intValue()`` of what ``DecimalFormat`` parsed (a Long's low 32 bits)."""
    v = int(digits)
    if not -(2**63) <= v < 2**63:  # a Double then: saturated
        return max(min(v, 2**31 - 1), -(2**31))
    return (v + 2**31) % 2**32 - 2**31


def _read(text: str, java: tuple, now_year: int) -> tuple[dict[str, tuple[int, int]], int] | None:
    """The fields of ``text`` by name, (value, order set), and the index after the last one read.

    None when it does not parse.
    """
    fields: dict[str, tuple[int, int]] = {}
    at = 0
    for n, (letter, arg) in enumerate(java):
        if not letter:
            if not text.startswith(arg, at):
                return None
            at += len(arg)
            continue
        start = at
        while at < len(text) and text[at] in " \t":
            at += 1
        if at >= len(text):
            return None
        if letter == "X":
            zone = _iso_zone(text, at, arg)
            if zone is None:
                return None
            fields["zone_offset"], at = (zone[0], n + 1), zone[1]
            continue
        following = java[n + 1] if n + 1 < len(java) else ("", "")
        # abutting numbers: this one reads up to its letter count (counted from before the spaces)
        end = start + arg if following[0] and (following[0] != "M" or following[1] <= 2) else len(text)
        if end > len(text):
            return None
        m = _NUMBER.match(text[:end], at)
        if m is None:
            return None
        value = _int(m.group(0))
        if letter == "y" and arg <= 2 and len(m.group(0)) == 2 and m.group(0).isdigit():
            start_year = now_year - 80
            value += start_year // 100 * 100 + (100 if value < start_year % 100 else 0)
        value -= letter == "M"
        if letter == "k" and value == 24:
            value = 0
        fields[_FIELD[letter]] = (value, n + 1)
        at = m.end()
    return fields, at


def _iso_zone(text: str, at: int, count: int) -> tuple[int, int] | None:
    """``SimpleDateFormat``'s ``X`` zone at ``text[at:]``: (offset ms, index after it), or None.

    ``Z`` is UTC; else a sign and two digits of hours (0..23), then with ``XX`` two of minutes,
    with ``XXX`` a colon and two (``subParseNumericZone``): ``X`` reads ``+08`` of ``+0800``.
    """
    if text[at] == "Z":
        return 0, at + 1
    if text[at] not in "+-":
        return None
    sign = 1 if text[at] == "+" else -1
    shape = r"(\d\d)" + ("" if count == 1 else r":(\d\d)" if count == 3 else r"(\d\d)")
    m = re.compile(shape).match(text, at + 1)
    if m is None or int(m.group(1)) > 23 or (count > 1 and int(m.group(2)) > 59):
        return None
    minutes = int(m.group(1)) * 60 + (int(m.group(2)) if count > 1 else 0)
    return sign * minutes * 60_000, m.end()


def _gregorian(year: int, month: int) -> int:
    """The fixed day of the first of ``month`` (1..12) of ``year`` in the proleptic Gregorian calendar."""
    y = year - 1
    days = 365 * y + y // 4 - y // 100 + y // 400 + (367 * month - 362) // 12 + 1
    leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
    return days - (0 if month <= 2 else 1 if leap else 2)


def _julian(year: int, month: int) -> int:
    """The fixed day of the first of ``month`` (1..12) of ``year`` in the Julian calendar."""
    days = -2 + 365 * (year - 1) + (year - 1) // 4 + (367 * month - 362) // 12 + 1
    return days - (0 if month <= 2 else 1 if year % 4 == 0 else 2)


def _resolution(fields: dict) -> str:
    """``Calendar.selectFields`` for these fields: "month" (``d``, or none), "year day" or "week"."""
    def stamp(name: str) -> int:
        return fields[name][1] if name in fields else 0

    best = max(stamp("day"), stamp("day_of_year"))
    if best == 0:
        return "week" if stamp("week") else "month"
    return "month" if best == stamp("day") else "year day"


def _day(first_of: Callable[[int, int], int], year: int, fields: dict, how: str) -> int:
    """``GregorianCalendar.getFixedDate``: the fixed day the date fields give in one calendar."""
    if how == "month":
        month = fields.get("month", (0,))[0]
        year, month = year + month // 12, month % 12
        return first_of(year, month + 1) + fields.get("day", (1,))[0] - 1
    first = first_of(year, 1)
    if how == "year day":
        return first + fields["day_of_year"][0] - 1
    sunday = first + 6 - (first + 6) % 7  # the Sunday on or before January 7 (fixed day 7 is a Sunday)
    if sunday - first >= 1:
        sunday -= 7
    return sunday + 7 * (fields["week"][0] - 1)


def _fixed_day(year: int, fields: dict) -> int:
    """``GregorianCalendar.computeTime``'s choice between the Julian and the Gregorian day."""
    how = _resolution(fields)
    if year > 1582:
        gregorian = _day(_gregorian, year, fields, how)
        if gregorian >= _CUTOVER:
            return gregorian
        julian = _day(_julian, year, fields, how)
    elif year < 1582:
        julian = _day(_julian, year, fields, how)
        if julian < _CUTOVER:
            return julian
        gregorian = julian
    else:
        julian, gregorian = _day(_julian, year, fields, how), _day(_gregorian, year, fields, how)
    if how != "month":  # counted from a January 1 of the cutover's year: Julian
        return julian
    return gregorian if gregorian >= _CUTOVER else julian


def _offset_ms(wall_ms: int, zone: str) -> int:
    """The zone's UTC offset (ms) at a wall clock, as ``GregorianCalendar`` takes it.

    In a repeated hour and in a skipped one: the smaller of the two offsets (the standard time's,
    for a summer time ahead of it).
    """
    if zone == "UTC":
        return 0
    seconds = min(max(wall_ms // 1000, -62_135_596_800), 253_402_214_400)  # years 1 .. 9999
    wall = (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)).replace(
        tzinfo=zoneinfo.ZoneInfo(zone))
    return int(min(wall.utcoffset(), wall.replace(fold=1).utcoffset()).total_seconds() * 1000)


def parse_millis(text: str, java: str, zone: str) -> int | None:
    """Epoch milliseconds of ``text`` parsed with ``java`` by a lenient ``SimpleDateFormat`` in ``zone``.

    ``java`` has letters of :data:`LETTERS` only. None when Java throws its ``ParseException``
    (the text does not parse, or nothing was read).
    """
    pattern = elements(java)
    read = _read(text, pattern, datetime.datetime.now(datetime.timezone.utc).year) if pattern else None
    if read is None or read[1] == 0:
        return None
    fields = read[0]
    year = fields.get("year", (1970,))[0]
    time_of_day = (((fields.get("hour", (0,))[0] * 60 + fields.get("minute", (0,))[0]) * 60
                    + fields.get("second", (0,))[0]) * 1000 + fields.get("milli", (0,))[0])
    wall = (_fixed_day(year, fields) - _EPOCH) * _DAY + time_of_day
    if "zone_offset" in fields:  # the text's own zone (X), not the session's
        return wall - fields["zone_offset"][0]
    return wall - _offset_ms(wall, zone)


def parse_days(text: str, java: str) -> int | None:
    """Flink's TO_DATE(text, java): the epoch day of :func:`parse_millis` in UTC."""
    ms = parse_millis(text, java, "UTC")
    return None if ms is None else ms // _DAY
