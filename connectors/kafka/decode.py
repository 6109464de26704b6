"""Kafka messages → a source's batch: key and value decoding, metadata, splits.

:class:`RecordDecoder` is what both Kafka sources decode with: the ``kafka`` source hands it
every message's value, ``upsert-kafka`` the values its changelog derivation picked (with the
message each one came from).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pyarrow as pa
from confluent_kafka import Message
from streamsql.connectors.kafka.fetched import Located
from streamsql.connectors.kafka.formats import FormatSetup
from streamsql.connectors.kafka.metadata import metadata_arrays, source_schema, value_metadata

from streamsql.core.catalog import TableDef
from streamsql.core.connector import count
from streamsql.core.elements import Batch
from streamsql.core.types import Schema


def decode_keys(kdec, keys: list[bytes | None], where: Callable[[int], str]) -> tuple[pa.Table, np.ndarray]:
    """Decode message keys, a missing key (None) as its format decodes a tombstone.

    As Flink's Kafka source, which joins each value row with the rows its key format gives for
    the key: ``json`` and ``csv`` give none for a missing key, so the message is no row (counted
    in ``kdec.tombstones``; compat case ``kafka_json_null_key``), ``raw`` a NULL key.

    Returns:
        ``(key_table, kept)``: ``kept`` are the indices into ``keys`` of the rows of
        ``key_table`` (a key that fails to decode under ``ignore-parse-errors`` drops its row too).
    """
    kb = kdec.decode(keys, where)
    return kb.table, np.asarray(kdec.source_index, dtype=np.int64)


def assemble(
    table: TableDef,
    schema: Schema,
    fs: FormatSetup,
    value_tbl: pa.Table,
    key_tbl: pa.Table | None,
    meta: list[pa.Array],
) -> pa.Table:
    """The output table: physical columns, then metadata columns.

    Key fields come from the key unless the value carries them too; a column neither decoded
    carries (one the job does not read, left undecoded: :class:`RecordDecoder`'s ``read``) is NULL,
    and so is a ROW column's field the value format left undecoded (:func:`widen`).
    """
    cols = []
    vnames = {n.lower(): i for i, n in enumerate(value_tbl.column_names)}
    knames = {n.lower(): i for i, n in enumerate(key_tbl.column_names)} if key_tbl is not None else {}
    for f in table.physical_schema:
        low = f.name.lower()
        if low in vnames:
            cols.append(widen(value_tbl.column(vnames[low]), f.type.to_arrow()))
        elif low in knames:
            cols.append(key_tbl.column(knames[low]))
        else:
            cols.append(pa.nulls(value_tbl.num_rows, f.type.to_arrow()))
    cols += meta
    return pa.Table.from_arrays(cols, schema=schema.to_arrow())


def widen(col: pa.ChunkedArray | pa.Array, target: pa.DataType) -> pa.ChunkedArray | pa.Array:
    """``col``, decoded with some ROW fields left out, with the type ``target``: those fields NULL.

    A ROW that is NULL stays NULL, one that is not keeps its decoded fields.
    """
    if col.type == target:
        return col
    if isinstance(col, pa.ChunkedArray):
        return pa.chunked_array([widen(c, target) for c in col.chunks], target)
    have = {f.name: i for i, f in enumerate(col.type)}
    kids = [widen(col.field(have[f.name]), f.type) if f.name in have else pa.nulls(len(col), f.type)
            for f in target]
    mask = col.is_null() if col.null_count else None
    return pa.StructArray.from_arrays(kids, fields=list(target), mask=mask)


class RecordDecoder:
    """Decodes the messages of one ``consume()`` into a :class:`Batch` of the source's schema.

    Args:
        table: the source table.
        fs: its key/value formats.
        metrics: the job's counters; undecodable records skipped under ``ignore-parse-errors``
            are added to ``metrics["bad_records"]``, tombstones and empty values the value format
            gives no row for to ``metrics["empty_records"]``, by :meth:`count_skipped`.
        read: the columns the job reads (``ConnectorContext.read_columns``), or None for all; the
            value format may leave the others undecoded (NULL in every batch), when that changes
            no record's fate (:meth:`~streamsql.connectors.formats.common.Decoder.narrow`).

    Attributes:
        schema: physical then metadata columns (:func:`source_schema`).
        vdec: the value decoder; ``kdec``: the key decoder, or None without a key format.
    """

    def __init__(self, table: TableDef, fs: FormatSetup, metrics: dict[str, int],
                 read: frozenset[str] | None = None):
        self.table = table
        self.fs = fs
        self.schema = source_schema(table)
        self.vdec, self.kdec = fs.make_decoders(table)
        #: the value format's metadata keys the table reads, without their ``value.`` prefix
        offered = value_metadata(table)
        self.value_keys = list(dict.fromkeys(
            c.metadata_key[len("value."):] for c in table.metadata_columns if c.metadata_key in offered))
        if self.value_keys:
            self.vdec.request_metadata(self.value_keys)
        if read is not None:
            self.vdec.narrow(read)
        self.metrics = metrics
        self._skipped = 0
        self._empty = 0

    def decode(
        self,
        values: list[bytes | None],
        located: Located,
        msgs: list[Message] | None = None,
        src: np.ndarray | None = None,
        kinds: np.ndarray | None = None,
    ) -> Batch:
        """Decode ``values`` (with their messages' keys and metadata) into a batch.

        Touches no reader state: it runs on the source's decode thread (:mod:`.fetched`).

        Args:
            values: the payloads to decode; ``values[j]`` came from message ``src[j]`` (from
                message ``j`` when ``src`` is None).
            located: the split and offset of every message (``Batch.splits``, ``Batch.origin``
                and the names of bad records).
            msgs: the messages, needed for a key format or metadata columns (else None).
            src: the message index (int64) of each value, or None.
            kinds: the row kind (int8) of each value, or None to take the value format's
                (debezium-json) kinds.

        Raises:
            BadRecordError: naming ``topic[partition]@offset`` of an undecodable record.
        """

        def where(j: int) -> str:
            return located.where(j if src is None else int(src[j]))

        vb = self.vdec.decode(values, where)
        idx = np.asarray(self.vdec.source_index, dtype=np.int64)  # into values
        vmeta = {f"value.{k}": a for k, a in zip(self.value_keys, getattr(self.vdec, "metadata", ()))}
        vt = vb.table
        row_kinds = vb.kinds if kinds is None else kinds[idx]
        msg_idx = idx if src is None else src[idx]  # the message of each row
        kt = None
        if self.kdec is not None and len(idx):
            keys = [msgs[i].key() for i in msg_idx.tolist()]
            kt, kept = decode_keys(self.kdec, keys, lambda q: where(int(idx[q])))
            kt = self.fs.table_keys(kt)
            if len(kept) != len(idx):
                vt = vt.take(pa.array(kept))
                vmeta = {k: a.take(pa.array(kept)) for k, a in vmeta.items()}
                row_kinds = None if row_kinds is None else row_kinds[kept]
                idx, msg_idx = idx[kept], msg_idx[kept]
        elif self.kdec is not None:
            kt = self.fs.key_schema.to_arrow().empty_table()
        meta = metadata_arrays(self.table, msgs, msg_idx, vmeta) if self.table.metadata_columns else []
        table = assemble(self.table, self.schema, self.fs, vt, kt, meta)
        return Batch(table, row_kinds, located.split_ids(msg_idx), origin=located.origins(msg_idx))

    @property
    def needs_messages(self) -> bool:
        """The decode reads the messages' keys or metadata, not only their values."""
        return self.kdec is not None or bool(self.table.metadata_columns)

    def count_skipped(self) -> None:
        """Add the records skipped since the last call to ``metrics`` (``bad_records``, ``empty_records``)."""
        skipped = self.vdec.skipped + (self.kdec.skipped if self.kdec else 0)
        if skipped != self._skipped:
            count(self.metrics, "bad_records", skipped - self._skipped)
            self._skipped = skipped
        empty = self.vdec.tombstones + (self.kdec.tombstones if self.kdec else 0)
        if empty != self._empty:
            count(self.metrics, "empty_records", empty - self._empty)
            self._empty = empty
