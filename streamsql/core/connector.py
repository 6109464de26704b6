"""The source and sink contracts every connector implements.

Call order the runtime guarantees (never two calls on one source or sink at once, but for the
``decode`` of a ``decode_apart`` source; a source with ``prefetch`` is polled on a fetch thread
of its own, and one with ``decode_apart`` decodes on a decode thread besides, and a sink with
``pipelined`` writes and pre-commits on a sink thread of its own, see
:mod:`streamsql.runtime.prefetch` and :mod:`streamsql.runtime.sink_stage`; all other connectors
run on the job thread):

Source: ``open(position)`` once → ``poll()`` repeatedly, interleaved with ``position()`` at
each checkpoint barrier → ``close()``. ``poll`` never blocks longer than its timeout.
``position()`` must describe the position *after* the last row returned by ``poll`` (for
Kafka: the next offset to read per partition), so that a restore resumes exactly there.

Sink: ``open()`` once → ``write(batch)`` repeatedly → at each barrier ``pre_commit(n)`` (flush:
every row written so far is durable but, for a transactional sink, not yet visible) → when
checkpoint n completes, ``commit(n)`` → ... → ``close()``. A sink that is not transactional
makes rows visible in ``write`` or ``pre_commit`` and ignores ``commit``. A sink with state of its
own (the filesystem sink's pending files, as Flink's ``FileWriter`` state) gives it by
``snapshot(n)`` right after ``pre_commit(n)``; it is recorded in checkpoint n, and a restored
attempt hands it back by ``restore(state)`` after ``open()``, before the first ``write``.
"""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Callable, Protocol, TypeVar

import pyarrow as pa

from streamsql.core.catalog import TableDef
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema, SqlType
from streamsql.core.values import parse_enum


@dataclass
class OptionSpec:
    """One connector or format option.

    Attributes:
        key: the option key as in Flink (``'scan.startup.mode'``).
        required: whether the table must set it.
        default: the value used when unset (a string, as in DDL), or None.
        choices: allowed values, or None for free text.
        description: one line, shown by HELP and completion.
        enum: the choices are a Flink enum option's, matched in any case (``'EARLIEST-OFFSET'``),
            as Flink's ``convertToEnum``; False for a string option Flink compares exactly
            (``'format'``, ``'json.timestamp-format.standard'``). Booleans
            (:func:`flag_option`) are always matched in any case.
    """

    key: str
    required: bool = False
    default: str | None = None
    choices: tuple[str, ...] | None = None
    description: str = ""
    enum: bool = False

    def canonical(self, value: str, what: str) -> str:
        """``value`` checked against :attr:`choices`, in the choice's spelling (``'TRUE'`` → ``'true'``).

        Args:
            value: the option's value as written.
            what: how messages name the option (``"Table 't': option 'k'"``).

        Raises:
            ConfigError: ``<what> = '<value>' is not one of ...``.
        """
        if self.choices is None:
            return value
        if self.enum or self.choices == ("true", "false"):
            return parse_enum(value, self.choices, what)
        if value not in self.choices:
            msg = f"{what} = '{value}' is not one of {', '.join(repr(c) for c in self.choices)}"
            raise ConfigError(msg)
        return value


def choice_option(
    key: str, choices: tuple[str, ...], description: str, default: str | None = None, enum: bool = False
) -> OptionSpec:
    """An option whose value must be one of ``choices`` (``default`` when unset, or None).

    ``enum``: a Flink enum option, matched in any case (:attr:`OptionSpec.enum`).
    """
    return OptionSpec(key, default=default, choices=choices, description=description, enum=enum)


def flag_option(key: str, description: str, default: str = "false") -> OptionSpec:
    """A ``'true'``/``'false'`` option (``'false'`` when unset unless ``default`` says otherwise)."""
    return choice_option(key, ("true", "false"), description, default)


