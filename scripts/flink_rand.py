"""Record Apache Flink 2.3's seeded RAND(seed) and RAND_INTEGER(seed, bound), row by row.

Flink's code generator (``RandCallGen``) gives a call with a literal seed one ``java.util.Random``
per call site, created with the seed when the operator opens and advanced by each row the call is
evaluated on; a seed that is not a literal makes a ``new java.util.Random(seed)`` per row (its
first value). Each query runs at parallelism 1 (one task: one Random per call site); the rows
(``[kind, cell, ...]``) or Flink's error go to ``tests/functions/flink_rand.json``, which
``tests/functions/test_java_random.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_rand.py
"""

from __future__ import annotations

import json

from flink_session import ROOT, collect, error_text, table_env

OUT = ROOT / "tests" / "functions" / "flink_rand.json"
SIX = "(VALUES (1), (2), (3), (4), (5), (6)) AS t(x)"
SETUP = ["CREATE TABLE g (x INT) WITH ('connector' = 'datagen', 'number-of-rows' = '3000', "
         "'fields.x.kind' = 'sequence', 'fields.x.start' = '1', 'fields.x.end' = '3000')"]
QUERIES = [
    f"SELECT x, RAND(42), RAND_INTEGER(42, 10), RAND(42), RAND_INTEGER(-7, 1500000000) FROM {SIX}",
    f"SELECT x, RAND(x), RAND_INTEGER(x, 100), RAND_INTEGER(-x, 1500000000) FROM {SIX}",
    # NULLIF, not a NULL in VALUES: Calcite makes a VALUES row that is not all literals a UNION branch
    # of its own, each with its own Calc (and Random)
    "SELECT x, RAND_INTEGER(42, NULLIF(b, 0)) FROM (VALUES (1, 10), (2, 0), (3, 1500000000), "
    "(4, 16), (5, 7)) AS t(x, b)",
    f"SELECT x, RAND(42) FROM {SIX} WHERE x > 3",
    f"SELECT x FROM {SIX} WHERE RAND(42) < 0.5",
    f"SELECT x, CASE WHEN x > 3 THEN RAND(42) END FROM {SIX}",
    f"SELECT x, RAND(CAST(NULL AS INT)) IS NULL, RAND(-1), RAND_INTEGER(42, CAST(NULL AS INT)) FROM {SIX}",
    f"SELECT x, RAND(CAST(12345678901 AS BIGINT)) FROM {SIX}",
    f"SELECT x, RAND_INTEGER(42, CAST(10 AS BIGINT)) FROM {SIX}",
    f"SELECT x, RAND_INTEGER(42, 0) FROM {SIX}",
    f"SELECT x, RAND_INTEGER(42, x - 3) FROM {SIX}",
    "SELECT x, r, i FROM (SELECT x, RAND(42) AS r, RAND_INTEGER(42, 1500000000) AS i FROM g) "
    "WHERE MOD(x, 250) = 0",
    "SELECT x, RAND_INTEGER(42, 1500000000), RAND(3) FROM g WHERE RAND(7) < 0.01",
    f"SELECT SUM(RAND_INTEGER(42, 10)) FROM {SIX}",
    "SELECT x, RAND_INTEGER(42, 10) FROM (VALUES (1), (2), (3)) AS t(x) UNION ALL "
    "SELECT x, RAND_INTEGER(42, 10) FROM (VALUES (4), (5)) AS t(x)",
    "SELECT * FROM (VALUES (RAND_INTEGER(42, 10)), (RAND_INTEGER(42, 10))) AS t(x)",
]


def main() -> None:
    """Run every query of :data:`QUERIES` on Flink and write :data:`OUT`."""
    t = table_env(utc=True)
    for s in SETUP:
        t.execute_sql(s)
    out = []
    for q in QUERIES:
        try:
            out.append({"query": q, "rows": collect(t, q, kinds=True)})
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer recorded
            out.append({"query": q, "error": error_text(e)})
        print(json.dumps(out[-1])[:300])
    OUT.write_text(json.dumps({"setup": SETUP, "queries": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
