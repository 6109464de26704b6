"""The Kafka side of a keyed exchange between two stages of a parallel job (docs/parallelism.md).

An exchange is an internal topic with one partition per downstream task. Its records:

======== ================================= ==================================================
key      value                             meaning
======== ================================= ==================================================
``d`` u  an Arrow IPC stream (one batch)    rows from upstream task ``u`` (``__kind``: row kinds)
``w`` u  8-byte big-endian int (ms)         upstream task ``u``'s watermark
``e`` u  empty                              upstream task ``u`` reached end of input
``i`` u  empty                              upstream task ``u``'s source went idle (until its
                                           next rows or watermark)
``s`` u  empty                              upstream task ``u`` stopped (a savepoint's drain)
======== ================================= ==================================================

(key = the type byte, then ``u`` as 2 bytes big-endian.) :class:`ExchangeWriter` produces them
inside the task's Kafka transaction (:class:`~.transactions.KafkaTransactions`, the task's
commit point, as an exactly-once sink does): rows into the partition of their key group's task
(the runtime splits the batch), watermarks and end of input into every partition. Records
written after a pre-commit are held until the commit (they belong to the next checkpoint).
:class:`ExchangeReader` reads one partition ``read_committed`` and merges the watermarks of the
upstream tasks (the minimum; an ended task no longer holds it back), in the partition's order: a
row behind a watermark is handed after it, as Flink's input channel does (so a row it made late
is dropped as in one process); it ends when every upstream task ended. A stop record is the last
record of an upstream task that stopped after a final checkpoint (``STOP JOB ... WITH
SAVEPOINT``): once every upstream task stopped or ended, the reader is
:meth:`~ExchangeReader.drained` — it has read everything they committed. Its position — the next
offset, each upstream task's last watermark and which ended — is in the downstream task's
checkpoint. Once that checkpoint committed in the task's Kafka transaction, the records before
the position are deleted (``DeleteRecords``): no restore of the task ever reads them again.
"""

from __future__ import annotations

import struct
import time
from typing import Any

import numpy as np
import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from streamsql.connectors.kafka.admin import admin_client, delete_records
from streamsql.connectors.kafka.errors import (
    METADATA_TIMEOUT_S,
    RDKAFKA_LOG,
    ErrorLatch,
    execution_error,
    new_client,
)
from streamsql.connectors.kafka.options import librdkafka_props
from streamsql.connectors.kafka.reader import EndOffsets, partition_lag
from streamsql.connectors.kafka.transactions import KafkaTransactions

from streamsql.core.connector import ConnectorContext, Source
from streamsql.core.elements import MAX_WATERMARK, Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.faults import fault_point

DATA, WATERMARK, END, STOP, IDLE = b"d", b"w", b"e", b"s", b"i"
KIND_COLUMN = "__kind"
#: Rows per record are chosen so a record stays under this size (the broker's default limit is 1 MB).
MAX_RECORD_BYTES = 512 * 1024


def _key(kind: bytes, task: int) -> bytes:
    return kind + struct.pack(">H", task)


#: Exchange and task topics keep their records until the job deletes them (``DeleteRecords``
#: after a reading task's commit, the topics when the job finished): under the broker's
#: retention (7 days by default) a job stopped for longer would find the records it had not
#: read yet gone.
KEEP_FOREVER = {"retention.ms": "-1", "retention.bytes": "-1"}


