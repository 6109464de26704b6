"""Record Apache Flink 2.3's answers for watermark declarations on timestamps of precision > 3.

Writes ``tests/runtime/rowtime_precision_flink.json``: per scenario its DDL and query (a TUMBLE
window aggregate over the rowtime) and Flink's answer: ``"ok"`` when it plans the query, or its
error (messages, outermost first, joined by `` / ``). ``tests/runtime/test_rowtime_precision.py``
must refuse or accept the same. Run (holds the shared Flink lock)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_rowtime_precision.py
"""

from __future__ import annotations

import json
import sys

from flink_session import ROOT, error_text, table_env

OUT = ROOT / "tests" / "runtime" / "rowtime_precision_flink.json"
QUERY = ("SELECT window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '1' "
         "MINUTE)) GROUP BY window_start, window_end")
SCENARIOS = {
    "ts0": "ts TIMESTAMP(0), WATERMARK FOR ts AS ts",
    "ts3": "ts TIMESTAMP(3), WATERMARK FOR ts AS ts",
    "ts6": "ts TIMESTAMP(6), WATERMARK FOR ts AS ts",
    "ts9": "ts TIMESTAMP(9), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND",
    "ltz6": "ts TIMESTAMP_LTZ(6), WATERMARK FOR ts AS ts",
    "computed6": "s STRING, ts AS CAST(s AS TIMESTAMP(6)), WATERMARK FOR ts AS ts",
}


def main() -> int:
    """Create each scenario's table, plan :data:`QUERY` over it, write :data:`OUT`."""
    t = table_env(utc=True)
    out = {"query": QUERY, "scenarios": {}}
    for name, columns in SCENARIOS.items():
        record: dict = {"columns": columns}
        try:
            t.execute_sql(f"CREATE TABLE t ({columns}) WITH ('connector' = 'datagen')")
            t.explain_sql(QUERY)
            record["answer"] = "ok"
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            record["flink_error"] = error_text(e)
        t.execute_sql("DROP TABLE IF EXISTS t")
        out["scenarios"][name] = record
        print(name, record.get("answer") or record["flink_error"][-300:], flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
