"""CPU time and resident memory of a process and its descendants, from ``/proc`` (Linux, stdlib only).

Used where a contender is more than one process (Flink: the PyFlink client and the JVM it
starts): :func:`live_cpu_seconds` is the CPU of the descendants that are still running (their
parent has not waited for them, so the harness's ``wait4`` cannot see it), :class:`RssSampler`
the peak of the summed RSS of the whole tree.
"""

from __future__ import annotations

import os
import threading

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command name (field 3 onwards), or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            raw = f.read()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()


def descendants(pid: int) -> list[int]:
    """The pids of every live descendant of ``pid`` (children, their children, ...)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                children.setdefault(int(st[1]), []).append(int(name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def live_cpu_seconds(pid: int) -> float:
    """User + system seconds of the live descendants of ``pid`` (and the children they reaped)."""
    total = 0
    for d in descendants(pid):
        st = _stat(d)
        if st is not None:  # fields 14-17: utime, stime, cutime, cstime (index 11-14 here)
            total += sum(int(x) for x in st[11:15])
    return total / _TICK


def tree_cpu_seconds(pid: int) -> float:
    """User + system seconds of ``pid`` itself (and the children it reaped) and of its live descendants."""
    st = _stat(pid)
    own = sum(int(x) for x in st[11:15]) / _TICK if st is not None else 0.0
    return own + live_cpu_seconds(pid)


def tree_rss_bytes(pid: int) -> int:
    """Summed resident set of ``pid`` and its live descendants."""
    total = 0
    for p in [pid, *descendants(pid)]:
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


class RssSampler(threading.Thread):
    """Samples :func:`tree_rss_bytes` of ``pid`` every ``period`` s; :attr:`peak` is the largest."""

    def __init__(self, pid: int, period: float = 0.2):
        super().__init__(daemon=True)
        self.pid, self.period = pid, period
        self.peak = 0
        self.halt = threading.Event()

    def run(self) -> None:  # noqa: D102
        while not self.halt.is_set():
            self.peak = max(self.peak, tree_rss_bytes(self.pid))
            self.halt.wait(self.period)
