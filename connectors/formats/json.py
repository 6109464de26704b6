"""The ``json`` format: one JSON object per message, fields matched to columns by name.

Decoding (vectorized): the payloads are joined with newlines and read by ``pyarrow.json`` with an
explicit schema in one call. Measured on 10,000 records of 7 fields (BIGINT, STRING,
DECIMAL(10,2), INT, TIMESTAMP(3), BOOLEAN, DOUBLE) on this machine: pyarrow.json ≈ 7.5 ms
single-threaded / ≈ 4.5 ms with threads, orjson per record + ``pa.array`` per column ≈ 10-11 ms
(and inexact: orjson parses every non-integer number to a binary float), stdlib ``json`` with
``parse_float=Decimal`` ≈ 62 ms. Arrow reads JSON numbers into ``decimal128`` from their text,
so DECIMAL is exact (``799.929496989092949698`` stays exact in DECIMAL(38, 18)).

Decimals are read with the column's integer digits and as many fraction digits as fit in 38,
then rounded HALF_UP to the column's scale (Flink's ``DecimalData.fromBigDecimal``); timestamps,
DATE and BYTES (base64, as Flink) are read as strings and converted: timestamps only when every
value is in the form of ``'json.timestamp-format.standard'`` (:mod:`.java_timestamp`: SQL
``2024-05-01 10:00:00.000``, ``Z`` after it for TIMESTAMP_LTZ; ISO-8601 with ``T``; never an
offset or epoch millis), extra fraction digits truncated.

A decoder narrowed by whole columns (the job leaves STRING columns unread: the benchmark's Q2,
AGG, WIN) first tries :mod:`.json_msgspec`, which takes only flat batches it decodes exactly as
Flink and costs less there; any other batch goes on to Arrow's reader
(:meth:`JsonDecoder._msgspec_reader`).

When the fast path fails (a bad record, or a value whose JSON kind Arrow will not convert: a
number into a STRING column, timestamp text in another form, ``"12"`` into an INT, a field name
written twice (:mod:`.json_fields`) ...), the batch
is decoded record by record with orjson (re-parsed with ``Decimal`` floats when a DECIMAL, FLOAT or
STRING column holds a non-integer number, so no binary float ever reaches a DECIMAL), applying
Flink's per-type conversion rules. That path names a bad record in a ``BadRecordError``.
An empty message (zero bytes) is no row, as a tombstone (Flink's deserializer returns null for
both): it is counted in ``tombstones``. A message is read up to the end of its first JSON value,
as Flink's streaming parser: what follows (``{"a":1}{"a":2}``, ``{"a":1} xyz``) is never read.
With ``'json.ignore-parse-errors' = 'true'`` (as Flink's ``JsonParserToRowDataConverters``) a
value that does not convert to its column type (``"four"`` for an INT, a string for a ROW, a bad
field inside a ROW) becomes NULL and the row is kept (not counted); a record that is not a JSON
object at all is skipped and counted in ``skipped``.

The fast path only accepts a batch it can prove is one row per payload: every payload starts
with ``{`` (after whitespace) and the joined text holds no NUL byte — so each payload yields at
least one row or an Arrow error, and the row count equal to the payload count then means exactly
one each — and the text is valid UTF-8 (Arrow does not validate strings). An empty or
whitespace-only payload, several JSON values in one payload, a top-level ``null`` (which crashes
Arrow) or invalid UTF-8 thus go to the slow path (a whitespace-only payload, ``null`` and invalid
UTF-8 are bad records there, as in Flink).

Leniencies: raw newlines inside a payload are treated as whitespace.

Encoding: see :mod:`.json_encode`.
"""

from __future__ import annotations

import decimal
import json as _json
import re

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
from streamsql.connectors.formats.common import (
    ARROW_ERRORS,
    Decoder,
    Rows,
    Where,
    bad_record,
    bool_option,
    combine,
    decode_bisect,
    decode_records,
    fix_types,
    select_payloads,
    try_fast,
    valid_utf8,
)
from streamsql.connectors.formats.common import read_type as _read_type
from streamsql.connectors.formats.convert import (
    JsonNumber,
    Misaligned,
    MissingField,
    RecordError,
    convert_field,
    json_int,
    make_converter,
    record_fault,
)
from streamsql.connectors.formats.json_depth import TooDeep, check_depth, deep_recursion, too_deep
from streamsql.connectors.formats.json_fields import Repeated, may_repeat, object_from_pairs, streamed_fields
from streamsql.connectors.formats.json_msgspec import MsgspecReader
from streamsql.connectors.formats.json_stream import replay, replay_deep

from streamsql.core.connector import OptionSpec, choice_option, flag_option, read_tree
from streamsql.core.elements import Batch
from streamsql.core.errors import ConfigError
from streamsql.core.types import Field, Schema, SqlType


