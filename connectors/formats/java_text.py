"""Text → value as the Java parsers Flink's JSON and CSV formats call, where Python's differ.

Flink's ``JsonParserToRowDataConverters`` and ``CsvToRowDataConverters`` turn a text value into a
column value with ``Integer.parseInt(text.trim())`` (and ``Long``/``Short``/``Byte``),
``Double.parseDouble(text.trim())`` (and ``Float``), ``Boolean.parseBoolean(text.trim())``, and
for DATE ``ISO_LOCAL_DATE`` (JSON) or ``java.sql.Date.valueOf`` (CSV), neither trimmed. Python's
``int``/``float``/``date.fromisoformat`` accept other text: ``int("1_000")``, ``float("inf")``,
``float("1_0.5")``, ``date.fromisoformat("20240105")`` (3.11) are values where Java throws, and
``float`` rejects ``"1d"`` and ``"0x1p3"``, which Java reads. Each function here accepts exactly
what its Java counterpart accepts (compat cases ``kafka_json_string_into_int_ignored``,
``kafka_json_string_into_double_ignored``, ``kafka_json_boolean_from_other_kinds``,
``kafka_csv_text_conversions_ignored``, recorded from Flink 2.3).

Every parser raises :class:`ValueError` for text Java rejects (a record fault of
:mod:`.convert`).
"""

from __future__ import annotations

import datetime as _dt
import decimal
import math
import re

import numpy as np

#: The characters Java's ``String.trim()`` removes: every code point up to U+0020.
_JAVA_SPACE = "".join(chr(c) for c in range(0x21))
#: ``Integer.parseInt``: a sign, then digits (any Unicode decimal digit, as ``Character.digit``).
_JAVA_INT = re.compile(r"[+-]?\d+")
#: ``Double.parseDouble`` (``FloatingDecimal``), ASCII only: NaN, Infinity, a decimal with an
#: optional exponent and ``f``/``d`` suffix, or a hexadecimal float with its binary exponent.
_JAVA_DOUBLE = re.compile(
    r"(?P<sign>[+-]?)(?:(?P<special>NaN|Infinity)"
    r"|(?P<dec>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)[fFdD]?"
    r"|(?P<hex>0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?\d+)[fFdD]?)",
    re.ASCII,
)
#: ``new BigDecimal(text)``: a sign, digits with an optional point, an optional exponent (ASCII).
_JAVA_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: ``DateTimeFormatter.ISO_LOCAL_DATE`` for years 0000-9999.
_ISO_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})", re.ASCII)
#: ``java.sql.Date.valueOf``: a 4-digit year, then a 1- or 2-digit month and day.
_SQL_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})", re.ASCII)


def java_trim(text: str) -> str:
    """``String.trim()``: every character up to U+0020 removed from both ends (not Unicode spaces)."""
    return text.strip(_JAVA_SPACE)


def parse_int(text: str) -> int:
    """``Long.parseLong(text.trim())`` (the caller checks the type's range).

    Raises:
        ValueError: for anything but an optionally signed run of decimal digits.
    """
    t = java_trim(text)
    if not _JAVA_INT.fullmatch(t):
        msg = f"not an integer: {text!r}"
        raise ValueError(msg)
    return int(t)


def parse_double(text: str) -> float:
    """``Double.parseDouble(text)`` (which trims).

    Raises:
        ValueError: for text Java rejects (``inf``, ``1_000``, an empty string ...).
    """
    m = _JAVA_DOUBLE.fullmatch(java_trim(text))
    if m is None:
        msg = f"not a Java floating-point number: {text!r}"
        raise ValueError(msg)
    sign = -1.0 if m["sign"] == "-" else 1.0
    if m["special"]:
        return float("nan") if m["special"] == "NaN" else sign * float("inf")
    if m["hex"]:
        return sign * float.fromhex(m["hex"])
    return sign * float(m["dec"])


def parse_float(text: str) -> float:
    """``Float.parseFloat(text)`` (which trims), as the float32 value in a Python float.

    Java rounds the text once, to float32. Through a double first, a decimal number whose double
    lands exactly halfway between two float32 values was then rounded to even:
    ``1.00000005960464478`` gave 1.0 where Java gives 1.0000001 (:func:`float32_of`).

    Raises:
        ValueError: for text Java rejects.
    """
    m = _JAVA_DOUBLE.fullmatch(java_trim(text))
    x = parse_double(text)
    return float32_of(x, decimal.Decimal(m["sign"] + m["dec"]) if m and m["dec"] else None)


def float32_of(x: float, exact: decimal.Decimal | int | None = None) -> float:
    """The float32 nearest to the number whose double is ``x`` (as a Python float).

    ``exact``: the number itself, when known (a decimal text's value): needed only where ``x``
    lies exactly halfway between two float32 values without being the number (the double's
    rounding made the tie), where the number's side of ``x`` decides, as Java's single rounding.
    """
    f = np.float32(x)
    back = float(f)
    if back == x or exact is None or not math.isfinite(x) or not np.isfinite(f):
        return back
    with np.errstate(over="ignore"):
        other = float(np.nextafter(f, np.float32(np.inf if x > back else -np.inf)))
    if not math.isfinite(other) or (back + other) / 2 != x or decimal.Decimal(x) == exact:
        return back
    up = exact > decimal.Decimal(x)
    return max(back, other) if up else min(back, other)


def parse_decimal(text: str) -> decimal.Decimal:
    """``new BigDecimal(text)``, not trimmed (Python's ``Decimal`` also takes spaces, ``1_000``, ``NaN``).

    Raises:
        ValueError: for text ``BigDecimal`` rejects.
    """
    if not _JAVA_DECIMAL.fullmatch(text):
        msg = f"not a decimal number: {text!r}"
        raise ValueError(msg)
    return decimal.Decimal(text)


