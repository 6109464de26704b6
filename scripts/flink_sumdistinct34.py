"""Record Flink 2.3's SUM(DISTINCT d) FILTER (WHERE f) of a lone -0.0 next to other aggregate calls.

Campaign 32 of the differential fuzzer (docs/fuzzing.md, session 33) recorded ``0.0`` for
``SUM(DISTINCT d) FILTER (WHERE f)`` of the fuzzer's table (group ``MOD(id, 3) = 0`` holds one -0.0
that the FILTER keeps) among other aggregate calls, ``-0.0`` for the call alone. This probes the grid:
the call alone and with other calls beside it (DISTINCT of the same or other arguments, with and
without FILTER, non-DISTINCT), each query's answer and the aggregate nodes of its plan (whether Flink
expands the DISTINCT calls into an ``Expand`` and two aggregates). Writes
``tests/functions/sumdistinct34_flink.json``, replayed by ``tests/functions/test_sumdistinct34.py``::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_sumdistinct34.py
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, table_env

sys.path.insert(0, str(ROOT))
from tests.functions import difffuzz as fz  # noqa: E402

OUT = ROOT / "tests" / "functions" / "sumdistinct34_flink.json"
CALL = "SUM(DISTINCT d) FILTER (WHERE f)"
OTHERS = [
    "",
    "COUNT(*)",
    "SUM(d)",
    "SUM(DISTINCT d)",
    "COUNT(DISTINCT d)",
    "SUM(DISTINCT d) FILTER (WHERE NOT f)",
    "COUNT(DISTINCT i)",
    "SUM(DISTINCT i)",
    "COUNT(DISTINCT i) FILTER (WHERE f)",
    "MAX(DISTINCT s)",
    "AVG(DISTINCT d)",
    "COUNT(DISTINCT d) FILTER (WHERE f)",
    "COUNT(DISTINCT i), SUM(DISTINCT b)",
]
CALLS = [CALL, "SUM(DISTINCT d)", "AVG(DISTINCT d) FILTER (WHERE f)", "SUM(d) FILTER (WHERE f)"]
REDUCED = ["STDDEV(i)", "AVG(i)", "VAR_POP(i)", "STDDEV(CASE WHEN f THEN id END)", "AVG(DISTINCT i)",
           "SUM(MOD(CAST(CAST(-1 AS BIGINT) AS DECIMAL(38, 0)), (id - 11))) "
           "FILTER (WHERE 100 / CAST(-1 AS TINYINT) IS NOT NULL)", "SUM(b * CAST(b AS DOUBLE))"]
"""Calls beside which ``--reduce`` probes :data:`CALL` and ``SUM(d) FILTER (WHERE f)``: the bisection of
campaign 32's calls ended at its first three (STDDEV among them: Calcite's AggregateReduceFunctionsRule
rewrites AVG / STDDEV / VAR into SUMs and COUNTs, and SUM into $SUM0, a sum from 0, where it fires)."""
GRID_CALLS = [CALL, "SUM(d) FILTER (WHERE f)", "AVG(d) FILTER (WHERE f)", "AVG(DISTINCT d) FILTER (WHERE f)",
              "SUM(CAST(d AS FLOAT)) FILTER (WHERE f)", "SUM(DISTINCT CAST(d AS FLOAT)) FILTER (WHERE f)"]
GRID_BESIDE = [("STDDEV(DISTINCT i)",), ("VAR_SAMP(i) FILTER (WHERE f)",), ("STDDEV_POP(d)",),
               ("VARIANCE(DISTINCT i) FILTER (WHERE f)",), ("STDDEV_SAMP(CAST(i AS DECIMAL(10, 2)))",),
               ("AVG(i)", "COUNT(*)"), ("MAX(d)", "MIN(i)"), ("STDDEV(i)", "AVG(i)")]
"""``--grid``: each of :data:`GRID_CALLS` (sums and averages of a lone -0.0 in group 0) beside each of
:data:`GRID_BESIDE` (the variance family DISTINCT, with FILTER, of DOUBLE and DECIMAL; calls Flink
implements as they are), to find which calls turn the aggregate's SUMs into $SUM0s."""