def timestamp_standard_option(prefix: str, written: str) -> OptionSpec:
    """``'<prefix>.timestamp-format.standard'``: SQL (default) or ISO-8601 timestamp text.

    Args:
        prefix: the format name (``'json'``, ``'debezium-json'``).
        written: the HELP text after ``'timestamp text read and written: '``.
    """
    key = f"{prefix}.timestamp-format.standard"
    return choice_option(key, ("SQL", "ISO-8601"), "timestamp text read and written: " + written, "SQL")


def decimal_plain_option(prefix: str) -> OptionSpec:
    """``'<prefix>.encode.decimal-as-plain-number'``: DECIMAL as ``toPlainString()`` (else Flink's default).

    See :mod:`.decimal_text` for what Flink writes without it.
    """
    return flag_option(f"{prefix}.encode.decimal-as-plain-number",
                       "DECIMAL written with its scale in plain notation (default: trailing zeros "
                       "stripped, 1E+2, as Flink)")


OPTIONS = [
    flag_option("json.ignore-parse-errors",
                "instead of failing: NULL for a value that does not convert (row kept), skip (counted) "
                "invalid JSON"),
    flag_option("json.fail-on-missing-field", "fail when a column's field is absent (else NULL)"),
    timestamp_standard_option("json", "'yyyy-MM-dd HH:mm:ss.s' (SQL) or with 'T' (ISO-8601)"),
    decimal_plain_option("json"),
    # Flink's JsonFormatOptions MAP_NULL_KEY_MODE / MAP_NULL_KEY_LITERAL (writing a MAP's NULL key).
    # A map here never holds a NULL key (MAP[...] or MAP_FROM_ARRAYS with one fails the job,
    # docs/types.md), so every mode writes what Flink writes for the maps that reach a sink
    # (tests/functions/test_map_null_keys.py, against scripts/flink_map_null_keys.py's answers).
    choice_option("json.map-null-key.mode", ("FAIL", "DROP", "LITERAL"),
                  "a MAP's NULL key when writing: fail, drop the entry, or write the literal (maps here "
                  "never hold a NULL key: building one fails the job)", "FAIL", enum=True),
    OptionSpec("json.map-null-key.literal", default="null",
               description="the key written for a MAP's NULL key in 'LITERAL' mode"),
]

_MISSING = object()


def read_type(t: SqlType) -> pa.DataType:
    """The Arrow type the fast path reads a column as (before :func:`fix_types`)."""
    return _read_type(t, ("DATE", "BYTES"))


def read_schema(schema: Schema) -> pa.Schema:
    """The explicit schema handed to ``pyarrow.json``."""
    return pa.schema([pa.field(f.name, read_type(f.type)) for f in schema])


def join_lines(payloads: list[bytes]) -> bytes:
    """Newline-joined payloads, with newlines inside a payload turned into spaces."""
    data = b"\n".join(payloads)
    if data.count(b"\n") != len(payloads) - 1 or b"\r" in data:
        data = b"\n".join(
            p.replace(b"\r", b" ").replace(b"\n", b" ") if (b"\n" in p or b"\r" in p) else p for p in payloads
        )
    return data


_JSON_WS = b" \t\r\n"


def objects_only(data: bytes, payloads: list[bytes]) -> bool:
    """True when every payload starts with ``{`` (after JSON whitespace) and ``data`` has no NUL.

    ``data`` is ``join_lines(payloads)``: one line per payload. Arrow's reader skips blank lines,
    reads every value of a line as a row, treats a NUL byte as the end and crashes on a top-level
    ``null``; a payload that starts with ``{`` yields at least one row or an error, so with this
    check a row count equal to ``len(payloads)`` means exactly one row per payload.
    """
    if b"\x00" in data:
        return False
    if data[:1] == b"{":  # vectorized: the byte after every separator (the only newlines) is "{"
        a = np.frombuffer(data, np.uint8)
        if data[-1:] != b"\n" and bool((a[np.flatnonzero(a == 10) + 1] == 123).all()):
            return True
    return all(p.lstrip(_JSON_WS)[:1] == b"{" for p in payloads)


#: Bytes per numpy pass of :func:`object_lines` and :func:`has_constant`: their temporaries stay
#: small (a 2 MB comparison mask per batch cost more in fresh pages than the comparison itself).
SCAN_CHUNK = 1 << 18


