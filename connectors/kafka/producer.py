"""The producer side's client: a librdkafka producer with batched produce and error checks.

:class:`ProducerHandle` is the client every Kafka writer uses — a sink's own producer
(:mod:`.session`) or the task's transactional producer (:mod:`.transactions`).
"""

from __future__ import annotations

import re
import time
from typing import Any

import pyarrow as pa
from confluent_kafka import KafkaError, KafkaException, Message, Producer
from streamsql.connectors.kafka.errors import (
    MISSING_TOPIC_CODES,
    PROBE_TIMEOUT_S,
    RDKAFKA_LOG,
    ErrorLatch,
    execution_error,
    new_client,
)
from streamsql.connectors.kafka.native import BatchProducer, QueueFull, RefusedMessage, payload_list
from streamsql.connectors.kafka.topics import NO_AUTO_CREATE

from streamsql.core.errors import ExecutionError, FencedError

#: librdkafka's producer queue (messages in it or in flight to the brokers) for every Kafka writer
#: of a job, unless its table sets these keys (or Java's ``buffer.memory``): librdkafka's own
#: defaults, 100,000 messages and 1 GiB, let a slow sink (a broker quota, a loaded broker) buffer
#: whatever the job read, and each checkpoint's flush then waited for all of it: 42 s under a
#: 64 KiB/s quota, with a STOP WITH SAVEPOINT giving up after 60 s. With these, a produce that
#: finds the queue full waits (:meth:`ProducerHandle.produce_many`), and so do the sink thread
#: and the job thread behind it: the job reads no faster than the brokers take its rows, and a
#: flush drains at most this much. On an unthrottled broker the bound costs no throughput
#: measured (300,000 rows, exactly-once: 2.2-3.2 s either way, loaded machine). A larger message
#: than the bytes bound is never queued, so the bound grows with ``message.max.bytes``.
QUEUE_DEFAULTS = {"queue.buffering.max.messages": 10_000, "queue.buffering.max.kbytes": 4096}
#: How long a produce that found the queue full serves delivery reports before it tries again (s).
QUEUE_FULL_WAIT_S = 0.005
#: How many such waits free nothing before the next is a flush (:meth:`ProducerHandle._wait_for_room`):
#: a 1 MB ProduceRequest took 1-7 ms to be acknowledged by the local broker (loaded machine).
QUEUE_FULL_WAITS = 3

#: How long a flush may make no progress before it asks the cluster whether its topics still
#: exist (s). A transactional producer keeps the messages of a deleted topic queued until
#: ``message.timeout.ms`` (5 min by default) and its flush with them.
STUCK_PROBE_S = 5.0