def queries() -> list[str]:
    """Each probed query: a call of :data:`CALLS` with one entry of :data:`OTHERS` beside it."""
    out = []
    for call in CALLS:
        for other in OTHERS:
            items = f"CAST({call} AS STRING)" + (f", {other}" if other else "")
            out.append(f"SELECT {fz.AGG_KEY} AS g, {items} FROM {fz.TABLE_NAME} GROUP BY {fz.AGG_KEY}")
    return out


def _aggregates(plan: str) -> list[str]:
    """The physical plan's aggregate and Expand node names (the optimized plan's, first word each)."""
    physical = plan.split("== Optimized Physical Plan ==")[-1].split("== Optimized Execution Plan ==")[0]
    return re.findall(r"\b(\w*(?:Aggregate|Expand)\w*)\(", physical)


def _query(calls: list[str]) -> str:
    items = ", ".join(f"CAST({c} AS STRING)" for c in calls)
    return f"SELECT {fz.AGG_KEY} AS g, {items} FROM {fz.TABLE_NAME} GROUP BY {fz.AGG_KEY}"


def _answer(t, q: str) -> dict:
    """``{"plan", "rows": {group: cells}}`` of ``q`` (its final table), or ``{"error"}``."""
    entry: dict = {}
    try:
        entry["plan"] = _aggregates(t.explain_sql(q))
        final: dict[str, list] = {}
        for kind, g, *cells in collect(t, q, kinds=True):
            if kind in ("+I", "+U"):
                final[str(g)] = [None if c is None else str(c) for c in cells]
            else:
                final.pop(str(g), None)
        entry["rows"] = dict(sorted(final.items()))
    except Exception as e:  # noqa: BLE001  (Flink's refusal is an answer)
        entry["error"] = error_text(e)
    print(q[:300], entry, flush=True)
    return entry


def campaign_calls() -> list[str]:
    """Campaign 32's aggregate calls that Flink answered, in the campaign's order (:data:`CALL` left out)."""
    doc = json.loads((ROOT / "tests" / "functions" / "difffuzz_campaign32.json").read_text(encoding="utf-8"))
    return [c["expr"] for c in doc["cases"] if c.get("aggregate") and "rows" in c and c["expr"] != CALL]


def bisect(t, others: list[str], out: dict) -> None:
    """Halve ``others`` while :data:`CALL` beside them is 0.0 in group 0, recording each query."""
    while True:
        q = _query([CALL, *others])
        out["bisect"][q] = entry = _answer(t, q)
        if entry.get("rows", {}).get("0", [None])[0] != "0.0" or len(others) == 1:
            return
        half = len(others) // 2
        q = _query([CALL, *others[:half]])
        out["bisect"][q] = first = _answer(t, q)
        others = others[:half] if first.get("rows", {}).get("0", [None])[0] == "0.0" else others[half:]


def main() -> None:
    """Run the queries of :func:`queries` (or, with ``--bisect``, :func:`bisect`) and write :data:`OUT`.

    ``--grid``: the queries of :data:`GRID_CALLS` beside :data:`GRID_BESIDE`; ``--bisect``: the bisection
    of campaign 32's calls beside which the sign is lost; ``--reduce``: the
    call beside each of :data:`REDUCED`.
    """
    t = table_env(utc=True)
    folder = Path(tempfile.mkdtemp(prefix="sumdistinct34-"))
    data = folder / "src.json"
    data.write_text(fz.data_lines(), encoding="utf-8")
    t.execute_sql(fz.source_ddl(str(data)))
    out = {"generated_by": "scripts/flink_sumdistinct34.py", "data": fz.data_lines(), "queries": {},
           "bisect": {}}
    if OUT.exists():
        out = {**out, **json.loads(OUT.read_text(encoding="utf-8"))}
    if "--grid" in sys.argv:
        out.setdefault("grid", {})
        for call in GRID_CALLS:
            for other in GRID_BESIDE:
                q = _query([call, *other])
                out["grid"][q] = _answer(t, q)
    elif "--reduce" in sys.argv:
        out.setdefault("reduce", {})
        for call in (CALL, "SUM(d) FILTER (WHERE f)"):
            for other in REDUCED:
                q = _query([call, other])
                out["reduce"][q] = _answer(t, q)
    elif "--bisect" in sys.argv:
        calls = campaign_calls()
        for n in range(0, len(calls), 30):
            bisect(t, calls[n:n + 30], out)
    else:
        for q in queries():
            out["queries"][q] = _answer(t, q)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
