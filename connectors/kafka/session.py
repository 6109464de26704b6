"""The producer session a Kafka sink holds: what it writes through, by its delivery guarantee.

- ``exactly-once``: the task's Kafka transaction (:class:`~.transactions.KafkaTransactions`),
  shared by every exactly-once sink of the task; creating the session registers the transaction
  as the task's commit point. Rows become visible when the checkpoint commits.
- ``at-least-once``: a producer of the sink's own, flushed at each pre-commit.
- ``none``: a producer of its own, only polled at pre-commits.

Both are idempotent with ``acks=all`` unless the table's ``properties.*`` say otherwise, as the
Java client Flink's sink uses (its defaults since Kafka 3.0; see :func:`producer_props`).

Sinks hold a :class:`ProducerSession` (composition); they decide *what* to produce (rows,
upserts, tombstones), the session *how* it reaches Kafka.
"""

from __future__ import annotations

import random
import time
from typing import Any, Callable

import pyarrow as pa
from confluent_kafka import KafkaError, KafkaException
from streamsql.connectors.kafka.errors import execution_error
from streamsql.connectors.kafka.metadata import RecordMetadata
from streamsql.connectors.kafka.options import (
    librdkafka_props,
    metadata_timeout_s,
    resolve_guarantee,
    table_prefix,
)
from streamsql.connectors.kafka.producer import ProducerHandle
from streamsql.connectors.kafka.routing import TopicRouting
from streamsql.connectors.kafka.topics import missing_sink_topic
from streamsql.connectors.kafka.transactions import KafkaTransactions

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import ExecutionError

#: The librdkafka keys (aliases included) whose values can rule idempotence out, by what rules it out.
_CONFLICTS_WITH_IDEMPOTENCE = {
    "acks": lambda v: str(v).strip().lower() not in ("all", "-1"),
    "request.required.acks": lambda v: str(v).strip().lower() not in ("all", "-1"),
    "max.in.flight.requests.per.connection": lambda v: int(v) > 5,
    "max.in.flight": lambda v: int(v) > 5,
    "retries": lambda v: int(v) == 0,
    "message.send.max.retries": lambda v: int(v) == 0,
}


#: The librdkafka keys that choose the partition of a message without a key: when the table sets one,
#: librdkafka's partitioner places each such message (:meth:`ProducerSession.produce_many`).
_UNKEYED_PARTITIONER_KEYS = ("partitioner", "sticky.partitioning.linger.ms")


def producer_props(table: TableDef, guarantee: str) -> dict[str, Any]:
    """Librdkafka properties of a non-transactional sink producer (``guarantee``: none or at-least-once).

    Idempotent with ``acks=all``, as the Java client Flink's sink uses (its defaults since Kafka
    3.0, for NONE and AT_LEAST_ONCE alike): a request retried after a transient broker error then
    keeps its place. librdkafka's defaults (no idempotence, up to a million requests in flight)
    write a retried batch *behind* the batches sent after it, so the rows of a partition come out
    of order — an upsert topic can end on an older value of a key, an event-time reader sees
    late rows (measured on the test broker: 2 of 480 fresh partitions). As Java's client,
    idempotence stays off when the table's ``properties.*`` conflict with it (acks other than
    all, no retries, more than 5 requests in flight) and do not set ``enable.idempotence``.
    """
    user = librdkafka_props(table.options, table_prefix(table), "producer")
    props: dict[str, Any] = {"acks": "all", **user}
    if "enable.idempotence" not in user and not any(
            _rules_out(bad, user[k]) for k, bad in _CONFLICTS_WITH_IDEMPOTENCE.items() if k in user):
        props["enable.idempotence"] = True
    return props


def _rules_out(bad: Callable[[Any], bool], value: Any) -> bool:
    try:
        return bad(value)
    except ValueError:  # not a number: librdkafka refuses the value itself, naming the key
        return True


