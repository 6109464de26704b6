"""What the changelog JSON formats share: one message → change rows (+I/-U/+U/-D) and metadata.

``debezium-json``, ``canal-json`` and ``maxwell-json`` each wrap a table's rows in an envelope that
says which change they are. :class:`ChangelogJsonDecoder` reads the messages one by one as Flink's
deserializers do (a Jackson tree, then the envelope): a subclass only says what an envelope means
(:meth:`~ChangelogJsonDecoder.changes`) and which metadata it carries
(:attr:`~ChangelogJsonDecoder.METADATA`).
:class:`ChangelogJsonEncoder` writes one envelope per row (:meth:`~ChangelogJsonEncoder.envelope`).

Rules shared with Flink's deserializers (``CanalJsonDeserializationSchema``, ...):

- a tombstone (None) or an empty message is no change (counted in ``tombstones``);
- a message that is not JSON, whose envelope is not what the format expects, or whose value does
  not convert fails the job (:class:`~streamsql.core.errors.BadRecordError` naming
  ``topic[partition]@offset`` and the option that skips it), unless
  ``'<format>.ignore-parse-errors'``: then it is skipped and counted (``skipped``), and a value
  that does not convert is NULL with the row kept;
- every row of a message carries the message's metadata columns (``METADATA FROM 'value.<key>'``);
- a number ``-0`` is 0.0 in a FLOAT / DOUBLE field (Jackson's tree holds an integer 0), and when the
  row type holds a DECIMAL anywhere every negative zero number (``-0.0``, ``-0E-5``) is 0.0 (as
  Flink's ``JsonRowDataDeserializationSchema``, which then reads floats as ``BigDecimal``, and a
  BigDecimal has no sign of zero); a quoted ``"-0.0"`` stays -0.0. The ``json`` format keeps -0.0
  in all these cases (its parser-based deserializer). Recorded: ``scripts/flink_negative_zero.py``.
"""

from __future__ import annotations

from abc import abstractmethod
from decimal import Decimal
from typing import Any, Callable, NamedTuple

import numpy as np
import orjson
import pyarrow as pa
from streamsql.connectors.formats.common import Decoder, Encoder, Where, bad_record, bool_option, skip_option
from streamsql.connectors.formats.convert import (
    RecordError,
    build_column,
    convert_field,
    from_rows,
    make_converter,
)
from streamsql.connectors.formats.json import (
    RowConverter,
    decimal_plain_option,
    loads_exact,
    timestamp_standard_option,
)
from streamsql.connectors.formats.json_depth import check_depth, deep_recursion
from streamsql.connectors.formats.json_encode import python_columns

from streamsql.core.connector import OptionSpec, choice_option, flag_option, read_tree
from streamsql.core.elements import Batch, RowKind
from streamsql.core.types import Schema, SqlType

#: One change of a message: the row's JSON object (None: all NULL; :class:`Partial`: a before
#: image to complete from the next change's row) and its kind.
Change = tuple[Any, int]


class PartialMessage(RecordError):
    """A message whose changes up to a bad row are read (:attr:`changes`), the rest not.

    Flink's canal deserializer emits the rows of ``data`` one by one: a row that is no object (or,
    for an UPDATE, an ``old`` without an object for it) ends the message with an exception after
    the rows before it were emitted. With ``ignore-parse-errors`` those rows are kept (and the
    message counted as skipped); without it the message fails the job as any bad record.

    Attributes:
        changes: the changes before the bad row.
        metadata: the message's requested metadata values (set by the decoder).
    """

    def __init__(self, msg: str, changes: list[Change]):
        super().__init__(msg)
        self.changes = changes
        self.metadata: tuple = ()


class Partial:
    """An update's ``old`` object: the fields that changed; the others are the next change's row's.

    A field of the before image that ``old`` leaves NULL is taken from the after image
    (:meth:`ChangelogJsonDecoder.rows_of`) unless its name is in ``kept``: Flink's canal and
    maxwell deserializers keep a NULL whose name their ``old`` field holds at any depth
    (Jackson's ``findValue``; canal's ``old`` is the array of every row's changed fields).
    """

    __slots__ = ("kept", "old")

    def __init__(self, old: Any, kept: frozenset[str] = frozenset()):
        self.old = old
        self.kept = kept


def json_text(v: Any) -> str:
    """``v`` as Flink's messages quote an envelope's value: ``"INSERT"`` for a string, else its JSON."""
    return f'"{v}"' if isinstance(v, str) else orjson.dumps(v).decode()


def names_within(node: Any) -> frozenset[str]:
    """Every object key at any depth of a JSON value (what Jackson's ``findValue`` can find)."""
    out: set[str] = set()
    todo = [node]
    while todo:
        n = todo.pop()
        if isinstance(n, dict):
            out.update(n)
            todo += n.values()
        elif isinstance(n, list):
            todo += n
    return frozenset(out)


