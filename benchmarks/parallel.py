"""Parallel jobs: N = 1 vs N = 2 workers on one input (issue 10; benchmarks/README.md).

    python -m benchmarks.parallel                      # Q1 and AGG10k, 1,000,000 events, N = 1, 2
    python -m benchmarks.parallel --events 100000 --workers 1,2,4 --only AGG10k

Per workload, the input (Nexmark-style bids of :mod:`benchmarks.datagen`) is loaded once into a
``--partitions``-partition topic; then, for each N, the workload's SQL (:data:`benchmarks.contenders.SQL`,
bounded, exactly-once, RocksDB, checkpoints every ``--interval-ms``) runs with
``'parallelism.default'`` = N: N = 1 as ``streamsql run`` (the single-process path), N > 1 as N
``streamsql worker`` processes started here, so that each one's CPU time is its own
(``os.wait4``: user + system seconds of that process). Reported:

- **records per worker CPU-second**: input records / the workers' CPU seconds summed (start-up
  — imports, planning, the group join — included, the same for every N);
- **share**: each worker's part of the rows its tasks read (from the source or from an
  exchange; each worker logs a line per task it ran) and the tasks it ran;
- with ``--marginal``, **marginal records per CPU-second**: each N also runs over the first
  half of the events, and (events - half) / (CPU - CPU at half) leaves out the fixed start-up
  cost, which dominates small runs;
- **wall-clock**: spawn to the last exit, and the speed-up over N = 1 (a loaded or 2-core
  machine, where the broker and the workers share the cores, shows little of it).

Results: ``parallel.md`` and ``parallel.json`` in ``--out`` (default ``benchmarks/results``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import (
    BOOTSTRAP,
    RESULTS,
    admin,
    compile_bytecode,
    create_topic,
    delete_topics,
    unique,
    write_json,
)
from benchmarks.contenders import base_workload, workload_sql
from benchmarks.datagen import load

KEYS = {"Q1": 1_000_000, "AGG10k": 10_000}
_ROWS_IN = re.compile(r"FINISHED: (\d+) rows in")
_ASSIGNED = re.compile(r"task (\S+) assigned")
_TASK_ROWS = re.compile(r"task \S+ [A-Z]+: (\d+) rows in")


def script(workload: str, topic: str, out: str, workers: int, name: str, workdir: Path,
           interval_ms: int) -> Path:
    """The workload's job at ``'parallelism.default'`` = ``workers``, written into ``workdir``."""
    source, sink, inserts = workload_sql({
        "workload": workload, "input": topic, "bootstrap": BOOTSTRAP, "output": out, "ends": {},
    })
    text = "\n".join([
        f"SET 'pipeline.name' = '{name}';",
        f"SET 'parallelism.default' = '{workers}';",
        f"SET 'execution.checkpointing.interval' = '{interval_ms} ms';",
        "SET 'state.backend.type' = 'rocksdb';",
        f"SET 'execution.checkpointing.dir' = '{workdir / 'checkpoints'}';",
        f"SET 'state.dir' = '{workdir / 'state'}';",
        source + ";",
        sink + ";",
        inserts[0] + ";",
    ])
    path = workdir / "job.sql"
    path.write_text(text)
    return path


def run_job(path: Path, workers: int, name: str, workdir: Path) -> dict:
    """Run the job on ``workers`` processes; wall-clock, and each process's CPU, rows and tasks.

    Raises:
        RuntimeError: a process failed (its log is named).
    """
    env = {**os.environ, "STREAMSQL_LOG": "INFO"}
    if workers == 1:
        commands = [[sys.executable, "-m", "streamsql", "run", str(path)]]
    else:
        commands = [[sys.executable, "-m", "streamsql", "worker", str(path), "--worker-id", f"{name}-w{i}"]
                    for i in range(workers)]
    logs = [workdir / f"worker-{i}.log" for i in range(len(commands))]
    t0 = time.monotonic()
    procs = []
    for cmd, log in zip(commands, logs):
        with open(log, "wb") as f:
            procs.append(subprocess.Popen(cmd, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=f))
    cpu, ends = {}, {}
    for p in procs:
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        cpu[p.pid], ends[p.pid] = usage.ru_utime + usage.ru_stime, time.monotonic() - t0
        if p.returncode != 0:
            msg = f"{' '.join(p.args[3:5])} exited with {p.returncode}; see {logs[procs.index(p)]}"
            raise RuntimeError(msg)
    out = []
    for p, log in zip(procs, logs):
        text = log.read_text(errors="replace")
        rows = [int(m) for m in _ROWS_IN.findall(text)]
        handled = sum(int(m) for m in _TASK_ROWS.findall(text)) if workers > 1 else (rows[-1] if rows else 0)
        out.append({"cpu_s": round(cpu[p.pid], 2), "rows_in": rows[-1] if rows else None,
                    "rows_handled": handled, "tasks": sorted(set(_ASSIGNED.findall(text))),
                    "exit_s": round(ends[p.pid], 2)})
    return {"wall_s": round(max(ends.values()), 2), "workers": out}


def _cleanup(name: str, out: str) -> None:
    internal = [t for t in admin().list_topics(timeout=10).topics if t.startswith(f"_streamsql-{name}-")]
    delete_topics([*internal, out])


