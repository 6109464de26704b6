"""Where a StreamSQL job's threads spend a Kafka run: CPU per thread, queue waits, the broker.

``python -m benchmarks.threads --only Q1,Q2 [--events N] [--topic T] [--set KEY=VALUE] [--stats]``

Runs each workload's SQL (:mod:`benchmarks.contenders`) in this process on a data set loaded
once (or ``--topic``, an existing bids topic), and reports over the steady part of the run (the
middle, from 20 % to 90 % of the events consumed, so start-up and the final commit are left
out):

- **CPU per thread** (user + sys from ``/proc/self/task/*/stat``, as a share of one core): the
  job thread, the fetch thread(s), the decode thread(s), the sink thread(s), the commit
  thread, librdkafka's threads (``rdk:*``), the rest; and the broker's JVM (``/proc/PID/stat``
  of the process whose command line runs ``kafka.Kafka``), which shares the two cores;
- **waits** (s per s of wall clock): the job thread waiting for a prefetched batch, the fetch
  and decode threads blocked on a full queue, the fetch thread inside ``consume()``, the decode
  thread in the decode, the job thread blocked on a full sink queue, the sink thread idle, the
  job thread completing checkpoints, and the commit thread waiting for the sinks' barrier flush
  and in the commit point;
- with ``--stats``, librdkafka's own view of the consumer (``statistics.interval.ms`` = 1 s):
  messages and bytes waiting in its fetch queue, fetch requests and the broker round trip.

A measuring tool, not a benchmark: the instrumentation wraps the hot path's calls (a few
µs per batch). Events/s are printed too, but compare them with ``benchmarks.run``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from pathlib import Path

from benchmarks import datagen
from benchmarks.common import BOOTSTRAP, create_topic, delete_topics, end_offsets, unique
from benchmarks.run import WORKLOADS

TICK = os.sysconf("SC_CLK_TCK")


def _stat_cpu(path: str) -> tuple[str, float] | None:
    """``(comm, user+sys seconds)`` from a ``/proc/.../stat`` file, or None when it is gone."""
    try:
        text = Path(path).read_text()
    except OSError:
        return None
    comm = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return comm, (int(fields[11]) + int(fields[12])) / TICK


def broker_pid() -> int | None:
    """The pid of the local Kafka broker's JVM (a process running ``kafka.Kafka``), or None."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{d}/cmdline").read_bytes()
        except OSError:
            continue
        if b"kafka.Kafka" in cmd:
            return int(d)
    return None


class Waits:
    """Seconds spent per named wait, summed over threads (thread-safe enough: one writer each)."""

    def __init__(self):
        self.total: dict[str, float] = defaultdict(float)
        self.count: dict[str, int] = defaultdict(int)

    def add(self, name: str, seconds: float) -> None:
        self.total[name] += seconds
        self.count[name] += 1

    def snapshot(self) -> dict[str, float]:
        return dict(self.total)


#: The run being measured: its :class:`Waits` and librdkafka statistics list (or None).
_CURRENT: dict = {"waits": Waits(), "stats": None}


class _Current:
    """Forwards ``add`` to the current run's :class:`Waits`."""

    @staticmethod
    def add(name: str, seconds: float) -> None:
        _CURRENT["waits"].add(name, seconds)


