r"""Record Flink 2.3's answers to the aggregate-pruning cases of ``tests/plan/test_agg_prune_flink.py``.

Each case is a query over ``cd``, a small debezium-json changelog (:data:`EVENTS`, written to a
temporary file), whose answer depends on which aggregate calls of an inner GROUP BY Flink's planner
keeps: an outer LISTAGG sees an inner key's ``-U``/``+U`` only when a call it reads changed. Flink runs
each query in streaming mode, one task, UTC; its changelog is folded into the final rows and written,
with the optimized plan's inner aggregate, to ``tests/plan/agg_prune_flink.json``. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_agg_prune.py
"""

from __future__ import annotations

import json
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "runtime"))
import flink_queries as fq  # noqa: E402

OUT = ROOT / "tests" / "plan" / "agg_prune_flink.json"
#: ``cd``'s changes: three inserts, then an update of row 3 that sets k to NULL (COUNT(k) and
#: SUM(k) of group a change, MAX(s) does not).
EVENTS = [
    {"before": None, "after": {"id": 1, "g": "a", "k": 1, "s": "x"}, "op": "c"},
    {"before": None, "after": {"id": 2, "g": "b", "k": 1, "s": "y"}, "op": "c"},
    {"before": None, "after": {"id": 3, "g": "a", "k": 1, "s": "w"}, "op": "c"},
    {"before": {"id": 3, "g": "a", "k": 1, "s": "w"}, "after": {"id": 3, "g": "a", "k": None, "s": "w"},
     "op": "u"},
]
DDL = ("CREATE TABLE cd (id INT, g STRING, k INT, s STRING) WITH ('connector' = 'filesystem', "
       "'path' = '{path}', 'format' = 'debezium-json')")
QUERIES = [
    # COUNT is never NULL: `a1 IS NULL` is FALSE, COUNT(k) is read by nothing and pruned
    "SELECT a1 IS NULL AS ok, LISTAGG(m0, ';') AS o0 FROM (SELECT g, COUNT(k) AS a1, MAX(s) AS m0 "
    "FROM cd GROUP BY g) GROUP BY a1 IS NULL",
    "SELECT LISTAGG(m0, ';') AS o0 FROM (SELECT g, COUNT(DISTINCT k) FILTER (WHERE k > 0) AS a1, "
    "MAX(s) AS m0 FROM cd GROUP BY g) WHERE a1 IS NOT NULL",
    "SELECT LISTAGG(m0, ';') AS o0 FROM (SELECT g, COUNT(*) AS n, COUNT(k) AS a1, MAX(s) AS m0 "
    "FROM cd GROUP BY g) WHERE a1 IS NOT NULL OR n IS NULL",
    # SUM may be NULL: `a1 IS NULL` reads it, its update moves a's value to the end
    "SELECT a1 IS NULL AS ok, LISTAGG(m0, ';') AS o0 FROM (SELECT g, SUM(k) AS a1, MAX(s) AS m0 "
    "FROM cd GROUP BY g) GROUP BY a1 IS NULL",
    # COUNT read otherwise than by IS NULL: kept
    "SELECT a1 + 1 IS NULL AS ok, LISTAGG(m0, ';') AS o0 FROM (SELECT g, COUNT(k) AS a1, MAX(s) AS m0 "
    "FROM cd GROUP BY g) GROUP BY a1 + 1 IS NULL",
]


def main() -> None:
    """Run :data:`QUERIES` on Flink and write their answers to :data:`OUT`."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    for k, v in fq.CONFIG.items():
        tenv.get_config().set(k, v)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cd.json"
        path.write_text("".join(json.dumps(e) + "\n" for e in EVENTS))
        tenv.execute_sql(DDL.format(path=path))
        cases = []
        for q in QUERIES:
            plan = tenv.sql_query(q).explain()
            optimized = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan")[0]
            inner = re.findall(r"GroupAggregate\(groupBy=\[g\].*?select=\[(.*?)\]\)", optimized)
            with tenv.execute_sql(q).collect() as it:
                changes = [(str(r.get_row_kind()), [fq.cell(v) for v in r]) for r in it]
            cases.append({"query": q, "inner_select": inner, "changes": [f"{k} {v}" for k, v in changes],
                          "rows": fq.fold(changes)})
            print(cases[-1], flush=True)
    doc = {"generated_by": "scripts/flink_agg_prune.py", "flink": "2.3.0", "ddl": DDL, "events": EVENTS,
           "cases": cases}
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
