r"""The ``csv`` format: one delimited record per message, by position, no header (as Flink).

Decoding (vectorized): the payloads are joined with newlines and read by ``pyarrow.csv`` with
explicit column types (decimals read from their text, exact, then rounded HALF_UP to the scale;
timestamps read in ns then truncated to the column's unit; BYTES base64 as Flink). An empty field
is read as the text ``""`` unless ``'csv.null-literal'`` is ``''``, as Flink's Jackson reader
does: the empty string for STRING, empty bytes for BYTES, false for BOOLEAN
(``Boolean.parseBoolean``), and a value that does not convert for every other type (the record
fails, or with ``'csv.ignore-parse-errors'`` the value is NULL). The null literal, quoted or
not, is NULL in every column (compat cases ``kafka_csv_empty_*``, ``kafka_csv_null_literal_*``).
TIMESTAMP and TIMESTAMP_LTZ text is trimmed and read in the SQL form (``2024-01-05 10:00:00``,
with a ``Z`` for TIMESTAMP_LTZ), as :mod:`.java_timestamp`. A record with the wrong number of
fields, or a value that does not convert, sends the batch to the per-record path (Python's csv
module + Flink's conversion rules), which names the bad record in a ``BadRecordError``. With
``'csv.ignore-parse-errors' = 'true'`` (as Flink's ``CsvToRowDataConverters``) a value that does
not convert becomes NULL and missing trailing fields are NULL, and the row is kept (not
counted); a record with too many fields or that is not CSV at all (invalid UTF-8, malformed
quoting) is skipped and counted in ``skipped``. Tombstones (None) are
skipped and counted in ``tombstones``. ``'csv.allow-comments'`` skips what Jackson skips before a
record: spaces (not tabs), line breaks and ``#`` lines; a message of nothing else fails (``No
content``), or is skipped and counted under ``'csv.ignore-parse-errors'``, as Flink 2.3.
A payload with a line break inside (a quoted multi-line value, or several lines) is decoded
per record: one message is one record, its first (``5,e\n6,f`` is ``(5, e)``; a blank first line
one empty field), never split or merged with its neighbours (compat cases ``kafka_csv_comments_*``,
``kafka_csv_multiline_*``).

BOOLEAN is Java's ``Boolean.parseBoolean`` of the trimmed text, as Flink's: ``true`` in any case is
true, any other text (``1``, ``yes``) false; INT, DOUBLE and DATE text follow Java's parsers too
(:mod:`.java_text`).

Encoding (vectorized with Arrow string kernels): values rendered as Flink 2.3's csv format writes
them through Jackson's CSV writer (``tests/connectors/json_encode_flink.json``, cases ``csv_*``):
DECIMAL as ``BigDecimal.stripTrailingZeros().toString()`` (``1E+2``, ``0.1``: :mod:`.decimal_text`),
FLOAT/DOUBLE as Java's ``Float.toString`` / ``Double.toString`` (``1.0E20``:
:mod:`streamsql.core.float_text`),
TIMESTAMP as ``2024-05-01 10:00:00.12`` (fraction without trailing zeros), TIMESTAMP_LTZ the same
with ``Z``, BYTES base64, booleans ``true``/``false``, an ARRAY as its elements and a ROW as its
fields joined by ``'csv.array-element-delimiter'`` (``;``; a NULL element or field is the null
literal; reading: :func:`_field_converter`). Text values (STRING, TIMESTAMP, DATE, BYTES, ARRAY,
ROW) are quoted as Jackson's
``CsvEncoder`` decides: when they are longer than 24 UTF-16 units, or hold a character below its
"minimum safe character" — one past the largest of the delimiter, the quote character and ``\n``,
i.e. any of `` !"#$%&'()*+,`` and the control characters by default — or the escape character
(``"2024-05-01 10:00:00"``, ``"/+8="``, ``"a b"``, but ``é/A``); quotes inside are doubled (and
escape characters, when one is set). NULL is the null literal (default: empty field), as is an
empty string.
"""

from __future__ import annotations

import csv as _csv
import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
from streamsql.connectors.formats.common import (
    Decoder,
    Encoder,
    Where,
    bad_record,
    base64_text,
    bool_option,
    combine,
    cut_times,
    decode_bisect,
    decode_records,
    fix_types,
    read_type,
    render_date,
    render_time,
    render_timestamp,
    select_payloads,
    skip_option,
    try_fast,
)
from streamsql.connectors.formats.convert import (
    RECORD_FAULTS,
    RecordError,
    build_column,
    convert_field,
    make_converter,
)
from streamsql.connectors.formats.decimal_text import flink_decimal_text

