"""The ``avro`` format: one Avro binary datum per message, its schema derived from the columns.

The schema is the one Flink's ``AvroSchemaConverter.convertToSchema`` derives from the table's
physical row (default ``'avro.timestamp_mapping.legacy'``): a record named
``org.apache.flink.avro.generated.record`` (a ROW column's record ``<parent>_<column>``), each
nullable type as the union ``["null", T]`` with default null; BOOLEAN ``boolean``,
TINYINT/SMALLINT/INT ``int``, BIGINT ``long``, FLOAT ``float``, DOUBLE ``double``, CHAR/VARCHAR
``string``, BINARY/VARBINARY ``bytes``, DECIMAL(p, s) ``bytes`` (logical ``decimal``), DATE ``int``
(``date``), TIME(p <= 3) ``int`` (``time-millis``), TIMESTAMP(p <= 3) ``long``
(``timestamp-millis``), ARRAY ``array``, MAP<STRING, V> ``map``, ROW ``record``. Other types
(TIMESTAMP_LTZ, TIMESTAMP(6), TIME(6), MULTISET, VARIANT, ...) are refused when the table is used.

A message is the datum alone (no container header, no schema registry: that is
``avro-confluent``), as Flink's ``AvroRowDataSerializationSchema`` writes it with the binary
encoder. Encoding and decoding go through fastavro; a message that does not decode fails the job
(``BadRecordError`` naming ``topic[partition]@offset``): Flink's avro format has no option to
skip it. A tombstone (None) is no row, as Flink's deserializer returns null for it.
"""

from __future__ import annotations

import datetime as _dt
import decimal
import io
from typing import Any, Callable

import fastavro
import numpy as np
import pyarrow as pa
from streamsql.connectors.formats.common import Decoder, Encoder, Where, bad_record
from streamsql.connectors.formats.convert import from_rows

from streamsql.core.connector import OptionSpec, choice_option
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.types import Schema, SqlType

OPTIONS = [
    choice_option("avro.encoding", ("binary",), "Avro encoding of each message (only 'binary' here)",
                  "binary", enum=True),
    OptionSpec("avro.timestamp_mapping.legacy", default="true",
               description="Flink's legacy TIMESTAMP mapping (timestamp-millis); only 'true' here"),
]

#: Flink's name of the top-level record (``AvroSchemaConverter``).
RECORD_NAME = "org.apache.flink.avro.generated.record"
_PRIMITIVE = {"BOOLEAN": "boolean", "TINYINT": "int", "SMALLINT": "int", "INT": "int", "BIGINT": "long",
              "FLOAT": "float", "DOUBLE": "double", "STRING": "string", "BYTES": "bytes"}
_EPOCH = _dt.date(1970, 1, 1)
#: Units of an Arrow timestamp / time per millisecond.
_PER_MS = {"s": 0, "ms": 1, "us": 1_000, "ns": 1_000_000}


def avro_schema(schema: Schema, table: str | None = None) -> dict:
    """The Avro schema Flink derives for a table's physical columns (a NOT NULL record).

    Raises:
        ConfigError: for a column type Flink's legacy mapping cannot write, naming the column.
    """
    fields = []
    for f in schema.fields:
        fields.append(_field(f.name, f.type, RECORD_NAME, table, f.name))
    return {"type": "record", "name": RECORD_NAME, "fields": fields}


def _field(name: str, t: SqlType, parent: str, table: str | None, top: str) -> dict:
    """Field ``name`` of type ``t`` in record ``parent``; ``top``: the table's column it is (part of)."""
    out: dict[str, Any] = {"name": name, "type": _type(t, f"{parent}_{name}", name, table, top)}
    if t.nullable:
        out["default"] = None
    return out


def _type(t: SqlType, record_name: str, column: str, table: str | None, top: str) -> Any:
    n = t.name
    if n in _PRIMITIVE:
        s: Any = _PRIMITIVE[n]
    elif n == "DECIMAL":
        s = {"type": "bytes", "logicalType": "decimal", "precision": t.precision, "scale": t.scale or 0}
    elif n == "DATE":
        s = {"type": "int", "logicalType": "date"}
    elif n == "TIME" and (t.precision or 0) <= 3:
        s = {"type": "int", "logicalType": "time-millis"}
    elif n == "TIMESTAMP" and (t.precision if t.precision is not None else 6) <= 3:
        s = {"type": "long", "logicalType": "timestamp-millis"}
    elif n == "ARRAY":
        s = {"type": "array", "items": _type(t.children[0], record_name, column, table, top)}
    elif n == "MAP" and t.children[0].name == "STRING":
        s = {"type": "map", "values": _type(t.children[1], record_name, column, table, top)}
    elif n == "ROW":
        s = {"type": "record", "name": record_name,
             "fields": [_field(fn, ft, record_name, table, top) for fn, ft in zip(t.field_names, t.children)]}
    else:
        where = f"Table '{table}': " if table else ""
        msg = (f"{where}the 'avro' format cannot carry column '{column}' of type {t.sql()} (Flink's legacy "
               "timestamp mapping: TIMESTAMP(p <= 3), TIME(p <= 3), MAP with STRING keys; no "
               "TIMESTAMP_LTZ, MULTISET, VARIANT, ...)")
        raise ConfigError(msg, table=table, column=top)  # at the column in the CREATE TABLE
    return ["null", s] if t.nullable else s


# --------------------------------------------------------------------------------------------
# values: Arrow/Python rows ⇄ the plain values fastavro writes for the schema


