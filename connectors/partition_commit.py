r"""When a filesystem sink commits a partition: Flink 2.3's partition commit triggers.

``'sink.partition-commit.trigger'`` (Flink's ``PartitionCommitPredicate``):

- ``process-time`` (default): a partition is committable once more than ``'sink.partition-commit.delay'``
  has passed since it was created (Flink's ``ProcTimeCommitPredicate``: ``delay == 0 || now >
  created + delay``): for the writer's roll of its in-progress file, since its bucket's first file
  opened; for the commit, since the committer received it (``ProcTimeCommitTrigger.addPartition``:
  when the checkpoint that wrote it completed);
- ``partition-time``: once the watermark is past the partition's time plus the delay, Flink's
  ``PartitionTimeCommitPredicate``: ``watermark > partition_time.atZone(zone) + delay`` with
  ``zone`` = ``'sink.partition-commit.watermark-time-zone'`` (``UTC``; the session zone when the
  watermark is on a TIMESTAMP_LTZ). The watermark is the one the sink had at barrier n, kept per
  checkpoint as Flink's ``PartitionTimeCommitTrigger`` does (``checkpoint-id-to-watermark``); no
  watermark yet (Flink's ``Long.MIN_VALUE``) commits nothing.

A partition's time comes from its values as Flink's ``DefaultPartTimeExtractor``
(``'partition.time-extractor.kind'`` = ``default``; ``custom``, a Java class, is refused):
``'partition.time-extractor.timestamp-pattern'`` with each ``$key`` replaced by that key's value
(keys in PARTITIONED BY order, as Java's ``replaceAll``: ``'$dt $hm:00'``), or without one the
first partition value; that text is read as ``yyyy-M-d[ H:m:s[.fraction]]`` (lenient: month 13 is
next January), else as a date at midnight — or by ``'partition.time-extractor.timestamp-formatter'``
(a Java ``DateTimeFormatter`` pattern; the letters ``y u M d H m s S`` (``MMM``: a month's name,
``Jan``), quoted literals and ``[...]`` optional sections here, any other letter refused by name;
resolved as Java's SMART resolver: a day past its month's end is its last day,
month 13 fails). A text neither reads
fails the job in Java's words (``Text '...' could not be parsed at index 0``), as Flink's does
when it next looks at the partition.

Options Flink 2.3 refuses are refused in its words where it checks them at ``CREATE``/``INSERT``
(the watermark time zone); a trigger other than the two is Flink's enum error.
"""

from __future__ import annotations

import calendar
import datetime as dt
import re
import zoneinfo
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

from streamsql.connectors.partitions import folder_values

from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.values import duration_ms

if TYPE_CHECKING:
    from collections.abc import Callable

TRIGGER = "sink.partition-commit.trigger"
DELAY = "sink.partition-commit.delay"
ZONE = "sink.partition-commit.watermark-time-zone"
KIND = "partition.time-extractor.kind"
CLASS = "partition.time-extractor.class"
PATTERN = "partition.time-extractor.timestamp-pattern"
FORMATTER = "partition.time-extractor.timestamp-formatter"

#: The options this module reads (Flink's names) with a line each for HELP.
OPTIONS = {
    TRIGGER: "'process-time' (default): the delay after a partition's first file opened; 'partition-time': "
             "the watermark past the partition's time plus the delay",
    DELAY: "commit a partition this long after its trigger's time (default 0 ms)",
    ZONE: "the time zone partition times are read in against the watermark (default 'UTC')",
    KIND: "'default' (a pattern over the partition values); 'custom' (a Java class) is refused",
    CLASS: "refused: a custom time extractor class",
    PATTERN: "the partition time as '$key' references (default: the first partition value)",
    FORMATTER: "a Java DateTimeFormatter pattern the partition time is read with (default: yyyy-M-d H:m:s)",
}

_ZONE_WORDS = ("Invalid time zone for 'sink.partition-commit.watermark-time-zone'. The value should be a "
               "Time Zone Database (TZDB) ID such as 'America/Los_Angeles' to include daylight saving time. "
               "Fixed offsets are supported using 'GMT-03:00' or 'GMT+03:00'. Or use 'UTC' without time zone "
               "and daylight saving time.")
_MAX_MS = 2**63 - 1


