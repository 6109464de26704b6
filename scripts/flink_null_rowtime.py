"""Record what Flink 2.3 does with a NULL rowtime in each operator that consumes one.

Writes ``tests/runtime/null_rowtime_flink.json``: ``{query name: {"sql", "rows" | "error"}}``, the
oracle of ``tests/runtime/test_null_rowtime.py``. ``ev`` holds one row whose rowtime (the column
its WATERMARK is declared on) is NULL, ``ev2`` and ``ver`` have none::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_null_rowtime.py          # filesystem
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_null_rowtime.py --kafka  # "kafka"

Findings (PyFlink 2.3.0, filesystem json sources, 2026-12-05, all 18 queries): every one fails
with ``RowTime field should not be null, please convert it to a non-null long value.``, the plain
``SELECT k, v, ts FROM ev`` too: Flink's ``WatermarkAssignerOperator`` (the watermark of a source
without push-down) throws on the row before any operator sees it.

Behind Kafka tables (``--kafka``: the watermark is pushed into the source, which ignores a NULL
watermark value; key ``kafka``): the scan passes the row; TUMBLE/HOP/CUMULATE aggregates fail
(``SliceAssigners``, same message); SESSION fails with ``rowtimeIndex should not be null, please
convert it to a non-null long value.``; the plain TVF drops the row (metric
``numNullRowTimeRecordsDropped``), so window Top-N, deduplication and join over it miss it; the
legacy ``GROUP BY TUMBLE`` reads it as 1970-01-01 00:00 (a window of its own); interval and
temporal joins do not join it (LEFT interval join: padded); bounded OVER frames drop it; an
unbounded OVER frame, ORDER BY ts and MATCH_RECOGNIZE keep it (read as 0).
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import uuid
from pathlib import Path

from flink_session import ROOT, collect, error_text, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "runtime" / "null_rowtime_flink.json"
ROWS = [{"k": "a", "v": 1, "ts": "2024-05-01 00:00:00"}, {"k": "b", "v": 2, "ts": None},
        {"k": "a", "v": 3, "ts": "2024-05-01 00:01:30"}]
ROWS2 = [{"k": "a", "v": 10, "ts": "2024-05-01 00:00:10"}, {"k": "b", "v": 20, "ts": "2024-05-01 00:00:20"},
         {"k": "a", "v": 30, "ts": "2024-05-01 00:01:40"}]
DDL = ("CREATE TABLE {name} (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
KAFKA_DDL = DDL[:DDL.index("WITH")] + (
    "WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
    "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')")
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


def run(ddl: list[str]) -> dict:
    """Each query of :data:`QUERIES` after ``ddl``: ``{name: {"sql", "rows" | "error"}}``."""
    found = {}
    for name, sql in QUERIES.items():
        t = table_env(*([kafka_jar()] if "'kafka'" in ddl[0] else []), utc=True)
        for d in ddl:
            t.execute_sql(d)
        try:
            found[name] = {"sql": sql, "rows": sorted(map(str, collect(t, sql)))}
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            text = error_text(e)
            cut = text.find("should not be null")
            found[name] = {"sql": sql, "error": text[max(cut - 40, 0):cut + 200] if cut >= 0 else text[-400:]}
        print(name, found[name].get("rows", found[name].get("error")), flush=True)
    return found


def main() -> None:
    """Run :data:`QUERIES` over filesystem tables (and, with ``--kafka``, Kafka ones); write :data:`OUT`."""
    folder = Path(tempfile.mkdtemp())
    for name, rows in (("ev", ROWS), ("ev2", ROWS2)):
        (folder / f"{name}.json").write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = json.loads(OUT.read_text()) if OUT.exists() else {}
    out["rows"] = {"ev": ROWS, "ev2": ROWS2}
    if "--kafka" in sys.argv:
        bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
        ddl = []
        for name, rows in (("ev", ROWS), ("ev2", ROWS2)):
            topic = f"flink-null-rowtime-{name}-{uuid.uuid4().hex[:8]}"
            produce_json(bootstrap, topic, [[r, []] for r in rows])
            ddl.append(KAFKA_DDL.format(name=name, topic=topic, bootstrap=bootstrap))
        out["kafka"] = run(ddl + [VERSIONED])
    else:
        tables = [DDL.format(name=t, path=folder / f"{t}.json") for t in ("ev", "ev2")]
        out["queries"] = run([*tables, VERSIONED])
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