def _to_avro(t: SqlType) -> Callable[[Any], Any]:
    """A converter of one Python value (``to_pylist``) of ``t`` to what fastavro writes (None kept)."""
    n = t.name
    if n == "TIMESTAMP":
        return lambda v: None if v is None else _millis(v)
    if n == "DATE":
        return lambda v: None if v is None else (v - _EPOCH).days
    if n == "TIME":
        return lambda v: None if v is None else (
            ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000)
    if n == "ARRAY":
        item = _to_avro(t.children[0])
        return lambda v: None if v is None else [item(x) for x in v]
    if n == "MAP":
        value = _to_avro(t.children[1])
        return lambda v: None if v is None else {k: value(x) for k, x in v}
    if n == "ROW":
        convs = [(fn, _to_avro(ft)) for fn, ft in zip(t.field_names, t.children)]
        return lambda v: None if v is None else {fn: c(v.get(fn)) for fn, c in convs}
    return lambda v: v


def _millis(v: _dt.datetime) -> int:
    """Epoch milliseconds of a TIMESTAMP value (wall-clock time taken as UTC, as Flink's converter)."""
    d = v - _dt.datetime(1970, 1, 1)
    return (d.days * 86_400 + d.seconds) * 1000 + d.microseconds // 1000


def _from_avro(t: SqlType) -> Callable[[Any], Any]:
    """A converter of what fastavro reads (no logical types) to a converter output of ``t``.

    Timestamps come out as ints of the Arrow type's unit, dates as days, TIME as microseconds of
    the day (what :func:`~.convert.build_column` builds from), DECIMAL as ``Decimal``.
    """
    n = t.name
    if n == "DECIMAL":
        scale = t.scale or 0
        return lambda v: None if v is None else decimal.Decimal(int.from_bytes(v, "big", signed=True)).scaleb(
            -scale)
    if n == "TIMESTAMP":
        per_ms = _PER_MS[t.to_arrow().unit]
        return lambda v: None if v is None else v * per_ms
    if n == "TIME":
        return lambda v: None if v is None else v * 1000
    if n == "ARRAY":
        item = _from_avro(t.children[0])
        return lambda v: None if v is None else [item(x) for x in v]
    if n == "MAP":
        value = _from_avro(t.children[1])
        return lambda v: None if v is None else [(k, value(x)) for k, x in v.items()]
    if n == "ROW":
        convs = [(fn, _from_avro(ft)) for fn, ft in zip(t.field_names, t.children)]
        return lambda v: None if v is None else {fn: c(v.get(fn)) for fn, c in convs}
    return lambda v: v


def _plain(s: Any) -> Any:
    """``s`` without logical types (fastavro then reads the underlying ints and bytes)."""
    if isinstance(s, list):
        return [_plain(x) for x in s]
    if not isinstance(s, dict):
        return s
    if "logicalType" in s:
        return s["type"]
    out = dict(s)
    if s["type"] == "record":
        out["fields"] = [{**f, "type": _plain(f["type"])} for f in s["fields"]]
    elif s["type"] == "array":
        out["items"] = _plain(s["items"])
    elif s["type"] == "map":
        out["values"] = _plain(s["values"])
    return out


class AvroDecoder(Decoder):
    """See module docstring."""

    fmt = "avro"

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options, table)
        _check_options(options, table)
        self.writer = fastavro.parse_schema(_plain(avro_schema(schema, table)))
        self.convs = [(f.name, _from_avro(f.type)) for f in schema.fields]

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        rows, src = [], []
        read = fastavro.schemaless_reader
        for i, v in enumerate(values):
            if v is None:
                self.tombstones += 1
                continue
            buf = io.BytesIO(v)
            try:
                rec = read(buf, self.writer, None)
                if buf.tell() != len(v):
                    msg = f"{len(v) - buf.tell()} bytes after the record"
                    raise ValueError(msg)
                rows.append(tuple(c(rec.get(n)) for n, c in self.convs))
            except (ValueError, EOFError, StopIteration, IndexError, TypeError, UnicodeDecodeError) as e:
                reason = f"Failed to deserialize Avro record ({type(e).__name__}: {e})"
                raise bad_record(self.fmt, where(i), reason, v) from None
            src.append(i)
        self.source_index = np.asarray(src, dtype=np.int64)
        return Batch(from_rows(rows, self.schema))


class AvroEncoder(Encoder):
    """See module docstring."""

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options, table)
        _check_options(options, table)
        self.writer = fastavro.parse_schema(avro_schema(schema, table))
        self.convs = [(f.name, _to_avro(f.type)) for f in schema.fields]

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One Avro datum per row (see :meth:`Encoder.encode`)."""
        cols = [(n, c, table.column(n).to_pylist()) for n, c in self.convs]
        out = []
        write = fastavro.schemaless_writer
        for r in range(table.num_rows):
            buf = io.BytesIO()
            write(buf, self.writer, {n: c(vals[r]) for n, c, vals in cols})
            out.append(buf.getvalue())
        return out


def _check_options(options: dict[str, str], table: str | None) -> None:
    """Refuse what is not implemented rather than ignore it: JSON encoding, the new timestamp mapping.

    Raises:
        ConfigError: naming the option.
    """
    legacy = options.get("avro.timestamp_mapping.legacy", "true").strip().lower()
    if legacy != "true":
        where = f"Table '{table}': " if table else ""
        msg = (f"{where}option 'avro.timestamp_mapping.legacy' = '{legacy}' is not supported yet (only "
               "Flink's default 'true')")
        raise ConfigError(msg)
