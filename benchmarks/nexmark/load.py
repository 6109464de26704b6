"""Write the nexmark connector's events to a JSON-lines file or a Kafka topic (Nexmark's insert_kafka.sql).

A StreamSQL job: the ``nexmark`` source → a ``filesystem`` (json) or ``kafka`` (json) table with
the same four physical columns, ``INSERT INTO ... SELECT event_type, person, auction, bid`` as
Nexmark's ``insert_kafka.sql``. Flink reads the result through the same events DDL
(:mod:`benchmarks.nexmark.sql`), so both engines see the same events.
"""

from __future__ import annotations

import os
import tempfile

from streamsql.connectors.nexmark import DDL_COLUMNS

from benchmarks.nexmark import sql


def _run(target_with: str, events: int, rate: int, base_time_ms: int | None, config: dict[str, str],
         options: dict[str, str] | None = None) -> None:
    from streamsql import StreamEnvironment

    work = tempfile.mkdtemp(prefix="nexmark_load_")
    with StreamEnvironment(
        {
            "state.dir": os.path.join(work, "state"),
            "execution.checkpointing.dir": os.path.join(work, "cp"),
            **config,
        }
    ) as env:
        env.execute_sql(sql.events_table(sql.nexmark_options(events, rate, base_time_ms, options), "gen"))
        env.execute_sql(f"CREATE TABLE target ({DDL_COLUMNS}) WITH (\n{target_with}\n)")
        env.execute_sql("INSERT INTO target SELECT event_type, person, auction, bid FROM gen").job.wait()


def to_file(path: str, events: int, rate: int = 10_000_000, base_time_ms: int | None = None,
            options: dict[str, str] | None = None) -> None:
    """Write ``events`` events to the JSON-lines file ``path`` (replaced), more connector ``options``."""
    if os.path.exists(path):
        os.remove(path)
    _run(sql.file_options(path), events, rate, base_time_ms, {}, options)


def to_kafka(
    topic: str, bootstrap: str, events: int, rate: int = 10_000_000, base_time_ms: int | None = None,
    options: dict[str, str] | None = None,
) -> None:
    """Append ``events`` events to the Kafka topic (JSON, exactly-once), more connector ``options``."""
    opts = (
        f"    'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',\n"
        "    'format' = 'json'"
    )
    _run(opts, events, rate, base_time_ms, {"execution.checkpointing.interval": "1 s"}, options)


def committed_records(topic: str, bootstrap: str) -> int | None:
    """The records a ``read_committed`` reader sees in ``topic`` (all partitions); None if there is no topic.

    Reads the whole topic without decoding (seconds per million events) up to each partition's
    end: offsets alone cannot say, as each transaction of the exactly-once loader adds a marker.
    """
    from confluent_kafka import Consumer, KafkaError, TopicPartition

    from benchmarks.common import unique

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": unique("nexmark-count"),
                  "isolation.level": "read_committed", "enable.auto.commit": False,
                  "enable.partition.eof": True, "allow.auto.create.topics": False})
    try:
        md = c.list_topics(topic, timeout=10).topics.get(topic)
        if md is None or md.error is not None:
            return None
        c.assign([TopicPartition(topic, p, 0) for p in md.partitions])  # 0 = offset, from the start
        count, reading = 0, set(md.partitions)
        while reading:
            # consume() waits out its timeout unless the batch fills: 5 s cost every small topic 5 s
            for m in c.consume(10_000, timeout=0.2):
                if m.error() is None:
                    count += 1
                elif m.error().code() == KafkaError._PARTITION_EOF:
                    reading.discard(m.partition())
                else:
                    msg = f"counting {topic}: {m.error()}"
                    raise RuntimeError(msg)
        return count
    finally:
        c.close()
