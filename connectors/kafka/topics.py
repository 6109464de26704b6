"""Sink topics: a missing one fails clearly or is created on purpose, never by a side effect.

librdkafka's producer asks the broker to create any topic its metadata requests name (its
``allow.auto.create.topics`` defaults to true for producers, and brokers default to
``auto.create.topics.enable=true``), so merely looking a sink topic up used to create it with
the broker's defaults (1 partition, not compacted), and the next run wrote into it. Every
producer StreamSQL makes sets ``allow.auto.create.topics=false`` (:data:`NO_AUTO_CREATE`;
``'properties.allow.auto.create.topics'`` still overrides it on purpose). A missing sink topic
fails the job naming ``'sink.topic.auto-create'``; with that option set the topic is created
through the admin API with ``'sink.topic.auto-create.partitions'``, ``.replication-factor`` and
``.cleanup-policy`` (default ``compact`` for ``upsert-kafka``, ``delete`` for ``kafka``).
"""

from __future__ import annotations

import logging
from typing import Any

from confluent_kafka import KafkaError, KafkaException
from confluent_kafka.admin import NewTopic
from streamsql.connectors.kafka.admin import admin_client
from streamsql.connectors.kafka.errors import execution_error
from streamsql.connectors.kafka.options import CLEANUP_DEFAULT, int_option, table_prefix

from streamsql.core.catalog import TableDef
from streamsql.core.errors import ConfigError

log = logging.getLogger(__name__)

#: librdkafka property that keeps a producer's metadata requests from creating topics.
NO_AUTO_CREATE = {"allow.auto.create.topics": False}
#: How long the broker may take to create a topic.
CREATE_TIMEOUT_S = 30.0


def create_topic(
    admin_props: dict[str, Any],
    topic: str,
    what: str,
    partitions: int = -1,
    replication_factor: int = -1,
    config: dict[str, str] | None = None,
) -> bool:
    """Create ``topic`` through the admin API (-1 = the broker's default).

    Args:
        admin_props: librdkafka properties of the admin client (``bootstrap.servers`` included).
        topic: the topic name.
        what: who creates it, for error messages.
        partitions: partition count.
        replication_factor: replicas per partition.
        config: topic configs (``{"cleanup.policy": "compact"}``).

    Returns:
        True when this call created it, False when it already existed.

    Raises:
        ExecutionError: when the broker refuses or cannot be reached.
    """
    admin = admin_client(admin_props, what)
    new = NewTopic(topic, num_partitions=partitions, replication_factor=replication_factor,
                   config=config or {})
    try:
        future = admin.create_topics([new], operation_timeout=CREATE_TIMEOUT_S)[topic]
        future.result(timeout=2 * CREATE_TIMEOUT_S)
    except KafkaException as e:
        err = e.args[0] if e.args else None
        if isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS:
            return False
        msg = f"{what}: creating topic '{topic}'"
        raise execution_error(msg, e, str(admin_props.get("bootstrap.servers"))) from None
    return True


def missing_sink_topic(
    table: TableDef, topic: str, bootstrap: str, admin_props: dict[str, Any], what: str
) -> None:
    """A sink's topic does not exist: create it when the table says so, else raise.

    Raises:
        ConfigError: without ``'sink.topic.auto-create' = 'true'`` (naming it), or for a bad
            partitions / replication factor option.
        ExecutionError: when creating fails.
    """
    o = table.options
    if o.get("sink.topic.auto-create", "false").lower() != "true":
        msg = (
            f"{table_prefix(table)}topic '{topic}' does not exist on {bootstrap}; create it first, "
            "or set 'sink.topic.auto-create' = 'true' (with 'sink.topic.auto-create.partitions')"
        )
        raise ConfigError(msg)
    partitions = int_option(table, "sink.topic.auto-create.partitions", "-1")
    replicas = int_option(table, "sink.topic.auto-create.replication-factor", "-1")
    policy = o.get("sink.topic.auto-create.cleanup-policy") or CLEANUP_DEFAULT[table.connector]
    if create_topic(admin_props, topic, what, partitions, replicas, {"cleanup.policy": policy}):
        log.info("%s: created topic '%s' (partitions %s, cleanup.policy %s)", what, topic,
                 "broker default" if partitions < 0 else partitions, policy)
