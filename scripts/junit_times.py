"""Where the test suite's time goes, from a JUnit XML report (``pytest --junitxml=FILE``).

Usage::

    python scripts/junit_times.py FILE [--top N]

Prints the total of the test cases' times (seconds; pytest's JUnit ``time`` is a case's setup, call
and teardown together, so a module-scoped fixture's set-up counts toward the first case that used
it), the part of the pytest-xdist scheduling units of process-heavy modules
(``tests.conftest.PROCESS_HEAVY``, as the README's ``-n 4`` forms them: two units, each run by one
worker, so the suite's wall time can be no shorter than the longer one), then the totals per
folder, per file, per test function (a parametrized family) and the slowest cases. Much of the
suite waits (a broker, a kill, a checkpoint interval) rather than computes, so under ``-n 4`` on two
cores the wall time is more than a quarter of the total but well under half; a loaded machine
stretches CPU-bound tests far more than tests that wait, so compare reports of similar load.
"""

from __future__ import annotations

import argparse
import collections
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def cases(path: str) -> list[tuple[str, str, float]]:
    """``(file, test name with its parameters, seconds)`` of each test case of the report."""
    out = []
    for case in ET.parse(path).iter("testcase"):
        parts = (case.get("classname") or "?").split(".")
        # pytest's classname is the module's dotted path, then the test class if any
        file = "/".join(parts) + ".py" if not parts[-1][:1].isupper() else "/".join(parts[:-1]) + ".py"
        out.append((file, case.get("name") or "?", float(case.get("time") or 0)))
    return out


def report(rows: list[tuple[str, str, float]], top: int) -> str:
    """The report's text (see the module's docstring)."""
    from tests.conftest import scheduling_unit

    total = sum(t for _, _, t in rows)
    units = collections.Counter()
    for f, _, t in rows:
        if scheduling_unit(f, 4).startswith("processes"):
            units[scheduling_unit(f, 4)] += t
    heavy = sum(units.values())
    folders, files, families = collections.Counter(), collections.Counter(), collections.Counter()
    count = collections.Counter()
    for file, name, t in rows:
        folders["/".join(file.split("/")[:2])] += t
        files[file] += t
        count[file] += 1
        families[f"{file}::{name.split('[')[0]}"] += t
    lines = [f"{len(rows)} test cases, {total:.0f} s in all; the process-heavy units {heavy:.0f} s "
             f"({100 * heavy / max(total, 1e-9):.0f}%: "
             f"{', '.join(f'{u} {t:.0f} s' for u, t in sorted(units.items()))})", "", "per folder:"]
    lines += [f"{t:9.1f}  {k}" for k, t in folders.most_common()]
    lines += ["", f"per file (the {top} largest; cases):"]
    lines += [f"{t:9.1f}  {count[k]:5d}  {k}" for k, t in files.most_common(top)]
    lines += ["", f"per test function (the {top} largest):"]
    lines += [f"{t:9.1f}  {k}" for k, t in families.most_common(top)]
    lines += ["", f"slowest cases (the {top} largest):"]
    lines += [f"{t:9.1f}  {f}::{n[:140]}" for f, n, t in sorted(rows, key=lambda r: -r[2])[:top]]
    return "\n".join(lines)


def main() -> None:
    """Parse the arguments and print the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("junit", help="the JUnit XML file pytest wrote (--junitxml)")
    parser.add_argument("--top", type=int, default=30, help="rows of each ranking (default 30)")
    args = parser.parse_args()
    print(report(cases(args.junit), args.top))


if __name__ == "__main__":
    main()
