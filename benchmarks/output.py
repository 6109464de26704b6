"""Reading a contender's output back: counts, the steady rate from its timestamps, latency.

Output topics use ``LogAppendTime`` (:func:`benchmarks.common.create_topic`), so a record's
timestamp is when it was written; :func:`steady_rate` turns those and the event time each
record carries into the warm throughput (see ``benchmarks/README.md``: Metrics).
"""

from __future__ import annotations

import threading
import time

import numpy as np

from benchmarks import common, datagen
from benchmarks.common import end_offsets, unique


def _consumer(group_hint: str):
    from confluent_kafka import Consumer

    return Consumer(
        {
            "bootstrap.servers": common.BOOTSTRAP,  # read at the call: tests point it elsewhere
            "group.id": unique(group_hint),
            "isolation.level": "read_committed",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "auto.offset.reset": "earliest",
            "fetch.wait.max.ms": 10,
        }
    )


def count_output(topic: str, keys: bool = False, timeout: float = 300,
                 field: str | None = None) -> tuple[int, int, list[tuple[int, bytes]]]:
    """(records, distinct keys, [(record timestamp ms, ``field``'s JSON text)]) read_committed.

    The samples are taken when ``field`` is given (the output topics use LogAppendTime, so the
    timestamp is when the record was written).
    """
    from confluent_kafka import TopicPartition

    ends = end_offsets(topic)
    c = _consumer("bench-count")
    c.assign([TopicPartition(topic, p, 0) for p in ends])
    pending = {p for p, e in ends.items() if e > 0}
    n, seen, samples = 0, set(), []
    needle = f'"{field}":"'.encode() if field else None
    deadline = time.time() + timeout
    while pending and time.time() < deadline:
        msgs = c.consume(10_000, 0.2)
        for m in msgs:
            if m.error() is not None:
                continue
            n += 1
            if keys:
                seen.add(m.key())
            if needle is not None and m.value() is not None:
                v = m.value()
                at = v.find(needle)
                if at >= 0:
                    at += len(needle)
                    samples.append((m.timestamp()[1], v[at : v.index(b'"', at)]))
        if msgs:
            continue  # drain first: the position can pass the end while messages are still queued
        # done when the position (past control records too) reached the end offset
        for tp in c.position([TopicPartition(topic, p) for p in list(pending)]):
            if tp.offset >= ends[tp.partition]:
                pending.discard(tp.partition)
    c.close()
    return n, len(seen), samples


def steady_rate(samples: list[tuple[int, bytes]], events: int, ms_per_event: float) -> dict:
    """Warm throughput from the output's own timestamps: input events per second after the first half.

    Each output record carries an event time (``date_time``, AGG's ``MAX(date_time)``, WIN's
    ``window_end``) that says how far into the input its producer had read: event *i* has event
    time ``START_MS + i · ms_per_event``. With P(t) the furthest event reflected by the output
    written until append time t: rate = (P(end) − N/2) / (end − the first t with P(t) ≥ N/2).
    Also ``first_output_ms``, the append time of the first output record.
    """
    if not samples:
        return {"steady_events_per_s": None, "first_output_ms": None}
    t = np.array([s[0] for s in samples], np.int64)
    ts = np.array([s[1].decode() for s in samples], "datetime64[ms]").astype(np.int64)
    order = np.argsort(t, kind="stable")
    t, progress = t[order], np.maximum.accumulate((ts[order] - datagen.START_MS) / ms_per_event)
    half = np.searchsorted(progress, events / 2)
    out = {"first_output_ms": int(t[0]), "steady_events_per_s": None}
    if half < len(t) and t[-1] > t[half]:
        out["steady_events_per_s"] = float((progress[-1] - progress[half]) / ((t[-1] - t[half]) / 1000))
    return out


class LatencyReader(threading.Thread):
    """Consumes ``topic`` (read_committed) and records visible time − input time per record."""

    def __init__(self, topic: str, field: str):
        super().__init__(daemon=True)
        self.topic, self.field = topic, field
        self.samples: list[tuple[float, float]] = []  # (input ts ms, latency ms)
        self.stop = threading.Event()
        self.c = _consumer("bench-lat")
        self.c.subscribe([topic])

    def run(self) -> None:
        import orjson

        parse, field, out = datagen.parse_ts, self.field, self.samples
        while not self.stop.is_set():
            msgs = self.c.consume(5_000, 0.05)
            now = time.time() * 1000
            for m in msgs:
                if m.error() is not None or m.value() is None:
                    continue
                try:
                    ts = parse(orjson.loads(m.value())[field])
                except Exception:  # noqa: BLE001
                    continue
                out.append((ts, now - ts))
        self.c.close()
