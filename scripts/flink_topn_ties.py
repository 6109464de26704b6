"""Record Apache Flink 2.3's Top-N changelogs when one of tied rows is deleted from a retracting input.

A debezium changelog (table ``c``, one file read by one task, so in order) inserts rows tied on the
ORDER BY key and deletes one of them, the ranked one or another: Flink's ``RetractableTopNFunction``
removes, of the rows of that sort key, the first one equal to the retraction, and emits what the
ranked positions became, row by row. Writes ``tests/runtime/topn_ties_flink.json``: the events and,
per query of :data:`QUERIES`, the changelog Flink collected (``[kind, cell, ...]``, in order) or its
error, which ``tests/runtime/test_topn_ties.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_topn_ties.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, answers, file_table, table_env

OUT = ROOT / "tests" / "runtime" / "topn_ties_flink.json"
COLUMNS = "id INT, k INT, v INT"


def events() -> list[dict]:
    """Debezium events: ties inserted, then one deleted (the ranked one or another), per partition ``k``."""
    rows: dict[int, dict] = {}
    out = []

    def c(i, k, v):
        rows[i] = {"id": i, "k": k, "v": v}
        out.append({"before": None, "after": rows[i], "op": "c"})

    def d(i):
        out.append({"before": rows.pop(i), "after": None, "op": "d"})

    def u(i, v):
        new = {**rows[i], "v": v}
        out.append({"before": rows[i], "after": new, "op": "u"})
        rows[i] = new

    c(1, 1, 5), c(2, 1, 5), d(2)  # the tied row ranked second deleted
    c(3, 1, 5), d(1)  # the tied row ranked first deleted
    c(4, 1, 7), d(4)  # a leader come and gone
    c(5, 1, 5), u(3, 5)  # an update to the same value
    c(10, 2, 3), c(11, 2, 3), c(12, 2, 3), d(11), d(10)
    return out


_RANKED = "SELECT id, k, v, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn FROM c"
QUERIES = [f"SELECT {cols} FROM ({_RANKED}) WHERE rn <= {n}"
           for n in (1, 2) for cols in ("k, v", "id, k, v", "k, v, rn", "id, k, v, rn")]


def main() -> int:
    """Run :data:`QUERIES` over :func:`events`, write :data:`OUT`."""
    t = table_env(utc=True)
    data = events()
    out: dict = {"columns": COLUMNS, "events": data, "queries": {}}
    with tempfile.TemporaryDirectory() as tmp:
        file_table(t, "c", COLUMNS, data, Path(tmp) / "c.json", "debezium-json")
        out["queries"] = answers(t, QUERIES)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
