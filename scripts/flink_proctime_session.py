"""Record what Apache Flink 2.3 does with the rows of a processing-time SESSION window TVF.

``TABLE(SESSION(TABLE ev [PARTITION BY k], DESCRIPTOR(proc), INTERVAL '2' SECOND))`` over
``proc AS PROCTIME()`` runs as Flink's ``UnalignedWindowTableFunctionOperator`` on processing-time
timers: a row opens ``[its arrival, arrival + gap)``, intersecting windows of a key merge, and a
session's rows go out once the processing time reaches ``end - 1``. Answers depend on when rows
arrive, so the input is an unbounded Kafka topic written while the job runs, in bursts
(:data:`BURSTS`) several seconds apart (one session per burst and key unless a burst follows
another of the same key within the gap): the sessions, and their bounds relative to the bursts'
send times, are then the same on every run.

Each run: a warm-up row (key ``w``) is written before the job starts; once its session came out,
the bursts are written at their offsets (seconds after that), then a sentinel row (key ``z``)
whose session comes out after all others; the job is cancelled when it did.

Writes ``tests/runtime/proctime_session_flink.json``: ``{"gap_ms", "bursts", "scenarios": {name:
record}}``; a record has the ``query``, Flink's optimized plan or ``flink_error``, and ``runs``:
per run the bursts' send times (``sent``, epoch ms, taken by the writer right before each
burst) and the rows (``[kind, cell, ...]``, timestamps as ``YYYY-MM-DD hh:mm:ss.fff`` in UTC,
the session zone). ``tests/runtime/test_proctime_session.py`` compares. The topics are written by
the project's venv (``flink_session.run_client``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_proctime_session.py [SCENARIO ...]
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
import threading
import uuid
from pathlib import Path

from flink_session import ROOT, error_text, kafka_jar, produce_json, rerun_scenarios, run_client, table_env

OUT = ROOT / "tests" / "runtime" / "proctime_session_flink.json"
BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
GAP_MS = 2000
#: ``[offset s, [[k, v], ...]]``: a burst of rows written (and flushed) at once, ``offset`` after the warm-up.
BURSTS = [
    [0.0, [["a", 1], ["b", 2], ["a", 3]]],
    [1.0, [["a", 4]]],  # within a's gap: a's session grows to [0 s, 3 s); b's [0 s, 2 s) is apart
    [5.0, [["a", 5], ["b", 6], ["c", 7]]],
    [6.5, [["b", 8]]],  # b's session [5 s, 8.5 s)
    [11.0, [["a", 9]]],
    [16.0, [["z", 0]]],  # the sentinel: its session comes out after every other one
]
COLUMNS = "k STRING, v INT, proc AS PROCTIME()"
SESSION = "TABLE(SESSION(TABLE ev PARTITION BY k, DESCRIPTOR(proc), INTERVAL '2' SECOND))"

SCENARIOS = [
    {"name": "rows",
     "query": "SELECT k, v, window_start, window_end, CAST(window_time AS TIMESTAMP(3)) AS wt, "
              f"CAST(proc AS TIMESTAMP(3)) AS pt FROM {SESSION}"},
    {"name": "rows_no_partition",
     "query": "SELECT k, v, window_start, window_end FROM TABLE(SESSION(TABLE ev, DESCRIPTOR(proc), "
              "INTERVAL '2' SECOND))"},
    {"name": "group_aggregate",
     "query": f"SELECT k, window_start, COUNT(*) AS n, SUM(v) AS s FROM {SESSION} GROUP BY k, window_start"},
    {"name": "attached_aggregate",
     "query": f"SELECT k, window_start, window_end, COUNT(*) AS n, MAX(v) AS m FROM {SESSION} "
              "WHERE window_start > TIMESTAMP '2000-01-01 00:00:00' GROUP BY k, window_start, window_end"},
    {"name": "top_n",
     "query": "SELECT k, v, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k, "
              f"window_start ORDER BY v DESC) AS rn FROM {SESSION}) WHERE rn <= 1"},
    {"name": "top_n_by_proctime_desc",
     "query": "SELECT k, v, window_start, window_end FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k "
              f"ORDER BY proc DESC) AS rn FROM {SESSION}) WHERE rn = 1"},
]
RUNS = 1

_WRITE = r'''
import json, sys, time
from confluent_kafka import Producer
bootstrap, topic, bursts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
start, sent = time.time(), []
for offset, rows in bursts:
    time.sleep(max(0.0, start + offset - time.time()))
    sent.append(round(time.time() * 1000))
    for k, v in rows:
        p.produce(topic, json.dumps({"k": k, "v": v}).encode())
    p.flush(10)
print(json.dumps(sent))
'''


def _cell(value):
    """A collected value as JSON: timestamps as ``YYYY-MM-DD hh:mm:ss.fff`` (UTC for an LTZ)."""
    if isinstance(value, dt.datetime):
        if value.tzinfo is not None:
            value = value.astimezone(dt.timezone.utc).replace(tzinfo=None)
        return value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]
    return value


def run(scenario: dict, folder: Path) -> dict:
    """The scenario's record: its query, Flink's optimized plan and the runs, or its error."""
    record = {"query": scenario["query"], "runs": []}
    for _ in range(RUNS):
        topic = f"proctsession36_{scenario['name']}_{uuid.uuid4().hex[:8]}"
        produce_json(BOOTSTRAP, topic, [[{"k": "w", "v": 0}, []]])
        t = table_env(kafka_jar(), utc=True)
        t.execute_sql(f"CREATE TABLE ev ({COLUMNS}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                      f"'properties.bootstrap.servers' = '{BOOTSTRAP}', 'properties.group.id' = 'g', "
                      "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')")
        try:
            plan = t.explain_sql(scenario["query"])
            record["plan"] = plan.split("== Optimized Physical Plan ==")[1].split("==")[0].strip()
            result = t.execute_sql(scenario["query"])
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            record["flink_error"] = error_text(e).split("\n")[0]
            return record
        rows, sent, writer = [], [], None
        with result.collect() as it:
            for r in it:
                row = [str(r.get_row_kind()), *(_cell(c) for c in r)]
                rows.append(row)
                if row[1] == "w" and writer is None:
                    writer = threading.Thread(target=lambda: sent.extend(json.loads(run_client(
                        _WRITE, BOOTSTRAP, topic, json.dumps(BURSTS)))))
                    writer.start()
                if row[1] == "z":
                    break
        result.get_job_client().cancel().result()
        writer.join()
        record["runs"].append({"sent": sent, "rows": rows})
    return record


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`."""
    old = json.loads(OUT.read_text())["scenarios"] if OUT.exists() else {}
    known = [s for s in SCENARIOS if s["name"] in old or not argv or s["name"] in argv]
    out = rerun_scenarios(known, argv, old, run, lambda r: json.dumps(r))
    OUT.write_text(json.dumps({"gap_ms": GAP_MS, "bursts": BURSTS, "columns": COLUMNS, "scenarios": out},
                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
