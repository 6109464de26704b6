"""The ``upsert-kafka`` connector: a (compacted) Kafka topic as a changelog keyed by the PRIMARY KEY.

Sink — the PRIMARY KEY columns are the message key (``'key.format'``, default json: an object of
the key columns); +I/+U rows are written as the value (``'value.format'``), -D rows as a
tombstone (a real null value), -U rows are dropped. Rows are buffered and compacted per key
before producing: within one checkpoint epoch only each key's last change is written (a big win
under aggregations). The buffer is written at each checkpoint's pre-commit, and earlier when it
holds ``'sink.buffer-flush.max-rows'`` rows or, for a non-transactional sink, when
``'sink.buffer-flush.interval'`` has passed. When the previous flush compacted little (at least
half of its rows were distinct keys), the buffer is compacted and encoded early, every 8192
rows, into a per-key map of encoded changes that the flush then produces: the epoch still writes
one message per key, but the encoding is no longer all inside the checkpoint barrier.

Delivery guarantee (``'sink.delivery-guarantee'``): by default exactly-once when the job runs
in EXACTLY_ONCE mode (the rows are written in the job's Kafka transaction, see
:mod:`.kafka_transactions`, and become visible when the checkpoint commits), else
at-least-once (flushed at each checkpoint; after a failure the last epoch's changes are written
again — harmless for an upsert topic, since a key's last value wins). ``'none'``: no flush at
checkpoints.

Source — reads the topic from the earliest offset as a changelog, as Flink's upsert-kafka
source followed by its ChangelogNormalize: the first value of a key → +I; a new value → -U (the
previous value) and +U; a repeated identical value → nothing; a tombstone → -D carrying the
previous value (nothing for an unknown key). The previous value per key is kept in memory (raw
message bytes); when the source opens at a position (a restore) or at a later startup offset, it
first rebuilds that map by reading each partition from its beginning up to the start offset.
Compaction may have removed a key's value that a later record supersedes; for such a key the
rebuilt map misses the old value and the next change comes out as +I instead of -U/+U. Reads
with ``read_committed``; positions as the ``kafka`` source (next offset per partition).
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
from confluent_kafka import Consumer, KafkaError, KafkaException, TopicPartition
from streamsql.connectors.kafka import check_topic, decode_keys, producer_props, sink_topic
from streamsql.connectors.kafka_common import (
    FORMATS,
    OPT_BOOTSTRAP,
    OPT_FIELDS_INCLUDE,
    OPT_GROUP,
    OPT_GUARANTEE,
    OPT_PROGRESS,
    OPT_TOPIC,
    OPT_TXN_PREFIX,
    KafkaReader,
    ProducerSinkMixin,
    ReaderSourceMixin,
    assemble,
    check_metadata,
    execution_error,
    format_setup,
    metadata_arrays,
    resolve_guarantee,
    source_schema,
    table_prefix,
    validate_table,
)
from streamsql.connectors.registry import register

from streamsql.core.catalog import TableDef
from streamsql.core.config import duration_ms
from streamsql.core.connector import (
    OPT_WATERMARK_IDLE,
    ConnectorContext,
    ConnectorSpec,
    OptionSpec,
    Sink,
    SinkGuarantee,
    Source,
)
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError, ExecutionError

OPTIONS = [
    OPT_TOPIC,
    OPT_BOOTSTRAP,
    OPT_GROUP,
    OptionSpec(
        "key.format",
        default="json",
        choices=FORMATS,
        description="format of the message key (the PRIMARY KEY)",
    ),
    OptionSpec("value.format", choices=FORMATS, description="format of the message value"),
    OptionSpec("format", choices=FORMATS, description="alias of 'value.format'"),
    OPT_FIELDS_INCLUDE,
    OPT_WATERMARK_IDLE,
    OptionSpec(
        "scan.bounded.mode",
        default="unbounded",
        choices=("unbounded", "latest-offset"),
        description="unbounded | latest-offset (stop at each partition's last stable offset at open)",
    ),
    OptionSpec(
        "sink.buffer-flush.max-rows",
        default="100000",
        description="buffered rows that trigger an early compact-and-write (0: only at checkpoints)",
    ),
    OptionSpec(
        "sink.buffer-flush.interval",
        default="1 s",
        description="non-transactional sink: longest time rows wait in the buffer (0: only at checkpoints)",
    ),
    OptionSpec(
        "sink.delivery-guarantee",
        choices=OPT_GUARANTEE.choices,
        description="default: exactly-once in an EXACTLY_ONCE job, else at-least-once",
    ),
    OPT_TXN_PREFIX,
    OPT_PROGRESS,
]

_ROW = "__streamsql_row__"


def _primary_key(table: TableDef) -> list[str]:
    if not table.primary_key:
        msg = (
            f"{table_prefix(table)}'upsert-kafka' needs PRIMARY KEY (...) NOT ENFORCED; its columns "
            "are the message key"
        )
        raise ConfigError(msg)
    return list(table.primary_key)


def _int_opt(table: TableDef, key: str, default: str) -> int:
    v = table.options.get(key, default)
    try:
        return int(v)
    except ValueError:
        msg = f"{table_prefix(table)}option '{key}' = '{v}' is not an integer"
        raise ConfigError(msg) from None


# --------------------------------------------------------------------------------------------
# sink


def last_per_key(table: pa.Table, key_names: list[str], key_bytes=None) -> np.ndarray:
    """Sorted indices of the last row of each distinct key of ``table``.

    Uses Arrow's hash aggregation; falls back to a dict over encoded keys (``key_bytes()``) for
    key types Arrow cannot group.
    """
    n = table.num_rows
    try:
        t = table.select(key_names).append_column(_ROW, pa.array(np.arange(n, dtype=np.int64)))
        g = t.group_by(key_names, use_threads=False).aggregate([(_ROW, "max")])
        return np.sort(g.column(_ROW + "_max").to_numpy())
    except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
        last = {k: i for i, k in enumerate(key_bytes())}
        return np.sort(np.fromiter(last.values(), dtype=np.int64, count=len(last)))


class UpsertKafkaSink(ProducerSinkMixin, Sink):
    """Writes a changelog as upserts and tombstones keyed by the PRIMARY KEY (see module docstring).

    Args:
        ctx: the connector context.
    """

    accepts_updates = True
    requires_primary_key = True

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        pk = list(t.primary_key)  # checked at open: the planner reports a missing key itself
        self.fs = format_setup(t, key_fields=pk, default_key_format="json")
        validate_table(UPSERT_KAFKA, t, self.fs)
        self.topic = sink_topic(t)
        self.guarantee = resolve_guarantee(t, ctx.config, "auto")
        self.transactional = self.guarantee == "exactly-once"
        self.guarantee_reason = _reason(self.guarantee)
        self.venc, self.kenc = self.fs.make_encoders(t)
        self.max_rows = _int_opt(t, "sink.buffer-flush.max-rows", "100000")
        self.interval_s = (
            duration_ms(t.options.get("sink.buffer-flush.interval", "1 s"), "sink.buffer-flush.interval")
            / 1000
        )
        self._init_producer(ctx)
        self._buf: list[tuple[pa.Table, np.ndarray]] = []
        self._rows = 0
        self._holding = False
        self._last_flush = time.monotonic()
        self._released = False
        self.rows_compacted = 0  # rows dropped by compaction (for tests and metrics)
        # encoded changes of the epoch not produced yet: key bytes → value bytes (None: tombstone)
        self._staged: dict = {}
        self.stage_rows = 8192  # buffered rows that may be staged early (see _maybe_stage)
        self._epoch_in = 0  # rows compacted since the last flush
        self._distinct_ratio = 1.0  # written / received rows of the last flush

    def open(self) -> None:
        """Connect (and join the job's transaction for exactly-once).

        Raises:
            ConfigError: without a PRIMARY KEY, or when the topic does not exist.
            ExecutionError: when the brokers cannot be reached.
        """
        _primary_key(self.table)
        self._acquire_handle(
            lambda: producer_props(self.table, self.guarantee),
            f"Table '{self.table.name}' (upsert-kafka sink)",
        )
        check_topic(self.handle, self.topic, self.table)

    def write(self, batch: Batch) -> None:
        """Buffer the changes (-U dropped); compact and write when the buffer is due.

        Raises:
            ExecutionError: for a Kafka delivery failure.
        """
        if batch.num_rows == 0:
            return
        table = batch.table
        phys = self.table.physical_schema.names
        if table.column_names != phys and table.num_columns == len(phys):
            table = table.rename_columns(phys)
        kinds = batch.kind_array()
        if batch.kinds is not None:
            keep = kinds != RowKind.UPDATE_BEFORE
            if not keep.all():
                table = table.filter(pa.array(keep))
                kinds = kinds[keep]
        if table.num_rows == 0:
            return
        self._buf.append((table, kinds))
        self._rows += table.num_rows
        if self._holding:
            self._maybe_stage()
            return
        if self.max_rows > 0 and self._rows + len(self._staged) >= self.max_rows:
            self._flush_buffer()
        elif (
            not self.transactional
            and self.interval_s > 0
            and time.monotonic() - self._last_flush >= self.interval_s
        ):
            self._flush_buffer()
        else:
            self._maybe_stage()

    def _compact_encode(self) -> tuple[list, list]:
        """Compact the buffer (last change per key) and encode it; empties the buffer.

        Returns:
            ``(keys, values)``, a tombstone's value being None.
        """
        tables = [t for t, _ in self._buf]
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        kinds = np.concatenate([k for _, k in self._buf]) if len(self._buf) > 1 else self._buf[0][1]
        self._buf, self._rows = [], 0
        self._epoch_in += table.num_rows
        key_names = self.fs.key_names
        idx = last_per_key(table, key_names, lambda: self.kenc.encode(table.select(key_names)))
        if len(idx) != table.num_rows:
            self.rows_compacted += table.num_rows - len(idx)
            table = table.take(pa.array(idx))
            kinds = kinds[idx]
        keys = self.kenc.encode(table.select(key_names))
        deletes = kinds == RowKind.DELETE
        vtable = table.select(self.fs.value_schema.names)
        if deletes.any():
            live = ~deletes
            encoded = iter(self.venc.encode(vtable.filter(pa.array(live))) if live.any() else [])
            values = [None if d else next(encoded) for d in deletes.tolist()]
        else:
            values = self.venc.encode(vtable)
        return keys, values

    def _stage(self) -> None:
        """Compact and encode the buffer into the staged changes of the epoch (not yet produced).

        Staged changes stay compacted per key (a later change replaces an earlier one), so the
        epoch still writes one message per key; the encoding happens as rows arrive instead of
        all at once inside the checkpoint barrier.
        """
        keys, values = self._compact_encode()
        staged = self._staged
        before = len(staged)
        staged.update(zip(keys, values))
        self.rows_compacted += len(keys) - (len(staged) - before)

    def _maybe_stage(self) -> None:
        """Stage early when the buffer is big and the last epoch compacted little.

        With mostly distinct keys, compacting first saves no encoding, and the barrier would
        carry all of it.
        """
        if self._rows >= self.stage_rows and self._distinct_ratio >= 0.5:
            self._stage()

    def _flush_buffer(self) -> None:
        self._last_flush = time.monotonic()
        if not self._buf and not self._staged:
            return
        if self._staged:
            if self._buf:
                self._stage()
            staged, self._staged = self._staged, {}
            keys, values = list(staged), list(staged.values())
        else:
            keys, values = self._compact_encode()
        if self._epoch_in:
            self._distinct_ratio = len(keys) / self._epoch_in
        self._epoch_in = 0
        self.handle.produce_many(self.topic, keys, values)

    def pre_commit(self, checkpoint_id: int) -> None:
        """Compact and write the buffer, then flush (exactly-once: not yet visible).

        Raises:
            ExecutionError: for failed deliveries.
        """
        self._flush_buffer()
        self._flush_producer()

    def commit(self, checkpoint_id: int) -> None:
        """The transaction committed: buffered rows may be written into the next one again."""
        self._holding = False

    def finish(self) -> None:
        """End of input: a non-transactional sink writes and flushes its buffer now."""
        if not self.transactional and self.handle is not None:
            self._flush_buffer()
            self.handle.flush()


# --------------------------------------------------------------------------------------------
# source


class UpsertKafkaSource(ReaderSourceMixin, Source):
    """Reads an upsert topic as a changelog (+I, -U/+U, -D; see module docstring).

    Args:
        ctx: the connector context.
    """

    changelog = True

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        self.fs = format_setup(t, key_fields=_primary_key(t), default_key_format="json")
        validate_table(UPSERT_KAFKA, t, self.fs)
        check_metadata(t)
        mode = t.options.get("scan.bounded.mode", "unbounded")
        self.reader = KafkaReader(t, ctx.job_name, "earliest-offset", mode)
        self.bounded = mode != "unbounded"
        self.schema = source_schema(t)
        self.vdec, self.kdec = self.fs.make_decoders(t)
        self.metrics = ctx.metrics
        self.state: dict[bytes, bytes] = {}  # key bytes → last value bytes
        self._skipped = 0

    def open(self, position: dict | None) -> None:
        """Assign the partitions and rebuild the per-key values before the start offsets."""
        self.reader.open(position)
        self._prime()

    def _prime(self) -> None:
        r = self.reader
        todo = {}
        for tp, nxt in r.next.items():
            low, _ = r._watermarks(tp)
            if nxt > low:
                todo[tp] = (low, nxt)
        if not todo:
            return
        cfg = r._consumer_config()
        c = Consumer(cfg)
        state = self.state
        try:
            c.assign([TopicPartition(t, p, low) for (t, p), (low, _) in todo.items()])
            left = {tp: end for tp, (_, end) in todo.items()}
            deadline = time.monotonic() + 300
            while left:
                if time.monotonic() > deadline:
                    msg = f"{r.what}: rebuilding the upsert state timed out"
                    raise ExecutionError(msg)
                for m in c.consume(num_messages=10000, timeout=0.5):
                    tp = (m.topic(), m.partition())
                    if tp not in left:
                        continue
                    err = m.error()
                    if err is not None:
                        if err.code() == KafkaError._PARTITION_EOF and m.offset() >= left[tp]:
                            del left[tp]
                        elif err.code() != KafkaError._PARTITION_EOF:
                            msg = f"{r.what}: {err.str()}"
                            raise ExecutionError(msg)
                        continue
                    if m.offset() >= left[tp]:
                        del left[tp]
                        continue
                    k, v = m.key(), m.value()
                    if v is None:
                        state.pop(k, None)
                    else:
                        state[k] = v
                    if m.offset() + 1 >= left[tp]:
                        del left[tp]
        except KafkaException as e:
            raise execution_error(r.what, e, r.bootstrap) from None
        finally:
            c.close()

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """Up to about ``max_rows`` changelog rows (an update gives two); None when none arrived.

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
            ExecutionError: for Kafka errors.
        """
        msgs = self.reader.consume(max_rows, timeout_s)
        if not msgs:
            return None
        state = self.state
        vals: list[bytes] = []
        kinds: list[int] = []
        src: list[int] = []
        null_keys = 0
        for i, m in enumerate(msgs):
            k = m.key()
            if k is None:
                null_keys += 1
                continue
            v = m.value()
            old = state.get(k)
            if v is None:
                if old is not None:
                    del state[k]
                    vals.append(old)
                    kinds.append(RowKind.DELETE)
                    src.append(i)
                continue
            if old is None:
                vals.append(v)
                kinds.append(RowKind.INSERT)
                src.append(i)
            elif old != v:
                vals.append(old)
                vals.append(v)
                kinds.append(RowKind.UPDATE_BEFORE)
                kinds.append(RowKind.UPDATE_AFTER)
                src.append(i)
                src.append(i)
            state[k] = v
        if null_keys:
            self.metrics["bad_records"] = self.metrics.get("bad_records", 0) + null_keys
        batch = self._decode(msgs, vals, np.asarray(kinds, dtype=np.int8), np.asarray(src, dtype=np.int64))
        self.reader.advance(msgs)
        skipped = self.vdec.skipped + self.kdec.skipped
        if skipped != self._skipped:
            self.metrics["bad_records"] = self.metrics.get("bad_records", 0) + skipped - self._skipped
            self._skipped = skipped
        return batch if batch is not None and batch.num_rows else None

    def _decode(self, msgs, vals, kinds, src) -> Batch | None:
        if not vals:
            return None

        def where(j: int) -> str:
            m = msgs[int(src[j])]
            return f"{m.topic()}[{m.partition()}]@{m.offset()}"

        vb = self.vdec.decode(vals, where)
        idx = np.asarray(self.vdec.source_index, dtype=np.int64)  # into vals
        vt = vb.table
        kt, kept = decode_keys(
            self.kdec, [msgs[int(src[j])].key() for j in idx], lambda q: where(int(idx[q]))
        )
        if len(kept) != len(idx):
            vt = vt.take(pa.array(kept))
            idx = idx[kept]
        msg_idx = src[idx]
        meta = metadata_arrays(self.table, msgs, msg_idx) if self.table.metadata_columns else []
        splits = self.reader.split_ids(msgs, msg_idx)
        return Batch(assemble(self.table, self.schema, self.fs, vt, kt, meta), kinds[idx], splits)


def _reason(guarantee: str) -> str:
    if guarantee == "exactly-once":
        return "writes compacted upserts in a Kafka transaction committed with each checkpoint"
    return (f"'sink.delivery-guarantee' = '{guarantee}': changes after the last checkpoint are written "
            "again after a failure (the last value per key still wins)")


def _check_source(table: TableDef, config: dict[str, str]) -> None:
    """The option checks of :class:`UpsertKafkaSource`, without a source (nothing connects)."""
    fs = format_setup(table, key_fields=_primary_key(table), default_key_format="json")
    validate_table(UPSERT_KAFKA, table, fs)
    check_metadata(table)
    KafkaReader(table, "", "earliest-offset", table.options.get("scan.bounded.mode", "unbounded"))
    fs.make_decoders(table)


def _check_sink(table: TableDef, config: dict[str, str]) -> None:
    """The option checks of :class:`UpsertKafkaSink`, without a sink (nothing connects)."""
    fs = format_setup(table, key_fields=list(table.primary_key), default_key_format="json")
    validate_table(UPSERT_KAFKA, table, fs)
    sink_topic(table)
    fs.make_encoders(table)
    _int_opt(table, "sink.buffer-flush.max-rows", "100000")
    duration_ms(table.options.get("sink.buffer-flush.interval", "1 s"), "sink.buffer-flush.interval")


def _sink_guarantee(table: TableDef, config: dict[str, str]) -> SinkGuarantee:
    guarantee = resolve_guarantee(table, config, "auto")
    return SinkGuarantee(guarantee == "exactly-once", _reason(guarantee))


UPSERT_KAFKA = register(
    ConnectorSpec(
        name="upsert-kafka",
        options=OPTIONS,
        create_source=UpsertKafkaSource,
        create_sink=UpsertKafkaSink,
        option_prefixes=("properties.",),
        description="Kafka topic as an upsert changelog keyed by the PRIMARY KEY (tombstones delete)",
        uses_format=True,
        check_source=_check_source,
        check_sink=_check_sink,
        source_changelog=lambda table: True,
        sink_accepts_updates=lambda table: True,
        sink_requires_primary_key=True,
        sink_guarantee=_sink_guarantee,
    )
)
