"""Flink's per-value conversion rules (JSON/CSV slow path) and how a rejected value is quoted.

A converter turns one parsed value (JSON value, CSV field text) into the Python value of a column
type, or raises :class:`RecordError` with the reason; :func:`from_rows` builds the Arrow table of
the converted rows. The decoders use these only on the slow path that locates bad records.
"""

from __future__ import annotations

import datetime as _dt
import decimal
from typing import Any, Callable

import pyarrow as pa
from streamsql.connectors.formats.java_text import (
    Base64Error,
    float32_of,
    java_trim,
    parse_base64,
    parse_boolean,
    parse_decimal,
    parse_double,
    parse_float,
    parse_int,
    parse_iso_date,
    parse_sql_date,
    parse_sql_time,
)
from streamsql.connectors.formats.java_timestamp import parse_timestamp
from streamsql.connectors.formats.json_fields import Repeated, streamed_fields

from streamsql.core.errors import ConfigError
from streamsql.core.float_text import java_float_text
from streamsql.core.java_hash import HASHED_TYPES, internal_hash, reorder
from streamsql.core.types import Schema, SqlType

_EPOCH_DATE = _dt.date(1970, 1, 1)
_DEC_CTX = decimal.Context(prec=200, rounding=decimal.ROUND_HALF_UP)


class RecordError(ValueError):
    """Raised by the slow path for one undecodable record; the message is the reason."""


#: What a record can make Python raise while it is parsed or converted (beyond RecordError):
#: nesting deeper than the stack (RecursionError), a value too large for memory or for a
#: conversion (MemoryError, OverflowError, ValueError such as int's 4300-digit limit), text that
#: is not what it claims (UnicodeError). Each is that record's fault: a bad record, never a crash.
#: Other exceptions (TypeError, AttributeError, ...) are bugs and are not caught.
RECORD_FAULTS = (RecursionError, MemoryError, OverflowError, ValueError, UnicodeError)


def record_fault(e: BaseException) -> str:
    """The reason a bad record gives for one of :data:`RECORD_FAULTS`, in users' words."""
    if isinstance(e, RecordError):
        return str(e)
    if isinstance(e, RecursionError):
        return "nested too deeply"
    if isinstance(e, MemoryError):
        return "too large to decode"
    text = str(e)
    if "integer string conversion" in text:
        return "a number with more than 4300 digits"
    if isinstance(e, UnicodeError):
        return "not valid UTF-8 text"
    return text or "cannot be decoded"


def excerpt(value: bytes | str | None, limit: int = 120) -> str:
    r"""A short printable excerpt of a record for error messages.

    Non-printable characters are escaped as ``repr`` does (``\n``, ``\x00``, ``\u2028``) and
    bytes that are not UTF-8 show as ``\xff``, so no control byte reaches a terminal or log.
    """
    if value is None:
        return "<null>"
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value[: limit * 4 + 4])  # enough for ``limit`` characters
        text = value.decode("utf-8", "backslashreplace")
    else:
        text = str(value)[: limit * 4 + 4]
    if not text.isprintable():
        text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


def quoted(value: str, limit: int = 40) -> str:
    """``excerpt`` in quotes, for a value inside a reason (escaped once, unlike ``repr(excerpt)``)."""
    text = excerpt(value, limit)
    q = '"' if "'" in text and '"' not in text else "'"
    return q + text + q


# --------------------------------------------------------------------------------------------
# per-value converters (slow path), Flink's JSON/CSV conversion rules


class JsonNumber(decimal.Decimal):
    """A JSON number with a fraction or an exponent, exact, and its text as written.

    Flink's STRING of a JSON number is the token's text (``0.1e-7``, ``1.50e0``, ``1E+2``),
    which ``str()`` of the Decimal is not (``1E-8``, ``1.50``, ``1E+2``): :func:`_text`
    gives the text. The slow path parses numbers with this (:func:`~.json.loads_exact`).
    """

    def __new__(cls, text: str):  # noqa: D102  (json.loads's parse_float: the number's text)
        self = super().__new__(cls, text)
        self.text = text
        return self


class NegativeZero(int):
    """The JSON integer ``-0``: 0, whose text (Jackson's getText, a STRING's value) is ``-0``."""

    text = "-0"


def json_int(text: str) -> int:
    """``json.loads``'s ``parse_int``: the integer, ``-0`` kept apart (:class:`NegativeZero`)."""
    return NegativeZero(0) if text == "-0" else int(text)