#: Units of an Arrow timestamp per millisecond.
_PER_MS = {"ms": 1, "us": 1_000, "ns": 1_000_000}


class Metadata(NamedTuple):
    """A readable metadata key of a changelog format (Flink's ``ReadableMetadata``).

    Attributes:
        type: the SQL type the column is produced as.
        field: the envelope's top-level field it is read from.
        json_type: the type Flink's JSON converter reads that field as (a value that does not
            convert fails the message, or is NULL with ``ignore-parse-errors``, as a column's).
        scale: for a TIMESTAMP_LTZ(3) read from an epoch number, milliseconds per unit (canal's
            ``ts`` is in ms, maxwell's in s).
        entry: the entry of the field (read as a MAP) that is the value (debezium's
            ``source.table`` is ``source``'s ``table``); None: the whole field.
        root: read from the message's outermost object, not from the envelope inside it
            (debezium's ``schema`` beside its ``payload``).
        parse: for a TIMESTAMP_LTZ read from text, the text → epoch microseconds (None: no value),
            raising :class:`~.convert.RecordError` for text the message fails on
            (:mod:`.timestamp_data`).
    """

    type: SqlType
    field: str
    json_type: SqlType
    scale: int = 1
    entry: str | None = None
    root: bool = False
    parse: Callable[[str], int | None] | None = None


def metadata(
    type_sql: str, field: str, json_sql: str | None = None, scale: int = 1, **more: Any
) -> Metadata:
    """A :class:`Metadata` from type texts (``json_sql`` defaults to ``type_sql``); ``more``: its fields."""
    return Metadata(SqlType.parse(type_sql), field, SqlType.parse(json_sql or type_sql), scale, **more)


def changelog_options(fmt: str, *extra: OptionSpec) -> list[OptionSpec]:
    """Flink's options of changelog JSON format ``fmt``: parse errors, timestamps, map keys, decimals."""
    return [
        flag_option(f"{fmt}.ignore-parse-errors",
                    "instead of failing: NULL for a field that does not convert (row kept), skip (counted) "
                    "messages that cannot be decoded"),
        timestamp_standard_option(fmt, "SQL ('yyyy-MM-dd HH:mm:ss.s') or ISO-8601"),
        choice_option(f"{fmt}.map-null-key.mode", ("FAIL", "DROP", "LITERAL"),
                      "a MAP's NULL key when writing (maps here never hold a NULL key)", "FAIL", enum=True),
        OptionSpec(f"{fmt}.map-null-key.literal", default="null",
                   description="the key written for a MAP's NULL key in 'LITERAL' mode"),
        decimal_plain_option(fmt),
        *extra,
    ]


