"""Record Apache Flink 2.3's aggregates over DOUBLE and FLOAT values -0.0, 0.0, NaN and the infinities.

Flink has two MIN/MAX implementations: over an insert-only input ``MinAggFunction`` /
``MaxAggFunction`` compare with Java's primitive ``<`` / ``>`` (so of -0.0 and 0.0 the first seen
stays, and a NaN stays only if it came first: no comparison with NaN holds); over a changelog
``MinWithRetractAggFunction`` / ``MaxWithRetractAggFunction`` keep a map ordered by
``Double.compareTo`` (-0.0 below 0.0, NaN above +Infinity). Which one a query gets, and the order
a window merges its slices in, is what this records, together with COUNT/SUM(DISTINCT) in window
TVFs (distinct values keyed by ``Double.equals``), SUM/AVG added and retracted row by row, and
SUM/AVG(DISTINCT) as a running sum fed by the distinct map (over DOUBLE, FLOAT, INT and DECIMAL, in
GROUP BY and a bounded OVER frame).

Rows are read from one file by one task, so each group's row order is the file's: the
order-dependent answers (the insert-only MIN/MAX) are deterministic here. Writes
``tests/functions/float_aggs_flink.json``: the tables, their rows, per query the rows Flink
collected (``[kind, cell, ...]``) or its error, which ``tests/functions/test_float_aggs.py``
replays, and the GroupAggregate lines of Flink's plans of :data:`PLANS` (which MIN/MAX it
retracts: ``MIN_RETRACT``) and the aggregate and Calc lines of :data:`REDUCE`'s (which aggregates
Flink's AggregateReduceFunctionsRule rewrote: ``$SUM0``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_float_aggs.py [reduce]
"""

from __future__ import annotations

import json
import math
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, answers, file_table, table_env

OUT = ROOT / "tests" / "functions" / "float_aggs_flink.json"
NAN, INF = math.nan, math.inf
#: Per group ``g`` its DOUBLE values in arrival order (``f`` is the same value as FLOAT).
GROUPS = {1: [0.0, -0.0], 2: [-0.0, 0.0], 3: [NAN, 1.0, -1.0], 4: [1.0, NAN, -1.0],
          5: [-INF, NAN, INF], 6: [2.0, None, -0.0, 0.0], 7: [None], 8: [0.0, NAN, -0.0]}


def _num(v):
    """A DOUBLE as the JSON formats read it: NaN and the infinities as strings (Java's parseDouble)."""
    if v is None or math.isfinite(v):
        return v
    return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")


def _rows() -> list[dict]:
    """Table ``t``'s rows: the groups one after another, row ``id`` at ``3 * id`` seconds."""
    out, i = [], 0
    for g, values in GROUPS.items():
        for v in values:
            i += 1
            out.append({"id": i, "g": g, "d": _num(v), "f": _num(v),
                        "ts": f"2024-01-01 00:{3 * i // 60:02d}:{3 * i % 60:02d}"})
    return out


