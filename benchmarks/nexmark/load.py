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


def _run(target_with: str, events: int, rate: int, base_time_ms: int | None, config: dict[str, str]) -> None:
    from streamsql import StreamEnvironment

    work = tempfile.mkdtemp(prefix="nexmark_load_")
    with StreamEnvironment(
        {
            "state.dir": os.path.join(work, "state"),
            "execution.checkpointing.dir": os.path.join(work, "cp"),
            **config,
        }
    ) as env:
        env.execute_sql(sql.events_table(sql.nexmark_options(events, rate, base_time_ms), "gen"))
        env.execute_sql(f"CREATE TABLE target ({DDL_COLUMNS}) WITH (\n{target_with}\n)")
        env.execute_sql("INSERT INTO target SELECT event_type, person, auction, bid FROM gen").job.wait()


def to_file(path: str, events: int, rate: int = 10_000_000, base_time_ms: int | None = None) -> None:
    """Write ``events`` events to the JSON-lines file ``path`` (replaced)."""
    if os.path.exists(path):
        os.remove(path)
    _run(sql.file_options(path), events, rate, base_time_ms, {})


def to_kafka(
    topic: str, bootstrap: str, events: int, rate: int = 10_000_000, base_time_ms: int | None = None
) -> None:
    """Append ``events`` events to the Kafka topic (JSON values, exactly-once)."""
    opts = (
        f"    'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',\n"
        "    'format' = 'json'"
    )
    _run(opts, events, rate, base_time_ms, {"execution.checkpointing.interval": "1 s"})
