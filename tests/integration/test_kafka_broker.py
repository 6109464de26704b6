"""Integration tests against a real Kafka broker (see scripts/kafka-local.sh).

They pin down the broker/client behaviour StreamSQL's exactly-once design
relies on: transactional visibility for read_committed consumers, and that
consumer offsets sent through a transaction keep their metadata string.
"""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import (
    Consumer,
    ConsumerGroupTopicPartitions,
    KafkaError,
    KafkaException,
    Producer,
    TopicPartition,
)


def _txn_producer(bootstrap: str) -> Producer:
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": f"test-txn-{uuid.uuid4().hex}"})
    p.init_transactions(30)
    return p


def _read_partition(
    bootstrap: str, topic: str, isolation: str, until: bytes, timeout: float = 30
) -> list[bytes]:
    """Read partition 0 from the start until the record ``until`` has been seen."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"reader-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "isolation.level": isolation,
        }
    )
    try:
        c.assign([TopicPartition(topic, 0, 0)])
        values: list[bytes] = []
        deadline = time.monotonic() + timeout
        while until not in values:
            if time.monotonic() > deadline:
                msg = f"did not see {until!r} within {timeout}s; got {values!r}"
                raise TimeoutError(msg)
            m = c.poll(0.5)
            if m is None:
                continue
            if m.error():
                raise KafkaException(m.error())
            values.append(m.value())
        return values
    finally:
        c.close()


def test_read_committed_sees_committed_but_not_aborted(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("txn-visibility")
    p = _txn_producer(kafka_bootstrap)

    p.begin_transaction()
    p.produce(topic, b"a1", partition=0)
    p.produce(topic, b"a2", partition=0)
    p.commit_transaction(30)

    p.begin_transaction()
    p.produce(topic, b"b1-aborted", partition=0)
    p.produce(topic, b"b2-aborted", partition=0)
    p.flush(30)  # make sure the aborted records are really written to the log
    p.abort_transaction(30)

    p.begin_transaction()
    p.produce(topic, b"c1", partition=0)
    p.commit_transaction(30)

    # Records of one partition are read in order, so once c1 is seen anything
    # visible from the aborted transaction would already have shown up.
    assert _read_partition(kafka_bootstrap, topic, "read_committed", until=b"c1") == [b"a1", b"a2", b"c1"]
    # Control: the aborted records are physically in the log.
    assert _read_partition(kafka_bootstrap, topic, "read_uncommitted", until=b"c1") == [
        b"a1",
        b"a2",
        b"b1-aborted",
        b"b2-aborted",
        b"c1",
    ]


@pytest.mark.parametrize("membership", ["assign", "subscribe"])
def test_txn_offset_commit_metadata_round_trips(
    kafka_bootstrap, kafka_admin, kafka_topic_factory, membership
):
    """Finding: metadata passed to send_offsets_to_transaction IS stored and returned.

    Holds both for a manually assigned consumer (group metadata with generation
    -1, no member id) and for a subscribed group member. Offsets of an aborted
    transaction are discarded, metadata included.
    """
    src = kafka_topic_factory("txn-meta-src")
    out = kafka_topic_factory("txn-meta-out")
    group = f"streamsql-test-{uuid.uuid4().hex[:10]}"
    p = _txn_producer(kafka_bootstrap)

    c = Consumer(
        {
            "bootstrap.servers": kafka_bootstrap,
            "group.id": group,
            "enable.auto.commit": False,
            "isolation.level": "read_committed",
            "auto.offset.reset": "earliest",
        }
    )
    reader = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        if membership == "assign":
            c.assign([TopicPartition(src, 0, 0)])
        else:
            c.subscribe([src])
            deadline = time.monotonic() + 30
            while not c.assignment():
                assert time.monotonic() < deadline, "no partitions assigned within 30s"
                c.poll(0.2)

        def committed() -> tuple[int, str | None]:
            (tp,) = reader.committed([TopicPartition(src, 0)], timeout=15)
            return tp.offset, tp.metadata

        p.begin_transaction()
        p.produce(out, b"result", partition=0)
        p.send_offsets_to_transaction(
            [TopicPartition(src, 0, 7, metadata="streamsql:chk=7")], c.consumer_group_metadata(), 30
        )
        p.commit_transaction(30)

        # A different consumer of the same group reads offset AND metadata back.
        assert committed() == (7, "streamsql:chk=7")
        # ...and so does the admin API.
        request = [ConsumerGroupTopicPartitions(group, [TopicPartition(src, 0)])]
        res = kafka_admin.list_consumer_group_offsets(request)
        (tp,) = res[group].result(timeout=15).topic_partitions
        assert (tp.offset, tp.metadata) == (7, "streamsql:chk=7")

        # Offsets (and their metadata) sent in an aborted transaction are discarded.
        p.begin_transaction()
        p.produce(out, b"discarded", partition=0)
        p.send_offsets_to_transaction(
            [TopicPartition(src, 0, 9, metadata="streamsql:chk=8")], c.consumer_group_metadata(), 30
        )
        p.abort_transaction(30)
        assert committed() == (7, "streamsql:chk=7")
    finally:
        reader.close()
        c.close()


def test_txn_offset_metadata_too_large_is_rejected(kafka_bootstrap, kafka_topic_factory):
    """offset.metadata.max.bytes (default 4096) bounds the metadata string.

    Observed on Kafka 4.1.2: 4095 chars are accepted, 4096 already fail. The
    failure makes the transaction abortable, and nothing gets committed.
    """
    src = kafka_topic_factory("txn-meta-big")
    group = f"streamsql-test-{uuid.uuid4().hex[:10]}"
    p = _txn_producer(kafka_bootstrap)
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        c.assign([TopicPartition(src, 0, 0)])
        p.begin_transaction()
        with pytest.raises(KafkaException) as info:
            p.send_offsets_to_transaction(
                [TopicPartition(src, 0, 3, metadata="m" * 5000)], c.consumer_group_metadata(), 30
            )
        err = info.value.args[0]
        assert err.code() == KafkaError.OFFSET_METADATA_TOO_LARGE
        assert err.txn_requires_abort()
        p.abort_transaction(30)
        (tp,) = c.committed([TopicPartition(src, 0)], timeout=15)
        assert tp.offset < 0  # nothing committed for the group

        # The producer is usable again after the abort.
        p.begin_transaction()
        p.send_offsets_to_transaction(
            [TopicPartition(src, 0, 3, metadata="m" * 4095)], c.consumer_group_metadata(), 30
        )
        p.commit_transaction(30)
        (tp,) = c.committed([TopicPartition(src, 0)], timeout=15)
        assert (tp.offset, len(tp.metadata)) == (3, 4095)
    finally:
        c.close()
