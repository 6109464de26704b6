"""Record Apache Flink 2.3's EXPLAIN of aggregate statements: the names it gives keys and aggregates.

Writes ``tests/plan/explain_names_flink.json``: ``{"ddl": [...], "plans": {statement: text}}``,
Flink's whole EXPLAIN output per statement. ``tests/plan/test_explain_names.py`` explains the
same statements here and checks the names ours shows (``k``, ``EXPR$1``, ``$f2``, ``w0$o0``...)
against Flink's (:mod:`streamsql.plan.display_names`). Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_explain_names.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "explain_names_flink.json"
DDL = [
    "CREATE TABLE src (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '10')",
    "CREATE TABLE out1 (k STRING, c BIGINT, s INT) WITH ('connector' = 'print')",
    "CREATE TABLE out2 (k STRING, ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print')",
    "CREATE TABLE out3 (k STRING, v INT, c BIGINT) WITH ('connector' = 'print')",
]
STATEMENTS = [
    "EXPLAIN INSERT INTO out1 SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k",
    "EXPLAIN SELECT k, COUNT(*) AS c, MAX(v) + 1 FROM src GROUP BY k",
    "EXPLAIN INSERT INTO out2 SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), "
    "INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end",
    "EXPLAIN INSERT INTO out3 SELECT k, v, COUNT(*) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 2 "
    "PRECEDING AND CURRENT ROW) FROM src",
    "EXPLAIN SELECT UPPER(k), COUNT(DISTINCT v) FROM src GROUP BY UPPER(k)",
    "EXPLAIN SELECT k, SUM(v * 2) FROM src GROUP BY k HAVING COUNT(*) > 1",
    # calls of one argument read one column of the Calc (the flights example repeated it), in a
    # window too; DISTINCT calls as well; a ROLLUP's call of a key reads a column of its own,
    "EXPLAIN SELECT k, COUNT(*), AVG(v), MAX(v), MIN(v * 2), SUM(v * 2) FROM src GROUP BY k",
    "EXPLAIN SELECT k, window_start, AVG(v), MAX(v), MIN(v) FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), "
    "INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end",
    "EXPLAIN SELECT k, COUNT(DISTINCT v), SUM(v), MAX(DISTINCT v) FROM src GROUP BY k",
    "EXPLAIN SELECT k, v, COUNT(*), AVG(v), MAX(v), MAX(k) FROM src GROUP BY ROLLUP (k, v)",
    # without grouping sets a call of a key reads the key's column
    "EXPLAIN SELECT k, MAX(k), COUNT(DISTINCT k), AVG(v) FROM src GROUP BY k",
    "EXPLAIN SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM src) "
    "WHERE rn <= 2",
    "EXPLAIN SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY UPPER(k) ORDER BY v + 1 DESC) AS rn "
    "FROM src) WHERE rn <= 2",
    "EXPLAIN SELECT * FROM src MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS av, LAST(B.v) + 1 "
    "AS bv ONE ROW PER MATCH PATTERN (A B) DEFINE A AS A.v > 1, B AS B.v < 1)",
]


def main() -> int:
    """Explain :data:`STATEMENTS` on Flink and write :data:`OUT`."""
    from flink_session import explained

    OUT.write_text(json.dumps({"ddl": DDL, "plans": explained(DDL, STATEMENTS)}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