@dataclass(frozen=True)
class CommitRule:
    """When a partition is committable (module docstring).

    Attributes:
        partition_time: True for the ``partition-time`` trigger, False for ``process-time``.
        delay_ms: ``'sink.partition-commit.delay'`` in ms.
        keys: the partition keys, in PARTITIONED BY order.
        default_name: the folder value of a NULL partition value.
        pattern: the timestamp pattern, or None (the first value).
        formatter: the Java formatter pattern, or None (Flink's default readers).
        zone: the watermark time zone (``UTC``, a TZDB id or ``GMT+hh:mm``).
    """

    partition_time: bool = False
    delay_ms: int = 0
    keys: tuple[str, ...] = ()
    default_name: str = ""
    pattern: str | None = None
    formatter: str | None = None
    zone: str = "UTC"

    def committable(self, folder: str, watermark: int | None, created_ms: int, now_ms: int) -> bool:
        """Whether the partition in ``folder`` (``k1=v1/k2=v2/``) may be committed now.

        ``watermark``: the sink's watermark in ms (None: none yet); ``created_ms``: when the
        partition was created (module docstring: its first file opened, or the committer received
        it); ``now_ms``: the processing time.

        Raises:
            ExecutionError: its time cannot be read (module docstring), in Java's words.
        """
        if not self.partition_time:
            return self.delay_ms == 0 or now_ms > created_ms + self.delay_ms
        if watermark is None:
            return False
        return watermark > self.partition_ms(folder) + self.delay_ms

    def partition_ms(self, folder: str) -> int:
        """The partition's time as epoch ms: its local time read in :attr:`zone` (Java's ``atZone``).

        Raises:
            ExecutionError: as :meth:`committable`.
        """
        values = folder_values(folder, list(self.keys), "\0") or {}
        texts = [self.default_name if v is None else v for v in values.values()]
        local = extract_time(list(self.keys), texts, self.pattern, self.formatter)
        return _epoch_ms(local, self.zone)


def commit_rule(table, default_name: str) -> CommitRule:
    """The table's :class:`CommitRule` from its options.

    Raises:
        ConfigError: a trigger other than Flink's two (Flink's enum words); a delay that is no
            duration; a time zone Flink refuses (its words); an extractor kind ``custom`` or one
            Flink does not know; a formatter with letters not read here.
    """
    o = table.options
    trigger = o.get(TRIGGER, "process-time").strip()
    if trigger.lower() not in ("process-time", "partition-time"):
        msg = (f"Table '{table.name}': option '{TRIGGER}' = '{o[TRIGGER]}': Could not parse value for enum "
               "class org.apache.flink.connector.file.table.FileSystemConnectorOptions"
               "$PartitionCommitTriggerType. Expected one of: [[process-time, partition-time]]")
        raise ConfigError(msg, table=table.name, option=TRIGGER)
    delay = duration_ms(o[DELAY], f"Table '{table.name}': option '{DELAY}'") if DELAY in o else 0
    zone = o.get(ZONE, "UTC")
    if not _flink_zone(zone):
        raise ConfigError(_ZONE_WORDS, table=table.name, option=ZONE)
    kind = o.get(KIND, "default")
    if kind != "default":
        if kind == "custom":
            msg = (f"Table '{table.name}': option '{KIND}' = 'custom' is not supported: StreamSQL runs no "
                   f"Java time extractor class ('{CLASS}'); use 'default' with "
                   f"'{PATTERN}' and '{FORMATTER}'")
        else:  # Flink's PartitionTimeExtractor.create
            msg = f"Unsupported extractor kind: {kind}"
        raise ConfigError(msg, table=table.name, option=KIND)
    formatter = o.get(FORMATTER)
    if formatter is not None:
        _formatter_regex(formatter, table.name)
    return CommitRule(trigger.lower() == "partition-time", delay, tuple(table.partition_keys), default_name,
                      o.get(PATTERN), formatter, zone)


def _flink_zone(zone: str) -> bool:
    """Flink's ``validateTimeZone``: a TZDB id (``UTC``) or ``GMT+hh:mm`` (not ``UTC+hh:mm``)."""
    if re.fullmatch(r"GMT[+-]\d{1,2}(:\d{2})?", zone):
        return True
    if zone.startswith(("UTC+", "UTC-", "GMT")) and zone != "GMT":
        return False
    try:
        zoneinfo.ZoneInfo(zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


def _epoch_ms(local: dt.datetime, zone: str) -> int:
    """Java's ``LocalDateTime.atZone(zone).toInstant().toEpochMilli()`` (earlier offset in an overlap)."""
    m = re.fullmatch(r"GMT([+-])(\d{1,2})(?::(\d{2}))?", zone)
    if m:
        offset = dt.timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0))
        tz: dt.tzinfo = dt.timezone(offset if m.group(1) == "+" else -offset)
    else:
        tz = zoneinfo.ZoneInfo(zone)
    aware = local.replace(tzinfo=tz, fold=0)
    delta = aware.astimezone(dt.timezone.utc) - dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    return delta // dt.timedelta(milliseconds=1)