def instrument() -> None:
    """Wrap the hot path's calls to time them, once per process (see module docstring)."""
    from streamsql.connectors.kafka import reader as reader_mod
    from streamsql.connectors.kafka import source as source_mod

    from streamsql.checkpoint import coordinator as coord_mod
    from streamsql.runtime import prefetch, sink_stage

    waits = _Current

    def timed(cls, name: str, label: str):
        fn = getattr(cls, name)

        def wrapper(*a, **kw):
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                waits.add(label, time.perf_counter() - t0)

        setattr(cls, name, wrapper)

    timed(prefetch.PrefetchingSource, "poll", "job: wait for a fetched batch")
    timed(prefetch.PrefetchingSource, "_put", "fetch + decode: blocked on a full queue")
    timed(reader_mod.KafkaReader, "consume", "fetch: consume()")
    timed(source_mod.KafkaSource, "rows", "decode: decode")
    timed(sink_stage.PipelinedSink, "write", "job: hand to the sink (full queue)")
    timed(sink_stage.PipelinedSink, "wait_idle", "job: wait for the sink thread (end of input)")
    timed(sink_stage.PipelinedSink, "flushed", "commit: wait for the sinks' barrier flush")
    timed(coord_mod.CheckpointCoordinator, "maybe_complete", "job: complete + commit checkpoints")
    timed(coord_mod.CheckpointCoordinator, "_commit_point", "commit: metadata + commit point")
    timed(coord_mod.CheckpointCoordinator, "acknowledge", "job: snapshot at the barrier")

    # the sink thread's idle time: its condition wait with nothing pending
    run = sink_stage.PipelinedSink._run

    def timed_run(self):
        cv = self._cv
        orig_wait = cv.wait

        def wait(timeout=None):
            t0 = time.perf_counter()
            try:
                return orig_wait(timeout)
            finally:
                if threading.current_thread() is self._thread:
                    waits.add("sink: idle", time.perf_counter() - t0)

        cv.wait = wait
        return run(self)

    sink_stage.PipelinedSink._run = timed_run
    for cls in _sink_classes():
        # the sink thread writes what the job thread prepared (the Kafka sink's encoding) where
        # the sink has a prepare of its own (since 2026-12-03), else whole batches
        split = "prepare" in vars(cls)
        name = "write_prepared" if split else "write"
        write = getattr(cls, name)

        def timed_write(self, batch, _w=write, _what="sink: produce" if split else "sink: encode + produce"):
            t0 = time.perf_counter()
            try:
                return _w(self, batch)
            finally:
                if threading.current_thread().name.startswith("sink-"):
                    waits.add(_what, time.perf_counter() - t0)

        setattr(cls, name, timed_write)
        if split:
            prepare = cls.prepare

            def timed_prepare(self, batch, _p=prepare):
                t0 = time.perf_counter()
                try:
                    return _p(self, batch)
                finally:
                    if not threading.current_thread().name.startswith("sink-"):
                        waits.add("job: encode for the sink", time.perf_counter() - t0)

            cls.prepare = timed_prepare

    config = reader_mod.KafkaReader._consumer_config

    def with_stats(self):
        cfg = config(self)
        stats = _CURRENT["stats"]
        if stats is not None:
            cfg["statistics.interval.ms"] = 1000
            cfg["stats_cb"] = lambda s: stats.append(json.loads(s))
        return cfg

    reader_mod.KafkaReader._consumer_config = with_stats

    started: dict[int, float] = {}

    def on_gc(phase: str, info: dict) -> None:  # the collector runs on whichever thread allocates
        if phase == "start":
            started[threading.get_ident()] = time.thread_time()
        else:
            t0 = started.pop(threading.get_ident(), None)
            if t0 is not None:  # CPU time of the collecting thread
                waits.add(f"gc gen{info['generation']} ({threading.current_thread().name.split('-')[0]})",
                          time.thread_time() - t0)

    gc.callbacks.append(on_gc)


def _sink_classes():
    from streamsql.connectors.kafka.sink import KafkaSink
    from streamsql.connectors.kafka.upsert import UpsertKafkaSink

    return [KafkaSink, UpsertKafkaSink]