def object_lines(payloads: list[bytes]) -> tuple[bytes, np.ndarray] | None:
    """``(data, bytes_of_data)``: the payloads as :func:`join_lines` joins them, or None.

    None when :func:`objects_only` is false. The common batch — no CR, LF or NUL inside a
    payload, each starting with ``{`` — is checked with one numpy scan for the newlines, the only
    ones being the separators (0.13 µs per 200-byte record with the join, against 0.27 for
    ``join_lines``, whose ``count`` is a scan of its own, and ``objects_only``); any other batch
    takes those two functions. The numpy view of ``data`` (uint8) serves :func:`has_constant`.
    """
    data = b"\n".join(payloads)
    a = np.frombuffer(data, np.uint8)
    if data[:1] == b"{" and data[-1:] != b"\n" and b"\r" not in data and b"\x00" not in data:
        lines = 0
        for lo in range(0, len(a), SCAN_CHUNK):
            chunk = a[lo:lo + SCAN_CHUNK]
            nl = np.flatnonzero(chunk == 10)
            if len(nl) and not bool((a[nl + (lo + 1)] == 123).all()):  # never the last byte: "}"
                lines = -1
                break
            lines += len(nl)
        if lines == len(payloads) - 1:
            return data, a
    data = join_lines(payloads)
    if not objects_only(data, payloads):
        return None
    return data, np.frombuffer(data, np.uint8)


def has_constant(a: np.ndarray) -> bool:
    """``b"NaN" in data or b"Infinity" in data`` for ``a``, the bytes of ``data`` (uint8).

    By numpy, a chunk at a time: the positions of ``N`` and ``I``, then the letters after each
    (0.04 µs per 200-byte record; CPython's two substring searches took 0.29).
    """
    for lo in range(0, len(a), SCAN_CHUNK):
        for word in (b"NaN", b"Infinity"):
            m = len(word)
            at = np.flatnonzero(a[lo:max(lo, min(lo + SCAN_CHUNK, len(a) - m + 1))] == word[0]) + lo
            for k in range(1, m):
                if not len(at):
                    break
                at = at[a[at + k] == word[k]]
            if len(at):
                return True
    return False


def read_rows(payloads: list[bytes], schema: pa.Schema, constants: bool = False,
              repeats: str | None = None) -> pa.Table | None:
    """Fast path: one row per payload read by Arrow, or None when that is not guaranteed.

    None when a payload is not a lone JSON object (see :func:`objects_only`), the text is not
    valid UTF-8, the row count differs or a payload is nested deeper than Jackson's limit
    (:mod:`.json_depth`); raises Arrow's error for invalid JSON. Arrow reads the
    bare tokens ``NaN`` and ``Infinity`` as numbers, which Flink's JSON parser rejects (the record
    is bad: compat case ``kafka_json_non_numeric_numbers``), so unless ``constants`` a batch
    holding either text goes to the slow path, which decides. With ``repeats`` (a
    :func:`repeats_pattern`), None too for a batch with a payload it matches (one that may name
    a field the read schema left out twice, which Arrow would not see).
    """
    lines = object_lines(payloads)
    if lines is None or not valid_utf8(lines[0]):
        return None
    data, a = lines
    if not constants and has_constant(a):
        return None
    if too_deep(data, payloads):  # Arrow reads it; Jackson (Flink) refuses it: the slow path decides
        return None
    if repeats is not None and line_matches(data, repeats):
        return None
    table = arrow_read(data, schema)
    return table if table.num_rows == len(payloads) else None


def loads_exact(v: bytes, reject_constants: bool = True, pairs_hook=None, raw_numbers: bool = True):
    r"""Parse ``v`` with stdlib json, non-integer numbers as Decimal.

    ``pairs_hook`` is the stdlib's ``object_pairs_hook`` (the ``json`` format keeps repeated
    field names: :func:`.json_fields.object_from_pairs`). ``raw_numbers``: numbers keep their text
    (:class:`~.convert.JsonNumber`, ``-0``), which is what the ``json`` format's streaming parser
    gives a STRING; ``debezium-json`` reads a Jackson tree, whose nodes do not. Strict UTF-8 (the stdlib lets
    UTF-8-encoded surrogates through) and no lone surrogate escapes (``"\ud800"``), which no
    Arrow string can hold.

    Raises:
        RecordError: for invalid JSON or text.
    """
    try:
        text = v.decode(_json.detect_encoding(v)) if isinstance(v, (bytes, bytearray)) else v
        obj = _json.loads(
            text, parse_float=JsonNumber if raw_numbers else decimal.Decimal,
            parse_int=json_int if raw_numbers else int,
            parse_constant=_reject_constant if reject_constants else None, object_pairs_hook=pairs_hook,
        )
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        msg = f"invalid JSON ({record_fault(e)})"
        raise RecordError(msg) from None
    if _SURROGATE_ESCAPE.search(text):
        try:
            _json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8")
        except UnicodeEncodeError:
            msg = "invalid JSON (lone surrogate escape in a string)"
            raise RecordError(msg) from None
    return obj


_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")
_FIRST = _json.JSONDecoder(parse_float=decimal.Decimal)


def first_value(v: bytes) -> bytes | None:
    """The bytes of the first JSON value of ``v`` (leading whitespace skipped), or None.

    Flink's JSON format reads a message with a streaming parser that stops at the end of the
    first object, so ``{"a":1}{"a":2}`` and ``{"a":1} xyz`` are the row ``a = 1`` and the rest is
    never read (compat cases ``kafka_json_concatenated``, ``kafka_json_trailing_garbage``). None
    when ``v`` does not start with a complete JSON value.
    """
    text = v.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip(" \t\r\n"))
    try:
        _, end = _FIRST.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None
    return text[start:end].encode("utf-8", "surrogateescape")


