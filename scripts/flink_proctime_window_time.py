"""Record Apache Flink 2.3's ``window_time`` (and ``PROCTIME()`` column) of processing-time windows.

Over ``proc AS PROCTIME()`` a window TVF's ``window_time``, a window aggregate's ``window_time``
and the legacy ``TUMBLE_PROCTIME(proc, ...)`` are processing-time attributes in Flink 2.3: the
planner materializes them (``PROCTIME_MATERIALIZE``) where they leave the time-attribute world,
so the value a sink sees is the processing time of that step, not ``window_end - 1``. Answers
depend on when rows arrive, so the input is an unbounded Kafka topic written while the job runs,
in bursts (:data:`BURSTS`) seconds apart, as ``flink_proctime_session.py`` does: a warm-up row
(key ``w``) is written before the job starts; once its row (or window) came out, the bursts are
written at their offsets (seconds after that), the last one the sentinel (key ``z``); the job is
cancelled when the sentinel's row came out.

Per scenario the record has the ``query``, Flink's optimized ``plan`` (or ``flink_error``), the
``describe`` rows of ``DESCRIBE`` of a view over ``describe_query`` (the query without the casts
:data:`CAST` adds for PyFlink's collect; name, type, null), and ``runs``: per
run the bursts' send times (``sent``, epoch ms) and the rows (``[kind, received, cell, ...]``,
``received`` the epoch ms when the collecting client got the row, timestamps as ``YYYY-MM-DD
hh:mm:ss.fff`` in UTC, the session zone). Writes ``tests/runtime/proctime_window_time_flink.json``,
which ``tests/runtime/test_proctime_window_time.py`` compares with::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_proctime_window_time.py [SCENARIO ...]
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from pathlib import Path

from flink_proctime_session import _WRITE, _cell
from flink_session import ROOT, error_text, kafka_jar, produce_json, rerun_scenarios, run_client, table_env

OUT = ROOT / "tests" / "runtime" / "proctime_window_time_flink.json"
BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
#: ``[offset s, [[k, v], ...]]``: a burst of rows written (and flushed) at once, ``offset`` after the warm-up.
BURSTS = [
    [0.0, [["a", 1], ["b", 2], ["a", 3]]],
    [2.5, [["a", 4]]],
    [5.0, [["z", 0]]],  # the sentinel
]
COLUMNS = "k STRING, v INT, proc AS PROCTIME()"


def _tvf(kind: str) -> str:
    size = {"TUMBLE": "INTERVAL '2' SECOND", "HOP": "INTERVAL '1' SECOND, INTERVAL '2' SECOND",
            "CUMULATE": "INTERVAL '1' SECOND, INTERVAL '2' SECOND"}[kind]
    return f"TABLE({kind}(TABLE ev, DESCRIPTOR(proc), {size}))"


#: PyFlink's collect cannot hand over a processing-time attribute's value (``couldn't introspect
#: javabean``): the run reads it cast to ``TIMESTAMP(3)`` (the UTC wall clock), DESCRIBE the bare query.
CAST = {"window_time": "CAST(window_time AS TIMESTAMP(3)) AS window_time",
        "proc": "CAST(proc AS TIMESTAMP(3)) AS proc",
        "wt": "CAST(TUMBLE_PROCTIME(proc, INTERVAL '2' SECOND) AS TIMESTAMP(3)) AS wt"}


def _scenario(name: str, items: list[str], rest: str) -> dict:
    """A scenario ``SELECT items rest``: ``describe`` as written, ``query`` with the time attributes cast."""
    bare = {"wt": "TUMBLE_PROCTIME(proc, INTERVAL '2' SECOND) AS wt"}
    return {"name": name, "describe": f"SELECT {', '.join(bare.get(i, i) for i in items)} {rest}",
            "query": f"SELECT {', '.join(CAST.get(i, i) for i in items)} {rest}"}


SCENARIOS = [
    *(_scenario(f"{kind.lower()}_rows", ["k", "v", "window_start", "window_end", "window_time", "proc"],
                f"FROM {_tvf(kind)}") for kind in ("TUMBLE", "HOP", "CUMULATE")),
    *(_scenario(f"{kind.lower()}_agg", ["k", "window_start", "window_end", "window_time", "COUNT(*) AS n"],
                f"FROM {_tvf(kind)} GROUP BY k, window_start, window_end, window_time")
      for kind in ("TUMBLE", "HOP", "CUMULATE")),
    _scenario("legacy_tumble", ["k", "TUMBLE_START(proc, INTERVAL '2' SECOND) AS ws",
                                "TUMBLE_END(proc, INTERVAL '2' SECOND) AS we", "wt", "COUNT(*) AS n"],
              "FROM ev GROUP BY k, TUMBLE(proc, INTERVAL '2' SECOND)"),
    _scenario("top_n_over_tvf_rows", ["k", "v", "window_start", "window_end", "window_time"],
              "FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC) AS rn "
              f"FROM {_tvf('TUMBLE')}) WHERE rn <= 1"),
    # refused by Flink 2.3: the records hold its error
    {"name": "tumble_agg_no_wt_group",
     "query": f"SELECT k, window_start, window_end, window_time, COUNT(*) AS n FROM {_tvf('TUMBLE')} "
              "GROUP BY k, window_start, window_end"},
    {"name": "legacy_tumble_rowtime",
     "query": "SELECT k, TUMBLE_ROWTIME(proc, INTERVAL '2' SECOND) AS wt, COUNT(*) AS n FROM ev "
              "GROUP BY k, TUMBLE(proc, INTERVAL '2' SECOND)"},
    {"name": "typeof_window_time",
     "query": f"SELECT k, TYPEOF(window_time) AS twt, TYPEOF(proc) AS tp FROM {_tvf('TUMBLE')}"},
    {"name": "window_top_n",
     "query": "SELECT k, v, window_start, window_end, window_time FROM (SELECT *, ROW_NUMBER() "
              f"OVER (PARTITION BY window_start, window_end ORDER BY v DESC) AS rn FROM {_tvf('TUMBLE')}) "
              "WHERE rn <= 1"},
]
RUNS = 1


def run(scenario: dict, folder: Path) -> dict:
    """The scenario's record: its query, Flink's plan, DESCRIBE and the runs, or its error."""
    record = {"query": scenario["query"], "runs": []}
    if "describe" in scenario:
        record["describe_query"] = scenario["describe"]
    for _ in range(RUNS):
        topic = f"proctwt36_{scenario['name']}_{uuid.uuid4().hex[:8]}"
        produce_json(BOOTSTRAP, topic, [[{"k": "w", "v": 0}, []]])
        t = table_env(kafka_jar(), utc=True)
        t.execute_sql(f"CREATE TABLE ev ({COLUMNS}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                      f"'properties.bootstrap.servers' = '{BOOTSTRAP}', 'properties.group.id' = 'g', "
                      "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')")
        try:
            plan = t.explain_sql(scenario["query"])
            record["plan"] = plan.split("== Optimized Physical Plan ==")[1].split("==")[0].strip()
            t.execute_sql(f"CREATE TEMPORARY VIEW described AS {scenario.get('describe', scenario['query'])}")
            with t.execute_sql("DESCRIBE described").collect() as it:
                record["describe"] = [[r[0], r[1], r[2]] for r in it]
            result = t.execute_sql(scenario["query"])
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            record["flink_error"] = error_text(e).split("\n")[0]
            record.pop("describe", None)
            return record
        rows, sent, writer = [], [], None
        try:
            with result.collect() as it:
                for r in it:
                    row = [str(r.get_row_kind()), round(time.time() * 1000), *(_cell(c) for c in r)]
                    rows.append(row)
                    if row[2] == "w" and writer is None:
                        writer = threading.Thread(target=lambda: sent.extend(json.loads(run_client(
                            _WRITE, BOOTSTRAP, topic, json.dumps(BURSTS)))))
                        writer.start()
                    if row[2] == "z":
                        break
        except Exception as e:  # noqa: BLE001 - PyFlink's collect can fail to hand a row over
            record["collect_error"] = error_text(e).split("\n")[0]
        result.get_job_client().cancel().result()
        if writer is not None:
            writer.join()
        record["runs"].append({"sent": sent, "rows": rows})
    return record


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`."""
    old = json.loads(OUT.read_text())["scenarios"] if OUT.exists() else {}
    known = [s for s in SCENARIOS if s["name"] in old or not argv or s["name"] in argv]
    out = rerun_scenarios(known, argv, old, run, lambda r: json.dumps(r))
    OUT.write_text(json.dumps({"bursts": BURSTS, "columns": COLUMNS, "scenarios": out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
