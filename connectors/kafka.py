"""The ``kafka`` connector: an append-only Kafka topic as a source and a sink (Flink's options).

Source — exactly-once input: every partition of ``'topic'`` (or the topics matching
``'topic-pattern'``) is assigned manually (no group rebalancing; offsets are never committed to
the group — the checkpoint holds them), read with ``isolation.level = read_committed``. The
position is the next offset per partition; a restore seeks there, so no record is replayed or
skipped. ``poll`` fetches up to ``max_rows`` messages in one ``consume()`` call and decodes them in
one call of the value format (and the key format for ``'key.fields'``). Metadata columns:
``topic``, ``partition``, ``offset``, ``timestamp`` (TIMESTAMP_LTZ(3)), ``timestamp-type``.
Startup: ``'scan.startup.mode'`` = ``group-offsets`` (default; falls back to
``'properties.auto.offset.reset'``, default earliest) | ``earliest-offset`` | ``latest-offset`` |
``timestamp`` | ``specific-offsets`` (unlisted partitions: group offsets, then the reset
policy). Bounded reads: ``'scan.bounded.mode'`` = ``latest-offset`` (each partition's last
stable offset at open) | ``timestamp`` | ``specific-offsets`` | ``group-offsets``. Partitions
added to the topic after open are not picked up.

Each partition is a split (:attr:`Source.split_names`) and every row is tagged with its
partition's split (``Batch.splits``), so a table's ``WATERMARK`` is generated per partition and
the minimum over partitions is emitted, as Flink's Kafka source does; a partition without rows
for ``'scan.watermark.idle-timeout'`` stops holding it back until it has rows again, and a
partition whose bounded read is complete stops holding it back for good.

Sink — delivery guarantee by ``'sink.delivery-guarantee'``:

- ``at-least-once`` (default, as Flink): every row is acknowledged by the brokers at each
  checkpoint's pre-commit; rows written after the last completed checkpoint are written again
  after a failure.
- ``exactly-once``: rows are written in the job's Kafka transaction (see
  :mod:`.kafka_transactions`) and become visible to ``read_committed`` consumers when the
  checkpoint commits; after a failure the open transaction is aborted.
- ``none``: no flush at checkpoints (rows may be lost or duplicated after a failure).

The sink is append-only (+I rows); use ``upsert-kafka`` for updating results. Keys come from
``'key.format'`` + ``'key.fields'``; without them messages have no key.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from confluent_kafka import KafkaError, KafkaException
from streamsql.connectors.formats import is_changelog_format
from streamsql.connectors.kafka_common import (
    FORMATS,
    METADATA_TIMEOUT_S,
    OPT_BOOTSTRAP,
    OPT_BOUNDED,
    OPT_BOUNDED_SPECIFIC,
    OPT_BOUNDED_TS,
    OPT_FIELDS_INCLUDE,
    OPT_GROUP,
    OPT_GUARANTEE,
    OPT_KEY_FORMAT,
    OPT_PROGRESS,
    OPT_TOPIC,
    OPT_TXN_PREFIX,
    OPT_VALUE_FORMAT,
    FormatSetup,
    KafkaReader,
    ProducerHandle,
    ProducerSinkMixin,
    ReaderSourceMixin,
    assemble,
    check_metadata,
    format_setup,
    librdkafka_props,
    metadata_arrays,
    resolve_guarantee,
    source_schema,
    table_prefix,
    topics_of,
    validate_table,
)
from streamsql.connectors.registry import register

from streamsql.core.catalog import TableDef
from streamsql.core.connector import (
    OPT_WATERMARK_IDLE,
    ConnectorContext,
    ConnectorSpec,
    OptionSpec,
    Sink,
    SinkGuarantee,
    Source,
)
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError, ExecutionError

OPTIONS = [
    OPT_TOPIC,
    OptionSpec("topic-pattern", description="regular expression of the topics to read (source only)"),
    OPT_BOOTSTRAP,
    OPT_GROUP,
    OptionSpec("format", choices=FORMATS, description="value format: json, csv, raw, debezium-json"),
    OPT_VALUE_FORMAT,
    OPT_KEY_FORMAT,
    OptionSpec("key.fields", description="columns of the message key, separated by ';'"),
    OPT_FIELDS_INCLUDE,
    OptionSpec(
        "scan.startup.mode",
        default="group-offsets",
        choices=("earliest-offset", "latest-offset", "group-offsets", "timestamp", "specific-offsets"),
        description="where reading starts",
    ),
    OptionSpec("scan.startup.timestamp-millis", description="start timestamp (ms) for 'timestamp' startup"),
    OptionSpec(
        "scan.startup.specific-offsets",
        description="start offsets 'partition:0,offset:42;...' for 'specific-offsets' startup",
    ),
    OPT_BOUNDED,
    OPT_BOUNDED_TS,
    OPT_BOUNDED_SPECIFIC,
    OPT_WATERMARK_IDLE,
    OptionSpec(
        "sink.partitioner",
        default="default",
        choices=("default", "fixed"),
        description="default: by key hash (murmur2, as Java); fixed: one partition per task",
    ),
    OptionSpec(
        "sink.delivery-guarantee",
        default="at-least-once",
        choices=OPT_GUARANTEE.choices,
        description=OPT_GUARANTEE.description,
    ),
    OPT_TXN_PREFIX,
    OPT_PROGRESS,
]


# --------------------------------------------------------------------------------------------
# decoding helpers shared with upsert-kafka


def decode_keys(kdec, keys: list[bytes | None], where) -> tuple[pa.Table, np.ndarray]:
    """Decode message keys; None keys give NULL key columns.

    Returns:
        ``(key_table, kept)``: ``kept`` are the indices into ``keys`` of the rows of
        ``key_table`` (a key that fails to decode under ``ignore-parse-errors`` drops its row).
    """
    present = [j for j, k in enumerate(keys) if k is not None]
    if len(present) == len(keys):
        kb = kdec.decode(keys, where)
        return kb.table, np.asarray(kdec.source_index, dtype=np.int64)
    sub = [keys[j] for j in present]
    kb = kdec.decode(sub, lambda q: where(present[q]))
    ok = (
        np.asarray(present, dtype=np.int64)[np.asarray(kdec.source_index, dtype=np.int64)]
        if present
        else np.zeros(0, np.int64)
    )
    none_rows = np.asarray([j for j, k in enumerate(keys) if k is None], dtype=np.int64)
    kept = np.sort(np.concatenate([ok, none_rows]))
    pos = {int(r): q for q, r in enumerate(ok)}
    take = pa.array([pos.get(int(j)) for j in kept], pa.int64())
    return kb.table.take(take), kept


class KafkaSource(ReaderSourceMixin, Source):
    """Reads a Kafka topic (see module docstring).

    Args:
        ctx: the connector context.
    """

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        self.fs: FormatSetup = format_setup(t)
        validate_table(KAFKA, t, self.fs)
        check_metadata(t)
        mode = t.options.get("scan.bounded.mode", "unbounded")
        self.reader = KafkaReader(t, ctx.job_name, "group-offsets", mode)
        self.bounded = mode != "unbounded"
        self.schema = source_schema(t)
        self.vdec, self.kdec = self.fs.make_decoders(t)
        self.changelog = bool(getattr(self.vdec, "changelog", False))
        self.metrics = ctx.metrics
        self._skipped = 0

    def open(self, position: dict | None) -> None:
        """Assign every partition at ``position`` (or per ``'scan.startup.mode'``)."""
        self.reader.open(position)

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Up to ``max_rows`` rows decoded from one ``consume()``; None when nothing arrived.

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
            ExecutionError: for Kafka errors.
        """
        msgs = self.reader.consume(max_rows, timeout_s)
        if not msgs:
            return None
        batch = self._decode(msgs)
        self.reader.advance(msgs)
        skipped = self.vdec.skipped + (self.kdec.skipped if self.kdec else 0)
        if skipped != self._skipped:
            self.metrics["bad_records"] = self.metrics.get("bad_records", 0) + skipped - self._skipped
            self._skipped = skipped
        return batch if batch.num_rows else None

    def _decode(self, msgs) -> Batch:
        def where(i: int) -> str:
            m = msgs[i]
            return f"{m.topic()}[{m.partition()}]@{m.offset()}"

        vb = self.vdec.decode([m.value() for m in msgs], where)
        idx = np.asarray(self.vdec.source_index, dtype=np.int64)
        vt, kinds = vb.table, vb.kinds
        kt = None
        if self.kdec is not None and len(idx):
            kt, kept = decode_keys(self.kdec, [msgs[i].key() for i in idx], lambda j: where(int(idx[j])))
            if len(kept) != len(idx):
                vt = vt.take(pa.array(kept))
                kinds = None if kinds is None else kinds[kept]
                idx = idx[kept]
        elif self.kdec is not None:
            kt = self.fs.key_schema.to_arrow().empty_table()
        meta = metadata_arrays(self.table, msgs, idx) if self.table.metadata_columns else []
        splits = self.reader.split_ids(msgs, idx)  # idx: the message of each surviving row
        return Batch(assemble(self.table, self.schema, self.fs, vt, kt, meta), kinds, splits)


