"""Record Apache Flink 2.3's ``EXPLAIN CHANGELOG_MODE``: the row kinds of each operator's output.

Writes ``tests/plan/explain_changelog_flink.json``: ``{"ddl": [...], "plans": {statement: text}}``,
Flink's whole EXPLAIN output per statement. ``tests/plan/test_explain_changelog.py`` explains the
same statements here and checks the section names and each operator's ``changelogMode=[...]``
against Flink's. Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_explain_changelog.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "explain_changelog_flink.json"
DDL = [
    "CREATE TABLE src (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '10')",
    "CREATE TABLE dim (k STRING, w INT) WITH ('connector' = 'datagen', 'number-of-rows' = '10')",
    "CREATE TABLE clicks (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '10')",
    "CREATE TABLE p_kv (k STRING, v INT) WITH ('connector' = 'print')",
    "CREATE TABLE p_kc (k STRING, c BIGINT) WITH ('connector' = 'print')",
    "CREATE TABLE bh_kc (k STRING, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'blackhole')",
    "CREATE TABLE p_cn (c BIGINT, n BIGINT) WITH ('connector' = 'print')",
    "CREATE TABLE p_kvr (k STRING, v INT, rn BIGINT) WITH ('connector' = 'print')",
    "CREATE TABLE p_kvt (k STRING, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'print')",
    "CREATE TABLE p_kvw (k STRING, v INT, w INT) WITH ('connector' = 'print')",
    "CREATE TABLE p_kwc (k STRING, ws TIMESTAMP(3), c BIGINT) WITH ('connector' = 'print')",
]
STATEMENTS = [
    # a GROUP BY into a print sink (which shows -U rows) and into a keyed sink (which does not)
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kc SELECT k, COUNT(*) FROM src GROUP BY k",
    "EXPLAIN CHANGELOG_MODE INSERT INTO bh_kc SELECT k, COUNT(*) FROM src GROUP BY k",
    # an aggregate over an updating aggregate: its groups can end (-D)
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_cn SELECT c, COUNT(*) FROM (SELECT k, COUNT(*) AS c FROM src "
    "GROUP BY k) GROUP BY c",
    # a filter over an updating aggregate
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kc SELECT k, c FROM (SELECT k, COUNT(*) AS c FROM src GROUP BY k) "
    "WHERE c < 10",
    # Top-N, deduplication keeping the last and the first row
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvr SELECT * FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k "
    "ORDER BY v DESC) AS rn FROM src) WHERE rn <= 2",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvt SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER ("
    "PARTITION BY k ORDER BY ts DESC) AS rn FROM src) WHERE rn = 1",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvt SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER ("
    "PARTITION BY k ORDER BY ts ASC) AS rn FROM src) WHERE rn = 1",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kv SELECT k, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
    "ORDER BY pt DESC) AS rn FROM clicks) WHERE rn = 1",
    # insert-only operators: a filter, a temporal sort, a window aggregate
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvt SELECT k, v, ts FROM src WHERE v > 1",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvt SELECT k, v, ts FROM src ORDER BY ts, v",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kwc SELECT k, window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE src, "
    "DESCRIPTOR(ts), INTERVAL '1' MINUTE)) GROUP BY k, window_start, window_end",
    # regular joins of insert-only inputs: inner, and left (its NULL-padded rows are retracted)
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvw SELECT src.k, v, w FROM src JOIN dim ON src.k = dim.k",
    "EXPLAIN CHANGELOG_MODE INSERT INTO p_kvw SELECT src.k, v, w FROM src LEFT JOIN dim ON src.k = dim.k",
    # a query without a sink, insert-only
    "EXPLAIN CHANGELOG_MODE SELECT k, v FROM src WHERE v > 1",
]


def main() -> int:
    """Explain :data:`STATEMENTS` on Flink and write :data:`OUT`."""
    from flink_session import explained

    OUT.write_text(json.dumps({"ddl": DDL, "plans": explained(DDL, STATEMENTS)}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
