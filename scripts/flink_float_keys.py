"""Record how Apache Flink 2.3 keys DOUBLE values: -0.0 apart from 0.0, every NaN one key.

Flink's keyed operators (GROUP BY, DISTINCT, a regular join's key, a PARTITION BY) key a row by its
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
ROWS = [{"id": 1, "d": 0.0}, {"id": 2, "d": -0.0}, {"id": 3, "d": "NaN"}, {"id": 4, "d": None},
        {"id": 5, "d": "NaN"}]
QUERIES = ["SELECT CAST(d AS STRING), COUNT(*) FROM l GROUP BY d",
           "SELECT COUNT(DISTINCT d) FROM l",
           "SELECT l.id, r.id FROM l JOIN r ON l.d = r.d",
           "SELECT l.id, r.id FROM l JOIN r ON l.d IS NOT DISTINCT FROM r.d"]


def main() -> int:
    """Run :data:`QUERIES` over :data:`ROWS` (as tables ``l`` and ``r``), write :data:`OUT`."""
    t = table_env()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "rows.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
        for name in ("l", "r"):
            t.execute_sql(f"CREATE TABLE {name} (id INT, d DOUBLE) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = 'json')")
        out = {"rows": ROWS, "queries": {q: collect(t, q, kinds=True) for q in QUERIES}}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