from streamsql.core.connector import OptionSpec, flag_option
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.float_text import java_float_text
from streamsql.core.types import Schema, SqlType

OPTIONS = [
    OptionSpec(
        "csv.field-delimiter", default=",", description="field delimiter, one character (\\t allowed)"
    ),
    OptionSpec("csv.quote-character", default='"', description="quote character enclosing field values"),
    flag_option("csv.disable-quote-character", "disable quoting (the quote character is ordinary text)"),
    flag_option("csv.allow-comments", "skip '#' lines (and spaces, line breaks) before a record"),
    flag_option("csv.ignore-parse-errors",
                "instead of failing: NULL for a value that does not convert (row kept), skip (counted) "
                "a record with too many fields or that is not CSV"),
    OptionSpec("csv.escape-character", description="escape character inside values (default: none)"),
    OptionSpec("csv.null-literal", description="text read and written as NULL (default: empty field)"),
    OptionSpec("csv.array-element-delimiter", default=";",
               description="separator of an ARRAY's elements and a ROW's fields, one character"),
]


def _char(options: dict[str, str], key: str, default: str | None, table: str | None) -> str | None:
    v = options.get(key, default)
    if v is None:
        return None
    v = {"\\t": "\t", "\\n": "\n"}.get(v, v)
    if len(v) != 1:
        msg = (
            f"{'Table ' + repr(table) + ': ' if table else ''}option '{key}' must be a "
            f"single character, got '{v}'"
        )
        raise ConfigError(msg)
    return v


#: Types the batch path reads as text and converts itself: BYTES (base64) and DECIMAL, whose
#: text Arrow's reader would trim where Flink's ``new BigDecimal(text)`` refuses it.
_TEXT_TYPES = ("BYTES", "DECIMAL")


#: A message Jackson finds no record in (``'csv.allow-comments'``), skipped and counted.
_NO_CONTENT = object()


class _CsvOptions:
    def __init__(self, options: dict[str, str], table: str | None):
        self.delimiter = _char(options, "csv.field-delimiter", ",", table)
        self.quote = (
            None
            if bool_option(options, "csv.disable-quote-character", False, table)
            else _char(options, "csv.quote-character", '"', table)
        )
        self.escape = _char(options, "csv.escape-character", None, table)
        self.null_literal = options.get("csv.null-literal")
        self.allow_comments = bool_option(options, "csv.allow-comments", False, table)
        self.ignore_errors = bool_option(options, "csv.ignore-parse-errors", False, table)
        self.element_delimiter = options.get("csv.array-element-delimiter", ";")
        if len(self.element_delimiter) != 1:  # Flink's CsvCommons: a single character, no escapes
            msg = ("Option 'csv.array-element-delimiter' must be a string with single character, but was: "
                   f"{self.element_delimiter}")
            raise ConfigError(msg)


def _check_types(schema: Schema) -> None:
    """Refuse the columns Flink's csv format refuses: MAP and MULTISET, and nesting below one level.

    Raises:
        ConfigError: with Flink's message (``CsvRowSchemaConverter``).
    """
    for f in schema.fields:
        t = f.type
        if t.name in ("MAP", "MULTISET"):
            msg = f"Unsupported type '{t.sql()}' for field '{f.name}'."
            raise ConfigError(msg)
        nested = next((c for c in t.children if c.is_composite), None) if t.name in ("ARRAY", "ROW") else None
        if nested is not None:
            msg = (f"Only simple types are supported in the second level nesting of fields '{f.name}' "
                   f"but was: {nested.sql()}")
            raise ConfigError(msg)


