"""Parameters of plan nodes that the operators built from them read too.

Kept apart from the plan nodes so that an operator can take them without importing the planner.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


def window_zone(rowtime_type: str, session_zone: str | None) -> str | None:
    """The zone windows over a time attribute of type ``rowtime_type`` are assigned in.

    A TIMESTAMP_LTZ time attribute's windows are local to ``'table.local-time-zone'``, as Flink's
    ``TimeWindowUtil.getShiftTimeZone``: an event-time rowtime's, and a ``PROCTIME()``'s (always
    TIMESTAMP_LTZ(3)), so a processing-time hourly TUMBLE in Asia/Kathmandu starts at a local
    ``:00``. None for a TIMESTAMP rowtime, or the zone UTC.
    """
    if rowtime_type != "TIMESTAMP_LTZ" or not session_zone:
        return None
    if session_zone.upper() in ("UTC", "Z"):
        return None
    return session_zone


@dataclass(frozen=True)
class WindowSpec:
    """A window TVF's parameters, all in milliseconds.

    Attributes:
        kind: TUMBLE, HOP, CUMULATE or SESSION.
        size: window length (TUMBLE, HOP), max length (CUMULATE); 0 for SESSION.
        slide: HOP's slide, CUMULATE's step; 0 otherwise.
        offset: shift of window starts (TUMBLE, HOP, CUMULATE).
        gap: SESSION's gap; 0 otherwise.
        proctime: a processing-time window (its time column is a ``PROCTIME()`` attribute): rows
            belong to the window of their arrival and windows fire on the wall clock.
        zone: the session time zone an event-time window over a TIMESTAMP_LTZ rowtime is
            assigned in (local days, hours; :mod:`streamsql.runtime.operators.local_time`), or
            None (a TIMESTAMP rowtime, or UTC).
        legacy: a legacy ``GROUP BY TUMBLE|HOP|SESSION(...)`` group window: a NULL rowtime reads
            as 0, 1970-01-01 00:00:00, as Flink's legacy ``WindowOperator`` (a window TVF
            aggregate fails the job on one: :mod:`streamsql.runtime.operators.rowtime_nulls`).
    """

    kind: str
    size: int = 0
    slide: int = 0
    offset: int = 0
    gap: int = 0
    proctime: bool = False
    zone: str | None = None
    legacy: bool = False

    def describe(self, time_col: str, d: Callable[[int], str] | None = None) -> str:
        """Flink's EXPLAIN spelling, e.g. ``TUMBLE(time_col=[ts], size=[10 s])`` (:func:`duration_text`).

        ``d`` spells the durations otherwise (:func:`seconds_text` for state signatures).
        """
        d = d or duration_text
        parts = [f"time_col=[{time_col}]"]
        if self.kind == "TUMBLE":
            parts.append(f"size=[{d(self.size)}]")
        elif self.kind == "HOP":
            parts += [f"size=[{d(self.size)}]", f"slide=[{d(self.slide)}]"]
        elif self.kind == "CUMULATE":
            parts += [f"max_size=[{d(self.size)}]", f"step=[{d(self.slide)}]"]
        else:
            parts.append(f"gap=[{d(self.gap)}]")
        if self.offset:
            parts.append(f"offset=[{d(self.offset)}]")
        return f"{self.kind}({', '.join(parts)})"


#: Flink's units of ``TimeUtils.formatWithHighestUnit`` from the largest, in ms, with their labels.
_UNITS = ((86_400_000, "d"), (3_600_000, "h"), (60_000, "min"), (1000, "s"), (1, "ms"))


def duration_text(ms: int) -> str:
    """``ms`` milliseconds as Flink's EXPLAIN prints a window's size, slide, step, gap or offset.

    In the largest unit that divides it, as Flink's ``TimeUtils.formatWithHighestUnit``: 60000 ->
    ``1 min``, 90000 -> ``90 s``, 1500 -> ``1500 ms``, 86400000 -> ``1 d``; 0 -> ``0 ms``
    (checked against Flink 2.3 by ``scripts/flink_window_texts.py``).

    >>> [duration_text(ms) for ms in (60_000, 90_000, 1500, 5_400_000, 172_800_000, 0)]
    ['1 min', '90 s', '1500 ms', '90 min', '2 d', '0 ms']
    """
    size, label = next(((u, lb) for u, lb in _UNITS if ms and ms % u == 0), (1, "ms"))
    return f"{ms // size} {label}"


def seconds_text(ms: int) -> str:
    """``ms``: whole seconds, else ms (``60 s``, ``1500 ms``), EXPLAIN's spelling before polish35.

    Kept for the column origins of state signatures (:mod:`~streamsql.plan.state_signature`),
    which checkpoints taken before record and a restore compares.
    """
    return f"{ms // 1000} s" if ms % 1000 == 0 else f"{ms} ms"


@dataclass(frozen=True)
class OverSpec:
    """An OVER window's frame: ``kind BETWEEN preceding PRECEDING AND CURRENT ROW``.

    Attributes:
        kind: ROWS or RANGE.
        preceding: ROWS: the number of preceding rows; RANGE: the interval in ms; None for
            UNBOUNDED PRECEDING.
        proctime: ordered by a ``PROCTIME()`` attribute (arrival order, the wall clock).
    """

    kind: str
    preceding: int | None = None
    proctime: bool = False

    @property
    def bounded(self) -> bool:
        """Whether rows leave the frame (then the aggregates are retracted)."""
        return self.preceding is not None

    def describe(self) -> str:
        """Flink's EXPLAIN spelling, e.g. ``ROWS BETWEEN 2 PRECEDING AND CURRENT ROW``."""
        if self.preceding is None:
            start = "UNBOUNDED"
        elif self.kind == "ROWS":
            start = str(self.preceding)
        else:
            start = f"{self.preceding}"
        return f"{self.kind} BETWEEN {start} PRECEDING AND CURRENT ROW"
