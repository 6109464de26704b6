"""Record the changelogs Apache Flink 2.3 emits for OVER aggregates ordered by a non-time column.

Writes ``tests/runtime/over_nontime_flink.json``: per scenario its source rows (JSON lines, or
debezium-json events), the source's columns, format and PRIMARY KEY, the query, and either the
changelog Flink emitted, in order (``[kind, cell, ...]``, cells as JSON values), or Flink's error
(the innermost cause's message). ``tests/runtime/test_over_nontime.py`` runs the same queries and
must emit the same changelog, row for row and kind for kind (``"compare": "changelog"``), or the
same final table where Flink emits no-op updates StreamSQL does not (``"compare": "table"``, see
docs/windows.md), and refuse the same scenarios; ``"compare": "refused"`` marks a scenario whose
Flink answer no order of the rows gives (NaN in the ORDER BY column), which StreamSQL fails;
``"compare": "duckdb"`` one where Flink's job fails by a fault of its own, whose final table StreamSQL
gives as DuckDB's window functions do.

Flink runs at parallelism 1 over a filesystem source (one split: rows in file order), so its
changelog order is the operator's (``NonTime{Rows,Range}UnboundedPrecedingFunction``). Name
scenarios to rerun only those (the others are kept from the file)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_over_changelog.py [SCENARIO ...]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from flink_session import ROOT, collect, error_text, file_table, rerun_scenarios, table_env

OUT = ROOT / "tests" / "runtime" / "over_nontime_flink.json"

COLUMNS = "id INT, k STRING, v BIGINT, p INT"
EV = [{"id": 1, "k": "a", "v": 10, "p": 3}, {"id": 2, "k": "b", "v": 5, "p": 1},
      {"id": 3, "k": "a", "v": 7, "p": 1}, {"id": 4, "k": "a", "v": 2, "p": 3},
      {"id": 5, "k": "b", "v": None, "p": 2}, {"id": 6, "k": "a", "v": 4, "p": 2},
      {"id": 7, "k": "a", "v": 1, "p": None}, {"id": 8, "k": "b", "v": 6, "p": 1}]
#: An AVG that keeps its value while later rows' change (Flink emits a no-op -U/+U pair for it).
AVG = [{"id": 1, "k": "a", "v": 4, "p": 1}, {"id": 2, "k": "a", "v": 6, "p": 3},
       {"id": 3, "k": "a", "v": 11, "p": 4}, {"id": 4, "k": "a", "v": 5, "p": 2},
       {"id": 5, "k": "a", "v": 1, "p": 5}]


def _c(after: dict) -> dict:
    return {"before": None, "after": after, "op": "c"}


#: Inserts, an update that moves a row to the front, a delete among peers, an update in place.
CHANGES = [_c({"id": 1, "k": "a", "v": 10, "p": 3}), _c({"id": 2, "k": "a", "v": 5, "p": 1}),
           _c({"id": 4, "k": "a", "v": 3, "p": 1}),
           {"before": {"id": 1, "k": "a", "v": 10, "p": 3}, "after": {"id": 1, "k": "a", "v": 20, "p": 0},
            "op": "u"},
           _c({"id": 3, "k": "a", "v": 7, "p": 2}),
           {"before": {"id": 2, "k": "a", "v": 5, "p": 1}, "after": None, "op": "d"},
           {"before": {"id": 3, "k": "a", "v": 7, "p": 2}, "after": {"id": 3, "k": "a", "v": 0, "p": 2},
            "op": "u"},
           {"before": {"id": 9, "k": "a", "v": 1, "p": 1}, "after": None, "op": "d"}]
DOUBLES = [{"id": 1, "k": "a", "d": 1.5}, {"id": 2, "k": "a", "d": -2.0}, {"id": 3, "k": "b", "d": None},
           {"id": 4, "k": "a", "d": 0.0}, {"id": 5, "k": "b", "d": -0.5}, {"id": 6, "k": "a", "d": 1.5}]
#: -0.0 and 0.0 in the ORDER BY column (peers to Flink's comparator) and in the summed column.
ZEROS = [{"id": 1, "k": "a", "d": 0.0}, {"id": 2, "k": "a", "d": -0.0}, {"id": 3, "k": "a", "d": 1.0},
         {"id": 4, "k": "a", "d": -0.0}, {"id": 5, "k": "a", "d": -1.0}, {"id": 6, "k": "a", "d": 0.0}]
_NAN = {"id": 2, "k": "a", "v": "NaN", "p": 1}
#: A row with a NaN value retracted (Flink's row equaliser finds it: NaN's bits equal NaN's), and a
#: SUM going from -0.0 to 0.0 (an update to Flink: its accumulators equal as Java's Double.equals).
NAN_VALUES = [_c({"id": 1, "k": "a", "v": 1.5, "p": 2}), _c(_NAN), _c({"id": 3, "k": "a", "v": -0.0, "p": 3}),
              {"before": _NAN, "after": None, "op": "d"}, _c({"id": 4, "k": "b", "v": -0.0, "p": 1}),
              _c({"id": 5, "k": "b", "v": 0.0, "p": 0})]
#: NaN in the ORDER BY column: Flink's comparator takes it for equal to anything (its place then
#: depends on the arrival order); StreamSQL refuses it (``"compare": "refused"``).
NAN_ORDER = [{"id": 1, "k": "a", "d": 1.0}, {"id": 2, "k": "a", "d": "NaN"}, {"id": 3, "k": "a", "d": 0.5},
             {"id": 4, "k": "a", "d": 2.0}]

W_ROWS = "PARTITION BY k ORDER BY p ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
W_RANGE = "PARTITION BY k ORDER BY p RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
CHANGELOG = {"format": "debezium-json", "key": "id"}

SCENARIOS = [
    {"name": "rows_count_sum_min", "rows": EV,
     "query": f"SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w, MIN(v) OVER w FROM ev "
              f"WINDOW w AS ({W_ROWS})"},
    {"name": "range_count_sum", "rows": EV,
     "query": f"SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w FROM ev WINDOW w AS ({W_RANGE})"},
    {"name": "range_no_partition", "rows": EV,
     "query": "SELECT id, k, p, COUNT(*) OVER w, SUM(v) OVER w FROM ev WINDOW w AS (ORDER BY p)"},
    {"name": "range_max_unchanged", "rows": EV,
     "query": "SELECT id, k, p, MAX(v) OVER (PARTITION BY k ORDER BY p) FROM ev"},
    {"name": "rows_sum", "rows": EV, "query": f"SELECT id, k, p, SUM(v) OVER ({W_ROWS}) FROM ev"},
    {"name": "rows_avg_max", "rows": EV,
     "query": f"SELECT id, k, p, AVG(v) OVER w, MAX(v) OVER w, COUNT(v) OVER w FROM ev "
              f"WINDOW w AS ({W_ROWS})"},
    {"name": "rows_avg_noop_update", "rows": AVG, "compare": "table",
     "query": f"SELECT id, p, AVG(v) OVER ({W_ROWS}) FROM ev"},
    {"name": "range_avg_sum", "rows": AVG,
     "query": f"SELECT id, p, SUM(v) OVER w, AVG(v) OVER w FROM ev WINDOW w AS ({W_RANGE})"},
    {"name": "changelog_rows_sum", "rows": CHANGES, **CHANGELOG,
     "query": f"SELECT id, k, p, SUM(v) OVER ({W_ROWS}) FROM ev"},
    {"name": "changelog_range_sum", "rows": CHANGES, **CHANGELOG,
     "query": f"SELECT id, k, p, SUM(v) OVER ({W_RANGE}) FROM ev"},
    {"name": "changelog_rows_avg_count_max", "rows": CHANGES, **CHANGELOG,
     "query": f"SELECT id, p, AVG(v) OVER w, COUNT(*) OVER w, MAX(v) OVER w FROM ev WINDOW w AS ({W_ROWS})"},
    {"name": "changelog_range_min_count", "rows": CHANGES, **CHANGELOG,
     "query": f"SELECT id, p, MIN(v) OVER w, COUNT(v) OVER w FROM ev WINDOW w AS ({W_RANGE})"},
    {"name": "order_by_string", "rows": EV,
     "query": "SELECT id, k, COUNT(*) OVER w, MAX(v) OVER w FROM ev WINDOW w AS (ORDER BY k)"},
    {"name": "order_by_double", "rows": DOUBLES, "columns": "id INT, k STRING, d DOUBLE",
     "query": "SELECT id, k, d, COUNT(*) OVER w, SUM(id) OVER w FROM ev WINDOW w AS (ORDER BY d ROWS "
              "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    {"name": "order_by_negative_zero_rows", "rows": ZEROS, "columns": "id INT, k STRING, d DOUBLE",
     "query": "SELECT id, d, COUNT(*) OVER w, SUM(id) OVER w, SUM(d) OVER w FROM ev WINDOW w AS (ORDER BY d "
              "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    # Flink 2.3's job fails (NullPointerException: its accumulators are keyed by the sort key's bytes,
    # and the group of 0.0 took -0.0's); StreamSQL answers as DuckDB's window does (compare "duckdb")
    {"name": "order_by_negative_zero_range", "rows": ZEROS, "columns": "id INT, k STRING, d DOUBLE",
     "compare": "duckdb",
     "query": "SELECT id, d, COUNT(*) OVER w, SUM(id) OVER w FROM ev WINDOW w AS (ORDER BY d)"},
    {"name": "changelog_nan_value_retracted", "rows": NAN_VALUES, **CHANGELOG,
     "columns": "id INT, k STRING, v DOUBLE, p INT",
     "query": f"SELECT id, p, COUNT(v) OVER w, SUM(id) OVER w, SUM(CASE WHEN v = v THEN v END) OVER w "
              f"FROM ev WINDOW w AS ({W_ROWS})"},
    {"name": "order_by_nan", "rows": NAN_ORDER, "columns": "id INT, k STRING, d DOUBLE", "compare": "refused",
     "query": "SELECT id, COUNT(*) OVER w, SUM(id) OVER w FROM ev WINDOW w AS (ORDER BY d "
              "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"},
    {"name": "order_by_expression", "rows": EV,
     "query": "SELECT id, k, p, SUM(v) OVER (PARTITION BY k ORDER BY p % 2) FROM ev"},
]


def _cell(value):
    """A collected value as JSON (numbers and strings as they are, anything else as its text)."""
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def run(scenario: dict, folder: Path) -> dict:
    """The scenario's record: its inputs, and Flink's changelog or error."""
    columns = scenario.get("columns", COLUMNS)
    fmt = scenario.get("format", "json")
    key = f", PRIMARY KEY ({scenario['key']}) NOT ENFORCED" if scenario.get("key") else ""
    t = table_env(utc=True)
    file_table(t, "ev", columns + key, scenario["rows"], folder / f"{scenario['name']}.jsonl", fmt)
    record = {k: scenario[k] for k in ("rows", "query")}
    record.update(columns=columns, format=fmt, key=scenario.get("key"),
                  compare=scenario.get("compare", "changelog"))
    try:
        record["changelog"] = [[r[0], *map(_cell, r[1:])] for r in collect(t, scenario["query"], kinds=True)]
    except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
        record["flink_error"] = error_text(e)
    return record


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`."""
    old = json.loads(OUT.read_text()) if OUT.exists() else {}
    out = rerun_scenarios(SCENARIOS, argv, old, run,
                          lambda r: "error" if "flink_error" in r else len(r["changelog"]))
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
