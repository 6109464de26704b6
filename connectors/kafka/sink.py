"""The ``kafka`` sink: +I rows to a Kafka topic, delivery guarantee by option.

``'sink.delivery-guarantee'``:

- ``at-least-once`` (default, as Flink): every row is acknowledged by the brokers at each
  checkpoint's pre-commit; rows written after the last completed checkpoint are written again
  after a failure.
- ``exactly-once``: rows are written in the task's Kafka transaction (see :mod:`.transactions`)
  and become visible to ``read_committed`` consumers when the checkpoint commits; after a
  failure the open transaction is aborted.
- ``none``: no flush at checkpoints (rows may be lost or duplicated after a failure).

Each record's timestamp is the time of sending (CreateTime), or the instant of a
``METADATA FROM 'timestamp'`` column (NULL: the time of sending), as Flink's Kafka sink, which
never uses the rows' rowtime; a ``METADATA FROM 'headers'`` column (``MAP<STRING, BYTES>``)
gives the headers (:mod:`.metadata`). With several topics in ``'topic'`` (``'a;b'``), or
``'topic-pattern'``, each row goes to the topic its ``METADATA FROM 'topic'`` column names, as Flink's
multi-topic sink (:mod:`.routing`).

The sink is append-only (+I rows), but for a changelog value format (``debezium-json``): as
Flink's ``KafkaDynamicSink``, which takes its changelog mode from the format, an updating result
is then written as the format's change events (+I/+U as ``"op": "c"``, -U/-D as ``"op": "d"``),
-U rows included. Use ``upsert-kafka`` for an updating result in any other format. Keys come from
``'key.format'`` + ``'key.fields'``; without them messages have no key. ``'sink.partitioner'``
= ``fixed`` writes every row of a task to partition ``task_index % partitions`` (of the row's topic);
the ``default`` places a keyed row by its key and a batch of rows without a key in one partition,
the partitions in turn (sticky, as Flink's: :meth:`.session.ProducerSession.produce_many`).
"""

from __future__ import annotations

from typing import Callable

import pyarrow as pa
from streamsql.connectors.formats import encodes_updates
from streamsql.connectors.kafka.formats import FormatSetup, StatesFormats, format_setup, validate_table
from streamsql.connectors.kafka.metadata import RecordMetadata, check_sink_metadata
from streamsql.connectors.kafka.options import librdkafka_props, resolve_guarantee, table_prefix
from streamsql.connectors.kafka.routing import TopicRouting
from streamsql.connectors.kafka.session import ProducerSession

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext, Sink, SinkGuarantee
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.core.faults import fault_point


def guarantee_of(sink_class: type[Sink], table: TableDef, config: dict[str, str]) -> SinkGuarantee:
    """What a Kafka sink class gives ``table``: its ``default_guarantee`` and ``reason``."""
    guarantee = resolve_guarantee(table, config, sink_class.default_guarantee)
    return SinkGuarantee(guarantee == "exactly-once", sink_class.reason(guarantee),
                         flushed=guarantee != "none")


