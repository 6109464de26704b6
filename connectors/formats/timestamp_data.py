"""Text → epoch microseconds as Flink's ``DateTimeUtils`` reads it, for changelog metadata columns.

Flink's changelog JSON formats read some metadata from text with ``DateTimeUtils`` (not with the
JSON format's ``TimeFormats``, see :mod:`.java_timestamp`), and a number from text with Java's
``Long.parseLong``:

- :func:`parse_default`: ``parseTimestampData(text)`` (``ogg-json``'s ``event-timestamp`` from
  ``op_ts``): ``DEFAULT_TIMESTAMP_FORMATTER``, ``yyyy-M-d[ H:m:s[.fraction]]`` (one or two digits
  for month, day, hour, minute and second; 0-9 fraction digits after the point), SMART (a day past
  its month's end is the month's last day, ``24:00:00`` the next midnight), the fraction cut down
  to milliseconds (precision 3); text it does not read fails the message;
- :func:`parse_pattern_or_sql`: ``parseTimestampData(text, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")``
  (``ogg-json``'s ``ingestion-timestamp`` from ``current_ts``): exactly that shape (SMART), cut
  down to milliseconds (Flink 2.3 read ``...21.654321`` as ``...21.654``), else java.sql's
  fallback on the trimmed text, ``Timestamp.valueOf`` when it holds a space
  (``yyyy-M-d H:m:s[.f]``, 1-9 fraction digits) and ``Date.valueOf`` (midnight) when not, whose
  out-of-range days, hours, minutes and seconds roll over (java.util.Date is lenient), its fraction
  kept (to microseconds here); NULL when neither reads it;
- :func:`java_long`: ``Long.parseLong`` (``debezium-json``'s ``source.timestamp`` from ``source``'s
  ``ts_ms``).

The wall clock read is the instant at UTC (``TimestampData.fromLocalDateTime``), as Flink's
TIMESTAMP_LTZ metadata holds it. Recorded by ``scripts/flink_changelog_metadata.py``.
"""

from __future__ import annotations

import re

from streamsql.connectors.formats.convert import RecordError
from streamsql.connectors.formats.java_timestamp import epoch_day

_US_PER_DAY = 86_400_000_000
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_DEFAULT = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})"
                      r"(?: ([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:\.([0-9]{0,9}))?)?")
_ISO6 = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})\.([0-9]{6})")
_SQL_TIMESTAMP = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2}) "
                            r"([0-9]+):([0-9]+):([0-9]+)(?:\.([0-9]{1,9}))?")
_SQL_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})")
_LONG = re.compile(r"[+-]?[0-9]+")
#: Java's String.trim: every char up to U+0020 at either end.
_TRIMMED = "".join(map(chr, range(33)))


def _smart(m: re.Match) -> int | None:
    """Epoch µs of a matched date-time (groups y, M, d[, H, m, s[, fraction]]), SMART; None out of range."""
    y, mo, d = (int(g) for g in m.groups()[:3])
    h, mi, s = (int(g or 0) for g in m.groups()[3:6])
    frac = (m.groups()[6] or "") if len(m.groups()) > 6 else ""
    if not 1 <= mo <= 12 or not 1 <= d <= 31 or y == 0:
        return None
    leap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)
    d = min(d, 29 if mo == 2 and leap else _MONTH_DAYS[mo - 1])
    day = epoch_day(y, mo, d)
    if h == 24 and mi == 0 and s == 0 and not frac.strip("0"):
        return (day + 1) * _US_PER_DAY
    if h > 23 or mi > 59 or s > 59:
        return None
    return day * _US_PER_DAY + ((h * 60 + mi) * 60 + s) * 1_000_000 + int(frac[:6].ljust(6, "0") or 0)


def parse_default(text: str) -> int:
    """Epoch µs (whole milliseconds) of ``text`` read as ``DateTimeUtils.parseTimestampData(text)``.

    Raises:
        RecordError: the default formatter does not read it (Flink's DateTimeParseException).
    """
    m = _DEFAULT.fullmatch(text)
    us = None if m is None else _smart(m)
    if us is None:
        msg = f"Text '{text}' could not be parsed (as Flink's default 'yyyy-MM-dd HH:mm:ss[.fraction]')"
        raise RecordError(msg)
    return us - us % 1000


def parse_pattern_or_sql(text: str) -> int | None:
    """Epoch µs of ``text`` as ``parseTimestampData(text, "yyyy-MM-dd'T'HH:mm:ss.SSSSSS")``; None if not."""
    m = _ISO6.fullmatch(text)
    us = None if m is None else _smart(m)
    if us is not None:
        return us - us % 1000
    text = text.strip(_TRIMMED)
    m = (_SQL_TIMESTAMP if " " in text else _SQL_DATE).fullmatch(text)
    if m is None:
        return None
    groups = (*m.groups(), None, None, None, None)  # a date alone: midnight
    y, mo, d = (int(g) for g in groups[:3])
    if not 1 <= mo <= 12 or not 1 <= d <= 31:
        return None
    h, mi, s = (int(g or 0) for g in groups[3:6])
    frac = groups[6] or ""
    # lenient: the day and the time of day roll over from the first of the month
    return ((epoch_day(max(y, 1), mo, 1) + d - 1) * _US_PER_DAY
            + ((h * 60 + mi) * 60 + s) * 1_000_000 + int(frac[:6].ljust(6, "0") or 0))


def java_long(text: str) -> int:
    """``Long.parseLong(text)``.

    Raises:
        RecordError: not a decimal integer in Java's long range (Flink's NumberFormatException).
    """
    if _LONG.fullmatch(text) and -(2**63) <= int(text) < 2**63:
        return int(text)
    msg = f'For input string: "{text}"'
    raise RecordError(msg)
