"""Record the state signatures an older StreamSQL writes into checkpoints, for a set of stateful queries.

``tests/plan/test_signature_upgrades.py`` compares them with today's plans of the same SQL: a
checkpoint of that version must restore wherever its state still means the same, and be refused
with the reason where it does not (the signature changes of sessions 29-31: MIN/MAX without
retraction over an increasing argument, floating SUM and SUM/AVG(DISTINCT) accumulators, GROUP BY
calls nobody reads no longer computed).

Each query runs as an INSERT of every column it computes (``all``: nothing pruned) and, from
f3e00a5a on, also of its first two columns only (``first``: a GROUP BY computes only the calls read
since the fuzz31 merge). Run it with the StreamSQL to record first on the path (a clone at that
commit; this repository's venv will do)::

    git clone -q /work/main /tmp/s28 && git -C /tmp/s28 checkout -q 719b83c6   # before session 29
    git clone -q /work/main /tmp/s31 && git -C /tmp/s31 checkout -q f3e00a5a   # before the fuzz31 merge
    PYTHONPATH=/tmp/s28 .venv/bin/python scripts/state_signature_audit.py all
    PYTHONPATH=/tmp/s31 .venv/bin/python scripts/state_signature_audit.py all first

Writes ``tests/plan/signatures/<commit>.json``: the DDL, each query's INSERT per variant and the
signatures (by operator id) that version records for it, or its planning error.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "signatures"
DDL = [
    "CREATE TABLE t (k STRING, g INT, v INT, d DOUBLE, f FLOAT, s STRING, n DECIMAL(10, 2), ts TIMESTAMP(3), "
    "WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'datagen')",
    "CREATE TABLE u (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen')",
    "CREATE TABLE o (a STRING, b STRING) WITH ('connector' = 'blackhole')",
]
#: name -> (query, the number of its columns)
QUERIES = {
    "sum_count": ("SELECT k, COUNT(*), SUM(v), AVG(v), MIN(v), MAX(v) FROM t GROUP BY k", 6),
    "float_sum": ("SELECT k, SUM(d), AVG(d), SUM(f) FROM t GROUP BY k", 4),
    "float_minmax": ("SELECT k, MIN(d), MAX(f) FROM t GROUP BY k", 3),
    "distinct_int": ("SELECT k, SUM(DISTINCT v), AVG(DISTINCT v), COUNT(DISTINCT v) FROM t GROUP BY k", 4),
    "distinct_float": ("SELECT k, SUM(DISTINCT d), AVG(DISTINCT d) FROM t GROUP BY k", 3),
    "distinct_decimal": ("SELECT k, SUM(DISTINCT n), COUNT(*) FROM t GROUP BY k", 3),
    "strings": ("SELECT k, LISTAGG(s), MAX(s), FIRST_VALUE(s), LAST_VALUE(v) FROM t GROUP BY k", 5),
    "agg_of_agg": ("SELECT c, COUNT(*) FROM (SELECT k, COUNT(*) AS c FROM t GROUP BY k) GROUP BY c", 2),
    "minmax_retract": ("SELECT c, MIN(d), MAX(s) FROM (SELECT k, COUNT(*) AS c, MAX(d) AS d, MAX(s) AS s "
                       "FROM t GROUP BY k) GROUP BY c", 3),
    "tumble": ("SELECT k, window_start, COUNT(*), SUM(d), MAX(v) FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), "
               "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end", 5),
    "hop": ("SELECT k, window_start, SUM(v) FROM TABLE(HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, "
            "INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end", 3),
    "session": ("SELECT k, window_start, SUM(d), LISTAGG(s) FROM TABLE(SESSION(TABLE t PARTITION BY k, "
                "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end", 4),
    "legacy_tumble": ("SELECT k, TUMBLE_START(ts, INTERVAL '10' SECOND) AS ws, COUNT(*) AS c FROM t "
                      "GROUP BY k, TUMBLE(ts, INTERVAL '10' SECOND)", 3),
    "over": ("SELECT k, v, SUM(v) OVER w, MAX(d) OVER w FROM t WINDOW w AS (PARTITION BY k ORDER BY ts "
             "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)", 4),
    "over_range": ("SELECT k, v, SUM(d) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '5' SECOND "
                   "PRECEDING AND CURRENT ROW) FROM t", 3),
    "join": ("SELECT t.k, u.w FROM t JOIN u ON t.k = u.k", 2),
    "left_join": ("SELECT t.k, u.w FROM t LEFT JOIN u ON t.k = u.k AND t.v > u.w", 2),
    "interval_join": ("SELECT t.k, u.w FROM t JOIN u ON t.k = u.k "
                      "AND t.ts BETWEEN u.ts - INTERVAL '5' SECOND AND u.ts", 2),
    "semi": ("SELECT k, v FROM t WHERE k IN (SELECT k FROM u)", 2),
    "topn": ("SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn "
             "FROM t) WHERE rn <= 3", 2),
    "dedup": ("SELECT k, v FROM (SELECT k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts ASC) AS rn "
              "FROM t) WHERE rn = 1", 2),
    "distinct": ("SELECT DISTINCT k, s FROM t", 2),
    "window_topn": ("SELECT k, c FROM (SELECT k, window_start, COUNT(*) AS c, ROW_NUMBER() OVER "
                    "(PARTITION BY window_start ORDER BY COUNT(*) DESC) AS rn FROM TABLE(TUMBLE(TABLE t, "
                    "DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end) "
                    "WHERE rn <= 2", 2),
}


def insert(query: str, width: int, variant: str) -> str:
    """The INSERT of ``query`` into ``o``.

    Its first column, then the others (``all``) or the second (``first``) concatenated as text.
    """
    cols = [f"x{i}" for i in range(1, width + 1)]
    read = cols[1:] if variant == "all" else cols[1:2]
    rest = ", ".join(f"CAST({c} AS STRING)" for c in read)
    return (f"INSERT INTO o SELECT CAST(x1 AS STRING), CONCAT_WS('|', {rest}) FROM ({query}) "
            f"AS z({', '.join(cols)})")


def signatures(env, sql: str) -> dict:
    """The state signatures the running StreamSQL records for ``sql``, or its planning error."""
    from streamsql.plan.planner import Planner, assign_ids
    from streamsql.plan.state_signature import state_signatures
    from streamsql.sql.parser import parse_statement

    try:
        root = Planner(env.catalog, env.config).plan_insert(parse_statement(sql))
    except Exception as e:  # noqa: BLE001 - recorded: a query this version does not plan
        return {"error": f"{type(e).__name__}: {e}"}
    assign_ids([root])
    return state_signatures([root])


def main(variants: list[str]) -> int:
    """Record the running StreamSQL's signatures of every query in ``variants`` (``all``, ``first``)."""
    import streamsql
    from streamsql import StreamEnvironment

    clone = Path(streamsql.__file__).resolve().parent.parent
    commit = subprocess.run(["git", "-C", str(clone), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    env = StreamEnvironment()
    for statement in DDL:
        env.execute_sql(statement)
    recorded = {}
    for variant in variants:
        for name, (query, width) in QUERIES.items():
            sql = insert(query, width, variant)
            recorded[f"{name}/{variant}"] = {"sql": sql, "signatures": signatures(env, sql)}
    env.close()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{commit[:8]}.json"
    path.write_text(json.dumps({"written_by": commit, "ddl": DDL, "queries": recorded}, sort_keys=True,
                               default=str) + "\n")  # compact: a third smaller than indented
    print(f"{path}: {len(recorded)} queries")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["all"]))
