"""Record where Apache Flink 2.3 pushes a LIMIT into the scan, and what the pushed queries return.

Writes ``tests/plan/limit_pushdown_flink.json``: ``{"ddl": [...], "cases": {query: {"scan_limit":
n or null, "plan": text, "rows": [[...], ...] or null}}}``. ``scan_limit`` is the ``limit=[n]``
Flink's optimized plan shows in the ``TableSourceScan`` (its ``SupportsLimitPushDown``), null
when the limit stays above the scan; ``rows`` are the rows of a query whose limit was pushed,
run to its end (the job over an unbounded datagen table ends there; one whose limit is not
pushed runs until cancelled, so it is not run). Only deterministic columns are selected in a
run (sequences and expressions of them; datagen's random values are Flink's own).
``tests/plan/test_limit_pushdown.py`` explains and runs the same queries here. Run it through
the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_limit_pushdown.py
"""

from __future__ import annotations

import json
import re
import sys

from flink_session import ROOT, collect, kafka_jar, table_env

OUT = ROOT / "tests" / "plan" / "limit_pushdown_flink.json"
GEN = ("'connector' = 'datagen', 'rows-per-second' = '50', 'fields.id.kind' = 'sequence', "
       "'fields.id.start' = '1', 'fields.id.end' = '1000000'")
DDL = [
    f"CREATE TABLE g (id INT, v INT) WITH ({GEN})",
    f"CREATE TABLE c (id INT, v INT, x AS id * 2) WITH ({GEN})",
    f"CREATE TABLE w (id INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ({GEN})",
    "CREATE TABLE k (id INT, v INT) WITH ('connector' = 'kafka', 'topic' = 'limit_pushdown', "
    "'properties.bootstrap.servers' = '127.0.0.1:9092', 'format' = 'json', "
    "'scan.startup.mode' = 'earliest-offset')",
    "CREATE VIEW gv AS SELECT id, v FROM g",
]
#: The queries; those whose limit Flink pushes are run too, but for `SELECT *` (random `v`).
QUERIES = [
    "SELECT * FROM g LIMIT 3",
    "SELECT id FROM g LIMIT 3",
    "SELECT id FROM g LIMIT 3 OFFSET 2",
    "SELECT id FROM g OFFSET 1 ROWS FETCH NEXT 2 ROWS ONLY",
    "SELECT id + 1 AS y FROM g LIMIT 4",
    "SELECT id, x FROM c LIMIT 3",
    "SELECT id FROM gv LIMIT 2",
    "SELECT id FROM (SELECT id FROM g LIMIT 5) LIMIT 3",
    "SELECT id FROM (SELECT id, v FROM g LIMIT 4) WHERE id > 2",
    "SELECT id FROM g WHERE v > 0 LIMIT 3",
    "SELECT id FROM (SELECT id FROM g WHERE id > 0) LIMIT 3",
    "SELECT id FROM w LIMIT 3",
    "SELECT id FROM g ORDER BY id LIMIT 3",
    "SELECT id FROM k LIMIT 3",
]
SCAN_LIMIT = re.compile(r"TableSourceScan\(table=\[\[[^\]]*, limit=\[(\d+)\]\]\]")


def main() -> int:
    """Explain (and run, when pushed) :data:`QUERIES` on Flink; write :data:`OUT`."""
    t = table_env(kafka_jar(), utc=True)
    for d in DDL:
        t.execute_sql(d)
    cases = {}
    for q in QUERIES:
        plan = t.explain_sql(q).split("== Optimized Physical Plan ==")[1]
        plan = plan.split("== Optimized Execution Plan ==")[0]
        found = SCAN_LIMIT.search(plan)
        scan_limit = int(found.group(1)) if found else None
        rows = collect(t, q) if scan_limit is not None and not q.startswith("SELECT *") else None
        cases[q] = {"scan_limit": scan_limit, "plan": plan.strip(), "rows": rows}
        print(q, scan_limit, rows, file=sys.stderr)
    OUT.write_text(json.dumps({"ddl": DDL, "cases": cases}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