def ensure_topic(props: dict[str, Any], topic: str, partitions: int, what: str, create: bool = True) -> str:
    """Create ``topic`` with ``partitions`` partitions unless it exists with that many; its id.

    Created with :data:`KEEP_FOREVER`.

    Args:
        props: librdkafka properties (the brokers).
        topic: the topic.
        partitions: how many partitions it must have.
        what: names the caller in errors.
        create: False when the topic must exist already (a task resumes its reading): a missing
            one raises instead of being created empty.

    Returns:
        The topic's id (Kafka's topic UUID, as text): a topic deleted and created again under its
        name has another one.

    Raises:
        ExecutionError: when it exists with another partition count, is missing and ``create``
            is False, or cannot be created.
    """
    cfg = {k: v for k, v in props.items() if not k.startswith(("transaction", "enable.idem"))}
    admin = admin_client(cfg, what)
    bootstrap = str(props.get("bootstrap.servers", ""))
    tm = _metadata(admin, topic, what, bootstrap, listed=True)
    if (tm is None or tm.error is not None) and not create:
        return ""
    if tm is None or tm.error is not None:
        new = NewTopic(topic, num_partitions=partitions, replication_factor=-1, config=dict(KEEP_FOREVER))
        try:
            admin.create_topics([new], operation_timeout=30)[topic].result(timeout=60)
            return _topic_id(admin, topic, what, bootstrap)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            if not (isinstance(err, KafkaError) and err.code() == KafkaError.TOPIC_ALREADY_EXISTS):
                msg = f"{what}: creating exchange topic '{topic}'"
                raise execution_error(msg, e, bootstrap) from None
        tm = _metadata(admin, topic, what, bootstrap)
    if tm is not None and tm.error is None and len(tm.partitions) != partitions:
        msg = (f"{what}: exchange topic '{topic}' has {len(tm.partitions)} partitions, the job's "
               f"parallelism needs {partitions}; delete the topic or run with the parallelism it was "
               "made for")
        raise ExecutionError(msg)
    return _topic_id(admin, topic, what, bootstrap)


def _metadata(admin: AdminClient, topic: str, what: str, bootstrap: str, listed: bool = False):
    """``topic``'s metadata, None when the broker does not know it.

    ``listed``: taken from the list of every topic rather than from a request naming it.

    Raises:
        ExecutionError: the brokers did not answer within ``METADATA_TIMEOUT_S`` s (a restart
            retries; the raw KafkaException used to fail the job as an internal error).
    """
    try:
        md = admin.list_topics(timeout=METADATA_TIMEOUT_S) if listed else \
            admin.list_topics(topic=topic, timeout=METADATA_TIMEOUT_S)
    except KafkaException as e:
        msg = f"{what}: metadata of topic '{topic}'"
        raise execution_error(msg, e, bootstrap) from None
    return md.topics.get(topic)


def _topic_id(admin: AdminClient, topic: str, what: str, bootstrap: str) -> str:
    """``topic``'s id; waits up to ``METADATA_TIMEOUT_S`` s for a topic just created to be known.

    The broker answering may not yet have the controller's record of a topic created a moment
    ago (by this call or by another worker): it answers UNKNOWN_TOPIC_OR_PART until its metadata
    catches up (seen in CI right after ``create_topics`` returned).
    """
    deadline = time.monotonic() + METADATA_TIMEOUT_S
    while True:
        try:
            future = admin.describe_topics(TopicCollection([topic]))[topic]
            return str(future.result(METADATA_TIMEOUT_S).topic_id)
        except KafkaException as e:
            err = e.args[0] if e.args else None
            unknown = isinstance(err, KafkaError) and err.code() == KafkaError.UNKNOWN_TOPIC_OR_PART
            if not unknown or time.monotonic() >= deadline:
                msg = f"{what}: describing topic '{topic}'"
                raise execution_error(msg, e, bootstrap) from None
            time.sleep(0.1)


