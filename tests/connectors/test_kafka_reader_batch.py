"""The Kafka reader's per-batch bookkeeping: the collector paused around consume(), row origins.

No broker: the reader's state is set as :meth:`KafkaReader.consume` leaves it.
"""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest
from streamsql.connectors.kafka.fetched import Located
from streamsql.connectors.kafka.reader import KafkaReader, gc_paused

from tests.connectors.helpers import table_of


@pytest.fixture
def gc_on():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_gc_paused_turns_the_collector_back_on_when_the_last_thread_leaves(gc_on):
    inside, leave = threading.Event(), threading.Event()

    def other():
        with gc_paused():
            inside.set()
            leave.wait(10)

    th = threading.Thread(target=other)
    th.start()
    assert inside.wait(10)
    assert not gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread is still inside
    leave.set()
    th.join(10)
    assert gc.isenabled()


def test_gc_paused_leaves_a_disabled_collector_disabled(gc_on):
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()
    gc.enable()


def test_gc_paused_restores_the_collector_after_an_error(gc_on):
    failure = "consume failed"
    with pytest.raises(RuntimeError), gc_paused():
        raise RuntimeError(failure)
    assert gc.isenabled()


def test_row_origins_name_the_records_without_holding_the_messages():
    table = table_of("t", {"connector": "kafka", "topic": "bids", "properties.bootstrap.servers": "x:1",
                           "format": "json"}, a="INT")
    reader = KafkaReader(table, "job")
    reader.parts = [("bids", 0), ("bids", 1), ("bids", 3)]
    msgs = [object() for _ in range(4)]  # what consume() returned: only its identity is used
    reader._located = (msgs, np.array([0, 2, 1, 2], np.int32), np.array([7, 40, 9, 41], np.int64))
    located = reader.located(msgs)
    reader._located = None  # advance() moved on; what the decode thread holds stays
    reader.parts.append(("bids", 4))  # a partition discovered after the fetch
    origin = located.origins(np.array([1, 3, 0]))  # rows 0..2 came from messages 1, 3, 0
    assert [origin(r) for r in range(3)] == ["bids[3]@40", "bids[3]@41", "bids[0]@7"]
    assert located.where(2) == "bids[1]@9"
    assert located.split_ids(np.array([3, 0])).tolist() == [2, 0]
    held = [c.cell_contents for c in origin.__closure__]
    assert not any(x is msgs or (isinstance(x, list) and x and x[0] is msgs[0]) for x in held)
    assert not any(x is reader for x in held)


def test_one_partition_gives_no_split_ids():
    located = Located(np.zeros(3, np.int32), np.array([5, 6, 7], np.int64), (("bids", 0),))
    assert located.split_ids(np.array([0, 2])) is None
    assert located.origins(np.array([2]))(0) == "bids[0]@7"


def test_consume_never_waits_with_the_collector_paused(gc_on):
    """An idle source's wait for records happens with the collector on (only the take of what is
    queued is paused), so a job waiting for input never keeps the garbage collector off."""
    calls = []

    class IdleConsumer:
        def consume(self, num_messages, timeout):
            calls.append((timeout, gc.isenabled()))
            return []

    table = table_of("t", {"connector": "kafka", "topic": "bids", "properties.bootstrap.servers": "x:1",
                           "format": "json"}, a="INT")
    reader = KafkaReader(table, "job")
    reader.consumer = IdleConsumer()
    reader.discovery_s = 0  # no partition discovery (it would ask the broker)
    assert reader.consume(10_000, 0.1) == []
    assert calls == [(0, False), (0.1, True)]
    assert gc.isenabled()


def test_the_consumer_prefetch_is_bounded_and_a_table_can_raise_it():
    """librdkafka's prefetch counts in a large-state job's RSS: 4 MB queued, responses of 2 MB per
    partition and 8 MB in all (queued records keep their whole response buffer), unless the table
    says otherwise."""
    opts = {"connector": "kafka", "topic": "bids", "properties.bootstrap.servers": "x:1", "format": "json"}
    cfg = KafkaReader(table_of("t", opts, a="INT"), "job")._consumer_config()
    assert cfg["queued.max.messages.kbytes"] == 4096
    assert cfg["fetch.max.bytes"] == 8 * 1024 * 1024
    assert cfg["max.partition.fetch.bytes"] == 2 * 1024 * 1024
    raised = {**opts, "properties.fetch.max.bytes": "52428800",
              "properties.queued.max.messages.kbytes": "65536"}
    cfg = KafkaReader(table_of("t", raised, a="INT"), "job")._consumer_config()
    assert cfg["fetch.max.bytes"] == "52428800"
    assert cfg["queued.max.messages.kbytes"] == "65536"