#: Flink's ``'scan.watermark.idle-timeout'``: a split (Kafka partition) without rows for this
#: long (processing time) stops holding the table's watermark back until it has rows again.
#: Overrides the engine key ``'table.exec.source.idle-timeout'``; unset / ``0`` = never idle.
OPT_WATERMARK_IDLE = OptionSpec(
    "scan.watermark.idle-timeout",
    description="a partition without rows for this long stops holding the watermark back ('0' = never)",
)


#: Flink's ``FactoryUtil.SOURCE_PARALLELISM`` / ``SINK_PARALLELISM``: the number of subtasks of a
#: table's source or sink. A job here runs each stage at ``'parallelism.default'`` tasks; what the
#: options do is :mod:`streamsql.plan.parallelism_options` (validated when a job is planned, as Flink).
OPT_SCAN_PARALLELISM = OptionSpec(
    "scan.parallelism",
    description="Flink's source parallelism: validated; read by the job's tasks (docs/parallelism.md)",
)
OPT_SINK_PARALLELISM = OptionSpec(
    "sink.parallelism",
    description="Flink's sink parallelism: validated; written by its input's tasks (docs/parallelism.md)",
)


class Committer(Protocol):
    """Decides and records which checkpoint is the last committed one.

    It is the commit point of exactly-once (docs/checkpointing.md). The checkpoint coordinator
    calls it; a transactional sink provides it (the Kafka transaction), else the job commits by
    writing ``_committed``.
    """

    #: After :meth:`last_committed`: the ``uid`` the last commit recorded (``metadata["uid"]``), or
    #: None when it recorded none (a commit point inside the checkpoint folder, an older version's
    #: commit). A restart resumes checkpoint n only if its ``_metadata`` has that uid.
    committed_uid: str | None
    #: Where this committer commits, recorded in each checkpoint's ``_metadata``
    #: (``"commit_point"``): the Kafka transactional id; None for the folder's own ``_committed``.
    commit_point: str | None

    def release_commit_point(self, other: str) -> None:
        """A checkpoint committed at commit point ``other`` is restored: end what ``other`` left open.

        The Kafka transaction aborts ``other``'s open transaction (unless a running job holds it),
        as Flink's KafkaSink aborts the lingering transactions of a restored state's old prefix.
        """

    def last_committed(self) -> int | None:
        """The id of the last committed checkpoint to resume from, or None.

        None when there is none, or when the last one was the final checkpoint of a finished
        job (a new run starts afresh).
        """

    def commit(self, checkpoint_id: int, metadata: dict) -> None:
        """Commit checkpoint ``checkpoint_id``.

        ``metadata["final"]`` is True for the last checkpoint of a job that finished;
        ``metadata["positions"]`` are the source positions; ``metadata["uid"]`` is the random id
        of this checkpoint (also in its ``_metadata``), to record with the commit when the commit
        point lives outside the checkpoint folder.
        """


T = TypeVar("T")

#: A sink's state (:meth:`Sink.snapshot`) is recorded among a checkpoint's source positions under
#: this prefix and its node id. A savepoint restored at another parallelism hands each new task the
#: list of the old tasks' states ``state["task"] % tasks == task`` (:mod:`streamsql.runtime.savepoint`).
SINK_STATE_PREFIX = "sink:"

_COUNT_LOCK = threading.Lock()


def count(metrics: dict[str, int], key: str, n: int) -> None:
    """Add ``n`` to ``metrics[key]``; safe from several threads (the fetch threads of a job's sources)."""
    with _COUNT_LOCK:
        metrics[key] = metrics.get(key, 0) + n


