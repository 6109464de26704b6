"""The harness's topic helpers against the real broker: a deleted topic is gone."""

from __future__ import annotations

import time

from benchmarks.common import create_topic, delete_topics, unique


def _exists(kafka_admin, name: str) -> bool:
    return name in kafka_admin.list_topics(timeout=10).topics


def test_delete_topics_deletes(kafka_bootstrap, kafka_admin):
    names = [create_topic(unique("bench-deltest"), partitions=2, bootstrap=kafka_bootstrap) for _ in range(2)]
    assert all(_exists(kafka_admin, n) for n in names)
    delete_topics(names, bootstrap=kafka_bootstrap)
    deadline = time.time() + 30  # the broker's metadata may lag the delete
    while any(_exists(kafka_admin, n) for n in names) and time.time() < deadline:
        time.sleep(0.2)
    assert not any(_exists(kafka_admin, n) for n in names)


def test_delete_topics_of_absent_topic_is_quiet(kafka_bootstrap):
    delete_topics([unique("bench-never-created")], bootstrap=kafka_bootstrap)

