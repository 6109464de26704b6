"""``PRINT TOPIC name [FROM BEGINNING] [LIMIT n]``: a Kafka topic's raw records.

Records are read with a throw-away consumer (no group offsets committed) and shown as rows of
key, value, partition, offset and timestamp. Reading stops at the LIMIT, on Ctrl-C, or — for
``FROM BEGINNING`` without a LIMIT — once every partition is caught up with the end it had when
the statement started. Without ``FROM BEGINNING`` only new records are shown.

When the shell reads a pipe or file (no Ctrl-C to end a read), every read is bounded: it
follows the topic while a job the shell started is still running (waiting for the topic to be
created by it, too), and ends at the LIMIT or once no job runs and every partition is read up to
its end (:attr:`TopicReader.jobs_running`).

The broker is ``SET 'properties.bootstrap.servers'``, else ``$STREAMSQL_KAFKA_BOOTSTRAP``,
else ``127.0.0.1:9092``.
"""

from __future__ import annotations

import datetime as _dt
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from confluent_kafka import KafkaError, KafkaException
from streamsql.connectors.kafka.errors import RDKAFKA_LOG

from streamsql.core.errors import ExecutionError

COLUMNS = ["key", "value", "partition", "offset", "timestamp"]
DEFAULT_BOOTSTRAP = "127.0.0.1:9092"


@dataclass
class TopicRequest:
    """What to print: the topic, whether from the beginning, and an optional row limit."""

    topic: str
    from_beginning: bool = False
    limit: int | None = None


def bootstrap_servers(config_value: str | None) -> str:
    """The broker address to use (see module docstring)."""
    return config_value or os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP") or DEFAULT_BOOTSTRAP


def request_from_tree(tree) -> TopicRequest:
    """A :class:`TopicRequest` from a parsed ``PrintTopic`` node."""
    limit = tree.args.get("limit")
    return TopicRequest(tree.this.name, bool(tree.args.get("from_beginning")),
                        int(limit.name) if limit is not None else None)


def _text(b: bytes | None) -> str | None:
    if b is None:
        return None
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return "0x" + b.hex()


def _timestamp(ts: tuple[int, int]) -> str | None:
    kind, ms = ts
    if ms is None or ms < 0 or kind == 0:  # TIMESTAMP_NOT_AVAILABLE
        return None
    return _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


