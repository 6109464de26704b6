"""Evaluate the function conformance cases in Apache Flink and record Flink's answers.

Flink is the oracle for StreamSQL's built-in functions: this script runs every expression of
``tests/functions/cases.py`` in PyFlink's local mini-cluster and writes each one's result value
and result type (or Flink's error) to ``tests/functions/flink_expected.json``, which
``tests/functions/test_conformance.py`` compares with StreamSQL's answers.

Setup (once; PyFlink is ~850 MB and needs Java 11+, so it lives outside the project's venv)::

    python3 -m venv /work/flinkvenv && /work/flinkvenv/bin/pip install apache-flink==2.3.0
    /work/flinkvenv/bin/python scripts/flink_oracle.py            # rewrites the JSON

How: each case is planned alone (``SELECT <case> FROM (VALUES (1)) AS t(x)``: planning only, no
job) to get its result type or its validation error; then all valid cases run as the columns of
one batch job (each wrapped in ``CASE WHEN x = 1 THEN ... END`` so that a NULL result of a
literal expression typed NOT NULL does not trip the sink's NOT NULL check). A case that fails at
run time is isolated by bisection (a few more jobs) and recorded with Flink's error. The session
time zone is UTC (``table.local-time-zone``), as StreamSQL's default; the cases of ``ZONED`` run
again in a session of each of its zones (records with a ``"zone"``). ``VOLATILE`` cases (the
current time, random values) are recorded with ``"volatile": true``: their type is compared, their
value only checked for plausibility.

PyFlink cannot hand a TIMESTAMP_LTZ value to Python, so such a case is collected as
``CAST(case AS TIMESTAMP(p))`` (its wall clock in the session zone) and recorded as the instant's
UTC wall clock, which is how ``normalize`` writes StreamSQL's instants.
"""

from __future__ import annotations

import datetime
import json
import runpy
import sys
import zoneinfo
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES_FILE = ROOT / "tests" / "functions" / "cases.py"
OUT = ROOT / "tests" / "functions" / "flink_expected.json"
FROM = " FROM (VALUES (1)) AS t(x)"


def _error_text(e: Exception) -> str:
    """Flink's own message: the last 'Caused by' of a Java exception, else the first line."""
    text = str(e)
    causes = [ln for ln in text.splitlines() if ln.startswith("Caused by: ")]
    line = causes[-1][len("Caused by: "):] if causes else next(
        (ln for ln in text.splitlines() if "Exception:" in ln), text.splitlines()[0] if text else "")
    return line.strip()[:500]


def _run(tenv, cases: list[str], types: dict[str, str]) -> list:
    """Values of ``cases`` from one job (a list of Python values)."""
    def column(c: str) -> str:
        if not types[c].startswith("TIMESTAMP_LTZ("):
            return c
        return f"CAST({c} AS TIMESTAMP({types[c][len('TIMESTAMP_LTZ('):].split(')')[0]}))"

    cols = ", ".join(f"CASE WHEN x = 1 THEN {column(c)} END AS c{i}" for i, c in enumerate(cases))
    with tenv.sql_query("SELECT " + cols + FROM).execute().collect() as rows:
        return list(list(rows)[0])


def _evaluate(tenv, cases: list[str], types: dict[str, str], out: dict) -> None:
    """Fill ``out[case] = ("value", v) | ("error", msg)``, bisecting around run-time failures."""
    try:
        for c, v in zip(cases, _run(tenv, cases, types)):
            out[c] = ("value", v)
    except Exception as e:  # a run-time failure of one (or more) of the cases
        if len(cases) == 1:
            out[cases[0]] = ("error", _error_text(e))
            return
        mid = len(cases) // 2
        _evaluate(tenv, cases[:mid], types, out)
        _evaluate(tenv, cases[mid:], types, out)


def _instant(value, zone: str):
    """A session wall clock (the collected TIMESTAMP_LTZ) as the instant it is, in UTC."""
    if value is None:
        return None
    utc = value.replace(tzinfo=zoneinfo.ZoneInfo(zone)).astimezone(datetime.timezone.utc)
    return utc.replace(tzinfo=None)


def _records(cases: list[str], zone: str, normalize, volatile: set[str]) -> list[dict]:
    """Flink's record (type and value, or error) of each case, in a session of time zone ``zone``."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    for k, v in {**CONFIG, "table.local-time-zone": zone}.items():
        tenv.get_config().set(k, v)
    types, planned, results = {}, [], {}
    for c in cases:
        try:
            schema = tenv.sql_query(f"SELECT {c} AS c" + FROM)._j_table.getResolvedSchema()
            types[c] = str(schema.getColumnDataTypes()[0].toString())
            planned.append(c)
        except Exception as e:
            results[c] = ("error", _error_text(e))
    _evaluate(tenv, planned, types, results)
    records = []
    for c in cases:
        kind, v = results[c]
        rec = {"expr": c} if zone == "UTC" else {"expr": c, "zone": zone}
        if kind == "error":
            rec["error"] = v
        else:
            if types[c].startswith("TIMESTAMP_LTZ"):
                v = _instant(v, zone)
            rec["type"], rec["value"] = types[c], normalize(v)
            if c in volatile:
                rec["volatile"] = True
        records.append(rec)
    return records


CONFIG = {"table.local-time-zone": "UTC", "parallelism.default": "1"}


def main() -> int:
    """Write ``flink_expected.json``; returns the process exit code."""
    ns = runpy.run_path(str(CASES_FILE))
    normalize, volatile = ns["normalize"], set(ns["VOLATILE"])
    records = _records(ns["CASES"] + ns["VOLATILE"], "UTC", normalize, volatile)
    for zone, cases in ns["ZONED"].items():
        records += _records(cases, zone, normalize, volatile)
    import pyflink

    doc = {"generated_by": "scripts/flink_oracle.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "config": CONFIG, "cases": records}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(records)} cases, {sum('error' in r for r in records)} errors -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
