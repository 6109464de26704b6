"""The JSON decode of the benchmark's bids, per step: CPU-µs per record of each fast path, A/B.

``python -m benchmarks.decode_ab [--rounds 6] [--records 10000]``: 10,000 bids
(:class:`benchmarks.datagen.BidGenerator`) decoded by the ``json`` format's decoder with all 7
columns (Q0, Q1) and narrowed to Q2's (auction, price, date_time; AGG and WIN read fewer), with
its msgspec fast path (:mod:`connectors.formats.json_msgspec`; a narrowed decoder's own, set up
here for the 7 columns too) and without it (Arrow's reader, as before session 32). Each
candidate runs in a process of its own (Arrow's memory pool and Python's allocator do not share
one process's history), the four alternated, ``--rounds`` times; a process reports the least
process CPU (Arrow's threads included) of 7 repetitions of 10 decodes. Prints each round and the
medians, and the median of the per-round differences.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

CANDIDATES = ("arrow7", "msgspec7", "arrowQ2", "msgspecQ2")
COLUMNS = [("auction", "BIGINT"), ("bidder", "BIGINT"), ("price", "BIGINT"), ("channel", "STRING"),
           ("url", "STRING"), ("date_time", "TIMESTAMP(3)"), ("extra", "STRING")]


def measure(candidate: str, records: int) -> float:
    """Least CPU-µs per record of 7 x 10 decodes of ``records`` bids by ``candidate``."""
    from streamsql.connectors.formats.json import JsonDecoder, read_schema
    from streamsql.connectors.formats.json_msgspec import MsgspecReader

    from benchmarks.datagen import BidGenerator
    from streamsql.core.types import Field, Schema, SqlType

    values = [v for _, _, v, _, _ in BidGenerator(10_000).batch(0, records)]
    schema = Schema([Field(n, SqlType.parse(t)) for n, t in COLUMNS])
    decoder = JsonDecoder(schema, {})
    if candidate.endswith("Q2"):
        decoder.narrow(frozenset({("auction",), ("price",), ("date_time",)}))
    if candidate.startswith("arrow"):
        decoder._msg = None  # noqa: SLF001
    elif candidate == "msgspec7":  # not the decoder's own choice (all columns read): the A/B behind it
        decoder._msg = MsgspecReader(schema, schema, read_schema(schema), False)  # noqa: SLF001
    best = float("inf")
    for _ in range(7):
        t0 = time.process_time()
        for _ in range(10):
            decoder.decode(values, str)
        best = min(best, (time.process_time() - t0) / 10 / records * 1e6)
    if (decoder._msg is None) != candidate.startswith("arrow"):  # noqa: SLF001
        msg = f"{candidate}: the msgspec path switched off on the benchmark's bids"
        raise AssertionError(msg)
    return best


def main() -> None:
    """Alternate the candidates in subprocesses and print the rounds and medians."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--records", type=int, default=10_000)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # a child process: measure this candidate
    args = ap.parse_args()
    if args.one:
        print(measure(args.one, args.records))
        return
    got: dict[str, list[float]] = {c: [] for c in CANDIDATES}
    for r in range(args.rounds):
        for c in CANDIDATES:
            out = subprocess.run([sys.executable, "-m", "benchmarks.decode_ab", "--one", c,
                                  "--records", str(args.records)], capture_output=True, text=True, check=True)
            got[c].append(float(out.stdout.split()[-1]))
        load = open("/proc/loadavg").read().split()[0]  # noqa: SIM115
        print(f"round {r + 1} (load {load}): " + ", ".join(f"{c} {got[c][-1]:.3f}" for c in CANDIDATES))
    for c in CANDIDATES:
        print(f"{c:10s} median {statistics.median(got[c]):.3f} CPU-µs/record (least {min(got[c]):.3f})")
    for a, b in (("arrow7", "msgspec7"), ("arrowQ2", "msgspecQ2")):
        d = statistics.median(y - x for x, y in zip(got[a], got[b]))
        print(f"{b} - {a}: median of the rounds' differences {d:+.3f} ({d / statistics.median(got[a]):+.0%})")


if __name__ == "__main__":
    main()
