"""Record what Apache Flink 2.3 does with ``WATERMARK FOR ts AS SOURCE_WATERMARK()`` per connector.

``SOURCE_WATERMARK()`` asks the source for watermarks of its own (Flink's ``SupportsSourceWatermark``);
the DDL is accepted, and a query reading the table is planned or refused by the connector. For the
connectors StreamSQL has (datagen, kafka, filesystem), each table's CREATE TABLE and the EXPLAIN of a
query reading it are run; the answers (``"ok"`` or Flink's error) go to
``tests/sql/flink_source_watermark.json``, which ``tests/sql/test_source_watermark.py`` replays::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_source_watermark.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from flink_session import ROOT, error_text, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "sql" / "flink_source_watermark.json"
RECORDS = [{"x": 1, "ts": "2024-01-01 00:00:01"}, {"x": 2, "ts": "2024-01-01 02:00:00"}]
"""The rows of the Kafka topic and of the filesystem table's file (written first)."""
COLUMNS = "x INT, ts TIMESTAMP(3), WATERMARK FOR ts AS SOURCE_WATERMARK()"
TABLES = {
    "d": "'connector' = 'datagen', 'number-of-rows' = '3'",
    "k": "'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
         "'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset'",
    "f": "'connector' = 'filesystem', 'path' = '/tmp/funcs32_sw', 'format' = 'json'",
}


def main() -> None:
    """Create each table of :data:`TABLES` and plan a query over it on Flink; write :data:`OUT`."""
    t = table_env(kafka_jar(), utc=True)
    folder = Path("/tmp/funcs32_sw")
    folder.mkdir(exist_ok=True)
    (folder / "a.json").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    topic = f"funcs32_sw_{int(time.time())}"
    produce_json("127.0.0.1:9092", topic, [[r, []] for r in RECORDS])
    out = []
    for name, options in TABLES.items():
        options = options.replace("{topic}", topic)
        steps = [f"CREATE TABLE {name} ({COLUMNS}) WITH ({options})", f"EXPLAIN SELECT * FROM {name}"]
        steps.append(f"SELECT window_start, COUNT(*) FROM TABLE(TUMBLE(TABLE {name}, DESCRIPTOR(ts), "
                     "INTERVAL '1' HOUR)) GROUP BY window_start, window_end")
        for s in steps:
            try:
                result = t.execute_sql(s)
                rows = [list(r) for r in result.collect()] if not s.startswith("CREATE") else None
                out.append({"statement": s, "flink": "ok", "rows": [[str(c) for c in r] for r in rows or []]})
            except Exception as e:  # noqa: BLE001 - Flink's error is the answer recorded
                out.append({"statement": s, "flink": "error", "flink_error": error_text(e)})
            print(json.dumps(out[-1])[:400])
    OUT.write_text(json.dumps({"records": RECORDS, "steps": out}, indent=1) + "\n")


if __name__ == "__main__":
    main()
