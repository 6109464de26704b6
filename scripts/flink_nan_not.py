"""Record Flink 2.3's answers for NOT over comparisons of DOUBLE / FLOAT values, NaN included.

Calcite's simplifier pushes a NOT into what it negates before Flink generates code (``NOT (d <=
1)`` is ``d > 1``, ``d NOT BETWEEN -1 AND 1`` is ``d < -1 OR d > 1``, ``NOT (a AND b)`` is ``NOT a
OR NOT b``, ``NOT NOT x`` is ``x``), and Java compares a NaN false with everything: so a NaN row
passes none of those filters, where ``NOT`` of the comparison's FALSE would be TRUE. Each case
is a filter (and a projection) over a JSON file table of DOUBLE and FLOAT values (NaN, the
infinities, -0.0, NULL); Flink's kept ids (or projected values) go to
``tests/functions/nan_not_flink.json``, which ``tests/functions/test_nan_not.py`` replays.

Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_nan_not.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, file_table, table_env

OUT = ROOT / "tests" / "functions" / "nan_not_flink.json"

VALUES = ["NaN", "-0.0", "0.0", "1.0", "2.0", "Infinity", "-Infinity", None, "-2.0"]
RECORDS = [{"id": i, "d": v, "f": v, "k": i % 2} for i, v in enumerate(VALUES)]
COLUMNS = "id INT, d DOUBLE, f FLOAT, k INT"
#: conditions, each used as a WHERE and as a projected BOOLEAN
CONDITIONS = [
    "NOT (d <= 1)", "NOT (d < 1)", "NOT (d > 1)", "NOT (d >= 1)", "NOT (1 < d)",
    "d NOT BETWEEN -1 AND 1", "NOT (d BETWEEN -1 AND 1)", "NOT (NOT (d > 1))",
    "NOT (d <= 1 AND k = 1)", "NOT (d <= 1 OR d > 5)", "NOT (f <= 1)", "f NOT BETWEEN -1 AND 1",
    "NOT (d = 1)", "NOT (d <> 1)", "NOT ((d <= 1))",
]


def main() -> None:
    """Each condition as a filter and as a projection, Flink's answers written to :data:`OUT`."""
    t = table_env(utc=True)
    file_table(t, "t", COLUMNS, RECORDS, Path(tempfile.mkdtemp()) / "t.json", "json")
    out = {"records": RECORDS, "columns": COLUMNS, "cases": {}}
    for cond in CONDITIONS:
        answers = {}
        for kind, sql in (("where", f"SELECT id FROM t WHERE {cond}"),
                          ("select", f"SELECT id, {cond} AS b FROM t")):
            try:
                answers[kind] = sorted(collect(t, sql), key=lambda r: r[0])
            except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
                answers[kind] = {"error": error_text(e)}
        out["cases"][cond] = answers
        print(cond, answers, flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
