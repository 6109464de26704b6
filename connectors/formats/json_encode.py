r"""The ``json`` format's encoder: rows to one JSON object per message, as Flink writes them.

Column-wise with Arrow compute — each column rendered as JSON text (strings escaped
as Jackson does: only values holding a quote, backslash, control character or a character beyond
the BMP go through :func:`jackson_string` one by one; FLOAT/DOUBLE by :mod:`streamsql.core.float_text`), then
joined with the field names per row by ``binary_join_element_wise`` — byte-identical to the
reference per-row encoder (a dict + ``orjson.dumps`` per row, :func:`encode_rows`), which remains
the fallback. As Flink 2.3 writes them (``tests/connectors/json_encode_flink.json``): FLOAT/DOUBLE
as Java's ``Float.toString`` / ``Double.toString`` (``1.0E20``, ``100.0``, ``1.23456792E8``; NaN
and the infinities as the strings ``"NaN"``, ``"Infinity"``);
strings as Jackson escapes them (``\"``, ``\``, ``\t``, ``\u001F`` with upper-case hex, a
character beyond the BMP as its UTF-16 surrogate pair ``\uD834\uDD1E``; everything else,
DEL and U+2028 included, as UTF-8); DECIMAL as a JSON number with its trailing
zeros stripped (``1E+1``, ``2.5``; :mod:`.decimal_text`), or in plain notation with its scale
(``10.000000``) with ``'json.encode.decimal-as-plain-number' = 'true'``; TIMESTAMP(p) as
``"2024-05-01 10:00:00.12"`` (at most p fraction digits, without trailing zeros:
:mod:`.timestamp_text`), TIMESTAMP_LTZ as ``"2024-05-01 10:00:00Z"``
(``'json.timestamp-format.standard' = 'ISO-8601'`` uses ``T``), DATE as ``"2024-05-01"``, TIME as
``"12:34:56.5"`` (its milliseconds without trailing zeros, as Flink's SQL_TIME_FORMAT), BYTES
base64, NULL as ``null``; a ROW as an object with every field (``{"x":1,"s":null}``), an ARRAY as
an array, a MAP as an object (keys as JSON strings), their values written by the same rules.
Known differences from Flink: the few FLOAT/DOUBLE values where JDK 17 does not write the
shortest digits (:mod:`streamsql.core.float_text`).

The sink always encodes the row, never forwards the consumed bytes: ``docs/json-pass-through.md``.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import orjson
import pyarrow as pa
import pyarrow.compute as pc
from streamsql.connectors.formats.common import (
    Encoder,
    base64_text,
    combine,
    render_date,
    render_decimal,
    render_time,
    render_timestamp,
)
from streamsql.connectors.formats.decimal_text import flink_decimal_text

from streamsql.core.float_text import java_float_text
from streamsql.core.types import Schema, SqlType


class Style(NamedTuple):
    """How the options ask values to be written.

    Attributes:
        sep: between a timestamp's date and time: ``' '`` (SQL) or ``'T'`` (ISO-8601).
        plain: DECIMAL in plain notation with its scale (``'<prefix>.encode.decimal-as-plain-number'``),
            else as Flink's default (:func:`.decimal_text.flink_decimal_text`).
    """

    sep: str
    plain: bool


def style_of(options: dict[str, str], prefix: str) -> Style:
    """The :class:`Style` of ``prefix``'s (``'json'``, ``'debezium-json'``) options."""
    iso = options.get(f"{prefix}.timestamp-format.standard", "SQL") == "ISO-8601"
    plain = options.get(f"{prefix}.encode.decimal-as-plain-number", "false").strip().lower() == "true"
    return Style("T" if iso else " ", plain)


def _timestamps(col: pa.Array, t: SqlType, style: Style) -> pa.Array:
    return render_timestamp(col, t.precision or 0, style.sep, zulu=t.name == "TIMESTAMP_LTZ", trim=True)


def _decimals(col: pa.Array, style: Style) -> pa.Array:
    return render_decimal(col) if style.plain else flink_decimal_text(col)