# --------------------------------------------------------------------------------------------
# the sink


def sink_topic(table) -> str:
    """The single topic a sink writes to.

    Raises:
        ConfigError: without exactly one topic in ``'topic'``.
    """
    topics = topics_of(table)
    if len(topics) != 1 or table.options.get("topic-pattern"):
        msg = f"{table_prefix(table)}a Kafka sink needs exactly one topic in 'topic'"
        raise ConfigError(msg)
    return topics[0]


def producer_props(table, guarantee: str) -> dict:
    """Librdkafka properties of a non-transactional sink producer."""
    props = {"acks": "all" if guarantee != "none" else "1"}
    props.update(librdkafka_props(table.options))
    return props


def check_topic(handle: ProducerHandle, topic: str, table) -> int:
    """The partition count of ``topic``.

    Raises:
        ConfigError: when the topic does not exist (and the broker did not auto-create it).
        ExecutionError: when the brokers cannot be reached.
    """
    try:
        md = handle.producer.list_topics(topic=topic, timeout=METADATA_TIMEOUT_S)
    except KafkaException as e:
        from streamsql.connectors.kafka_common import execution_error

        raise execution_error(handle.what, e, handle.bootstrap) from None
    tm = md.topics.get(topic)
    if tm is None or (tm.error is not None and tm.error.code() == KafkaError.UNKNOWN_TOPIC_OR_PART):
        msg = f"{table_prefix(table)}topic '{topic}' does not exist on {handle.bootstrap}; create it first"
        raise ConfigError(msg)
    if tm.error is not None and tm.error.code() != KafkaError.LEADER_NOT_AVAILABLE:
        msg = f"{handle.what}: topic '{topic}': {tm.error.str()}"
        raise ExecutionError(msg)
    return max(1, len(tm.partitions))