def _field_converter(t: SqlType, o: _CsvOptions) -> Callable[[str], Any]:
    """The converter of one CSV field's text (after unquoting) to the value Arrow builds ``t`` from.

    An ARRAY or ROW field is its elements (fields) joined by ``'csv.array-element-delimiter'``, as
    Flink's (Jackson's array columns), checked against PyFlink 2.3 (compat cases ``csv_array_*``,
    ``csv_row_*``): an empty field is an empty ARRAY and a NULL ROW; otherwise the text is split at
    every delimiter (``';'`` is two empty elements) and each part converted as a field of its type
    (so ``''`` is an INT element that fails, a STRING element ``''``), the null literal being a
    NULL element or field (but the null literal as the whole field is one element: ``N`` is
    ``[NULL]``); a ROW with fewer parts than fields fails ("Row length mismatch. 2 fields expected
    but was 1."), extra parts are dropped. With ``'csv.ignore-parse-errors'`` a part that does not
    convert is NULL and missing ROW fields are NULL.
    """
    if not t.is_composite:
        return make_converter(t, from_text=True, lenient=o.ignore_errors)
    sep, null, lenient = o.element_delimiter, o.null_literal, o.ignore_errors
    children = [make_converter(c, from_text=True, lenient=lenient) for c in t.children]

    def part(conv, text: str | None):
        return None if text is None or text == null else conv(text)

    if t.name == "ARRAY":
        (elem,) = children

        def array(text: str) -> list:
            return [] if text == "" else [part(elem, x) for x in text.split(sep)]

        return array
    fields = list(zip(t.field_names, children))

    def row(text: str) -> dict | None:
        if text == "":
            return None
        parts: list[str | None] = text.split(sep)
        if len(parts) < len(fields):
            if not lenient:
                msg = f"Row length mismatch. {len(fields)} fields expected but was {len(parts)}."
                raise RecordError(msg)
            parts += [None] * (len(fields) - len(parts))
        return {name: convert_field(name, conv, x) if x is not None and x != null else None
                for (name, conv), x in zip(fields, parts)}

    return row


#: Read by Arrow; any other BOOLEAN text goes per record (:func:`.java_text.parse_boolean`).
_TRUE = ["true", "True", "TRUE"]
_FALSE = ["false", "False", "FALSE"]