def python_columns(
    table: pa.Table, schema: Schema, options: dict[str, str], prefix: str = "json"
) -> list[list]:
    """Per column, the Python values orjson serializes as Flink's JSON format writes them."""
    style = style_of(options, prefix)
    cols = []
    for f, col in zip(schema.fields, table.columns):
        n = f.type.name
        if n == "DECIMAL":
            texts = _decimals(col, style).to_pylist()
            cols.append([None if s is None else orjson.Fragment(s) for s in texts])
        elif n in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            cols.append(_timestamps(col, f.type, style).to_pylist())
        elif n == "DATE":
            cols.append(render_date(col).to_pylist())
        elif n == "TIME":
            cols.append(render_time(col, 3, trim=True).to_pylist())
        elif n == "BYTES":
            cols.append(base64_text(col))
        elif f.type.is_composite or n in ("FLOAT", "DOUBLE"):
            text = _nested_texts(combine(col), f.type, style) if f.type.is_composite else _floats(col, n)
            cols.append([None if x is None else orjson.Fragment(x) for x in text.to_pylist()])
        elif n == "STRING":
            cols.append([v if v is None or not _ESCAPES.search(v) else orjson.Fragment(jackson_string(v))
                         for v in col.to_pylist()])
        else:
            cols.append(col.to_pylist())
    return cols


#: What Jackson writes differently from orjson in a JSON string: a character beyond the BMP
#: (orjson: UTF-8), the hex digits of a ``\u00XX`` escape (orjson: lower case), and ``\\``
#: (matched so that the escaped backslash of a literal ``\u00..`` text is not taken for one).
_JACKSON_DIFFERS = re.compile(r"\\\\|\\u00[0-9a-f]{2}|[\U00010000-\U0010FFFF]")
#: A value orjson writes with an escape, or Jackson otherwise (Python ``re``).
_ESCAPES = re.compile(r'[\x00-\x1f"\\\U00010000-\U0010FFFF]')


def _jackson_piece(m: re.Match) -> str:
    t = m.group(0)
    if t[0] == "\\":
        return t if t == "\\\\" else t[:4] + t[4:].upper()
    c = ord(t) - 0x10000
    return f"\\u{0xD800 + (c >> 10):04X}\\u{0xDC00 + (c & 0x3FF):04X}"


def jackson_string(v: str) -> str:
    r"""The JSON string literal Jackson writes for ``v`` (quotes included), as Flink's JSON format.

    Jackson escapes ``"``, ``\``, the control characters (``\b \t \n \f \r`` short, the others
    ``\u00XX`` in upper-case hex: ``\u001F``) and writes a character beyond the BMP as its UTF-16
    surrogate pair (``\uD834\uDD1E``); Flink 2.3 wrote these (``tests/connectors/json_encode_flink.json``,
    cases ``non_bmp`` and ``strings``).
    """
    return _JACKSON_DIFFERS.sub(_jackson_piece, orjson.dumps(v).decode())


def _floats(col: pa.Array | pa.ChunkedArray, type_name: str) -> pa.Array:
    """Java's text of a FLOAT/DOUBLE column (NULL stays NULL), as Jackson writes a float/double node.

    NaN and the infinities as JSON strings (``"NaN"``, ``"-Infinity"``: Jackson's
    ``WRITE_NAN_AS_STRINGS``, which Flink 2.3 wrote, cases ``float_nan*``).
    """
    col = combine(col)
    text = java_float_text(col, single=type_name == "FLOAT")
    odd = pc.fill_null(pc.invert(pc.is_finite(col)), False)
    return pc.if_else(odd, _quote(text), text) if pc.any(odd).as_py() else text


#: What Jackson escapes in a string, and characters beyond the BMP (RE2).
_NEEDS_ESCAPE = r'[\x00-\x1f"\\\x{10000}-\x{10FFFF}]'
_INT_TYPES = ("TINYINT", "SMALLINT", "INT", "BIGINT", "BOOLEAN")


