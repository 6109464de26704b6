"""CPU per event of a whole contender run, per thread: ``raw`` and ``streamsql`` side by side.

``python -m benchmarks.thread_cpu --topic T [--contenders raw,streamsql] [--only Q0,Q1]
[--repeat N] [--src KEY=VALUE] [--sink KEY=VALUE] [--set KEY=VALUE]``

Runs each contender's own loop (:func:`benchmarks.contenders.run_raw` /
:func:`~benchmarks.contenders.run_streamsql`, the code ``benchmarks.run`` runs in its
subprocess) in this process over ``T``, an existing bids topic (``python -m
benchmarks.thread_cpu --load T`` loads one: 1M events, 10k auctions), into a fresh output topic,
alternating the contenders, each run in a process of its own (as ``benchmarks.run``), which
reads its ``/proc/self/task`` every 100 ms. Reported per run, in CPU-µs per input event (start-up
included, as the harness's CPU-s/M): the Python threads together (Arrow's and DuckDB's pools
included: they carry no name of their own), and each librdkafka thread by thread id, so a
consumer's and a producer's ``rdk:broker`` threads appear apart; which is which the order does
not say (other clients' threads, e.g. short-lived ones, can come before or between). In a
StreamSQL run of Q0 ``perf record`` found the producer's first
(``rd_kafka_toppar_producer_serve``) and the consumer's second; this docstring said the
consumer's came first until session 33, so sessions 25 and 31 read the producer's CPU as the
consumer's. And the CPU spent until the job was submitted (start-up). ``benchmarks.threads``
splits a StreamSQL job's own threads and waits; this is the comparison with the raw loop, whose
librdkafka threads do the same work as ours.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import contenders, datagen
from benchmarks.common import BOOTSTRAP, create_topic, delete_topics, end_offsets, unique

TICK = os.sysconf("SC_CLK_TCK")


def thread_cpu() -> dict[str, tuple[str, float, float]]:
    """``{tid: (name, user + sys s, sys s)}`` of this process's live threads."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        out[task.name] = (name, (int(fields[11]) + int(fields[12])) / TICK, int(fields[12]) / TICK)
    return out


def run_one(who: str, workload: str, topic: str, sink: dict, src: dict, cfg: dict) -> dict:
    """One run of contender ``who``: events, wall s, start-up CPU s, CPU s per thread."""
    out = create_topic(unique("bench-threadcpu-out"))
    ends = {str(k): v for k, v in end_offsets(topic).items()}
    events = sum(ends.values())
    spec = {"input": topic, "output": out, "ends": ends, "interval_ms": 1000, "bootstrap": BOOTSTRAP,
            "group": unique(f"bench-threadcpu-{who}"), "workload": workload, "keys": 10_000,
            "events": events, "workdir": tempfile.mkdtemp(prefix="bench-threadcpu-"),
            "sink_options": sink, "source_options": src, "streamsql_config": cfg}
    res = {"t_first": None, "events": 0, "produced": 0, "checkpoint_ms": []}
    submitted: list[float] = []
    last: dict[str, tuple[str, float, float]] = {}  # a thread's last reading: threads end before the run does
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.1):
            last.update(thread_cpu())

    ready = contenders.ready
    contenders.ready = lambda s: submitted.append(time.process_time())
    sampler = threading.Thread(target=sample, daemon=True)
    start = time.process_time()
    sampler.start()
    try:
        (contenders.run_raw if who == "raw" else contenders.run_streamsql)(spec, res)
    finally:
        stop.set()
        sampler.join()
        contenders.ready = ready
        delete_topics([out])
    last.update(thread_cpu())
    return {"events": events, "wall_s": (res["t_end"] or time.time()) - res["t_first"],
            "startup_cpu_s": submitted[0] - start if submitted else None, "threads": last}


def report(who: str, workload: str, rep: dict) -> str:
    """One line per run: rate, CPU-µs per event by thread group, and the kernel's (sys) share of it."""
    ev = rep["events"]
    per = {tid: (name, cpu / ev * 1e6) for tid, (name, cpu, *_) in rep["threads"].items()}
    sys_s = sum(t[2] for t in rep["threads"].values() if len(t) > 2)
    python = sum(v for name, v in per.values() if not name.startswith("rdk:"))
    rdk = [f"{name}#{tid} {v:.2f}" for tid, (name, v) in sorted(per.items(), key=lambda x: int(x[0]))
           if name.startswith("rdk:") and v >= 0.01]
    total = sum(v for _, v in per.values())
    startup = "" if rep["startup_cpu_s"] is None else f", start-up {rep['startup_cpu_s']:.2f} CPU-s"
    return (f"{who:9s} {workload}: {ev / rep['wall_s']:,.0f} ev/s, {total:.2f} CPU-µs/event "
            f"(sys {sys_s / ev * 1e6:.2f}){startup}; "
            f"Python threads {python:.2f}, " + ", ".join(rdk))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topic", help="an existing bids topic (4 partitions)")
    ap.add_argument("--load", metavar="TOPIC", help="create TOPIC and load 1M benchmark bids, then exit")
    ap.add_argument("--contenders", default="raw,streamsql")
    ap.add_argument("--only", default="Q0,Q1")
    ap.add_argument("--repeat", type=int, default=1)
    for flag, what in (("--src", "a kafka source WITH option"), ("--sink", "a kafka sink WITH option"),
                       ("--set", "an engine setting")):
        ap.add_argument(flag, action="append", default=[], metavar="KEY=VALUE", help=what)
    ap.add_argument("--one", nargs=2, metavar=("CONTENDER", "WORKLOAD"), help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.load:
        create_topic(a.load)
        datagen.load(a.load, 1_000_000, 10_000, BOOTSTRAP)
        return 0
    if not a.topic:
        ap.error("--topic (or --load) is required")
    src, sink, cfg = (dict(kv.split("=", 1) for kv in opts) for opts in (a.src, a.sink, a.set))
    if a.one:  # the child: one run, its report as JSON on the last line
        print(json.dumps(run_one(*a.one, a.topic, sink, src, cfg)))
        return 0
    opts = [f"--{k}={v}" for k, vs in (("src", a.src), ("sink", a.sink), ("set", a.set)) for v in vs]
    for _ in range(a.repeat):
        for w in a.only.split(","):
            for who in a.contenders.split(","):
                # a process per run, as benchmarks.run: each pays its own imports and start-up
                cmd = [sys.executable, "-m", "benchmarks.thread_cpu", "--topic", a.topic, "--one", who, w]
                child = subprocess.run([*cmd, *opts], capture_output=True, text=True, check=True)
                print(report(who, w, json.loads(child.stdout.strip().splitlines()[-1])), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