def queue_bounds(props: dict[str, Any]) -> dict[str, int]:
    """:data:`QUEUE_DEFAULTS`, the bytes bound raised to twice ``message.max.bytes`` when that is set."""
    out = dict(QUEUE_DEFAULTS)
    try:
        largest = int(props.get("message.max.bytes", 0))
    except (TypeError, ValueError):
        largest = 0
    out["queue.buffering.max.kbytes"] = max(out["queue.buffering.max.kbytes"], 2 * largest // 1024 + 1)
    return out


#: librdkafka's log line (facility TXNERR) when a delivery failed inside a transaction.
_TXN_DELIVERY = re.compile(r"ProduceRequest for (?P<topic>.+?) \[(?P<partition>-?\d+)\] with (?P<n>\d+) "
                           r"message\(s\) failed: (?P<why>.+?)(?: \(broker .*\))?: current transaction")


class _LogTap:
    """A producer's librdkafka log, passed on to ``RDKAFKA_LOG``; keeps why its transaction failed.

    A transactional producer's batch-produced messages get no delivery report (:mod:`.native`):
    a failed delivery only puts the transaction in an abortable state, and the next produce or the
    commit fails with "Erroneous state" or "N message(s) failed delivery", naming no topic.
    librdkafka logs the failed request with its topic, partition and the broker's error (facility
    TXNERR); :meth:`ProducerHandle.delivery_failure` turns that line into the at-least-once
    sink's message.
    """

    def __init__(self) -> None:
        self.txn_error: str | None = None

    def log(self, level: int, fmt: str, *args) -> None:
        """confluent-kafka's call (``fmt`` ``"%s [%s] %s"``: facility, client name, text)."""
        if len(args) == 3 and args[0] == "TXNERR" and self.txn_error is None:
            self.txn_error = str(args[2])
        RDKAFKA_LOG.log(level, fmt, *args)


class ProducerHandle:
    """A librdkafka producer with batched produce, error collection and bounded flushes.

    Delivery reports are requested for failures only (``delivery.report.only.error``), so a
    successful message costs no Python callback.

    Args:
        props: librdkafka properties (``bootstrap.servers`` included).
        what: who writes, for error messages.
    """

    def __init__(self, props: dict[str, Any], what: str):
        self.what = what
        self.bootstrap = str(props.get("bootstrap.servers", ""))
        self.latch = ErrorLatch(what, self.bootstrap)
        self.log_tap = _LogTap()
        self.failed: list[str] = []
        self._failed_missing = False  # a failed delivery said its topic or partition is unknown
        self.aborted = False  # the job is cancelled: waits give up (abort)
        #: A transactional producer's ``transaction.timeout.ms`` (set by .transactions), and when
        #: the open transaction's first message was produced (monotonic s; None: none yet).
        self.txn_timeout_ms: int | None = None
        self.txn_first_write: float | None = None
        self.in_txn = False
        self.topics: set[str] = set()  # every topic produced to (a finished transaction awaits them)
        #: librdkafka's batch produce on this producer (:meth:`attach_batch`), or None: produce() per row
        self.batch: BatchProducer | None = None
        cfg = {
            "partitioner": "murmur2_random",  # Java client's partitioner: same key → same partition
            "linger.ms": 5,
            "delivery.report.only.error": True,
            "logger": self.log_tap,
            **NO_AUTO_CREATE,  # a topic lookup must not create the topic (see .topics)
        }
        cfg.update(props)
        for key, value in queue_bounds(cfg).items():
            cfg.setdefault(key, value)
        self.queue_kbytes = cfg["queue.buffering.max.kbytes"]  # for the message of a message too large
        self.max_message_bytes = cfg.get("message.max.bytes", 1_000_000)  # librdkafka's default
        cfg["error_cb"] = self.latch
        cfg["on_delivery"] = self._on_delivery
        self.producer = new_client(Producer, cfg, what)
        self.latch.watch(self.producer)

    def attach_batch(self) -> None:
        """Produce a batch given as an Arrow array with one librdkafka call (:mod:`.native`).

        Only for a transactional producer: such messages get no delivery report; a failed
        delivery fails the transaction's commit instead. A no-op where the native call is not
        available (:meth:`.native.BatchProducer.attach`).
        """
        self.batch = BatchProducer.attach(self.producer)

    def _on_delivery(self, err: KafkaError | None, msg: Message) -> None:
        if err is not None:
            self.failed.append(f"{msg.topic()}[{msg.partition()}]: {err.str()}")
            self._failed_missing |= err.code() in MISSING_TOPIC_CODES
        else:
            self.latch.alive()

    def delivery_failure(self) -> str | None:
        """Why the open transaction failed, when a delivery failed in it (:class:`_LogTap`), or None.

        As the at-least-once message: ``1 message(s) could not be delivered to Kafka, first:
        topic[0]: Broker: Message size too large``.
        """
        text = self.log_tap.txn_error
        if text is None:
            return None
        m = _TXN_DELIVERY.search(text)
        if m is None:
            return f"the transaction failed: {text}"
        first = f"{m['topic']}[{m['partition']}]: {m['why']}"
        return f"{m['n']} message(s) could not be delivered to Kafka, first: {first}"

    def check(self) -> None:
        """Raise ExecutionError for failed deliveries or a pending error event.

        Deliveries that failed on an unknown topic or partition fail naming the topic when the
        cluster no longer has it (:meth:`check_topics`); a delivery that failed in a transaction
        (no report: :class:`_LogTap`) as the at-least-once one.
        """
        failure = self.delivery_failure()
        if failure is not None:
            msg = f"{self.what}: {failure}"
            raise ExecutionError(msg)
        if self.failed:
            n, first = len(self.failed), self.failed[0]
            self.failed = []
            if self._failed_missing:
                self._failed_missing = False
                self.check_topics(f"{n} message(s) not delivered")
            msg = f"{self.what}: {n} message(s) could not be delivered to Kafka, first: {first}"
            raise ExecutionError(msg)
        try:
            self.latch.check()
        except FencedError as e:
            raise self.timed_out(e) from None

    def timed_out(self, fenced: FencedError) -> ExecutionError:
        """``fenced``, or what it means when the open transaction outlived ``transaction.timeout.ms``.

        The broker aborts a transaction open longer than that and bumps the producer's epoch, so
        its next request fails as "fenced by a newer instance" although no other instance ran
        (a checkpoint interval above the timeout, a checkpoint or broker outage that long). That
        is no reason to stop for good (a FencedError is never restarted): a restart begins a new
        transaction; the message says what happened and what to set.
        """
        began = self.txn_first_write
        if self.txn_timeout_ms is None or began is None:
            return fenced
        age_s = time.monotonic() - began
        if age_s * 1000 <= self.txn_timeout_ms:
            return fenced
        msg = (f"{self.what}: the broker aborted the open transaction: it was open for {age_s:.1f} s, longer "
               f"than 'transaction.timeout.ms' = {self.txn_timeout_ms} ms; set "
               "'properties.transaction.timeout.ms' above the checkpoint interval plus the longest "
               "checkpoint (Flink's advice for its exactly-once Kafka sink)")
        return ExecutionError(msg)

    def _error(self, e: BaseException) -> ExecutionError:
        err = execution_error(self.what, e, self.bootstrap)
        if isinstance(err, FencedError):
            return self.timed_out(err)
        try:  # a failed delivery left the transaction in error: say which (served by poll)
            self.producer.poll(0)
        except (KafkaException, SystemError):
            pass
        failure = self.delivery_failure()
        return ExecutionError(f"{self.what}: {failure}") if failure is not None else err

    def produce_many(
        self,
        topic: str,
        keys: list[bytes | None] | pa.Array | None,
        values: list[bytes | None] | pa.Array,
        partition: int = -1,
        timestamps: list[int] | None = None,
        headers: list | None = None,
    ) -> None:
        """Produce one message per value (with ``keys[i]`` when given); never raises BufferError.

        A None (NULL) value is a message without a value (a tombstone). ``timestamps[i]`` (epoch
        ms; 0: the time of sending) and ``headers[i]`` (``[(key, bytes)]`` or None) when given,
        else the producer's defaults. ``values`` (and ``keys``) may be Arrow string or binary
        arrays (:meth:`.Encoder.encode_array`; keys without NULLs): without timestamps and
        headers, and with :meth:`attach_batch` done, they go to librdkafka in one call per batch.

        Raises:
            ExecutionError: for a Kafka error (e.g. message too large, producer fenced).
        """
        p = self.producer
        produce = p.produce
        self.topics.add(topic)
        if self.in_txn and self.txn_first_write is None and len(values):
            self.txn_first_write = time.monotonic()  # the broker's transaction timer starts about now
        keyed = isinstance(keys, pa.Array)
        if isinstance(values, pa.Array):
            if (self.batch is not None and (keys is None or keyed) and timestamps is None and headers is None
                    and not (keyed and keys.null_count)):
                self._produce_batch(topic, values, partition, keys)
                return
            values = payload_list(values)
        if keyed:
            keys = payload_list(keys)
        n = len(values)
        i = 0
        try:
            while i < n:
                try:
                    if timestamps is not None or headers is not None:
                        ts = timestamps or [0] * n
                        hs = headers or [None] * n
                        ks = keys or [None] * n
                        for i in range(i, n):  # noqa: B020
                            produce(topic, values[i], ks[i], partition, timestamp=ts[i], headers=hs[i])
                    elif keys is None:
                        if partition < 0:
                            for i in range(i, n):  # noqa: B020
                                produce(topic, values[i])
                        else:
                            for i in range(i, n):  # noqa: B020
                                produce(topic, values[i], None, partition)
                    else:
                        for i in range(i, n):  # noqa: B020
                            produce(topic, values[i], keys[i], partition)
                    i = n
                except BufferError:  # queue full: serve delivery reports and retry the same row
                    if len(p) == 0:  # nothing queued, still no room: this message can never fit
                        self._too_large(values[i], keys[i] if keys else None)
                    self._wait_for_room()
                    self.check()
                    self._raise_aborted()
                    continue
                finally:
                    p.poll(0)
        except (KafkaException, SystemError) as e:
            raise self._refused(e, topic, values[i], keys[i] if keys else None) from None
        self.check()

    def _refused(self, e: BaseException, topic: str, value: bytes | None,
                 key: bytes | None) -> ExecutionError:
        """The error of a produce() librdkafka refused: a message too large names its topic and size.

        librdkafka refuses a message larger than its ``message.max.bytes`` in produce() itself
        (``MSG_SIZE_TOO_LARGE``, worded "Broker: Message size too large" although no broker saw it),
        naming neither the topic nor the size; as the Java client's RecordTooLargeException, the
        message says both and the setting.
        """
        err = e.args[0] if isinstance(e, KafkaException) and e.args else None
        if not (isinstance(err, KafkaError) and err.code() == KafkaError.MSG_SIZE_TOO_LARGE):
            return self._error(e)
        size = len(value or b"") + len(key or b"")
        msg = (f"{self.what}: a message of {size} bytes to topic '{topic}' is larger than the producer's "
               f"'message.max.bytes' = {self.max_message_bytes}: raise 'properties.max.request.size' (and "
               "the topic's 'max.message.bytes', the broker's limit) above the largest message")
        return ExecutionError(msg)

    def _produce_batch(self, topic: str, values: pa.Array, partition: int, keys: pa.Array | None) -> None:
        """:meth:`produce_many` of Arrow arrays through :attr:`batch`, in order, waiting for room.

        Raises:
            ExecutionError: as :meth:`produce_many` (a message librdkafka refuses is produced
                again by ``produce()`` to raise its own error).
        """
        p = self.producer
        start = 0
        while True:
            try:
                self.batch.produce(topic, values, partition, start, keys)
                break
            except QueueFull as full:
                if full.done == start and len(p) == 0:  # nothing queued, still no room: never fits
                    key = None if keys is None else payload_list(keys.slice(start, 1))[0]
                    self._too_large(payload_list(values.slice(start, 1))[0], key)
                start = full.done
                self._wait_for_room()
                self.check()
                self._raise_aborted()
            except RefusedMessage as refused:
                # A fatal error (fenced after the broker aborted a transaction open too long) is
                # known precisely only to the error callback, which poll() serves; else produce()
                # of that message raises librdkafka's own error.
                try:
                    p.poll(0)
                except (KafkaException, SystemError) as e:
                    raise self._error(e) from None
                self.check()
                value = payload_list(values.slice(refused.index, 1))[0]
                key = None if keys is None else payload_list(keys.slice(refused.index, 1))[0]
                try:
                    p.produce(topic, value, key, partition)
                except (KafkaException, SystemError, BufferError) as e:
                    raise self._refused(e, topic, value, key) from None
                msg = f"{self.what}: librdkafka refused a message: {refused.reason}"
                raise ExecutionError(msg) from None
        p.poll(0)
        self.check()

    def _wait_for_room(self) -> None:
        """Wait for the full queue to shrink (:data:`QUEUE_FULL_WAITS` waits at most), serving reports.

        A full queue is sent as librdkafka's batching allows: a partition's messages wait up to
        ``linger.ms`` unless they fill ``batch.num.messages`` or ``batch.size``. When the waits
        free nothing (e.g. a keyed sink's rows spread thin over many partitions under the
        transactional producer's long linger, :data:`~.transactions.TXN_LINGER_MS`), the last wait
        is a ``flush()``, during which librdkafka sends what is queued at once; so a full queue
        waits at most ~``QUEUE_FULL_WAITS`` × :data:`QUEUE_FULL_WAIT_S` for the linger, and a queue
        that drains anyway is not flushed (while a flush lasts, the broker thread sends small
        requests and polls in a loop: more CPU per message).
        """
        p = self.producer
        before = len(p)
        for _ in range(QUEUE_FULL_WAITS - 1):
            p.poll(QUEUE_FULL_WAIT_S)
            if len(p) < before:
                return
        p.flush(QUEUE_FULL_WAIT_S)

    def _too_large(self, value: bytes | None, key: bytes | None) -> None:
        """Raise: librdkafka never queues a message larger than its queue's bytes bound.

        Raises:
            ExecutionError: naming the option to raise.
        """
        size = len(value or b"") + len(key or b"")
        kbytes = self.queue_kbytes
        msg = (f"{self.what}: a message of {size} bytes is larger than "
               f"'properties.queue.buffering.max.kbytes' = {kbytes}, the producer's queue: raise it above "
               "the largest message")
        raise ExecutionError(msg)

    def flush(self) -> None:
        """Wait until every queued message is acknowledged (or failed).

        Raises:
            ExecutionError: for failed deliveries, or brokers down too long.
        """
        p = self.producer
        probe_at = time.monotonic() + STUCK_PROBE_S
        while True:
            try:
                left = p.flush(1.0)
            except (KafkaException, SystemError) as e:
                raise self._error(e) from None
            self.check()
            if left == 0:
                return
            self._raise_aborted()
            if time.monotonic() >= probe_at:  # stuck: a topic deleted under a transactional producer?
                self.check_topics(f"{left} message(s) waiting")
                probe_at = time.monotonic() + STUCK_PROBE_S

    def abort(self) -> None:
        """From another thread (a cancel): a produce waiting for room or a flush raises soon."""
        self.aborted = True

    def _raise_aborted(self) -> None:
        if self.aborted:
            msg = f"{self.what}: cancelled while waiting for the brokers"
            raise ExecutionError(msg)

    def check_topics(self, waiting: str) -> None:
        """Fail when a topic produced to is gone from the cluster (deleted while the job wrote to it).

        Unreachable brokers are not judged here (the latch's "brokers down" covers them).

        Args:
            waiting: what is left undelivered, for the message (``"20 message(s) waiting"``).

        Raises:
            ExecutionError: ``topic 'x' is gone from <bootstrap>``.
        """
        try:
            md = self.producer.list_topics(timeout=PROBE_TIMEOUT_S)
        except (KafkaException, SystemError):
            return
        for t in sorted(self.topics):
            tm = md.topics.get(t)
            if tm is None or (tm.error is not None and tm.error.code() in MISSING_TOPIC_CODES):
                msg = (f"{self.what}: topic '{t}' is gone from {self.bootstrap} (deleted while the job "
                       f"wrote to it?); {waiting}")
                raise ExecutionError(msg)

    def close(self) -> None:
        """Flush what is queued, best effort, at most 10 s (after :meth:`abort`: not); idempotent.

        The handle lets go of the producer: the producer holds this handle's callbacks and the
        latch holds the producer, a cycle that kept its sockets and librdkafka threads until a
        garbage collection (about 8 file descriptors per finished job of an embedding program).
        """
        if self.producer is None:
            return
        if self.batch is not None:  # its topic handles go before the producer
            self.batch.close()
            self.batch = None
        try:
            self.producer.flush(0 if self.aborted else 10)  # a cancel delivers nothing more
        except (KafkaException, RuntimeError, SystemError):  # a fenced producer fails its callbacks
            pass
        self.latch.watch(None)
        self.producer = None