class ChangelogJsonDecoder(Decoder):
    """Decodes a changelog JSON format's messages (see module docstring); a subclass per format.

    Attributes:
        metadata: after each :meth:`decode`, the requested metadata columns
            (:meth:`request_metadata`), one value per output row.
    """

    fmt = ""
    changelog = True
    empty_is_no_row = True
    #: Flink's readable metadata keys of the format, in Flink's order.
    METADATA: dict[str, Metadata] = {}

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options, table)
        self.ignore_errors = bool_option(options, f"{self.fmt}.ignore-parse-errors", False, table)
        self.iso = options.get(f"{self.fmt}.timestamp-format.standard", "SQL") == "ISO-8601"
        self.converter = RowConverter(schema, False, self.ignore_errors, self.iso)
        self.exact_cols = {f.name for f in schema if f.type.name in ("DECIMAL", "STRING", "FLOAT")}
        #: Whether every negative zero number reads as 0.0 (a DECIMAL in the row type, see module docstring).
        self.unsigned_zeros = any(holds_decimal(f.type) for f in schema)
        self.metadata_keys: list[str] = []
        self._meta_convs: list[tuple[Metadata, Callable[[Any], Any]]] = []
        self.metadata: list[pa.Array] = []

    def project(self, read: frozenset[tuple[str, ...]]) -> None:
        """The columns read: the row type Flink's projection pushdown gives the deserializer.

        Jackson reads every float as a ``BigDecimal`` (no -0) only when that projected type holds a
        DECIMAL: a filesystem table with a DECIMAL column reads ``-0.0`` as -0.0 under ``SELECT id,
        f`` and as 0.0 under ``SELECT id, f, dm``, or under ``SELECT id, f, w2.a`` of a ROW ``w2``
        holding a DECIMAL field (Flink 2.3, ``scripts/flink_negative_zero.py`` ``projected``).
        """
        read_names = read_tree(read)  # a ROW column's field read reads the whole column (no nested pushdown)
        self.unsigned_zeros = any(holds_decimal(f.type) for f in self.schema if f.name.lower() in read_names)

    def request_metadata(self, keys: list[str]) -> None:
        """Produce the metadata ``keys`` (keys of :attr:`METADATA`) in :attr:`metadata` from now on."""
        self.metadata_keys = list(keys)
        lenient = self.ignore_errors
        wanted = [self.METADATA[k] for k in keys]
        self._meta_convs = [(m, make_converter(m.json_type, lenient=lenient)) for m in wanted]

    def _message_metadata(self, env: dict, root: Any) -> tuple:
        """The requested metadata values of one envelope ``env`` inside message ``root`` (converter outputs).

        Raises:
            RecordError: a field does not convert to its type (unless parse errors are ignored), or
                a metadata text does not parse (:attr:`Metadata.parse`).
        """
        out = []
        for m, conv in self._meta_convs:
            src = root if m.root else env
            v = src.get(m.field) if isinstance(src, dict) else None
            v = None if v is None else convert_field(m.field, conv, v)
            if v is not None and m.entry is not None:
                v = dict(v).get(m.entry)  # a MAP's (key, value) pairs
            if v is not None and m.parse is not None:
                v = m.parse(v)
                v = None if v is None else v * _PER_MS[m.type.to_arrow().unit] // 1000
            elif v is not None and m.type.name == "TIMESTAMP_LTZ":
                v = v * m.scale * _PER_MS[m.type.to_arrow().unit]  # epoch ms in the Arrow type's unit
            out.append(v)
        return tuple(out)

    @abstractmethod
    def changes(self, obj: dict) -> list[Change]:
        """The changes one message's envelope ``obj`` (a JSON object) carries, in order.

        Empty for a message that is no change (a DDL event, another table's).

        Raises:
            RecordError: the envelope is not one of the format (an unknown type, a missing row).
        """

    def unwrap(self, obj: Any) -> dict:
        """The envelope inside a parsed message (debezium's ``{"schema", "payload"}``); ``obj`` by default.

        Raises:
            RecordError: ``obj`` is no JSON object.
        """
        if not isinstance(obj, dict):
            msg = f"expected a JSON object, got {type(obj).__name__}"
            raise RecordError(msg)
        return obj

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        batch, self.source_index, metas = self.decode_records(values, range(len(values)), where)
        self.metadata = self._metadata_arrays(metas)
        return batch

    def decode_records(self, values, idx, where: Where) -> tuple[Batch, np.ndarray, list[tuple]]:
        """Decode the records ``values[i]`` for ``i`` in ``idx``, one by one.

        Returns:
            The batch, the index into ``values`` of each of its rows, and each row's requested
            metadata values (a tuple per row).

        Raises:
            BadRecordError: for the first bad record, unless parse errors are ignored.
        """
        rows, kinds, src, envs = [], [], [], []
        for i in idx:
            v = values[i]
            if not v:  # Flink: a tombstone or an empty message is no change
                self.tombstones += 1
                continue
            try:
                env, out = self._message(v)
            except PartialMessage as e:  # the rows before the bad one are read, as Flink's
                if not self.ignore_errors:
                    raise bad_record(self.fmt, where(i), str(e), v, skip_option(self)) from None
                self.skipped += 1
                env, out = e.metadata, self.rows_of(e.changes)
            except RecordError as e:
                if not self.ignore_errors:
                    raise bad_record(self.fmt, where(i), str(e), v, skip_option(self)) from None
                self.skipped += 1
                continue
            for r, k in out:
                rows.append(r)
                kinds.append(k)
                src.append(i)
                envs.append(env)
        batch = Batch(from_rows(rows, self.schema), np.asarray(kinds, dtype=np.int8))
        return batch, np.asarray(src, dtype=np.int64), envs

    def _message(self, v: bytes) -> tuple[tuple, list[tuple[tuple, int]]]:
        """One message's requested metadata and its converted rows with their kinds.

        Numbers go through Decimal when a DECIMAL/STRING/FLOAT column's value is a non-integer
        (the text Jackson keeps), as the ``json`` format's rules want.

        Raises:
            RecordError: a bad record; :class:`~.json_depth.TooDeep` for one nested deeper than
                Jackson's limit (1000).
        """
        check_depth(v)
        try:
            obj = orjson.loads(v)
        except orjson.JSONDecodeError:
            obj = None
        exact = obj is None
        if not exact:
            env = self.unwrap(obj)
            found = self._changes(env)
            rows = found.changes if isinstance(found, PartialMessage) else found
            exact = any(self._needs_exact(r) for r, _ in rows)
        if exact:
            if not v.strip():
                msg = "empty record"
                raise RecordError(msg)
            with deep_recursion(v):
                obj = loads_exact(v, reject_constants=False, raw_numbers=False)
            env = self.unwrap(obj)
            found = self._changes(env)
        meta = self._message_metadata(env, obj) if self._meta_convs else ()
        if isinstance(found, PartialMessage):
            found.metadata = meta
            raise found
        return meta, self.rows_of(found)

    def _changes(self, env: dict) -> list[Change] | PartialMessage:
        """:meth:`changes` of ``env``, or the :class:`PartialMessage` it raised (its rows to convert)."""
        try:
            return self.changes(env)
        except PartialMessage as e:
            return e

    def converted(self, row: dict) -> tuple:
        """The row tuple of one JSON object.

        Raises:
            RecordError: ``row`` is no object (a null row fails Flink's deserializer too), or a
                value does not convert (unless parse errors are ignored).
        """
        if not isinstance(row, dict):
            msg = f"expected a row object, got {'null' if row is None else type(row).__name__}"
            raise RecordError(msg)
        return self.converter.convert(unsigned_zeros(row) if self.unsigned_zeros else row)

    def rows_of(self, found: list[Change]) -> list[tuple[tuple, int]]:
        """Converted rows of :meth:`changes`' output, a :class:`Partial` completed from the next row.

        Raises:
            RecordError: a value does not convert (unless parse errors are ignored).
        """
        out = []
        for j, (r, k) in enumerate(found):
            if isinstance(r, Partial):
                after = self.converted(found[j + 1][0])
                before = self.converted(r.old)
                kept = [n in r.kept for n in self.schema.names]
                out.append((tuple(a if b is None and not keep else b
                                  for a, b, keep in zip(after, before, kept)), k))
            else:
                out.append((self.converted(r), k))
        return out

    def _needs_exact(self, row) -> bool:
        if isinstance(row, Partial):
            row = row.old
        return isinstance(row, dict) and any(isinstance(row.get(c), (float, dict, list))
                                             for c in self.exact_cols)

    def _metadata_arrays(self, metas: list[tuple]) -> list[pa.Array]:
        cols = list(zip(*metas)) if metas else [()] * len(self.metadata_keys)
        return [build_column(list(c), self.METADATA[k].type) for k, c in zip(self.metadata_keys, cols)]