def _changelog() -> list[tuple[str, dict | None, dict | None]]:
    """Table ``c``'s debezium events ``(op, before, after)``.

    Groups 1-4 end with -0.0, 0.0, NaN and the infinities retracted and left (group 4 and 6 are
    emptied by a retraction and start again from new accumulators); group 5 replays the
    additions and retractions of query fuzz seed 200291's group (``AVG`` of 698.861 and -449.536,
    whose row-by-row DOUBLE sum is 249.32499999999996).
    """
    rows: dict[int, dict] = {}
    events = []

    def c(i, g, v):
        rows[i] = {"id": i, "g": g, "d": _num(v), "f": _num(v)}
        events.append(("c", None, rows[i]))

    def u(i, v):
        new = {**rows[i], "d": _num(v), "f": _num(v)}
        events.append(("u", rows[i], new))
        rows[i] = new

    def d(i):
        events.append(("d", rows.pop(i), None))

    c(1, 1, -0.0), c(2, 1, 0.0), c(3, 1, NAN), u(3, 5.0), d(1)
    c(4, 2, 1.0), c(5, 2, NAN), c(6, 2, -0.0), c(7, 2, 0.0), d(4)
    c(8, 3, INF), c(9, 3, -INF), u(9, NAN), c(10, 3, 0.0)
    c(11, 4, 2.5), u(11, -0.0)
    c(12, 6, INF), d(12), c(13, 6, 1.5)  # emptied, then new accumulators: no Infinity - Infinity
    c(20, 5, -560.027), c(21, 5, 698.861), c(22, 5, 464.348), c(23, 5, 150.323), d(22), d(20)
    c(20, 5, -560.027), d(20), c(24, 5, -449.536), d(23)
    # a NULL keeps the key while its SUM is retracted to 0.0: Flink's 0.0 + -0.0 is 0.0
    c(30, 7, None), c(31, 7, 1.5), d(31), c(32, 7, -0.0)
    # SUM(DISTINCT): Infinity retracted (Infinity - Infinity) and added again, the key never emptied
    c(40, 8, INF), c(41, 8, 2.0), d(40), c(42, 8, INF)
    return events


def _integers() -> list[tuple[str, dict | None, dict | None]]:
    """Table ``n``'s debezium events: INT values past INT's range once summed, DECIMAL(10, 2) values.

    Group 1's distinct INT sum wraps (Flink's ``IntSumWithRetractAggFunction`` adds in INT), its
    AVG's sum is a BIGINT; group 2's values are retracted and added again.
    """
    rows = [(1, 1, 2147483000, 12.25), (2, 1, 1000, 0.10), (3, 1, 2147483000, 12.25),
            (4, 2, -5, -1.05), (5, 2, 7, 3.30), (6, 2, -5, -1.05)]
    events = [("c", None, {"id": i, "g": g, "i": v, "m": m}) for i, g, v, m in rows]
    events += [("d", {"id": 4, "g": 2, "i": -5, "m": -1.05}, None),
               ("d", {"id": 6, "g": 2, "i": -5, "m": -1.05}, None),
               ("c", None, {"id": 7, "g": 2, "i": -5, "m": -1.05}),
               ("u", {"id": 2, "g": 1, "i": 1000, "m": 0.10}, {"id": 2, "g": 1, "i": 1001, "m": 0.20})]
    return events


TABLES = {"t": ("id INT, g INT, d DOUBLE, f FLOAT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts", "json"),
          "c": ("id INT, g INT, d DOUBLE, f FLOAT", "debezium-json"),
          "n": ("id INT, g INT, i INT, m DECIMAL(10, 2)", "debezium-json")}

_MINMAX = ("CAST(MIN(d) AS STRING), CAST(MAX(d) AS STRING), CAST(MIN(f) AS STRING), "
           "CAST(MAX(f) AS STRING)")
_SUMS = "CAST(SUM(d) AS STRING), CAST(AVG(d) AS STRING), CAST(SUM(f) AS STRING), CAST(AVG(f) AS STRING)"
_DISTINCT = "COUNT(DISTINCT d), COUNT(DISTINCT f), CAST(SUM(DISTINCT d) AS STRING)"
_WINDOWS = {"TUMBLE": "INTERVAL '10' SECOND", "HOP": "INTERVAL '5' SECOND, INTERVAL '10' SECOND",
            "CUMULATE": "INTERVAL '5' SECOND, INTERVAL '10' SECOND"}
_OVER = {"rows_unbounded": "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW",
         "rows_bounded": "ROWS BETWEEN 1 PRECEDING AND CURRENT ROW",
         "range_bounded": "RANGE BETWEEN INTERVAL '4' SECOND PRECEDING AND CURRENT ROW",
         "range_unbounded": "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"}


