"""Fixtures for tests that need a real Kafka broker.

``kafka_bootstrap`` uses ``STREAMSQL_KAFKA_BOOTSTRAP`` when set; otherwise it
runs ``scripts/kafka-local.sh start`` (idempotent, fetches Kafka via Maven on
first use) and returns the local broker's address. The broker is left running
after the session on purpose: it is shared by test runs and examples, and
``scripts/kafka-local.sh stop`` stops it.
"""

from __future__ import annotations

import re
import time
import uuid
from collections.abc import Callable, Iterator

import pytest

from tests.local_services import local_service

__all__ = ["kafka_admin", "kafka_bootstrap", "kafka_topic_factory"]



@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    """Bootstrap address of a running broker (starting the local one if needed)."""
    return local_service("kafka-local.sh", "STREAMSQL_KAFKA_BOOTSTRAP")


@pytest.fixture(scope="session")
def kafka_admin(kafka_bootstrap: str):
    """A confluent_kafka AdminClient for the test broker.

    It never asks the broker to create a topic: librdkafka's default (``allow.auto.create.topics``
    true for this producer-type client) let its periodic metadata refresh of every topic it had
    looked up re-create the deleted ones (in the clean-clone CI at dc002d6 the broker
    auto-created 112 deleted test topics at once, 68 more three minutes later).
    """
    from confluent_kafka.admin import AdminClient

    return AdminClient({"bootstrap.servers": kafka_bootstrap, "allow.auto.create.topics": False})


@pytest.fixture
def kafka_topic_factory(kafka_admin) -> Iterator[Callable[..., str]]:
    """Yield ``make(name_hint, partitions=1, config=None) -> topic_name``.

    Each call creates a uniquely named topic and waits until every partition has
    a leader, so it can be produced to immediately. Topics are deleted
    (best effort) when the test ends.
    """
    from confluent_kafka.admin import NewTopic

    created: list[str] = []

    def make(name_hint: str = "t", partitions: int = 1, config: dict[str, str] | None = None) -> str:
        hint = re.sub(r"[^A-Za-z0-9._-]", "-", name_hint)[:100] or "t"
        name = f"{hint}-{uuid.uuid4().hex[:10]}"
        new = NewTopic(name, num_partitions=partitions, replication_factor=1, config=dict(config or {}))
        kafka_admin.create_topics([new], operation_timeout=30)[name].result(timeout=60)
        created.append(name)
        deadline = time.monotonic() + 30
        while True:
            md = kafka_admin.list_topics(topic=name, timeout=10).topics.get(name)
            if (
                md is not None
                and md.error is None
                and len(md.partitions) == partitions
                and all(p.leader >= 0 for p in md.partitions.values())
            ):
                return name
            if time.monotonic() > deadline:
                msg = f"topic {name} not ready after 30s"
                raise TimeoutError(msg)
            time.sleep(0.1)

    yield make

    if created:
        try:
            for fut in kafka_admin.delete_topics(created, operation_timeout=10).values():
                fut.result(timeout=15)
        except Exception:  # noqa: BLE001  (cleanup only; a leftover test topic is harmless)
            pass
