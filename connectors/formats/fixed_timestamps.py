"""Timestamp text of one fixed width read with numpy: the common case of the JSON/CSV fast path.

The general path (an RE2 check of every value, then Arrow's string → timestamp cast) costs
~0.13 CPU-µs per value; here ~0.07 (benchmarks/README.md, session 25). When every value has the
same width and a date from 1677-09-22 to 2262-04-10 (the nanosecond range), each field sits at a fixed byte
position and numpy checks the bytes and does the calendar arithmetic (H. Hinnant's
``days_from_civil``, proleptic Gregorian as ``java.time``). Anything else — a NULL, mixed
widths, a field out of range, a day past its month's end, ``24:00:00`` — answers None and the
caller takes the general path, which decides as before: this only ever gives the value that
path gives.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

_NS_PER_DAY = 86_400 * 10**9
_DIGIT_POS = (0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18)  # of "yyyy-MM-dd HH:mm:ss"
_SEPS = ((4, 45), (7, 45), (13, 58), (16, 58))  # '-', '-', ':', ':'
_MONTH_DAYS = np.array([0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31], np.int64)
#: Epoch days 1677-09-22 and 2262-04-11: every timestamp of a day between them (that one
#: excluded) fits int64 nanoseconds.
_MIN_DAY, _END_DAY = -106_751, 106_751


def days_from_civil(y: np.ndarray, m: np.ndarray, d: np.ndarray) -> np.ndarray:
    """Epoch days of proleptic Gregorian dates (int64 arrays; ``LocalDate.toEpochDay``)."""
    y = y - (m <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * np.where(m > 2, m - 3, m + 9) + 2) // 5 + d - 1
    return era * 146_097 + yoe * 365 + yoe // 4 - yoe // 100 + doy - 719_468


def _rows(text: pa.Array) -> np.ndarray | None:
    """The UTF-8 bytes of ``text`` as an (n, width) array when every value has one width, else None."""
    if len(text) == 0 or text.null_count or not pa.types.is_string(text.type):
        return None
    offsets = np.frombuffer(text.buffers()[1], np.int32, len(text) + 1, text.offset * 4)
    width = int(offsets[1] - offsets[0])
    if int(offsets[-1] - offsets[0]) != width * len(text) or not (np.diff(offsets) == width).all():
        return None
    data = np.frombuffer(text.buffers()[2], np.uint8, width * len(text), int(offsets[0]))
    return data.reshape(len(text), width)


def parse_fixed(text: pa.Array | pa.ChunkedArray, sep: int, zulu: bool) -> pa.Array | None:
    """``timestamp('ns')`` of ``yyyy-MM-dd<sep>HH:mm:ss[.f…f][Z]`` text, or None (see the module docstring).

    Args:
        text: the column's text (no NULL, one width: 19, or 21-29 with 1-9 fraction digits; +1 with ``Z``).
        sep: the byte between date and time (``b' '`` SQL, ``b'T'`` ISO-8601).
        zulu: the text ends with ``Z`` (TIMESTAMP_LTZ; the result is then ``tz='UTC'``).
    """
    if isinstance(text, pa.ChunkedArray):  # Arrow's JSON reader gives a chunk per block it parsed
        parts = [parse_fixed(c, sep, zulu) for c in text.chunks]
        return None if not parts or None in parts else pa.chunked_array(parts)
    rows = _rows(text)
    if rows is None:
        return None
    width = rows.shape[1] - zulu
    frac = width - 20  # fraction digits
    if not (width == 19 or 1 <= frac <= 9):
        return None
    if zulu and not (rows[:, -1] == 90).all():  # 'Z'
        return None
    marks = [*_SEPS, (10, sep)] + ([(19, 46)] if frac > 0 else [])  # '.'
    for at, byte in marks:
        if not (rows[:, at] == byte).all():
            return None
    digit_at = list(_DIGIT_POS) + list(range(20, 20 + max(frac, 0)))
    digits = rows[:, digit_at].astype(np.int64) - 48
    if ((digits < 0) | (digits > 9)).any():
        return None

    def number(lo: int, hi: int) -> np.ndarray:
        out = digits[:, lo]
        for k in range(lo + 1, hi):
            out = out * 10 + digits[:, k]
        return out

    y, mo, d = number(0, 4), number(4, 6), number(6, 8)
    h, mi, s = number(8, 10), number(10, 12), number(12, 14)
    if ((mo < 1) | (mo > 12) | (d < 1) | (h > 23) | (mi > 59) | (s > 59)).any():
        return None
    last = _MONTH_DAYS[mo] + ((mo == 2) & (y % 4 == 0) & ((y % 100 != 0) | (y % 400 == 0)))
    if (d > last).any():
        return None
    days = days_from_civil(y, mo, d)
    if int(days.min()) < _MIN_DAY or int(days.max()) >= _END_DAY:
        return None
    ns = days * _NS_PER_DAY + ((h * 60 + mi) * 60 + s) * 10**9
    if frac > 0:
        ns += number(14, 14 + frac) * 10 ** (9 - frac)
    return pa.array(ns, pa.timestamp("ns", tz="UTC") if zulu else pa.timestamp("ns"))
