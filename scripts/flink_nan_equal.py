"""Record Flink 2.3's answers for =, <>, IN, BETWEEN and casts over DOUBLE / FLOAT NaN and -0.0.

A filter or projection compares DOUBLE / FLOAT values with Java's primitive operators (NaN equals
nothing, not even itself; -0.0 == 0.0), while grouping and join keys compare the binary rows.
Each section runs over a JSON file table of DOUBLE / FLOAT values (NaN twice, the infinities,
-0.0, 0.0, NULL) and their texts ``s``; Flink's answers (each query's changelog, or its error)
go to ``tests/functions/nan_equal_flink.json``, which ``tests/functions/test_nan_equal.py``
replays:

- ``conditions``: each used as a WHERE (ids kept) and as a projected BOOLEAN;
- ``queries``: whole queries: projections under an equality filter (Calcite's constant
  propagation), GROUP BY / DISTINCT of NaN and -0.0, joins on a DOUBLE key, casts of
  ``'NaN'`` / ``'Infinity'`` texts.

Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_nan_equal.py
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flink_session import ROOT, answers, collect, error_text, file_table, table_env

OUT = ROOT / "tests" / "functions" / "nan_equal_flink.json"

VALUES = ["NaN", "-0.0", "0.0", "1.5", "NaN", "Infinity", "-Infinity", None, "-0.0", "2.0"]
RECORDS = [{"id": i, "d": v, "f": v, "s": v, "ts": f"2024-01-01 00:00:{i:02d}"}
           for i, v in enumerate(VALUES)]
COLUMNS = "id INT, d DOUBLE, f FLOAT, s STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts"
NAN, FNAN = "CAST('NaN' AS DOUBLE)", "CAST('NaN' AS FLOAT)"
#: conditions, each used as a WHERE and as a projected BOOLEAN
CONDITIONS = [
    f"d = {NAN}", f"d <> {NAN}", f"d IN ({NAN}, 1.5)", f"d NOT IN ({NAN}, 1.5)",
    f"d IS DISTINCT FROM {NAN}", f"d IS NOT DISTINCT FROM {NAN}", "d = d", "d <> d",
    f"f = {FNAN}", f"f IN ({FNAN}, 1.5)", f"f <> {FNAN}", f"{NAN} = d",
    "d IN (1.5, 2.0, 3.0, 4.0)", "d NOT IN (1.5, 2.0, 3.0, 4.0)",
    "d BETWEEN -0.0 AND 0.0", "f BETWEEN -0.0 AND 0.0", "d BETWEEN -1 AND 0.0",
    "d >= -0.0", "d <= 0.0", "d > -0.0", "d < 0.0", "d = 0.0", "d = -0.0", "d = 0", "d <> 0.0",
    "d IN (0.0, 2.0)", "d IN (-0.0, 2.0)", "f = 0", "f = -0.0", "d >= 0 AND d <= 0",
    "d BETWEEN 0.0 AND 1.5", "d = CAST('-0.0' AS DOUBLE)", "d = -CAST(0 AS DOUBLE)",
    "d IN (0, 2)", "d > 1.5", "d < 1.5", "f > 1.5", "d IN (1.5, CAST('NaN' AS DOUBLE), 2.0)",
    "d NOT IN (0.0, 2.0)", "d <> -0.0", "0.0 <= d", "d > 0",
]
#: whole queries, each recorded with its row kinds
QUERIES = [
    "SELECT id, d FROM t WHERE d = 0", "SELECT id, d + 1 FROM t WHERE d = 0",
    "SELECT id, d FROM t WHERE d = -0.0", "SELECT id, f FROM t WHERE f = 0",
    "SELECT id, CAST(d AS STRING) FROM t WHERE d = 0", "SELECT id, d FROM t WHERE d IN (0.0)",
    "SELECT id, d FROM t WHERE d = 0 AND id > 0", "SELECT id, d FROM t WHERE d >= 0 AND d <= 0",
    "SELECT id, d FROM t WHERE d BETWEEN -0.0 AND 0.0", "SELECT id, d FROM t WHERE d IN (0.0, 2.0)",
    "SELECT d, COUNT(*) FROM t WHERE d = 0 GROUP BY d",
    "SELECT id, d, f FROM t WHERE d = 0 AND f = 0",
    "SELECT d, COUNT(*) FROM t GROUP BY d", "SELECT CAST(f AS DOUBLE) AS f, COUNT(*) FROM t GROUP BY f",
    "SELECT d, COUNT(*), SUM(d), MIN(id) FROM t WHERE d = 0 GROUP BY d",
    "SELECT SUM(d), COUNT(*) FROM t WHERE d = 0",
    "SELECT id, d FROM t WHERE d BETWEEN 0 AND 0", "SELECT id, d, d * 2 FROM t WHERE 0 = d",
    "SELECT DISTINCT d FROM t",
    "SELECT a.id, b.id FROM t a JOIN t b ON a.d = b.d",
    "SELECT a.id, b.id FROM t a JOIN t b ON a.d = b.d AND a.ts BETWEEN b.ts - INTERVAL '1' HOUR "
    "AND b.ts + INTERVAL '1' HOUR",
    "SELECT a.id, b.id FROM t a LEFT JOIN t b ON a.d = b.d AND a.id <> b.id",
    "SELECT a.id, b.id FROM t a JOIN t b ON a.d = b.d WHERE a.d = 0",
    "SELECT id, CAST(CAST(s AS FLOAT) AS DOUBLE) FROM t", "SELECT id, CAST(s AS DOUBLE) FROM t",
    "SELECT id, TRY_CAST(s AS DECIMAL(10, 2)) FROM t", "SELECT id, CAST(s AS DECIMAL(10, 2)) FROM t",
    "SELECT id, CAST(d AS DECIMAL(10, 2)) FROM t WHERE id = 3",
    "SELECT id, CAST(d AS DECIMAL(10, 2)) FROM t", "SELECT id, TRY_CAST(d AS DECIMAL(10, 2)) FROM t",
    "SELECT CAST('Infinity' AS FLOAT)", "SELECT CAST('NaN' AS FLOAT)", "SELECT CAST('-Infinity' AS FLOAT)",
    "SELECT CAST('Infinity' AS DOUBLE)", "SELECT CAST('NaN' AS DOUBLE)", "SELECT CAST('-Infinity' AS DOUBLE)",
    "SELECT CAST('NaN' AS DECIMAL(10, 2))", "SELECT TRY_CAST('NaN' AS DECIMAL(10, 2))",
    "SELECT TRY_CAST('Infinity' AS FLOAT)", "SELECT CAST(' NaN' AS FLOAT)",
    "SELECT CAST('1e40' AS FLOAT)",
    "SELECT CAST(CAST('NaN' AS DOUBLE) AS FLOAT)", "SELECT CAST('-0.0' AS FLOAT)",
    "SELECT TRY_CAST('NaN' AS DOUBLE)",
    "SELECT id FROM t WHERE d = CAST('Infinity' AS FLOAT)", "SELECT id FROM t WHERE d = CAST('NaN' AS FLOAT)",
    "SELECT id FROM t WHERE f = CAST('-Infinity' AS FLOAT)",
    "SELECT id, CASE WHEN d = CAST('NaN' AS DOUBLE) THEN 'y' ELSE 'n' END FROM t",
    "SELECT id, CASE d WHEN CAST('NaN' AS DOUBLE) THEN 'y' ELSE 'n' END FROM t",
]


def main() -> None:
    """Each condition as a filter and as a projection, and each query: Flink's answers to :data:`OUT`."""
    t = table_env(utc=True)
    file_table(t, "t", COLUMNS, RECORDS, Path(tempfile.mkdtemp()) / "t.json", "json")
    out = {"records": RECORDS, "columns": COLUMNS, "conditions": {}, "queries": {}}
    for cond in CONDITIONS:
        found = {}
        for kind, sql in (("where", f"SELECT id FROM t WHERE {cond}"),
                          ("select", f"SELECT id, {cond} AS b FROM t")):
            try:
                found[kind] = sorted(collect(t, sql), key=lambda r: r[0])
            except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
                found[kind] = {"error": error_text(e)}
        out["conditions"][cond] = found
        print(cond, found, flush=True)
    for q, a in answers(t, QUERIES).items():
        out["queries"][q] = a
        print(q, a, flush=True)
    OUT.write_text(json.dumps(out, indent=1, default=str) + "\n")  # a Decimal as its text


if __name__ == "__main__":
    main()
