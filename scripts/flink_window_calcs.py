"""Record how Apache Flink 2.3 plans a window TVF's aggregate with a Calc between (EXPLAIN only).

For each query of ``QUERIES`` (over a datagen table ``ev`` with a WATERMARK on ``ts`` and a view
``fv`` filtering a TUMBLE TVF), records which aggregate Flink's optimized physical plan holds:
``"pushed"`` (a window aggregate assigning windows from the time attribute, ``time_col=[ts]``),
``"attached"`` (a window aggregate over the TVF's rows, ``win_start=[...], win_end=[...]``) or
``"group"`` (a GroupAggregate). Written to ``tests/plan/window_calcs_flink.json``, which
``tests/plan/test_window_calcs.py`` compares StreamSQL's EXPLAIN with. Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_window_calcs.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "window_calcs_flink.json"
DDL = [
    "CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '5')",
    "CREATE TEMPORARY VIEW fv AS SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
    "WHERE v > 0",
]
T = "TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
H = "TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))"
C = "TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))"
W = "GROUP BY window_start, window_end"
QUERIES = [
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM {T} WHERE window_start < TIMESTAMP "
    f"'2024-01-01 00:02:00' {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT window_start, window_end, window_start + "
    f"INTERVAL '1' HOUR AS x FROM {T}) {W}",
    f"SELECT window_start, window_end, x, COUNT(*) FROM (SELECT window_start, window_end, window_start + "
    f"INTERVAL '1' HOUR AS x FROM {T}) {W}, x",
    f"SELECT k, window_start, window_end, SUM(v) FROM (SELECT k, v, window_start, window_end FROM {H} "
    f"WHERE v > 0) GROUP BY k, window_start, window_end",
    f"SELECT window_start, window_end, COUNT(*) FROM {H} WHERE window_start >= TIMESTAMP "
    f"'2024-01-01 00:00:30' {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM fv {W}",
    f"SELECT ws, we, COUNT(*) FROM (SELECT window_start AS ws, window_end AS we, v FROM {T} WHERE v > 0) "
    "GROUP BY ws, we",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {C} WHERE window_end > TIMESTAMP "
    f"'2024-01-01 00:00:30') {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM {T} WHERE window_time > ts {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT window_start, window_end, v + 1 AS w FROM {T}) "
    f"WHERE w > 2 {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) WHERE k <> 'x' {W}",
    f"SELECT window_start, window_end, MAX(ts) FROM {T} WHERE window_start < ts {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT window_end, window_start FROM {T}) {W}",
    f"SELECT window_start, window_end, SUM(x) FROM (SELECT window_start, window_end, EXTRACT(SECOND FROM "
    f"window_start) AS x FROM {T}) {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) WHERE window_start > "
    f"TIMESTAMP '2024-01-01 00:00:00' {W}",
    f"SELECT x, COUNT(*) FROM (SELECT window_start + INTERVAL '1' HOUR AS x FROM {T}) GROUP BY x",
    f"SELECT window_start, COUNT(*) FROM (SELECT window_start, v FROM {T} WHERE v > 0) GROUP BY window_start",
    f"SELECT window_start, window_end, k, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) {W}, ROLLUP(k)",
    f"SELECT window_start, window_end, k, COUNT(*) FROM {T} WHERE window_start > ts {W}, ROLLUP(k)",
]


def kind(plan: str) -> str:
    """``pushed``, ``attached`` or ``group``: the aggregate of Flink's optimized physical plan."""
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    if "WindowAggregate(" not in physical:
        return "group"
    return "attached" if "win_start=[" in physical else "pushed"


def main() -> None:
    """EXPLAIN every query on Flink 2.3 and write each one's kind of aggregate."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    for st in DDL:
        tenv.execute_sql(st)
    OUT.write_text(json.dumps({q: kind(tenv.explain_sql(q)) for q in QUERIES}, indent=1) + "\n")


if __name__ == "__main__":
    main()
