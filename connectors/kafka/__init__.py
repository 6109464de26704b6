"""The Kafka connectors: ``kafka`` (append-only topic) and ``upsert-kafka`` (keyed changelog).

One module per job:

- :mod:`.options` — the connectors' options (Flink's names) and their parsing;
- :mod:`.formats` — key/value formats of a table (``key.*``/``value.*``), option validation;
- :mod:`.errors` — librdkafka error events and exceptions as StreamSQL errors, timeouts;
- :mod:`.offsets` — startup and bounded modes resolved to offsets;
- :mod:`.reader` — the consumer: assignment, positions, bounded ends, splits, history;
- :mod:`.metadata` — metadata columns (``topic``, ``partition``, ``offset``, ``timestamp``, ...);
- :mod:`.decode` — messages → a source's batch (value, key, metadata, splits);
- :mod:`.producer` — the producer client (batched produce, delivery errors, flush);
- :mod:`.transactions` — the task's Kafka transaction, the exactly-once commit point (Committer);
- :mod:`.session` — the producer session a sink holds: its own producer or the transaction;
- :mod:`.source` — the ``kafka`` source; :mod:`.sink` — the ``kafka`` sink;
- :mod:`.upsert` — the ``upsert-kafka`` source and sink.

The two connectors are registered here. One commit path for exactly-once: the checkpoint
coordinator commits the registered committer (:class:`~.transactions.KafkaTransactions`), then
notifies the sinks, which release the rows they held since the pre-commit.
"""

import functools

from streamsql.connectors.kafka.metadata import not_null_metadata
from streamsql.connectors.kafka.options import KAFKA_OPTIONS, UPSERT_KAFKA_OPTIONS
from streamsql.connectors.kafka.sink import KafkaSink, guarantee_of
from streamsql.connectors.kafka.source import KafkaSource
from streamsql.connectors.kafka.unknown_keys import is_unknown, unknown_properties
from streamsql.connectors.kafka.upsert import UpsertKafkaSink, UpsertKafkaSource
from streamsql.connectors.registry import register

from streamsql.core.connector import ConnectorSpec


def _register(name: str, description: str, options, source_class, sink_class) -> None:
    """Register a Kafka connector; its capabilities are what its source and sink classes state.

    The planner gets them without creating a source or sink: the classes' ``check``,
    ``changelog_of``, ``accepts_updates``, ``requires_primary_key``, ``upserts``,
    ``default_guarantee`` and ``reason``. ``'properties.*'`` options pass to librdkafka; rows are
    encoded by formats.
    """
    register(
        ConnectorSpec(
            name=name,
            options=options,
            create_source=source_class,
            create_sink=sink_class,
            option_prefixes=("properties.",),
            description=description,
            uses_format=True,
            check_source=source_class.check,
            check_sink=sink_class.check,
            source_changelog=source_class.changelog_of,
            sink_accepts_updates=lambda t: sink_class.accepts_updates or sink_class.changelog_format(t),
            sink_retracts=lambda table: not sink_class.upserts and sink_class.changelog_format(table),
            sink_requires_primary_key=sink_class.requires_primary_key,
            sink_upserts=lambda table: sink_class.upserts,
            sink_always_upserts=lambda table: sink_class.upserts,
            sink_guarantee=functools.partial(guarantee_of, sink_class),
            sink_not_null=not_null_metadata,
            source_reads_columns=True,
            option_warnings=unknown_properties,
            knows_prefixed=lambda key: not is_unknown(key[len("properties."):]),
        )
    )


_register(
    "kafka",
    "Apache Kafka topic (append-only); the sink is at-least-once or exactly-once",
    KAFKA_OPTIONS,
    KafkaSource,
    KafkaSink,
)
_register(
    "upsert-kafka",
    "Kafka topic as an upsert changelog keyed by the PRIMARY KEY (tombstones delete)",
    UPSERT_KAFKA_OPTIONS,
    UpsertKafkaSource,
    UpsertKafkaSink,
)