class CsvDecoder(Decoder):
    """See module docstring."""

    fmt = "csv"

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.o = _CsvOptions(options, table)
        _check_types(schema)
        self.convs = [_field_converter(f.type, self.o) for f in schema]
        #: (index, converter) of the ARRAY and ROW columns, which the fast path reads as text
        self._composite = [(i, c) for i, (f, c) in enumerate(zip(schema, self.convs)) if f.type.is_composite]
        self._has_ints = any(f.type.name in ("TINYINT", "SMALLINT", "INT", "BIGINT") for f in schema)
        names = schema.names
        self._read_opts = pcsv.ReadOptions(
            column_names=names, autogenerate_column_names=False, use_threads=False
        )
        self._parse_opts = pcsv.ParseOptions(
            delimiter=self.o.delimiter,
            quote_char=self.o.quote or False,
            escape_char=self.o.escape or False,
            double_quote=True,
            newlines_in_values=True,
            ignore_empty_lines=False,
        )
        nl = self.o.null_literal
        self._convert_opts = pcsv.ConvertOptions(  # only the null literal, quoted or not, is NULL
            column_types={f.name: pa.string() if f.type.is_composite else read_type(f.type, _TEXT_TYPES)
                          for f in schema},
            null_values=[nl] if nl is not None else [],
            strings_can_be_null=nl is not None,
            quoted_strings_can_be_null=nl is not None,
            true_values=_TRUE,
            false_values=_FALSE + ([""] if nl != "" else []),  # Boolean.parseBoolean("") is false
        )

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        if self.o.allow_comments:
            values = [None if v is None else self._skip_comments(v, i, where) for i, v in enumerate(values)]
        if None in values or (self.o.allow_comments and any(v is _NO_CONTENT for v in values)):
            self.tombstones += sum(v is None for v in values)
            idx = [i for i, v in enumerate(values) if v is not None and v is not _NO_CONTENT]
        else:
            idx = None
        payloads, pos = select_payloads(values, idx)
        if not payloads:
            return self.empty()

        def fast(lo: int, hi: int):
            table = try_fast(self._fast, payloads[lo:hi])
            return None if table is None else (Batch(table), pos[lo:hi])

        batch, self.source_index, _ = decode_bisect(
            len(payloads), fast, lambda lo, hi: self._slow(payloads, pos, lo, hi, where)
        )
        return batch

    def _fast(self, payloads: list[bytes]) -> pa.Table | None:
        if not all(payloads):  # Arrow reads an empty line as a row; Flink fails on an empty message
            return None
        data = b"\n".join(payloads) + b"\n"
        if data.count(b"\n") != len(payloads) or b"\r" in data:
            # One message is one record: a line break inside a payload (other than a trailing one,
            # dropped as the slow path does) could merge or split records in Arrow's reader and
            # shift every later row onto the wrong message, so such payloads go per record.
            stripped = [p.rstrip(b"\r\n") for p in payloads]
            if any(b"\n" in p or b"\r" in p for p in stripped):
                return None
            data = b"\n".join(stripped) + b"\n"
        if self._has_ints and (b"0x" in data or b"0X" in data):
            return None  # Arrow's reader takes hex integers; Java's parseInt / parseLong do not
        table = pcsv.read_csv(
            io.BytesIO(data),
            read_options=self._read_opts,
            parse_options=self._parse_opts,
            convert_options=self._convert_opts,
        )
        if table.num_rows != len(payloads):
            return None
        if self._composite:
            table = self._convert_composites(table)
            if table is None:
                return None
        return cut_times(fix_types(table, self.schema), self.schema)

    def _convert_composites(self, table: pa.Table) -> pa.Table | None:
        """``table`` with its ARRAY and ROW columns (read as text) converted, value by value.

        A NULL text is the null literal (the only text Arrow's reader reads as NULL), which Flink
        does not take for a whole ARRAY or ROW (:func:`_field_converter`). None when a value does
        not convert (the batch goes per record, which names the record).
        """
        for i, conv in self._composite:
            f = self.schema.fields[i]
            null = self.o.null_literal
            try:
                values = [conv(null if v is None else v) for v in table.column(i).to_pylist()]
            except RECORD_FAULTS:
                return None
            table = table.set_column(i, f.name, build_column(values, f.type))
        return table

    def _skip_comments(self, v: bytes, i: int, where: Where) -> bytes | object:
        """``v`` after the spaces, line breaks and ``#`` lines Jackson skips before a record.

        With ``'csv.allow-comments'`` Jackson's CSV reader skips, before a record, spaces (not
        tabs), line breaks and lines starting with ``#``; a message with nothing else has no
        content: the record fails (``No content to map due to end-of-input``), or is skipped
        and counted with ``'csv.ignore-parse-errors'`` (compat cases ``kafka_csv_comments_*``).
        Returns :data:`_NO_CONTENT` (not None: a tombstone) for such a skipped message.

        Raises:
            BadRecordError: for a message of comments only, without ``ignore-parse-errors``.
        """
        j, n = 0, len(v)
        while j < n:
            c = v[j:j + 1]
            if c == b"#":
                k = min((x for x in (v.find(b"\n", j), v.find(b"\r", j)) if x >= 0), default=n)
                j = k
            elif c in (b"\r", b"\n", b" "):
                j += 1
            else:
                break
        if j < n:
            return v[j:] if j else v
        if not self.o.ignore_errors:
            raise bad_record(self.fmt, where(i), "no content (comments, spaces and line breaks only)", v,
                             skip_option(self))
        self.skipped += 1
        return _NO_CONTENT

    def _parse_record(self, v: bytes) -> tuple:
        try:
            text = v.decode("utf-8")
        except UnicodeDecodeError as e:
            msg = f"invalid UTF-8 ({e.reason} at byte {e.start})"
            raise RecordError(msg) from None
        kw = {"delimiter": self.o.delimiter, "strict": True}
        if self.o.quote:
            kw["quotechar"] = self.o.quote
        else:
            kw["quoting"] = _csv.QUOTE_NONE
        if self.o.escape:
            kw["escapechar"] = self.o.escape
        try:  # Flink reads a message's first record; the rest (after a line break) is never read
            fields = next(_csv.reader(io.StringIO(text, newline=""), **kw), []) if text else []
            if not fields and text:
                fields = [""]  # a blank first line: Jackson reads one empty field
        except _csv.Error as e:
            msg = f"malformed CSV ({e})"
            raise RecordError(msg) from None
        if 0 < len(fields) < len(self.convs) and self.o.ignore_errors:
            fields += [None] * (len(self.convs) - len(fields))  # Flink: missing trailing fields NULL
        elif len(fields) != len(self.convs):
            msg = f"row length mismatch: {len(self.convs)} fields expected but was {len(fields)}"
            raise RecordError(msg)
        out = []
        for f, conv, s in zip(self.schema.fields, self.convs, fields):
            # an empty field is text: "" for Flink's converters; an ARRAY's or ROW's text is split
            if s is None or s == self.o.null_literal and not f.type.is_composite:
                out.append(None)
            else:
                out.append(convert_field(f.name, conv, s))
        return tuple(out)

    def _slow(self, payloads, pos, lo: int, hi: int, where: Where):
        return decode_records(self, payloads, pos, lo, hi, where, self._parse_record, self.o.ignore_errors)


