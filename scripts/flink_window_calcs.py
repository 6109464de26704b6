"""Record how Apache Flink 2.3 plans a window TVF's aggregate with a Calc between (EXPLAIN only).

For each query of ``QUERIES`` (over a datagen table ``ev`` with a WATERMARK on ``ts`` and a view
``fv`` filtering a TUMBLE TVF), records which aggregate Flink's optimized physical plan holds:
``"pushed"`` (a window aggregate assigning windows from the time attribute, ``time_col=[ts]``),
``"attached"`` (a window aggregate over the TVF's rows, ``win_start=[...], win_end=[...]``),
a window Top-N, deduplication or join (``"window-rank"``, ``"window-dedup"``, ``"window-join"``) or
``"group"`` (a GroupAggregate); also over a processing-time table ``evp``, a second table ``evr`` and
a SESSION view ``sv``; ``"error: <message>"`` where Flink refuses the query. Written to
``tests/plan/window_calcs_flink.json``, which
``tests/plan/test_window_calcs.py`` compares StreamSQL's EXPLAIN with; and, for the SESSION queries,
the ``window=[...]`` texts of the plan's operators (``window_calcs_session_windows_flink.json``).
Regenerate::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_window_calcs.py
"""

from __future__ import annotations

import json
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "plan" / "window_calcs_flink.json"
#: The ``window=[...]`` texts of each SESSION query's physical plan (session35), bottom first.
WINDOWS_OUT = OUT.with_name("window_calcs_session_windows_flink.json")
DDL = [
    "CREATE TABLE ev (k STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '5')",
    "CREATE TEMPORARY VIEW fv AS SELECT * FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
    "WHERE v > 0",
    "CREATE TABLE evr (k STRING, w INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
    "WITH ('connector' = 'datagen', 'number-of-rows' = '5')",
    "CREATE TABLE evp (k STRING, v INT, pt AS PROCTIME()) WITH ('connector' = 'datagen', "
    "'number-of-rows' = '5')",
    "CREATE TEMPORARY VIEW sv AS SELECT k, v, window_start, window_end FROM TABLE(SESSION(TABLE ev "
    "PARTITION BY k, "
    "DESCRIPTOR(ts), INTERVAL '10' SECOND)) WHERE v > 0",
]
T = "TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '1' MINUTE))"
H = "TABLE(HOP(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))"
C = "TABLE(CUMULATE(TABLE ev, DESCRIPTOR(ts), INTERVAL '30' SECOND, INTERVAL '1' MINUTE))"
S = "TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND))"
P = "TABLE(TUMBLE(TABLE evp, DESCRIPTOR(pt), INTERVAL '1' MINUTE))"
W = "GROUP BY window_start, window_end"
RN = "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end"
QUERIES = [
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM {T} WHERE window_start < TIMESTAMP "
    f"'2024-01-01 00:02:00' {W}",
    "SELECT window_start, window_end, COUNT(*) FROM (SELECT window_start, window_end, window_start + "
    f"INTERVAL '1' HOUR AS x FROM {T}) {W}",
    "SELECT window_start, window_end, x, COUNT(*) FROM (SELECT window_start, window_end, window_start + "
    f"INTERVAL '1' HOUR AS x FROM {T}) {W}, x",
    f"SELECT k, window_start, window_end, SUM(v) FROM (SELECT k, v, window_start, window_end FROM {H} "
    "WHERE v > 0) GROUP BY k, window_start, window_end",
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
    "SELECT window_start, window_end, SUM(x) FROM (SELECT window_start, window_end, EXTRACT(SECOND FROM "
    f"window_start) AS x FROM {T}) {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) WHERE window_start > "
    f"TIMESTAMP '2024-01-01 00:00:00' {W}",
    f"SELECT x, COUNT(*) FROM (SELECT window_start + INTERVAL '1' HOUR AS x FROM {T}) GROUP BY x",
    f"SELECT window_start, COUNT(*) FROM (SELECT window_start, v FROM {T} WHERE v > 0) GROUP BY window_start",
    f"SELECT window_start, window_end, k, COUNT(*) FROM (SELECT * FROM {T} WHERE v > 0) {W}, ROLLUP(k)",
    f"SELECT window_start, window_end, k, COUNT(*) FROM {T} WHERE window_start > ts {W}, ROLLUP(k)",
    # wintvf34: grouping sets, processing time, SESSION, Top-N, deduplication and joins through Calcs
    f"SELECT window_start, window_end, k, COUNT(*) FROM {H} WHERE window_end > ts + INTERVAL '20' SECOND "
    f"{W}, GROUPING SETS ((k), ())",
    f"SELECT window_start, window_end, k, v, COUNT(*) FROM {C} WHERE window_start < TIMESTAMP "
    "'2024-01-01 00:02:00' "
    f"{W}, CUBE (k, v)",
    f"SELECT window_start, window_end, k, COUNT(*) FROM {T} WHERE window_start > ts - INTERVAL '50' SECOND "
    "GROUP BY window_end, GROUPING SETS ((window_start, k), (k))",
    f"SELECT window_start, window_end, k, COUNT(*) FROM {T} WHERE window_start > ts - INTERVAL '50' SECOND "
    "GROUP BY window_start, GROUPING SETS ((window_end, k), (window_end))",
    f"SELECT window_start, window_end, COUNT(*) FROM {P} WHERE v > 0 {W}",
    f"SELECT window_start, window_end, COUNT(*) FROM {P} WHERE window_start > TIMESTAMP '2024-01-01 "
    f"00:00:00' {W}",
    f"SELECT window_start, window_end, k, COUNT(*) FROM {P} WHERE window_start > TIMESTAMP "
    "'2024-01-01 00:00:00' "
    f"{W}, ROLLUP(k)",
    f"SELECT k, window_start, window_end, COUNT(*) FROM (SELECT * FROM {S} WHERE v > 0) GROUP BY k, "
    "window_start, "
    "window_end",
    "SELECT k, window_start, window_end, SUM(w) FROM (SELECT k, window_start, window_end, v + 1 AS w "
    f"FROM {S}) "
    "GROUP BY k, window_start, window_end",
    f"SELECT ws, we, k, COUNT(*) FROM (SELECT window_start AS ws, window_end AS we, k FROM {S} WHERE v > 0) "
    "GROUP BY k, ws, we",
    "SELECT window_start, window_end, COUNT(*) FROM (SELECT * FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(ts), "
    f"INTERVAL '10' SECOND)) WHERE v > 0) {W}",
    "SELECT k, window_start, window_end, MAX(v) FROM sv GROUP BY k, window_start, window_end",
    f"SELECT k, window_start, window_end, COUNT(*) FROM {S} WHERE window_start > TIMESTAMP "
    "'2024-01-01 00:00:00' "
    "GROUP BY k, window_start, window_end",
    "SELECT k, window_start, window_end, SUM(x) FROM (SELECT k, window_start, window_end, "
    "EXTRACT(SECOND FROM "
    f"window_start) AS x FROM {S}) GROUP BY k, window_start, window_end",
    f"{RN} ORDER BY v DESC) AS rn FROM (SELECT * FROM {T} WHERE v > 0)) WHERE rn <= 2",
    f"{RN} ORDER BY v DESC) AS rn FROM {T} WHERE window_start > ts - INTERVAL '50' SECOND) WHERE rn <= 2",
    f"{RN}, k ORDER BY ts ASC) AS rn FROM (SELECT * FROM {H} WHERE v > 0)) WHERE rn = 1",
    f"{RN}, k ORDER BY ts DESC) AS rn FROM (SELECT k, v, ts, window_start, window_end FROM {C} "
    "WHERE window_end > ts + INTERVAL '20' SECOND)) WHERE rn = 1",
    f"{RN} ORDER BY v DESC) AS rn FROM (SELECT * FROM {S} WHERE v > 0)) WHERE rn <= 2",
    f"SELECT L.k, L.v, R.w, L.window_start, L.window_end FROM (SELECT * FROM {T} WHERE v > 0) L JOIN "
    "(SELECT k, w, "
    "window_start, window_end FROM TABLE(TUMBLE(TABLE evr, DESCRIPTOR(ts), INTERVAL '1' MINUTE)) "
    "WHERE w < 5) R "
    "ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k",
    f"SELECT L.k, L.v, R.w, L.window_start, L.window_end FROM (SELECT * FROM {H} WHERE window_start > ts - "
    "INTERVAL '50' SECOND) L LEFT JOIN (SELECT * FROM TABLE(HOP(TABLE evr, DESCRIPTOR(ts), INTERVAL "
    "'30' SECOND, "
    "INTERVAL '1' MINUTE))) R ON L.window_start = R.window_start AND L.window_end = R.window_end AND "
    "L.k = R.k",
    f"SELECT L.k, L.v, R.w, L.window_start, L.window_end FROM (SELECT * FROM {S} WHERE v > 0) L JOIN "
    "(SELECT * "
    "FROM TABLE(SESSION(TABLE evr PARTITION BY k, DESCRIPTOR(ts), INTERVAL '10' SECOND))) R "
    "ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k",
    "SELECT kk, window_start, window_end, COUNT(*) FROM (SELECT k AS kk, window_start, window_end FROM "
    f"{S} WHERE v > 0) GROUP BY kk, window_start, window_end",
    f"SELECT window_start, window_end, COUNT(*) FROM (SELECT window_start, window_end FROM {S} WHERE "
    f"v > 0) {W}",
    "SELECT k, window_start, window_end, COUNT(*) FROM TABLE(SESSION(TABLE evp PARTITION BY k, "
    "DESCRIPTOR(pt), "
    "INTERVAL '10' SECOND)) WHERE window_start > TIMESTAMP '2024-01-01 00:00:00' GROUP BY k, "
    "window_start, window_end",
    "SELECT window_start, window_end, k, COUNT(*) FROM (SELECT * FROM TABLE(SESSION(TABLE ev, "
    "DESCRIPTOR(ts), "
    f"INTERVAL '10' SECOND)) WHERE v > 0) {W}, ROLLUP(k)",
    f"{RN} ORDER BY v DESC) AS rn FROM (SELECT * FROM {P} WHERE v > 0)) WHERE rn <= 2",
    f"{RN}, k ORDER BY pt DESC) AS rn FROM (SELECT * FROM {P} WHERE v > 0)) WHERE rn = 1",
    f"SELECT L.k, L.v, R.v FROM (SELECT * FROM {P} WHERE v > 0) L JOIN (SELECT * FROM {P}) R "
    "ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k",
    # session35: SESSION TVF rows under a window operator, a GROUP BY without the PARTITION BY key
    f"{RN}, k ORDER BY ts ASC) AS rn FROM {S}) WHERE rn = 1",
    f"{RN}, k ORDER BY ts DESC) AS rn FROM {S} WHERE window_end > ts + INTERVAL '5' SECOND) WHERE rn = 1",
    f"SELECT window_start, window_end, COUNT(*) FROM {S} {W}",
    f"SELECT k, window_start, COUNT(*) FROM {S} GROUP BY k, window_start",
    f"SELECT * FROM {S}",
    "SELECT L.k, L.v, R.w FROM (SELECT * FROM TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(ts), "
    "INTERVAL '10' SECOND))) L JOIN (SELECT * FROM TABLE(SESSION(TABLE evr PARTITION BY k, DESCRIPTOR(ts), "
    "INTERVAL '20' SECOND))) R ON L.window_start = R.window_start AND L.window_end = R.window_end "
    "AND L.k = R.k",
    f"SELECT L.k, L.v, R.w FROM (SELECT * FROM {S}) L JOIN (SELECT * FROM {T.replace('ev,', 'evr,')}) R "
    "ON L.window_start = R.window_start AND L.window_end = R.window_end AND L.k = R.k",
    "SELECT * FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end, k ORDER BY v DESC) "
    "AS rn FROM TABLE(SESSION(TABLE evp PARTITION BY k, DESCRIPTOR(pt), INTERVAL '10' SECOND))) "
    "WHERE rn <= 2",
]


