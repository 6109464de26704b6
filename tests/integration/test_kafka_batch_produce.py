"""librdkafka's batch produce on a transactional producer (connectors/kafka/native.py), real broker.

An exactly-once Kafka sink hands a batch's JSON texts to librdkafka as one Arrow array in one
call. What must hold: the same bytes, in order per partition, in the open transaction; a full
producer queue waits and goes on where it stopped (no message twice, none skipped); a message
librdkafka refuses fails with ``produce()``'s own error; a delivery that fails (no report reaches
Python for these messages) fails the transaction's commit; a producer dropped without ``close()``
is destroyed without hanging.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
import uuid

import pyarrow as pa
import pytest
from confluent_kafka import Consumer, KafkaException, TopicPartition
from streamsql.connectors.kafka.producer import ProducerHandle

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError


def _handle(bootstrap: str, **props) -> ProducerHandle:
    h = ProducerHandle({"bootstrap.servers": bootstrap, "transactional.id": f"batch-{uuid.uuid4().hex[:8]}",
                        "enable.idempotence": True, **props}, "test")
    h.producer.init_transactions(30)
    h.attach_batch()
    assert h.batch is not None, "the native batch produce is available on this platform"
    return h


def _read(bootstrap: str, topic: str, partitions: int, expect: int) -> dict[int, list[bytes]]:
    """The committed messages of ``topic``, read until ``expect`` have arrived (30 s at most).

    Not to the first partition EOF: ``commit_transaction()`` returns once the coordinator has
    decided (PrepareCommit); the markers reach the partitions after, so a read_committed reader
    started at once can meet the end of a partition at a last stable offset below the batch.
    """
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}",
                  "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: dict[int, list[bytes]] = {p: [] for p in range(partitions)}
    got, deadline = 0, time.monotonic() + 30
    try:
        while got < expect and time.monotonic() < deadline:
            for m in c.consume(10_000, 0.2):  # waits out its timeout unless the batch fills: short
                if m.error() is None:
                    out[m.partition()].append(m.value())
                    got += 1
        for m in c.consume(10_000, 2.0):  # anything past the expected count is a duplicate
            if m.error() is None:
                out[m.partition()].append(m.value())
    finally:
        c.close()
    return out


def test_a_batch_arrives_whole_in_order_and_only_once_committed(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("batch-produce", partitions=3)
    texts = [f'{{"i":{i},"s":"{"ü" * (i % 7)}\\n"}}' for i in range(25_000)] + [""]
    arr = pa.array(texts, pa.string()).slice(3)  # an offset into the buffers, as a sliced batch has
    h = _handle(kafka_bootstrap)
    try:
        h.producer.begin_transaction()
        h.in_txn = True
        h.produce_many(topic, None, arr.slice(0, 10_000))
        h.produce_many(topic, None, arr.slice(10_000))
        h.flush()
        h.producer.commit_transaction(30)
    finally:
        h.close()
    got = _read(kafka_bootstrap, topic, 3, len(texts) - 3)
    want = [t.encode() for t in texts[3:]]
    assert sorted(v for vs in got.values() for v in vs) == sorted(want)
    rank = {v: i for i, v in enumerate(want[:-1])}
    for values in got.values():  # each partition's messages in the order produced
        ranks = [rank[v] for v in values if v]
        assert ranks == sorted(ranks)


def _read_keyed(bootstrap: str, topic: str, partitions: int, expect: int) -> list[tuple]:
    """``(partition, key, value)`` of the committed messages of ``topic`` (as :func:`_read`)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}",
                  "isolation.level": "read_committed"})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out: list[tuple[int, bytes, bytes | None]] = []
    deadline = time.monotonic() + 30
    try:
        while len(out) < expect and time.monotonic() < deadline:
            out += [(m.partition(), m.key(), m.value()) for m in c.consume(10_000, 0.2) if m.error() is None]
        out += [(m.partition(), m.key(), m.value()) for m in c.consume(10_000, 2.0) if m.error() is None]
    finally:
        c.close()
    return out


def test_keyed_messages_and_tombstones_go_where_produce_puts_them(kafka_bootstrap, kafka_topic_factory):
    # The upsert-kafka sink's batch: keys from one Arrow array, a NULL value a tombstone (a record
    # whose value is null, not empty), each key in the partition produce() (murmur2) gives it.
    batched, single = (kafka_topic_factory(f"batch-keyed-{w}", partitions=4) for w in ("batch", "single"))
    n = 2_000
    keys = [f'{{"id":{i % 500}}}' for i in range(n)]
    values = [None if i % 7 == 3 else f'{{"v":{i}}}' for i in range(n)]
    h = _handle(kafka_bootstrap)
    try:
        h.producer.begin_transaction()
        h.in_txn = True
        h.produce_many(batched, pa.array(keys).slice(5), pa.array(values).slice(5))
        for k, v in zip(keys[5:], values[5:]):  # the reference: one produce() per message
            h.producer.produce(single, None if v is None else v.encode(), k.encode())
        h.flush()
        h.producer.commit_transaction(30)
    finally:
        h.close()
    got, want = (_read_keyed(kafka_bootstrap, t, 4, n - 5) for t in (batched, single))
    assert len(got) == n - 5 and sorted(got, key=repr) == sorted(want, key=repr)
    assert sum(v is None for _, _, v in got) == sum(v is None for v in values[5:])
    by_partition: dict[int, list] = {}
    for p, k, v in got:
        by_partition.setdefault(p, []).append((k, v))
    for p, msgs in by_partition.items():  # in the order produced within each partition
        assert msgs == [(k.encode(), v and v.encode()) for k, v in zip(keys[5:], values[5:])
                        if (k.encode(), v and v.encode()) in set(msgs)], p