def _text(v: Any) -> str:
    """The text of a JSON scalar as Jackson's getText(): a number's as written.

    A number parsed without its text (``debezium-json`` reads a Jackson tree, whose non-integer
    numbers are doubles) is Java's ``Double.toString`` of it (``1.0E-8``, ``1.5``, ``100.0``).
    """
    if isinstance(v, str):
        return v
    if isinstance(v, (JsonNumber, NegativeZero)):
        return v.text
    if isinstance(v, (float, decimal.Decimal)):  # a Jackson tree's DoubleNode (debezium-json)
        return _scalar_json(v)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (dict, list)):
        msg = f"expected a scalar, got a JSON {'object' if isinstance(v, dict) else 'array'}"
        raise RecordError(msg)
    return str(v)


class _Text(str):
    """Literal JSON text on :func:`json_text`'s work list (a plain ``str`` there is a value)."""


def json_text(v: Any) -> str:
    """Compact JSON text of a parsed value (numbers keep their exact text via Decimal).

    Without recursion, so a value nested as deep as the parser takes has a text: a STRING
    column never makes a record bad (Flink's string converter writes any JSON value's text).
    Recursive, a ~500-deep array failed with RecursionError, two Python frames a level.
    """
    out: list[str] = []
    todo: list[Any] = [v]
    while todo:
        x = todo.pop()
        if type(x) is _Text:
            out.append(x)
        elif isinstance(x, dict):
            items: list[Any] = [_Text("}")]
            for i, (k, y) in enumerate(reversed(x.items())):
                items += [y, _Text(("" if i == len(x) - 1 else ",") + _scalar_json(k) + ":")]
            todo += items if x else [_Text("{}")]
            if x:
                todo.append(_Text("{"))
        elif isinstance(x, list):
            todo.append(_Text("]"))
            for i in range(len(x) - 1, -1, -1):
                todo.append(x[i])
                if i:
                    todo.append(_Text(","))
            todo.append(_Text("["))
        else:
            out.append(_scalar_json(x))
    return "".join(out)


