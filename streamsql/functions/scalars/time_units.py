"""Flink's time units that DuckDB's date parts lack: EXTRACT, FLOOR/CEIL and TIMESTAMPADD.

Each function returns DuckDB SQL over SQL given by the caller (:mod:`.temporal`), which brings a
TIMESTAMP_LTZ to its wall clock and a timestamp to the day Flink sees in it (its epoch
milliseconds / 86,400,000, truncated) first. Checked against Flink 2.3 by the differential
fuzzer's regression cases (``tests/functions/difffuzz_regressions.txt``).

EXTRACT, as Calcite's ``StandardConvertletTable.convertExtract`` and ``DateTimeUtils.unixDateExtract``
that Flink 2.3 runs:

- MILLISECOND, MICROSECOND, NANOSECOND of a timestamp are its epoch milliseconds modulo 1000
  (Java's ``%``, so negative before 1970: 1969-07-20 20:17:40.500 is -500), times 1, 1,000 or
  1,000,000, plus (MICROSECOND, NANOSECOND) the digits below the millisecond (the epoch
  milliseconds are floored, as Flink's ``TimestampData``: :func:`epoch_millis`); of a DATE the
  same arithmetic runs on its epoch *days* (Flink 2.3 prints 782 for EXTRACT(MILLISECOND FROM
  DATE '2024-02-29'), day 19,782);
- EPOCH is the epoch milliseconds / 1000 truncated (a DATE: its days * 86,400);
- DECADE is year / 10, CENTURY (year + 99) / 100, MILLENNIUM (year + 999) / 1000 (years > 0);
  ISODOW is 1 = Monday .. 7 = Sunday, ISOYEAR the ISO 8601 week-based year.

TIMESTAMPDIFF, as Flink 2.3 answers it: EPOCH is the difference of the epoch milliseconds / 1000
(whole seconds, truncated), MILLISECOND those seconds times 1000 (Flink 2.3 drops the
milliseconds: 2023-12-31 23:59:59.999 to 2024-01-01 is 0), MICROSECOND times 1,000,000, each cut
to the INT result as Java's ``(int)`` of a long (they wrap around past 24 days of milliseconds);
DECADE counts whole *years* (Flink 2.3 prints 124 for TIMESTAMPDIFF(DECADE, 1900-01-01,
2024-01-01)), CENTURY whole years / 100, MILLENNIUM whole years / 1000.

FLOOR/CEIL to DECADE, CENTURY, MILLENNIUM, as Calcite's ``DateTimeUtils.julianDateFloor``: centuries
and millennia start in a year ending in 1 (FLOOR(1900-01-01 TO CENTURY) is 1801-01-01), and CEIL
steps to the next boundary even from one (CEIL(1970-01-01 TO DECADE) is 1980-01-01, CEIL(2001-01-01
TO CENTURY) 2101-01-01).

The units that are no length of time (DOW, DOY, ISODOW, EPOCH) and ISOYEAR, as Flink 2.3 answers
them (differential fuzzer, campaign 16; Calcite's ``TimeUnit`` has no multiplier for the first four
and ISOYEAR's is YEAR's 12 months, which Flink's code uses as it finds them):

- FLOOR/CEIL of a DATE to any of them, or to MICROSECOND or NANOSECOND, is the date itself (as to a
  DAY or a smaller unit); of a TIMESTAMP to ISOYEAR, the epoch milliseconds rounded to a multiple
  of 12 (FLOOR(2024-02-29 13:45:30.123 TO ISOYEAR) is 13:45:30.120, CEIL 13:45:30.132). Flink fails
  on the others (its code generator: DOW, DOY, ISODOW, EPOCH of a timestamp, ISOYEAR, MICROSECOND,
  NANOSECOND of a TIMESTAMP_LTZ; its job, ``/ by zero``: MICROSECOND and NANOSECOND of a
  TIMESTAMP): refused here;
- TIMESTAMPADD of DOW, DOY, ISODOW or EPOCH adds a NULL interval: NULL, of the operand's type
  (a DATE stays one); of ISOYEAR, n * 12 months, an INT product that wraps around;
- TIMESTAMPDIFF counts DOW, DOY and ISODOW as days, ISOYEAR as years, and NANOSECOND as the whole
  seconds times 10^9 (a BIGINT, the milliseconds dropped as for MICROSECOND).
"""

from __future__ import annotations


def epoch_millis(value: str) -> str:
    """DuckDB SQL of a timestamp's epoch milliseconds (BIGINT) as Flink holds them: floored.

    As Flink's ``TimestampData.getMillisecond()`` (the sub-millisecond digits are apart, in
    ``getNanoOfMillisecond()``): 2024-12-31 23:59:59.9996 is ...999 ms, still 2024. DuckDB's
    ``epoch_ms`` rounds to the nearest millisecond instead (2025-01-01 00:00:00.000), so the
    timestamp is cut to its millisecond first. ``value``: DuckDB SQL of a timestamp (a wall clock).
    """
    return f"epoch_ms(date_trunc('millisecond', CAST({value} AS TIMESTAMP)))"


#: Units of the year that EXTRACT reads from a DATE (DuckDB SQL over ``{0}``, a DATE).
YEAR_PARTS = {
    "DECADE": "(year({0}) // 10)",
    "CENTURY": "((year({0}) + 99) // 100)",
    "MILLENNIUM": "((year({0}) + 999) // 1000)",
    "ISODOW": "isodow({0})",
    "ISOYEAR": "isoyear({0})",
}

