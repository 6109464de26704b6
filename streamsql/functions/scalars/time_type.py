"""Flink's TIME in the temporal functions: EXTRACT / HOUR / MINUTE / SECOND and FLOOR / CEIL TO.

Flink holds a TIME as an int of milliseconds of the day, and its EXTRACT and FLOOR/CEIL of a TIME
work on those milliseconds as on a timestamp's of 1970-01-01 (``ExtractCallGen``,
``DateTimeUtils.timestampFloor``): so here a TIME is put on 1970-01-01 (``DATE '1970-01-01' +
t``, a DuckDB TIMESTAMP) and the timestamp code computes the field, or the rounded timestamp,
whose time of day is the result (``CEIL(TIME '23:30:00' TO HOUR)`` is 00:00:00, the next day's
midnight's time). Only the units of a time of day apply to a TIME; Flink refuses the others
(:data:`TIME_UNITS`, messages as Flink 2.3's: ``scripts/flink_time.py``).
"""

from __future__ import annotations

from streamsql.core.types import SqlType

#: The units of EXTRACT and FLOOR/CEIL TO that Flink applies to a TIME.
TIME_UNITS = ("HOUR", "MINUTE", "SECOND", "MILLISECOND", "MICROSECOND", "NANOSECOND")


def is_time(t: SqlType | None) -> bool:
    """Whether ``t`` is a TIME(p)."""
    return t is not None and t.name == "TIME"


def on_epoch_day(value: str) -> str:
    """DuckDB SQL of the TIMESTAMP at the TIME ``value`` (DuckDB SQL) of 1970-01-01."""
    return f"(DATE '1970-01-01' + {value})"


def refusal(unit: str, what: str) -> str | None:
    """Flink's message for ``what`` (EXTRACT or FLOOR/CEIL) of a TIME to ``unit``, None when allowed."""
    if unit in TIME_UNITS:
        return None
    return f"{what}: unit {unit} can not be applied to a TIME value (Flink refuses it too)"
