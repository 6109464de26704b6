"""Option values parsed as Flink 2.3 parses them: one place for every option kind.

Engine keys (``SET``), connector and format options (``WITH``) and hints go through these
functions, so ``'TRUE'``, ``'10s'`` or ``'PT10S'`` mean here what they mean on Flink. The rules,
checked against Flink 2.3's own parsers (``Configuration.get`` of each option type, run on the
PyFlink JVM):

- boolean: ``true``/``false`` in any case, nothing around them (``ConfigurationUtils.
  convertToBoolean``: ``equalsIgnoreCase``; ``' true'`` and ``'1'`` are refused);
- integer: Java's ``Integer.parseInt``: an optional sign and digits (``'+10'``; no blanks,
  ``'1e3'``, ``'10.0'``, ``'1_000'``);
- enum: the constant's text in any case (``convertToEnum`` compares upper-cased):
  ``'exactly_once'``, ``'EARLIEST-OFFSET'``; a string option that Flink checks against a list
  (``'format'``, ``'json.timestamp-format.standard'``) stays case-sensitive;
- duration (``TimeUtils.parseDuration``): trimmed; a whole number then an optional unit in any
  case, blanks between allowed (``'10 s'``, ``'10s'``, ``'1min'``, ``'1 m'``, ``'10 MIN'``); no unit
  = milliseconds; else an ISO-8601 duration (``'PT10S'``, ``'pt1h30m'``, ``'P1D'``); no fraction
  (``'1.5 s'``) and no sign (``'-5 s'``);
- memory size (``MemorySize.parse``): a whole number then an optional unit in any case, powers of
  1024 (``'64mb'``, ``'64 MB'``, ``'1g'``); no unit = bytes;
- list: items separated by ``';'``, each trimmed (``'a; b'`` is ``['a', 'b']``).

Every function raises :class:`~streamsql.core.errors.ConfigError` naming ``what`` (the key, or
``Table 't': option 'k'``) and the value.
"""

from __future__ import annotations

import re

from streamsql.core.errors import ConfigError

#: Flink's time unit labels (TimeUtils.TimeUnit, 2.3) → nanoseconds.
_NS = {1: ("ns", "nano", "nanos", "nanosecond", "nanoseconds"),
       1_000: ("µs", "micro", "micros", "microsecond", "microseconds"),
       1_000_000: ("ms", "milli", "millis", "millisecond", "milliseconds"),
       1_000_000_000: ("s", "sec", "secs", "second", "seconds"),
       60_000_000_000: ("min", "m", "minute", "minutes"),
       3_600_000_000_000: ("h", "hour", "hours"),
       86_400_000_000_000: ("d", "day", "days")}
_TIME_UNITS = {label: ns for ns, labels in _NS.items() for label in labels}

#: Java's Duration.parse grammar, without signs (a negative duration is refused anyway).
_ISO = re.compile(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:[.,](\d{0,9}))?S)?)?", re.IGNORECASE)

#: Flink's MemorySize units (MemoryUnit, 2.3) → bytes.
_MEMORY_UNITS = {
    "": 1, "b": 1, "bytes": 1,
    "k": 1 << 10, "kb": 1 << 10, "kibibytes": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20, "mebibytes": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30, "gibibytes": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40, "tebibytes": 1 << 40,
}


def _what(what: str) -> str:
    """A bare key is quoted; a text that quotes its key already (``Table 't': option 'k'``) is kept."""
    return what if "'" in what else f"'{what}'"


def parse_bool(value: str, what: str) -> bool:
    """``'true'``/``'false'`` in any case → bool.

    Raises:
        ConfigError: for anything else (``'yes'``, ``'1'``, ``' true'``).
    """
    low = str(value).lower()
    if low in ("true", "false"):
        return low == "true"
    msg = f"{_what(what)} = '{value}' must be 'true' or 'false' (in any case)"
    raise ConfigError(msg)


