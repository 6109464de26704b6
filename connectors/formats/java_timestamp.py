"""Timestamp text → epoch nanoseconds, exactly as the ``java.time`` formatters Flink's formats use.

Flink 2.3's JSON format (``JsonParserToRowDataConverters``) parses a TIMESTAMP or TIMESTAMP_LTZ
value's text (``jp.getText()``: a JSON number's text too, never epoch millis) with one of the
``TimeFormats`` formatters, chosen by ``'json.timestamp-format.standard'``; its CSV format
(``CsvToRowDataConverters``) trims the text and always uses the SQL ones. The grammars
(``DATE`` is ``ISO_LOCAL_DATE``: a 4-digit year, ``+`` and 5-10 digits, or ``-`` and 4-10;
``-MM-dd``; ``FRAC`` is ``appendFraction(NANO_OF_SECOND, 0, 9, true)``: a ``.`` then 0-9
digits, so ``10:00:00.`` is a value):

============  ====================  =========================================  ========
standard      type                  text                                       resolver
============  ====================  =========================================  ========
SQL           TIMESTAMP             ``DATE ' ' HH:mm:ss [FRAC]``               SMART
SQL           TIMESTAMP_LTZ         ``DATE ' ' HH:mm:ss [FRAC] 'Z'``           SMART
ISO-8601      TIMESTAMP             ``DATE ('T'|'t') HH:mm [:ss [FRAC]]``      STRICT
ISO-8601      TIMESTAMP_LTZ         ``DATE 'T' HH:mm [:ss [FRAC]] 'Z'``        SMART
============  ====================  =========================================  ========

(``ISO_LOCAL_DATE_TIME`` is the only one parsing case-insensitively; the others take ``T`` and
``Z`` as written.) No zone offset is read by either standard: ``+01:00`` makes the text invalid,
never a shifted instant, and TIMESTAMP_LTZ text is the UTC instant. The SMART resolver clamps a
day past its month's end to the last day (``2024-02-30`` is 2024-02-29) and reads ``24:00:00``
(nothing after) as midnight of the next day; STRICT rejects both. Fields out of range (month 13,
second 60) and any text left over are errors. Compat cases ``kafka_json_timestamp_*`` and
``kafka_csv_empty_fields_ignored`` hold Flink 2.3's answers.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.fixed_timestamps import parse_fixed

#: ``ISO_LOCAL_DATE``'s year (``SignStyle.EXCEEDS_PAD``, 4-10 digits), month and day.
_DATE = r"(?P<y>[0-9]{4}|\+[0-9]{5,10}|-[0-9]{4,10})-(?P<mo>[0-9]{2})-(?P<d>[0-9]{2})"
_HMS = r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2}):(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]{0,9}))?"
_HM_S = r"(?P<h>[0-9]{2}):(?P<mi>[0-9]{2})(?::(?P<s>[0-9]{2})(?:\.(?P<f>[0-9]{0,9}))?)?"

#: (pattern, SMART resolver) per (ISO-8601?, TIMESTAMP_LTZ?).
_FORMATS = {
    (False, False): (re.compile(_DATE + " " + _HMS), True),
    (False, True): (re.compile(_DATE + " " + _HMS + "Z"), True),
    (True, False): (re.compile(_DATE + "[Tt]" + _HM_S), False),
    (True, True): (re.compile(_DATE + "T" + _HM_S + "Z"), True),
}
_NS_PER_DAY = 86_400 * 10**9
_MONTH_DAYS = (31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
_MAX_YEAR = 999_999_999  # ChronoField.YEAR


def _leap(y: int) -> bool:
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def epoch_day(y: int, m: int, d: int) -> int:
    """Days from 1970-01-01 to the proleptic Gregorian date (any year; ``LocalDate.toEpochDay``).

    >>> epoch_day(1970, 1, 1), epoch_day(2024, 1, 5), epoch_day(0, 3, 1)
    (0, 19727, -719468)
    """
    y -= m <= 2
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (m + (-3 if m > 2 else 9)) + 2) // 5 + d - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def parse_timestamp(text: str, iso: bool, ltz: bool) -> int:
    """Epoch nanoseconds of ``text`` as Flink's formatter reads it (see the module docstring).

    Args:
        text: the value's text, as is (the CSV format trims it first).
        iso: ``'<format>.timestamp-format.standard' = 'ISO-8601'`` (else SQL).
        ltz: the column is TIMESTAMP_LTZ (the text ends with ``Z``; read as UTC).

    Raises:
        ValueError: for text the formatter rejects or a field out of range.

    >>> parse_timestamp("1970-01-01 00:00:01.5", False, False)
    1500000000
    >>> parse_timestamp("2024-02-30 24:00:00Z", False, True) // 86_400_000_000_000  # 2024-03-01
    19783
    """
    pattern, smart = _FORMATS[(iso, ltz)]
    m = pattern.fullmatch(text)
    if m is None:
        msg = f"not a {'ISO-8601' if iso else 'SQL'} {'TIMESTAMP_LTZ' if ltz else 'TIMESTAMP'} text"
        raise ValueError(msg)
    y, mo, d = int(m["y"]), int(m["mo"]), int(m["d"])
    h, mi, s = int(m["h"]), int(m["mi"]), int(m["s"] or 0)
    frac = m["f"] or ""
    nanos = int(frac.ljust(9, "0")) if frac else 0
    if m["y"] == "-0000" or abs(y) > _MAX_YEAR or not 1 <= mo <= 12 or not 1 <= d <= 31:
        msg = "date field out of range"
        raise ValueError(msg)
    last = 29 if mo == 2 and _leap(y) else _MONTH_DAYS[mo - 1]
    if d > last:
        if not smart:
            msg = f"invalid date: day {d} of month {mo}"
            raise ValueError(msg)
        d = last  # SMART: the last valid day of the month
    extra_day = 0
    if smart and h == 24 and mi == 0 and s == 0 and nanos == 0:
        h, extra_day = 0, 1  # SMART: 24:00 is the end of the day
    if h > 23 or mi > 59 or s > 59:
        msg = "time field out of range"
        raise ValueError(msg)
    day = epoch_day(y, mo, d) + extra_day
    return day * _NS_PER_DAY + ((h * 60 + mi) * 60 + s) * 10**9 + nanos


# --------------------------------------------------------------------------------------------
# vectorized (the fast paths): only text whose value Arrow's cast reads the same

#: RE2: the text of each format that Arrow's string → timestamp cast reads as Flink does when it
#: reads it at all (a 4-digit year, at least one fraction digit; Arrow rejects a day past the
#: month's end, 24:00 and second 60, which then go per record to :func:`parse_timestamp`).
_ARROW_SAFE = {
    (False, False): r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?$",
    (False, True): r"^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$",
    (True, False): r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?$",
    (True, True): r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?Z$",
}


def timestamp_column(text: pa.Array | pa.ChunkedArray, ltz: bool, iso: bool) -> pa.Array | pa.ChunkedArray:
    """A string column of timestamp text → ``timestamp('ns')`` (``tz='UTC'`` when ``ltz``).

    Raises:
        pyarrow.ArrowInvalid: when a value is not text Arrow is known to read as Flink does
            (:data:`_ARROW_SAFE`) or Arrow rejects it; the caller then goes per record.
    """
    fast = parse_fixed(text, ord("T" if iso else " "), ltz)
    if fast is not None:
        return fast
    ok = pc.match_substring_regex(text, _ARROW_SAFE[(iso, ltz)])
    if pc.any(pc.invert(ok)).as_py():  # NULL stays NULL
        msg = "timestamp text Arrow may read differently from Flink"
        raise pa.ArrowInvalid(msg)
    if ltz:
        text = pc.utf8_slice_codeunits(text, 0, -1)  # the 'Z'
    ns = text.cast(pa.timestamp("ns"))
    return ns.cast(pa.timestamp("ns", tz="UTC")) if ltz else ns