#: Units below a second: the multiplier of the milliseconds modulo 1000.
SUB_SECOND = {"MILLISECOND": 1, "MICROSECOND": 1000, "NANOSECOND": 1_000_000}

EXTRA_EXTRACT = (*SUB_SECOND, "EPOCH", *YEAR_PARTS)
"""The EXTRACT units this module computes."""

#: FLOOR/CEIL units of whole years: (floor, ceil) DuckDB SQL of the boundary's year over ``{y}``.
_YEAR_BOUNDARIES = {
    "DECADE": ("10 * ({y} // 10)", "10 * (1 + {y} // 10)"),
    "CENTURY": ("100 * (({y} + 99) // 100) - 99", "100 * (({y} + 99) // 100) + 1"),
    "MILLENNIUM": ("1000 * (({y} + 999) // 1000) - 999", "1000 * (({y} + 999) // 1000) + 1"),
}

YEAR_ROUNDED = tuple(_YEAR_BOUNDARIES)
"""The FLOOR/CEIL units rounded by :func:`year_boundary`."""


def extract_timestamp(unit: str, value: str, day: str, sub_millis: bool = True) -> str:
    """DuckDB SQL of Flink's EXTRACT(unit FROM a timestamp), a unit of :data:`EXTRA_EXTRACT`.

    ``value`` is the timestamp (DuckDB SQL, a wall clock) and ``day`` the DATE Flink sees in it.
    MICROSECOND and NANOSECOND add the digits below the millisecond (``sub_millis``; a TIME has
    none), never negative, to the milliseconds modulo 1000 scaled, as Flink 2.3 answers
    (1969-07-20 20:17:40.5004: -499,600 µs; 2024-01-01 00:00:00.9996: 999,600).
    """
    millis = epoch_millis(value)
    if unit in SUB_SECOND:
        scaled = f"(({millis} % 1000) * {SUB_SECOND[unit]})"
        if unit == "MILLISECOND" or not sub_millis:
            return scaled
        below = f"(epoch_us(CAST({value} AS TIMESTAMP)) - {millis} * 1000)"  # 0..999 µs
        return f"({scaled} + {below} * {SUB_SECOND[unit] // 1000})"
    if unit == "EPOCH":
        return f"({millis} // 1000)"
    return YEAR_PARTS[unit].format(day)


def extract_date(unit: str, value: str) -> str:
    """DuckDB SQL of Flink's EXTRACT(unit FROM a DATE ``value``), a unit of :data:`EXTRA_EXTRACT`."""
    days = f"CAST(({value} - DATE '1970-01-01') AS BIGINT)"
    if unit in SUB_SECOND:
        return f"(({days} % 1000) * {SUB_SECOND[unit]})"
    if unit == "EPOCH":
        return f"({days} * 86400)"
    return YEAR_PARTS[unit].format(value)


def year_boundary(unit: str, day: str, ceil: bool) -> str:
    """DuckDB SQL (a DATE) of FLOOR/CEIL of the DATE ``day`` to a unit of :data:`YEAR_ROUNDED`."""
    year = _YEAR_BOUNDARIES[unit][1 if ceil else 0].format(y=f"year({day})")
    return f"make_date(CAST({year} AS BIGINT), 1, 1)"


#: TIMESTAMPDIFF units counted in milliseconds: the count's DuckDB SQL over ``{0}``, the difference
#: of the epoch milliseconds (a BIGINT; NANOSECOND's a HUGEINT, cut to the BIGINT result).
DIFF_MILLIS = {"MILLISECOND": "(({0} // 1000) * 1000)", "MICROSECOND": "(({0} // 1000) * 1000000)",
               "NANOSECOND": "(CAST({0} // 1000 AS HUGEINT) * 1000000000)", "EPOCH": "({0} // 1000)",
               "DOW": "({0} // 86400000)", "DOY": "({0} // 86400000)", "ISODOW": "({0} // 86400000)"}

#: TIMESTAMPDIFF units counted in whole months: the months per unit, as Flink 2.3 answers.
DIFF_MONTHS = {"DECADE": 12, "CENTURY": 1200, "MILLENNIUM": 12000, "ISOYEAR": 12}

#: FLOOR/CEIL units of which a DATE is its own boundary (besides DAY and the units of a day).
DATE_ITSELF = ("DOW", "DOY", "ISODOW", "ISOYEAR", "MICROSECOND", "NANOSECOND", "EPOCH")

#: TIMESTAMPADD units that add a NULL interval (the result is NULL, of the operand's type).
ADD_NULL = ("DOW", "DOY", "ISODOW", "EPOCH")


def twelve_millis(millis: str, ceil: bool) -> str:
    """DuckDB SQL (a BIGINT) of the epoch milliseconds ``millis`` rounded down (up) to a multiple of 12.

    Flink 2.3's FLOOR/CEIL of a TIMESTAMP TO ISOYEAR (``floor(ms, 12)``: ISOYEAR's multiplier).
    """
    below = f"((({millis}) % 12 + 12) % 12)"
    if ceil:
        return f"(({millis}) - {below} + CASE WHEN {below} = 0 THEN 0 ELSE 12 END)"
    return f"(({millis}) - {below})"


def millis_diff(unit: str, millis: str, sizes: dict[str, int]) -> str:
    """DuckDB SQL (a BIGINT) of TIMESTAMPDIFF's count of ``unit`` in ``millis`` milliseconds.

    ``sizes``: the milliseconds of the units of a fixed length (SECOND .. WEEK) the caller has.
    """
    if unit in DIFF_MILLIS:
        return DIFF_MILLIS[unit].format(millis)
    return f"({millis} // {sizes[unit]})"