class ProducerSession:
    """How one sink's messages reach Kafka (see module docstring).

    Call order (the sink's): :meth:`open` once → :meth:`produce_many` → :meth:`pre_commit` at
    each barrier → ... → :meth:`close`. Nothing connects before :meth:`open`.

    Args:
        ctx: the sink's connector context (its table, and the task's resources for exactly-once).
        default_guarantee: the guarantee when ``'sink.delivery-guarantee'`` is unset
            (``'auto'``: see :func:`~.options.resolve_guarantee`).
        what: who writes, for error messages (``"Table 'out' (kafka sink)"``).

    Attributes:
        guarantee: ``'none'``, ``'at-least-once'`` or ``'exactly-once'``.
        routing: which topic each row goes to (:mod:`.routing`).
        topic: the sink's one topic, or None when each row names its topic.
        txn: the task's Kafka transaction (exactly-once), else None.
        handle: the producer client, set by :meth:`open`.

    Raises:
        ConfigError: for bad topic options (:class:`.routing.TopicRouting`), or when exactly-once
            sinks of one task disagree on the transaction's options.
    """

    def __init__(self, ctx: ConnectorContext, default_guarantee: str, what: str):
        self.table = ctx.table
        self.routing = TopicRouting(ctx.table, RecordMetadata(ctx.table).topic)
        self.topic = self.routing.single
        self._partitions: dict[str, int] = {}
        self.guarantee = resolve_guarantee(ctx.table, ctx.config, default_guarantee)
        self.what = what
        #: 'properties.max.block.ms' (s): how long a topic's metadata is waited for
        self.metadata_timeout_s = metadata_timeout_s(ctx.table, "producer")
        self.txn: KafkaTransactions | None = None
        if self.guarantee == "exactly-once":
            self.txn = KafkaTransactions.for_context(ctx)
        self.handle: ProducerHandle | None = None
        self._closed = False
        #: the last partition given to a batch of rows without a key, by topic (None: not chosen
        #: here; the table names librdkafka's partitioner); set by the first :meth:`produce_many`
        self._unkeyed: dict[str, int] | None = None
        self._unkeyed_set = False

    @property
    def transactional(self) -> bool:
        """Rows become visible only when the task's transaction commits."""
        return self.txn is not None

    @property
    def batch_produce(self) -> bool:
        """The producer takes a batch as one Arrow array in one call (``ProducerHandle.attach_batch``)."""
        return self.handle is not None and self.handle.batch is not None

    @property
    def is_open(self) -> bool:
        """:meth:`open` ran."""
        return self.handle is not None

    def open(self) -> int:
        """Connect (exactly-once: join the task's transaction, opening it first if needed).

        Returns:
            The partition count of the sink's one topic; 0 when rows name their topics (each is
            looked up as rows first reach it: :meth:`partitions`).

        Raises:
            ConfigError: when the topic does not exist and ``'sink.topic.auto-create'`` is
                not set (:mod:`.topics`).
            ExecutionError: when the brokers cannot be reached, or creating the topic fails.
        """
        if self.txn is not None:
            self.handle = self.txn.acquire()
        else:
            self.handle = ProducerHandle(producer_props(self.table, self.guarantee), self.what)
        return 0 if self.topic is None else self.partitions(self.topic)

    def partitions(self, topic: str) -> int:
        """The partition count of ``topic`` (looked up once; a missing topic as in :meth:`open`)."""
        n = self._partitions.get(topic)
        if n is None:
            n = self._partitions[topic] = self._partition_count(topic)
        return n

    def _partition_count(self, topic: str) -> int:
        tm = self._topic_metadata(topic)
        if tm is None:
            props = librdkafka_props(self.table.options)
            missing_sink_topic(self.table, topic, self.handle.bootstrap, props, self.what)
            # A topic just created reaches the producer's metadata a moment later: wait up to 10 s.
            deadline = time.monotonic() + 10.0
            tm = self._topic_metadata(topic)
            while tm is None and time.monotonic() < deadline:
                time.sleep(0.2)
                tm = self._topic_metadata(topic)
        if tm is None:  # created, but not yet in the metadata the producer sees
            msg = f"{self.what}: topic '{topic}' was created but is not visible yet; run again"
            raise ExecutionError(msg)
        if tm.error is not None and tm.error.code() != KafkaError.LEADER_NOT_AVAILABLE:
            msg = f"{self.what}: topic '{topic}': {tm.error.str()}"
            raise ExecutionError(msg)
        return max(1, len(tm.partitions))

    def _topic_metadata(self, topic: str):
        """The topic's metadata, or None when the broker does not know it."""
        h = self.handle
        try:
            md = h.producer.list_topics(topic=topic, timeout=self.metadata_timeout_s)
        except KafkaException as e:
            raise execution_error(h.what, e, h.bootstrap) from None
        tm = md.topics.get(topic)
        if tm is None or (tm.error is not None and tm.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
            return None
        return tm

    def produce_many(
        self,
        keys: list[bytes | None] | pa.Array | None,
        values: list[bytes | None] | pa.Array,
        partition: int = -1,
        timestamps: list[int] | None = None,
        headers: list | None = None,
        topic: str | None = None,
    ) -> None:
        """Produce one message per value (:meth:`.producer.ProducerHandle.produce_many`).

        ``topic``: where to (None: the sink's one topic); a topic the sink has not written yet is
        looked up first (:meth:`partitions`).

        Messages without a key and without a partition (``partition`` -1: ``'sink.partitioner'`` =
        ``'default'``) all go to one partition per call, the topic's partitions in turn from a
        random one (:meth:`_unkeyed_partition`): the sticky placement of Flink's sink (the Java
        producer's default partitioner keeps a partition for the records without a key until a
        batch is full, KIP-480/KIP-794), where librdkafka's own partitioner (sticky too, for
        ``sticky.partitioning.linger.ms`` = 10 ms) costs a lookup and a lock per message
        (``rd_kafka_produce_batch`` with a partition enqueues the whole batch at once: 0.34 → 0.24
        CPU-µs per message, ``benchmarks/README.md``, session 34). A table that sets librdkafka's
        ``'properties.partitioner'`` or ``'properties.sticky.partitioning.linger.ms'`` keeps
        librdkafka's placement.

        Raises:
            ConfigError: ``topic`` does not exist (and is not to be created).
            ExecutionError: for a Kafka error (e.g. message too large, producer fenced).
        """
        if topic is None:
            topic = self.topic
        elif topic not in self._partitions:
            self.partitions(topic)
        if partition < 0 and keys is None:
            partition = self._unkeyed_partition(topic)
        self.handle.produce_many(topic, keys, values, partition, timestamps, headers)

    def _unkeyed_partition(self, topic: str) -> int:
        """The partition of the next batch of messages without a key (-1: librdkafka's partitioner)."""
        if not self._unkeyed_set:
            user = librdkafka_props(self.table.options, table_prefix(self.table), "producer")
            self._unkeyed = None if any(k in user for k in _UNKEYED_PARTITIONER_KEYS) else {}
            self._unkeyed_set = True
        if self._unkeyed is None:
            return -1
        n = self.partitions(topic)  # as of the first write (a topic's partitions grow only by ALTER)
        last = self._unkeyed.get(topic)
        turn = random.randrange(n) if last is None else (last + 1) % n
        self._unkeyed[topic] = turn
        return turn

    def pre_commit(self) -> None:
        """The barrier: flush (guarantee ``none``: only serve delivery reports).

        Raises:
            ExecutionError: for failed deliveries.
        """
        if self.guarantee == "none":
            self.handle.producer.poll(0)
            self.handle.check()
        else:
            self.handle.flush()

    def flush(self) -> None:
        """Wait until every queued message is acknowledged.

        Raises:
            ExecutionError: for failed deliveries, or brokers down too long.
        """
        self.handle.flush()

    def abort(self) -> None:
        """From another thread (a cancel): the producer's waits give up (:meth:`ProducerHandle.abort`).

        Exactly-once: that is the task's transactional producer, whose commit in flight then
        fails unless it is past its own last wait; the checkpoint is then not committed.
        """
        if self.handle is not None:
            self.handle.abort()

    def close(self) -> None:
        """Release the producer; idempotent.

        Exactly-once: leave the transaction (its last user aborts what is uncommitted); else
        flush (bounded) and close the sink's own producer.
        """
        if self._closed:
            return
        self._closed = True
        if self.handle is None:
            return
        if self.txn is not None:
            self.txn.release()
        else:
            self.handle.close()