def test_a_full_queue_waits_and_goes_on_where_it_stopped(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("batch-queue-full", partitions=1)
    texts = [f"m{i}" for i in range(5_000)]
    h = _handle(kafka_bootstrap, **{"queue.buffering.max.messages": 100})
    try:
        h.producer.begin_transaction()
        h.in_txn = True
        h.produce_many(topic, None, pa.array(texts), partition=0)
        h.flush()
        h.producer.commit_transaction(30)
    finally:
        h.close()
    assert _read(kafka_bootstrap, topic, 1, len(texts))[0] == [t.encode() for t in texts]


@pytest.mark.parametrize("batched", [True, False], ids=["batch-produce", "produce-per-row"])
def test_a_full_queue_of_lingering_messages_is_sent_without_waiting_for_the_linger(
        kafka_bootstrap, kafka_topic_factory, batched):
    # Keyed rows spread over 8 partitions: 100 per partition fill the queue of 800, far below
    # batch.num.messages and batch.size, so librdkafka holds them for linger.ms (here 20 s, the
    # transactional producer's default being 100 ms) and a produce that waited for room without
    # a flush took a linger per queue-full: 5 × 20 s here. ProducerHandle._wait_for_room flushes.
    topic = kafka_topic_factory("batch-queue-linger", partitions=8)
    n = 4_000
    keys = [f"k{i}" for i in range(n)]
    values = [f"v{i}" for i in range(n)]
    h = _handle(kafka_bootstrap, **{"queue.buffering.max.messages": 800, "linger.ms": 20_000})
    if not batched:
        h.batch.close()
        h.batch = None  # produce() per row (an at-least-once sink's path): BufferError when full
    try:
        h.producer.begin_transaction()
        h.in_txn = True
        started = time.monotonic()
        h.produce_many(topic, pa.array(keys), pa.array(values))
        took = time.monotonic() - started
        h.flush()
        h.producer.commit_transaction(30)
    finally:
        h.close()
    assert took < 10, f"{took:.1f} s to queue {n} messages through a queue of 800"
    got = _read_keyed(kafka_bootstrap, topic, 8, n)
    assert sorted((k, v) for _, k, v in got) == sorted((k.encode(), v.encode()) for k, v in zip(keys, values))
    for part in range(8):  # in the order produced within each partition
        mine = [(k, v) for p, k, v in got if p == part]
        assert mine == sorted(mine, key=lambda kv: int(kv[0][1:]))


def test_a_refused_message_fails_with_produces_own_error(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("batch-refused", partitions=1)
    h = _handle(kafka_bootstrap)
    try:  # no transaction begun: librdkafka refuses every message
        with pytest.raises(ExecutionError, match="(?i)state"):
            h.produce_many(topic, None, pa.array(["a", "b"]))
    finally:
        h.close()


def test_a_failed_delivery_fails_the_commit(kafka_bootstrap, kafka_topic_factory):
    # The broker rejects a message over the topic's max.message.bytes; no delivery report reaches
    # Python for a batch-produced message, so the transaction's commit must fail instead.
    topic = kafka_topic_factory("batch-too-large", partitions=1, config={"max.message.bytes": "2000"})
    h = _handle(kafka_bootstrap)
    try:
        h.producer.begin_transaction()
        h.in_txn = True
        h.produce_many(topic, None, pa.array(["small", "x" * 10_000]))
        h.producer.flush(30)
        # named as the at-least-once sink's delivery report would (producer._LogTap), where the next
        # produce said "Local: Erroneous state" and the commit "N message(s) failed delivery"
        named = rf"could not be delivered to Kafka, first: {topic}\[0\]: Broker: Message size too large"
        with pytest.raises(ExecutionError, match=named):
            h.produce_many(topic, None, pa.array(["later"]))
        with pytest.raises(KafkaException) as failed:
            h.producer.commit_transaction(30)
        assert failed.value.args[0].txn_requires_abort()
        h.producer.abort_transaction(30)
    finally:
        h.close()
    assert _read(kafka_bootstrap, topic, 1, 0)[0] == []


@pytest.mark.parametrize("guarantee", ["exactly-once", "at-least-once"])
def test_a_sink_s_failed_delivery_names_the_topic_under_either_guarantee(kafka_bootstrap, kafka_topic_factory,
                                                                          tmp_path, guarantee):
    topic = kafka_topic_factory(f"sink-too-large-{guarantee}", partitions=1,
                                config={"max.message.bytes": "2000"})
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path)}) as env:
        env.execute_sql(f"CREATE TABLE o (k STRING, v STRING) WITH ('connector' = 'kafka', "
                        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        f"'format' = 'json', 'sink.delivery-guarantee' = '{guarantee}', "
                        f"'sink.transactional-id-prefix' = '{topic}')")
        with pytest.raises(ExecutionError) as failed:
            env.execute_sql("INSERT INTO o VALUES ('a', 'small'), ('b', REPEAT('x', 5000))").job.wait()
    want = f"could not be delivered to Kafka, first: {topic}[0]: Broker: Message size too large"
    assert want in str(failed.value)


def test_a_producer_dropped_without_close_is_destroyed(kafka_bootstrap):
    script = textwrap.dedent(f"""
        import gc, pyarrow as pa
        from streamsql.connectors.kafka.producer import ProducerHandle
        h = ProducerHandle({{"bootstrap.servers": "{kafka_bootstrap}", "enable.idempotence": True,
                            "transactional.id": "drop-{uuid.uuid4().hex}"}}, "test")
        h.producer.init_transactions(30)
        h.attach_batch()
        h.producer.begin_transaction()
        h.batch.produce("drop-{uuid.uuid4().hex}", pa.array(["a"]))
        del h
        gc.collect()
        print("done")
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "done" in out.stdout