def _over(frame: str, order: str = "ts") -> str:
    spec = f"PARTITION BY g ORDER BY {order} {frame}"
    calls = [f"CAST({f}({c}) OVER ({spec}) AS STRING)" for f in ("MIN", "MAX") for c in ("d", "f")]
    return f"SELECT id, {', '.join(calls)} FROM t"


def _window(w: str, items: str, keys: str = "") -> str:
    tvf = f"TABLE({w}(TABLE t, DESCRIPTOR(ts), {_WINDOWS[w]}))"
    return (f"SELECT {keys}CAST(window_start AS STRING), {items} FROM {tvf} "
            f"GROUP BY {keys}window_start, window_end")


QUERIES = [f"SELECT g, {_MINMAX} FROM t GROUP BY g",
           f"SELECT g, {_MINMAX} FROM (SELECT id, g, MAX(d) AS d, MAX(f) AS f FROM t GROUP BY id, g) "
           "GROUP BY g",
           f"SELECT g, {_MINMAX} FROM c GROUP BY g",
           f"SELECT g, {_SUMS} FROM c GROUP BY g",
           f"SELECT g, {_SUMS} FROM t GROUP BY g",
           f"SELECT g, {_DISTINCT} FROM c GROUP BY g",
           "SELECT g, CAST(CAST(AVG(d) AS DECIMAL(10, 3)) AS STRING) FROM c WHERE g = 5 GROUP BY g",
           "SELECT g, CAST(AVG(DISTINCT d) AS STRING), CAST(SUM(DISTINCT f) AS STRING) FROM c GROUP BY g",
           "SELECT g, SUM(DISTINCT i), AVG(DISTINCT i), CAST(SUM(DISTINCT m) AS STRING), "
           "CAST(AVG(DISTINCT m) AS STRING), COUNT(DISTINCT m) FROM n GROUP BY g",
           "SELECT g, SUM(DISTINCT i), AVG(DISTINCT i) FROM n GROUP BY g",
           "SELECT id, CAST(SUM(d) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT "
           "ROW) AS STRING), CAST(SUM(f) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN 1 PRECEDING AND "
           "CURRENT ROW) AS STRING) FROM t",
           "SELECT id, CAST(SUM(DISTINCT d) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN 1 PRECEDING AND "
           "CURRENT ROW) AS STRING), CAST(AVG(DISTINCT d) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN 1 "
           "PRECEDING AND CURRENT ROW) AS STRING) FROM t",
           *(_window(w, _MINMAX, "g, ") for w in _WINDOWS),
           *(_window(w, _DISTINCT) for w in _WINDOWS),
           _window("HOP", "COUNT(DISTINCT d), COUNT(DISTINCT f)"),
           *(_over(frame) for frame in _OVER.values()),
           _over(_OVER["rows_unbounded"], "id")]


_BIG = "g + 2147483000"  # an INT of t's whose sum leaves INT
#: Aggregates Flink's AggregateReduceFunctionsRule may rewrite (AVG into $SUM0 / COUNT, SUM into CASE
#: over $SUM0 and COUNT): its cost-based planner takes the rewrite when it leaves fewer calls. An AVG
#: of INTs then divides a sum wrapped to INT. Their answers and GroupAggregate plans are recorded
#: (``reduce``; rerun alone with the argument ``reduce``).
REDUCE = ["SELECT g, SUM(DISTINCT i), AVG(DISTINCT i), COUNT(DISTINCT i) FROM n GROUP BY g",
          "SELECT g, SUM(i), AVG(i), COUNT(i) FROM n GROUP BY g",
          "SELECT g, AVG(i), COUNT(i) FROM n GROUP BY g",
          "SELECT g, SUM(i), AVG(i) FROM n GROUP BY g",
          "SELECT g, AVG(DISTINCT i), CAST(AVG(DISTINCT m) AS STRING), COUNT(DISTINCT m) FROM n GROUP BY g",
          "SELECT g, AVG(DISTINCT i), CAST(SUM(m) AS STRING), CAST(AVG(m) AS STRING), COUNT(m) FROM n "
          "GROUP BY g",
          "SELECT g, AVG(i), SUM(i), COUNT(i), MAX(i) FROM n GROUP BY g",
          "SELECT AVG(i), SUM(i), COUNT(i) FROM n",
          "SELECT AVG(i), COUNT(*) FROM n",
          f"SELECT SUM({_BIG}), AVG({_BIG}), COUNT({_BIG}) FROM t",
          f"SELECT AVG({_BIG}), MAX({_BIG}) FROM t",
          f"SELECT CAST(window_start AS STRING), SUM({_BIG}), AVG({_BIG}), COUNT({_BIG}) FROM "
          "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end",
          f"SELECT CAST(window_start AS STRING), AVG({_BIG}), COUNT(*) FROM "
          "TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' HOUR)) GROUP BY window_start, window_end"]

