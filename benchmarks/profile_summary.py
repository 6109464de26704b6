"""Summarize a py-spy ``--format raw`` (collapsed stacks) profile: where the time goes.

By default only the samples inside the job loop (``JobRunner._loop``) and the pipeline's stage
threads (a source's fetch thread ``PrefetchingSource._run`` and decode thread
``PrefetchingSource._decode_run``, a sink's ``PipelinedSink._run``) count: start-up (imports,
planning) is left out. With more than one of them, the share of each thread is printed first
(they add up to 100 %; a thread's samples are time it ran, not time it held the GIL:
``python -m benchmarks.run --profile --profile-gil`` samples only the GIL's holder).
In a leaf frame, time spent in C (librdkafka, DuckDB, RocksDB, orjson) is charged to the Python
function that called it (e.g. ``TimedConsumer.consume`` is librdkafka's ``consume()``).

``python -m benchmarks.profile_summary results/profiles/streamsql-Q0.txt [--top 25]`` prints the
share of samples per function *including* callees (frames of streamsql/connectors and the big
libraries only) and per function *self* (the leaf frame).
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

FRAME = re.compile(r"^(?P<fn>.*?) \((?P<file>[^:()]+)(?::\d+)?\)$")


def short(frame: str) -> str:
    m = FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    f = m.group("file")
    for marker in ("site-packages/", "/work/main/", "lib/python3"):
        if marker in f:
            f = f.split(marker, 1)[1]
    return f"{f}:{m.group('fn')}"


#: The frames of the job's threads: the job loop and the pipeline's stages.
THREADS = "JobRunner._loop,PrefetchingSource._run,PrefetchingSource._decode_run,PipelinedSink._run"


def summarize(path: str, top: int = 25, within: str | None = THREADS) -> str:
    incl: Counter = Counter()
    self_: Counter = Counter()
    per_thread: Counter = Counter()
    roots = within.split(",") if within else []
    total = 0
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip()
        if not line:
            continue
        stack, _, n = line.rpartition(" ")
        try:
            n = int(n)
        except ValueError:
            continue
        frames = [short(f) for f in stack.split(";")]
        root = next((r for r in roots if any(f.endswith(r) for f in frames)), None)
        if within and root is None:
            continue  # start-up (imports, planning) and the harness's own threads
        per_thread[root] += n
        frames = [f for f in frames if not f.startswith(("process ", "thread "))] or frames
        total += n
        self_[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    out = [
        f"{path}: {total} samples" + (f" inside {within}" if within else ""),
        "",
    ]
    if len(per_thread) > 1:
        out += ["threads:"] + [f"  {100 * c / total:5.1f}%  {r}" for r, c in per_thread.most_common()] + [""]
    out += ["inclusive (streamsql / connectors frames):"]
    ours = [(f, c) for f, c in incl.most_common() if f.startswith(("streamsql/", "connectors/"))]
    out += [f"  {100 * c / total:5.1f}%  {f}" for f, c in ours[:top]]
    out += ["", "self (leaf frames):"]
    out += [f"  {100 * c / total:5.1f}%  {f}" for f, c in self_.most_common(top)]
    return "\n".join(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--within", default=THREADS,
                    help="only stacks through these frames, comma-separated ('' = all)")
    a = ap.parse_args()
    for f in a.files:
        print(summarize(f, a.top, a.within or None))
        print()