def holds_decimal(t) -> bool:
    """Whether the SQL type ``t`` is a DECIMAL or holds one (a ROW field, an ARRAY / MAP element)."""
    return t.name == "DECIMAL" or any(holds_decimal(c) for c in t.children)


def unsigned_zeros(v: Any) -> Any:
    """Parsed JSON ``v`` with each negative zero number (float or Decimal) made positive, nested too.

    As Jackson's ``BigDecimal`` nodes (Flink's ``USE_BIG_DECIMAL_FOR_FLOATS``), which have no sign of
    zero: ``-0.0`` reads as 0.0, ``Decimal('-0.00')`` as ``Decimal('0.00')`` (its scale kept). Strings
    are left alone (a quoted ``"-0.0"`` stays -0.0 in Flink).
    """
    if isinstance(v, float):
        return 0.0 if v == 0 else v
    if isinstance(v, Decimal):
        return v.copy_abs() if v.is_zero() else v
    if isinstance(v, dict):
        return {k: unsigned_zeros(x) for k, x in v.items()}
    if isinstance(v, list):
        return [unsigned_zeros(x) for x in v]
    return v


def old_row(changed: Any, position: int, fmt: str) -> dict:
    """Element ``position`` of an update's ``old`` (a list of changed fields per row), an object.

    Raises:
        RecordError: ``old`` has no such object, as Flink's converter fails on it.
    """
    if not isinstance(changed, list) or position >= len(changed) or not isinstance(changed[position], dict):
        msg = f"the 'old' field of an UPDATE {fmt} message has no object for row {position + 1}"
        raise RecordError(msg)
    return changed[position]


class ChangelogJsonEncoder(Encoder):
    """Writes one envelope per row: :meth:`envelope` of the row's JSON object and whether it is +I/+U."""

    accepts_updates = True
    fmt = ""

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row (see :meth:`Encoder.encode`)."""
        names = self.schema.names
        cols = python_columns(table, self.schema, self.options, prefix=self.fmt)
        ks = np.zeros(table.num_rows, np.int8) if kinds is None else kinds
        dumps = self.dumps
        adds = (RowKind.INSERT, RowKind.UPDATE_AFTER)
        return [dumps(self.envelope(dict(zip(names, row)), k in adds))
                for row, k in zip(zip(*cols), ks.tolist())]

    @staticmethod
    def dumps(obj) -> bytes:
        """The JSON bytes of an envelope (compact, as Jackson writes)."""
        return orjson.dumps(obj)

    @abstractmethod
    def envelope(self, row: dict, adds: bool) -> dict:
        """The message of one row: ``adds`` for +I/+U, else -U/-D."""