class Sampler(threading.Thread):
    """Samples every thread's CPU, the broker's CPU, the waits and the rows read, every 0.2 s."""

    def __init__(self, waits: Waits, rows):
        super().__init__(daemon=True, name="sampler")
        self.waits = waits
        self.rows = rows  # () -> rows consumed so far
        self.broker = broker_pid()
        self.samples: list[tuple[float, int, dict[int, tuple[str, float]], float, dict[str, float]]] = []
        self.halt = threading.Event()
        self.gen_sizes: list[int] | None = None
        self.half = 500_000
        self.gc_stats0 = gc.get_stats()

    def sample(self) -> None:
        if self.gen_sizes is None and self.rows() > self.half:
            self.gen_sizes = [len(gc.get_objects(g)) for g in range(3)]  # once, mid-run
            if os.environ.get("GC_TYPES"):
                from collections import Counter
                for g in (1, 2):
                    c = Counter(type(o).__name__ for o in gc.get_objects(g))
                    print(f"gen{g}", c.most_common(8))
        threads = {}
        for tid in os.listdir("/proc/self/task"):
            s = _stat_cpu(f"/proc/self/task/{tid}/stat")
            if s is not None:
                threads[int(tid)] = s
        b = _stat_cpu(f"/proc/{self.broker}/stat") if self.broker else None
        self.samples.append((time.monotonic(), self.rows(), threads, b[1] if b else 0.0,
                             self.waits.snapshot()))

    def run(self) -> None:
        while not self.halt.wait(0.2):
            self.sample()


def thread_label(tid: int, comm: str, names: dict[int, str]) -> str:
    """A thread's group: job, fetch, sink, rdk:<role>, or other."""
    name = names.get(tid, "")
    if name.startswith("job-"):
        return "job thread"
    if name.startswith("fetch-"):
        return "fetch thread"
    if name.startswith("decode-"):
        return "decode thread"
    if name.startswith("sink-"):
        return "sink thread"
    if name.startswith("commit-"):
        return "commit thread"
    if comm.startswith("rdk:"):
        return comm.rstrip("0123456789-/").replace("rdk:broker", "rdk:broker")
    if tid == os.getpid():
        return "main"
    return "other"


def report(sampler: Sampler, names: dict[int, str], events: int) -> dict:
    """The steady window's CPU per thread group, broker CPU and waits (module docstring)."""
    s = sampler.samples
    lo = next((x for x in s if x[1] >= 0.2 * events), s[0])
    hi = next((x for x in s if x[1] >= 0.9 * events), s[-1])
    wall = hi[0] - lo[0]
    rows = hi[1] - lo[1]
    cpu: dict[str, float] = defaultdict(float)
    for tid, (comm, c1) in hi[2].items():
        c0 = lo[2].get(tid, (comm, 0.0))[1]
        cpu[thread_label(tid, comm, names)] += c1 - c0
    out = {
        "wall_s": wall,
        "rows": rows,
        "events_per_s": rows / wall if wall > 0 else None,
        "cpu_share": {k: v / wall for k, v in sorted(cpu.items(), key=lambda kv: -kv[1])},
        "process_cores": sum(cpu.values()) / wall,
        "broker_cores": (hi[3] - lo[3]) / wall,
        "cpu_us_per_event": sum(cpu.values()) / rows * 1e6 if rows else None,
        "waits_share": {k: (hi[4].get(k, 0.0) - lo[4].get(k, 0.0)) / wall
                        for k in sorted(set(hi[4]) | set(lo[4]))},
    }
    return out


