"""Exactly-once Kafka writes: the task's transactional producer, committed with each checkpoint.

:class:`KafkaTransactions` is the task's **Committer** (:class:`streamsql.core.connector.Committer`,
called by :mod:`streamsql.checkpoint.coordinator`) whenever the task has an exactly-once Kafka
sink (``'sink.delivery-guarantee' = 'exactly-once'`` on ``kafka``, or ``upsert-kafka`` in an
EXACTLY_ONCE job). The first such sink creates it in the task's
:class:`~streamsql.core.connector.TaskResources` and registers it as the commit point
(:meth:`KafkaTransactions.for_context`); every exactly-once sink of the task writes into its one
open transaction through its :class:`~.session.ProducerSession`.

Protocol (checkpoint n):

0. **mark** — the task joins ``<transactional id>-running`` as its run's member and is refused
   while a run of another checkpoint folder is one (:mod:`.liveness`): that run would be fenced.
1. **open** — ``init_transactions()`` (fences any zombie with the same transactional id and
   aborts, or completes if it was already prepared, its in-doubt transaction), create the
   progress topic if missing (compacted, one partition), ``begin_transaction()``.
2. **pre-commit** (barrier n, per sink) — the sink flushes the producer: every record of epoch
   n is acknowledged by the broker but not visible to ``read_committed`` consumers. From its
   pre-commit until the commit, a sink *holds* new rows (they belong to epoch n+1).
3. **commit** (:meth:`KafkaTransactions.commit`, the commit point) — inside the transaction:
   produce the marker ``{"job", "checkpoint_id": n, "transactional_id", "positions", "final",
   "committed_at"}`` keyed by the job name to the progress topic (``'sink.progress-topic'``,
   default ``_streamsql_progress``), and commit, with ``send_offsets_to_transaction``, offset
   ``n`` of the progress topic's partition 0 for the group ``<transactional id>-progress``
   (offset-commit metadata :func:`commit_metadata`: ``"final"`` for the last checkpoint of a
   finished job, and the checkpoint's random ``uid=<hex>``, which its ``chk-n/_metadata`` has too);
   then ``fault_point("during_commit")``, ``commit_transaction()``, and ``begin_transaction()``
   for epoch n+1. Output, marker and group offset become visible atomically. The last commit of
   a finished job also waits until its records *are* visible (:meth:`KafkaTransactions.commit`).
4. **restart** — :meth:`KafkaTransactions.last_committed` first makes sure
   ``init_transactions()`` ran (so a zombie's in-doubt transaction is resolved), then reads the
   committed offset of the progress group (one OffsetFetch): the id of the last committed
   checkpoint, or None when there is none or its metadata says ``"final"`` (a new run starts
   afresh). Reading *before* fencing could miss a commit the broker completes during fencing
   (a transaction already in PREPARE_COMMIT is completed, not aborted), and restoring an older
   checkpoint then would duplicate that epoch's output. The uid read with it
   (:attr:`KafkaTransactions.committed_uid`) tells whether that commit is of this folder's
   ``chk-n`` or of another folder's checkpoint ``n`` (the same job run from two folders, one
   killed before its first commit: its ``chk-1`` was never committed, the other's was). The
   marker records are not read back: they are an audit trail of the commits (which checkpoint,
   which source positions, when).

The transactional id is ``f"{prefix}-{job_name}-{task_index}"``, its prefix the task's
:func:`transaction_prefix`: the distinct ``'sink.transactional-id-prefix'`` values of the task's
exactly-once sinks (and exchanges), sorted and joined with ``+``, default ``streamsql``. Flink
gives each sink its own transactions and its docs ask for a distinct prefix per sink; here the
sinks of a task commit in one transaction, so one id stands for all of them. It is stable across
restarts so fencing works (one prefix gives the id of the single-prefix rule, unchanged),
distinct per task so tasks of a scaled-out job never fence one another, and it starts with the
first prefix, so a Kafka ACL on that prefix (``PREFIXED`` transactional-id) covers it.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Iterable

import orjson
from confluent_kafka import Consumer, IsolationLevel, KafkaError, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, OffsetSpec
from streamsql.connectors.kafka.admin import admin_client
from streamsql.connectors.kafka.client_keys import PRODUCER_ONLY
from streamsql.connectors.kafka.errors import (
    METADATA_TIMEOUT_S,
    RDKAFKA_LOG,
    execution_error,
    is_fenced,
    new_client,
    require_brokers,
    unwrap,
)
from streamsql.connectors.kafka.liveness import (
    RunInfo,
    RunMark,
    running_elsewhere_error,
    runs_elsewhere,
    this_run,
)
from streamsql.connectors.kafka.options import librdkafka_props, metadata_timeout_s
from streamsql.connectors.kafka.producer import ProducerHandle
from streamsql.connectors.kafka.topics import create_topic

from streamsql.core.connector import ConnectorContext
from streamsql.core.errors import ExecutionError, FencedError, JobSetupError
from streamsql.core.faults import fault_point
from streamsql.core.values import parse_bool

log = logging.getLogger(__name__)

DEFAULT_PREFIX = "streamsql"
#: Joins the distinct prefixes of a task's exactly-once sinks (:func:`transaction_prefix`).
PREFIX_JOINER = "+"
DEFAULT_PROGRESS_TOPIC = "_streamsql_progress"
SERVICE_KEY = "kafka_transactions"
#: Timeout of init/commit/abort transaction calls.
TXN_TIMEOUT_S = 60.0
#: How long a finished job's last commit waits for its records to become visible.
VISIBLE_TIMEOUT_S = 10.0
#: The transactional producer's ``linger.ms`` unless the table sets it (the other producers keep
#: :class:`~.producer.ProducerHandle`'s 5 ms). Its records become visible at the commit only, and
#: the commit flushes (librdkafka sends at once while a flush lasts), so lingering delays nothing
#: a reader sees. With 5 ms, librdkafka's broker thread polled its socket in a loop while a sink
#: batch's messages were being sent (~100,000 ``poll()`` calls/s measured by ``perf stat`` on a
#: producer of 10,000-message batches at 200,000 messages/s; 31,000 with 20 ms, 800 with 100 ms),
#: ~1 CPU-µs per message of Q0's 4.5-5 (benchmarks/README.md, session 33). A full queue waits no
#: linger either: :meth:`~.producer.ProducerHandle._wait_for_room`.
TXN_LINGER_MS = 100
#: OffsetFetch errors of a group coordinator that is moving or loading (asked again).
_COORDINATOR_MOVING = (KafkaError.NOT_COORDINATOR, KafkaError.COORDINATOR_LOAD_IN_PROGRESS,
                       KafkaError.COORDINATOR_NOT_AVAILABLE)


def transaction_prefix(prefixes: Iterable[str | None]) -> str:
    """The transactional id prefix of a task whose exactly-once sinks give ``prefixes``.

    Args:
        prefixes: each sink's ``'sink.transactional-id-prefix'`` (None or ``''``: unset).

    Returns:
        The distinct set values sorted and joined with ``+`` (``['b', 'a', 'b']`` gives
        ``'a+b'``); one value gives itself, as the single-prefix rule did (an upgraded job keeps
        its committed id); none gives ``streamsql``. Deterministic, so a restart of the same
        script takes the same id and fences its zombie.
    """
    given = sorted({p for p in prefixes if p})
    return PREFIX_JOINER.join(given) if given else DEFAULT_PREFIX


class KafkaTransactions:
    """The job's transactional producer and Committer (see module docstring).

    Args:
        props: librdkafka properties (``bootstrap.servers`` and the table's ``properties.*``).
        job_name: the job's stable name.
        task_index: the task's index (part of the transactional id).
        prefix: a sink's transactional id prefix (None: unset); more sinks add theirs
            (:meth:`add_prefix`) until :meth:`open`, the id is :func:`transaction_prefix` of all.
        progress_topic: the compacted topic of the checkpoint markers; its partition 0 carries the
            progress group's committed offset (the last committed checkpoint id).
        batch_produce: hand librdkafka a batch of rows in one call (:mod:`.native`), where it can.
        metadata_timeout_s: how long :meth:`open` waits for the brokers' metadata (a sink table's
            ``'properties.max.block.ms'``).
    """

    def __init__(
        self,
        props: dict[str, Any],
        job_name: str,
        task_index: int = 0,
        prefix: str | None = None,
        progress_topic: str = DEFAULT_PROGRESS_TOPIC,
        batch_produce: bool = True,
        metadata_timeout_s: float = METADATA_TIMEOUT_S,
    ):
        self.props = dict(props)
        self.metadata_timeout_s = metadata_timeout_s
        #: produce a batch of rows in one call of librdkafka's (:mod:`.native`), where it can
        self.batch_produce = batch_produce
        self.bootstrap = str(self.props.get("bootstrap.servers", ""))
        self.job_name = job_name
        self.task_index = task_index
        #: the prefixes the task's exactly-once sinks gave (None: unset), until :meth:`open`
        self.prefixes: list[str | None] = [prefix]
        self.progress_topic = progress_topic
        self.handle: ProducerHandle | None = None
        #: Topics the transaction writes that are no table's output (the progress topic, the
        #: task's exchanges): their records are not awaited (:meth:`await_output`).
        self.internal_topics = {progress_topic}
        self.in_txn = False
        self.users = 0
        self._consumer: Consumer | None = None  # of the progress group (created on first use)
        self._closed = False
        #: called with the committed checkpoint id read before fencing (:meth:`open`), or None
        self.before_fencing: Callable[[int | None], None] | None = None
        #: the run's checkpoint folder: :meth:`open` marks the id as this run's before fencing
        #: (:mod:`.liveness`); None: no mark
        self.run_folder: str | None = None
        self._mark: RunMark | None = None
        #: the uid of the last commit, as :meth:`last_committed` read it (None: none recorded)
        self.committed_uid: str | None = None

    @property
    def prefix(self) -> str:
        """The transactional id prefix: :func:`transaction_prefix` of the sinks' prefixes."""
        return transaction_prefix(self.prefixes)

    @property
    def transactional_id(self) -> str:
        """``<prefix>-<job name>-<task index>``: stable across restarts, one per task."""
        return f"{self.prefix}-{self.job_name}-{self.task_index}"

    @property
    def commit_point(self) -> str:
        """The commit point recorded in each checkpoint's ``_metadata``: :attr:`transactional_id`."""
        return self.transactional_id

    def release_commit_point(self, other: str) -> None:
        """A checkpoint committed under transactional id ``other`` is restored: abort its open one.

        A job killed mid-epoch leaves its transaction open; restored under another id (another
        ``'pipeline.name'``, a changed ``'sink.transactional-id-prefix'``), nobody fences ``other``,
        and that transaction held back every ``read_committed`` reader of the partitions it wrote,
        this job's output too, until the broker's ``'transaction.timeout.ms'`` (the job finished
        with its output invisible: 1,476 of 2,000 rows, break36). As Flink's KafkaSink aborts the
        lingering transactions of a restored state's prefix, ``init_transactions`` under ``other``
        aborts it; not while a run of another checkpoint folder marks ``other`` (:mod:`.liveness`):
        that job is running, its transaction is its own (a warning says so).

        Raises:
            ExecutionError: the brokers cannot be reached.
        """
        if other == self.transactional_id:
            return
        run = this_run(self.run_folder or "")
        running = runs_elsewhere(self.props, [other], run, self.what)[other]
        if running:
            log.warning("%s: the restored checkpoint was committed under transactional id '%s', which %s "
                        "uses: its open transaction is left to it", self.what, other, running[0].describe())
            return
        abort_lingering(self.props, [other])
        log.info("%s: aborted what transactional id '%s' of the restored checkpoint left open", self.what,
                 other)

    @property
    def what(self) -> str:
        """The transaction, in messages."""
        return f"Job '{self.job_name}' (Kafka transaction '{self.transactional_id}')"

    def add_prefix(self, prefix: str | None, table: str) -> None:
        """Another exactly-once sink of the task writes in the transaction, with ``prefix``.

        Raises:
            JobSetupError: the transaction is open already (its id cannot change any more).
        """
        if transaction_prefix([*self.prefixes, prefix]) != self.prefix and self.handle is not None:
            msg = (f"Table '{table}': its 'sink.transactional-id-prefix' = '{prefix}' joins the Kafka "
                   f"transaction '{self.transactional_id}' after it opened")
            raise JobSetupError(msg)
        self.prefixes.append(prefix)

    # -- creation --------------------------------------------------------------------------------
    @classmethod
    def for_context(cls, ctx: ConnectorContext) -> KafkaTransactions:
        """Get or create the task's instance (``ctx.resources``) and register it as the commit point.

        Cheap: nothing connects before :meth:`open`.

        Each sink adds its ``'sink.transactional-id-prefix'`` (:meth:`add_prefix`): sinks with
        different prefixes share the transaction, under :func:`transaction_prefix` of them all.

        Raises:
            JobSetupError: when two exactly-once sinks of the job disagree on the brokers or the
                progress topic (the transaction's one producer and one commit record).
        """
        o = ctx.table.options
        props = librdkafka_props(o, f"Table '{ctx.table.name}': ", "producer")
        prefix = o.get("sink.transactional-id-prefix") or None
        topic = o.get("sink.progress-topic") or DEFAULT_PROGRESS_TOPIC
        key = "streamsql.exec.kafka.batch-produce"
        batch = parse_bool(ctx.config.get(key, "true"), key)
        wait_s = metadata_timeout_s(ctx.table, "producer")
        txn = ctx.resources.shared(
            SERVICE_KEY, lambda: cls(props, ctx.job_name, ctx.task_index, None, topic, batch, wait_s))
        ctx.resources.register_committer(txn)
        txn.add_prefix(prefix, ctx.table.name)
        txn.before_fencing = ctx.resources.before_fencing
        txn.run_folder = ctx.resources.run_folder
        for what, mine, theirs in (
            ("'properties.bootstrap.servers'", props.get("bootstrap.servers"), txn.bootstrap),
            ("'sink.progress-topic'", topic, txn.progress_topic),
        ):
            if str(mine) != str(theirs):
                msg = (
                    f"Table '{ctx.table.name}': all exactly-once Kafka sinks of a job share one transaction, "
                    f"but its {what} = '{mine}' differs from another sink's '{theirs}'"
                )
                raise JobSetupError(msg)
        return txn

    # -- lifecycle -------------------------------------------------------------------------------
    def open(self) -> None:
        """Fence zombies and begin the first transaction (idempotent).

        Raises:
            ExecutionError: when the brokers cannot be reached or the transaction cannot start.
        """
        if self.handle is not None:
            return
        props = dict(self.props)
        props["transactional.id"] = self.transactional_id
        props.setdefault("transaction.timeout.ms", 900_000)
        if "linger.ms" not in props and "queue.buffering.max.ms" not in props:  # librdkafka's alias
            props["linger.ms"] = TXN_LINGER_MS
        props["enable.idempotence"] = True
        handle = ProducerHandle(props, self.what)
        handle.txn_timeout_ms = int(props["transaction.timeout.ms"])
        if self.batch_produce:
            handle.attach_batch()  # transactional: a failed delivery fails the commit (.native)
        # fail within the metadata timeout (10 s by default), not init_transactions' 60 s
        require_brokers(handle.producer, self.what, self.bootstrap, self.metadata_timeout_s)
        self._ensure_progress_topic()
        if self.run_folder is not None and self._mark is None:
            self._mark_running(this_run(self.run_folder))
        if self.before_fencing is not None:
            # A job that commits under the same id from another folder is running: refuse before
            # init_transactions fences it (the read after fencing decides what is restored).
            self.before_fencing(self._read_committed(stable=False))
        self.handle = handle
        try:
            self.handle.producer.init_transactions(TXN_TIMEOUT_S)
        except KafkaException as e:
            self.handle = None
            msg = f"{self.what}: init_transactions"
            raise execution_error(msg, e, self.bootstrap) from None
        self._begin()

    def _mark_running(self, run: RunInfo) -> None:
        """Mark the transactional id as ``run``'s; refuse while another folder's run marks it.

        Raises:
            JobRunningError: a run of another checkpoint folder holds the id (:mod:`.liveness`).
        """
        mark = RunMark(self.props, self.transactional_id, self.progress_topic, run, self.what)
        try:
            mark.join()
            others = mark.others()
        except BaseException:
            mark.close()
            raise
        if others:
            mark.close()
            raise running_elsewhere_error(self.job_name, {self.transactional_id: others}, run.folder)
        self._mark = mark

    def _begin(self) -> None:
        self.handle.log_tap.txn_error = None  # an aborted transaction's failure is not the next one's
        try:
            self.handle.producer.begin_transaction()
        except KafkaException as e:
            msg = f"{self.what}: begin_transaction"
            raise execution_error(msg, e, self.bootstrap) from None
        self.in_txn = True

    @property
    def in_txn(self) -> bool:
        """A transaction is open (the producer handle times it: :meth:`.ProducerHandle.timed_out`)."""
        return self.handle is not None and self.handle.in_txn

    @in_txn.setter
    def in_txn(self, value: bool) -> None:
        if self.handle is not None:
            self.handle.in_txn = value
            self.handle.txn_first_write = None

    def _ensure_progress_topic(self) -> None:
        props = {k: v for k, v in self.props.items() if k not in PRODUCER_ONLY}
        what = f"Progress topic '{self.progress_topic}'"
        try:
            md = admin_client(props, what).list_topics(timeout=self.metadata_timeout_s)
        except KafkaException as e:  # a restart retries; a raw one failed the job as internal
            raise execution_error(what, e, self.bootstrap) from None
        if self.progress_topic in md.topics and md.topics[self.progress_topic].error is None:
            return
        create_topic(props, self.progress_topic, self.what, 1, -1, {"cleanup.policy": "compact"})

    def acquire(self) -> ProducerHandle:
        """A sink starts using the transaction: open it if needed and return the producer handle."""
        self.open()
        self.users += 1
        return self.handle

    def release(self) -> None:
        """A sink is done; the last one closes the producer."""
        self.users -= 1
        if self.users <= 0:
            self.close()

    # -- Committer -------------------------------------------------------------------------------
    def commit(self, checkpoint_id: int, metadata: dict) -> None:
        """Commit the open transaction as checkpoint ``checkpoint_id`` and begin the next one.

        Raises:
            ExecutionError: when the commit fails (producer fenced, transaction timed out,
                brokers unreachable); the transaction is then aborted where possible.
        """
        self.open()
        h = self.handle
        p = h.producer
        marker = orjson.dumps(
            {
                "job": self.job_name,
                "checkpoint_id": checkpoint_id,
                "transactional_id": self.transactional_id,
                "positions": metadata.get("positions", {}),
                "final": bool(metadata.get("final")),
                "committed_at": int(time.time() * 1000),
            }
        )
        try:
            h.produce_many(self.progress_topic, [self.job_name.encode()], [marker])
            # The commit record that restarts read: a transactional offset commit of the job's
            # progress group, offset = checkpoint id (verified to round-trip with its metadata on
            # the real broker). Reading it back is one OffsetFetch, however long the job ran.
            note = commit_metadata(bool(metadata.get("final")), metadata.get("uid"))
            committed = TopicPartition(self.progress_topic, 0, checkpoint_id, metadata=note)
            p.send_offsets_to_transaction([committed], self._group_metadata(), TXN_TIMEOUT_S)
        except (KafkaException, SystemError) as e:
            msg = f"{self.what}: cannot commit checkpoint {checkpoint_id}: {unwrap(e)}"
            error = h.timed_out(FencedError(msg)) if is_fenced(unwrap(e)) else ExecutionError(msg)
            self._abort_quietly()
            raise error from None
        except ExecutionError as e:
            self._abort_quietly()
            msg = f"{self.what}: cannot commit checkpoint {checkpoint_id}: {_without(str(e), self.what)}"
            raise type(e)(msg) from None
        fault_point("during_commit")
        ends = {}
        try:
            p.flush(TXN_TIMEOUT_S)
            h.check()
            if metadata.get("final"):
                ends = self._log_ends(self.output_topics())
            p.commit_transaction(TXN_TIMEOUT_S)
        except (KafkaException, SystemError) as e:
            self._fail_commit(checkpoint_id, unwrap(e))
        except ExecutionError as e:  # failed deliveries: this transaction must not commit
            self._abort_quietly()
            msg = f"{self.what}: cannot commit checkpoint {checkpoint_id}: {_without(str(e), self.what)}"
            raise ExecutionError(msg) from None
        self.in_txn = False
        log.debug("%s: committed checkpoint %d", self.what, checkpoint_id)
        if ends:
            self._await_visible(ends)
        self._begin()

    # -- visibility of a finished job's output ----------------------------------------------------
    # commit_transaction() returns once the coordinator has logged the decision (PREPARE_COMMIT);
    # it writes the COMMIT markers into the data partitions afterwards, and a read_committed
    # reader sees the records only then (its end, the last stable offset, stops at the open
    # transaction). A job that reported FINISHED must not leave the next reader an empty topic: a
    # bounded read started right then ('scan.bounded.mode' = 'latest-offset', the next job of a
    # script with 'table.dml-sync') took the end before the markers and read nothing (in the
    # clean-clone CI, test_kafka_sink_timestamp[upsert_metadata] read its topic 21 ms before the
    # broker appended the marker). So the last commit of a finished job waits for its markers.
    # A parallel job's tasks do not wait at their last commit (another task's open transaction on
    # a partition they share would hold the wait back until it commits); the job waits once every
    # task committed (:meth:`await_output`, from streamsql.runtime.parallel).

    def output_topics(self) -> set[str]:
        """The tables' topics the transaction has written (not :attr:`internal_topics`)."""
        return (self.handle.topics if self.handle is not None else set()) - self.internal_topics

    def await_output(self) -> None:
        """Wait until read_committed readers see every record written to :meth:`output_topics` so far.

        For a parallel job once all its tasks committed their last checkpoint (then no open
        transaction of the job holds a partition back); at most :data:`VISIBLE_TIMEOUT_S`, as
        :meth:`commit` waits.
        """
        ends = self._log_ends(self.output_topics())
        if ends:
            self._await_visible(ends)

    def _admin(self) -> AdminClient:
        return admin_client({k: v for k, v in self.props.items() if k not in PRODUCER_ONLY}, self.what)

    def _latest(self, tps: list[TopicPartition], level: IsolationLevel) -> dict[tuple[str, int], int]:
        """The end offset of each partition.

        The high watermark; under READ_COMMITTED the last stable offset (below the first record of
        a transaction still open).
        """
        futures = self._admin().list_offsets({tp: OffsetSpec.latest() for tp in tps}, isolation_level=level,
                                             request_timeout=METADATA_TIMEOUT_S)
        return {(tp.topic, tp.partition): f.result().offset for tp, f in futures.items()}

    def _log_ends(self, topics: set[str]) -> dict[tuple[str, int], int]:
        """The high watermark of every partition of ``topics`` ({} when the brokers cannot say).

        Called after the flush: every record of the transaction lies below it.
        """
        try:
            admin = self._admin()
            tps = [TopicPartition(t, p) for t in sorted(topics)
                   for p in admin.list_topics(topic=t, timeout=METADATA_TIMEOUT_S).topics[t].partitions]
            return self._latest(tps, IsolationLevel.READ_UNCOMMITTED) if tps else {}
        except (KafkaException, KeyError) as e:  # only the wait is skipped; the commit goes on
            log.debug("%s: no end offsets to await: %s", self.what, e)
            return {}

    def _await_visible(self, ends: dict[tuple[str, int], int]) -> None:
        """Wait until every partition's last stable offset reaches ``ends``: the markers are written.

        For at most :data:`VISIBLE_TIMEOUT_S`: another producer's open transaction holds the
        offset back for as long as that one lasts (then only a warning).
        """
        tps = [TopicPartition(t, p) for t, p in ends]
        deadline = time.monotonic() + VISIBLE_TIMEOUT_S
        pause = 0.005
        while True:
            try:
                stable = self._latest(tps, IsolationLevel.READ_COMMITTED)
            except KafkaException as e:
                log.debug("%s: cannot read the last stable offsets: %s", self.what, e)
                return
            behind = [tp for tp in tps if stable[(tp.topic, tp.partition)] < ends[(tp.topic, tp.partition)]]
            if not behind:
                return
            if time.monotonic() > deadline:
                log.warning("%s: the committed records of %s are not visible to read_committed readers "
                            "after %.0f s (another transaction on the partition is open)", self.what,
                            ", ".join(f"{tp.topic}[{tp.partition}]" for tp in behind), VISIBLE_TIMEOUT_S)
                return
            tps = behind
            time.sleep(pause)
            pause = min(pause * 2, 0.2)

    def _fail_commit(self, checkpoint_id: int, e: BaseException) -> None:
        err = e.args[0] if isinstance(e, KafkaException) and e.args else None
        why = self.handle.delivery_failure() or (err.str() if isinstance(err, KafkaError) else str(e))
        error = FencedError if is_fenced(err) else ExecutionError
        if error is FencedError:
            why = (
                f"producer fenced: another instance with transactional.id '{self.transactional_id}' "
                f"started ({why})"
            )
        msg = f"{self.what}: cannot commit checkpoint {checkpoint_id}: {why}"
        failure = self.handle.timed_out(error(msg)) if error is FencedError else error(msg)
        if error is not FencedError and isinstance(err, KafkaError) and err.txn_requires_abort():
            self._abort_quietly()
        self.in_txn = False
        raise failure from None

    def _abort_quietly(self) -> None:
        try:
            self.handle.producer.abort_transaction(TXN_TIMEOUT_S)
        except KafkaException:
            pass
        self.in_txn = False

    @property
    def progress_group(self) -> str:
        """The consumer group whose committed offset records the last committed checkpoint."""
        return f"{self.transactional_id}-progress"

    def _progress_consumer(self, isolation: str = "read_committed") -> Consumer:
        """The progress group's consumer; ``read_uncommitted``: a new one, the caller closes it."""
        if self._consumer is None or isolation != "read_committed":
            props = {k: v for k, v in self.props.items() if k not in PRODUCER_ONLY}
            props.update({"group.id": self.progress_group, "enable.auto.commit": False,
                          "isolation.level": isolation, "logger": RDKAFKA_LOG})
            consumer = new_client(Consumer, props, f"Transactional id '{self.transactional_id}'")
            if isolation != "read_committed":
                return consumer
            self._consumer = consumer
        return self._consumer

    def _group_metadata(self):
        return self._progress_consumer().consumer_group_metadata()

    def last_committed(self) -> int | None:
        """The id of this task's last committed checkpoint, or None.

        None when there is none yet, or when the last run finished (a new run starts afresh).
        Runs ``init_transactions()`` first (via :meth:`open`) so an in-doubt transaction of a
        previous incarnation is resolved before the committed offset is read.

        Raises:
            ExecutionError: when the broker cannot be asked.
        """
        self.open()
        return self._read_committed()

    def _read_committed(self, stable: bool = True) -> int | None:
        """The progress group's committed checkpoint id (None: none, or final); one OffsetFetch.

        ``stable``: wait for a pending transactional commit of the offset to end (read_committed:
        the broker answers UNSTABLE_OFFSET_COMMIT until it does). Before fencing (``stable`` False)
        the transaction of a previous incarnation killed mid-commit is still pending and only
        ``init_transactions`` ends it: that read takes the last stable offset instead (the id
        committed before it), enough to tell another folder's job; the read after fencing decides.
        """
        progress = [TopicPartition(self.progress_topic, 0)]
        deadline = time.monotonic() + TXN_TIMEOUT_S
        consumer = self._progress_consumer("read_committed" if stable else "read_uncommitted")
        try:
            while True:
                try:
                    [tp] = consumer.committed(progress, TXN_TIMEOUT_S)
                    break
                except (KafkaException, SystemError) as e:
                    err = unwrap(e).args[0] if unwrap(e).args else None
                    # The group coordinator moves or loads after a broker restart: ask again.
                    if (isinstance(err, KafkaError) and err.code() in _COORDINATOR_MOVING
                            and time.monotonic() < deadline):
                        time.sleep(0.5)
                        continue
                    msg = f"{self.what}: cannot read the last committed checkpoint: {unwrap(e)}"
                    raise ExecutionError(msg) from None
        finally:
            if not stable:
                consumer.close()
        final, self.committed_uid = read_commit_metadata(tp.metadata)
        if tp.offset < 0 or final:
            return None
        return int(tp.offset)

    def abort(self) -> None:
        """From the cancelling thread: the producer's flushes and produce retries give up soon.

        For every writer of the transaction: the sinks, and an exchange writer flushing at a
        barrier (:meth:`.ProducerHandle.abort`). :meth:`close` follows.
        """
        if self.handle is not None:
            self.handle.abort()

    def close(self) -> None:
        """Abort the open transaction (uncommitted rows are never visible) and close; idempotent.

        The liveness mark is left last, once the producer is closed.
        """
        if self._consumer is not None:
            self._consumer.close()
            self._consumer = None
        try:
            if self.handle is None or self._closed:
                return
            self._closed = True
            if self.in_txn:
                self._abort_quietly()
            self.handle.close()
        finally:
            if self._mark is not None:
                self._mark.close()
                self._mark = None