def _run(workload: str, topic: str, n: int, interval_ms: int, base: Path) -> dict:
    """One run of the workload over ``topic`` at N = ``n`` (see :func:`run_job`)."""
    name = unique(f"par-{workload.lower()}-n{n}")
    out = create_topic(unique(f"{name}-out"), 1, compacted=base_workload(workload) == "AGG")
    workdir = base / name
    workdir.mkdir(parents=True)
    try:
        return run_job(script(workload, topic, out, n, name, workdir, interval_ms), n, name, workdir)
    finally:
        _cleanup(name, out)


def measure(workload: str, events: int, partitions: int, counts: list[int], interval_ms: int,
            base: Path, marginal: bool = False) -> list:
    """Every N of ``counts`` on one loaded input topic; a result row per N.

    With ``marginal``, each N runs over the first half of the events too, and the row has
    ``marginal_records_per_cpu_s`` = (events - half) / (CPU at events - CPU at half): the
    per-record cost without the fixed start-up cost of each process.
    """
    topics = {events: create_topic(unique(f"par-{workload.lower()}-in"), partitions)}
    if marginal:
        topics[events // 2] = create_topic(unique(f"par-{workload.lower()}-half"), partitions)
    for size, topic in topics.items():
        load(topic, size, KEYS[workload], BOOTSTRAP)  # the same seed: the half is the first half
    rows = []
    try:
        for n in counts:
            result = _run(workload, topics[events], n, interval_ms, base)
            per = result["workers"]
            cpu = sum(w["cpu_s"] for w in per)
            total = sum(w["rows_handled"] for w in per)
            row = {"workload": workload, "events": events, "workers": n, "wall_s": result["wall_s"],
                   "cpu_s": round(cpu, 2), "records_per_cpu_s": round(events / cpu), "detail": per,
                   "share": [round(w["rows_handled"] / total, 3) if total else None for w in per]}
            if marginal:
                again = _run(workload, topics[events // 2], n, interval_ms, base)["workers"]
                half = sum(w["cpu_s"] for w in again)
                row["cpu_s_half"] = round(half, 2)
                extra = events - events // 2
                row["marginal_records_per_cpu_s"] = round(extra / (cpu - half)) if cpu > half else None
            rows.append(row)
            print(f"{workload} N={n}: {row['records_per_cpu_s']} records/CPU-s "
                  f"(marginal {row.get('marginal_records_per_cpu_s', '-')}), wall {row['wall_s']} s, "
                  f"shares {row['share']}", flush=True)
    finally:
        delete_topics(list(topics.values()))
    first = rows[0]
    for row in rows:
        row["cpu_efficiency_vs_n1"] = round(row["records_per_cpu_s"] / first["records_per_cpu_s"], 3)
        row["speedup_vs_n1"] = round(first["wall_s"] / row["wall_s"], 3)
        if row.get("marginal_records_per_cpu_s") and first.get("marginal_records_per_cpu_s"):
            row["marginal_efficiency_vs_n1"] = round(row["marginal_records_per_cpu_s"]
                                                     / first["marginal_records_per_cpu_s"], 3)
    return rows


def report(rows: list[dict]) -> str:
    """The results as a Markdown table."""
    lines = ["| workload | events | N | records / worker CPU-s | × N=1 | marginal (× N=1) | wall-clock s | "
             "speed-up | share of rows per worker | tasks per worker |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        shares = " / ".join(f"{s:.0%}" if s is not None else "?" for s in r["share"])
        tasks = " / ".join(",".join("-".join(t.rsplit("-", 2)[1:]) for t in w["tasks"]) or "-"
                           for w in r["detail"])
        marginal = (f"{r['marginal_records_per_cpu_s']} ({r.get('marginal_efficiency_vs_n1', '-')})"
                    if r.get("marginal_records_per_cpu_s") else "-")
        lines.append(f"| {r['workload']} | {r['events']} | {r['workers']} | {r['records_per_cpu_s']} | "
                     f"{r['cpu_efficiency_vs_n1']} | {marginal} | {r['wall_s']} | {r['speedup_vs_n1']} | "
                     f"{shares} | {tasks} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Command line (see module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m benchmarks.parallel", description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--only", default="Q1,AGG10k")
    ap.add_argument("--workers", default="1,2", help="the N to compare, the first is the reference")
    ap.add_argument("--partitions", type=int, default=4)
    ap.add_argument("--interval-ms", type=int, default=1000)
    ap.add_argument("--out", default=str(RESULTS))
    ap.add_argument("--marginal", action="store_true",
                    help="also run each N over half the events: the per-record CPU without start-up")
    a = ap.parse_args(argv)
    compile_bytecode()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    base = Path(tempfile.mkdtemp(prefix="streamsql-bench-parallel-"))
    counts = [int(n) for n in a.workers.split(",")]
    rows = []
    for workload in a.only.split(","):
        rows += measure(workload, a.events, a.partitions, counts, a.interval_ms, base, a.marginal)
    shutil.rmtree(base, ignore_errors=True)
    write_json(out / "parallel.json", rows)
    (out / "parallel.md").write_text(report(rows))
    print(report(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