def _scalar_json(v: Any) -> str:
    """JSON text of a value that is not a container."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        import json as _json

        return _json.dumps(v, ensure_ascii=False)
    if isinstance(v, (float, decimal.Decimal)):  # Jackson's tree holds a double (DoubleNode)
        return java_float_text(pa.array([float(v)], pa.float64())).to_pylist()[0]
    return str(int(v)) if isinstance(v, int) else str(v)


_INT_RANGE = {"TINYINT": 2**7, "SMALLINT": 2**15, "INT": 2**31, "BIGINT": 2**63}


def make_converter(
    t: SqlType, from_text: bool = False, lenient: bool = False, iso: bool = False, streamed: bool = False,
    fail_on_missing: bool = False,
) -> Callable[[Any], Any]:
    """A function converting one parsed value to the Python value Arrow builds ``t`` from.

    The input is a JSON value (or a str when ``from_text``: a CSV field); timestamps and dates come
    out as ints (epoch units / days; a TIME microseconds of the day). Timestamps are text in the formats of
    :mod:`.java_timestamp`: the SQL standard, or ISO-8601 with ``iso`` (JSON only; CSV trims the
    text and always uses SQL). A JSON object with a repeated field name
    (:class:`~.json_fields.Repeated`) gives a ROW the fields Flink's streaming parser reads.

    With ``lenient`` (``'<format>.ignore-parse-errors' = 'true'``) a value that does not
    convert becomes None (NULL) instead, at every level (a ROW's field, an ARRAY's
    element, a MAP's value; a MAP key that does not convert makes the whole MAP NULL, as an
    Arrow map key cannot be NULL), as Flink's JSON/CSV converters wrap each value's converter
    (``wrapIntoNullableConverter`` / ``createNullableConverter``: any error → null). With
    ``streamed`` as well (the ``json`` format, whose parser is then left inside the value:
    :mod:`.json_stream`), a rejected JSON object or array raises :class:`Misaligned` instead.
    With ``fail_on_missing`` (``'json.fail-on-missing-field'``) an object read as a ROW, at any
    depth (also an ARRAY's element, a MAP's value), must name every field of the ROW, as Flink's
    row converter checks each nested row (``Some field is missing in the JSON data.``).

    Raises (from the returned function, unless ``lenient``):
        RecordError: with a reason naming the expected type.
    """
    conv = _converter(t, from_text, lenient, iso, streamed, fail_on_missing)
    return _nulling(conv, streamed) if lenient else conv


def _nulling(conv: Callable[[Any], Any], streamed: bool = False) -> Callable[[Any], Any]:
    """``conv`` with a record fault turned into None (Flink's ignore-parse-errors per value).

    With ``streamed``, a rejected object or array raises :class:`Misaligned` (see
    :func:`make_converter`).
    """

    def nulling(v):
        try:
            return conv(v)
        except Dropped:
            raise
        except RECORD_FAULTS:
            if streamed and isinstance(v, (dict, list)):
                raise Misaligned from None
            return None

    return nulling


class Dropped(RecordError):
    """Flink's walk ran past the end of the record (its converter throws): the record is no row.

    Under ``'json.ignore-parse-errors'`` such a value is not NULL (:func:`_nulling` passes it on):
    the record is skipped (counted); without the option it is a bad record as any other.
    """

    def __init__(self, msg: str = "Flink's lenient reader walks past the end of this record (an object "
                                  "or array where another type is expected) and drops it"):
        super().__init__(msg)


class MissingField(RecordError):
    """An absent field under ``'json.fail-on-missing-field'``.

    No option skips such a record: Flink refuses that option with ``'json.ignore-parse-errors'``.
    """


class Misaligned(Exception):  # noqa: N818  (a signal, not an error)
    """A lenient ``json`` converter rejected an object or array.

    The record is then read again as Flink's parser walks it (:mod:`.json_stream`).
    """


def _converter(t: SqlType, from_text: bool, lenient: bool, iso: bool, streamed: bool,
               fail_on_missing: bool = False) -> Callable[[Any], Any]:
    """The converter of :func:`make_converter`, strict at this level."""
    n = t.name
    if t.is_composite:
        return _composite_converter(t, from_text, lenient, iso, streamed, fail_on_missing)
    if n == "STRING":

        def conv(v):
            if isinstance(v, str):
                return v
            if isinstance(v, (dict, list)):
                return json_text(v)
            return _text(v)

        return conv
    if n in _INT_RANGE:
        lim = _INT_RANGE[n]

        def conv(v):
            if isinstance(v, bool):
                msg = f"cannot convert {_text(v)} to {n}"
                raise RecordError(msg)
            if isinstance(v, int):
                x = v
            elif isinstance(v, (float, decimal.Decimal)) and not from_text:
                if n in ("TINYINT", "SMALLINT"):  # Flink: Byte/Short.parseXxx of the number's text
                    msg = f"cannot convert {_text(v)} to {n}"
                    raise RecordError(msg)
                x = int(v)  # Jackson's getIntValue()/getLongValue(): truncates
            else:
                try:
                    x = parse_int(_text(v))  # Java's parseInt (no "1_000")
                except ValueError:
                    msg = f"cannot convert {quoted(_text(v))} to {n}"
                    raise RecordError(msg) from None
            if not -lim <= x < lim:  # named as written: 1e300 or 99999999999999999999999, not int(double)
                msg = f"{_text(v)} is out of range for {n}"
                raise RecordError(msg)
            return x

        return conv
    if n in ("FLOAT", "DOUBLE"):
        single = n == "FLOAT"

        def conv(v):
            if isinstance(v, bool):
                msg = f"cannot convert {_text(v)} to {n}"
                raise RecordError(msg)
            if isinstance(v, NegativeZero):  # the json format's parser: -0 is the double -0.0 (Flink 2.3)
                return -0.0
            if isinstance(v, (int, float, decimal.Decimal)):  # FLOAT: Jackson's getFloatValue, one rounding
                return float32_of(float(v), None if isinstance(v, float) else v) if single else float(v)
            try:  # Java's parseDouble / parseFloat ("1d", "NaN"; not "inf")
                return parse_float(_text(v)) if single else parse_double(_text(v))
            except ValueError:
                msg = f"cannot convert {quoted(_text(v))} to {n}"
                raise RecordError(msg) from None

        return conv
    if n == "BOOLEAN":

        def conv(v):
            if isinstance(v, bool):
                return v
            return parse_boolean(_text(v))  # Flink: Boolean.parseBoolean, so "1" and "yes" are false

        return conv
    if n == "DECIMAL":
        p, s = t.precision or 10, t.scale or 0
        q = decimal.Decimal(1).scaleb(-s)
        lim = decimal.Decimal(10) ** (p - s)

        def conv(v):
            if isinstance(v, bool):
                msg = f"cannot convert {_text(v)} to {t.sql()}"
                raise RecordError(msg)
            if isinstance(v, float):  # only when exact text was unavailable
                v = repr(v)
            try:  # JSON text: new BigDecimal(text.trim()); CSV: new BigDecimal(text)
                if isinstance(v, str):
                    d = parse_decimal(v if from_text else java_trim(v))
                else:
                    d = decimal.Decimal(v)
            except (decimal.InvalidOperation, TypeError, ValueError):
                msg = f"cannot convert {quoted(_text(v))} to {t.sql()}"
                raise RecordError(msg) from None
            if not d.is_finite():
                msg = f"cannot convert {d} to {t.sql()}"
                raise RecordError(msg)
            if d.copy_abs() >= lim:  # before rounding: quantize cannot hold more than 200 digits
                return None  # Flink: a value that does not fit the precision becomes NULL
            d = d.quantize(q, context=_DEC_CTX)
            return None if d.copy_abs() >= lim else d  # rounding may carry it over the precision

        return conv
    if n == "DATE":
        parse_date = parse_sql_date if from_text else parse_iso_date  # CSV: Date.valueOf; JSON: ISO

        def conv(v):
            try:
                return (parse_date(_text(v)) - _EPOCH_DATE).days
            except ValueError:
                msg = f"cannot convert {quoted(_text(v))} to DATE"
                raise RecordError(msg) from None

        return conv
    if n == "TIME":  # CSV: cut to the type's precision, as Flink's CSV reader (JSON keeps milliseconds)
        unit = 10 ** (6 - min(t.precision or 0, 3)) if from_text else 1

        def conv(v):
            try:
                return parse_sql_time(_text(v)) // unit * unit
            except ValueError:
                msg = f"cannot convert {quoted(_text(v))} to {t.sql()}"
                raise RecordError(msg) from None

        return conv
    if n in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        p = t.precision or 0
        per_unit = 1 if p > 6 else 1000 if p > 3 else 1_000_000  # ns per ns / µs / ms (types.py)
        ltz = n == "TIMESTAMP_LTZ"

        def conv(v):
            if not isinstance(v, str):  # Flink parses a number's text too: never epoch millis
                msg = f"cannot convert {_text(v)} to {t.sql()} (a timestamp is text)"
                raise RecordError(msg)
            try:  # CSV: LocalDateTime.parse(text.trim(), SQL format); JSON: the standard's format
                ns = parse_timestamp(java_trim(v) if from_text else v, iso and not from_text, ltz)
            except ValueError as e:
                msg = f"cannot convert {quoted(v)} to {t.sql()} ({e})"
                raise RecordError(msg) from None
            epoch = ns // per_unit  # floored, as Flink's epoch millis
            if not -(2**63) <= epoch < 2**63:  # the int64 an Arrow timestamp holds
                held = " (years 1677..2262 in nanoseconds here)" if p > 6 else ""
                msg = f"cannot convert {quoted(v)} to {t.sql()} (out of range{held})"
                raise RecordError(msg)
            return epoch

        return conv
    if n == "BYTES":

        def conv(v):
            if isinstance(v, str):
                try:
                    return parse_base64(v)  # base64 in JSON and CSV, as Flink (Jackson's rules)
                except Base64Error as e:
                    msg = f"cannot base64-decode {quoted(v)} to BYTES ({e})"
                    if e.past_end and not from_text:  # Jackson's JSON parser read the closing quote
                        raise Dropped(msg + "; Flink's lenient reader is then out of step and drops "
                                            "the record") from None
                    raise RecordError(msg) from None
            msg = f"cannot convert {_text(v)} to BYTES"
            raise RecordError(msg)

        return conv
    msg = f"Unsupported type {t.sql()} for this format"
    raise ConfigError(msg)


def _composite_converter(
    t: SqlType, from_text: bool, lenient: bool, iso: bool, streamed: bool, fail_on_missing: bool = False
) -> Callable[[Any], Any]:
    """The converter of a composite type: JSON value → the Python value Arrow builds ``t`` from.

    ROW from a JSON object (fields by name, absent ones NULL), ARRAY from a JSON array, MAP from
    a JSON object (keys converted from their text); ``lenient`` children, ``fail_on_missing``
    ROWs (see :func:`make_converter`).
    """
    if from_text:
        msg = f"Unsupported type {t.sql()} for this format"
        raise ConfigError(msg)
    children = [make_converter(c, lenient=lenient, iso=iso, streamed=streamed,
                               fail_on_missing=fail_on_missing) for c in t.children]

    def child(conv, v):
        return None if v is None else conv(v)

    if t.name == "ROW":
        fields = list(zip(t.field_names, children))
        index = {name: i for i, name in enumerate(t.field_names)}

        def conv(v):
            if not isinstance(v, dict):
                msg = f"expected a JSON object for {t.sql()}, got {_kind(v)}"
                raise RecordError(msg)
            if isinstance(v, Repeated):  # the fields Flink's streaming parser reads
                out = dict.fromkeys(t.field_names)
                settings = streamed_fields(v, index)
                for i, name, x in settings:
                    out[name] = None if x is None else convert_field(name, fields[i][1], x)
                if fail_on_missing and len(settings) < len(fields):  # Flink counts each occurrence
                    seen = {name for _, name, _ in settings}
                    _missing(next(n for n in t.field_names if n not in seen))
                return out
            if fail_on_missing and any(name not in v for name in index):
                _missing(next(n for n in t.field_names if n not in v))
            return {name: convert_field(name, c, v[name]) if v.get(name) is not None else None
                    for name, c in fields}

        return conv
    if t.name == "ARRAY":
        (elem,) = children

        def conv(v):
            if not isinstance(v, list):
                msg = f"expected a JSON array for {t.sql()}, got {_kind(v)}"
                raise RecordError(msg)
            return [child(elem, x) for x in v]

        return conv
    key = make_converter(t.children[0], from_text=True)  # an Arrow map key cannot be NULL: strict
    value = children[1]
    hashed = t.children[0].name in HASHED_TYPES

    def conv(v):
        if not isinstance(v, dict):
            msg = f"expected a JSON object for {t.sql()}, got {_kind(v)}"
            raise RecordError(msg)
        pairs = [(key(k), child(value, x)) for k, x in v.items()]
        # Flink's JSON converters put the entries into a java.util.HashMap: their order is its own,
        # which a CAST to STRING, a JSON sink, MAP_KEYS show (compat case map_entry_order)
        order = reorder([k for k, _ in pairs], internal_hash) if hashed and len(pairs) > 1 else None
        return pairs if order is None else [pairs[i] for i in order]

    return conv


def _missing(name: str) -> None:
    """Raise the :class:`RecordError` of a ROW field absent under ``'json.fail-on-missing-field'``."""
    msg = f"field '{name}' is missing"
    raise MissingField(msg)


def _kind(v: Any) -> str:
    if isinstance(v, dict):
        return "an object"
    if isinstance(v, list):
        return "an array"
    return quoted(_text(v))


def convert_field(name: str, conv: Callable[[Any], Any], value: Any) -> Any:
    """``conv(value)`` for the field ``name``, a :class:`RecordError` naming the field.

    Raises:
        RecordError: ``"field '<name>': <reason>"`` when ``conv`` rejects the value.
    """
    try:
        return conv(value)
    except RecordError as e:
        msg = f"field '{name}': {e}"
        raise type(e)(msg) from None


def build_column(values: list, t: SqlType) -> pa.Array:
    """An Arrow array of ``t`` from converter outputs (None = NULL)."""
    at = t.to_arrow()
    if t.is_composite:  # nested timestamps and dates are ints of the Arrow type's unit
        return pa.array(values, at)
    if t.name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return pa.array(values, pa.int64()).cast(at)
    if t.name == "DATE":
        return pa.array(values, pa.int32()).cast(at)
    if t.name == "TIME":
        return pa.array(values, pa.int64()).cast(at)
    return pa.array(values, at)


def from_rows(rows: list[tuple], schema: Schema) -> pa.Table:
    """A table of ``schema`` from converted rows (tuples in column order)."""
    if not rows:
        return schema.to_arrow().empty_table()
    cols = list(zip(*rows))
    arrays = [build_column(list(c), f.type) for c, f in zip(cols, schema.fields)]
    return pa.Table.from_arrays(arrays, schema=schema.to_arrow())
