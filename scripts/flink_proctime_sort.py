"""Record what Apache Flink 2.3 does with ``ORDER BY <proctime> [, ...]`` without LIMIT (``ProcTimeSort``).

Flink plans such a query as ``TemporalSort(orderBy=[pt ASC, ...])`` behind a single exchange, and
runs it (``StreamExecTemporalSort``) as the input itself when the processing-time attribute is the
only key (rows go on in arrival order), else as ``ProcTimeSortOperator``: rows wait in state until
a processing-time timer 1 ms after their arrival, then every row waiting is emitted sorted by the
other keys; a bounded input's end drops the rows still waiting (pending processing-time timers do
not fire).

Writes ``tests/runtime/proctime_sort_flink.json``, ``{scenario: record}``; a record has the
``query``, Flink's optimized plan (the ``== Optimized Physical Plan ==`` section of EXPLAIN) or
``flink_error``, and ``runs``: the rows of each run (``[kind, cell, ...]``), so an outcome that
depends on the timing shows its variants. ``bounded`` scenarios read a filesystem table of
:data:`ROWS`; ``kafka`` ones an unbounded Kafka topic written before the job starts, read until
every row came (then the job is cancelled). ``tests/runtime/test_proctime_sort.py`` compares. The
topics are written by the project's venv (``flink_session.run_client``: ``CLIENT_PYTHON`` names
another, e.g. from a worktree without its own ``.venv``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_proctime_sort.py [SCENARIO ...]
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

from flink_session import ROOT, error_text, kafka_jar, produce_json, rerun_scenarios, table_env

OUT = ROOT / "tests" / "runtime" / "proctime_sort_flink.json"
BOOTSTRAP = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")

ROWS = [{"id": 1, "k": "b", "v": 3}, {"id": 2, "k": "a", "v": 1}, {"id": 3, "k": "c", "v": 2},
        {"id": 4, "k": "a", "v": 5}, {"id": 5, "k": "b", "v": 0}, {"id": 6, "k": "a", "v": 2},
        {"id": 7, "k": None, "v": 4}]
CHANGES = [{"before": None, "after": {"id": 1, "k": "b", "v": 3}, "op": "c"},
           {"before": {"id": 1, "k": "b", "v": 3}, "after": {"id": 1, "k": "b", "v": 4}, "op": "u"}]
COLUMNS = "id INT, k STRING, v INT, pt AS PROCTIME()"

SCENARIOS = [
    {"name": "bounded_proctime_only", "source": "bounded", "query": "SELECT id, k FROM ev ORDER BY pt"},
    {"name": "bounded_then_key", "source": "bounded", "query": "SELECT id, k FROM ev ORDER BY pt, k"},
    {"name": "bounded_then_keys", "source": "bounded",
     "query": "SELECT id, k, v FROM ev ORDER BY pt, k DESC, v"},
    {"name": "bounded_filtered", "source": "bounded",
     "query": "SELECT id, k FROM (SELECT * FROM ev WHERE v > 0) ORDER BY pt, v"},
    {"name": "bounded_desc", "source": "bounded", "query": "SELECT id, k FROM ev ORDER BY pt DESC"},
    {"name": "changelog_input", "source": "changelog", "query": "SELECT id, k FROM ev ORDER BY pt, k"},
    {"name": "kafka_proctime_only", "source": "kafka", "query": "SELECT id, k FROM ev ORDER BY pt"},
    {"name": "kafka_then_keys", "source": "kafka",
     "query": "SELECT id, k, v FROM ev ORDER BY pt, k DESC NULLS FIRST, v"},
    {"name": "kafka_hidden_key", "source": "kafka", "query": "SELECT id FROM ev ORDER BY pt, v DESC"},
]
RUNS = 4


def _env(scenario: dict, folder: Path):
    source = scenario["source"]
    if source == "kafka":
        topic = f"gaps35_proctime_sort_{scenario['name']}_{uuid.uuid4().hex[:8]}"
        produce_json(BOOTSTRAP, topic, [[r, []] for r in ROWS])
        t = table_env(kafka_jar(), utc=True)
        t.execute_sql(f"CREATE TABLE ev ({COLUMNS}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                      f"'properties.bootstrap.servers' = '{BOOTSTRAP}', 'properties.group.id' = 'g', "
                      "'scan.startup.mode' = 'earliest-offset', 'format' = 'json')")
        return t
    path = folder / f"{scenario['name']}.jsonl"
    rows, fmt, key = (CHANGES, "debezium-json", ", PRIMARY KEY (id) NOT ENFORCED") if source == "changelog" \
        else (ROWS, "json", "")
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    t = table_env(utc=True)
    t.execute_sql(f"CREATE TABLE ev ({COLUMNS}{key}) WITH ('connector' = 'filesystem', 'path' = '{path}', "
                  f"'format' = '{fmt}')")
    return t


def _rows(t, query: str, expected: int | None) -> list[list]:
    """The query's rows with their kinds; an unbounded one is read until ``expected`` rows came."""
    result = t.execute_sql(query)
    out = []
    with result.collect() as it:
        for r in it:
            out.append([str(r.get_row_kind()), *r])
            if expected is not None and len(out) == expected:
                break
    if expected is not None:
        result.get_job_client().cancel().result()
    return out


def run(scenario: dict, folder: Path) -> dict:
    """The scenario's record: its query, Flink's optimized plan and rows per run, or its error."""
    record = {"query": scenario["query"], "source": scenario["source"], "runs": []}
    for _ in range(RUNS):
        t = _env(scenario, folder)
        try:
            plan = t.explain_sql(scenario["query"])
            record["plan"] = plan.split("== Optimized Physical Plan ==")[1].split("==")[0].strip()
            expected = len(ROWS) if scenario["source"] == "kafka" else None
            record["runs"].append(_rows(t, scenario["query"], expected))
        except Exception as e:  # noqa: BLE001 - Flink's refusal is the answer
            record["flink_error"] = error_text(e).split("\n")[0]
            break
    return record


def main(argv: list[str]) -> int:
    """Run the named scenarios (all when none), keep the others' records, write :data:`OUT`."""
    old = json.loads(OUT.read_text())["scenarios"] if OUT.exists() else {}
    out = rerun_scenarios(SCENARIOS, argv, old, run, lambda r: r.get("flink_error") or r["runs"])
    OUT.write_text(json.dumps({"rows": ROWS, "changes": CHANGES, "columns": COLUMNS, "scenarios": out},
                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