class TaskResources:
    """What the connectors of one task share, passed explicitly in :class:`ConnectorContext`.

    - :meth:`shared` gives one object per key per task (all exactly-once Kafka sinks of a task
      write through one transactional producer session);
    - :meth:`register_committer` is how a transactional sink makes its transaction the task's
      commit point: the job builder hands the registered committer to the checkpoint
      coordinator (one commit path: coordinator → committer → its sinks).

    The runtime closes shared objects that have ``close()`` when the task ends, newest first, and
    calls ``abort()`` of those that have one when the task is cancelled (:meth:`abort`).
    """

    def __init__(self, before_fencing: Callable[[int | None], None] | None = None,
                 run_folder: str | None = None) -> None:
        self._shared: dict[Hashable, Any] = {}
        self.committer: Committer | None = None
        #: ``(committed) -> None``, given the last committed checkpoint id as read *before* a
        #: transactional committer fences its id's earlier producer: raises to refuse (the id is
        #: another running job's, :meth:`~streamsql.checkpoint.identity.JobIdentity.check_before_fencing`)
        self.before_fencing = before_fencing
        #: the checkpoint folder of the run the task belongs to (a path or URI): a transactional
        #: committer marks its id as used by this run before it fences anything, and refuses
        #: while another folder's run marks it (:mod:`streamsql.connectors.kafka.liveness`);
        #: None: no mark (a job without checkpoint folder identity)
        self.run_folder = run_folder

    def shared(self, key: Hashable, factory: Callable[[], T]) -> T:
        """The task's object for ``key``, created by ``factory()`` on first use."""
        if key not in self._shared:
            self._shared[key] = factory()
        return self._shared[key]

    def register_committer(self, committer: Committer) -> None:
        """Make ``committer`` the task's commit point (registering the same one again is a no-op).

        Raises:
            ConfigError: when another committer is already registered.
        """
        if self.committer is not None and self.committer is not committer:
            msg = "A job can have one transactional commit point; a second one was registered"
            raise ConfigError(msg)
        self.committer = committer

    def abort(self) -> None:
        """From the cancelling thread: ``abort()`` every shared object that has one; never raises.

        A shared object's blocked calls should then return soon (e.g. the task's transactional
        producer, which an exchange writer flushes at a barrier); :meth:`close` still follows.
        """
        for obj in list(self._shared.values()):
            abort = getattr(obj, "abort", None)
            if abort is None:
                continue
            try:
                abort()
            except Exception:  # a cancel goes on whatever one object says
                continue

    def close(self) -> None:
        """Close every shared object that has ``close()``, newest first; raises the first error."""
        error: Exception | None = None
        for obj in reversed(list(self._shared.values())):
            close = getattr(obj, "close", None)
            if close is None:
                continue
            try:
                close()
            except Exception as e:  # close the rest, then report
                error = error or e
        self._shared.clear()
        if error is not None:
            raise error


@dataclass
class ConnectorContext:
    """What a connector gets when the runtime creates it.

    Attributes:
        table: the table definition (schema, options, primary key).
        job_name: the job's ``'pipeline.name'`` (stable across restarts).
        config: the engine configuration in force (``SET`` keys), string values.
        task_index: index of this source/sink instance in the job (for ids, transactional ids).
        num_tasks: how many tasks run this source/sink; a partitioned source reads its share
            (a Kafka source: the partitions ``i`` with ``i % num_tasks == task_index``).
        single_input: a sink whose input has all its rows on one task whatever ``num_tasks``
            (a global aggregate; Flink runs that input, and so the sink, at parallelism 1).
        metrics: counters the connector may bump, e.g. ``metrics['bad_records'] += 1``.
        resources: shared objects and the commit point of the task (:class:`TaskResources`).
        read_columns: for a source, what the job reads of the table's columns, or None for all:
            paths ``(column,)`` (all of the column) and ``(column, field, ...)`` (that field of a
            ROW column, :func:`read_tree`); a source may leave the rest NULL, keeping the
            columns' types (a Kafka source's value format then need not decode it;
            :mod:`streamsql.plan.scan_reads`).
        limit: for a source whose spec has :attr:`ConnectorSpec.source_limit`, the number of rows
            the job reads at most (a LIMIT pushed into the scan, :mod:`streamsql.plan.limit`), or
            None: the source may end after that many rows.
        partitions: for a source of a partitioned table, the values each partition key may have
            (folder texts, None for NULL) by the job's WHERE (:mod:`streamsql.plan.partition_prune`),
            or None: every partition. Rows outside them would be filtered out anyway.
        job_uuid: a uuid drawn once when the job was submitted, the same in every task and process
            of the job and in its restarts within that submission (the filesystem sink names its
            part files by it, as Flink's draws one when the job is planned); "" when none was
            drawn (a connector then draws its own).
    """

    table: TableDef
    job_name: str
    config: dict[str, str]
    task_index: int = 0
    num_tasks: int = 1
    single_input: bool = False
    metrics: dict[str, int] = field(default_factory=dict)
    resources: TaskResources = field(default_factory=TaskResources)
    read_columns: frozenset[tuple[str, ...]] | None = None
    limit: int | None = None
    partitions: dict[str, frozenset[str | None]] | None = None
    job_uuid: str = ""