def _needs_escape(a: np.ndarray) -> bool:
    """Whether the UTF-8 bytes ``a`` hold a control character, a quote, a backslash or a 4-byte sequence."""
    return len(a) > 0 and bool(a.min() < 32 or a.max() >= 0xF0 or (a == 34).any() or (a == 92).any())


def _quote(text: pa.Array) -> pa.Array:
    """``"text"`` (NULL stays NULL); for text that needs no JSON escaping."""
    return pc.binary_join_element_wise('"', text, '"', "")


def _json_strings(col: pa.Array, quote: bool = True) -> tuple[pa.Array, bool]:
    """JSON string literals of a string column, escaped exactly as Jackson does (NULL stays NULL).

    Vectorized; only the values holding a quote, a backslash, a control character or a character
    beyond the BMP go through :func:`jackson_string` one by one. Returns ``(text, bare)``: with
    ``quote=False`` and nothing to escape, the text is the column itself and ``bare`` is True (the
    caller adds the quotes).
    """
    data = col.buffers()[2]
    if data is None or not _needs_escape(np.frombuffer(data, np.uint8)):  # one pass over the text
        return (col, True) if not quote else (_quote(col), False)
    out = _quote(col)
    mask = pc.fill_null(pc.match_substring_regex(col, _NEEDS_ESCAPE), False)
    if pc.any(mask).as_py():
        esc = [jackson_string(v) for v in pc.filter(col, mask).to_pylist()]
        out = pc.replace_with_mask(out, mask, pa.array(esc, pa.string()))
    return out, False


def column_texts(col: pa.Array, t: SqlType, style: Style) -> tuple[pa.Array, bool]:
    """The JSON text of every value of one column, as the row encoder writes it.

    Returns ``(text, bare)``: NULLs are ``null`` in ``text``, except when ``bare`` is True: then
    the column has no NULL and ``text`` still lacks the surrounding quotes of a JSON string (the
    caller puts them into the separators of the join, saving a pass over the column).

    Raises:
        NotImplementedError: for a type without a vectorized rendering.
    """
    n = t.name
    bare_ok = col.null_count == 0
    if n == "STRING":
        text, bare = _json_strings(col, quote=not bare_ok)
        if bare:
            return text, True
    elif n in _INT_TYPES:
        text = col.cast(pa.string())
    elif n in ("FLOAT", "DOUBLE"):
        text = _floats(col, n)
    elif n == "DECIMAL":
        text = _decimals(col, style)
    elif n in ("TIMESTAMP", "TIMESTAMP_LTZ", "DATE", "TIME", "BYTES"):
        if n == "DATE":
            text = render_date(col)
        elif n == "TIME":  # SQL_TIME_FORMAT: HH:mm:ss and the milliseconds without trailing zeros
            text = render_time(col, 3, trim=True)
        elif n == "BYTES":
            text = pa.array(base64_text(col), pa.string())
        else:
            text = _timestamps(col, t, style)
        if bare_ok:
            return text, True
        text = _quote(text)
    elif t.is_composite:
        text = _nested_texts(col, t, style)
    else:
        raise NotImplementedError(n)
    return (pc.fill_null(text, "null") if text.null_count else text), False


def _nested_texts(col: pa.Array, t: SqlType, style: Style) -> pa.Array:
    """The JSON text of a ROW/ARRAY/MAP column (NULL stays NULL), built from its children's."""
    if t.name == "ROW":
        parts: list = []
        for i, (name, ft) in enumerate(t.fields):
            parts += [("{" if i == 0 else ",") + jackson_string(name) + ":",
                      json_value_texts(col.field(i), ft, style)]
        text = pc.binary_join_element_wise(*parts, "}", "") if parts else pa.array(["{}"] * len(col))
    else:
        if t.name == "ARRAY":
            items = json_value_texts(col.values, t.children[0], style)
        else:
            key_type = SqlType("STRING") if t.children[0].name == "STRING" else t.children[0]
            keys = json_value_texts(col.keys, key_type, style)
            if key_type.name != "STRING":  # a JSON object's keys are strings
                keys = _quote(keys)
            items = pc.binary_join_element_wise(keys, json_value_texts(col.items, t.children[1], style), ":")
        inner = pc.binary_join(pa.ListArray.from_arrays(col.offsets, items), ",")
        opening, closing = ("[", "]") if t.name == "ARRAY" else ("{", "}")
        text = pc.binary_join_element_wise(opening, inner, closing, "")
    return pc.if_else(col.is_null(), pa.scalar(None, pa.string()), text)


