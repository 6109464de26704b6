"""Record how Apache Flink 2.3 keys DOUBLE values: -0.0 apart from 0.0, every NaN one key.

Flink's keyed operators (GROUP BY, DISTINCT, a regular join's key, a PARTITION BY, set operations,
window GROUP BY keys, IN/EXISTS subqueries) key a row by its
key's binary form, so ``-0.0`` and ``0.0`` are two keys while SQL's ``=`` takes them for equal, and
NaN is one key while ``=`` takes no NaN for equal. Writes ``tests/state/float_keys_flink.json``:
per query its rows as Flink collected them (``[kind, cell, ...]``), which
``tests/state/test_float_keys.py`` folds and compares with StreamSQL's::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_float_keys.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, table_env

OUT = ROOT / "tests" / "state" / "float_keys_flink.json"
ROWS = [{"id": i, "d": d, "ts": f"2024-01-01 00:00:0{i}"}
        for i, d in enumerate([0.0, -0.0, "NaN", None, "NaN"], 1)]
#: The tables over :data:`ROWS`: ``l`` and ``r`` plain, ``w`` with an event time (for windows).
TABLES = {"l": "id INT, d DOUBLE", "r": "id INT, d DOUBLE",
          "w": "id INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts"}
# A DOUBLE key is shown as a string: Python's -0.0 == 0.0 would merge the rows the test compares.
QUERIES = ["SELECT CAST(d AS STRING), COUNT(*) FROM l GROUP BY d",
           "SELECT COUNT(DISTINCT d) FROM l",
           "SELECT l.id, r.id FROM l JOIN r ON l.d = r.d",
           "SELECT l.id, r.id FROM l JOIN r ON l.d IS NOT DISTINCT FROM r.d",
           "SELECT CAST(d AS STRING) FROM (SELECT DISTINCT d FROM l)",
           "SELECT CAST(d AS STRING) FROM (SELECT d FROM l UNION SELECT d FROM r)",
           "SELECT CAST(d AS STRING) FROM (SELECT d FROM l WHERE id <> 2 INTERSECT "
           "SELECT d FROM r WHERE id <> 1)",
           "SELECT CAST(d AS STRING) FROM (SELECT d FROM l WHERE id <> 2 EXCEPT "
           "SELECT d FROM r WHERE id <> 1)",
           "SELECT id, CAST(d AS STRING) FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY d ORDER BY id) "
           "AS rn FROM l) WHERE rn = 1",
           "SELECT id, CAST(d AS STRING) FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY d ORDER BY ts) "
           "AS rn FROM w) WHERE rn = 1",
           "SELECT CAST(d AS STRING), COUNT(*), SUM(id) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), "
           "INTERVAL '1' HOUR)) GROUP BY d, window_start, window_end",
           "SELECT CAST(d AS STRING), COUNT(*) FROM w GROUP BY d, TUMBLE(ts, INTERVAL '1' HOUR)",
           "SELECT CAST(d AS STRING), COUNT(*) FROM w GROUP BY d, SESSION(ts, INTERVAL '1' HOUR)",
           "SELECT CAST(d AS STRING), COUNT(DISTINCT d), MAX(id) FROM l GROUP BY CAST(d AS STRING)",
           "SELECT CAST(d AS STRING), COUNT(*) FROM (SELECT CAST(d AS FLOAT) AS d FROM l) GROUP BY d",
           "SELECT id, CAST(d AS STRING) FROM l WHERE d IN (SELECT d FROM r WHERE id <> 1)",
           "SELECT id, CAST(d AS STRING) FROM l WHERE NOT EXISTS (SELECT 1 FROM r WHERE r.d = l.d "
           "AND r.id <> 1)",
           "SELECT COUNT(DISTINCT d) FROM TABLE(TUMBLE(TABLE w, DESCRIPTOR(ts), INTERVAL '1' HOUR)) "
           "GROUP BY window_start, window_end",
           "SELECT COUNT(DISTINCT d) FROM w GROUP BY SESSION(ts, INTERVAL '1' HOUR)"]


def main() -> int:
    """Run :data:`QUERIES` over :data:`ROWS` (as tables ``l`` and ``r``), write :data:`OUT`."""
    t = table_env()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        for name, columns in TABLES.items():
            t.execute_sql(f"CREATE TABLE {name} ({columns}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = 'json')")
        out = {"rows": ROWS, "tables": TABLES, "queries": {q: collect(t, q, kinds=True) for q in QUERIES}}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
