r"""Record Flink 2.3's answers to SUM / AVG of a DECIMAL(38, 18) whose sum leaves 38 digits.

Query fuzz seeds 500093, 500142, 500158, 500165 (``tests/runtime/query_fuzz_v6.py``): a sum of
DECIMAL(38, 18) values past 10^20 failed StreamSQL's job (an internal error). Flink's DECIMAL plus is
NULL past the precision, and its SUM takes the next value as the sum again
(``SumWithRetractAggFunction``: NULL + v is v, NULL - v is -v); an AVG and an OVER SUM stay NULL.
Each query of :data:`QUERIES` runs over
``d`` (JSON lines, a rowtime) or ``cd`` (a debezium changelog) in streaming mode, one task, UTC; its
changelog is folded into the final rows and written to ``tests/functions/decimal_sum_overflow_flink.json``,
which ``tests/functions/test_decimal_sum_overflow.py`` replays. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_decimal_sum_overflow.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "runtime"))
import flink_queries as fq  # noqa: E402

OUT = ROOT / "tests" / "functions" / "decimal_sum_overflow_flink.json"
BIG = "99999999999999999999.999999999999999999"
HALF = "50000000000000000000.000000000000000000"
#: ``d``'s rows: group a overflows at its second row, group b reaches 10^20 exactly (one digit too many)
#: and comes back below it.
ROWS = [(1, "a", BIG, "00"), (2, "a", BIG, "01"), (3, "a", "1.5", "02"), (4, "a", "-" + BIG, "03"),
        (5, "a", "2", "09"), (6, "b", HALF, "10"), (7, "b", HALF, "10.5"), (8, "b", "-" + HALF, "11"),
        (9, "b", "1", "30")]
#: ``cd``'s changes: the sum overflows, then rows leave it (a retraction from a NULL sum is -v).
EVENTS = [("c", None, (1, "a", BIG)), ("c", None, (2, "a", BIG)), ("c", None, (3, "a", "1.5")),
          ("u", (3, "a", "1.5"), (3, "a", "2")), ("d", (1, "a", BIG), None), ("c", None, (4, "a", "-" + BIG)),
          ("c", None, (5, "b", HALF)), ("c", None, (6, "b", HALF)), ("d", (5, "b", HALF), None)]
DDL = [
    "CREATE TABLE d (id INT, g STRING, e DECIMAL(38, 18), ts TIMESTAMP(3), WATERMARK FOR ts AS ts - "
    "INTERVAL '1' SECOND) WITH ('connector' = 'filesystem', 'path' = '{d}', 'format' = 'json')",
    "CREATE TABLE cd (id INT, g STRING, e DECIMAL(38, 18)) WITH ('connector' = 'filesystem', "
    "'path' = '{cd}', 'format' = 'debezium-json')",
]
QUERIES = [
    "SELECT id, SUM(e) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
    "AS s FROM d",
    "SELECT id, SUM(e) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) AS s "
    "FROM d",
    "SELECT id, AVG(e) OVER (PARTITION BY g ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) "
    "AS s FROM d",
    "SELECT g, SUM(e) AS s, COUNT(*) AS n FROM d GROUP BY g",
    "SELECT g, AVG(e) AS a FROM d GROUP BY g",
    "SELECT g, SUM(e) AS s, COUNT(*) AS n FROM cd GROUP BY g",
    "SELECT g, AVG(e) AS a FROM cd GROUP BY g",
    "SELECT g, window_start, SUM(e) AS s FROM TABLE(SESSION(TABLE d PARTITION BY g, DESCRIPTOR(ts), "
    "INTERVAL '5' SECOND)) GROUP BY g, window_start, window_end",
    "SELECT g, window_start, SUM(e) AS s FROM TABLE(TUMBLE(TABLE d, DESCRIPTOR(ts), INTERVAL '20' SECOND)) "
    "GROUP BY g, window_start, window_end",
]


def files(folder: Path) -> dict[str, Path]:
    """``d``'s and ``cd``'s files in ``folder`` (DECIMALs as JSON numbers with their digits)."""
    def row(r):
        return "null" if r is None else f'{{"id": {r[0]}, "g": "{r[1]}", "e": {r[2]}}}'

    d, cd = folder / "d.json", folder / "cd.json"
    d.write_text("".join(f'{{"id": {i}, "g": "{g}", "e": {e}, "ts": "2024-01-01 00:00:{t.zfill(2)}"}}\n'
                         for i, g, e, t in ROWS))
    cd.write_text("".join(f'{{"before": {row(b)}, "after": {row(a)}, "op": "{op}"}}\n'
                          for op, b, a in EVENTS))
    return {"d": d, "cd": cd}


def main() -> None:
    """Run :data:`QUERIES` on Flink and write their answers to :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in fq.CONFIG.items():
        tenv.get_config().set(k, v)
    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = files(Path(tmp))
        for ddl in DDL:
            tenv.execute_sql(ddl.format(**paths))
        for q in QUERIES:
            try:
                with tenv.execute_sql(q).collect() as it:
                    changes = [(str(r.get_row_kind()), [fq.cell(v) for v in r]) for r in it]
                cases.append({"query": q, "rows": fq.fold(changes)})
            except Exception as e:  # noqa: BLE001 - a failed job is Flink's answer
                cases.append({"query": q, "error": str(e)[:2000]})
            print(cases[-1], flush=True)
    doc = {"generated_by": "scripts/flink_decimal_sum_overflow.py", "flink": "2.3.0", "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