def arrow_read(data: bytes, schema: pa.Schema) -> pa.Table:
    """``pyarrow.json.read_json`` over newline-delimited objects with an explicit schema."""
    block = max(1 << 20, len(data) // 4 + 1)
    return pj.read_json(
        pa.py_buffer(data),
        read_options=pj.ReadOptions(use_threads=len(data) > (1 << 20), block_size=block),
        parse_options=pj.ParseOptions(explicit_schema=schema, unexpected_field_behavior="ignore"),
    )


def _reject_constant(name: str):
    msg = f"invalid JSON number {name}"
    raise ValueError(msg)


class RecordParser:
    """Slow path: one payload → one JSON object, numbers exact where exactness matters.

    An object holding a field name twice is a :class:`~.json_fields.Repeated` (which fields
    Flink reads from it: :mod:`.json_fields`).
    """

    def __init__(self, schema: Schema):
        self.exact_cols = [f.name for f in schema if f.type.name in ("DECIMAL", "STRING", "FLOAT")]
        # a -0 read into one of these (at any depth) keeps its sign or text, which orjson's int 0 loses
        self.signed_zero = any(_holds(f.type, _SIGNED_ZERO) for f in schema)

    def parse(self, v: bytes) -> dict:
        """The object in ``v``.

        Raises:
            RecordError: for invalid JSON or a top-level value that is not an object.
        """
        try:
            obj = orjson.loads(v)
        except orjson.JSONDecodeError:
            obj = self._exact(v)
        else:
            if isinstance(obj, dict) and (
                any(isinstance(obj.get(c), (float, dict, list)) for c in self.exact_cols)
                or may_repeat(v, obj)
                or (self.signed_zero and b"-0" in v and _INTEGER_MINUS_ZERO.search(v))  # orjson: 0
            ):
                obj = self._exact(v)
        if not isinstance(obj, dict):
            msg = f"expected a JSON object, got {type(obj).__name__}"
            raise RecordError(msg)
        return obj

    @staticmethod
    def _exact(v: bytes):
        if not v.strip():
            msg = "empty record"
            raise RecordError(msg)
        try:
            return loads_exact(v, pairs_hook=object_from_pairs)
        except RecordError:
            head = first_value(v)
            if head is None or head == v.strip():
                raise
            return loads_exact(head, pairs_hook=object_from_pairs)  # the rest is never read, as Flink


class RowConverter:
    """Slow path: a parsed JSON object → a tuple of column values (Flink's conversion rules).

    With ``lenient`` (``ignore-parse-errors``) a value that does not convert is NULL and the row
    is kept (see :func:`~.convert.make_converter`); ``iso``: the timestamp text standard is
    ISO-8601 (:mod:`.java_timestamp`).
    """

    def __init__(self, schema: Schema, fail_on_missing: bool, lenient: bool = False, iso: bool = False,
                 streamed: bool = False):
        self.schema = schema
        self.iso = iso
        self.fields = [(f.name, f.type, make_converter(f.type, lenient=lenient, iso=iso, streamed=streamed,
                                                       fail_on_missing=fail_on_missing))
                       for f in schema]
        self.index = {f.name: i for i, f in enumerate(schema)}
        self.fail_on_missing = fail_on_missing

    def convert(self, obj: dict) -> tuple:
        """The row tuple of a parsed JSON object (Flink's conversion rules).

        With ``streamed`` (the ``json`` format, lenient), a record whose object or array a
        converter rejects is read as Flink's parser walks it (:mod:`.json_stream`).

        Raises:
            RecordError: for a value that does not convert (unless lenient), a missing field.
            ValueError: (:class:`~.json_stream.Dropped`) for a record Flink drops.
        """
        try:
            if isinstance(obj, Repeated):
                return self._convert_streamed(obj)
            return self._convert(obj)
        except Misaligned:
            return replay(obj, self.schema, self.iso)

    def convert_plain(self, obj: dict) -> tuple:
        """The row of an object without a repeated name.

        Raises:
            Misaligned: a lenient converter rejected an object or array (see :meth:`convert`).
            RecordError: as :meth:`convert`.
        """
        return self._convert(obj)

    def _convert(self, obj: dict) -> tuple:
        out = []
        for name, t, conv in self.fields:
            v = obj.get(name, _MISSING)
            if v is _MISSING:
                if self.fail_on_missing:
                    msg = f"field '{name}' is missing"
                    raise MissingField(msg)
                out.append(None)
            elif v is None:
                out.append(None)
            else:
                out.append(convert_field(name, conv, v))
        return tuple(out)

    def _convert_streamed(self, obj: Repeated) -> tuple:
        """The row of an object with a repeated field name, read as Flink's streaming parser."""
        out: list = [None] * len(self.fields)
        settings = streamed_fields(obj, self.index)
        for i, name, v in settings:
            out[i] = None if v is None else convert_field(name, self.fields[i][2], v)
        if self.fail_on_missing and len(settings) < len(self.fields):
            seen = {name for _, name, _ in settings}
            missing = next(n for n, _, _ in self.fields if n not in seen)
            msg = f"field '{missing}' is missing"
            raise MissingField(msg)
        return tuple(out)


def _kept(t: SqlType, tree) -> SqlType | None:
    """What a narrowed decoder decodes of a column or field of type ``t``, or None for nothing.

    ``tree``: what the job reads of it (:func:`~streamsql.core.connector.read_tree`: None for
    all of it, ``_MISSING`` for nothing). A STRING nobody reads is left out; of a ROW, the fields
    read and those that can change the record (every field but an unread STRING), unless that
    leaves no field (the ROW is then decoded whole: it still fails a record where it is no object).
    """
    if tree is None:
        return t
    if t.name != "ROW":
        return None if tree is _MISSING and t.name == "STRING" else t
    sub = {} if tree is _MISSING else tree
    fields = [(n, k) for n, ft in t.fields if (k := _kept(ft, sub.get(n.lower(), _MISSING))) is not None]
    return SqlType.row(fields, t.nullable) if fields else t


def _dropped_names(schema: Schema, kept: list[Field]) -> set[str]:
    """The names of the fields (at any depth) in ``schema`` that ``kept`` (narrowed) leaves out."""
    out: set[str] = set()
    todo = [(schema.fields, dict((k.name, k.type) for k in kept))]
    while todo:
        fields, kf = todo.pop()
        for f in fields:
            name, t = (f.name, f.type) if isinstance(f, Field) else f
            if name not in kf:
                out.add(name)
                out.update(_all_names(t))
            elif t.name == "ROW" and kf[name].name == "ROW":
                todo.append((t.fields, dict(kf[name].fields)))
    return out


def _all_names(t: SqlType) -> set[str]:
    """Every ROW field name inside ``t`` (at any depth)."""
    out: set[str] = set()
    todo = [t]
    while todo:
        x = todo.pop()
        if x.name == "ROW":
            out.update(n for n, _ in x.fields)
        todo += x.children
    return out


def repeats_pattern(names: set[str]) -> str:
    r"""An RE2 pattern for :func:`line_matches`: a line holding one of ``names``, quoted, twice.

    Over bytes (Arrow's RE2 reads binary as Latin-1), so each UTF-8 byte of a name other than an
    ASCII letter or digit is written ``\xHH``. A name counts as written, not in an escaped form
    (``"\u0061"`` for ``"a"``), as with the batch-wide count this replaced.
    """
    def quoted(name: str) -> str:
        return "".join(chr(b) if chr(b).isalnum() and b < 128 else f"\\x{b:02x}"
                       for b in b'"' + name.encode() + b'"')

    return "|".join(f"{quoted(n)}[^\\n]*{quoted(n)}" for n in sorted(names))


def line_matches(data: bytes, pattern: str) -> bool:
    """True when a line of ``data`` (newline-separated payloads) matches ``pattern`` (RE2).

    One pass of Arrow's RE2 over the batch, in place: about 0.5 CPU-s per 1M 330-byte records
    for 8 names, where a ``bytes.count`` per name took 1.4 (and a batch-wide count could not
    tell one record naming a field three times from three records naming it once each).

    Raises:
        pyarrow.ArrowInvalid: RE2 refuses the pattern (not seen up to 20,000 names).
    """
    offsets = pa.py_buffer(np.array([0, len(data)], np.int64))
    one = pa.Array.from_buffers(pa.large_binary(), 1, [None, offsets, pa.py_buffer(data)])
    return bool(pc.match_substring_regex(one, pattern)[0].as_py())


def _array_objects(v: bytes) -> list[dict]:
    """The objects of a record that is a JSON array: one row each, as Flink's JSON format.

    Flink 2.3's ``JsonRowDataDeserializationSchema`` emits a row per element of a top-level array
    (``[]``: none); an element that is not an object makes the whole record bad ("Illegal JSON
    object data"), with ``'json.ignore-parse-errors'`` none of its rows is kept
    (``scripts/flink_json_arrays.py``).

    Raises:
        RecordError: a record whose array holds another value.
    """
    objs = RecordParser._exact(v)  # noqa: SLF001  (numbers read exactly: an array is rare)
    if not isinstance(objs, list) or not all(isinstance(o, dict) for o in objs):
        msg = "Illegal JSON object data: an element of the record's array is not an object"
        raise RecordError(msg)
    return objs


def _holds_repeated(v) -> bool:
    """True when ``v`` is or holds (at any depth) an object with a repeated field name."""
    todo = [v]
    while todo:
        x = todo.pop()
        if isinstance(x, Repeated):
            return True
        if isinstance(x, dict):
            todo += [y for y in x.values() if isinstance(y, (dict, list))]
        elif isinstance(x, list):
            todo += [y for y in x if isinstance(y, (dict, list))]
    return False


def _has_row(t: SqlType) -> bool:
    """True when ``t`` is or holds a ROW (as a field, an element or a map's key or value)."""
    return _holds(t, ("ROW",))


#: The types a JSON integer ``-0`` reads differently into than the integer 0: a STRING its text
#: ``-0``, a FLOAT or DOUBLE -0.0 (Flink's parser-based ``json`` format, Flink 2.3:
#: tests/connectors/negative_zero_flink.json), a DECIMAL as the rest of its record (exact).
_SIGNED_ZERO = ("DECIMAL", "STRING", "FLOAT", "DOUBLE")
#: The integer ``-0`` (no fraction or exponent follows), which orjson reads as the int 0.
_INTEGER_MINUS_ZERO = re.compile(rb"-0(?![0-9.eE])")


def _holds(t: SqlType, names: tuple[str, ...]) -> bool:
    """True when ``t`` is or holds (a field, an element, a map's key or value) a type named in ``names``."""
    return t.name in names or any(_holds(c, names) for c in t.children)


class JsonDecoder(Decoder):
    """See module docstring."""

    fmt = "json"
    empty_is_no_row = True

    def __init__(self, schema: Schema, options: dict[str, str], table: str | None = None):
        super().__init__(schema, options)
        self.ignore_errors = bool_option(options, "json.ignore-parse-errors", False, table)
        self.fail_on_missing = bool_option(options, "json.fail-on-missing-field", False, table)
        if self.ignore_errors and self.fail_on_missing:
            msg = (
                f"{'Table ' + repr(table) + ': ' if table else ''}'json.fail-on-missing-field' "
                "and 'json.ignore-parse-errors' cannot both be 'true'"
            )
            raise ConfigError(msg)
        self.iso = options.get("json.timestamp-format.standard", "SQL") == "ISO-8601"
        self.read_schema = read_schema(schema)
        self.parser = RecordParser(schema)
        self.converter = RowConverter(schema, self.fail_on_missing, self.ignore_errors, self.iso, True)
        self._full: tuple[RowConverter, list[int]] | None = None  # set by narrow()
        self._repeats: str | None = None  # set by narrow(): a payload naming a field left out twice
        self._wide: tuple[pa.Schema, Schema, list[int]] | None = None  # set by narrow(): _read_wide's
        self._wide_now = False  # this decode() still tries the wide read (not after it failed once)
        # Arrow reads an absent nested field as NULL, as a null one: with 'json.fail-on-missing-field'
        # a ROW inside a column (which Flink checks as the top level) is checked record by record
        self._nested_rows = self.fail_on_missing and any(_has_row(f.type) for f in schema)
        self._skip_fast = 0  # batches to decode on the slow path after a lenient-conversion fallback
        self._msg: MsgspecReader | None = None  # set by narrow(): the first fast path of a narrowed decoder
        self._msg_now = False  # this decode() still tries it (not after it failed once)
        # set by project(): the columns the query reads, the row type Flink's projection pushdown
        # gives its converter (which a record past Jackson's limit is walked with: _replay_deep)
        self._projected: Schema | None = None

    def narrow(self, read: frozenset[str]) -> None:
        """Keep the columns read and those whose value can change a record (see :meth:`Decoder.narrow`).

        A STRING column takes any JSON value (Flink's string converter: a string's text, any
        other value's JSON text), so it never makes a record bad nor changes another column;
        every other column stays decoded, also under ``'json.ignore-parse-errors'``: there a
        value that does not convert is NULL, but an object or array where a scalar, a ROW, an
        ARRAY or a MAP is expected sends Flink's reader out of step (:mod:`.json_stream`), which
        drops the record or NULLs the columns after it (compat case
        ``kafka_json_container_into_scalar_ignored``). What makes the whole record bad is checked
        on the whole payload whichever columns are decoded: invalid JSON or UTF-8 (also inside an
        unread field: compat case ``kafka_json_invalid_utf8_unused_field``), ``NaN``, a value
        that is not an object, and the nesting the parser takes (the parser stays the one of
        every column: a STRING or DECIMAL column holding a container or a fraction is parsed
        again exactly, :class:`RecordParser`). With ``'json.fail-on-missing-field'`` every column
        is decoded (an absent field fails the record). Left out of Arrow's read, ``auction,
        bidder, price, date_time`` of the benchmark's seven bid columns cost ~15 % less than all
        seven, but the search for an unread name written twice that this needs costs more; so
        when only whole columns are left out the fast path reads them and drops them after the
        read (:meth:`_read_wide`), and the narrow read is the fallback.
        """
        if self.fail_on_missing:
            return
        tree = read_tree(read)
        kept = [Field(f.name, t) for f in self.schema
                if (t := _kept(f.type, tree.get(f.name.lower(), _MISSING))) is not None]
        if not kept or kept == list(self.schema):
            return
        # an object with a repeated name, or one Flink's lenient reader walks out of step, is read
        # with the full schema: Flink counts every field toward each ROW's arity, also the unread
        # STRINGs left out here (n_dup_field_unread: {"b":"x","b":"y","b":"z","b":"w","a":9} into
        # ROW<a, b, c, d> reading a is NULL, as the four b's fill the count)
        full = self._full[0] if self._full else self.converter
        self._full = (full, [full.schema.names.index(f.name) for f in kept])
        # Arrow ignores a field the read schema lacks, so a repeated name of a field left out
        # would pass the batch path unseen: a batch with a payload naming one twice goes per
        # record (where the name's repetition is found and counted)
        names = _dropped_names(full.schema, kept)
        self._repeats = repeats_pattern(names) if names else None
        # only whole columns left out: the fast path reads them too and drops them after the read
        # (:meth:`_read_wide`), which needs no search for repeated names
        every = full.schema.fields
        if all(f in every for f in kept):
            self._wide = (read_schema(full.schema), full.schema, [every.index(f) for f in kept])
        else:  # a ROW column narrowed: its fields are left out of the read
            self._wide = None
        self.schema = Schema(kept)
        self.arrow_schema = self.schema.to_arrow()
        self.read_schema = read_schema(self.schema)
        self._msg = self._msgspec_reader(full.schema) if self._wide is not None else None
        self.converter = RowConverter(self.schema, self.fail_on_missing, self.ignore_errors, self.iso, True)

    def project(self, read: frozenset[tuple[str, ...]]) -> None:
        """The columns read: the row type of a record past Jackson's limit (:meth:`Decoder.project`).

        Flink's ``JsonParserToRowDataConverters`` converter of the projected type counts only
        those columns (``scripts/flink_json_nesting.py``: a filesystem source, the deep field
        unread, drops the record that, read, is a row with it NULL).
        """
        tree = read_tree(read)
        base = self._full[0].schema if self._full else self.schema
        self._projected = Schema([f for f in base if f.name.lower() in tree])

    def _msgspec_reader(self, full: Schema) -> MsgspecReader | None:
        """The msgspec fast path for records of ``full`` giving :attr:`schema`'s columns, or None.

        Only for a decoder narrowed by whole columns (STRING columns no one reads: Q2, AGG and WIN
        read 4 of the benchmark's 7 bid columns), where msgspec checks the unread ones without
        copying them: 3.0 against 3.3 CPU-s per 1M events on Q2's whole run, while for all 7
        columns, each built from Python objects, it cost more than Arrow's reader (Q0 5.9 against
        5.1; benchmarks/README.md, session 32). None when ``full`` has a column of a type it does
        not decode (:meth:`~.json_msgspec.MsgspecReader.takes`) or with
        ``'json.fail-on-missing-field'`` (whose check of absent fields is the Arrow path's).
        """
        if self.fail_on_missing or not MsgspecReader.takes(full):
            return None
        return MsgspecReader(full, self.schema, self.read_schema, self.iso)

    def decode(self, values: list[bytes | None], where: Where) -> Batch:
        """Decode ``values`` into one batch (see :meth:`Decoder.decode`)."""
        idx = self._present(values)
        payloads, pos = select_payloads(values, idx)
        if not payloads:
            return self.empty()

        def fast(lo: int, hi: int):
            if self._nested_rows:
                return None
            table = try_fast(self._fast, payloads[lo:hi])
            if table is None:
                return None
            if self.fail_on_missing:
                self._check_missing(table, payloads, pos, lo, where)
            return Batch(table), pos[lo:hi]

        def slow(lo: int, hi: int):
            return self._slow(payloads, pos, lo, hi, where)

        if self._skip_fast > 0:
            self._skip_fast -= 1
            batch, self.source_index = slow(0, len(payloads))
            return batch
        skipped = self.skipped
        self._wide_now = self._wide is not None
        self._msg_now = self._msg is not None
        batch, self.source_index, n_slow = decode_bisect(len(payloads), fast, slow)
        if n_slow * 2 > len(payloads) and self.skipped == skipped:
            self._skip_fast = 8  # the data needs lenient conversions: don't retry Arrow every batch
        return batch

    def _present(self, values: list[bytes | None]) -> list[int] | None:
        """Indices of non-tombstone payloads, or None when there is no tombstone."""
        if None not in values:
            return None
        idx = [i for i, v in enumerate(values) if v is not None]
        self.tombstones += len(values) - len(idx)
        return idx

    def _fast(self, payloads: list[bytes]) -> pa.Table | None:
        msg = self._msg_now
        if msg:
            table = self._msg.read(payloads)
            if table is not None:
                return table
            self._msg_now = False  # as the wide read below: the rest of this decode() goes without
        table = self._read_arrow(payloads)
        if msg and table is not None:
            # Arrow took a batch msgspec did not (an absent or extra field, an escape, a number in
            # a STRING ...): such data takes Arrow's path from now on, as the wide read's switch
            self._msg = None
        return table

    def _read_arrow(self, payloads: list[bytes]) -> pa.Table | None:
        """The Arrow fast path: :meth:`_read_wide` first (narrowed by whole columns), then the narrow read."""
        wide = self._wide_now
        if wide:
            table = self._read_wide(payloads)
            if table is not None:
                return table
            # a bad record, or an unread field the wide read refuses: the narrow read decides this
            # batch and the parts the bisection splits it into (each read once, as before)
            self._wide_now = False
        table = read_rows(payloads, self.read_schema, repeats=self._repeats)
        table = None if table is None else fix_types(table, self.schema, self.iso)
        if wide and table is not None:
            # the narrow read took a batch the wide one did not: an unread STRING field holds a
            # value Arrow does not read as text, or is named twice; such data takes this path on
            self._wide = None
        return table

    def _read_wide(self, payloads: list[bytes]) -> pa.Table | None:
        """The fast path of a decoder narrowed by whole columns: every column read, the kept ones kept.

        Arrow parses every field of every record also when the read schema leaves some out (it
        checks the syntax Flink's parser checks), so reading an unread STRING column costs only
        its copy into a column, while leaving it out costs a search of every record for its name
        written twice (:func:`line_matches`), which Arrow sees itself on a column it reads: on the
        benchmark's bids (3 of 7 columns read), 1.63-1.73 CPU-µs per record read whole, 1.80-1.92
        left out and searched (benchmarks/README.md, session 31). A batch read whole is one the narrow
        read takes with the same values in the kept columns; a batch it fails is left to the
        narrow read (None: :meth:`_fast` goes on).
        """
        read, full, keep = self._wide
        try:
            table = read_rows(payloads, read)
            if table is not None:
                table = fix_types(table, full, self.iso)
        except ARROW_ERRORS:
            return None
        return None if table is None else table.select(keep)

    def _check_missing(self, table: pa.Table, payloads, pos, lo: int, where: Where) -> None:
        """Fail on the first row whose NULL comes from an absent field (fast path)."""
        mask = None
        for c in table.columns:
            if c.null_count:
                m = c.is_null()
                mask = m if mask is None else pc.or_(mask, m)
        if mask is None:
            return
        for j in np.flatnonzero(combine(mask).to_numpy(zero_copy_only=False)):
            obj = self.parser.parse(payloads[lo + j])
            for f in self.schema:
                if f.name not in obj:
                    raise bad_record(
                        self.fmt, where(int(pos[lo + j])), f"field '{f.name}' is missing", payloads[lo + j]
                    )

    def _slow(self, payloads, pos, lo: int, hi: int, where: Where):
        if not all(payloads[lo:hi]):  # an empty message is no row, as Flink's deserializer
            keep = [j for j in range(lo, hi) if payloads[j]]
            self.tombstones += hi - lo - len(keep)
            payloads, pos, lo, hi = [payloads[j] for j in keep], pos[keep], 0, len(keep)
        return decode_records(
            self, payloads, pos, lo, hi, where, self._parse_row, self.ignore_errors
        )

    def _parse_row(self, v: bytes) -> tuple:
        """One record's row (Flink's rules); deep records as Jackson takes them (:mod:`.json_depth`).

        Raises:
            RecordError: a bad record (:class:`~.json_depth.TooDeep` past Jackson's nesting limit;
                :class:`~.convert.Dropped` for one Flink's lenient reader drops).
        """
        with deep_recursion(v):
            try:
                check_depth(v)
            except TooDeep:
                if not self.ignore_errors:
                    raise
                return self._replay_deep(v)
            return self._parse_row_within_limit(v)

    def _replay_deep(self, v: bytes) -> tuple:
        """A record past Jackson's limit, ignore-parse-errors: Flink's walk over its projected columns."""
        projected = self._projected or (self._full[0].schema if self._full else self.schema)  # not narrowed
        row = dict(zip(projected.names, replay_deep(v, projected, self.iso)))
        return tuple(row.get(name) for name in self.schema.names)

    def _parse_row_within_limit(self, v: bytes) -> tuple | Rows:
        if v.lstrip()[:1] == b"[":
            return Rows(self._row_of(obj) for obj in _array_objects(v))
        return self._row_of(self.parser.parse(v))

    def _row_of(self, obj: dict) -> tuple:
        """The row of one parsed record object."""
        if self._full is None:
            return self.converter.convert(obj)
        if not _holds_repeated(obj):
            try:
                return self.converter.convert_plain(obj)
            except Misaligned:
                pass
        full, kept = self._full
        row = full.convert(obj)
        return tuple(row[i] for i in kept)
