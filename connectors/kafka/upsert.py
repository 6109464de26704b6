"""The ``upsert-kafka`` connector: a (compacted) Kafka topic as a changelog keyed by the PRIMARY KEY.

Sink — the PRIMARY KEY columns are the message key (``'key.format'``, default json: an object of
the key columns); +I/+U rows are written as the value (``'value.format'``), -D and -U rows as a
tombstone (a real null value), each with the time of sending or a ``METADATA FROM 'timestamp'``
column's instant as its timestamp (as the ``kafka`` sink, :mod:`.sink`), as Flink's upsert-kafka
sink: a -U that no +U of its key follows
is a row that left the result (a WHERE after an aggregation, an update that changed the key).
The planner has a -U built only when a consumer needs it (:mod:`streamsql.plan.update_kinds`),
so a GROUP BY keyed like the table sends none.

By default every change is written, in order per key, as Flink 2.3's upsert-kafka sink does
without buffering (``'sink.buffer-flush.max-rows'`` and ``'sink.buffer-flush.interval'`` both
default to 0): a versioned table written here and read back (a temporal join) keeps every
version. Exactly-once, to one topic and without written metadata columns, each flush of
changes reaches librdkafka as one keys array and one values array (a tombstone a NULL) in one
``rd_kafka_produce_batch`` call (:mod:`.native`), without a Python object per change. With both
options > 0 the sink reduces as Flink's ``ReducingUpsertWriter``: rows are
buffered and compacted per PRIMARY KEY (only each key's last change of the buffer is written,
a -U/-D as a tombstone; a key's change to one topic replaces its change to another when rows
name their topics, as Flink's buffer is keyed by the key alone) and the buffer is written when
it holds ``max-rows`` distinct keys, when ``interval`` has passed since the last flush, at each
checkpoint's pre-commit and at the end of input. Flink checks ``max-rows`` after every row and
the interval on a timer; here both are checked after each written batch, so a flush may come
a batch later (a key may show one intermediate change fewer; the last change per key and the
topic's final table are the same). Only one of the two options > 0 is refused at planning in
Flink's words (``'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be set to
be greater than zero together to enable sink buffer flushing.``). While reducing, when the
previous flush compacted little (at least half of its rows were distinct keys), the buffer is
compacted and encoded early, every 8192 rows, into a per-key map of encoded changes that the
flush then produces: the encoding is no longer all inside the checkpoint barrier.

Delivery guarantee (``'sink.delivery-guarantee'``): by default exactly-once when the job runs
in EXACTLY_ONCE mode (the rows are written in the task's Kafka transaction, see
:mod:`.transactions`, and become visible when the checkpoint commits), else at-least-once
(flushed at each checkpoint; after a failure the last epoch's changes are written again —
harmless for an upsert topic, since a key's last value wins). ``'none'``: no flush at
checkpoints.

Source — reads ``'topic'`` (or every topic matching ``'topic-pattern'``) from the earliest offset,
up to the end ``'scan.bounded.mode'`` names when set (any of the ``kafka`` source's bounded modes,
:mod:`.offsets`, as Flink's ``UpsertKafkaDynamicTableFactory``), as a changelog, as Flink's
upsert-kafka source followed by its ChangelogNormalize: the first value of a key → +I; a new value → -U (the
previous value) and +U; a repeated identical value → nothing; a tombstone → -D carrying the
previous value (nothing for an unknown key). The previous value per key is kept in memory (raw
message bytes); when the source opens at a position (a restore) or at a later startup offset, it
first rebuilds that map from :meth:`KafkaReader.history` (each partition from its beginning up
to the start offset). Compaction may have removed a key's value that a later record supersedes;
for such a key the rebuilt map misses the old value and the next change comes out as +I instead
of -U/+U. Reads with ``read_committed``; positions as the ``kafka`` source (next offset per
partition). Partitions discovered while the job runs (``'scan.topic-partition-discovery.interval'``,
:mod:`.reader`) are read from their earliest offset into the same per-key map, so a key whose
records move to a new partition updates its earlier value (-U/+U); a restore rebuilds the map from
every partition its position names, and a partition it does not name starts at its earliest offset
(nothing to rebuild). Kafka orders a key's records only within a partition: after partitions are
added, a key's old and new records may be read in either order, in Flink as here.
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
from streamsql.connectors.kafka.fetched import Fetched
from streamsql.connectors.kafka.formats import FormatSetup, format_setup, validate_table
from streamsql.connectors.kafka.metadata import check_metadata
from streamsql.connectors.kafka.options import int_option, table_prefix
from streamsql.connectors.kafka.sink import ProducingSink
from streamsql.connectors.kafka.source import ReaderSource

from streamsql.core.catalog import TableDef
from streamsql.core.config import duration_ms
from streamsql.core.connector import ConnectorContext, count
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import ConfigError
from streamsql.core.faults import fault_point

_ROW = "__streamsql_row__"


def _primary_key(table: TableDef) -> list[str]:
    if not table.primary_key:
        msg = (
            f"{table_prefix(table)}'upsert-kafka' needs PRIMARY KEY (...) NOT ENFORCED; its columns "
            "are the message key"
        )
        raise ConfigError(msg)
    return list(table.primary_key)


# --------------------------------------------------------------------------------------------
# sink


def _buffer_flush(table: TableDef) -> tuple[int, float]:
    """``('sink.buffer-flush.max-rows', 'sink.buffer-flush.interval' in seconds)``, both 0 when unset.

    As Flink's ``UpsertKafkaDynamicTableFactory`` (defaults 0 and 0 s; both > 0 turn buffering on).

    Raises:
        ConfigError: for a bad value, or only one of the two > 0 (Flink's message).
    """
    max_rows = int_option(table, "sink.buffer-flush.max-rows", "0")
    interval = table.options.get("sink.buffer-flush.interval", "0")
    interval_s = duration_ms(interval, "sink.buffer-flush.interval") / 1000
    if (max_rows > 0) != (interval_s > 0):
        msg = (
            f"{table_prefix(table)}'sink.buffer-flush.max-rows' and 'sink.buffer-flush.interval' must be "
            "set to be greater than zero together to enable sink buffer flushing."
        )
        key = "sink.buffer-flush.max-rows" if max_rows > 0 else "sink.buffer-flush.interval"
        raise ConfigError(msg, table=table.name, option=key)
    return max_rows, interval_s


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


def with_tombstones(live_values: pa.Array, live: np.ndarray) -> pa.Array:
    """``live_values`` (string or binary, no NULL) placed at the rows where ``live``, NULL elsewhere.

    ``len(live_values) == live.sum()``; the result has ``len(live)`` rows and shares
    ``live_values``' data buffer (no payload is copied).
    """
    wide = pa.types.is_large_string(live_values.type) or pa.types.is_large_binary(live_values.type)
    width = np.int64 if wide else np.int32
    m = len(live_values)
    start = live_values.offset * np.dtype(width).itemsize
    offsets = np.frombuffer(live_values.buffers()[1], width, m + 1, start)
    rank = np.zeros(len(live) + 1, np.int64)  # live rows before each row
    np.cumsum(live, out=rank[1:])
    validity = pa.array(live, pa.bool_()).buffers()[1]
    return pa.Array.from_buffers(live_values.type, len(live),
                                 [validity, pa.py_buffer(offsets[rank]), live_values.buffers()[2]],
                                 null_count=len(live) - m)


class UpsertKafkaSink(ProducingSink):
    """Writes a changelog as upserts and tombstones keyed by the PRIMARY KEY (see module docstring).

    Args:
        ctx: the connector context.
    """

    accepts_updates = True
    requires_primary_key = True
    upserts = True  # -U rows are dropped (write): the planner may have them not built at all
    #: Exactly-once in an EXACTLY_ONCE job, else at-least-once (see :func:`resolve_guarantee`).
    default_guarantee = "auto"
    label = "upsert-kafka sink"

    def __init__(self, ctx: ConnectorContext):
        super().__init__(ctx)
        self.max_rows, self.interval_s = _buffer_flush(ctx.table)
        #: Both buffer-flush options > 0: compact per key as Flink's ReducingUpsertWriter, else
        #: every change is written (the buffer only holds rows while a checkpoint commits).
        self.reducing = self.max_rows > 0
        self._buf: list[tuple[pa.Table, np.ndarray]] = []
        self._rows = 0
        self._last_flush = time.monotonic()
        self.rows_compacted = 0  # rows dropped by compaction (for tests and metrics)
        # reducing: encoded changes of the epoch not produced yet: key bytes → value bytes (None:
        # tombstone), or (value, timestamp, headers, topic) with written metadata columns
        self._staged: dict = {}
        self.stage_rows = 8192  # buffered rows that may be staged early (see _maybe_stage)
        self._epoch_in = 0  # rows compacted since the last flush
        self._distinct_ratio = 1.0  # written / received rows of the last flush
        # staged values are (value, timestamp, headers, topic) tuples: written metadata, or rows
        # naming their topics
        self._tuples = bool(self.metadata) or self.session.topic is None

    @staticmethod
    def formats(table: TableDef) -> FormatSetup:
        """The PRIMARY KEY is the message key, in ``'key.format'``."""
        pk = list(table.primary_key)  # checked at open: the planner reports a missing key itself
        fs = format_setup(table, key_fields=pk)
        validate_table("upsert-kafka", table, fs)
        return fs

    @staticmethod
    def reason(guarantee: str) -> str:
        """Why the sink has ``guarantee`` (EXPLAIN)."""
        if guarantee == "exactly-once":
            return "writes upserts in a Kafka transaction committed with each checkpoint"
        if guarantee == "none":
            return ("'sink.delivery-guarantee' = 'none': not flushed at checkpoints; changes may be lost or "
                    "written again after a failure")
        return (
            f"'sink.delivery-guarantee' = '{guarantee}': changes after the last checkpoint are written "
            "again after a failure (the last value per key still wins)"
        )

    @classmethod
    def check(cls, table: TableDef, config: dict[str, str]) -> None:
        """The constructor's option checks, without a sink (nothing connects).

        Raises:
            ConfigError: for a bad topic, format or buffer-flush option.
        """
        super().check(table, config)
        _buffer_flush(table)

    def open(self) -> None:
        """Connect (and join the task's transaction for exactly-once).

        Raises:
            ConfigError: without a PRIMARY KEY, or when the topic does not exist.
            ExecutionError: when the brokers cannot be reached.
        """
        _primary_key(self.table)
        self.session.open()

    def write(self, batch: Batch) -> None:
        """Write the changes (-U as a delete), or buffer them (see module docstring).

        Buffered while a checkpoint commits (exactly-once); reducing, until the buffer holds
        ``max_rows`` distinct keys or ``interval_s`` has passed since the last flush.

        Raises:
            ExecutionError: for a Kafka delivery failure.
        """
        if batch.num_rows == 0:
            return
        table = self.physical(batch.table)
        kinds = batch.kind_array()
        before = kinds == RowKind.UPDATE_BEFORE
        if before.any():  # a tombstone, unless a later change of the key wins the compaction
            kinds = np.where(before, np.int8(RowKind.DELETE), kinds)
        self._buf.append((table, kinds))
        self._rows += table.num_rows
        if self._holding:  # the epoch after a pre-commit, while its checkpoint commits
            self._maybe_stage()
            fault_point("while_holding")
            return
        if not self.reducing or time.monotonic() - self._last_flush >= self.interval_s:
            self._flush_buffer()
        elif self._rows + len(self._staged) >= self.max_rows:  # maybe max_rows distinct keys
            self._stage()
            if len(self._staged) >= self.max_rows:
                self._flush_buffer()
        else:
            self._maybe_stage()

    def _take_buffer(self) -> tuple[pa.Table, np.ndarray]:
        """The buffered rows and their kinds (-U made -D); compacted (last change per key) when reducing.

        Empties the buffer.
        """
        tables = [t for t, _ in self._buf]
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        kinds = np.concatenate([k for _, k in self._buf]) if len(self._buf) > 1 else self._buf[0][1]
        self._buf, self._rows = [], 0
        self._epoch_in += table.num_rows
        if self.reducing:
            idx = last_per_key(table, self.fs.key_names, lambda: self.kenc.encode(self.fs.key_table(table)))
            if len(idx) != table.num_rows:
                self.rows_compacted += table.num_rows - len(idx)
                table = table.take(pa.array(idx))
                kinds = kinds[idx]
        return table, kinds

    def _encode_buffer(self) -> tuple[list, list]:
        """Encode the buffer (:meth:`_take_buffer`) into lists; empties the buffer.

        Returns:
            ``(keys, values)``, a tombstone's value being None; with written metadata columns
            or rows naming their topics each value is ``(value, timestamp, headers, topic)``
            (:class:`.metadata.RecordMetadata`, :mod:`.routing`).
        """
        return self._encode_lists(*self._take_buffer())

    def _encode_lists(self, table: pa.Table, kinds: np.ndarray) -> tuple[list, list]:
        """:meth:`_encode_buffer` of the rows taken from the buffer."""
        keys = self.kenc.encode(self.fs.key_table(table))
        deletes = kinds == RowKind.DELETE
        vtable = table.select(self.fs.value_schema.names)
        if deletes.any():
            live = ~deletes
            encoded = iter(self.venc.encode(vtable.filter(pa.array(live))) if live.any() else [])
            values = [None if d else next(encoded) for d in deletes.tolist()]
        else:
            values = self.venc.encode(vtable)
        if self._tuples:
            n = len(values)
            timestamps, headers = self.metadata.of(table)
            topics = self.session.routing.row_topics(table) if self.session.topic is None else [None] * n
            values = list(zip(values, timestamps or [0] * n, headers or [None] * n, topics))
        return keys, values

    def _encode_arrays(self, table: pa.Table, kinds: np.ndarray) -> tuple[pa.Array, pa.Array] | None:
        """``(keys, values)`` as Arrow arrays for the batch produce, a tombstone a NULL value.

        None where an encoder builds no array (:meth:`.Encoder.encode_array`): the caller encodes
        lists instead. The same bytes as :meth:`_encode_buffer`'s.
        """
        keys = self.kenc.encode_array(self.fs.key_table(table))
        if keys is None or keys.null_count:
            return None
        deletes = kinds == RowKind.DELETE
        vtable = table.select(self.fs.value_schema.names)
        if not deletes.any():
            values = self.venc.encode_array(vtable)
            return None if values is None or values.null_count else (keys, values)
        live = ~deletes
        values = pa.array([], pa.binary())
        if live.any():
            values = self.venc.encode_array(vtable.filter(pa.array(live)))
        if values is None or values.null_count:
            return None
        return keys, with_tombstones(values, live)

    def _stage(self) -> None:
        """Compact and encode the buffer into the staged changes of the epoch (not yet produced).

        Reducing only. Staged changes stay compacted per key (a later change replaces an earlier
        one), so a flush writes one message per key; the encoding happens as rows arrive instead
        of all at once inside the checkpoint barrier.
        """
        keys, values = self._encode_buffer()
        staged = self._staged
        before = len(staged)
        staged.update(zip(keys, values))
        self.rows_compacted += len(keys) - (len(staged) - before)

    def _maybe_stage(self) -> None:
        """Reducing: stage early when the buffer is big and the last flush compacted little.

        With mostly distinct keys, compacting first saves no encoding, and the barrier would
        carry all of it.
        """
        if self.reducing and self._rows >= self.stage_rows and self._distinct_ratio >= 0.5:
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
        elif not self._tuples and self.session.batch_produce:  # one librdkafka call, no list
            table, kinds = self._take_buffer()
            arrays = self._encode_arrays(table, kinds)
            if arrays is not None:
                self._flushed(len(arrays[0]))
                self.session.produce_many(*arrays)
                return
            keys, values = self._encode_lists(table, kinds)
        else:
            keys, values = self._encode_buffer()
        self._flushed(len(keys))
        if not self._tuples:
            self.session.produce_many(keys, values)
            return
        if self.session.topic is not None:
            values, timestamps, headers, _ = (list(x) for x in zip(*values)) if values else ([], [], [], [])
            self.session.produce_many(keys, values, -1, timestamps, headers)
            return
        by_topic: dict[str, list] = {}
        for key, (value, ts, hdr, topic) in zip(keys, values):
            by_topic.setdefault(topic, []).append((key, value, ts, hdr))
        for topic, records in by_topic.items():
            ks, vs, ts, hs = (list(x) for x in zip(*records))
            self.session.produce_many(ks, vs, -1, ts, hs, topic)

    def _flushed(self, written: int) -> None:
        """``written`` messages leave for the rows received since the last flush (:meth:`_maybe_stage`)."""
        if self._epoch_in:
            self._distinct_ratio = written / self._epoch_in
        self._epoch_in = 0

    def pre_commit(self, checkpoint_id: int) -> None:
        """Write the buffer (compacted when reducing), then flush (exactly-once: not yet visible).

        Raises:
            ExecutionError: for failed deliveries.
        """
        self._flush_buffer()
        self.session.pre_commit()
        self._holding = self.transactional

    def commit(self, checkpoint_id: int) -> None:
        """The transaction committed: rows buffered meanwhile go into the next one (but reducing)."""
        self._holding = False
        if not self.reducing and self._buf:
            self._flush_buffer()

    def finish(self) -> None:
        """End of input: a non-transactional sink writes and flushes its buffer now."""
        if not self.transactional and self.session.is_open:
            self._flush_buffer()
            self.session.flush()


# --------------------------------------------------------------------------------------------
# source


class UpsertKafkaSource(ReaderSource):
    """Reads an upsert topic as a changelog (+I, -U/+U, -D; see module docstring).

    Args:
        ctx: the connector context.

    Raises:
        ConfigError: without a PRIMARY KEY, or for bad options.
    """

    changelog = True
    startup_default = "earliest-offset"

    def __init__(self, ctx: ConnectorContext):
        super().__init__(ctx)
        self.state: dict[bytes, bytes] = {}  # key bytes → last value bytes

    @staticmethod
    def formats(table: TableDef) -> FormatSetup:
        """The PRIMARY KEY is the message key, in ``'key.format'``."""
        fs = format_setup(table, key_fields=_primary_key(table))
        validate_table("upsert-kafka", table, fs)
        check_metadata(table)
        return fs

    def open(self, position: dict | None) -> None:
        """Assign the partitions and rebuild the per-key values before the start offsets."""
        self.reader.open(position)
        state = self.state
        for m in self.reader.history():
            k, v = m.key(), m.value()
            if v is None:
                state.pop(k, None)
            else:
                state[k] = v

    def needs_messages(self) -> bool:
        """The changelog derivation reads every message's key."""
        return True

    def rows(self, fetched: Fetched) -> Batch | None:
        """The changelog rows of the messages (an update gives two); None when there are none.

        Messages without a key count as bad records. On the decode thread, which alone touches
        the per-key values after :meth:`open`.
        """
        state = self.state
        vals: list[bytes] = []
        kinds: list[int] = []
        src: list[int] = []
        null_keys = empty = 0
        no_row = self.decoder.vdec.empty_is_no_row
        msgs = fetched.msgs
        for i, (m, v) in enumerate(zip(msgs, fetched.values)):
            k = m.key()
            if k is None:
                null_keys += 1
                continue
            if no_row and v is not None and not v:  # Flink: no row, the key's value stays
                empty += 1
                continue
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
            count(self.metrics, "bad_records", null_keys)
        if empty:
            count(self.metrics, "empty_records", empty)
        if not vals:
            return None
        src_arr, kinds_arr = np.asarray(src, dtype=np.int64), np.asarray(kinds, dtype=np.int8)
        return self.decoder.decode(vals, fetched.located, msgs, src_arr, kinds_arr)
