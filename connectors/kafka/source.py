"""The ``kafka`` source: an append-only Kafka topic read exactly once (Flink's options).

Every partition of ``'topic'`` (or of the topics matching ``'topic-pattern'``) is assigned
manually and read with ``read_committed`` by a :class:`~.reader.KafkaReader`; offsets are never
committed to the group — the checkpoint holds them. The position is the next offset per
partition; a restore seeks there, so no record is replayed or skipped. ``poll`` is ``fetch``
(up to ``max_rows`` messages in one ``consume()`` call, the position moved past them) then
``decode`` (one call of the value format, and of the key format for ``'key.fields'``); the
pipeline runs the two on threads of their own (:mod:`streamsql.runtime.prefetch`), the decode
reading only what the fetch handed it (:mod:`.fetched`). Metadata columns (:mod:`.metadata`): ``topic``,
``partition``, ``headers`` (MAP<STRING, BYTES>), ``leader-epoch``, ``offset``, ``timestamp``
(TIMESTAMP_LTZ(3)), ``timestamp-type``. Startup and
bounded modes: :mod:`.offsets` (default startup: ``group-offsets``).

Each partition is a split (:attr:`Source.split_names`) and every row is tagged with its
partition's split (``Batch.splits``), so a table's ``WATERMARK`` is generated per partition and
the minimum over partitions is emitted, as Flink's Kafka source does; a partition without rows
for ``'scan.watermark.idle-timeout'`` stops holding it back until it has rows again, and a
partition whose bounded read is complete stops holding it back for good.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Callable

from streamsql.connectors.formats import is_changelog_format
from streamsql.connectors.kafka.decode import RecordDecoder
from streamsql.connectors.kafka.fetched import Fetched
from streamsql.connectors.kafka.formats import FormatSetup, StatesFormats, format_setup, validate_table
from streamsql.connectors.kafka.metadata import check_metadata
from streamsql.connectors.kafka.reader import KafkaReader, gc_paused, message_values

from streamsql.core.catalog import TableDef
from streamsql.core.connector import ConnectorContext, Source
from streamsql.core.elements import Batch


def bounded_mode(table: TableDef) -> str:
    """``'scan.bounded.mode'`` (``unbounded`` when unset)."""
    return table.options.get("scan.bounded.mode", "unbounded")


class ReaderSource(Source, StatesFormats):
    """A Kafka source: a :class:`KafkaReader` and a :class:`RecordDecoder`.

    Position, splits, end and close are the reader's; :meth:`poll` consumes a batch of
    messages, turns them into rows with :meth:`rows` (what a subclass decides), then moves the
    reader's positions past them. A subclass states its :meth:`formats` and
    :attr:`startup_default`; :meth:`check` and :meth:`changelog_of` answer the planner from them
    without creating a source.

    Args:
        ctx: the connector context.

    Raises:
        ConfigError: for bad topic, startup, bounded or format options.
    """

    #: The startup mode when ``'scan.startup.mode'`` is unset.
    startup_default = "group-offsets"
    #: consume() and the decode release the GIL: polled ahead on a fetch thread, and decoded on a
    #: decode thread of its own (streamsql.runtime.prefetch).
    prefetch = True
    decode_apart = True

    def __init__(self, ctx: ConnectorContext):
        t = ctx.table
        self.table = t
        fs = self.formats(t)
        mode = bounded_mode(t)
        share = (ctx.task_index, ctx.num_tasks)
        self.reader = KafkaReader(t, ctx.job_name, self.startup_default, mode, share)
        self.bounded = mode != "unbounded"
        self.fs = fs
        self.read_columns = ctx.read_columns
        self.decoder = RecordDecoder(t, fs, ctx.metrics, ctx.read_columns)
        self.schema = self.decoder.schema
        self.metrics = ctx.metrics
        self._keep_messages = self.needs_messages()

    @classmethod
    def check(cls, table: TableDef, config: dict[str, str]) -> None:
        """The option checks of the constructor, without a source (nothing connects).

        Raises:
            ConfigError: for a bad option.
        """
        fs = cls.formats(table)
        KafkaReader(table, "", cls.startup_default, bounded_mode(table))
        fs.make_decoders(table)

    @classmethod
    def changelog_of(cls, table: TableDef) -> bool:
        """Whether the source emits -U/+U/-D rows for ``table`` (default: :attr:`changelog`)."""
        return cls.changelog

    @abstractmethod
    def rows(self, fetched: Fetched) -> Batch | None:
        """The rows of one ``consume()``'s messages, or None for none (on the decode thread).

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
        """

    def needs_messages(self) -> bool:
        """:meth:`rows` reads the messages, not only their values (default: the decoder's need)."""
        return self.decoder.needs_messages

    def fetch(self, max_rows: int, timeout_s: float) -> Fetched | None:
        """Up to ``max_rows`` messages of one ``consume()``, the positions moved past them.

        Raises:
            ExecutionError: for Kafka errors.
        """
        self.reader.discover_when_due()  # a metadata request: not while the collector is paused
        with gc_paused():  # only what is queued; its messages are freed before the collector resumes
            fetched = self._take(self.reader.consume(max_rows, 0.0))
        if fetched is None and timeout_s > 0:
            fetched = self._take(self.reader.consume(max_rows, timeout_s))
        return fetched

    def _take(self, msgs: list) -> Fetched | None:
        """What the decode needs of ``msgs`` (see :meth:`fetch`); the positions moved past them.

        Called inside :func:`.reader.gc_paused` with the messages ``consume()`` just created: they
        are dropped here (unless the decode reads more than their values), so they are freed by
        their reference counts before the collector is back on. Returned to the caller, 10,000
        new GC-tracked objects made the first allocation after the pause run a young collection
        over all of them, every batch (~4 % of a Q0 profile's samples).
        """
        if not msgs:
            return None
        fetched = Fetched(message_values(msgs), self.reader.located(msgs),
                          msgs if self._keep_messages else None)
        self.reader.advance(msgs)
        return fetched

    def decode(self, fetched: Fetched) -> Batch | None:
        """The rows of ``fetched``; None when there are none (touches no reader state).

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
        """
        batch = self.rows(fetched)
        self.decoder.count_skipped()
        return batch if batch is not None and batch.num_rows else None

    def poll(self, max_rows: int, timeout_s: float) -> Batch | None:
        """The rows of up to ``max_rows`` messages of one ``consume()``; None when none arrived.

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
            ExecutionError: for Kafka errors.
        """
        fetched = self.fetch(max_rows, timeout_s)
        return None if fetched is None else self.decode(fetched)

    def position(self) -> dict:
        """``{"<topic>:<partition>": next_offset}``: the offset after the last record returned."""
        return self.reader.position()

    def checkpoint_committed(self, checkpoint_id: int, position: dict) -> None:
        """Commit the checkpoint's offsets to the consumer group (:meth:`.KafkaReader.commit_offsets`)."""
        self.reader.commit_offsets(position)

    def finished(self) -> bool:
        """True once a bounded read reached every partition's end offset."""
        return self.bounded and self.reader.finished()

    def lag(self) -> int | None:
        """Records not read yet (:meth:`.KafkaReader.lag`)."""
        return self.reader.lag()

    @property
    def split_names(self) -> list[str]:
        """One split per partition (see :meth:`KafkaReader.split_names`); valid after open."""
        return self.reader.split_names()

    def finished_splits(self) -> set[int]:
        """Partitions whose bounded read is complete."""
        return self.reader.finished_split_ids()

    def close(self) -> None:
        """Close the consumer."""
        self.reader.close()


class KafkaSource(ReaderSource):
    """Reads a Kafka topic (see module docstring).

    Args:
        ctx: the connector context.

    Raises:
        ConfigError: for bad options.
    """

    def __init__(self, ctx: ConnectorContext):
        super().__init__(ctx)
        self.changelog = bool(getattr(self.decoder.vdec, "changelog", False))

    @staticmethod
    def formats(table: TableDef) -> FormatSetup:
        """``'format'``/``'value.format'``, and ``'key.format'`` + ``'key.fields'`` when set."""
        fs = format_setup(table)
        validate_table("kafka", table, fs)
        check_metadata(table)
        return fs

    @classmethod
    def changelog_of(cls, table: TableDef) -> bool:
        """The value format carries row kinds (debezium-json): the source emits a changelog."""
        return is_changelog_format(table.options.get("value.format") or table.options.get("format") or "")

    def open(self, position: dict | None) -> None:
        """Assign every partition at ``position`` (or per ``'scan.startup.mode'``)."""
        self.reader.open(position)

    def rows(self, fetched: Fetched) -> Batch:
        """Every message's value (and key) decoded, with its metadata columns."""
        return self.decoder.decode(fetched.values, fetched.located, fetched.msgs)

    def decode_copy(self) -> Callable[[Fetched], Batch | None]:
        """A :meth:`decode` with a :class:`RecordDecoder` of its own (for another decode thread).

        The rows of one fetch depend on its messages alone: a decoder keeps only counters (added
        to the job's metrics under a lock) and per-batch choices from one batch to the next.
        """
        decoder = RecordDecoder(self.table, self.fs, self.metrics, self.read_columns)

        def decode(fetched: Fetched) -> Batch | None:
            batch = decoder.decode(fetched.values, fetched.located, fetched.msgs)
            decoder.count_skipped()
            return batch if batch.num_rows else None

        return decode


