"""Record Flink 2.3's answers on window Top-N, deduplication and joins over SESSION windows.

The windows end at the same instant but start apart (queryfuzz36's finding, seed 600034).

Flink's window rankings and window joins know a window by its ``window_end`` alone
(``StreamPhysicalWindowRankRule`` / ``StreamPhysicalWindowDeduplicateRule`` /
``StreamPhysicalWindowJoinRule`` take window_start and window_end out of the keys): TUMBLE, HOP and
CUMULATE windows are told apart by their end anyway, SESSION windows of other partition keys are not.
The table ``sw`` (JSON lines, :data:`ROWS`, a 1 s watermark) holds sessions (gap 2 s) of ``g`` 'a'
and 'b' that end together and start apart, and of 'j' whose odd and even ids form sessions that end
together and start apart. A SESSION aggregate grouped by keys beyond its PARTITION BY keys is, in
Flink, a GroupAggregate over the TVF's rows (sessions of the partition's rows, not of each group).
Writes ``tests/runtime/session_windows_flink.json``: for each query of :data:`QUERIES` its changelog
(``[kind, str(value), ...]`` per change, sorted) or Flink's error, which
``tests/runtime/test_session_windows_flink.py`` folds and compares StreamSQL's final rows with. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_session_windows.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from flink_json_lines import caused_by, streaming_tenv  # noqa: E402

OUT = Path(__file__).resolve().parent.parent / "tests" / "runtime" / "session_windows_flink.json"
#: ``sw``'s rows in file order: (id, g, v, seconds after 2024-01-01 00:00:00).
ROWS = [(1, "a", 5, 1), (2, "a", 7, 2), (3, "b", 3, 2), (4, "c", 9, 10), (5, "a", 4, 10.5),
        (6, "b", 8, 10.5), (7, "j", 1, 20), (8, "j", 2, 21), (9, "j", 3, 21), (10, "z", 0, 40)]
DDL = ("CREATE TABLE sw (id INT, g STRING, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' "
       "SECOND) WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')")
#: The join's sides: the odd and the even ids, each its own sessions.
VIEWS = ["CREATE TEMPORARY VIEW swl AS SELECT * FROM sw WHERE MOD(id, 2) = 1",
         "CREATE TEMPORARY VIEW swr AS SELECT * FROM sw WHERE MOD(id, 2) = 0"]
S = "TABLE(SESSION(TABLE sw PARTITION BY g, DESCRIPTOR(ts), INTERVAL '2' SECOND))"
SL, SR = (S.replace("TABLE sw", f"TABLE {v}") for v in ("swl", "swr"))
QUERIES = {
    "topn_agg": "SELECT window_start, window_end, g, s, rn FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                "window_start, window_end ORDER BY s DESC, g) AS rn FROM (SELECT window_start, window_end, "
                f"g, SUM(v) AS s FROM {S} GROUP BY window_start, window_end, g)) WHERE rn <= 1",
    "topn_rows": "SELECT window_start, window_end, id, v FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
                 f"window_start, window_end ORDER BY v, id) AS rn FROM {S}) WHERE rn <= 2",
    "topn_keyed": "SELECT window_start, window_end, g, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION "
                  f"BY window_start, window_end, g ORDER BY v DESC, id) AS rn FROM {S}) WHERE rn = 1",
    "dedup": "SELECT window_start, window_end, id FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY "
             f"window_start, window_end ORDER BY ts) AS rn FROM {S}) WHERE rn = 1",
    "agg_more_keys": "SELECT window_start, window_end, g, COUNT(*) AS n, SUM(v) AS s FROM "
                     "TABLE(SESSION(TABLE sw, DESCRIPTOR(ts), INTERVAL '2' SECOND)) "
                     "GROUP BY window_start, window_end, g",
    "agg_part_more_keys": "SELECT window_start, window_end, g, MOD(id, 2) AS odd, COUNT(*) AS n FROM "
                          f"{S} GROUP BY window_start, window_end, g, MOD(id, 2)",
    "join": "SELECT L.id AS lid, R.id AS rid, L.window_start AS lws, R.window_start AS rws, "
            "L.window_end AS we "
            f"FROM (SELECT * FROM {SL}) L JOIN (SELECT * FROM {SR}) R "
            "ON L.g = R.g AND L.window_start = R.window_start AND L.window_end = R.window_end",
    "join_full": "SELECT L.id AS lid, R.id AS rid, L.window_start AS lws, R.window_start AS rws FROM "
                 "(SELECT * "
                 f"FROM {SL}) L FULL JOIN (SELECT * FROM {SR}) R ON "
                 "L.g = R.g AND L.window_start = R.window_start AND L.window_end = R.window_end",
}


def write_rows(path: Path) -> Path:
    """``sw``'s file (:data:`ROWS`) at ``path``."""
    lines = [json.dumps({"id": i, "g": g, "v": v,
                         "ts": f"2024-01-01 00:00:{int(s):02d}.{int(s * 1000) % 1000:03d}"})
             for i, g, v, s in ROWS]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def main() -> None:
    """Run each query of :data:`QUERIES` on Flink and write :data:`OUT`."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tenv = streaming_tenv()
        tenv.get_config().set("table.local-time-zone", "UTC")
        tenv.execute_sql(DDL.format(path=write_rows(Path(tmp) / "sw.json")))
        for view in VIEWS:
            tenv.execute_sql(view)
        for name, query in QUERIES.items():
            try:
                with tenv.execute_sql(query).collect() as rows:
                    out[name] = sorted([str(r.get_row_kind()), *map(str, r)] for r in rows)
            except Exception as e:  # noqa: BLE001  (Flink's refusal is an answer)
                out[name] = {"error": caused_by(e)}
            print(name, out[name], flush=True)
    OUT.write_text(json.dumps({"generated_by": "scripts/flink_session_windows.py", "rows": ROWS,
                               "answers": out}, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
