"""Record what Flink 2.3 does with a NULL rowtime in each operator that consumes one.

Writes ``tests/runtime/null_rowtime_flink.json``: ``{query name: {"sql", "rows" | "error"}}``, the
oracle of ``tests/runtime/test_null_rowtime.py``. ``ev`` holds one row whose rowtime (the column
its WATERMARK is declared on) is NULL, ``ev2`` and ``ver`` have none; ``evl`` (Kafka only) has
its NULL after rows of 2024, with a watermark after every row::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_null_rowtime.py          # filesystem
    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_null_rowtime.py --kafka  # "kafka*"

(``--kafka`` writes the records with this project's venv: ``CLIENT_PYTHON`` names it when the
script runs from a worktree without one.)

Findings (PyFlink 2.3.0, filesystem json sources, 2026-12-05, all 18 queries): every one fails
with ``RowTime field should not be null, please convert it to a non-null long value.``, the plain
``SELECT k, v, ts FROM ev`` too: Flink's ``WatermarkAssignerOperator`` (the watermark of a source
without push-down) throws on the row before any operator sees it.

Behind Kafka tables (``--kafka``: the watermark is pushed into the source, which ignores a NULL
watermark value; key ``kafka``): the scan passes the row; TUMBLE/HOP/CUMULATE aggregates fail
(``SliceAssigners``, same message); SESSION fails with ``rowtimeIndex should not be null, please
convert it to a non-null long value.``; the plain TVF drops the row (metric
``numNullRowTimeRecordsDropped``), so window Top-N, deduplication and join over it miss it.
Every other operator reads the NULL as 0, 1970-01-01 00:00:00 (2026-12-06, 16 more queries): the
legacy ``GROUP BY TUMBLE/HOP/SESSION`` make 1970 windows (``TUMBLE_START`` 1970-01-01 00:00,
``_END`` 00:01, ``_ROWTIME`` 00:00:59.999; HOP's two windows from 1969-12-31 23:59:30; a session
[00:00, 00:10)); an unbounded OVER frame (ROWS or RANGE), ORDER BY ts, MATCH_RECOGNIZE and the
row-time deduplication (first or last row, the NULL alone in its key) take it first; a bounded
OVER frame drops it (0 is not after its key's last rowtime, 0 at first); the interval join finds
nothing near 1970 (LEFT: padded) but another NULL (``interval_self_join``); the temporal join
joins a probe row to no version of 2024 (LEFT: padded), and a version with a NULL rowtime is its
key's version from 1970 on (``temporal_join_null_version``, ``temporal_self_join`` join it). The
rowtime column keeps its NULL in every output; ``MATCH_ROWTIME()`` of the row is 1970-01-01.

A NULL that comes after the watermark passed 2024 (``kafka_late``, ``evl`` with
``'scan.watermark.emit.strategy' = 'on-event'``) is late wherever Flink has a late rule: the OVER
frames, ORDER BY, MATCH_RECOGNIZE, the legacy windows and the row-time deduplication drop it
(``numLateRecordsDropped``); the LEFT interval and temporal joins still emit it padded; the plain
TVF drops it as NULL.
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
LATE_ROWS = [{"k": "a", "v": 1, "ts": "2024-05-01 00:00:00"}, {"k": "a", "v": 3, "ts": "2024-05-01 00:01:30"},
             {"k": "b", "v": 2, "ts": None}, {"k": "a", "v": 4, "ts": "2024-05-01 00:01:40"}]
ROWS2 = [{"k": "a", "v": 10, "ts": "2024-05-01 00:00:10"}, {"k": "b", "v": 20, "ts": "2024-05-01 00:00:20"},
         {"k": "a", "v": 30, "ts": "2024-05-01 00:01:40"}]
DDL = ("CREATE TABLE {name} (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
KAFKA_DDL = DDL[:DDL.index("WITH")] + (
    "WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
    "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')")
#: The option of ``evl``: Flink emits the watermark after each row (FLIP-296), not every 200 ms.
ON_EVENT = "'scan.watermark.emit.strategy' = 'on-event'"
VERSIONED = ("CREATE VIEW ver AS SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
             "ORDER BY ts DESC) AS rn FROM ev2) WHERE rn = 1")
#: ``ev`` as a versioned table: ``b``'s one version has a NULL rowtime (Kafka only).
VERSIONED_EV = VERSIONED.replace("ver AS", "verev AS").replace("FROM ev2", "FROM ev")
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
_MATCH = ("SELECT * FROM {t} MATCH_RECOGNIZE (PARTITION BY k ORDER BY ts MEASURES A.v AS av, A.ts AS ats, "
          "MATCH_ROWTIME() AS mt ONE ROW PER MATCH PATTERN (A) DEFINE A AS A.v > 0)")
_LEGACY = ("SELECT k, {w}_START({args}) AS ws, {w}_END({args}) AS we, {w}_ROWTIME({args}) AS wt, COUNT(*), "
           "SUM(v) FROM {t} GROUP BY k, {w}({args})")
_TUMBLE_ARGS, _HOP_ARGS = "ts, INTERVAL '1' MINUTE", "ts, INTERVAL '30' SECOND, INTERVAL '1' MINUTE"
_SESSION_ARGS = "ts, INTERVAL '10' SECOND"


def _shared(t: str) -> dict[str, str]:
    """The queries of :data:`KAFKA_QUERIES` and :data:`LATE_QUERIES` alike, over table ``t``."""
    return {
        "over_unbounded_ts": f"SELECT k, v, ts, COUNT(*) OVER (ORDER BY ts) FROM {t}",
        "over_rows_unbounded": f"SELECT k, v, ts, SUM(v) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED PRECEDING "
                               f"AND CURRENT ROW) FROM {t}",
        "over_rows_bounded": f"SELECT k, v, ts, SUM(v) OVER (PARTITION BY k ORDER BY ts ROWS BETWEEN 1 "
                             f"PRECEDING AND CURRENT ROW) FROM {t}",
        "temporal_sort_ts": f"SELECT k, v, ts FROM {t} ORDER BY ts, v DESC",
        "match_recognize_ts": _MATCH.format(t=t),
        "legacy_tumble": _LEGACY.format(w="TUMBLE", args=_TUMBLE_ARGS, t=t),
        "legacy_hop": _LEGACY.format(w="HOP", args=_HOP_ARGS, t=t),
        "legacy_session": _LEGACY.format(w="SESSION", args=_SESSION_ARGS, t=t),
        "interval_left_join_ts": f"SELECT l.k, l.v, l.ts, r.v FROM {t} l LEFT JOIN ev2 r ON l.k = r.k AND "
                                 "l.ts BETWEEN r.ts - INTERVAL '1' MINUTE AND r.ts + INTERVAL '1' MINUTE",
        "temporal_left_join": f"SELECT l.k, l.v, l.ts, r.v FROM {t} l LEFT JOIN ver FOR SYSTEM_TIME AS OF "
                              "l.ts AS r ON l.k = r.k",
        "dedup_first": f"SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) "
                       f"AS rn FROM {t}) WHERE rn = 1",
    }


#: Kafka only (``kafka``): what each consumer writes in the rowtime column, more frames and windows.
KAFKA_QUERIES = {
    **_shared("ev"),
    "temporal_join_null_version": "SELECT l.k, l.v, r.v, r.ts FROM ev2 l JOIN verev FOR SYSTEM_TIME AS OF "
                                  "l.ts AS r ON l.k = r.k",
    "interval_self_join": "SELECT l.k, l.v, r.v FROM ev l JOIN ev r ON l.k = r.k AND l.ts BETWEEN "
                          "r.ts - INTERVAL '1' MINUTE AND r.ts + INTERVAL '1' MINUTE",
    "temporal_self_join": "SELECT l.k, l.v, r.v FROM ev l JOIN verev FOR SYSTEM_TIME AS OF l.ts AS r "
                          "ON l.k = r.k",
    "dedup_last": "SELECT k, v, ts FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts DESC) AS rn "
                  "FROM ev) WHERE rn = 1",
    "match_recognize_order": "SELECT * FROM ev MATCH_RECOGNIZE (ORDER BY ts MEASURES A.k AS ak, A.v AS av, "
                             "B.k AS bk, B.v AS bv, MATCH_ROWTIME() AS mt ONE ROW PER MATCH AFTER MATCH SKIP "
                             "PAST LAST ROW PATTERN (A B) DEFINE B AS B.v < A.v)",
}
#: The queries whose rows are recorded with their row kinds.
UPDATING = ("dedup_last",)
#: Kafka only (``kafka_late``): ``evl``'s NULL rowtime comes after the watermark passed 2024-05-01
#: 00:01:25 (``'scan.watermark.emit.strategy' = 'on-event'``: a watermark after every row).
LATE_QUERIES = {**_shared("evl"), "tumble_select": "SELECT k, window_start FROM TABLE(TUMBLE(TABLE evl, "
                "DESCRIPTOR(ts), INTERVAL '1' MINUTE))"}


def run(ddl: list[str], queries: dict[str, str]) -> dict:
    """Each query of ``queries`` after ``ddl``: ``{name: {"sql", "rows" | "error"}}``."""
    found = {}
    for name, sql in queries.items():
        t = table_env(*([kafka_jar()] if "'kafka'" in ddl[0] else []), utc=True)
        for d in ddl:
            t.execute_sql(d)
        try:
            # an updating result (``dedup_last``) with its row kinds: ['+I', ...], ['-U', ...], ...
            found[name] = {"sql": sql, "rows": sorted(map(str, collect(t, sql, kinds=name in UPDATING)))}
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
    out["rows"] = {"ev": ROWS, "ev2": ROWS2, "evl": LATE_ROWS}
    if "--kafka" in sys.argv:
        bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
        ddl = []
        for name, rows in (("ev", ROWS), ("ev2", ROWS2), ("evl", LATE_ROWS)):
            topic = f"flink-null-rowtime-{name}-{uuid.uuid4().hex[:8]}"
            produce_json(bootstrap, topic, [[r, []] for r in rows])
            ddl.append(KAFKA_DDL.format(name=name, topic=topic, bootstrap=bootstrap))
        ddl[2] = ddl[2].replace("'format'", f"{ON_EVENT}, 'format'")
        # the tests run the same statements: Kafka tables (``{name}``, ``{topic}``, ``{bootstrap}``), views
        out["kafka_ddl"] = {"table": KAFKA_DDL, "views": [VERSIONED, VERSIONED_EV]}
        out["kafka"] = run([*ddl, VERSIONED, VERSIONED_EV], {**QUERIES, **KAFKA_QUERIES})
        out["kafka_late"] = run([*ddl, VERSIONED], LATE_QUERIES)
    else:
        tables = [DDL.format(name=t, path=folder / f"{t}.json") for t in ("ev", "ev2")]
        out["queries"] = run([*tables, VERSIONED], QUERIES)
    OUT.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
