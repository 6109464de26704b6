"""Peak memory of AGG variants, alternated on one loaded topic: ``python -m benchmarks.memory_ab``.

A memory A/B needs many runs of one workload on the same input, and the 10M-key input takes
minutes to load, so this loads a named topic once (``bench-mem-<keys>-<events>``, kept after the
run; ``--drop`` deletes it) and reuses it while its end offsets hold ``events`` records. Each
variant is a label with StreamSQL settings and environment variables::

    python -m benchmarks.memory_ab --keys 1000000 --events 2000000 --rounds 3 \\
        --variant base --variant small:taskmanager.memory.managed.size=64mb \\
        --variant arenas2:env.MALLOC_ARENA_MAX=2

Rounds alternate the order (A B, B A, ...); ``--workload Q2`` (or Q0, Q1, FN) runs that stateless
workload on the same topic instead of the AGG (the floor under it). Every run is the harness's
``run_contender`` (peak RSS of the process tree sampled every 0.2 s, CPU of the tree, events/s),
plus a probe inside the contender that notes, at its own RSS peak, glibc's ``mallinfo2``, the
RocksDB caches' counters and ``/proc/self/smaps`` (:mod:`benchmarks.memprobe`). One JSON line
per run goes to ``--out`` (appended) and stdout; the medians per variant are printed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from benchmarks import datagen
from benchmarks.common import BOOTSTRAP, admin, create_topic, delete_topics, end_offsets


def _topic(keys: int, events: int, drop: bool) -> tuple[str, dict[int, int]]:
    """The loaded input topic (created and loaded when absent or incomplete)."""
    name = f"bench-mem-{keys}-{events}"
    existing = admin().list_topics(timeout=10).topics
    if name in existing and not drop:
        ends = end_offsets(name)
        if sum(ends.values()) == events:
            return name, ends
        delete_topics([name])
    elif name in existing:
        delete_topics([name])
    create_topic(name)
    t0 = time.time()
    print(f"loading {events:,} bids ({keys:,} auctions) into {name}", flush=True)
    datagen.load(name, events, keys, BOOTSTRAP)
    print(f"  loaded in {time.time() - t0:.0f} s", flush=True)
    return name, end_offsets(name)


def parse_variant(text: str) -> tuple[str, dict[str, str], dict[str, str], dict[str, str]]:
    """``label[:KEY=VALUE,...]`` → (label, settings, environment, source options).

    ``env.NAME=V`` is an environment variable, ``src.KEY=V`` a WITH option of the kafka source,
    anything else a StreamSQL setting; ``tree=PATH`` (a setting here) runs StreamSQL from another
    checkout (the ``streamsql-baseline`` contender of :mod:`benchmarks.run`).

    >>> parse_variant("x:env.MALLOC_ARENA_MAX=2,taskmanager.memory.managed.size=64mb,src.a=1")
    ('x', {'taskmanager.memory.managed.size': '64mb'}, {'MALLOC_ARENA_MAX': '2'}, {'a': '1'})
    """
    label, _, rest = text.partition(":")
    settings: dict[str, str] = {}
    env: dict[str, str] = {}
    source: dict[str, str] = {}
    for kv in filter(None, rest.split(",")):
        k, _, v = kv.partition("=")
        if k.startswith("env."):
            env[k[4:]] = v
        elif k.startswith("src."):
            source[k[4:]] = v
        else:
            settings[k] = v
    return label, settings, env, source


def main(argv: list[str] | None = None) -> int:
    from benchmarks.run import run_contender

    ap = argparse.ArgumentParser(prog="python -m benchmarks.memory_ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("--keys", type=int, default=1_000_000)
    ap.add_argument("--events", type=int, default=2_000_000)
    ap.add_argument("--variant", action="append", default=[], help="label[:KEY=VALUE,...] (env.NAME=V: env)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--workload", default="AGG", help="AGG (the default) or a stateless one: Q0, Q1, Q2, FN")
    ap.add_argument("--interval-ms", type=int, default=1000)
    ap.add_argument("--backend", default="rocksdb")
    ap.add_argument("--timeout", type=float, default=3600)
    ap.add_argument("--out", default="benchmarks/results/memory_ab.jsonl")
    ap.add_argument("--load-only", action="store_true")
    ap.add_argument("--drop", action="store_true", help="delete and reload the topic first")
    a = ap.parse_args(argv)
    topic, ends = _topic(a.keys, a.events, a.drop)
    if a.load_only:
        return 0
    variants = [parse_variant(v) for v in a.variant or ["base"]]
    results: dict[str, list[dict]] = {v[0]: [] for v in variants}
    for r in range(a.rounds):
        for label, settings, env, source in variants if r % 2 == 0 else variants[::-1]:
            saved = {k: os.environ.get(k) for k in env}
            os.environ.update(env)
            try:
                conf = {k: v for k, v in settings.items() if k != "tree"}
                extra = {"backend": a.backend, "streamsql_config": conf, "memory_probe": True,
                         "source_options": source}
                contender = "streamsql"
                if "tree" in settings:
                    contender = "streamsql-baseline"
                    extra["streamsql_tree"] = os.path.abspath(settings["tree"])
                agg = a.workload == "AGG"
                res = run_contender(contender, f"AGG{a.keys}" if agg else a.workload, topic, ends,
                                    a.interval_ms, a.timeout, compacted=agg, extra=extra)
            finally:
                for k, v in saved.items():
                    if v is None:
                        os.environ.pop(k, None)
                    else:
                        os.environ[k] = v
            row = {"label": label, "round": r, "workload": a.workload, "keys": a.keys, "events": a.events,
                   "settings": settings,
                   "env": env, "source_options": source, "date": time.strftime("%Y-%m-%d %H:%M:%S"),
                   "load": os.getloadavg()[0],
                   **{k: res.get(k) for k in ("peak_rss", "events_per_s", "cpu_s_per_m_events", "error",
                                              "out_keys", "memory_at_peak", "steady_events_per_s")}}
            results[label].append(row)
            line = json.dumps(row)
            with open(a.out, "a") as f:
                f.write(line + "\n")
            print(f"{label:12} r{r} rss {(row['peak_rss'] or 0) / 2**20:6.0f} MiB  "
                  f"{row['events_per_s'] or 0:9,.0f} ev/s  {row['cpu_s_per_m_events'] or 0:5.1f} CPU-s/M  "
                  f"load {row['load']:.1f}  keys {row['out_keys']}  {(row['error'] or '')[:200]}", flush=True)
    print("median per variant:")
    for label, rows in results.items():
        ok = [x for x in rows if not x["error"] and x["peak_rss"]]
        if ok:
            rss = sorted(x["peak_rss"] / 2**20 for x in ok)
            print(f"  {label:12} rss {statistics.median(rss):.0f} MiB "
                  f"({rss[0]:.0f}-{rss[-1]:.0f}, n={len(ok)})  "
                  f"{statistics.median(x['events_per_s'] or 0 for x in ok):,.0f} ev/s  "
                  f"{statistics.median(x['cpu_s_per_m_events'] or 0 for x in ok):.1f} CPU-s/M")
    return 0


if __name__ == "__main__":
    sys.exit(main())