def parse_int(value: str, what: str, low: int | None = None) -> int:
    """An integer as Java's ``Integer.parseInt`` reads it, at least ``low`` when given.

    Raises:
        ConfigError: for another text, or a number below ``low``.
    """
    text = str(value)
    if not re.fullmatch(r"[+-]?\d+", text) or not -(2**31) <= int(text) < 2**31:
        msg = f"{_what(what)} = '{value}' is not an integer"
        raise ConfigError(msg)
    n = int(text)
    if low is not None and n < low:
        msg = f"{_what(what)} = '{value}' must be an integer >= {low}"
        raise ConfigError(msg)
    return n


def parse_enum(value: str, choices: tuple[str, ...], what: str) -> str:
    """The choice that ``value`` names in any case (the choice's own spelling).

    Raises:
        ConfigError: listing the choices, when none matches.
    """
    for c in choices:
        if c.upper() == str(value).upper():
            return c
    msg = f"{_what(what)} = '{value}' is not one of {', '.join(repr(c) for c in choices)}"
    raise ConfigError(msg)


def duration_ns(value: str, what: str = "duration") -> int:
    """A Flink duration (``'10 s'``, ``'500ms'``, ``'1 min'``, ``'PT10S'``, bare number = ms) in ns.

    Raises:
        ConfigError: for a text TimeUtils.parseDuration refuses, or a negative duration.
    """
    text = str(value).strip()
    m = re.fullmatch(r"(\d+)\s*(\S*)", text)
    if m:
        unit = m.group(2).lower()
        if unit == "":
            return int(m.group(1)) * 1_000_000
        if unit in _TIME_UNITS:
            return int(m.group(1)) * _TIME_UNITS[unit]
    iso = _ISO.fullmatch(text)
    if iso and any(g is not None for g in iso.groups()[:4]):
        d, h, mi, s = (int(g or 0) for g in iso.groups()[:4])
        return (((d * 24 + h) * 60 + mi) * 60 + s) * 1_000_000_000 + int((iso.group(5) or "").ljust(9, "0"))
    msg = (f"{_what(what)} = '{value}' is not a duration (a whole number and a unit, e.g. '10 s', "
           "'500 ms', '1 min', '2 h', '1 d', or ISO-8601 such as 'PT10S')")
    raise ConfigError(msg)


def duration_ms(value: str, what: str = "duration") -> int:
    """:func:`duration_ns` in whole milliseconds, StreamSQL's time precision.

    Raises:
        ConfigError: as :func:`duration_ns`; also for a duration above 0 and below 1 ms
            (``'10 ns'``), which would otherwise become 0 (for an interval: "off").
    """
    ns = duration_ns(value, what)
    if 0 < ns < 1_000_000:
        msg = f"{_what(what)} = '{value}' is shorter than 1 ms, the smallest duration StreamSQL keeps"
        raise ConfigError(msg)
    return ns // 1_000_000


def memory_bytes(value: str, what: str = "memory size") -> int:
    """A Flink memory size (``'64 mb'``, ``'8mb'``, ``'1G'``, bare number = bytes) in bytes.

    Raises:
        ConfigError: for a text MemorySize.parse refuses.
    """
    m = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]*)\s*", str(value))
    if not m or m.group(2).lower() not in _MEMORY_UNITS:
        msg = (f"{_what(what)} = '{value}' is not a memory size (a whole number and a unit: b, kb, "
               "mb, gb, tb, e.g. '64 mb')")
        raise ConfigError(msg)
    return int(m.group(1)) * _MEMORY_UNITS[m.group(2).lower()]


def positive_bytes(value: str, what: str) -> int:
    """:func:`memory_bytes`, refusing 0: RocksDB's sizes (``writebuffer.size``, ``block.cache-size``).

    Flink refuses 0 for them too (``RocksDBConfigurableOptions.checkArgumentValid``: "must be
    larger than 0"); a 0-byte memtable or cache is no setting RocksDB can run with.

    Raises:
        ConfigError: for a bad size or 0.
    """
    size = memory_bytes(value, what)
    if size <= 0:
        msg = f"{_what(what)} = '{value}' must be a memory size above 0 bytes"
        raise ConfigError(msg)
    return size


def parse_list(value: str) -> list[str]:
    """A Flink list option (``'a;b'``, ``'a; b'``) → its trimmed, non-empty items."""
    return [item.strip() for item in str(value).split(";") if item.strip()]