def encode_batch(batch: Batch) -> list[bytes]:
    """``batch`` as Arrow IPC streams of at most about :data:`MAX_RECORD_BYTES` each."""
    table = batch.table
    if batch.kinds is not None:
        table = table.append_column(KIND_COLUMN, pa.array(batch.kinds, pa.int8()))
    n = table.num_rows
    if not n:
        return []
    per = max(1, n * MAX_RECORD_BYTES // max(1, table.nbytes)) if table.nbytes > MAX_RECORD_BYTES else n
    out = []
    for start in range(0, n, per):
        sink = pa.BufferOutputStream()
        part = table.slice(start, per)
        with pa.ipc.new_stream(sink, part.schema) as w:
            w.write_table(part)
        out.append(sink.getvalue().to_pybytes())
    return out


def decode_batch(value: bytes) -> Batch:
    """The batch of one data record (row kinds from ``__kind``)."""
    table = pa.ipc.open_stream(value).read_all()
    if KIND_COLUMN in table.column_names:
        i = table.column_names.index(KIND_COLUMN)
        kinds = table.column(i).to_numpy().astype(np.int8)
        return Batch(table.remove_column(i), kinds if kinds.any() else None)
    return Batch(table)


class ExchangeWriter:
    """The upstream task's side: records into the exchange topic in the task's transaction.

    Options of ``ctx.table`` (set by the planner): ``topic``, ``partitions``, the brokers'
    ``properties.*``, ``sink.transactional-id-prefix``, ``sink.progress-topic``.

    Args:
        ctx: the connector context (``task_index``: this upstream task).
    """

    transactional = True

    def __init__(self, ctx: ConnectorContext):
        o = ctx.table.options
        self.topic = o["topic"]
        self.partitions = int(o["partitions"])
        self.task = ctx.task_index
        self.props = librdkafka_props(o)
        self.what = f"Exchange '{self.topic}' (task {self.task})"
        self.txn = KafkaTransactions.for_context(ctx)
        self.handle = None
        self._holding = False
        self._held: list[tuple[int, bytes, bytes]] = []
        self._watermark: int | None = None

    def open(self) -> None:
        """Create the topic if missing and join the task's transaction.

        Raises:
            ExecutionError: when the brokers cannot be reached or the topic has another size.
        """
        ensure_topic(self.props, self.topic, self.partitions, self.what)
        self.txn.internal_topics.add(self.topic)  # not a table's output: never awaited
        self.handle = self.txn.acquire()

    def _send(self, records: list[tuple[int, bytes, bytes]]) -> None:
        if self._holding:
            self._held += records
            return
        for partition, key, value in records:
            self.handle.produce_many(self.topic, [key], [value], partition)

    def write(self, partition: int, batch: Batch) -> None:
        """The rows of ``batch`` (all of key groups of ``partition``'s task) into that partition."""
        key = _key(DATA, self.task)
        self._send([(partition, key, v) for v in encode_batch(batch)])

    def watermark(self, timestamp: int) -> None:
        """Broadcast this task's watermark (ms) to every partition, when it advanced."""
        if self._watermark is not None and timestamp <= self._watermark:
            return
        self._watermark = timestamp
        key, value = _key(WATERMARK, self.task), struct.pack(">q", timestamp)
        self._send([(p, key, value) for p in range(self.partitions)])

    def idle(self) -> None:
        """Broadcast that this task's source went idle to every partition."""
        key = _key(IDLE, self.task)
        self._send([(p, key, b"") for p in range(self.partitions)])

    def end(self) -> None:
        """Broadcast this task's end of input to every partition."""
        key = _key(END, self.task)
        self._send([(p, key, b"") for p in range(self.partitions)])

    def stop(self, token: bytes = b"") -> None:
        """Broadcast that this task stops after its next (final) checkpoint, for the stop ``token``."""
        key = _key(STOP, self.task)
        self._send([(p, key, token) for p in range(self.partitions)])

    def pre_commit(self, checkpoint_id: int) -> None:
        """Flush (acknowledged, invisible until the commit); hold later records until it."""
        if self._held:  # an earlier checkpoint failed before committing: its records join this one
            held, self._held, self._holding = self._held, [], False
            self._send(held)
        self.handle.flush()
        fault_point("before_exchange_commit")
        self._holding = True

    def commit(self, checkpoint_id: int) -> None:
        """The transaction committed: held records go into the next one."""
        held, self._held, self._holding = self._held, [], False
        self._send(held)

    def close(self) -> None:
        """Leave the transaction (its last user aborts what is uncommitted)."""
        if self.handle is not None:
            self.handle = None
            self.txn.release()


class ExchangeReader(Source):
    """The downstream task's side: its partition of the exchange topic (see module docstring).

    Options of ``ctx.table``: ``topic``, ``partitions``, ``upstream-tasks``, ``properties.*``.

    Args:
        ctx: the connector context (``task_index``: the partition read).
    """

    bounded = True  # it ends when every upstream task ended (and never otherwise)

    def __init__(self, ctx: ConnectorContext):
        o = ctx.table.options
        self.topic = o["topic"]
        self.partitions = int(o["partitions"])
        self.upstream = int(o["upstream-tasks"])
        self.partition = ctx.task_index
        self.props = librdkafka_props(o)
        self.what = f"Exchange '{self.topic}' [{self.partition}]"
        self.latch = ErrorLatch(self.what, str(self.props.get("bootstrap.servers", "")))
        self.consumer: Consumer | None = None
        self._ends: EndOffsets | None = None
        self.next_offset = 0
        self.marks: dict[int, int] = {}
        self.ended: set[int] = set()
        self.idle: set[int] = set()  # upstream tasks whose source is idle: left out of the merge
        # upstream task -> the token of the stop it wrote last (in the position: a task restarted
        # inside a drain must know the stop records it read before its checkpoint, which deleted
        # them; a stale one, of another stop, counts for nothing: drained())
        self.stopped: dict[int, bytes] = {}
        self._barrier_offset = 0  # the offset in the last position() (one checkpoint in flight)
        self._purged = 0
        self.topic_id = ""  # the topic's id when opened (see :meth:`position`)
        # records consumed but not read yet: a poll ends where the merged watermark moves
        self._pending: list = []

    def open(self, position: dict | None) -> None:
        """Assign the partition at ``position`` (None: from its beginning).

        Raises:
            ExecutionError: when the brokers cannot be reached.
        """
        position = position or {}
        self._pending = []
        self.next_offset = int(position.get("offset", 0))
        self.marks = {int(u): int(ts) for u, ts in position.get("watermarks", {}).items()}
        self.ended = {int(u) for u in position.get("ended", [])}
        self.idle = {int(u) for u in position.get("idle", [])}
        self.stopped = {int(u): token.encode("latin-1") for u, token in position.get("stopped", {}).items()}
        recorded = position.get("topic_id")
        self.topic_id = ensure_topic(self.props, self.topic, self.partitions, self.what,
                                     create=not recorded)
        if recorded and self.topic_id != recorded:
            now = f"its id is now {self.topic_id}" if self.topic_id else "it does not exist now"
            why = f"the topic was deleted since the checkpoint restored (its id was {recorded}, {now})"
            raise ExecutionError(self._gone(why))
        # "error", not "earliest": a position outside the partition means records the task has
        # not read are gone (deleted, or the topic made again); reading on would drop them silently.
        cfg = {**self.props, "group.id": f"{self.topic}-reader", "enable.auto.commit": False,
               "isolation.level": "read_committed", "error_cb": self.latch, "logger": RDKAFKA_LOG,
               "auto.offset.reset": "error"}
        self.consumer = new_client(Consumer, cfg, self.what)
        self._ends = EndOffsets(cfg, self.what)  # its consumer is made when the lag is first asked
        self.latch.watch(self.consumer)
        start = self.next_offset if self.next_offset > 0 else -2  # -2: OFFSET_BEGINNING
        self.consumer.assign([TopicPartition(self.topic, self.partition, start)])

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """The rows of the records of one ``consume()`` up to the next move of the merged watermark.

        Watermarks and ends update the merge in the partition's order, as Flink's input channel
        hands a record after the watermark it follows: a watermark or end record that moves the
        merged watermark ends the poll, before it when rows were read (they precede it), right
        after it otherwise (the caller forwards it before the rows behind it). The records behind
        are kept for the next poll; the position counts only the records read. Before, the rows of
        the 64 records of one ``consume()`` were handed together and the watermark afterwards, so a
        row behind the watermark that made it late was aggregated (a parallel window aggregate
        counted rows a single-process run drops as late).

        Raises:
            ExecutionError: for Kafka errors.
        """
        if self._pending:
            msgs, self._pending = self._pending, []
        else:
            try:
                msgs = self.consumer.consume(num_messages=64, timeout=timeout_s)
            except KafkaException as e:
                raise execution_error(self.what, e, self.latch.bootstrap) from None
        self.latch.check()
        batches = []
        for i, m in enumerate(msgs):
            if m.error() is not None:
                if m.error().code() == KafkaError._PARTITION_EOF:
                    continue
                if m.error().code() == KafkaError._AUTO_OFFSET_RESET:
                    raise ExecutionError(self._gone(f"offset {self.next_offset} is not in the partition "
                                                    f"any more ({m.error().str()})"))
                msg = f"{self.what}: {m.error().str()}"
                raise ExecutionError(msg)
            if m.offset() < self.next_offset:  # the partition went back: the topic was made again
                why = (f"offset {m.offset()} came after offset {self.next_offset - 1}: the topic was "
                       "deleted and created again")
                raise ExecutionError(self._gone(why))
            key = m.key()
            kind, task = key[:1], struct.unpack(">H", key[1:3])[0]
            if kind in (WATERMARK, END, IDLE) and batches:  # the rows read come first
                self._pending = msgs[i:]
                break
            self.next_offset = m.offset() + 1
            if kind == STOP:
                self.stopped[task] = m.value() or b""
                continue
            self.stopped.pop(task, None)  # it runs again (resumed without the savepoint)
            if kind == DATA:
                self.idle.discard(task)  # active again (its rows may be late: as in Flink)
                batches.append(decode_batch(m.value()))
            elif kind in (WATERMARK, END, IDLE):
                before = self.watermark()
                if kind == END:
                    self.ended.add(task)
                elif kind == IDLE:
                    self.idle.add(task)
                else:
                    self.idle.discard(task)
                    ts = struct.unpack(">q", m.value())[0]
                    self.marks[task] = max(ts, self.marks.get(task, ts))
                if self.watermark() != before:  # forwarded before the records behind it
                    self._pending = msgs[i + 1:]
                    break
        if not batches:
            return None
        if len(batches) == 1:
            return batches[0]
        table = pa.concat_tables([b.table for b in batches])
        kinds = None
        if any(b.kinds is not None for b in batches):
            kinds = np.concatenate([b.kind_array() for b in batches])
        return Batch(table, kinds)

    def _gone(self, why: str) -> str:
        return (f"{self.what}: records this task has not read are gone: {why}. The exchange topic must not "
                "be deleted or purged while its job runs or is unfinished; the job cannot resume "
                "exactly-once: restart it afresh (remove its checkpoint folder and its _streamsql-* topics) "
                "or from a savepoint")

    def is_idle(self) -> bool:
        """Every upstream task that has not ended went idle (and none of them sent rows since)."""
        live = [u for u in range(self.upstream) if u not in self.ended]
        return bool(live) and all(u in self.idle for u in live)

    def watermark(self) -> int | None:
        """The minimum watermark over the upstream tasks that have neither ended nor gone idle.

        None when one of them sent none yet. Once every task that has not ended is idle, the
        largest of their watermarks (None: none sent one), as Flink's valve flushes it when its
        last active channel goes idle.
        """
        live = [u for u in range(self.upstream) if u not in self.ended]
        if not live:
            return MAX_WATERMARK
        active = [u for u in live if u not in self.idle]
        if not active:
            return max((self.marks[u] for u in live if u in self.marks), default=None)
        if any(u not in self.marks for u in active):
            return None
        return min(self.marks[u] for u in active)

    def position(self) -> dict:
        """Its checkpoint position: the next offset, watermarks, ended and stopped tasks, the topic's id.

        ``{"offset": n, "watermarks": {task: ms}, "ended": [task, ...], "idle": [task, ...] (a
        checkpoint before session 34 has none: no task idle), "topic_id": id, "stopped":
        {task: token}}``.

        The topic's id lets a restore tell a topic deleted and made again under the same name.
        ``stopped``: the stop record each upstream task wrote last, if it wrote none since (a
        checkpoint before session 27 has none: read as no stop record).
        """
        self._barrier_offset = self.next_offset
        return {"offset": self.next_offset, "watermarks": {str(u): t for u, t in self.marks.items()},
                "ended": sorted(self.ended), "idle": sorted(self.idle), "topic_id": self.topic_id,
                "stopped": {str(u): token.decode("latin-1") for u, token in self.stopped.items()}}

    def committed(self, checkpoint_id: int) -> None:
        """The task's checkpoint committed in its Kafka transaction: delete the records before its position.

        Asynchronous and best effort (a record left behind is only disk space): only the
        position of a committed checkpoint is ever restored, and a fenced zombie never commits.
        """
        offset = self._barrier_offset
        if offset <= self._purged:
            return
        self._purged = offset
        try:
            before = TopicPartition(self.topic, self.partition, offset)
            delete_records(admin_client(self.props, self.what), [before], request_timeout=30)
        except KafkaException:  # retried with the next commit's offset
            self._purged = 0

    def lag(self) -> int | None:
        """Records of its partition not read yet (committed or not)."""
        if self.consumer is None:
            return None
        return partition_lag(self.consumer, {(self.topic, self.partition): self.next_offset}, self._ends)

    def drained(self, token: bytes) -> bool:
        """True once every upstream task stopped or ended, one at least stopped (see module docstring).

        Only stop records of this stop (``token``) count: one an earlier, interrupted stop left in
        the partition (its process killed after some tasks committed their final checkpoints)
        is followed by more of that task's records once the run goes on, and taken for the
        task's last it ended the drain before them (their rows lost from the savepoint).
        """
        ours = {t for t, v in self.stopped.items() if v == token}
        return bool(ours) and len(ours | self.ended) >= self.upstream

    def finished(self) -> bool:
        """True once every upstream task ended."""
        return len(self.ended) >= self.upstream

    def close(self) -> None:
        """Close the consumers."""
        if self._ends is not None:
            self._ends.close()
            self._ends = None
        if self.consumer is not None:
            self.consumer.close()
            self.consumer = None


def delete_exchanges(props: dict[str, Any], topics: list[str], groups: list[str],
                     timeout_s: float = 60.0) -> None:
    """Delete a finished job's exchange topics and its tasks' progress groups (absent ones: no-op).

    Waits until the topics are gone, so the next run can create them afresh.

    Raises:
        ExecutionError: when the brokers cannot be reached or the topics do not go away in time.
    """
    bootstrap = str(props.get("bootstrap.servers", ""))
    admin = admin_client(props, "Exchange topics")
    try:
        present = [t for t in topics if t in admin.list_topics(timeout=METADATA_TIMEOUT_S).topics]
        for f in (admin.delete_topics(present, operation_timeout=30).values() if present else ()):
            _ignore_missing(f, KafkaError.UNKNOWN_TOPIC_OR_PART)
        for f in (admin.delete_consumer_groups(groups, request_timeout=30).values() if groups else ()):
            _ignore_missing(f, KafkaError.GROUP_ID_NOT_FOUND)
        deadline = time.monotonic() + timeout_s
        while any(t in admin.list_topics(timeout=METADATA_TIMEOUT_S).topics for t in present):
            if time.monotonic() > deadline:
                msg = f"Exchange topics {present} were not deleted within {timeout_s:.0f} s"
                raise ExecutionError(msg)
            time.sleep(0.2)
    except KafkaException as e:
        what = "Deleting exchange topics"
        raise execution_error(what, e, bootstrap) from None


def _ignore_missing(future, code: int) -> None:
    try:
        future.result(timeout=60)
    except KafkaException as e:
        err = e.args[0] if e.args else None
        if not (isinstance(err, KafkaError) and err.code() == code):
            raise
