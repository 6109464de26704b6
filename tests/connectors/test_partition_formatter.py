"""The partition-time formatter ('partition.time-extractor.timestamp-formatter') read as Java reads it.

Flink 2.3's ``DefaultPartTimeExtractor`` parses with ``DateTimeFormatter.ofPattern(pattern)`` (SMART
resolver, ``[...]`` optional sections); the answers below are Java 17's, printed by
``scripts/java_partition_formatter.jsh`` (a breaker's report, session 32: ``[ ]`` were read as
literal characters and month 13 was next January).
"""

from __future__ import annotations

import datetime as dt

import pytest
from streamsql.connectors.partition_commit import _formatter_regex, extract_time

from streamsql.core.errors import ConfigError, ExecutionError

JAVA = [
    ("yyyy-MM-dd[ HH:mm]", "2024-01-05", "2024-01-05T00:00"),
    ("yyyy-MM-dd[ HH:mm]", "2024-01-05 10:20", "2024-01-05T10:20"),
    ("yyyy-MM-dd", "2024-02-31", "2024-02-29T00:00"),
    ("yyyy-MM-dd", "2024-13-01",
     "ERR Text '2024-13-01' could not be parsed: Invalid value for MonthOfYear (valid values 1 - 12): 13"),
    ("yyyy-MM-dd HH:mm:ss", "2024-01-05 24:00:00", "2024-01-06T00:00"),
    ("yyyy-MM-dd HH:mm:ss", "2024-01-05 24:00:01",
     "ERR Text '2024-01-05 24:00:01' could not be parsed: "
     "Invalid value for HourOfDay (valid values 0 - 23): 24"),
    ("yyyy-MM-dd HH", "2024-01-05 10", "2024-01-05T10:00"),
    ("yyyy-MM-dd", "2024-01-32",
     "ERR Text '2024-01-32' could not be parsed: Invalid value for DayOfMonth (valid values 1 - 28/31): 32"),
    ("yyyy-MM-dd HH:mm", "2024-01-05 10:60",
     "ERR Text '2024-01-05 10:60' could not be parsed: "
     "Invalid value for MinuteOfHour (valid values 0 - 59): 60"),
    # a month's name (session 33: MMM read three digits)
    ("yyyy-MMM-dd", "2024-Jan-05", "2024-01-05T00:00"),
    ("yyyy-MMM-dd", "2024-Sep-31", "2024-09-30T00:00"),
    ("yyyy-MMMM-dd", "2024-Sep-05", "2024-09-05T00:00"),  # Locale.ROOT's full name is the short one
    ("dd MMM yyyy HH:mm", "05 Dec 2024 10:20", "2024-12-05T10:20"),
]


@pytest.mark.parametrize(("pattern", "text", "java"), JAVA)
def test_formatter_reads_as_java(pattern, text, java):
    if java.startswith("ERR "):
        with pytest.raises(ExecutionError) as ei:
            extract_time(["dt"], [text], None, pattern)
        assert str(ei.value) == java[4:]
    else:
        assert extract_time(["dt"], [text], None, pattern) == dt.datetime.fromisoformat(java)


@pytest.mark.parametrize(("pattern", "java"), [
    ("yyyy#MM", "Pattern includes reserved character: '#'"),  # Java's ofPattern
    ("yyyy]MM", "Pattern invalid as it contains ] without previous ["),
    ("yyyy-MM-ddd", "Too many pattern letters: d"),
    ("yyyy-MM-dd HHH", "Too many pattern letters: H"),
    ("yyyy-MM-dd HH:mmm", "Too many pattern letters: m"),
    ("yyyy-MM-dd HH:mm:sss", "Too many pattern letters: s"),
    ("yyyy-MMMMMM-dd", "Too many pattern letters: M"),
    ("yyyy-MM-dd SSSSSSSSSS", "Minimum width must be from 0 to 9 inclusive but was 10"),
])
def test_formatter_java_refuses_is_refused_at_create(pattern, java):
    with pytest.raises(ConfigError, match=java.replace("[", r"\[").replace("]", r"\]")):
        _formatter_regex(pattern, "t")


@pytest.mark.parametrize(("pattern", "letter"), [
    ("yyyy-DDD", "D"), ("yyyy-MM-dd hh a", "h"), ("EEE yyyy-MM-dd", "E"), ("yyyy-MMMMM-dd", "M"),
])
def test_a_letter_not_read_is_refused_by_name(pattern, letter):
    """Java reads these (day of year, clock hour and AM/PM, day of week, narrow month); here they are
    refused at CREATE, naming the letter, never read as something else."""
    with pytest.raises(ConfigError, match=f"the letter '{letter}'"):
        _formatter_regex(pattern, "t")