# ---------------------------------------------------------------------------------- extraction


def extract_time(keys: list[str], values: list[str], pattern: str | None,
                 formatter: str | None) -> dt.datetime:
    """Flink's ``DefaultPartTimeExtractor.extract``: the partition's local date-time.

    ``keys`` and ``values``: the partition keys and their (unescaped) folder values, in order;
    ``pattern``: ``'$dt $hm:00'`` or None (the first value); ``formatter``: a Java pattern or None.

    >>> extract_time(["dt", "hm"], ["2024-01-05", "10:20"], "$dt $hm:00", None)
    datetime.datetime(2024, 1, 5, 10, 20)

    Raises:
        ExecutionError: the text reads as no date-time, in Java's ``DateTimeParseException`` words.
    """
    if pattern is None:
        text = values[0]
    else:
        text = pattern
        for key, value in zip(keys, values):  # Java's replaceAll("\\$" + key, value), key by key
            text = text.replace("$" + key, _java_replacement(value))
    return _read(text, formatter)


def _java_replacement(value: str) -> str:
    r"""A replacement text as Java's ``Matcher.appendReplacement`` reads it (``\x`` is ``x``).

    Raises:
        ExecutionError: a ``$`` (a group reference the pattern has none of), as Java refuses it.
    """
    out, i = [], 0
    while i < len(value):
        c = value[i]
        if c == "\\":
            if i + 1 == len(value):
                msg = "character to be escaped is missing"
                raise ExecutionError(msg)
            out.append(value[i + 1])
            i += 2
            continue
        if c == "$":
            msg = f"Illegal group reference in partition value '{value}'"
            raise ExecutionError(msg)
        out.append(c)
        i += 1
    return "".join(out)


def _read(text: str, formatter: str | None) -> dt.datetime:
    """``text`` as a date-time, else a date at midnight (Flink's ``toLocalDateTime``)."""
    if formatter is not None:
        fields, at = _match(_formatter_regex(formatter, ""), text)
        if fields is None:
            raise ExecutionError(_parse_words(text, at, unparsed=False))
        return _smart(fields, text)
    fields, at = _default_fields(text)
    if fields is not None:
        return _lenient(fields)
    raise ExecutionError(_parse_words(text, *at))


def _parse_words(text: str, at: int, unparsed: bool) -> str:
    if unparsed:
        return f"Text '{text}' could not be parsed, unparsed text found at index {at}"
    return f"Text '{text}' could not be parsed at index {at}"


_DATE = r"(?P<y>-?\d{1,10})-(?P<M>\d{1,2})-(?P<d>\d{1,2})"
_TIME = r" (?P<H>\d{1,2}):(?P<m>\d{1,2}):(?P<s>\d{1,2})(?:\.(?P<f>\d{1,9}))?"


def _default_fields(text: str) -> tuple[dict | None, tuple[int, bool]]:
    """Flink's ``TIMESTAMP_FORMATTER`` then ``DATE_FORMATTER``: fields, or Java's error index.

    The index and kind are the date reader's (Java reports the second, fallback, parse).
    """
    m = re.fullmatch(_DATE + f"(?:{_TIME})?", text)
    if m:
        return m.groupdict(), (0, False)
    m = re.match(_DATE, text)
    if m:  # the date reads, something follows it
        return None, (m.end(), True)
    return None, (_date_error_index(text), False)


def _date_error_index(text: str) -> int:
    """Where Java's ``yyyy-M-d`` reader stops: the first field or literal that does not read."""
    i = 0
    for width, lit in ((10, "-"), (2, "-"), (2, "")):
        start = i
        if width == 10 and text[i:i + 1] == "-":
            i += 1
        digits = len(text[i:]) - len(text[i:].lstrip("0123456789"))
        if digits == 0:
            return start
        i += min(digits, width)
        if lit:
            if text[i:i + 1] != lit:
                return i
            i += 1
    return i


_LETTERS = {"y": "y", "u": "y", "M": "M", "d": "d", "H": "H", "m": "m", "s": "s", "S": "f"}


