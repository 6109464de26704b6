"""Evaluate the function conformance cases in Apache Flink and record Flink's answers.

Flink is the oracle for StreamSQL's built-in functions: this script runs every expression of
``tests/functions/cases.py`` in PyFlink's local mini-cluster and writes each one's result value
and result type (or Flink's error) to ``tests/functions/flink_expected.json``, which
``tests/functions/test_conformance.py`` compares with StreamSQL's answers.

Setup (once; PyFlink is ~850 MB and needs Java 11+, so it lives outside the project's venv)::

    python3 -m venv /work/flinkvenv && /work/flinkvenv/bin/pip install apache-flink==2.3.0
    /work/flinkvenv/bin/python scripts/flink_oracle.py            # rewrites the JSON
    /work/flinkvenv/bin/python scripts/flink_oracle.py --only JSON_EXISTS   # those cases only, merged
    (several texts: the cases containing any; aggregate cases too)
    /work/flinkvenv/bin/python scripts/flink_oracle.py --docs   # the docs' examples only, merged

How: the cases are planned together (``SELECT <case>, ... FROM (VALUES (1)) AS t(x)``: planning
only, no job) to get their result types, halving a group that fails until each validation error is a
case's own; then all valid cases run as the columns of one batch job (each wrapped in ``CASE WHEN x
= 1 THEN ... END`` so that a NULL result of a literal expression typed NOT NULL does not trip the
sink's NOT NULL check). A case that fails at run time is isolated by bisection (a few more jobs) and
recorded with Flink's error. The session time zone is UTC (``table.local-time-zone``), as
StreamSQL's default; the cases of ``ZONED`` run again in a session of each of its zones (records
with a ``"zone"``). ``VOLATILE`` cases (the current time, random values) are recorded with
``"volatile": true``: their type is compared, their value only checked for plausibility.

PyFlink cannot hand a TIMESTAMP_LTZ value to Python, so such a case is collected as
``CAST(case AS TIMESTAMP(p))`` (its wall clock in the session zone) and recorded as the instant's
UTC wall clock, which is how ``normalize`` writes StreamSQL's instants.

The ``AGGREGATES`` cases are aggregate calls over the rows of ``AGG_TABLE`` (a ``VALUES`` table
of typed literals): planned alone for their type, then all as the columns of one batch job
(records with ``"aggregate": true``).
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


def _run(tenv, cases: list[str], types: dict[str, str], source: str) -> list:
    """Values of ``cases`` from one job over ``source`` (a list of Python values)."""
    def column(c: str) -> str:
        if not types[c].startswith("TIMESTAMP_LTZ("):
            return c
        return f"CAST({c} AS TIMESTAMP({types[c][len('TIMESTAMP_LTZ('):].split(')')[0]}))"

    wrap = "CASE WHEN x = 1 THEN {} END" if source == FROM else "{}"
    cols = ", ".join(f"{wrap.format(column(c))} AS c{i}" for i, c in enumerate(cases))
    with tenv.sql_query("SELECT " + cols + source).execute().collect() as rows:
        return list(list(rows)[0])


def _bisect(cases: list[str], attempt, errors: dict) -> None:
    """Run ``attempt(group)`` over all ``cases``, halving a group that fails.

    A group fails with a Flink exception; halving stops at a case failing alone:
    ``errors[case] = ("error", Flink's message)``.
    """
    try:
        attempt(cases)
    except Exception as e:
        if len(cases) == 1:
            errors[cases[0]] = ("error", _error_text(e))
            return
        mid = len(cases) // 2
        _bisect(cases[:mid], attempt, errors)
        _bisect(cases[mid:], attempt, errors)


def _plan(tenv, cases: list[str], source: str, types: dict[str, str], errors: dict) -> None:
    """Fill ``types[case]`` (Flink's result type) or ``errors[case]``, planning groups at once."""
    def attempt(group: list[str]) -> None:
        query = "SELECT " + ", ".join(f"{c} AS c{i}" for i, c in enumerate(group)) + source
        schema = tenv.sql_query(query)._j_table.getResolvedSchema()
        for c, t in zip(group, schema.getColumnDataTypes()):
            types[c] = str(t.toString())

    _bisect(cases, attempt, errors)


def _evaluate(tenv, cases: list[str], types: dict[str, str], out: dict, source: str) -> None:
    """Fill ``out[case] = ("value", v) | ("error", msg)``, a job for all (more around failures)."""
    def attempt(group: list[str]) -> None:
        for c, v in zip(group, _run(tenv, group, types, source)):
            out[c] = ("value", v)

    _bisect(cases, attempt, out)


def _instant(value, zone: str):
    """A session wall clock (the collected TIMESTAMP_LTZ) as the instant it is, in UTC."""
    if value is None:
        return None
    utc = value.replace(tzinfo=zoneinfo.ZoneInfo(zone)).astimezone(datetime.timezone.utc)
    return utc.replace(tzinfo=None)


def agg_source(table: dict) -> str:
    """The FROM clause of a ``VALUES`` table of ``AGG_TABLE``'s rows (typed literals)."""
    def literal(v, t: str) -> str:
        if v is None:
            return f"CAST(NULL AS {t})"
        if isinstance(v, str):
            return "'" + v.replace("'", "''") + "'"
        return f"CAST({v!r} AS {t})"

    rows = ", ".join("(" + ", ".join(literal(v, t) for v, (_, t) in zip(r, table["columns"])) + ")"
                     for r in table["rows"])
    return f" FROM (VALUES {rows}) AS t({', '.join(n for n, _ in table['columns'])})"


def _records(cases: list[str], zone: str, normalize, volatile: set[str], source: str = FROM) -> list[dict]:
    """Flink's record (type and value, or error) of each case, in a session of time zone ``zone``."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    for k, v in {**CONFIG, "table.local-time-zone": zone}.items():
        tenv.get_config().set(k, v)
    types, results = {}, {}
    _plan(tenv, cases, source, types, results)
    planned = [c for c in cases if c in types]
    _evaluate(tenv, planned, types, results, source)
    records = []
    for c in cases:
        kind, v = results[c]
        rec = {"expr": c} if zone == "UTC" else {"expr": c, "zone": zone}
        if source != FROM:
            rec["aggregate"] = True
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


def _merge_only(ns: dict, needles: list[str]) -> int:
    """Record again only the UTC (volatile too) and aggregate cases containing one of ``needles``, merged."""
    def chosen(cases: list[str]) -> list[str]:
        return [c for c in cases if any(n in c for n in needles)]

    return _merge(ns, chosen(ns["CASES"] + ns["VOLATILE"]), {}, chosen(ns["AGGREGATES"]))


def _merge(ns: dict, chosen: list[str], zoned: dict[str, list[str]], aggs: list[str] = ()) -> int:
    """Record ``chosen`` (UTC), ``zoned`` (zone → cases) and ``aggs`` (aggregates) again, merged.

    The other records stay as they are (no re-run of the whole suite for a few new cases); the
    merged list keeps ``CASES``' order for the UTC cases, then the zoned records (a zone's fresh
    records replace its old ones of the same expression), then the aggregates in ``AGGREGATES``'
    order.
    """
    volatile = set(ns["VOLATILE"])
    fresh = {r["expr"]: r for r in _records(chosen, "UTC", ns["normalize"], volatile)}
    fresh_zoned = [r for zone, cases in zoned.items()
                   for r in _records(cases, zone, ns["normalize"], volatile)]
    fresh_aggs = {r["expr"]: r for r in _records(list(aggs), "UTC", ns["normalize"], set(),
                                                 agg_source(ns["AGG_TABLE"]))} if aggs else {}
    doc = json.loads(OUT.read_text())
    plain = {r["expr"]: r for r in doc["cases"] if "zone" not in r and not r.get("aggregate")}
    plain.update(fresh)
    aggregate = {r["expr"]: r for r in doc["cases"] if r.get("aggregate")}
    aggregate.update(fresh_aggs)
    order = ns["CASES"] + ns["VOLATILE"]
    renewed = {(r["zone"], r["expr"]) for r in fresh_zoned}
    zoned_old = [r for r in doc["cases"] if "zone" in r and (r["zone"], r["expr"]) not in renewed]
    doc["cases"] = ([plain[c] for c in order if c in plain] + zoned_old + fresh_zoned
                    + [aggregate[c] for c in ns["AGGREGATES"] if c in aggregate])
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    records = list(fresh.values()) + fresh_zoned + list(fresh_aggs.values())
    print(f"{len(records)} cases recorded again ({sum('error' in r for r in records)} errors) -> {OUT}")
    return 0


def main() -> int:
    """Write ``flink_expected.json``; returns the process exit code.

    ``--only TEXT [TEXT ...]``: record only the cases (UTC and aggregates) containing one of the
    texts, merged into the file (:func:`_merge_only`).
    ``--docs``: record only the examples of Flink's function reference (``DOCS_EXAMPLES``,
    ``DOCS_ZONED``), merged the same way.
    """
    ns = runpy.run_path(str(CASES_FILE))
    if len(sys.argv) >= 3 and sys.argv[1] == "--only":
        return _merge_only(ns, sys.argv[2:])
    if sys.argv[1:] == ["--docs"]:
        return _merge(ns, ns["DOCS_EXAMPLES"], ns["DOCS_ZONED"])
    normalize, volatile = ns["normalize"], set(ns["VOLATILE"])
    records = _records(ns["CASES"] + ns["VOLATILE"], "UTC", normalize, volatile)
    for zone, cases in ns["ZONED"].items():
        records += _records(cases, zone, normalize, volatile)
    records += _records(ns["AGGREGATES"], "UTC", normalize, volatile, agg_source(ns["AGG_TABLE"]))
    import pyflink

    doc = {"generated_by": "scripts/flink_oracle.py", "flink": getattr(pyflink, "__version__", "2.3.0"),
           "config": CONFIG, "cases": records}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(records)} cases, {sum('error' in r for r in records)} errors -> {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