def kind(plan: str) -> str:
    """What Flink's optimized physical plan computes the query with.

    ``pushed`` / ``attached``: a window aggregate assigning windows from the time attribute / over
    the rows' attached window; ``window-rank``, ``window-dedup``, ``window-join``: those window
    operators; ``group``: none of them (a GroupAggregate). Shared with the test (imported by path).
    """
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    if "WindowAggregate(" in physical:
        return "attached" if "win_start=[" in physical else "pushed"
    for op in ("WindowRank", "WindowDeduplicate", "WindowJoin"):
        if f"{op}(" in physical:
            return {"WindowRank": "window-rank", "WindowDeduplicate": "window-dedup"}.get(op, "window-join")
    return "group"


def main() -> None:
    """EXPLAIN every query on Flink 2.3 and write each one's kind of aggregate."""
    from pyflink.table import EnvironmentSettings, TableEnvironment

    tenv = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    tenv.get_config().set("table.local-time-zone", "UTC")
    for st in DDL:
        tenv.execute_sql(st)
    kinds = {}
    windows = {}
    for q in QUERIES:
        try:
            plan = tenv.explain_sql(q)
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            kinds[q] = "error: " + refusal(str(e))
            continue
        kinds[q] = kind(plan)
        if "SESSION" in q:
            windows[q] = window_texts(plan)
    OUT.write_text(json.dumps(kinds, indent=1) + "\n")
    WINDOWS_OUT.write_text(json.dumps(windows, indent=1) + "\n")


def window_texts(plan: str) -> list[str]:
    """The ``window=[...]`` arguments of the optimized physical plan's operators, bottom first.

    Shared with the test (imported by path), which reads StreamSQL's EXPLAIN the same way.
    """
    physical = plan.split("== Optimized Physical Plan ==")[1].split("== Optimized Execution Plan ==")[0]
    texts = []
    for line in physical.splitlines():
        if "window=[" in line:
            rest = line.split("window=[", 1)[1]
            depth, end = 1, 0
            for end, ch in enumerate(rest):
                depth += {"[": 1, "]": -1}.get(ch, 0)
                if depth == 0:
                    break
            texts.append(rest[:end])
    return texts[::-1]


def refusal(text: str) -> str:
    """The message of the innermost ``...Exception: message`` line of a Java error's text."""
    lines = [ln.split("Exception: ", 1)[1] for ln in text.splitlines() if "Exception: " in ln]
    return lines[-1].strip() if lines else text.strip().splitlines()[0]


if __name__ == "__main__":
    main()
