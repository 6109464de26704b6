"""A seeded Nexmark-style bid generator and a loader into a 4-partition Kafka topic.

A bid is JSON ``{"auction", "bidder", "price", "channel", "url", "date_time", "extra"}`` as in
Nexmark's ``Bid`` (``date_time`` as Flink's SQL timestamp text ``yyyy-MM-dd HH:mm:ss.SSS``, UTC).

Keys: event ``i`` bids on auction ``AUCTION_BASE + (i * STRIDE) % keys`` — a permutation of the
``keys`` auction ids that visits every id once per ``keys`` events, so a data set of ``n >= keys``
events has exactly ``keys`` distinct auctions (what the AGG key-count figures need), spread
evenly. The message key is the auction id (text) and the partition ``auction % 4``: every
auction lives in one partition, which keyed-state engines that work per message key (Quix
Streams) need for a GROUP BY auction without a repartition topic.

Event time: ``date_time`` advances ``1000 / events_per_second`` ms per event from a fixed start
(backlog data sets), or is the wall clock at production (paced latency runs). The Kafka record
timestamp is set to ``date_time``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone

import numpy as np

AUCTION_BASE = 1000
STRIDE = 7919  # prime: (i * STRIDE) % keys is a permutation unless keys is a multiple of it
START_MS = 1_700_000_000_000  # 2023-11-14 22:13:20 UTC
CHANNELS = ["Google", "Facebook", "Baidu", "Apple"]


def fmt_ts(ms: int) -> str:
    """Epoch ms → ``yyyy-MM-dd HH:mm:ss.SSS`` (UTC)."""
    d = datetime.fromtimestamp(ms / 1000, tz=timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + f"{ms % 1000:03d}"


def parse_ts(s: str) -> float:
    """``yyyy-MM-dd HH:mm:ss[.SSS]`` (UTC, optional 'T'/'Z') → epoch ms."""
    s = s.rstrip("Z").replace("T", " ")
    return datetime.fromisoformat(s).replace(tzinfo=timezone.utc).timestamp() * 1000


@dataclass
class DataSet:
    """What was loaded: topic, counts, and the expected output sizes of each workload."""

    topic: str
    events: int
    keys: int
    end_offsets: dict[int, int] = field(default_factory=dict)
    q2_matches: int = 0
    distinct_auctions: int = 0
    load_seconds: float = 0.0


class BidGenerator:
    """Deterministic bids for ``seed``; ``batch(i0, n)`` gives events ``i0 .. i0+n-1``."""

    def __init__(self, keys: int, seed: int = 42, events_per_second: int = 10_000):
        self.keys = keys
        self.seed = seed
        self.ms_per_event = 1000.0 / events_per_second
        stride = STRIDE if keys % STRIDE else STRIDE + 2
        self.stride = stride

    def auctions(self, i0: int, n: int) -> np.ndarray:
        i = np.arange(i0, i0 + n, dtype=np.int64)
        return AUCTION_BASE + (i * self.stride) % self.keys

    def batch(self, i0: int, n: int, now_ms: int | None = None):
        """Yield ``(partition, key, value, timestamp_ms, auction)`` for events i0..i0+n-1."""
        rng = np.random.default_rng((self.seed, i0))
        auctions = self.auctions(i0, n)
        bidders = rng.integers(1000, 1_000_000, n)
        prices = rng.integers(100, 10_000_000, n)
        chans = rng.integers(0, len(CHANNELS), n)
        extra_len = rng.integers(0, 40, n)
        filler = "x" * 64
        for j in range(n):
            a = int(auctions[j])
            ts = now_ms if now_ms is not None else START_MS + int((i0 + j) * self.ms_per_event)
            ch = CHANNELS[chans[j]]
            value = (
                f'{{"auction":{a},"bidder":{int(bidders[j])},"price":{int(prices[j])},'
                f'"channel":"{ch}","url":"https://www.nexmark.com/{ch.lower()}/item.htm'
                f'?query=1&channel_id={a % 1000}",'
                f'"date_time":"{fmt_ts(ts)}","extra":"{filler[: int(extra_len[j])]}"}}'
            ).encode()
            yield a % 4, str(a).encode(), value, ts, a


def expected(keys: int, events: int) -> tuple[int, int]:
    """(Q2 matches, distinct auctions) for a data set."""
    gen = BidGenerator(keys)
    q2 = 0
    step = 1_000_000
    for i0 in range(0, events, step):
        a = gen.auctions(i0, min(step, events - i0))
        q2 += int(np.count_nonzero(a % 123 == 0))
    return q2, min(keys, events)


def producer(bootstrap: str):
    from confluent_kafka import Producer

    return Producer(
        {
            "bootstrap.servers": bootstrap,
            "linger.ms": 20,
            "batch.size": 1_000_000,
            "queue.buffering.max.messages": 1_000_000,
            "queue.buffering.max.kbytes": 1_048_576,
            "acks": "all",
            "enable.idempotence": True,
        }
    )


def load(topic: str, events: int, keys: int, bootstrap: str, seed: int = 42) -> DataSet:
    """Produce ``events`` bids into ``topic`` (backlog: synthetic event time) and flush."""
    gen = BidGenerator(keys, seed)
    p = producer(bootstrap)
    t0 = time.time()
    step = 50_000
    counts = [0, 0, 0, 0]
    for i0 in range(0, events, step):
        for part, key, value, ts, _a in gen.batch(i0, min(step, events - i0)):
            while True:
                try:
                    p.produce(topic, value, key, partition=part, timestamp=ts)
                    break
                except BufferError:
                    p.poll(0.05)
            counts[part] += 1
        p.poll(0)
    left = p.flush(120)
    if left:
        msg = f"{left} records not delivered to {topic}"
        raise RuntimeError(msg)
    q2, distinct = expected(keys, events)
    return DataSet(topic, events, keys, {i: c for i, c in enumerate(counts)}, q2, distinct, time.time() - t0)


def paced_offsets(events: int, keys: int, seed: int = 42) -> dict[int, int]:
    """End offsets per partition of a paced load of ``events`` into an empty topic."""
    a = BidGenerator(keys, seed).auctions(0, events)
    return {p: int(c) for p, c in enumerate(np.bincount(a % 4, minlength=4))}


def load_paced(topic: str, events: int, keys: int, rate: int, bootstrap: str, seed: int = 43) -> float:
    """Produce ``events`` bids at ``rate`` per second, event time = wall clock; returns seconds."""
    gen = BidGenerator(keys, seed)
    p = producer(bootstrap)
    p.poll(0)
    tick = 0.01
    per_tick = max(1, int(rate * tick))
    t0 = time.time()
    i0 = 0
    while i0 < events:
        target = t0 + (i0 / rate)
        d = target - time.time()
        if d > 0:
            time.sleep(d)
        n = min(per_tick, events - i0)
        now = int(time.time() * 1000)
        for part, key, value, _ts, _a in gen.batch(i0, n, now_ms=now):
            p.produce(topic, value, key, partition=part, timestamp=now)
        p.poll(0)
        i0 += n
    p.flush(60)
    return time.time() - t0


if __name__ == "__main__":  # quick look
    g = BidGenerator(10_000)
    for row in list(g.batch(0, 3)):
        print(row)
    random.seed(0)