def json_value_texts(col: pa.Array, t: SqlType, style: Style) -> pa.Array:
    """The JSON text of every value of one column (NULL → ``null``), quotes included."""
    text, bare = column_texts(col, t, style)
    return _quote(text) if bare else text


def string_payloads(arr: pa.Array) -> list[bytes]:
    """The values of a string array as a list of bytes (a zero-copy cast, then one C loop)."""
    return arr.cast(pa.binary()).to_pylist()


def encode_vectorized(
    table: pa.Table, schema: Schema, options: dict[str, str], prefix: str = "json"
) -> list[bytes]:
    """One JSON object per row, built column-wise by Arrow (same bytes as the row encoder).

    Raises:
        NotImplementedError: for a column type without a vectorized rendering, or repeated names.
        pyarrow.ArrowInvalid: when Arrow cannot build the text (e.g. over 2 GiB).
    """
    return string_payloads(encode_texts(table, schema, options, prefix))


def encode_texts(
    table: pa.Table, schema: Schema, options: dict[str, str], prefix: str = "json"
) -> pa.Array:
    """:func:`encode_vectorized`'s rows as one Arrow string array (no NULL), before any Python object.

    Raises:
        NotImplementedError: for a column type without a vectorized rendering, or repeated names.
        pyarrow.ArrowInvalid: when Arrow cannot build the text (e.g. over 2 GiB).
    """
    names = schema.names
    if len(set(names)) != len(names):
        msg = "repeated column names"
        raise NotImplementedError(msg)
    style = style_of(options, prefix)
    parts: list = []
    lit = "{"  # the literal text before the next column
    for i, (f, col) in enumerate(zip(schema.fields, table.columns)):
        lit += ("" if i == 0 else ",") + jackson_string(f.name) + ":"
        text, bare = column_texts(combine(col), f.type, style)
        parts.append(lit + '"' if bare else lit)
        parts.append(text)
        lit = '"' if bare else ""
    parts.append(lit + "}")
    if not any(isinstance(p, pa.Array) for p in parts):  # pragma: no cover
        msg = "no columns"
        raise NotImplementedError(msg)
    return pc.binary_join_element_wise(*parts, "")


def encode_rows(table: pa.Table, schema: Schema, options: dict[str, str]) -> list[bytes]:
    """One JSON object per row, a dict + ``orjson.dumps`` per row (the reference encoder)."""
    names = schema.names
    cols = python_columns(table, schema, options)
    dumps = orjson.dumps
    return [dumps(dict(zip(names, row))) for row in zip(*cols)] if names else [b"{}"] * table.num_rows


class JsonEncoder(Encoder):
    """See module docstring."""

    _vectorized = True

    def encode(self, table: pa.Table, kinds: np.ndarray | None = None) -> list[bytes | None]:
        """One payload per row (see :meth:`Encoder.encode`).

        Built column-wise by Arrow (:meth:`encode_array`); the per-row encoder is the fallback
        (no columns, a type or text Arrow cannot render).
        """
        texts = self.encode_array(table, kinds)
        return string_payloads(texts) if texts is not None else encode_rows(table, self.schema, self.options)

    def encode_array(self, table: pa.Table, kinds: np.ndarray | None = None) -> pa.Array | None:
        """The payloads as one Arrow string array (:func:`encode_texts`), or None: use :meth:`encode`.

        None where the vectorized encoder does not apply (no columns, no rows, a type or text
        Arrow cannot render); :meth:`encode` then gives the same bytes row by row.
        """
        if not (self._vectorized and self.schema.names and table.num_rows):
            return None
        try:
            return encode_texts(table, self.schema, self.options)
        except NotImplementedError:
            self._vectorized = False
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError, OverflowError):
            pass
        return None
