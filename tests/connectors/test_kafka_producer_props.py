"""The non-transactional Kafka sink producer is idempotent with acks=all, as Flink's Java client.

Without idempotence, librdkafka writes a batch retried after a transient broker error behind the
batches sent after it: rows of one partition out of order (measured on the test broker: 2 of
480 partitions of fresh topics, records 3..187 landing after 191..239), so an upsert topic could
end on an older value of a key. The Java client Flink's sink uses has idempotence and acks=all
by default (Kafka 3.0+) for NONE and AT_LEAST_ONCE alike, and turns idempotence off only when
the user's settings conflict with it without setting it.
"""

from __future__ import annotations

import pytest
from confluent_kafka import Producer
from streamsql.connectors.kafka.session import producer_props

from tests.connectors.helpers import table_of

BASE = {"connector": "kafka", "topic": "t", "properties.bootstrap.servers": "127.0.0.1:1", "format": "json"}


def _props(guarantee: str, **user: str) -> dict:
    return producer_props(table_of("snk", {**BASE, **{f"properties.{k}": v for k, v in user.items()}},
                                   id="INT"), guarantee)


@pytest.mark.parametrize("guarantee", ["none", "at-least-once"])
def test_idempotent_with_acks_all_by_default(guarantee):
    props = _props(guarantee)
    assert props["enable.idempotence"] is True
    assert props["acks"] == "all"
    Producer({k: v for k, v in props.items()}).flush(0)  # librdkafka takes the combination


@pytest.mark.parametrize("user", [{"acks": "1"}, {"acks": "0"}, {"retries": "0"},
                                  {"max.in.flight.requests.per.connection": "10"}, {"acks": "one"}])
def test_settings_that_conflict_leave_idempotence_off(user):
    props = _props("at-least-once", **user)
    assert "enable.idempotence" not in props
    for k, v in user.items():
        assert props[k] == v


def test_compatible_settings_keep_it_and_an_explicit_choice_wins():
    assert _props("none", acks="-1", retries="5")["enable.idempotence"] is True
    assert _props("none", **{"max.in.flight.requests.per.connection": "5"})["enable.idempotence"] is True
    assert _props("none", **{"enable.idempotence": "false"})["enable.idempotence"] == "false"