class ProducingSink(Sink, StatesFormats):
    """What the ``kafka`` and ``upsert-kafka`` sinks share: encoders and a producer session.

    A subclass sets the class attributes below and states its :meth:`formats`; it decides what
    to produce, the :class:`ProducerSession` how it reaches Kafka. :meth:`check` answers the
    planner from them without creating a sink.

    Args:
        ctx: the connector context.

    Raises:
        ConfigError: for bad options.
    """

    #: The delivery guarantee when ``'sink.delivery-guarantee'`` is unset.
    default_guarantee: str
    #: ``(guarantee) -> str``: why the sink has that guarantee (EXPLAIN).
    reason: Callable[[str], str]
    #: Who writes, in error messages (``'kafka sink'``).
    label: str
    #: Flink's class name of the sink, in Flink's metadata error (``check_sink_metadata``).
    flink_class = "org.apache.flink.streaming.connectors.kafka.table.KafkaDynamicSink"
    #: Encodes and produces on a sink thread (streamsql.runtime.sink_stage): a write never
    #: produces between a pre-commit and its commit, when the task's committer may be committing.
    pipelined = True

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        self.fs = self.formats(t)
        self.venc, self.kenc = self.fs.make_encoders(t)
        self.metadata = RecordMetadata(t)
        self.session = ProducerSession(ctx, self.default_guarantee, f"Table '{t.name}' ({self.label})")
        self.transactional = self.session.transactional
        self.guarantee_reason = self.reason(self.session.guarantee)
        self._holding = False  # between a pre-commit and its commit (exactly-once)

    @classmethod
    def changelog_format(cls, table: TableDef) -> bool:
        """True when the value format writes -U/+U/-D rows (``debezium-json``).

        The sink then takes an updating result, as Flink's Kafka sink takes its format's changelog mode.
        """
        return encodes_updates(format_setup(table).value_format)

    @classmethod
    def check(cls, table: TableDef, config: dict[str, str]) -> None:
        """The constructor's option checks, without a sink (nothing connects).

        Raises:
            ConfigError: for a bad topic, format or metadata column.
        """
        check_sink_metadata(table, cls.flink_class)
        TopicRouting(table, RecordMetadata(table).topic)
        librdkafka_props(table.options, table_prefix(table))  # Java-only keys: rejected or warned about
        cls.formats(table).make_encoders(table)

    def physical(self, table: pa.Table) -> pa.Table:
        """``table`` with the table's written column names (a query may name its columns otherwise).

        The written columns: the physical ones and the metadata ones that are not VIRTUAL, in
        declaration order (the planner's order).
        """
        names = [c.name for c in self.table.columns if c.computed is None and not c.virtual]
        if table.column_names != names and table.num_columns == len(names):
            return table.rename_columns(names)
        return table

    def abort(self) -> None:
        """From the cancelling thread: a produce or flush waiting on the brokers raises soon."""
        self.session.abort()

    def close(self) -> None:
        """Release the producer (exactly-once: an uncommitted transaction is aborted)."""
        self.session.close()


class Routed(list):
    """Encoded rows of several topics: ``[(topic, produce arguments), ...]`` (:meth:`KafkaSink._encode`).

    ``error``: raised once these rows are produced (a later row of the batch named no topic, or
    one the sink may not write), else None.
    """

    error: ExecutionError | None = None


