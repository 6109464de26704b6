"""Summarize a py-spy ``--format raw`` (collapsed stacks) profile: where the time goes.

By default only the samples inside the job loop (``JobRunner._loop``) count: start-up (imports,
planning) is left out. In a leaf frame, time spent in C (librdkafka, DuckDB, RocksDB, orjson) is
charged to the Python function that called it (e.g. ``TimedConsumer.consume`` is librdkafka's
``consume()``).

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


def summarize(path: str, top: int = 25, within: str | None = "JobRunner._loop") -> str:
    incl: Counter = Counter()
    self_: Counter = Counter()
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
        if within and not any(f.endswith(within) for f in frames):
            continue  # start-up (imports, planning) and the harness's own threads
        frames = [f for f in frames if not f.startswith(("process ", "thread "))] or frames
        total += n
        self_[frames[-1]] += n
        for f in set(frames):
            incl[f] += n
    out = [
        f"{path}: {total} samples" + (f" inside {within}" if within else ""),
        "",
        "inclusive (streamsql / connectors frames):",
    ]
    ours = [(f, c) for f, c in incl.most_common() if f.startswith(("streamsql/", "connectors/"))]
    out += [f"  {100 * c / total:5.1f}%  {f}" for f, c in ours[:top]]
    out += ["", "self (leaf frames):"]
    out += [f"  {100 * c / total:5.1f}%  {f}" for f, c in self_.most_common(top)]
    return "\n".join(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--within", default="JobRunner._loop", help="only stacks through this frame ('' = all)")
    a = ap.parse_args()
    for f in a.files:
        print(summarize(f, a.top, a.within or None))
        print()
