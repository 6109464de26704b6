"""Record what Apache Flink 2.3 says to some DDL and to unquoted words as column names.

The DDL: tables without a connector (also through LIKE), an unknown metadata key, DESCRIBE's extras
and watermark texts.

Writes ``tests/e2e/ddl_flink.json`` (planning only: no job runs), read by
``tests/e2e/test_ddl_flink.py``, which runs the same statements here. Per step: the statement and
``"ok"`` (with a DESCRIBE's rows) or Flink's error (the messages of its exception and causes).
Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_ddl_checks.py
"""

from __future__ import annotations

import json
import sys

from flink_session import ROOT, kafka_jar, run_step, table_env

OUT = ROOT / "tests" / "e2e" / "ddl_flink.json"

KAFKA = ("'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
         "'format' = 'json', 'scan.startup.mode' = 'earliest-offset'")
#: Each scenario's statements run in one new session, in order; every statement's outcome is recorded.
SCENARIOS = [
    {"name": "no_connector", "statements": [
        "CREATE TABLE base (a INT, b STRING)",
        "CREATE TABLE copy1 LIKE base",
        "CREATE TABLE copy2 (c INT) WITH ('connector' = 'datagen', 'number-of-rows' = '1') LIKE base",
        "DESCRIBE base",
        "DESCRIBE copy2",
        "EXPLAIN SELECT * FROM copy2",
        "EXPLAIN SELECT * FROM base",
        "EXPLAIN SELECT * FROM copy1",
        "CREATE TABLE snk (a INT, b STRING) WITH ('connector' = 'blackhole')",
        "EXPLAIN INSERT INTO base SELECT a, b FROM copy2",
    ]},
    {"name": "unknown_metadata_key", "statements": [
        f"CREATE TABLE k (a INT, x STRING METADATA FROM 'foo') WITH ({KAFKA})",
        "EXPLAIN SELECT * FROM k",
        f"CREATE TABLE k2 (a INT, `topics` STRING METADATA VIRTUAL) WITH ({KAFKA})",
        "EXPLAIN SELECT * FROM k2",
    ]},
    {"name": "describe_texts", "statements": [
        "CREATE TABLE d (a INT, b STRING, ts TIMESTAMP(3), ms BIGINT, `Mixed Case` INT, "
        "p1 AS a + 1, p2 AS UPPER(b), p3 AS CAST(a AS STRING), p4 AS DATE_FORMAT(ts, 'yyyy'), "
        "p5 AS CASE WHEN a > 0 THEN 'p' ELSE 'n' END, p6 AS COALESCE(b, 'x'), p7 AS `Mixed Case` * 2, "
        "p8 AS TO_TIMESTAMP_LTZ(ms, 3), p9 AS SUBSTRING(b, 1, 2), p10 AS CONCAT(b, 'x'), "
        "p11 AS CHAR_LENGTH(b), p12 AS ABS(a), p13 AS IF(a > 1, 1, 0), p14 AS TRIM(b), "
        "p15 AS b IS NULL, p16 AS a BETWEEN 1 AND 3, p17 AS b LIKE 'a%', p18 AS a IN (1, 2), "
        "p19 AS JSON_VALUE(b, '$.x'), p20 AS TIMESTAMPADD(DAY, 1, ts), p21 AS CURRENT_TIMESTAMP, "
        "p22 AS LOWER(b) || 'y', p23 AS MOD(a, 2), p24 AS NOT (a > 1), "
        "WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) WITH ('connector' = 'datagen')",
        "DESCRIBE d",
        f"CREATE TABLE m (a INT, o BIGINT METADATA FROM 'offset' VIRTUAL, `timestamp` TIMESTAMP_LTZ(3) "
        f"METADATA, t STRING METADATA FROM 'topic' VIRTUAL, w AS a * 2, WATERMARK FOR `timestamp` AS "
        f"`timestamp`) WITH ({KAFKA})",
        "DESCRIBE m",
    ]},
]
#: Words tried as unquoted column names: ``CREATE TABLE w (<word> INT)``, then ``SELECT <word>``.
WORDS = ["year", "month", "day", "hour", "minute", "second", "value", "time", "date", "timestamp",
         "user", "count", "key", "position", "result", "data", "name", "type", "level", "status",
         "comment", "language", "system", "text", "end", "start", "window", "rank", "row", "rows",
         "partition", "offset", "current", "interval", "order", "group", "desc", "size", "source",
         "sum", "max", "min", "avg", "first", "last", "version", "zone", "week", "quarter",
         "month_name", "ts", "floor", "ceil", "upper", "lower", "element", "percent", "epoch",
         "returns", "local", "function", "table", "column", "both", "leading", "trailing", "sql",
         "statement", "temporary", "metadata", "virtual", "watermark", "enforced", "primary"]


def _run(t, statement: str) -> dict:
    return run_step(t, statement, lambda st: st.startswith("DESCRIBE"), ("EXPLAIN",))


def main() -> int:
    """Run every scenario and word on Flink and write :data:`OUT`."""
    scenarios = []
    for s in SCENARIOS:
        t = table_env(kafka_jar())
        scenarios.append({"name": s["name"], "steps": [_run(t, st) for st in s["statements"]]})
    words = {}
    t = table_env(kafka_jar())
    for w in WORDS:
        steps = [_run(t, f"CREATE TABLE w_{w} ({w} INT) WITH ('connector' = 'datagen')")]
        if steps[0]["flink"] == "ok":
            steps.append(_run(t, f"EXPLAIN SELECT {w} FROM w_{w}"))
        words[w] = steps
    for s in scenarios:
        for st in s["steps"]:
            print(st["statement"][:60], st.get("flink_error", st.get("rows", "ok")), file=sys.stderr)
    print({w: [s["flink"] for s in v] for w, v in words.items()}, file=sys.stderr)
    OUT.write_text(json.dumps({"scenarios": scenarios, "words": words}, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
