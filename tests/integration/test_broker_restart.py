"""Deliver 7 of issue 12: a job survives broker restarts (and a slow sink) exactly once.

librdkafka reports brokers going down, never coming back; a producer (whose successful deliveries
are not reported), an idle consumer and an exchange reader kept "down since" set after a broker
restart and failed the job 30 s after the broker had gone, although it was back by then. The
crash campaign with broker restarts runs a broker of its own (``--broker-restarts``), so the
shared broker is never stopped; it takes minutes and is marked ``slow``.
"""

import argparse

import pytest
from confluent_kafka import KafkaError, KafkaException
from streamsql.connectors.kafka.errors import BROKER_DOWN_TIMEOUT_S, ErrorLatch
from streamsql.connectors.kafka.producer import ProducerHandle

from streamsql.core.errors import ExecutionError
from streamsql.testing import chaos
from streamsql.testing.chaos_broker import SHARED_PORT, PrivateBroker, faults


def _down_too_long(latch: ErrorLatch) -> None:
    """librdkafka said all brokers are down, longer ago than the bound."""
    latch(KafkaError(KafkaError._ALL_BROKERS_DOWN, "2/2 brokers are down"))
    latch.down_since -= BROKER_DOWN_TIMEOUT_S + 1


def test_deliver_7_producer_survives_brokers_that_came_back(kafka_bootstrap):
    """Deliver 7: after "all brokers down", a producer whose brokers answer again carries on."""
    handle = ProducerHandle({"bootstrap.servers": kafka_bootstrap}, "Table 'out' (kafka sink)")
    try:
        _down_too_long(handle.latch)
        handle.check()  # raised "unreachable for more than 30 s" although the broker was back
        assert handle.latch.down_since is None
    finally:
        handle.close()


class _Unreachable:
    def list_topics(self, timeout):
        raise KafkaException(KafkaError(KafkaError._TRANSPORT, "Connection refused"))


def test_deliver_7_brokers_still_down_fail_with_one_message():
    """Deliver 7: brokers that still do not answer when the time is up fail the job, saying so."""
    latch = ErrorLatch("Table 'src' (kafka source)", "127.0.0.1:1")
    latch.watch(_Unreachable())
    _down_too_long(latch)
    with pytest.raises(ExecutionError, match=r"Kafka brokers at 127.0.0.1:1 unreachable for more than 30 s"):
        latch.check()


def test_deliver_7_campaign_never_stops_the_shared_broker():
    """Deliver 7: the campaign's broker is its own; the shared one's port is refused."""
    with pytest.raises(ValueError, match="shared broker"):
        PrivateBroker(SHARED_PORT, "/tmp/unused")


def test_deliver_7_campaign_plan_spreads_kills_between_broker_restarts():
    """Deliver 7: kills follow broker restarts (a restart right after one), the rest at the end."""
    a = argparse.Namespace(broker_restarts=2, kills=3)
    assert faults(a) == ["broker", "kill", "broker", "kill", "kill"]


@pytest.mark.slow
@pytest.mark.parametrize("query,backend", [("agg", "rocksdb"), ("agg", "hashmap")])
def test_deliver_7_broker_restarts_and_slow_sink_are_exactly_once(query, backend, capsys):
    """Deliver 7: broker stopped 10 s twice mid-job, a throttled sink, two kill -9s: 0 lost, 0 dup."""
    rc = chaos.main(["--broker-restarts", "2", "--kills", "2", "--slow-sink", "65536", "--records", "20000",
                     "--feed-seconds", "40", "--query", query, "--backend", backend])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "broker_restarts=2 kills=2" in out and "lost=0 duplicated=0" in out
