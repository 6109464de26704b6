"""The Nexmark benchmark: ``python -m benchmarks.nexmark [--events N] [--queries q0,q5] [--engines ...]``.

For every mode and engine, one subprocess (:mod:`benchmarks.nexmark.job`) runs the queries one
after another to the end of the same bounded input, each into a blackhole sink:

- ``engine``: StreamSQL reads the ``nexmark`` connector (``events.num`` = N); Flink, which has
  no nexmark connector here, reads the same events from a JSON-lines file (written once by
  :func:`benchmarks.nexmark.load.to_file`) through the same DDL and views;
- ``kafka``: both read a one-partition topic holding the same events as JSON
  (:func:`benchmarks.nexmark.load.to_kafka`), bounded at its end offsets, ``read_committed``.

events/s = N / (INSERT submitted → job ended): all events count, as Nexmark's own metric (a query
over bids still reads and drops the persons and auctions). Parallelism 1, the state backend of
``--backend``, checkpoints every ``--interval-ms``. Flink runs under the shared lock
``--flink-lock`` (one mini-cluster at a time on the machine). Writes
``benchmarks/results/nexmark.md`` and ``nexmark.json`` (``--out``).
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import BOOTSTRAP, RESULTS, create_topic, delete_topics, unique
from benchmarks.nexmark import load, sql

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ("streamsql", "flink")
MODES = ("engine", "kafka")


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _run_job(spec: dict, python: str, lock: str | None) -> dict:
    """Run one engine's job subprocess (under ``lock`` when given); its per-query results."""
    path = Path(spec["workdir"]) / f"{spec['engine']}-{spec['mode']}.json"
    spec["result"] = str(path.with_suffix(".result.json"))
    path.write_text(json.dumps(spec))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    lock_file = open(lock, "a") if lock else None  # noqa: SIM115  (held for the run)
    try:
        if lock_file:
            log(f"waiting for {lock}")
            fcntl.flock(lock_file, fcntl.LOCK_EX)
        subprocess.run([python, "-m", "benchmarks.nexmark.job", str(path)], cwd=ROOT, env=env, check=False)
    finally:
        if lock_file:
            lock_file.close()
    result = Path(spec["result"])
    return json.loads(result.read_text()) if result.exists() else {}


def table(results: dict, events: int, queries: list[str], modes: list[str], engines: list[str]) -> str:
    """The markdown table: events/s per query, engine and mode, and StreamSQL ÷ Flink."""
    head = ["query"]
    for m in modes:
        head += [f"{m}: {e} events/s" for e in engines]
        if len(engines) == 2:
            head.append(f"{m}: StreamSQL ÷ Flink")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" + "--:|" * (len(head) - 1)]
    for q in queries:
        cells = [q]
        for m in modes:
            rates = []
            for e in engines:
                r = results.get(m, {}).get(e, {}).get(q)
                rate = events / r["seconds"] if r and "seconds" in r else None
                rates.append(rate)
                cells.append("—" if r is None else f"{rate:,.0f}" if rate else "refused")
            if len(engines) == 2:
                cells.append(f"{rates[0] / rates[1]:.2f}×" if all(rates) else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.nexmark", description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=100_000)
    ap.add_argument("--queries", default=",".join(sql.QUERIES))
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--backend", default="rocksdb", choices=("rocksdb", "hashmap"))
    ap.add_argument("--interval-ms", type=int, default=10_000)
    ap.add_argument("--bootstrap", default=BOOTSTRAP)
    ap.add_argument(
        "--flink-lock", default="/tmp/flink.lock", help="lock file held while Flink runs ('' = none)"
    )
    ap.add_argument("--out", default=str(RESULTS / "nexmark"))
    a = ap.parse_args(argv)
    queries, engines, modes = a.queries.split(","), a.engines.split(","), a.modes.split(",")
    work = Path(tempfile.mkdtemp(prefix="nexmark_"))
    side_input = work / "side_input.csv"
    sql.write_side_input(side_input)
    base = {
        "queries": queries,
        "side_input": str(side_input),
        "workdir": str(work),
        "backend": a.backend,
        "interval_ms": a.interval_ms,
    }
    flink_python = jar = None
    if "flink" in engines:
        from benchmarks.flink_setup import flink_python as find_flink
        from benchmarks.flink_setup import kafka_jar

        flink_python, jar = find_flink(), kafka_jar() if "kafka" in modes else None
    results: dict = {}
    topic = None
    try:
        for mode in modes:
            if mode == "engine":
                events_file = str(work / "events.json")
                if "flink" in engines:
                    log(f"writing {a.events:,} events to {events_file}")
                    load.to_file(events_file, a.events)
                sources = {"streamsql": sql.nexmark_options(a.events), "flink": sql.file_options(events_file)}
            else:
                topic = create_topic(unique("nexmark"), partitions=1, bootstrap=a.bootstrap)
                log(f"loading {a.events:,} events into {topic}")
                load.to_kafka(topic, a.bootstrap, a.events)
                sources = {
                    e: sql.kafka_options(
                        topic,
                        a.bootstrap,
                        {
                            "properties.group.id": unique(f"nexmark-{e}"),
                            "properties.isolation.level": "read_committed",
                        },
                    )
                    for e in engines
                }
            for engine in engines:
                log(f"{engine}, {mode}: {len(queries)} queries")
                spec = {
                    **base,
                    "engine": engine,
                    "mode": mode,
                    "source_with": sources[engine],
                    "flink_jar": jar,
                }
                python = flink_python if engine == "flink" else sys.executable
                results.setdefault(mode, {})[engine] = _run_job(
                    spec, python, a.flink_lock if engine == "flink" else None
                )
    finally:
        if topic:
            delete_topics([topic], bootstrap=a.bootstrap)
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(
        json.dumps({"events": a.events, "backend": a.backend, "results": results}, indent=1)
    )
    md = table(results, a.events, queries, modes, engines)
    out.with_suffix(".md").write_text(f"Nexmark, {a.events:,} events, backend {a.backend}\n\n{md}\n")
    print(md)
    return 0