class KafkaSink(ProducingSink):
    """Writes +I rows to a Kafka topic (see module docstring for the guarantees).

    Args:
        ctx: the connector context.

    Raises:
        ConfigError: for bad options.
    """

    accepts_updates = False
    default_guarantee = "at-least-once"
    label = "kafka sink"

    def __init__(self, ctx: ConnectorContext):
        super().__init__(ctx)
        self.fixed = ctx.table.options.get("sink.partitioner", "default") == "fixed"
        self.task_index = ctx.task_index
        self.partition = -1
        self.changelog = self.changelog_format(ctx.table)
        self._held: list[tuple] = []  # encoded rows held from a pre-commit to its commit

    @staticmethod
    def formats(table: TableDef) -> FormatSetup:
        """The value format (``'format'`` / ``'value.format'``), a key format with ``'key.fields'``."""
        fs = format_setup(table)
        validate_table("kafka", table, fs)
        return fs

    @staticmethod
    def reason(guarantee: str) -> str:
        """Why the sink has ``guarantee`` (EXPLAIN)."""
        if guarantee == "exactly-once":
            return (
                "writes in a Kafka transaction committed with each checkpoint "
                "('sink.delivery-guarantee' = 'exactly-once')"
            )
        if guarantee == "none":
            return (
                "'sink.delivery-guarantee' = 'none': not flushed at checkpoints; rows may be lost or "
                "duplicated"
            )
        return (
            "'sink.delivery-guarantee' = 'at-least-once': flushed at each checkpoint; rows written after the "
            "last checkpoint are written again after a failure"
        )

    def open(self) -> None:
        """Connect (and join the task's transaction for exactly-once).

        Raises:
            ConfigError: when the topic does not exist.
            ExecutionError: when the brokers cannot be reached.
        """
        n = self.session.open()
        if self.fixed and n:
            self.partition = self.task_index % n

    def write(self, batch: Batch) -> None:
        """Produce the rows (held in memory between a pre-commit and its commit, exactly-once).

        Raises:
            ExecutionError: for an updating row (but in a changelog format) or a Kafka delivery
                failure.
        """
        self.write_prepared(self.prepare(batch))

    def prepare(self, batch: Batch) -> tuple | None:
        """The rows encoded: the arguments of the produce (None: no rows), on the job thread.

        Raises:
            ExecutionError: for an updating row (but in a changelog format).
        """
        if not batch.insert_only and not self.changelog:
            msg = (
                f"Table '{self.table.name}' (kafka sink) is append-only but received "
                "update/delete rows; use 'upsert-kafka' with a PRIMARY KEY"
            )
            raise ExecutionError(msg)
        return self._encode(batch) if batch.num_rows else None

    def write_prepared(self, records: tuple | None) -> None:
        """Produce encoded rows, or hold them while the transaction commits.

        Raises:
            ExecutionError: for a Kafka delivery failure.
        """
        if records is None:
            return
        if self._holding:  # encoded now, while the transaction commits; produced after it
            self._held.append(records)
            fault_point("while_holding")
            return
        self._produce(records)

    def _encode(self, batch: Batch) -> tuple | Routed:
        """The arguments of :meth:`ProducerSession.produce_many` for the rows of ``batch``.

        With rows naming their topics (:mod:`.routing`): a :class:`Routed` list of
        ``(topic, arguments)``.

        Raises:
            ExecutionError: a row names no topic, or one the sink may not write (Flink's message).
        """
        table = self.physical(batch.table)
        groups, error = self.session.routing.groups(table)
        if self.session.topic is not None:
            return self._arguments(table, batch.kinds)
        routed = Routed()
        routed.error = error
        for topic, idx in groups:
            if idx is None:
                routed.append((topic, self._arguments(table, batch.kinds)))
                continue
            kinds = None if batch.kinds is None else batch.kinds[idx]
            routed.append((topic, self._arguments(table.take(pa.array(idx)), kinds)))
        return routed

    def _arguments(self, table: pa.Table, kinds) -> tuple:
        """``(keys, values, partition, timestamps, headers)`` of :meth:`ProducerSession.produce_many`.

        ``values`` is one Arrow array where the producer takes a whole batch in one call
        (``ProducerSession.batch_produce``: exactly-once, and no keys, timestamps or headers).
        """
        value_table = table.select(self.fs.value_schema.names)
        keys = self.kenc.encode(self.fs.key_table(table)) if self.kenc is not None else None
        timestamps, headers = self.metadata.of(table)
        values = None
        if keys is None and timestamps is None and headers is None and self.session.batch_produce:
            values = self.venc.encode_array(value_table, kinds)
        if values is None:
            values = self.venc.encode(value_table, kinds)
        return keys, values, self.partition, timestamps, headers

    def _produce(self, records: tuple | Routed) -> None:
        if not isinstance(records, Routed):
            self.session.produce_many(*records)
            return
        for topic, (keys, values, _, timestamps, headers) in records:
            partition = self.task_index % self.session.partitions(topic) if self.fixed else -1
            self.session.produce_many(keys, values, partition, timestamps, headers, topic)
        if records.error is not None:  # a row named no topic, or another: the rows before it are written
            self.session.flush()
            raise records.error

    def _release(self) -> None:
        held, self._held = self._held, []
        for records in held:
            self._produce(records)

    def pre_commit(self, checkpoint_id: int) -> None:
        """Flush: every row written so far is acknowledged (exactly-once: not yet visible).

        Raises:
            ExecutionError: for failed deliveries.
        """
        if self._held:  # an earlier checkpoint failed before committing: its rows join this one
            self._release()
        self.session.pre_commit()
        self._holding = self.transactional

    def commit(self, checkpoint_id: int) -> None:
        """The task's transaction committed: rows held since the pre-commit go into the next one."""
        if self._holding:
            self._holding = False
            self._release()

    def finish(self) -> None:
        """End of input: flush (the final checkpoint commits a transactional sink)."""
        if not self.transactional and self.session.is_open:
            self.session.flush()
