"""Show what Flink 2.3 does with a NULL rowtime in a window TVF aggregate (and without aggregation).

Evidence for ``test_null_rowtime_into_a_window_aggregate_fails_the_job_as_flink`` in
``tests/runtime/test_windows.py`` (strict xfail: StreamSQL drops the row). Prints each query's
rows, or Flink's error::

    /work/flinkvenv/bin/python scripts/flink_null_rowtime.py

2026-12-05: both fail, the aggregate and the TVF without aggregation (``RowTime field should not
be null, please convert it to a non-null long value.``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from flink_session import collect, error_text, table_env

ROWS = [{"k": "a", "ts": "2024-05-01 00:00:00"}, {"k": "b", "ts": None},
        {"k": "a", "ts": "2024-05-01 00:01:30"}]
DDL = ("CREATE TABLE ev (k STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '5' SECOND) "
       "WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
QUERIES = {
    "aggregate": "SELECT window_start, k, COUNT(*) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), "
                 "INTERVAL '1' MINUTE)) GROUP BY window_start, window_end, k",
    "tvf": "SELECT k, window_start FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))",
}


def main() -> None:
    """Run each query of :data:`QUERIES` over :data:`ROWS` and print its rows or Flink's error."""
    path = Path(tempfile.mkdtemp()) / "ev.json"
    path.write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    for name, sql in QUERIES.items():
        t = table_env(utc=True)
        t.execute_sql(DDL.format(path=path))
        try:
            print(name, sorted(map(str, collect(t, sql))))
        except Exception as e:  # noqa: BLE001 - Flink's error is the answer
            print(name, "ERROR:", error_text(e)[-300:])


if __name__ == "__main__":
    main()