def parse_boolean(text: str) -> bool:
    """``Boolean.parseBoolean(text.trim())``: true for ``true`` in any case, false for any other text."""
    return java_trim(text).lower() == "true"


def parse_iso_date(text: str) -> _dt.date:
    """``ISO_LOCAL_DATE.parse(text)`` (Flink's JSON format): ``yyyy-MM-dd`` exactly, not trimmed.

    Raises:
        ValueError: for another form (``20240105``, ``2024-1-5``, spaces) or an invalid date.
    """
    m = _ISO_DATE.fullmatch(text)
    if m is None:
        msg = f"not a yyyy-MM-dd date: {text!r}"
        raise ValueError(msg)
    return _dt.date(int(m[1]), int(m[2]), int(m[3]))


def parse_sql_date(text: str) -> _dt.date:
    """``java.sql.Date.valueOf(text)`` (Flink's CSV format): ``yyyy-[m]m-[d]d``, not trimmed.

    As ``Date.valueOf``, a month of 1-12 and a day of 1-31 are taken, a day past the month's end
    rolling over into the next month (``2024-02-30`` is 2024-03-01).

    Raises:
        ValueError: for another form or a month or day out of those ranges.
    """
    m = _SQL_DATE.fullmatch(text)
    if m is None or not (1 <= int(m[2]) <= 12 and 1 <= int(m[3]) <= 31):
        msg = f"not a yyyy-[m]m-[d]d date: {text!r}"
        raise ValueError(msg)
    return _dt.date(int(m[1]), int(m[2]), 1) + _dt.timedelta(days=int(m[3]) - 1)


_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


class Base64Error(ValueError):
    """Text Jackson's base64 decoder rejects.

    ``past_end``: a JSON parser reading it ran past the string's closing quote (Flink's lenient
    reader is then out of step and drops the record).
    """

    def __init__(self, msg: str, past_end: bool = False):
        super().__init__(msg)
        self.past_end = past_end


def parse_base64(text: str) -> bytes:
    """BYTES from base64 text as Flink's JSON and CSV formats read it (Jackson's ``MIME-NO-LINEFEEDS``).

    Jackson's rules, which Python's ``b64decode`` does not follow: whitespace (any character up
    to U+0020) is skipped only before a group of four characters (``" AQ=="``, ``"AQID BA=="``
    read; ``"A Q=="`` does not); padding is required (``"AQ"``, ``"AQI"`` fail); decoding goes on
    after a padded group (``"AQ==AQ=="`` is two bytes); a group cannot start with ``=``
    (``"===="``, ``"YWJj="`` fail); any other character fails (``"!!"``, ``"-_8="``). Checked
    against Flink 2.3, JSON and CSV, in the compat cases ``kafka_json_bytes_base64_forms`` and
    ``kafka_csv_bytes_base64_forms``.

    Raises:
        Base64Error: for text Jackson rejects (``past_end`` when Jackson's JSON parser, decoding
            the string in place, reads its closing quote as a fourth character: the string ends
            one character into a group, or after ``XY=``).
    """
    out = bytearray()
    i, n = 0, len(text)

    def char(pos: int, at_end_past: bool) -> int:
        if pos >= n:
            msg = "unexpected end of base64 text (padding is required)"
            raise Base64Error(msg, at_end_past)
        v = _B64.get(text[pos], -1)
        if v < 0 and text[pos] != "=":
            msg = f"illegal character {text[pos]!r} in base64 text"
            raise Base64Error(msg)
        return v

    while True:
        while i < n and text[i] <= " ":
            i += 1
        if i >= n:
            return bytes(out)
        a = char(i, False)
        b = char(i + 1, True) if a >= 0 else -1
        if a < 0 or b < 0:
            msg = "padding '=' where a base64 digit is expected"
            raise Base64Error(msg)
        c = char(i + 2, False)
        if c < 0:  # "XY=" needs a second "="
            d = char(i + 3, True)
            if d >= 0:
                msg = "expected padding '=' after '='"
                raise Base64Error(msg)
            out.append((a << 2 | b >> 4) & 0xFF)
            i += 4
            continue
        d = char(i + 3, False)
        data = ((a << 6 | b) << 6 | c)
        if d < 0:
            out += (data >> 2).to_bytes(2, "big")
        else:
            out += (data << 6 | d).to_bytes(3, "big")
        i += 4


#: Flink's ``SQL_TIME_FORMAT`` (JSON and CSV): ``HH:mm:ss`` and 0 to 9 fraction digits.
_SQL_TIME = re.compile(r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9])(?:\.([0-9]{1,9}))?", re.ASCII)


def parse_sql_time(text: str) -> int:
    """Flink's JSON/CSV TIME text as microseconds of the day, in whole milliseconds (the rest cut).

    As Flink's ``SQL_TIME_FORMAT`` parse, then its milliseconds of the day (PyFlink 2.3:
    ``12:34:56.123456789`` is 12:34:56.123; ``12:34``, ``1:2:3``, ``12:34:56Z`` fail).

    Raises:
        ValueError: for another form.
    """
    m = _SQL_TIME.fullmatch(text)
    if m is None:
        msg = f"not an HH:mm:ss[.fraction] time: {text!r}"
        raise ValueError(msg)
    millis = int((m[4] or "0")[:3].ljust(3, "0"))
    return ((int(m[1]) * 3600 + int(m[2]) * 60 + int(m[3])) * 1000 + millis) * 1000
