"""The benchmark: ``python -m benchmarks.run [--events N] [--smoke] [--only Q0,AGG10k] [--contenders ...]``.

Loads seeded Nexmark-style bids into 4-partition topics on the local broker, then runs every
workload on every contender, one after another, on the same data, and writes
``benchmarks/results/results.md`` (+ ``results.json``, ``throughput.png``, ``scaling.png``).
See ``benchmarks/README.md``.

Each (workload, contender) has two phases:

1. **throughput** — the input topic holds the whole data set (a backlog); the contender runs as a
   subprocess until it reached the end offsets and committed. events/s = input records / (last
   commit − first record consumed), both logged by the contender. Peak RSS = the largest summed RSS
   of the child's process tree, sampled every 0.2 s by the harness. Checkpoint duration = mean of
   the contender's commits (streamsql: trigger → committed; raw: send_offsets + commit_transaction;
   quix: ``Checkpoint.commit``). The output is then read back with ``read_committed`` and counted
   against the expected size.
2. **latency** — a fresh input topic is fed at a fixed rate (``--latency-rate`` events/s for
   ``--latency-seconds``), event time = record timestamp = the wall clock at production, while
   the contender runs; a reader thread consumes the output with ``read_committed`` and records
   visible time − the input timestamp carried in the output record (``date_time``; AGG: the
   key's ``MAX(date_time)``; WIN: ``window_end``). The first ``--latency-warmup`` seconds of
   input are not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from benchmarks import datagen
from benchmarks.common import (
    BOOTSTRAP,
    RESULTS,
    compile_bytecode,
    create_topic,
    delete_topics,
    end_offsets,
    unique,
)
from benchmarks.contenders import base_workload
from benchmarks.output import LatencyReader, count_output, steady_rate
from benchmarks.proctree import RssSampler

CONTENDERS = ["raw", "streamsql", "quix"]  # and "flink" (Apache Flink 2.3 through PyFlink)
# workload → distinct auctions of its data set
WORKLOADS = {"Q0": 10_000, "Q1": 10_000, "FN": 10_000, "Q2": 10_000, "AGG10k": 10_000, "AGG1M": 1_000_000,
             "WIN": 10_000, "AGG10k/every-change": 10_000}
# CI's smoke run stays short: FN and Q1 are Q0's shape (a projection) again, AGG1M is AGG10k with
# more keys (each runs with --only); of the paced latency phase one workload shows it works.
SMOKE_SKIPS = {"FN", "Q1", "AGG1M"}
SMOKE_LATENCY = {"Q0"}
TS_FIELD = {"Q0": "date_time", "Q1": "date_time", "FN": "date_time", "Q2": "date_time", "AGG": "last_ts",
            "WIN": "window_end"}
STATEFUL = ("AGG", "WIN")
# engine-only workloads (datagen → blackhole): label → (workload, distinct auctions, backend)
ENGINE = {"Q1": ("Q1", 10_000, None), "AGG10k": ("AGG10k", 10_000, "rocksdb"),
          "AGG10k/hashmap": ("AGG10k", 10_000, "hashmap")}


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def _versions() -> dict[str, str]:
    """Versions of what the contenders run on (results of different days compare only with these)."""
    from importlib.metadata import PackageNotFoundError, version

    import confluent_kafka

    out = {"librdkafka": confluent_kafka.libversion()[0]}
    for pkg in ("streamsql", "confluent-kafka", "quixstreams", "duckdb", "pyarrow", "rocksdict"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out


# ----------------------------------------------------------------------------------------------
# running one contender


def run_contender(
    contender: str,
    workload: str,
    input_topic: str,
    ends: dict[int, int],
    interval_ms: int,
    timeout_s: float,
    profile: str | None = None,
    paced: dict | None = None,
    compacted: bool = False,
    extra: dict | None = None,
    flink_lock: str | None = None,
) -> dict:
    """Run one contender on ``input_topic`` into a fresh output topic; returns its result dict.

    ``extra`` adds to the spec (``engine``: datagen → blackhole, no topics; ``backend``: the state
    backend). ``flink_lock``: a file the ``flink`` contender holds an exclusive lock on while it
    runs (Flink mini-clusters are serialized on a shared machine).
    """
    engine = bool((extra or {}).get("engine"))
    slug = workload.lower().replace("/", "-")
    out = None if engine else create_topic(unique(f"bench-out-{slug}-{contender}"), compacted=compacted,
                                           append_time=True)
    group = unique(f"bench-{contender}-{slug}")
    work = Path(tempfile.mkdtemp(prefix=f"bench-{contender}-"))
    spec = {
        "contender": contender,
        "workload": workload,
        "input": input_topic,
        "output": out,
        "ends": {str(k): v for k, v in ends.items()},
        "interval_ms": interval_ms,
        "group": group,
        "bootstrap": BOOTSTRAP,
        "workdir": str(work),
        "result": str(work / "result.json"),
        "ready": str(work / "ready") if paced else None,
        "paced": bool(paced),
        **(extra or {}),
    }
    (work / "spec.json").write_text(json.dumps(spec))
    cmd = [sys.executable, "-m", "benchmarks.contenders", str(work / "spec.json")]
    lock = None
    if contender == "flink":
        from benchmarks import flink_setup

        spec["flink_jar"] = flink_setup.kafka_jar()
        (work / "spec.json").write_text(json.dumps(spec))
        cmd = [flink_setup.flink_python(), "-m", "benchmarks.flink_job", str(work / "spec.json")]
        if flink_lock:
            import fcntl

            lock = open(flink_lock, "a")  # noqa: SIM115  (held until the run ends)
            fcntl.flock(lock, fcntl.LOCK_EX)
    if profile:
        RESULTS.joinpath("profiles").mkdir(parents=True, exist_ok=True)
        gil = profile == "pyspy-gil"
        prof = RESULTS / "profiles" / f"{contender}-{workload.replace('/', '-')}{'-gil' if gil else ''}.txt"
        cmd = [
            shutil.which("py-spy") or os.path.join(os.path.dirname(sys.executable), "py-spy"),
            "record",
            "--format",
            "raw",
            "-r",
            "97",
            "--nonblocking",
            *(["--gil"] if gil else []),
            "-o",
            str(prof),
            "--",
        ] + cmd
    phase = "engine" if engine else "latency" if paced else "throughput"
    log(f"  {contender:9} {workload:7} {phase} → {out}")
    repo = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(repo) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    stdout = open(work / "stdout.txt", "w")
    t_launch = time.time()
    proc = subprocess.Popen(cmd, cwd=work, stdout=stdout, stderr=subprocess.STDOUT, env=env)
    # Peak RSS is sampled here, for every contender alike: a child's own ru_maxrss starts at this
    # harness's RSS (Linux keeps the high-water mark across fork and exec), so it overstated them.
    rss = RssSampler(proc.pid)
    rss.start()
    reader = None
    usage = None
    try:
        if paced:
            reader = LatencyReader(
                out, "date_time" if contender == "raw" else TS_FIELD[base_workload(workload)]
            )
            reader.start()
            deadline = time.time() + 120
            while not os.path.exists(spec["ready"]) and _running(proc) and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(2.0)  # let the consumer settle (quix: group join, state recovery)
            if _running(proc):
                paced["t0_ms"] = time.time() * 1000
                datagen.load_paced(input_topic, paced["events"], paced["keys"], paced["rate"], BOOTSTRAP)
        usage = _wait_usage(proc, timeout_s)
    finally:
        rss.halt.set()
        stdout.close()
        if lock is not None:
            lock.close()
    if reader is not None:
        time.sleep(1.0)  # last commit visible
        reader.stop.set()
        reader.join(10)
    try:
        res = json.loads(Path(spec["result"]).read_text())
    except (OSError, ValueError):
        tail = (work / "stdout.txt").read_text()[-2000:]
        res = {
            "error": f"no result (exit {proc.returncode}, timeout {timeout_s}s?): {tail}",
            "not_supported": False,
            "events": 0,
            "produced": 0,
            "checkpoint_ms": [],
            "t_first": None,
            "t_end": None,
            "peak_rss": None,
        }
    res["output_topic"] = out
    res["t_launch"] = t_launch
    rss.join()
    res["peak_rss"] = rss.peak or None
    if usage is not None and not profile:  # the whole tree: wait4 sees the reaped descendants
        res["cpu_s"] = usage.ru_utime + usage.ru_stime + res.get("cpu_unreaped_s", 0.0)
        if res.get("events"):
            res["cpu_s_per_m_events"] = res["cpu_s"] / res["events"] * 1e6
    if res.get("t_first") and res.get("t_end"):
        res["seconds"] = res["t_end"] - res["t_first"]
        res["events_per_s"] = res["events"] / res["seconds"] if res["seconds"] > 0 else None
    if reader is not None:
        res["latency_samples"] = reader.samples
    if engine:
        res["startup_s"] = res["t_first"] - t_launch if res.get("t_first") else None
    elif not res.get("error") and not paced:
        field = "date_time" if contender == "raw" else TS_FIELD[base_workload(workload)]
        res["out_records"], res["out_keys"], samples = count_output(out, keys=compacted, field=field)
        res.update(steady_rate(samples, res["events"], datagen.BidGenerator(1).ms_per_event))
        if res["first_output_ms"]:
            res["startup_s"] = res["first_output_ms"] / 1000 - t_launch
    if res.get("error"):
        log(f"    ! {res['error'].splitlines()[0][:300]} (output in {work / 'stdout.txt'})")
    if not engine:
        delete_topics([out] + list(res.get("changelog_topics") or []))
    if not res.get("error"):
        shutil.rmtree(work, ignore_errors=True)
    return res


def _running(proc: subprocess.Popen) -> bool:
    """Whether ``proc`` still runs, without reaping it (its resource usage is read at the end)."""
    return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


def _wait_usage(proc: subprocess.Popen, timeout_s: float):
    """Wait for ``proc`` (killed after ``timeout_s``); its resource usage, descendants it reaped included."""
    deadline = time.time() + timeout_s
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.time() > deadline:
            proc.kill()
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.05)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage


def latency_stats(samples: list[tuple[float, float]], t_from: float, t_to: float | None) -> dict:
    lat = np.array([la for ts, la in samples if ts >= t_from and (t_to is None or ts <= t_to)])
    if not len(lat):
        return {"p50_ms": None, "p99_ms": None, "latency_n": 0}
    return {
        "p50_ms": float(np.percentile(lat, 50)),
        "p99_ms": float(np.percentile(lat, 99)),
        "latency_n": int(len(lat)),
    }


def _profiler(a: argparse.Namespace) -> str | None:
    """How the streamsql contender is profiled: ``pyspy``, ``pyspy-gil`` (``--profile-gil``) or not."""
    if not a.profile:
        return None
    return "pyspy-gil" if a.profile_gil else "pyspy"


def _settings(contender: str, a: argparse.Namespace) -> dict:
    """Spec entries with the engine settings (``--set``, ``--baseline-set``) and the kafka source's
    and sink's WITH options (``--source-set``, ``--sink-set`` and their ``--baseline-`` twins) of
    a StreamSQL contender."""
    out = {}
    for entry, mine, baseline in (("streamsql_config", a.set, a.baseline_set),
                                  ("source_options", a.source_set, a.baseline_source_set),
                                  ("sink_options", a.sink_set, a.baseline_sink_set)):
        chosen = {"streamsql": mine, "streamsql-baseline": baseline}.get(contender) or []
        pairs = [kv.split("=", 1) for kv in chosen]
        if any(len(p) != 2 for p in pairs):
            msg = f"--set / --source-set / --sink-set take KEY=VALUE, got {chosen}"
            raise SystemExit(msg)
        if pairs:
            out[entry] = {k.strip(): v.strip() for k, v in pairs}
    return out


def _tree(contender: str, baseline: str | None) -> dict | None:
    """Spec entry that makes the baseline contender import StreamSQL from ``baseline``."""
    if contender != "streamsql-baseline":
        return None
    return {"streamsql_tree": str(Path(baseline).resolve())}


def expected_count(workload: str, contender: str, ds: datagen.DataSet) -> int | None:
    if contender == "raw":
        return ds.events  # the limit copies every record on every workload
    w = base_workload(workload)
    return {"Q0": ds.events, "Q1": ds.events, "FN": ds.events, "Q2": ds.q2_matches,
            "AGG": ds.distinct_auctions}.get(w)


# ----------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, help="events per data set (default 1,000,000; --smoke 20,000)")
    ap.add_argument("--smoke", action="store_true", help="small data, no scaling, short latency phase (CI)")
    ap.add_argument("--only", help="comma-separated workloads: " + ",".join(WORKLOADS))
    ap.add_argument("--contenders", default=",".join(CONTENDERS))
    ap.add_argument("--interval-ms", type=int, default=1000, help="checkpoint / commit interval")
    ap.add_argument("--latency-rate", type=int, default=5000, help="events/s of the paced latency phase")
    ap.add_argument("--latency-seconds", type=float, default=12.0)
    ap.add_argument("--latency-warmup", type=float, default=2.0)
    ap.add_argument("--no-latency", action="store_true")
    ap.add_argument(
        "--scaling",
        default="auto",
        choices=["auto", "yes", "no"],
        help="AGG key/interval scaling figures (auto: not with --smoke/--only)",
    )
    ap.add_argument(
        "--scaling-keys",
        default="10000,100000,1000000",
        help="distinct-key counts of the AGG scaling figure (add 10000000 for the 10M point: +~20 min)",
    )
    ap.add_argument("--scaling-intervals", default="100,1000,10000")
    ap.add_argument(
        "--scaling-contenders",
        default="streamsql",
        help="contenders of the scaling figures (quix at 5-10k ev/s would take ~3 min per point)",
    )
    ap.add_argument(
        "--baseline",
        metavar="TREE",
        help="also run StreamSQL from another checkout (e.g. a `git worktree` of the commit before a "
        "change) as contender 'streamsql-baseline', right after 'streamsql' on the same data",
    )
    ap.add_argument("--profile", action="store_true", help="py-spy each streamsql run (results/profiles/)")
    ap.add_argument("--profile-gil", action="store_true",
                    help="with --profile: sample only the thread holding the GIL (py-spy --gil; *-gil.txt)")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="an engine setting of the streamsql contender (repeatable)")
    ap.add_argument("--baseline-set", action="append", default=[], metavar="KEY=VALUE",
                    help="an engine setting of the streamsql-baseline contender (repeatable)")
    ap.add_argument("--source-set", action="append", default=[], metavar="KEY=VALUE",
                    help="a WITH option of the streamsql contender's kafka source, e.g. "
                    "properties.fetch.max.bytes=52428800 (repeatable)")
    ap.add_argument("--baseline-source-set", action="append", default=[], metavar="KEY=VALUE",
                    help="a WITH option of the streamsql-baseline contender's kafka source (repeatable)")
    ap.add_argument("--sink-set", action="append", default=[], metavar="KEY=VALUE",
                    help="a WITH option of the streamsql contender's sink (kafka or upsert-kafka), e.g. "
                    "properties.queue.buffering.max.messages=100000 (repeatable)")
    ap.add_argument("--baseline-sink-set", action="append", default=[], metavar="KEY=VALUE",
                    help="a WITH option of the streamsql-baseline contender's sink (repeatable)")
    ap.add_argument("--timeout", type=float, default=None, help="seconds per contender run")
    ap.add_argument("--out", default=str(RESULTS), help="results folder")
    ap.add_argument("--backends", default="rocksdb",
                    help="state backends of the stateful workloads (AGG*, WIN): rocksdb,hashmap; a "
                    "hashmap row is labelled WORKLOAD/hashmap")
    ap.add_argument("--engine", default=None,
                    help="engine-only table (datagen → blackhole, no Kafka) of streamsql and flink for "
                    "these workloads: " + ",".join(ENGINE) + " ('all' for every one); 'none' skips it")
    ap.add_argument("--engine-events", type=int, default=None,
                    help="rows per engine-only run (default --events)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="rounds of every workload's contenders, alternated (raw, streamsql, flink, raw, "
                    "...); the report adds each round's table and the medians of the per-round ratios")
    ap.add_argument("--repeat-only", default=None,
                    help="the workloads (Kafka and engine-only labels, e.g. Q0,Q1) that get --repeat "
                    "rounds; every other workload runs once (default: all get them)")
    ap.add_argument("--flink-lock", default="/tmp/flink.lock",
                    help="file locked while a flink contender runs (shared-machine serialization); "
                    "'' for none")
    a = ap.parse_args(argv)
    compile_bytecode()
    repeated = set(a.repeat_only.split(",")) if a.repeat_only else None

    def rounds(label: str) -> range:
        """Round numbers of a workload: --repeat of them unless --repeat-only leaves it out."""
        return range(1, (a.repeat if repeated is None or label in repeated else 1) + 1)

    events = a.events or (20_000 if a.smoke else 1_000_000)
    if a.smoke:
        a.latency_seconds = min(a.latency_seconds, 4.0)
        a.latency_rate = min(a.latency_rate, 2000)
        a.latency_warmup = min(a.latency_warmup, 1.0)
    workloads = a.only.split(",") if a.only else [w for w in WORKLOADS if not (a.smoke and w in SMOKE_SKIPS)]
    contenders = a.contenders.split(",")
    if a.baseline:
        at = contenders.index("streamsql") + 1 if "streamsql" in contenders else len(contenders)
        contenders.insert(at, "streamsql-baseline")
    scaling = a.scaling == "yes" or (a.scaling == "auto" and not a.smoke and not a.only)
    timeout = a.timeout or (180 if a.smoke else 900)
    out_dir = Path(a.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_run = time.time()
    created: list[str] = []

    datasets: dict[int, datagen.DataSet] = {}

    def dataset(keys: int, n: int) -> datagen.DataSet:
        if (keys, n) not in datasets:
            topic = create_topic(unique(f"bench-bids-{keys}k-{n}"))
            created.append(topic)
            log(f"loading {n:,} bids ({keys:,} auctions) into {topic}")
            ds = datagen.load(topic, n, keys, BOOTSTRAP)
            ds.end_offsets = end_offsets(topic)
            log(f"  loaded in {ds.load_seconds:.1f} s ({n / ds.load_seconds:,.0f}/s)")
            datasets[(keys, n)] = ds
        return datasets[(keys, n)]

    runs = [(f"{w}/{b}" if b not in (None, "rocksdb") else w, w, b)
            for w in workloads
            for b in (a.backends.split(",") if base_workload(w) in STATEFUL else [None])]
    rows, engine_rows = [], []
    try:
        for label, w, backend in runs:
            keys = WORKLOADS[w]
            ds = dataset(keys, events)
            # Alternated rounds: a machine whose speed drifts moves every contender of a round alike
            for rnd, c in ((r, c) for r in rounds(label) for c in contenders):
                if backend == "hashmap" and c in ("raw", "quix"):  # they have no such backend
                    continue
                extra = {**(_tree(c, a.baseline) or {}), "backend": backend,
                         **_settings(c, a)}
                res = run_contender(
                    c,
                    label,
                    ds.topic,
                    ds.end_offsets,
                    a.interval_ms,
                    timeout,
                    profile=_profiler(a) if c == "streamsql" else None,
                    compacted=base_workload(w) == "AGG",
                    extra=extra,
                    flink_lock=a.flink_lock or None,
                )
                row = {
                    "workload": label,
                    "contender": c,
                    "round": rnd,
                    "events": ds.events,
                    "keys": ds.keys,
                    "expected": expected_count(w, c, ds),
                    **{k: v for k, v in res.items() if k != "latency_samples"},
                }
                latency = not a.no_latency and (not a.smoke or w in SMOKE_LATENCY)
                if latency and not res.get("error"):
                    ptopic = create_topic(unique(f"bench-paced-{w.lower()}-{c}"))
                    created.append(ptopic)
                    n = int(a.latency_rate * a.latency_seconds)
                    pk = min(keys, n) if base_workload(w) != "AGG" else keys
                    if w == "WIN" and not a.smoke:  # a 10 s window must close by time before the end
                        n = int(a.latency_rate * max(a.latency_seconds, 25))
                    paced = {"events": n, "keys": pk, "rate": a.latency_rate}
                    lres = run_contender(
                        c,
                        label,
                        ptopic,
                        datagen.paced_offsets(n, pk, 43),
                        a.interval_ms,
                        timeout,
                        paced=paced,
                        compacted=base_workload(w) == "AGG",
                        extra=extra,
                        flink_lock=a.flink_lock or None,
                    )
                    delete_topics([ptopic])
                    if lres.get("error"):
                        row["latency_error"] = lres["error"].splitlines()[0]
                    elif "t0_ms" in paced:
                        t_from = paced["t0_ms"] + a.latency_warmup * 1000
                        # WIN: windows closed by the end of input (not by time) would count as early
                        t_to = paced["t0_ms"] + n / a.latency_rate * 1000 - 1500 if w == "WIN" else None
                        row.update(latency_stats(lres.get("latency_samples", []), t_from, t_to))
                rows.append(row)
                eps = row.get("events_per_s")
                log(
                    f"    {c} {label}{f' (round {rnd})' if a.repeat > 1 else ''}: "
                    + (
                        f"{eps:,.0f} ev/s, steady {row.get('steady_events_per_s') or 0:,.0f} ev/s, "
                        f"{row.get('cpu_s_per_m_events') or 0:.1f} CPU-s/M, "
                        f"start-up {row.get('startup_s') or 0:.1f} s, "
                        f"out {row.get('out_records')} (exp {row['expected']}), "
                        f"p50 {row.get('p50_ms')}, p99 {row.get('p99_ms')}, "
                        f"rss {(row.get('peak_rss') or 0) / 2**20:.0f} MiB"
                        if eps
                        else "failed"
                    )
                )
        engine = list(ENGINE) if a.engine == "all" else (a.engine or "none").split(",")
        for label in [e for e in engine if e != "none"]:
            w, keys, backend = ENGINE[label]
            engine_contenders = [c for c in contenders if c in ("streamsql", "flink")]
            for rnd, c in ((r, c) for r in rounds(label) for c in engine_contenders):
                spec = {"engine": True, "events": a.engine_events or events, "keys": keys, "backend": backend}
                res = run_contender(c, label, "", {}, a.interval_ms, timeout, extra=spec,
                                    flink_lock=a.flink_lock or None)
                engine_rows.append({"workload": label, "contender": c, "round": rnd, **res})
                log(f"    {c} {label} engine-only: {res.get('events_per_s') or 0:,.0f} ev/s, "
                    f"{res.get('cpu_s_per_m_events') or 0:.1f} CPU-s/M")
        scaling_rows = []
        if scaling:
            scaling_rows = run_scaling(a, events, dataset, timeout, a.scaling_contenders.split(","), rows)
    finally:
        delete_topics(created)
    from benchmarks.report import write_report

    meta = {
        "events": events,
        "interval_ms": a.interval_ms,
        "smoke": a.smoke,
        "latency_rate": a.latency_rate,
        "latency_seconds": a.latency_seconds,
        "minutes": (time.time() - t_run) / 60,
        "date": time.strftime("%Y-%m-%d %H:%M"),
        "machine": f"{os.cpu_count()} cores",
        "versions": _versions(),
        "backends": a.backends,
        "repeat": a.repeat,
        "repeat_only": a.repeat_only,
        "datasets": [asdict(d) for d in datasets.values()],
    }
    write_report(rows, scaling_rows, meta, out_dir, engine_rows)
    log(f"done in {meta['minutes']:.1f} min → {out_dir / 'results.md'}")
    return 0 if all(not r.get("error") or r.get("not_supported") for r in rows) else 1


def run_scaling(
    a, events: int, dataset, timeout: float, contenders: list[str], rows: list[dict]
) -> list[dict]:
    """AGG throughput + RSS per distinct-key count; throughput per checkpoint interval.

    Points the main run already measured (AGG10k, AGG1M at the main interval) are reused.
    """
    main = {(r["workload"], r["contender"]): r for r in rows if not r.get("error")}

    def point(c, keys, n, iv):
        w = {10_000: "AGG10k", 1_000_000: "AGG1M"}.get(keys)
        r = main.get((w, c))
        if r and r["events"] == n and iv == a.interval_ms:
            return r
        ds = dataset(keys, n)
        return run_contender(c, f"AGG{keys}", ds.topic, ds.end_offsets, iv, timeout * 2, compacted=True)

    out = []
    for keys in [int(k) for k in a.scaling_keys.split(",")]:
        n = max(events, keys)
        for c in contenders:
            res = point(c, keys, n, a.interval_ms)
            out.append(
                {
                    "figure": "keys",
                    "contender": c,
                    "keys": keys,
                    "events": n,
                    "events_per_s": res.get("events_per_s"),
                    "peak_rss": res.get("peak_rss"),
                    "checkpoint_ms": res.get("checkpoint_ms"),
                    "error": res.get("error"),
                }
            )
            log(
                f"    scaling keys={keys:,} {c}: {res.get('events_per_s') or 0:,.0f} ev/s, "
                f"rss {(res.get('peak_rss') or 0) / 2**20:.0f} MiB"
            )
    for iv in [int(x) for x in a.scaling_intervals.split(",")]:
        for c in contenders:
            res = point(c, 10_000, events, iv)
            out.append(
                {
                    "figure": "interval",
                    "contender": c,
                    "interval_ms": iv,
                    "events": events,
                    "events_per_s": res.get("events_per_s"),
                    "peak_rss": res.get("peak_rss"),
                    "checkpoint_ms": res.get("checkpoint_ms"),
                    "error": res.get("error"),
                }
            )
            log(f"    scaling interval={iv} ms {c}: {res.get('events_per_s') or 0:,.0f} ev/s")
    return out


if __name__ == "__main__":
    sys.exit(main())
