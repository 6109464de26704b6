"""The soak: one unbounded exactly-once job for a long time, watching for leaks.

A ``datagen`` source (``--rate`` rows/s over ``--keys`` keys) feeds a ``GROUP BY`` count/sum
into an exactly-once ``upsert-kafka`` sink (a topic the run creates, compacted), checkpointing
every second — so every checkpoint commits a Kafka transaction, snapshots state and prunes old
checkpoints. Every ``--sample`` seconds the process's resident memory (``VmRSS``), open files
(``/proc/self/fd``) and threads (``/proc/self/task``) are recorded, with the RocksDB block cache's
usage (memtables included: the write-buffer manager charges them to it) where the backend is
``rocksdb``, and glibc's heap (``mallinfo2``: bytes in use and free in its arenas), which tells
growth of what is allocated from fragmentation. At the end the samples of
the minute around ``--compare`` are compared with those of the last minute (the highest of
each): RSS must be within 10 % (issue 12, Deliver 7), open files and threads must not grow
beyond what comes and goes between checkpoints (:data:`SLACK`) — a leak of one per checkpoint
would add hundreds.

usage (Linux; a broker on ``$STREAMSQL_KAFKA_BOOTSTRAP`` or 127.0.0.1:9092; not run in CI)::

    python -m streamsql.testing.soak --minutes 30 --compare 5          # the documented soak
    python -m streamsql.testing.soak --minutes 3 --compare 1           # a smoke run

Prints one line per sample and a verdict; exits 1 when a bound is broken or the job failed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
import uuid


def sample() -> dict[str, int]:
    """This process's resident memory (KiB), open file descriptors and threads."""
    with open("/proc/self/status", encoding="ascii") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return {"rss_kib": rss, "fds": len(os.listdir("/proc/self/fd")),
            "threads": len(os.listdir("/proc/self/task"))}


def rocksdb_usage() -> str:
    """``", RocksDB cache X MiB (memtables Y MiB)"`` per block cache in use; ``""`` for none."""
    from streamsql.state.rocksdb_memory import process_usage

    mib = 1024 * 1024
    return "".join(f", RocksDB cache {u['cache'] / mib:.1f} MiB (memtables {u['memtables'] / mib:.1f} MiB)"
                   for u in process_usage())


def heap_usage() -> str:
    """``", heap X MiB in use + Y MiB free"`` from glibc's ``mallinfo2`` (all arenas); ``""`` elsewhere."""
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd",
                                                         "usmblks", "fsmblks", "uordblks", "fordblks",
                                                         "keepcost")]

    try:
        mallinfo2 = ctypes.CDLL("libc.so.6").mallinfo2
    except (OSError, AttributeError):  # not glibc, or glibc before 2.33
        return ""
    mallinfo2.restype = MallInfo2
    info = mallinfo2()
    mib = 1024 * 1024
    return f", heap {(info.uordblks + info.hblkhd) / mib:.1f} MiB in use + {info.fordblks / mib:.1f} MiB free"


#: Open files and threads that come and go between checkpoints (sockets, RocksDB files).
SLACK = {"fds": 8, "threads": 2}


def peak(samples: list[tuple[float, dict[str, int]]], lo: float, hi: float) -> dict[str, int]:
    """The highest value of each measure over the samples taken between minutes ``lo`` and ``hi``."""
    window = [s for m, s in samples if lo <= m <= hi] or [samples[-1][1]]
    return {k: max(s[k] for s in window) for k in window[0]}


def verdict(before: dict[str, int], after: dict[str, int], rss_tolerance: float = 0.10) -> list[str]:
    """The bounds ``after`` (the last minute's peaks) breaks against ``before`` (empty: none)."""
    broken = []
    if after["rss_kib"] > before["rss_kib"] * (1 + rss_tolerance):
        broken.append(f"RSS grew {before['rss_kib']} -> {after['rss_kib']} KiB (> {rss_tolerance:.0%})")
    for key, slack in SLACK.items():
        if after[key] > before[key] + slack:
            broken.append(f"{key} grew {before[key]} -> {after[key]} (> {slack} more)")
    return broken


def main(argv: list[str] | None = None) -> int:
    """Run the soak; 0 when the bounds hold."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=30.0, help="how long the job runs")
    ap.add_argument("--compare", type=float, default=5.0, help="the minute the last one is compared with")
    ap.add_argument("--sample", type=float, default=30.0, help="seconds between samples")
    ap.add_argument("--rate", type=int, default=20000, help="rows per second")
    ap.add_argument("--keys", type=int, default=100000, help="distinct GROUP BY keys")
    ap.add_argument("--backend", default="rocksdb", choices=("rocksdb", "hashmap"))
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"))
    args = ap.parse_args(argv)
    if args.compare >= args.minutes:
        ap.error("--compare must be before the end (--minutes)")

    from streamsql import StreamEnvironment

    work = tempfile.mkdtemp(prefix="streamsql-soak-")
    topic = f"soak-{uuid.uuid4().hex[:8]}"
    env = StreamEnvironment({"execution.checkpointing.dir": os.path.join(work, "checkpoints"),
                             "state.dir": os.path.join(work, "state"), "state.backend.type": args.backend,
                             "execution.checkpointing.interval": "1 s"})
    env.execute_sql(f"CREATE TABLE src (k INT, v INT) WITH ('connector' = 'datagen', 'rows-per-second' = "
                    f"'{args.rate}', 'fields.k.min' = '0', 'fields.k.max' = '{args.keys - 1}', "
                    "'fields.v.min' = '0', 'fields.v.max' = '1000')")
    env.execute_sql(f"CREATE TABLE `out` (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                    f"'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
                    f"'{args.bootstrap}', 'key.format' = 'json', 'value.format' = 'json', "
                    "'sink.delivery-guarantee' = 'exactly-once', 'sink.topic.auto-create' = 'true')")
    job = env.execute_sql("INSERT INTO `out` SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").job
    start = time.monotonic()
    samples: list[tuple[float, dict[str, int]]] = []
    try:
        while (elapsed := time.monotonic() - start) < args.minutes * 60:
            if job.done:
                break
            s = sample()
            samples.append((elapsed / 60, s))
            cp = job.last_checkpoint.get("checkpoint_id", "-")
            print(f"minute {elapsed / 60:6.2f}: RSS {s['rss_kib'] / 1024:8.1f} MiB, {s['fds']:4d} open "
                  f"files, {s['threads']:3d} threads, {job.metrics.get('rows_in', 0)} rows in, "
                  f"checkpoint #{cp}{rocksdb_usage()}{heap_usage()}", flush=True)
            time.sleep(min(args.sample, max(0.0, args.minutes * 60 - elapsed)))
        failed = job.done
        if failed:
            print(f"[ERROR] the job ended: {job.status} {job.error or ''}")
    finally:
        env.close()
        shutil.rmtree(work, ignore_errors=True)
    end = samples[-1][0]
    before = peak(samples, args.compare - 0.5, args.compare + 0.5)
    after = peak(samples, end - 1, end)
    broken = [] if failed else verdict(before, after)
    print(f"minute {args.compare:g} {before} vs last minute {after}: " + ("; ".join(broken) or "flat"))
    print(f"(the job wrote topic {topic} on {args.bootstrap})")
    return 1 if failed or broken else 0


if __name__ == "__main__":
    sys.exit(main())