def summarize_stats(stats: list[dict]) -> dict:
    """Means over librdkafka's statistics of the consumer's fetch queue and its broker."""
    if not stats:
        return {}
    msgs, kb, rtt, fetch_req = [], [], [], []
    for st in stats:
        if st.get("type") != "consumer":
            continue
        msgs.append(sum(p.get("fetchq_cnt", 0) for t in st.get("topics", {}).values()
                        for p in t.get("partitions", {}).values() if p.get("partition", -1) >= 0))
        kb.append(sum(p.get("fetchq_size", 0) for t in st.get("topics", {}).values()
                      for p in t.get("partitions", {}).values() if p.get("partition", -1) >= 0) / 1024)
        for b in st.get("brokers", {}).values():
            if b.get("nodeid", -1) >= 0:
                rtt.append(b.get("rtt", {}).get("avg", 0) / 1000)
                fetch_req.append(b.get("req", {}).get("Fetch", 0))
    mid = slice(len(msgs) // 5, max(len(msgs) // 5 + 1, len(msgs) * 9 // 10))
    return {
        "fetchq_msgs_mean": sum(msgs[mid]) / max(1, len(msgs[mid])),
        "fetchq_kbytes_mean": sum(kb[mid]) / max(1, len(kb[mid])),
        "broker_rtt_ms_mean": sum(rtt) / max(1, len(rtt)),
        "fetch_requests": max(fetch_req) if fetch_req else 0,
    }


#: The source alone: every column read into a blackhole (what the fetch thread can deliver).
SRC_SQL = (
    "CREATE TABLE out_t (auction BIGINT, bidder BIGINT, price BIGINT, channel STRING, url STRING, "
    "date_time TIMESTAMP(3), extra STRING) WITH ('connector' = 'blackhole')",
    ["INSERT INTO out_t SELECT * FROM bids"],
)


def run_one(workload: str, topic: str, ends: dict, events: int, settings: dict, stats: bool) -> dict:
    """Run ``workload`` over ``topic`` in this process, sampled; the report."""
    from benchmarks.contenders import SQL, run_streamsql

    SQL.setdefault("SRC", SRC_SQL)

    waits = Waits()
    stat_list: list[dict] | None = [] if stats else None
    _CURRENT["waits"], _CURRENT["stats"] = waits, stat_list
    out = create_topic(unique("bench-threads-" + workload.lower().replace("/", "-")), append_time=True)
    work = tempfile.mkdtemp(prefix="threads-")
    backends = [part for part in workload.split("/")[1:] if part in ("rocksdb", "hashmap")]
    backend = backends[0] if backends else "rocksdb"  # AGG10k/hashmap, AGG10k/every-change/hashmap
    spec = {"contender": "streamsql", "workload": workload, "input": topic, "output": out,
            "ends": ends, "bootstrap": BOOTSTRAP, "interval_ms": 1000, "group": unique("threads"),
            "workdir": work, "backend": backend, "streamsql_config": settings}
    res = {"t_first": None, "t_end": None, "events": 0, "produced": 0, "checkpoint_ms": []}
    jobs = []

    import streamsql.runtime.job as job_mod

    orig_loop = job_mod.JobRunner._loop

    def loop(self, graph):
        jobs.append(graph)
        return orig_loop(self, graph)

    job_mod.JobRunner._loop = loop
    sampler = Sampler(waits, lambda: sum(s.rows for s in jobs[-1].sources) if jobs else 0)
    sampler.start()
    if _CURRENT.get("freeze"):
        import streamsql  # noqa: F401  (the imports' objects are what a freeze takes out of the GC)

        gc.collect()
        gc.freeze()
    try:
        run_streamsql(spec, res)
    finally:
        sampler.halt.set()
        sampler.join()
        job_mod.JobRunner._loop = orig_loop
        delete_topics([out])
    names = {t.native_id: t.name for t in threading.enumerate()}
    names.update(_seen_names)
    rep = report(sampler, names, events)
    rep["gc_collections"] = [b["collections"] - a["collections"]
                             for a, b in zip(sampler.gc_stats0, gc.get_stats())]
    rep["gc_generation_sizes"] = sampler.gen_sizes
    rep["checkpoint_ms_mean"] = sum(res["checkpoint_ms"]) / max(1, len(res["checkpoint_ms"]))
    rep["whole_events_per_s"] = res["events"] / (res["t_end"] - res["t_first"])
    if stat_list is not None:
        rep["librdkafka"] = summarize_stats(stat_list)
    return rep


#: native id -> name of every Python thread that ran (threads end before the report).
_seen_names: dict[int, str] = {}


def _remember_names() -> None:
    start = threading.Thread.start

    def remembering(self):
        start(self)
        deadline = time.monotonic() + 1
        while self.native_id is None and time.monotonic() < deadline:
            time.sleep(0.001)
        _seen_names[self.native_id] = self.name

    threading.Thread.start = remembering


def print_report(workload: str, rep: dict) -> None:
    print(f"\n== {workload}: {rep['events_per_s']:,.0f} ev/s steady window "
          f"({rep['whole_events_per_s']:,.0f} whole run), {rep['cpu_us_per_event']:.2f} CPU-µs/event, "
          f"process {rep['process_cores']:.2f} cores, broker {rep['broker_cores']:.2f} cores, "
          f"mean checkpoint {rep['checkpoint_ms_mean']:.0f} ms")
    print("  CPU (cores):  " + ", ".join(f"{k} {v:.2f}" for k, v in rep["cpu_share"].items() if v >= 0.005))
    print("  waits (s/s):  " + ", ".join(f"{k} {v:.2f}" for k, v in rep["waits_share"].items()))
    per = rep["wall_s"] / rep["rows"] * 1e6 if rep["rows"] else 0.0
    gc_us = sum(v for k, v in rep["waits_share"].items() if k.startswith("gc ")) * per
    print(f"  per event:    gc {gc_us:.2f} µs (CPU), CPU {rep['cpu_us_per_event']:.2f} µs; "
          f"gc collections per generation {rep['gc_collections']}, objects per generation "
          f"{rep['gc_generation_sizes']}")
    if rep.get("librdkafka"):
        print("  librdkafka:   " + ", ".join(f"{k} {v:,.1f}" for k, v in rep["librdkafka"].items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="Q1,Q2,WIN", help="workloads of benchmarks.run, and SRC: the "
                    "source alone (every column into a blackhole)")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--topic", help="an existing bids topic (4 partitions) to read instead of loading one")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--stats", action="store_true", help="librdkafka statistics of the consumer")
    ap.add_argument("--json", help="write the reports here")
    ap.add_argument("--tree", help="import StreamSQL from this checkout (e.g. a worktree of main)")
    ap.add_argument("--switch-interval", type=float, help="sys.setswitchinterval (s) for the experiment")
    ap.add_argument("--gc", help="experiment: 'freeze' (gc.freeze() before each job), thresholds 'a,b,c'")
    a = ap.parse_args(argv)
    if a.switch_interval:
        sys.setswitchinterval(a.switch_interval)
    gc_opts = (a.gc or "").split(",")
    if gc_opts[-1].isdigit():
        gc.set_threshold(*(int(x) for x in gc_opts if x.isdigit()))
    _CURRENT["freeze"] = "freeze" in gc_opts
    if a.tree:
        sys.path.insert(0, str(Path(a.tree).resolve()))
    settings = dict(kv.split("=", 1) for kv in a.set)
    _remember_names()
    instrument()
    reports = {}
    loaded = {}
    try:
        for w in a.only.split(","):
            keys = WORKLOADS.get(w.split("/")[0], 10_000)
            if a.topic:
                topic = a.topic
            elif keys not in loaded:
                topic = create_topic(unique(f"bench-bids-{keys}k-{a.events}"))
                datagen.load(topic, a.events, keys, BOOTSTRAP)
                loaded[keys] = topic
            else:
                topic = loaded[keys]
            ends = {str(k): v for k, v in end_offsets(topic).items()}
            events = sum(ends.values())
            reports[w] = run_one(w, topic, ends, events, settings, a.stats)
            print_report(w, reports[w])
            import streamsql

            reports[w]["streamsql"] = streamsql.__file__
    finally:
        delete_topics(list(loaded.values()))
    if a.json:
        Path(a.json).write_text(json.dumps(reports, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