def _formatter_regex(pattern: str, table: str) -> re.Pattern:
    """A regex reading what Java's ``DateTimeFormatter.ofPattern(pattern)`` reads (letters ``yuMdHmsS``).

    ``[...]`` is an optional section (one left open ends with the pattern, as Java's builder).

    Raises:
        ConfigError: another letter, a reserved character (``#``, ``{``, ``}``), a ``]`` without its
            ``[``, an unclosed quote, or a letter read twice.
    """
    def refuse(what: str) -> NoReturn:
        msg = f"Table '{table}': option '{FORMATTER}' = '{pattern}': {what}"
        raise ConfigError(msg, table=table, option=FORMATTER)

    out, i, depth = [], 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "'":
            end = pattern.find("'", i + 1)
            if end < 0:
                refuse("a quote is not closed")
            out.append(re.escape(pattern[i + 1:end] or "'"))
            i = end + 1
            continue
        if c in "#{}":
            refuse(f"Pattern includes reserved character: '{c}'")  # Java's words
        if c in "[]":
            if c == "]" and not depth:
                refuse("Pattern invalid as it contains ] without previous [")  # Java's words
            depth += 1 if c == "[" else -1
            out.append("(?:" if c == "[" else ")?")
            i += 1
            continue
        if c.isalpha():
            n = len(pattern[i:]) - len(pattern[i:].lstrip(c))
            if c not in _LETTERS:
                refuse(f"the letter '{c}' is not read here (only {' '.join(_LETTERS)}: year, month, day, "
                       f"hour, minute, second, fraction)")
            _check_count(c, n, refuse)
            name = _LETTERS[c]
            if c == "M" and n >= 3:  # Java's text month (Locale.ROOT: MMM and MMMM both read 'Jan'..'Dec')
                group = f"(?P<M>{'|'.join(_MONTHS)})"
            elif c == "S":
                group = f"(?P<f>\\d{{{n}}})"
            elif c in "yu":
                group = "(?P<yy>\\d{2})" if n == 2 else f"(?P<y>\\d{{{n},19}})"
            else:
                group = f"(?P<{name}>\\d{{{'1,2' if n == 1 else n}}})"
            out.append(group)
            i += n
            continue
        out.append(re.escape(c))
        i += 1
    try:
        return re.compile("".join(out) + ")?" * depth)
    except re.error as e:
        refuse(f"a field is read twice ({e})")


#: Java's month names of ``MMM`` and ``MMMM`` in ``Locale.ROOT`` (case-sensitive, as ``ofPattern``'s parse).
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _check_count(c: str, n: int, refuse: Callable[[str], NoReturn]) -> None:
    """Refuse ``n`` letters ``c`` in a row where Java's ``ofPattern`` does, or this reader does not read them.

    ``dd``, ``HH``, ``mm``, ``ss`` at most (Java: "Too many pattern letters"); ``MMMMM`` (a narrow
    month name, ``J`` for three months) is not read here; up to 9 ``S``.
    """
    if (c in "dHms" and n > 2) or (c == "M" and n > 5):
        refuse(f"Too many pattern letters: {c}")  # Java's words
    if c == "M" and n == 5:
        refuse("the letter 'M' five times (a narrow month name, one letter for several months) is not read "
               "here (M, MM: the month's number; MMM, MMMM: its name)")
    if c == "S" and n > 9:
        refuse(f"Minimum width must be from 0 to 9 inclusive but was {n}")  # Java's words


def _match(regex: re.Pattern, text: str) -> tuple[dict | None, int]:
    m = regex.fullmatch(text)
    if m:
        fields = m.groupdict()
        if fields.get("M") in _MONTHS:
            fields["M"] = str(_MONTHS.index(fields["M"]) + 1)
        if fields.get("yy") is not None:  # Java's 'yy': 2000-2099
            fields["y"] = str(2000 + int(fields.pop("yy")))
        return fields, 0
    m = regex.match(text)
    return None, (m.end() if m else 0)


def _lenient(f: dict) -> dt.datetime:
    """The fields resolved leniently (Java's ``ResolverStyle.LENIENT``): overflow carries on.

    Raises:
        ExecutionError: a date beyond what Python's datetime holds (years 1-9999).
    """
    try:
        year, month = int(f["y"]), int(f.get("M") or 1)
        year += (month - 1) // 12
        base = dt.datetime(year, (month - 1) % 12 + 1, 1)
        frac = (f.get("f") or "").ljust(6, "0")[:6]
        return base + dt.timedelta(days=int(f.get("d") or 1) - 1, hours=int(f.get("H") or 0),
                                   minutes=int(f.get("m") or 0), seconds=int(f.get("s") or 0),
                                   microseconds=int(frac or 0))
    except (ValueError, OverflowError) as e:
        msg = f"Partition time {f} is outside the years StreamSQL reads (1-9999): {e}"
        raise ExecutionError(msg) from e


