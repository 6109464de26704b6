"""Offsets asked while a new topic's partition has no leader yet are asked again (the Java client's retry).

A topic created just before a job opens answers NOT_LEADER_OR_FOLLOWER for a moment (seen in CI
under load: a bounded read of a fresh topic failed at open). The consumer here is a stand-in for
confluent_kafka's that answers with the broker's errors first, so the retry and its bound can be
checked without timing a real leader election.
"""

from __future__ import annotations

import pytest
from confluent_kafka import KafkaError, KafkaException
from streamsql.connectors.kafka.offsets import OffsetResolver

from streamsql.core.errors import ExecutionError
from tests.connectors.helpers import table_of


class _Consumer:
    """Raises ``errors`` (KafkaError codes) one per call, then answers ``(0, 7)``."""

    def __init__(self, errors):
        self.errors = list(errors)
        self.calls = 0

    def get_watermark_offsets(self, tp, timeout, cached):
        self.calls += 1
        if self.errors:
            raise KafkaException(KafkaError(self.errors.pop(0)))
        return 0, 7


def _resolver(consumer, wait_ms="2000"):
    table = table_of("e", {"connector": "kafka", "topic": "t", "properties.default.api.timeout.ms": wait_ms},
                     v="INT")
    return OffsetResolver(consumer, table, "Table 'e' (kafka source)", "127.0.0.1:9", "g")


def test_a_partition_without_a_leader_yet_is_asked_again():
    consumer = _Consumer([KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE])
    assert _resolver(consumer).watermarks(("t", 0)) == (0, 7)
    assert consumer.calls == 3


def test_another_error_is_not_asked_again():
    consumer = _Consumer([KafkaError.UNKNOWN_TOPIC_OR_PART])
    with pytest.raises(ExecutionError, match="Table 'e'"):
        _resolver(consumer).watermarks(("t", 0))
    assert consumer.calls == 1


def test_a_leader_still_missing_after_the_timeout_fails_the_open():
    consumer = _Consumer([KafkaError.NOT_LEADER_FOR_PARTITION] * 1000)
    with pytest.raises(ExecutionError, match="Table 'e'"):
        _resolver(consumer, wait_ms="300").watermarks(("t", 0))
    assert 1 < consumer.calls < 1000  # asked again, then given up at the timeout