_NESTED = "(SELECT id, g, {f}(d) AS d FROM t GROUP BY id, g)"
#: Queries whose GROUP BY plans Flink's way of MIN/MAX over a changelog (with or without retraction).
PLANS = [f"SELECT g, MIN(d), MAX(d) FROM {_NESTED.format(f=f)} GROUP BY g" for f in ("MAX", "MIN", "SUM")] + [
    f"SELECT g, MIN(d), MAX(d) FROM {_NESTED.format(f='MAX')} WHERE d > 0 GROUP BY g",
    f"SELECT MAX(d), MIN(d) FROM (SELECT g, MAX(d) AS d FROM {_NESTED.format(f='MAX')} GROUP BY g)",
    "SELECT MAX(g), MIN(g) FROM (SELECT g, COUNT(*) AS n FROM t GROUP BY g)",
    "SELECT MAX(g), MIN(g) FROM (SELECT g, COUNT(*) AS n FROM c GROUP BY g)",
    "SELECT g, MIN(d), MAX(d) FROM c GROUP BY g"]


def table_lines(name: str, rows: list) -> list[dict]:
    """The JSON lines of table ``name``'s file: its rows, or a debezium table's ``{before, after, op}``."""
    if TABLES[name][1] != "debezium-json":
        return rows
    return [{"before": b, "after": a, "op": op} for op, b, a in rows]


def _group_aggregates(plan: str) -> list[str]:
    """The ``GroupAggregate(...)`` lines of Flink's optimized physical plan, outermost first."""
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    return [line.strip().removeprefix("+- ") for line in physical.splitlines() if "GroupAggregate(" in line]


def _aggregates(plan: str) -> list[str]:
    """The ``GroupAggregate`` / ``WindowAggregate`` and ``Calc`` lines of Flink's optimized physical plan."""
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    return [line.strip().removeprefix("+- ") for line in physical.splitlines()
            if "Aggregate(" in line or "Calc(" in line]


def main(only: list[str]) -> int:
    """Run :data:`QUERIES` and :data:`REDUCE` over the tables of :data:`TABLES`, write :data:`OUT`.

    ``only`` ``["reduce"]``: :data:`REDUCE` alone, the rest kept from :data:`OUT`.
    """
    t = table_env(utc=True)
    rows = {"t": _rows(), "c": _changelog(), "n": _integers()}
    out: dict = json.loads(OUT.read_text()) if only else {"tables": TABLES, "rows": rows, "queries": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for name, (columns, fmt) in TABLES.items():
            file_table(t, name, columns, table_lines(name, rows[name]), Path(tmp) / f"{name}.json", fmt)
        if not only:
            out["plans"] = {q: _group_aggregates(t.explain_sql(q)) for q in PLANS}
            out["queries"] = answers(t, QUERIES)
        out["reduce_plans"] = {q: _aggregates(t.explain_sql(q)) for q in REDUCE}
        out["queries"].update(answers(t, REDUCE))
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