def _smart(f: dict, text: str) -> dt.datetime:
    """A formatter's fields resolved as ``DateTimeFormatter.ofPattern``'s ``ResolverStyle.SMART``.

    Flink reads ``LocalDateTime.parse(text, formatter)``, else ``LocalDate.parse`` at midnight: a
    day past its month's end (1-31) is its last day, ``24:00:00`` the next midnight, without an
    hour the time is midnight; any other field out of its range fails (Java's words).

    Raises:
        ExecutionError: a field out of range, no year/month/day, or a year outside 1-9999.
    """
    def check(field: str, value: int, low: int, high: int, valid: str = "") -> None:
        if not low <= value <= high:
            msg = (f"Text '{text}' could not be parsed: Invalid value for {field} (valid values "
                   f"{valid or f'{low} - {high}'}): {value}")
            raise ExecutionError(msg)

    if f.get("y") is None or f.get("M") is None or f.get("d") is None:
        msg = f"Text '{text}' could not be parsed: Unable to obtain LocalDate (no year, month and day read)"
        raise ExecutionError(msg)
    year, month, day = int(f["y"]), int(f["M"]), int(f["d"])
    check("MonthOfYear", month, 1, 12)
    check("DayOfMonth", day, 1, 31, "1 - 28/31")
    check("Year (StreamSQL reads years 1 - 9999)", year, 1, 9999)
    date = dt.datetime(year, month, min(day, calendar.monthrange(year, month)[1]))
    if f.get("H") is None:
        return date
    hour, minute, second = int(f["H"]), int(f.get("m") or 0), int(f.get("s") or 0)
    micros = int((f.get("f") or "").ljust(6, "0")[:6] or 0)
    check("MinuteOfHour", minute, 0, 59)  # Java's order: minute, then 24:00, hour, second
    if hour == 24 and minute == second == micros == 0:
        return date + dt.timedelta(days=1)
    check("HourOfDay", hour, 0, 23)
    check("SecondOfMinute", second, 0, 59)
    return date.replace(hour=hour, minute=minute, second=second, microsecond=micros)


# ---------------------------------------------------------------------------------- trigger


class PartitionTrigger:
    """The partitions waiting for their commit, as Flink's ``PartitionCommitTrigger`` state.

    ``add`` partitions the files of a completed checkpoint were written in; ``due(n)`` gives those
    committable by the watermark recorded at barrier n (``snapshot``) or by processing time, and
    forgets them. Its state (:meth:`state`) goes into each checkpoint.

    Args:
        rule: when a partition is committable.
        clock: processing time in ms.
    """

    def __init__(self, rule: CommitRule, clock):
        self.rule = rule
        self.clock = clock
        self.watermark: int | None = None  # the sink's current watermark (ms)
        self.pending: dict[str, int] = {}  # partition folder -> when it was received (ms, :meth:`receive`)
        self._watermarks: dict[int, int | None] = {}  # checkpoint id -> watermark at its barrier

    def receive(self, folder: str, at_ms: int | None = None) -> None:
        """The committer receives partition ``folder`` (its checkpoint completed): pending from now.

        As Flink's ``ProcTimeCommitTrigger.addPartition`` (``putIfAbsent`` of the processing time):
        a partition already pending keeps its time. ``at_ms``: a restored partition's recorded time.
        """
        self.pending.setdefault(folder, self.clock() if at_ms is None else at_ms)

    def snapshot(self, checkpoint_id: int) -> int | None:
        """Barrier ``checkpoint_id``: keep the watermark it saw; returns it."""
        self._watermarks[checkpoint_id] = self.watermark
        return self.watermark

    def committable(self, folder: str, created_ms: int, watermark: int | None) -> bool:
        """:meth:`CommitRule.committable` now."""
        return self.rule.committable(folder, watermark, created_ms, self.clock())

    def due(self, checkpoint_id: int, ended: bool = False) -> list[str]:
        """The pending partitions committable at completed checkpoint ``checkpoint_id``, removed.

        ``ended``: the end of input: every pending partition (Flink's ``endInput``).
        """
        wm = self._watermarks.get(checkpoint_id, self.watermark)
        self._watermarks = {n: w for n, w in self._watermarks.items() if n > checkpoint_id}
        out = [p for p, t in self.pending.items() if ended or self.committable(p, t, wm)]
        for p in out:
            del self.pending[p]
        return out


def max_watermark(ms: int) -> bool:
    """Whether ``ms`` is the end-of-input watermark (Flink's ``Long.MAX_VALUE``)."""
    return ms >= _MAX_MS
