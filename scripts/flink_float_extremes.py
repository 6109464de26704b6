"""Record Apache Flink 2.3's MIN / MAX of DOUBLE groups mixing NaN and other values in several orders.

Writes ``tests/functions/float_extremes_flink.json``: table ``t`` (``g INT, d DOUBLE, ts``; group
``g``'s values one second apart in arrival order, all in one 10-second window) and per path (GROUP
BY, TUMBLE, HOP, CUMULATE and SESSION window TVFs) its query and the rows Flink collected, the
calls as STRING (Java's text), Flink's settings and whether its plan has a LocalWindowAggregate;
besides, TUMBLE with MAX alone, with COUNT(*) and LAST_VALUE added, and TUMBLE and HOP in
ONE_PHASE. In the default (AUTO) plan of a mergeable window aggregate, two phases, a value after a
NaN may be lost (``[1.0, NaN, 2.0]``: MAX 1.0; a bundle's partial led by NaN is NaN and the global
merge never takes it); GROUP BY, SESSION and every one-phase plan follow Java's ``<`` / ``>`` row by
row (MAX 2.0).
Run with ``/work/flinkvenv/bin/python scripts/flink_float_extremes.py``
(one Flink job per path, under ``flock /tmp/flink.lock`` on a shared machine).
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from flink_session import ROOT, collect, table_env

OUT = ROOT / "tests" / "functions" / "float_extremes_flink.json"
N, INF = "NaN", "Infinity"
#: Per group ``g`` its DOUBLE values in arrival order (the JSON format reads "NaN", "Infinity").
GROUPS = {1: ["-Infinity", INF], 2: [N, INF], 3: ["-Infinity", N, INF], 4: [1.0, N, 2.0], 5: [1.0, 2.0],
          6: [2.0, N, 1.0], 7: [N, 1.0], 8: [1.0, N], 9: [3.0, 1.0, 2.0], 10: [-1.0, N, -2.0],
          11: [N, -1.0, -2.0], 12: [5.0, N, 7.0, 6.0], 13: [1.0, N, 3.0, 2.0]}
TABLE = "g INT, d DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts"
CALLS = "CAST(MIN(d) AS STRING), CAST(MAX(d) AS STRING)"
_TVF = {"tumble": "TUMBLE(TABLE t, DESCRIPTOR(ts), INTERVAL '10' SECOND)",
        "hop": "HOP(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
        "cumulate": "CUMULATE(TABLE t, DESCRIPTOR(ts), INTERVAL '5' SECOND, INTERVAL '10' SECOND)",
        "session": "SESSION(TABLE t PARTITION BY g, DESCRIPTOR(ts), INTERVAL '3' SECOND)"}
QUERIES = {"group": f"SELECT g, {CALLS} FROM t GROUP BY g",
           **{k: f"SELECT g, CAST(window_start AS STRING), {CALLS} FROM TABLE({tvf}) "
                 "GROUP BY g, window_start, window_end" for k, tvf in _TVF.items()},
           "tumble_max": f"SELECT g, CAST(MAX(d) AS STRING) FROM TABLE({_TVF['tumble']}) "
                         "GROUP BY g, window_start, window_end",
           "tumble_more_calls": f"SELECT g, {CALLS}, COUNT(*), CAST(LAST_VALUE(d) AS STRING) "
                                f"FROM TABLE({_TVF['tumble']}) GROUP BY g, window_start, window_end"}
#: Paths run with settings: the TUMBLE and HOP queries in one phase (no LocalWindowAggregate).
SETTINGS = {"tumble_one_phase": ("tumble", {"table.optimizer.agg-phase-strategy": "ONE_PHASE"}),
            "hop_one_phase": ("hop", {"table.optimizer.agg-phase-strategy": "ONE_PHASE"})}


def rows() -> list[dict]:
    """Table ``t``'s rows: group ``g``'s ``j``-th value at second ``10 * g + j``."""
    out = []
    for g, values in GROUPS.items():
        for j, v in enumerate(values):
            s = 10 * g + j
            out.append({"g": g, "d": v, "ts": f"2024-01-01 00:{s // 60:02d}:{s % 60:02d}"})
    return out


def main() -> int:
    """Run every path's query on Flink and write :data:`OUT`."""
    data = rows()
    out: dict = {"table": TABLE, "rows": data, "paths": {}}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.json"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        for name in [*QUERIES, *SETTINGS]:
            base, settings = SETTINGS.get(name, (name, {}))
            query = QUERIES[base]
            t = table_env(utc=True)
            for key, value in settings.items():
                t.get_config().set(key, value)
            t.execute_sql(f"CREATE TABLE t ({TABLE}) WITH ('connector' = 'filesystem', "
                          f"'path' = '{path}', 'format' = 'json')")
            plan = t.explain_sql(query)
            out["paths"][name] = {"query": query, "settings": settings, "rows": collect(t, query, kinds=True),
                                  "local_global": "LocalWindowAggregate" in plan}
            print(name, "done", flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