#: Jackson's CSV writer quotes every text longer than this many UTF-16 units (``MAX_QUOTE_CHECK``).
_MAX_QUOTE_CHECK = 24


def re2_escape(ch: str) -> str:
    """``ch`` as a literal in an RE2 pattern."""
    return f"\\x{{{ord(ch):x}}}"


class CsvEncoder(Encoder):
    """See module docstring."""

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.o = _CsvOptions(options, table)
        _check_types(schema)

    def _text(self, col, t: SqlType) -> tuple[pa.Array, bool]:
        """The text of every value (NULL stays NULL), and whether it is text Jackson may quote."""
        col = combine(col)
        n = t.name
        if n == "DECIMAL":
            return flink_decimal_text(col), False
        if n in ("FLOAT", "DOUBLE"):
            return java_float_text(col, single=n == "FLOAT"), False
        if n in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            return render_timestamp(col, t.precision or 0, " ", zulu=n == "TIMESTAMP_LTZ", trim=True), True
        if n == "BYTES":
            return pa.array(base64_text(col), pa.string()), True
        sep, null = self.o.element_delimiter, self.o.null_literal or ""
        if n == "ARRAY":  # a NULL element is the null literal, as Jackson writes it
            items, _ = self._text(col.values, t.children[0])
            joined = pc.binary_join(pa.ListArray.from_arrays(col.offsets, pc.fill_null(items, null)), sep)
            return pc.if_else(col.is_null(), pa.scalar(None, pa.string()), joined), True
        if n == "ROW":  # its fields joined as an ARRAY's elements (Flink writes a ROW as a Jackson array)
            parts = [pc.fill_null(self._text(col.field(i), ct)[0], null)
                     for i, (_, ct) in enumerate(t.fields)]
            joined = pc.binary_join_element_wise(*parts, sep) if len(parts) > 1 else parts[0]
            return pc.if_else(col.is_null(), pa.scalar(None, pa.string()), joined), True
        if n == "DATE":  # java.time's text: +10024-01-01 past year 9999
            return render_date(col), True
        if n == "TIME":  # SQL_TIME_FORMAT: 23:59:59.5, as the JSON format
            return render_time(col, 3, trim=True), True
        return col.cast(pa.string()), n == "STRING"

    def _quoted(self, text: pa.Array) -> pa.Array:
        """``text`` quoted where Jackson's CSV writer quotes it (module docstring).

        Inside quotes the quote character is doubled, and so is the escape character when one is
        set (Jackson's ``_writeQuotedAndEscaped``).
        """
        q = self.o.quote
        if not q or len(text) == 0:
            return text
        safe = max(ord(self.o.delimiter), ord(q), ord("\n")) + 1
        pattern = f"[\\x{{0}}-\\x{{{safe - 1:x}}}]"
        if self.o.escape:
            pattern += "|" + re2_escape(self.o.escape)
        need = pc.match_substring_regex(text, pattern)
        units = pc.utf8_length(text)  # UTF-16 units: a character beyond the BMP counts twice
        if np.frombuffer(text.buffers()[2] or b"", np.uint8).max(initial=0) >= 0xF0:
            units = pc.add(units, pc.count_substring_regex(text, "[\\x{10000}-\\x{10FFFF}]"))
        need = pc.fill_null(pc.or_(need, pc.greater(units, _MAX_QUOTE_CHECK)), False)
        if not pc.any(need).as_py():
            return text
        inner = pc.replace_substring(text, q, q + q)
        if self.o.escape and self.o.escape != q:
            inner = pc.replace_substring(inner, self.o.escape, self.o.escape * 2)
        return pc.if_else(need, pc.binary_join_element_wise(q, inner, q, ""), text)

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row (see :meth:`Encoder.encode`)."""
        if table.num_rows == 0:
            return []
        null = self.o.null_literal or ""
        cols = []
        for c, f in zip(table.columns, self.schema.fields):
            text, quotable = self._text(c, f.type)
            cols.append(pc.fill_null(self._quoted(text) if quotable else text, null))
        line = pc.binary_join_element_wise(*cols, self.o.delimiter) if len(cols) > 1 else cols[0]
        return line.cast(pa.binary()).to_pylist()