class TopicReader:
    """Iterates ``(None, (key, value, partition, offset, timestamp))`` for a topic's records.

    Raises:
        ExecutionError: when the broker cannot be reached or the topic does not exist.

    Args:
        request: what to print.
        bootstrap: the brokers.
        timeout_s: bound of each metadata request.
        jobs_running: None (a terminal: the rules of the module docstring), or a bounded read
            that follows the topic while ``jobs_running()`` is True (a pipe or file).
    """

    def __init__(self, request: TopicRequest, bootstrap: str, timeout_s: float = 10.0,
                 jobs_running: Callable[[], bool] | None = None):
        self.request = request
        self.bootstrap = bootstrap
        self.timeout_s = timeout_s
        self.jobs_running = jobs_running
        self._stop = threading.Event()
        self._opened = None  # (consumer, ends) once open() ran

    def cancel(self) -> None:
        """Stop reading (from another thread); the iterator ends at its next poll."""
        self._stop.set()

    def open(self) -> None:
        """Connect and find the topic now, before any row is shown (the statement's errors come first).

        Raises:
            ExecutionError: when the broker cannot be reached or the topic does not exist
                (after waiting for it while the shell's jobs run, for a bounded read).
        """
        if self._opened is None and not (self.request.limit is not None and self.request.limit <= 0):
            self._opened = self._open()

    def _open(self):
        from confluent_kafka import OFFSET_BEGINNING, OFFSET_END, Consumer, TopicPartition

        consumer = Consumer({"bootstrap.servers": self.bootstrap,
                             "group.id": f"streamsql-print-{uuid.uuid4().hex}",
                             "enable.auto.commit": False, "enable.partition.eof": True,
                             "isolation.level": "read_committed", "socket.timeout.ms": 10000,
                             "logger": RDKAFKA_LOG})  # librdkafka's retries: once, not a screenful
        t = self._topic(consumer)
        while (t is None or t.error is not None or not t.partitions) and self._may_appear():
            time.sleep(0.2)  # a running job's sink creates it
            t = self._topic(consumer)
        if t is None or t.error is not None or not t.partitions:
            consumer.close()
            msg = f"Topic '{self.request.topic}' not found on {self.bootstrap}"
            raise ExecutionError(msg)
        parts = sorted(t.partitions)
        start = OFFSET_BEGINNING if self.request.from_beginning else OFFSET_END
        ends = {}
        for p in parts:
            low, high = consumer.get_watermark_offsets(TopicPartition(self.request.topic, p),
                                                       timeout=self.timeout_s, cached=False)
            ends[p] = high if self.request.from_beginning else None
            if self.request.from_beginning and high <= low:
                ends[p] = -1  # empty: caught up already
        consumer.assign([TopicPartition(self.request.topic, p, start) for p in parts])
        return consumer, ends

    def _topic(self, consumer):
        """The topic's metadata (None when absent).

        Raises:
            ExecutionError: when the broker cannot be reached (the consumer is closed).
        """
        try:
            topic = self.request.topic
            return consumer.list_topics(topic, timeout=self.timeout_s).topics.get(topic)
        except KafkaException as e:
            consumer.close()
            err = e.args[0].str() if e.args and isinstance(e.args[0], KafkaError) else str(e)
            msg = f"Cannot reach Kafka at {self.bootstrap} ({err}); set 'properties.bootstrap.servers'"
            raise ExecutionError(msg) from None

    def _may_appear(self) -> bool:
        return self.jobs_running is not None and self.jobs_running() and not self._stop.is_set()

    def _ends_now(self, consumer) -> tuple[dict[int, int], set[int]]:
        """The partitions' end offsets now, and those this consumer has read up to them.

        A position at the end counts a transaction's closing marker too; a partition not
        fetched yet (no position) is caught up at its end-of-partition event.
        """
        ends = {tp.partition: consumer.get_watermark_offsets(tp, timeout=self.timeout_s, cached=False)[1]
                for tp in consumer.assignment()}
        caught_up = {tp.partition for tp in consumer.position(consumer.assignment())
                     if tp.offset >= 0 and tp.offset >= ends[tp.partition]}
        return ends, caught_up

    def __iter__(self) -> Iterator[tuple[None, tuple]]:
        req = self.request
        if req.limit is not None and req.limit <= 0:
            return
        self.open()
        consumer, ends = self._opened
        self._opened = None
        following = self.jobs_running is not None
        # FROM BEGINNING without a LIMIT stops when caught up with the ends seen at the start
        # (a bounded read follows the topic first, while the shell's jobs run).
        stop_at_end = req.from_beginning and req.limit is None and not following
        caught_up = {p for p, e in ends.items() if e == -1}
        n = 0
        try:
            while not self._stop.is_set():
                if following and not self.jobs_running():
                    following, stop_at_end = False, True
                    ends, caught_up = self._ends_now(consumer)
                if stop_at_end and len(caught_up) == len(ends):
                    return
                msg = consumer.poll(0.2)
                if msg is None:
                    continue
                if msg.error() is not None:
                    if msg.error().code() == KafkaError._PARTITION_EOF:
                        caught_up.add(msg.partition())
                        continue
                    if msg.error().fatal():
                        msg_ = f"Reading topic '{req.topic}' failed: {msg.error().str()}"
                        raise ExecutionError(msg_)
                    continue
                p, off = msg.partition(), msg.offset()
                end = ends.get(p)
                if stop_at_end and end is not None and off >= end:
                    caught_up.add(p)
                    continue
                yield None, (_text(msg.key()), _text(msg.value()), p, off, _timestamp(msg.timestamp()))
                n += 1
                if req.limit is not None and n >= req.limit:
                    return
                if stop_at_end and end is not None and off + 1 >= end:
                    caught_up.add(p)
        finally:
            consumer.close()
