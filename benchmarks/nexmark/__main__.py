"""``python -m benchmarks.nexmark [run] ...`` (the benchmark, :mod:`.runner`), ``... load ...`` (events)
or ``... compare ...`` (final tables against Flink's, :mod:`.compare`)."""

from __future__ import annotations

import argparse
import sys

from benchmarks.common import BOOTSTRAP
from benchmarks.nexmark.results import options_arg


def _load(argv: list[str]) -> int:
    from benchmarks.nexmark import load

    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.nexmark load",
        description="Write the nexmark connector's events as JSON to a file or a topic.",
    )
    where = ap.add_mutually_exclusive_group(required=True)
    where.add_argument("--file", help="a JSON-lines file (replaced)")
    where.add_argument("--topic", help="a Kafka topic (appended to)")
    ap.add_argument("--bootstrap", default=BOOTSTRAP)
    ap.add_argument("--events", type=int, required=True)
    ap.add_argument("--rate", type=int, default=10_000_000, help="first-event.rate (events/s of event time)")
    ap.add_argument("--base-time", type=int, default=None, help="base-time (ms since the epoch)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="another nexmark connector option (seed, bid.proportion, ...); repeatable")
    a = ap.parse_args(argv)
    options = options_arg(ap, a.option)
    if a.file:
        load.to_file(a.file, a.events, a.rate, a.base_time, options)
    else:
        load.to_kafka(a.topic, a.bootstrap, a.events, a.rate, a.base_time, options)
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["load"]:
        return _load(argv[1:])
    if argv[:1] == ["compare"]:
        from benchmarks.nexmark import compare

        return compare.main(argv[1:])
    from benchmarks.nexmark import runner

    return runner.main(argv[1:] if argv[:1] == ["run"] else argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