def abort_lingering(props: dict[str, Any], transactional_ids: list[str]) -> None:
    """Fence ``transactional_ids``: a transaction one of them left open is aborted.

    The ids of a run's tasks that the next run does not have (a restore at a lower parallelism,
    or a single-process run's, restored in several tasks): no task of the new run opens a
    producer under them, so a transaction one left open (a process killed or hung mid-checkpoint)
    held back every ``read_committed`` reader of the partitions it wrote until the broker's
    ``transaction.timeout.ms``. ``init_transactions`` aborts it (Flink's KafkaSink aborts the
    lingering transactions of the subtasks beyond its parallelism on restore).

    Raises:
        ExecutionError: the brokers cannot be reached.
    """
    cfg = {k: v for k, v in props.items() if not k.startswith(("transaction", "enable.idem"))}
    for tid in transactional_ids:
        producer = new_client(Producer, {**cfg, "transactional.id": tid}, f"Transactional id '{tid}'")
        try:
            producer.init_transactions(TXN_TIMEOUT_S)
        except KafkaException as e:
            what = f"Aborting the open transaction of '{tid}'"
            raise execution_error(what, e, str(props.get("bootstrap.servers", ""))) from None
        finally:
            producer.flush(0)


def commit_metadata(final: bool, uid: str | None) -> str:
    """The offset-commit metadata of a checkpoint's commit: ``"final uid=<hex>"``, ``"uid=<hex>"``.

    Words separated by spaces; an older version wrote ``"final"`` or ``""`` (no uid), which
    :func:`read_commit_metadata` reads too. The broker keeps up to ``offset.metadata.max.bytes``
    (4096 by default) of it.
    """
    words = (["final"] if final else []) + ([f"uid={uid}"] if uid else [])
    return " ".join(words)


def read_commit_metadata(text: str | None) -> tuple[bool, str | None]:
    """``(final, uid or None)`` of :func:`commit_metadata`'s text (an older version's too)."""
    words = (text or "").split()
    uid = next((w[4:] for w in words if w.startswith("uid=")), None)
    return "final" in words, uid


def _without(text: str, what: str) -> str:
    """``text`` without a leading ``"<what>: "`` (the commit's message names who once)."""
    prefix = f"{what}: "
    return text[len(prefix):] if text.startswith(prefix) else text
