"""Where the test suite's time goes: a JUnit XML report summed per directory, module, xdist unit.

With the wall time the README's schedule (four workers) cannot beat.

Usage::

    python -m pytest -n 4 --junitxml=/tmp/suite.xml      # the README's command, plus a report
    python scripts/suite_durations.py /tmp/suite.xml [--top 30] [--workers 4]

A test's time is pytest's JUnit ``time``: setup, call and teardown together, in seconds of wall
time on the worker that ran it (a loaded machine stretches all of it). Modules are grouped into
scheduling units as tests/conftest.py's ``pytest_xdist_make_scheduler`` groups them
(:func:`tests.conftest.scheduling_unit`: the :data:`tests.conftest.PROCESS_HEAVY` modules in one
unit at two workers, two units at more, every other module a unit of its own).
Because a unit runs on one worker, the suite's wall time is at least the largest unit's time and
at least the total divided by the workers: the report prints both bounds and a greedy schedule
of the units, largest first (xdist's LoadScope hands units out by test count, largest first).
A module is counted as starting processes when its source names ``subprocess`` or
``chaos.main`` (a rough split: a helper module may start them on its behalf).
"""

from __future__ import annotations

import argparse
import heapq
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.conftest import scheduling_unit  # noqa: E402

#: A module's source that starts processes (see the module docstring).
_STARTS_PROCESSES = re.compile(r"\bsubprocess\b|chaos\.main\b|chaos_workers\b")


def module_of(classname: str) -> str:
    """The test file of a JUnit ``classname`` (``tests.x.test_y`` or ``tests.x.test_y.TestZ``)."""
    parts = classname.split(".")
    for k in range(len(parts), 0, -1):
        path = "/".join(parts[:k]) + ".py"
        if (ROOT / path).is_file():
            return path
    return "/".join(parts) + ".py"


def read_report(path: str) -> tuple[Counter, Counter]:
    """(seconds per module, tests per module) of a JUnit XML report."""
    seconds: Counter = Counter()
    tests: Counter = Counter()
    for case in ET.parse(path).iter("testcase"):
        module = module_of(case.get("classname", ""))
        seconds[module] += float(case.get("time") or 0)
        tests[module] += 1
    return seconds, tests


def unit_of(module: str, workers: int) -> str:
    """The xdist scheduling unit of a test module at ``workers`` workers (tests/conftest.py's)."""
    return scheduling_unit(module, workers)


def greedy_makespan(units: dict[str, tuple[float, int]], workers: int) -> float:
    """Seconds until the last of ``workers`` is done.

    Units (``name -> (seconds, tests)``) go most tests first, each to the worker free first.
    """
    free = [0.0] * workers
    for seconds, _ in sorted(units.values(), key=lambda u: -u[1]):
        heapq.heappush(free, heapq.heappop(free) + seconds)
    return max(free)


def _starts_processes(module: str) -> bool:
    path = ROOT / module
    return path.is_file() and bool(_STARTS_PROCESSES.search(path.read_text(errors="replace")))


def main(argv: list[str] | None = None) -> int:
    """Print the report; returns the exit code (0)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("report", help="a pytest --junitxml file")
    ap.add_argument("--top", type=int, default=30, help="how many modules to list (default 30)")
    ap.add_argument("--workers", type=int, default=4, help="xdist workers for the bounds (default 4)")
    a = ap.parse_args(argv)
    seconds, tests = read_report(a.report)
    total = sum(seconds.values())
    print(f"{sum(tests.values())} tests, {total:.0f} s of test time")
    dirs: Counter = Counter()
    for module, s in seconds.items():
        dirs["/".join(module.split("/")[:2])] += s
    print("\nper directory:")
    for d, s in dirs.most_common():
        n = sum(c for m, c in tests.items() if m.startswith(d + "/"))
        print(f"  {s:8.1f} s {100 * s / total:5.1f}%  {n:5d} tests  {d}")
    spawning = [m for m in seconds if _starts_processes(m)]
    s = sum(seconds[m] for m in spawning)
    print(f"\nmodules starting processes: {len(spawning)}, {s:.0f} s ({100 * s / total:.0f}%)")
    units: dict[str, tuple[float, int]] = {}
    for module in seconds:
        u = unit_of(module, a.workers)
        old = units.get(u, (0.0, 0))
        units[u] = (old[0] + seconds[module], old[1] + tests[module])
    heavy = {u: units[u][0] for u in units if u.startswith("processes")}
    print(f"process-heavy units (tests/conftest.py PROCESS_HEAVY): "
          f"{', '.join(f'{u} {t:.0f} s' for u, t in sorted(heavy.items()))}; the other units "
          f"{total - sum(heavy.values()):.0f} s")
    largest, greedy = max(u[0] for u in units.values()), greedy_makespan(units, a.workers)
    print(f"wall-time bounds at -n {a.workers}: the largest unit {largest:.0f} s, "
          f"total/{a.workers} {total / a.workers:.0f} s; greedy schedule {greedy:.0f} s")
    print(f"\nslowest {a.top} modules (P: in a process-heavy unit, S: starts processes):")
    for module, s in seconds.most_common(a.top):
        heavy_unit = unit_of(module, a.workers).startswith("processes")
        flags = ("P" if heavy_unit else " ") + ("S" if module in spawning else " ")
        print(f"  {s:8.1f} s  {tests[module]:5d}  {flags} {module}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
