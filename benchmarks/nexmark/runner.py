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
``--backend``, checkpoints every ``--interval-ms``. Each Flink query runs under the shared lock
``--flink-lock`` (one mini-cluster at a time on the machine; held per query, so each hold is
short), and a query past ``--timeout-s`` is cancelled and recorded as an error. ``--topic``
keeps the Kafka mode's topic for later runs, ``--merge`` adds a run's queries to the results
already in ``--out``: a long run can be split into groups of queries. Writes
``benchmarks/results/nexmark.md`` and ``nexmark.json`` (``--out``).
"""

from __future__ import annotations

import argparse
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


def _run_job(spec: dict, python: str) -> dict:
    """Run one engine's job subprocess (its ``lock`` held per query); its per-query results."""
    path = Path(spec["workdir"]) / f"{spec['engine']}-{spec['mode']}.json"
    spec["result"] = str(path.with_suffix(".result.json"))
    path.write_text(json.dumps(spec))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    subprocess.run([python, "-m", "benchmarks.nexmark.job", str(path)], cwd=ROOT, env=env, check=False)
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
        "--flink-lock", default="/tmp/flink.lock", help="lock held while each Flink query runs ('' = none)"
    )
    ap.add_argument("--out", default=str(RESULTS / "nexmark"))
    ap.add_argument("--timeout-s", type=float, default=540,
                    help="a query still running after this is cancelled and recorded as an error "
                         "(default 540: within one 10-minute hold of the Flink lock)")
    ap.add_argument("--topic", default=None,
                    help="kafka mode: read this topic, created and loaded when missing, kept after the run "
                         "(later runs with the same --events reuse it)")
    ap.add_argument("--merge", action="store_true",
                    help="add this run's results to those in --out (same --events and --backend)")
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
                topic = _events_topic(a.topic, a.events, a.bootstrap)
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
                    "lock": (a.flink_lock or None) if engine == "flink" else None,
                    "timeout_s": a.timeout_s,
                }
                python = flink_python if engine == "flink" else sys.executable
                results.setdefault(mode, {})[engine] = _run_job(spec, python)
    finally:
        if topic and not a.topic:
            delete_topics([topic], bootstrap=a.bootstrap)
    doc = {"events": a.events, "backend": a.backend, "results": results}
    out = Path(a.out)
    if a.merge:
        doc = _merged(out.with_suffix(".json"), doc)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.with_suffix(".json").write_text(json.dumps(doc, indent=1))
    done = {q for m in doc["results"].values() for e in m.values() for q in e}
    md = table(doc["results"], a.events, [q for q in sql.QUERIES if q in done],
               [m for m in MODES if m in doc["results"]],
               [e for e in ENGINES if any(e in m for m in doc["results"].values())])
    out.with_suffix(".md").write_text(f"Nexmark, {a.events:,} events, backend {a.backend}\n\n{md}\n")
    print(md)
    return 0


def _events_topic(name: str | None, events: int, bootstrap: str) -> str:
    """The one-partition topic of the events: a new one (deleted after the run), or ``name`` kept.

    ``name`` is created and loaded when missing; when it exists, it must hold ``events`` committed
    records (a topic loaded by an earlier run with the same ``--events``), so several runs (say,
    groups of queries, each short enough for one hold of a shared lock) read the same events.

    Raises:
        SystemExit: ``name`` holds another number of events.
    """
    if name:
        held = load.committed_records(name, bootstrap)
        if held == events:
            log(f"reading {name} ({events:,} events, loaded before)")
            return name
        if held is not None:
            msg = f"topic {name} holds {held:,} events, not --events {events:,}: delete it or name another"
            raise SystemExit(msg)
    topic = create_topic(name or unique("nexmark"), partitions=1, bootstrap=bootstrap)
    log(f"loading {events:,} events into {topic}")
    load.to_kafka(topic, bootstrap, events)
    return topic


def _merged(path: Path, doc: dict) -> dict:
    """``doc``'s results over those already in ``path`` (the same events and backend), per query.

    Raises:
        SystemExit: ``path`` holds a run with other events or another backend.
    """
    if not path.exists():
        return doc
    old = json.loads(path.read_text())
    if (old.get("events"), old.get("backend")) != (doc["events"], doc["backend"]):
        msg = (f"--merge: {path} holds {old.get('events')} events on {old.get('backend')}, "
               f"not {doc['events']} on {doc['backend']}")
        raise SystemExit(msg)
    for mode, engines in doc["results"].items():
        for engine, per_query in engines.items():
            old["results"].setdefault(mode, {}).setdefault(engine, {}).update(per_query)
    return old