class Source(ABC):
    """Reads a table's rows as batches (see module docstring for the call order).

    Attributes:
        schema: columns of every batch ``poll`` returns: the table's physical columns then its
            metadata columns, in declaration order (computed columns are added by the runtime).
        bounded: True when the source finishes by itself.
        changelog: True when batches may carry -U/+U/-D rows (upsert-kafka, debezium-json); the
            planner reads it from :attr:`ConnectorSpec.source_changelog`.
        split_names: the source's splits (Kafka: one per assigned partition, named like its
            position key), valid after :meth:`open` and fixed until :meth:`close`. A batch's
            :attr:`Batch.splits <streamsql.core.elements.Batch.splits>` are indices into
            this list. Empty (the default) for a single-split source, whose batches carry
            ``splits = None``. Watermarks are generated per split and combined as the minimum
            over splits that are neither idle nor finished (Flink's per-split watermarks), so
            the names must be stable across restarts (they key the checkpointed per-split
            watermark state).
    """

    schema: Schema
    bounded: bool = False
    changelog: bool = False
    split_names: list[str] = []
    #: ``poll`` may run ahead on a fetch thread of its own (:mod:`streamsql.runtime.prefetch`):
    #: every call but ``lag`` then comes from that thread, ``open`` excepted, one at a time.
    prefetch: bool = False
    #: With ``prefetch``: ``poll`` is ``decode(fetch(...))``, and the pipeline calls the two apart,
    #: ``decode`` on a decode thread of its own, in fetch order, while the fetch thread makes the
    #: other calls. ``decode`` must touch nothing they touch; ``position()`` and the rest answer
    #: as of the last ``fetch`` (the decode of a fetch moves no position).
    decode_apart: bool = False

    @abstractmethod
    def open(self, position: dict | None) -> None:
        """Start reading at ``position``, or where the table's startup options say when None.

        ``position`` comes from :meth:`position` of a restored checkpoint.
        """

    @abstractmethod
    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Return up to ``max_rows`` rows, or None when none arrived within ``timeout_s`` seconds.

        Raises:
            BadRecordError: for an undecodable record when the format is set to fail.
        """

    def fetch(self, max_rows: int, timeout_s: float) -> Any:
        """With :attr:`decode_apart`: ``poll``'s reading half: up to ``max_rows`` records, undecoded.

        None when none arrived within ``timeout_s`` seconds; whatever else it returns goes to
        :meth:`decode` unchanged.
        """
        msg = f"{type(self).__name__} does not fetch apart from its decode"
        raise NotImplementedError(msg)

    def decode(self, fetched: Any) -> Batch | None:
        """With :attr:`decode_apart`: ``poll``'s decoding half: the rows of one :meth:`fetch`, or None.

        Raises:
            BadRecordError: for an undecodable record when the format is set to fail.
        """
        msg = f"{type(self).__name__} does not decode apart from its fetch"
        raise NotImplementedError(msg)

    def decode_copy(self) -> Callable[[Any], Batch | None] | None:
        """With :attr:`decode_apart`: another :meth:`decode` that may run at the same time as it.

        The pipeline's extra decode threads (``'streamsql.exec.pipeline.decode-threads'``) each
        call one; the batches are still handed on in fetch order. It must touch nothing
        :meth:`decode` or the fetch thread touches (a decoder of its own). None (the default):
        decodes share state (upsert-kafka's per-key values) and run one at a time, in order.
        """
        return None

    @abstractmethod
    def position(self) -> dict:
        """A JSON-serializable position just after the last row returned by ``poll``."""

    def finished(self) -> bool:
        """True once a bounded source has returned its last row."""
        return False

    def checkpoint_committed(self, checkpoint_id: int, position: dict) -> None:
        """Checkpoint ``checkpoint_id`` committed; ``position`` is this source's in it.

        Flink's ``notifyCheckpointComplete``: a Kafka source commits the offsets to its consumer
        group (for lag monitoring). Nothing by default; must not raise for trouble that only
        affects such bookkeeping.
        """

    def lag(self) -> int | None:
        """Records of its input not read yet (a Kafka source's end offsets minus its position).

        Asked on the thread that polls the source, between polls (SHOW JOBS hands the call
        over: streamsql/runtime/handoff.py); None when unknown. Must not raise.
        """
        return None

    def watermark(self) -> int | None:
        """The watermark (ms) the source itself carries, or None (the usual case).

        A source that reads another stage's output (the exchange of a parallel job) knows the
        upstream tasks' watermarks; the source driver emits this one when it advances.
        """
        return None

    def is_idle(self) -> bool:
        """Whether every input the source merges is idle (default False).

        A source that reads another stage's output (the exchange of a parallel job) is idle while
        every upstream task that has not ended sent an idle status and no row or watermark since;
        the source driver then sends an idle status downstream once, so that where inputs merge
        this one is left out of the watermark, as Flink forwards ``WatermarkStatus.IDLE`` over a
        network channel. A connector's own idle splits are the watermark assigner's business.
        """
        return False

    def finished_splits(self) -> set[int]:
        """Indices (into :attr:`split_names`) of the splits that will return no more rows.

        A bounded read reached their end; they no longer hold the watermark back.
        """
        return set()

    def close(self) -> None:
        """Release resources; called once, also after a failure."""


class LookupSource(ABC):
    """Looks rows of a table up by key, for a processing-time lookup join (Flink's LookupTableSource).

    Call order: ``open()`` → ``lookup(...)`` per input batch → ``close()``. It keeps no state and
    takes no part in checkpoints: a lookup reads the table as it is at that moment.

    Args (of the factory ``ConnectorSpec.create_lookup``):
        ctx: the table and the engine configuration.
        key_columns: the table's columns the join looks up by (its equality conditions).
    """

    @abstractmethod
    def open(self) -> None:
        """Connect (raises ConfigError for bad options or credentials)."""

    @abstractmethod
    def lookup(self, keys: list[tuple]) -> list[tuple]:
        """The table's rows whose key columns equal one of ``keys`` (no NULL in a key), in one query.

        Returns:
            Rows as tuples of the table's physical columns, in schema order.

        Raises:
            ExecutionError: the query failed after the connector's retries.
        """

    def close(self) -> None:
        """Release the connection; also called after a failure."""


class Sink(ABC):
    """Writes a table's rows (see module docstring for the call order).

    Attributes:
        accepts_updates: False for an append-only sink (only +I rows); planning fails when an
            updating result is written to it.
        requires_primary_key: the sink needs ``PRIMARY KEY`` (upsert sinks).
        upserts: the sink writes updates by the PRIMARY KEY and ignores -U rows.
        transactional: rows become visible only at ``commit`` (two-phase commit).
        guarantee_reason: one line for EXPLAIN on why the sink has the guarantee it has.

    These describe one sink instance; the planner reads the same capabilities from the
    connector's :class:`ConnectorSpec`, without creating a sink.
    """

    accepts_updates: bool = False
    requires_primary_key: bool = False
    upserts: bool = False
    transactional: bool = False
    guarantee_reason: str = ""
    #: ``write``, ``pre_commit`` and ``commit`` may run on a sink thread of its own, in the order
    #: the job thread made them (:mod:`streamsql.runtime.sink_stage`); ``open``, ``finish`` and
    #: ``close`` then come from the job thread, never while the sink thread makes a call. The
    #: checkpoint's commit point may run on yet another thread between ``pre_commit(n)`` and
    #: ``commit(n)``: a transactional sink must produce nothing into the transaction meanwhile.
    pipelined: bool = False

    def open(self) -> None:
        """Prepare to write."""

    @abstractmethod
    def write(self, batch: Batch) -> None:
        """Write rows (columns = the sink table's physical columns, in order)."""

    def prepare(self, batch: Batch) -> object:
        """The part of ``write(batch)`` that a pipelined sink's job thread does before handing on.

        Called on the job thread, in order, possibly while the sink thread writes an earlier
        batch, so it must not touch what ``write_prepared`` changes (e.g. only encode the rows).
        ``write(batch)`` must be ``write_prepared(prepare(batch))``. Default: nothing, the batch.
        """
        return batch

    def write_prepared(self, prepared: object) -> None:
        """Write what :meth:`prepare` returned (on the sink thread of a pipelined sink)."""
        self.write(prepared)  # type: ignore[arg-type]

    def raise_failure(self) -> None:
        """Raise a failure of work the sink does off the job thread (default: none).

        The job thread calls it on every round of its loop, so a job fails also while no row
        reaches the sink.
        """

    def on_watermark(self, timestamp: int) -> None:
        """The sink's input watermark advanced to ``timestamp`` (ms; the end of input: 2**63 - 1).

        Called on the job thread, in order with ``write`` and the barriers (the filesystem sink's
        partition-time commit compares it, as Flink's ``PartitionCommitter``). Default: nothing.
        """

    def pre_commit(self, checkpoint_id: int) -> None:
        """Flush at barrier ``checkpoint_id``: every row written so far must be durable."""

    def commit(self, checkpoint_id: int) -> None:
        """Make rows up to ``checkpoint_id`` visible (transactional sinks)."""

    def snapshot(self, checkpoint_id: int) -> Any:
        """The sink's state as of barrier ``checkpoint_id`` (JSON-able; None: the default, none).

        Called on the job thread right after ``pre_commit(checkpoint_id)``; recorded in the
        checkpoint. A pipelined sink (:attr:`pipelined`) must keep none.
        """
        return None

    def restore(self, state: Any) -> None:
        """Resume from ``state``, after ``open()`` and before the first ``write``. Default: nothing.

        ``state``: what ``snapshot`` gave for the checkpoint the job restores, or None on a fresh
        start (also when that checkpoint recorded none).
        """

    def finish(self) -> None:
        """End of input: flush what is buffered (before the final checkpoint)."""

    def abort(self) -> None:
        """From another thread, when the job is cancelled: make a blocked call return soon.

        A ``write`` or ``pre_commit`` waiting on the outside world (a throttled or stuck broker)
        should then raise instead of waiting on; ``close`` still follows. Default: nothing.
        """

    def close(self) -> None:
        """Release resources; called once, also after a failure."""


@dataclass(frozen=True)
class SinkGuarantee:
    """What a sink promises, as a table's options and the engine configuration make it.

    Attributes:
        transactional: rows become visible only at ``commit`` (two-phase commit).
        reason: one line for EXPLAIN on why the sink has the guarantee it has ("" = the
            planner's default wording).
        flushed: the rows before a barrier are durable once its checkpoint completes; False
            (a Kafka sink's ``'sink.delivery-guarantee' = 'none'``): no guarantee at all.
    """

    transactional: bool = False
    reason: str = ""
    flushed: bool = True


def _no_warnings(options: dict[str, str]) -> list[tuple[str, str]]:
    return []


def _knows_all(key: str) -> bool:
    return True


def _no_check(table: TableDef, config: dict[str, str]) -> None:
    """A connector without option checks beyond its declared options."""


def _never(table: TableDef) -> bool:
    return False


def _no_columns(table: TableDef) -> list[str]:
    return []


def _not_transactional(table: TableDef, config: dict[str, str]) -> SinkGuarantee:
    return SinkGuarantee()


@dataclass
class ConnectorSpec:
    """A connector as the planner sees it: its options and capabilities, and its factories.

    The planner validates and plans a table through its spec alone; only the runtime calls the
    factories. Capabilities are functions of the table (its options, e.g. ``'format'``) where
    they depend on it.

    Attributes:
        name: the ``'connector'`` value (``'kafka'``, ``'print'``, ...).
        options: the options it understands (format options are checked by the format).
        create_source: factory ``(ctx) -> Source``, or None if it cannot be read.
        create_sink: factory ``(ctx) -> Sink``, or None if it cannot be written.
        option_prefixes: key prefixes passed through unchecked (e.g. ``'properties.'``).
        description: one line for HELP.
        uses_format: the table's rows are encoded by a format (``'format'`` / ``'value.format'``).
        check_source: ``(table, config)``: raises ConfigError for options that cannot be read
            (the checks ``create_source`` makes, without creating anything).
        check_sink: ``(table, config)``: the same for writing.
        source_changelog: ``(table) -> bool``: the source emits -U/+U/-D rows (upsert-kafka, a
            changelog format such as debezium-json).
        sink_accepts_updates: ``(table) -> bool``: the sink can take an updating result (else
            planning fails for one).
        sink_requires_primary_key: the sink needs ``PRIMARY KEY`` (upsert sinks).
        sink_upserts: ``(table) -> bool``: the sink writes an updating result by the table's
            PRIMARY KEY and ignores -U rows (Flink's ``ChangelogMode.upsert()``: upsert-kafka,
            jdbc with a key). The planner then lets a producer whose unique key is that primary
            key skip building -U rows (:mod:`streamsql.plan.update_kinds`).
        sink_always_upserts: ``(table) -> bool``: the sink declares an upsert changelog whatever
            its input (Flink's upsert-kafka and jdbc sinks); the others (print, blackhole) take
            their input's mode, so an insert-only query makes them append-only sinks, which an
            ``INSERT ... ON CONFLICT`` may not write (:mod:`streamsql.plan.conflicts`).
        sink_retracts: ``(table) -> bool``: the sink declares a changelog with -U rows whatever its
            input (Flink's ``ChangelogMode.all()`` of a changelog format such as debezium-json): a
            "retract" sink, which Flink never puts a sink upsert materializer before, nor checks
            the PRIMARY KEY of, and which an ``INSERT ... ON CONFLICT`` may not write
            (:mod:`streamsql.plan.conflicts`).
        sink_guarantee: ``(table, config) -> SinkGuarantee``.
        sink_not_null: ``(table) -> [column, ...]``: written columns the sink takes as NOT NULL
            whatever their declared type (a metadata key of a NOT NULL type, as Flink's Kafka
            ``topic``), checked by the sink's not-null enforcer.
        create_lookup: factory ``(ctx, key_columns) -> LookupSource`` for a table that a
            processing-time temporal join can look up (``FOR SYSTEM_TIME AS OF l.proctime``), or
            None.
        sink_partitioning: the sink can write a ``PARTITIONED BY`` table (Flink's
            ``SupportsPartitioning``: filesystem, print, blackhole); writing one into another
            sink fails at planning with Flink's message. Any source reads one.
        source_limit: the source can stop after its first n rows (Flink's
            ``SupportsLimitPushDown``): a LIMIT right over the scan is pushed into it
            (``ConnectorContext.limit``), so a job over an unbounded source ends after its rows.
        source_reads_columns: the source can leave the columns and fields the job does not read
            undecoded (``ConnectorContext.read_columns``, :mod:`streamsql.plan.scan_reads`); the
            runtime works out what a job reads only for the scans of such a source (that takes
            DuckDB checks of each Calc above the scan), the others get None (all).
        option_warnings: ``(options) -> [(key, text), ...]``: options the connector takes but
            ignores, each with the warning CREATE TABLE answers at that key (Kafka's
            ``'properties.*'`` keys no client knows, which Flink's Java client ignores too).
        knows_prefixed: ``(key) -> bool`` for a key under :attr:`option_prefixes`: whether the
            connector knows it (Kafka: a client property; datagen: ``'fields.<f>.<known key>'``).
            A key it does not know is shown masked as a secret's (:func:`streamsql.core.secrets.hidden`:
            a misspelt key may hold one). Default: every such key is known (passed through).
        metadata_types: readable metadata key → the type the source produces it as, nullability
            included (Flink's ``listReadableMetadata``), where checked against Flink: what
            ``TYPEOF`` of a metadata column read straight from the table gives when its declared
            type differs only in nullability (Flink drops that cast). Empty: not known (TYPEOF
            refuses such a column).
    """

    name: str
    options: list[OptionSpec]
    create_source: Callable[[ConnectorContext], Source] | None = None
    create_sink: Callable[[ConnectorContext], Sink] | None = None
    option_prefixes: tuple[str, ...] = ()
    description: str = ""
    uses_format: bool = False
    check_source: Callable[[TableDef, dict[str, str]], None] = _no_check
    check_sink: Callable[[TableDef, dict[str, str]], None] = _no_check
    source_changelog: Callable[[TableDef], bool] = _never
    sink_accepts_updates: Callable[[TableDef], bool] = _never
    sink_requires_primary_key: bool = False
    sink_upserts: Callable[[TableDef], bool] = _never
    sink_always_upserts: Callable[[TableDef], bool] = _never
    sink_retracts: Callable[[TableDef], bool] = _never
    sink_guarantee: Callable[[TableDef, dict[str, str]], SinkGuarantee] = _not_transactional
    sink_not_null: Callable[[TableDef], list[str]] = _no_columns
    create_lookup: Callable[[ConnectorContext, list[str]], LookupSource] | None = None
    sink_partitioning: bool = False
    source_limit: bool = False
    source_reads_columns: bool = False
    option_warnings: Callable[[dict[str, str]], list[tuple[str, str]]] = _no_warnings
    knows_prefixed: Callable[[str], bool] = _knows_all
    metadata_types: dict[str, SqlType] = field(default_factory=dict)


def empty_table(schema: Schema) -> pa.Table:
    """An Arrow table with ``schema``'s columns and no rows."""
    return schema.to_arrow().empty_table()


def read_tree(read: frozenset[tuple[str, ...]]) -> dict:
    """``read`` (:attr:`ConnectorContext.read_columns`) as a tree, names lower-cased.

    ``{column: None}`` reads all of the column, ``{column: {field: ...}}`` the fields of a ROW
    column named, each in the same way: ``{("id",), ("p", "x")}`` is ``{"id": None, "p": {"x": None}}``.
    Two names that differ only in case are read together (all of what either reads).
    """
    tree: dict = {}
    for path in sorted(read, key=len):
        node = tree
        for i, name in enumerate(path):
            key = name.lower()
            if i == len(path) - 1:
                node[key] = None
            elif key not in node:
                node = node.setdefault(key, {})
            elif node[key] is None:
                break  # all of it is read already
            else:
                node = node[key]
    return tree
