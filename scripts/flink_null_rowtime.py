"""Record what Flink 2.3 does with a NULL rowtime in each operator that consumes one.

Writes ``tests/runtime/null_rowtime_flink.json``: ``{query name: {"sql", "rows" | "error"}}``, the
oracle of ``tests/runtime/test_null_rowtime.py``. ``ev`` holds one row whose rowtime (the column
its WATERMARK is declared on) is NULL, ``ev2`` and ``ver`` have none::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_null_rowtime.py

Findings (PyFlink 2.3.0, filesystem json sources, 2026-12-05, all 18 queries): every one fails
with ``RowTime field should not be null, please convert it to a non-null long value.``, the plain
``SELECT k, v, ts FROM ev`` too: Flink's ``WatermarkAssignerOperator`` (the watermark of a source
without push-down) throws on the row before any operator sees it.

Behind a source with watermark push-down (Kafka) the row goes on; there, from the bytecode of
``flink-table-runtime-2.3.0.jar`` (not run here): the TUMBLE/HOP/CUMULATE window aggregate
(``SliceAssigners.AbstractSliceAssigner``) throws the same message; the SESSION one
(``UnsliceAssigners.SessionUnsliceAssigner``) throws ``rowtimeIndex should not be null, please
convert it to a non-null long value.``; the window TVF without aggregation
(``AlignedWindowTableFunctionOperator`` / ``UnalignedWindowTableFunctionOperator``) drops the row
and counts it in ``numNullRowTimeRecordsDropped``; the interval and temporal joins, OVER and
the temporal sort have no NULL check of their own (not established what they do).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, error_text, table_env

OUT = ROOT / "tests" / "runtime" / "null_rowtime_flink.json"
ROWS = [{"k": "a", "v": 1, "ts": "2024-05-01 00:00:00"}, {"k": "b", "v": 2, "ts": None},
        {"k": "a", "v": 3, "ts": "2024-05-01 00:01:30"}]
ROWS2 = [{"k": "a", "v": 10, "ts": "2024-05-01 00:00:10"}, {"k": "b", "v": 20, "ts": "2024-05-01 00:00:20"},
         {"k": "a", "v": 30, "ts": "2024-05-01 00:01:40"}]
DDL = ("CREATE TABLE {name} (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
VERSIONED = ("CREATE VIEW ver AS SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY ts DESC) AS rn FROM ev2) WHERE rn = 1")
W = "TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
QUERIES = {
    "scan": "SELECT k, v, ts FROM ev",
    "tumble_aggregate": f"SELECT window_start, k, COUNT(*) FROM {W} GROUP BY window_start, window_end, k",
    "hop_aggregate": "SELECT window_start, COUNT(*) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(ts), "
                     "INTERVAL '30' SECOND, INTERVAL '1' MINUTE)) GROUP BY window_start, window_end",
    "cumulate_aggregate": "SELECT window_start, window_end, COUNT(*) FROM TABLE(CUMULATE(TABLE ev, "
                          "DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE)) "
                          "GROUP BY window_start, window_end",
    "session_aggregate": "SELECT window_start, COUNT(*) FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), "
                         "INTERVAL '10' SECOND)) GROUP BY window_start, window_end",
    "tumble_select": f"SELECT k, window_start FROM {W}",
    "window_topn": f"SELECT k, v, window_start FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                   f"window_start, window_end ORDER BY v DESC) AS rn FROM {W}) WHERE rn <= 1",
    "window_dedup": f"SELECT k, v, window_start FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                    f"window_start, window_end, k ORDER BY ts) AS rn FROM {W}) WHERE rn = 1",
    "window_join": f"SELECT l.k, l.v, r.v FROM (SELECT * FROM {W}) l JOIN (SELECT * FROM "
                   "TABLE(TUMBLE(TABLE ev2, DESCRIPTOR(ts), INTERVAL '1' MINUTE))) r "
                   "ON l.k = r.k AND l.window_start = r.window_start AND l.window_end = r.window_end",
    "legacy_group_window": "SELECT k, TUMBLE_START(ts, INTERVAL '1' MINUTE), COUNT(*) FROM ev "
                           "GROUP BY k, TUMBLE(ts, INTERVAL '1' MINUTE)",
    "interval_join": "SELECT l.k, l.v, r.v FROM ev l JOIN ev2 r ON l.k = r.k AND "
                     "l.ts BETWEEN r.ts - INTERVAL '1' MINUTE AND r.ts + INTERVAL '1' MINUTE",
    "interval_left_join": "SELECT l.k, l.v, r.v FROM ev l LEFT JOIN ev2 r ON l.k = r.k AND "
                          "l.ts BETWEEN r.ts - INTERVAL '1' MINUTE AND r.ts + INTERVAL '1' MINUTE",
    "temporal_join": "SELECT l.k, l.v, r.v FROM ev l JOIN ver FOR SYSTEM_TIME AS OF l.ts AS r ON l.k = r.k",
    "over_range": "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts RANGE BETWEEN "
                  "INTERVAL '1' MINUTE PRECEDING AND CURRENT ROW) FROM ev",
    "over_rows": "SELECT k, v, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 PRECEDING "
                 "AND CURRENT ROW) FROM ev",
    "over_unbounded": "SELECT k, v, COUNT(*) OVER (ORDER BY ts) FROM ev",
    "temporal_sort": "SELECT k, v FROM ev ORDER BY ts",
    "match_recognize": "SELECT * FROM ev MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES "
                       "A.v AS av ONE ROW PER MATCH PATTERN (A) DEFINE A AS A.v > 0)",
}


def main() -> None:
    """Run each query of :data:`QUERIES` and write its rows or Flink's error into :data:`OUT`."""
    folder = Path(tempfile.mkdtemp())
    for name, rows in (("ev", ROWS), ("ev2", ROWS2)):
        (folder / f"{name}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    found = {}
    for name, sql in QUERIES.items():
        t = table_env(utc=True)
        for table in ("ev", "ev2"):
            t.execute_sql(DDL.format(name=table, path=folder / f"{table}.json"))
        t.execute_sql(VERSIONED)
        try:
            found[name] = {"sql": sql, "rows": sorted(map(str, collect(t, sql)))}
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            text = error_text(e)
            cut = text.find("RowTime field should not be null")
            found[name] = {"sql": sql, "error": text[cut:cut + 200] if cut >= 0 else text[-400:]}
        print(name, found[name].get("rows", found[name].get("error")), flush=True)
    OUT.write_text(json.dumps({"rows": {"ev": ROWS, "ev2": ROWS2}, "queries": found}, indent=1) + "\n")


if __name__ == "__main__":
    main()