class KafkaSink(ProducerSinkMixin, Sink):
    """Writes +I rows to a Kafka topic (see module docstring for the guarantees).

    Args:
        ctx: the connector context.
    """

    accepts_updates = False

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        self.fs = format_setup(t)
        validate_table(KAFKA, t, self.fs)
        self.topic = sink_topic(t)
        self.guarantee = resolve_guarantee(t, ctx.config, "at-least-once")
        self.transactional = self.guarantee == "exactly-once"
        self.guarantee_reason = _reason(self.guarantee)
        self.venc, self.kenc = self.fs.make_encoders(t)
        self.fixed = t.options.get("sink.partitioner", "default") == "fixed"
        self.task_index = ctx.task_index
        self._init_producer(ctx)
        self.partition = -1
        self._holding = False
        self._held: list[pa.Table] = []
        self._released = False

    def open(self) -> None:
        """Connect (and join the job's transaction for exactly-once).

        Raises:
            ConfigError: when the topic does not exist.
            ExecutionError: when the brokers cannot be reached.
        """
        self._acquire_handle(
            lambda: producer_props(self.table, self.guarantee), f"Table '{self.table.name}' (kafka sink)"
        )
        n = check_topic(self.handle, self.topic, self.table)
        if self.fixed:
            self.partition = self.task_index % n

    def write(self, batch: Batch) -> None:
        """Produce the rows (held in memory between a pre-commit and its commit, exactly-once).

        Raises:
            ExecutionError: for an updating row or a Kafka delivery failure.
        """
        if not batch.insert_only:
            msg = (
                f"Table '{self.table.name}' (kafka sink) is append-only but received "
                "update/delete rows; use 'upsert-kafka' with a PRIMARY KEY"
            )
            raise ExecutionError(msg)
        if batch.num_rows == 0:
            return
        if self._holding:
            self._held.append(batch.table)
            return
        self._send(batch.table)

    def _send(self, table: pa.Table) -> None:
        names = table.column_names
        phys = self.table.physical_schema.names
        if names != phys and len(names) == len(phys):
            table = table.rename_columns(phys)
        values = self.venc.encode(table.select(self.fs.value_schema.names))
        keys = self.kenc.encode(table.select(self.fs.key_names)) if self.kenc is not None else None
        self.handle.produce_many(self.topic, keys, values, self.partition)

    def _release(self) -> None:
        held, self._held = self._held, []
        for t in held:
            self._send(t)

    def pre_commit(self, checkpoint_id: int) -> None:
        """Flush: every row written so far is acknowledged (exactly-once: not yet visible).

        Raises:
            ExecutionError: for failed deliveries.
        """
        if self._held:  # an earlier checkpoint failed before committing: its rows join this one
            self._release()
        self._flush_producer()

    def commit(self, checkpoint_id: int) -> None:
        """The job's transaction committed: rows held since the pre-commit go into the next one."""
        if self.transactional and self._holding:
            self._holding = False
            self._release()

    def finish(self) -> None:
        """End of input: flush (the final checkpoint commits a transactional sink)."""
        if not self.transactional and self.handle is not None:
            self.handle.flush()


def _reason(guarantee: str) -> str:
    if guarantee == "exactly-once":
        return (
            "writes in a Kafka transaction committed with each checkpoint "
            "('sink.delivery-guarantee' = 'exactly-once')"
        )
    if guarantee == "none":
        return (
            "'sink.delivery-guarantee' = 'none': not flushed at checkpoints; rows may be lost or duplicated"
        )
    return (
        "'sink.delivery-guarantee' = 'at-least-once': flushed at each checkpoint; rows written after the "
        "last checkpoint are written again after a failure"
    )


def _check_source(table: TableDef, config: dict[str, str]) -> None:
    """The option checks of :class:`KafkaSource`, without a source (nothing connects)."""
    fs = format_setup(table)
    validate_table(KAFKA, table, fs)
    check_metadata(table)
    KafkaReader(table, "", "group-offsets", table.options.get("scan.bounded.mode", "unbounded"))
    fs.make_decoders(table)


def _check_sink(table: TableDef, config: dict[str, str]) -> None:
    """The option checks of :class:`KafkaSink`, without a sink (nothing connects)."""
    fs = format_setup(table)
    validate_table(KAFKA, table, fs)
    sink_topic(table)
    fs.make_encoders(table)


def _sink_guarantee(table: TableDef, config: dict[str, str]) -> SinkGuarantee:
    guarantee = resolve_guarantee(table, config, "at-least-once")
    return SinkGuarantee(guarantee == "exactly-once", _reason(guarantee))


def _value_format(table: TableDef) -> str:
    """The format of message values (``'value.format'`` or ``'format'``)."""
    return table.options.get("value.format") or table.options.get("format") or ""


KAFKA = register(
    ConnectorSpec(
        name="kafka",
        options=OPTIONS,
        create_source=KafkaSource,
        create_sink=KafkaSink,
        option_prefixes=("properties.",),
        description="Apache Kafka topic (append-only); the sink is at-least-once or exactly-once",
        uses_format=True,
        check_source=_check_source,
        check_sink=_check_sink,
        source_changelog=lambda table: is_changelog_format(_value_format(table)),
        sink_guarantee=_sink_guarantee,
    )
)
