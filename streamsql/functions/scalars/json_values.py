"""The JSON text Flink writes for a SQL value: JSON_OBJECT, JSON_ARRAY, JSON_STRING and the JSON aggregates.

As Flink 2.3's ``JsonGenerateUtils.createNodeTerm`` builds a Jackson node of each value, which its
mapper writes compactly (object members sorted by name):

=================== ===============================================================================
type                JSON text
=================== ===============================================================================
STRING              a JSON string (``to_json``: Jackson's escapes)
BOOLEAN, integers   ``true`` / ``false``, the digits
DECIMAL, DOUBLE     Java's ``BigDecimal`` text (a DECIMAL keeps its scale: ``1.50``; a DOUBLE is
                    ``BigDecimal(Double.toString(d))``: ``1.0E+300``, ``0.000010``)
TIMESTAMP(p)        ``"2024-01-01T10:00:00.123"`` (``ISO_LOCAL_DATE_TIME``: seconds always, the
                    fraction only as far as it is not zero)
TIMESTAMP_LTZ(p)    the instant's UTC wall clock as above, then ``Z``: ``"2023-11-14T22:13:20.123Z"``
BINARY, VARBINARY   base64 in a JSON string: ``"AQI="``
ARRAY               ``[...]`` of the elements (a NULL one ``null``)
ROW                 ``{"field":...}`` by field name, sorted
MAP (STRING keys)   ``{"key":...}`` sorted by key
VARIANT             its JSON text, as it prints (``JSON_STRING(PARSE_JSON('{"b":1,"a":2}'))`` is
                    ``{"a":2,"b":1}``, of ``[1.0]`` ``[1]``: scripts/flink_variant.py)
=================== ===============================================================================

A NULL value is SQL NULL here: the caller writes ``null`` or leaves the member out. DATE and TIME
values (also inside a composite) are refused as Flink 2.3 refuses them (:func:`refusal`).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow as pa

from streamsql.core.types import SqlType
from streamsql.core.variant_text import flink_texts
from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.cast_string import java_double_text
from streamsql.functions.scalars.registry import sql_string

_SCALARS = ("STRING", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE", "NULL",
            "TIMESTAMP", "TIMESTAMP_LTZ", "BYTES", "VARIANT")
#: Types Flink 2.3 refuses in a JSON value at planning: "Type 'DATE NOT NULL' is not scalar or cannot
#: be converted into JSON." (its JSON_STRING takes no DATE or TIME; conformance cases).
FLINK_REFUSES = ("DATE", "TIME")
#: What the message of a type not written lists.
SUPPORTED = ("strings, numbers, booleans, TIMESTAMP, TIMESTAMP_LTZ, BINARY/VARBINARY, and ARRAY, ROW or MAP "
             "(STRING keys) of them")


def _big_decimal_text(text: str) -> str:
    """Java's ``BigDecimal.toString`` of a decimal number's text (Python's ``Decimal`` has its rules).

    Plain unless the exponent is positive or the value below 10^-6 (``1.0E+300``, ``0.000010``,
    ``1.000E-7``); Java's BigDecimal has no negative zero.
    """
    d = Decimal(text)
    return str(d.copy_abs() if d.is_zero() else d)


_NUMBER_TEXT = register(VectorFunction("__streamsql_json_number_text", "JSON of a number",
                                       lambda a: rowwise(_big_decimal_text, (a,), pa.string()),
                                       ("VARCHAR",), "VARCHAR"))


_VARIANT_TEXT = register(VectorFunction("__streamsql_variant_text", "VARIANT's text", flink_texts,
                                        ("VARCHAR",), "VARCHAR"))


def variant_json(v: str) -> str:
    """DuckDB SQL of the JSON text Flink writes of the VARIANT ``v`` (DuckDB SQL of its carried text).

    A number's kind is not shown (:func:`~streamsql.core.variant_text.flink_text`: ``1.0`` is ``1``).
    """
    return f"{_VARIANT_TEXT.name}(CAST({v} AS VARCHAR))"


def refusal(t: SqlType | None) -> str | None:
    """Why a value of type ``t`` cannot be written as JSON (None: :func:`value_json` writes it)."""
    inside = _inner_types(t) if t is not None else []
    refused = next((x for x in inside if x.name in FLINK_REFUSES), None)
    if refused is not None:  # Flink's words
        return f"Type '{refused}' is not scalar or cannot be converted into JSON."
    if not writable(t):
        return f"values of type {t} are not supported yet (supported: {SUPPORTED})"
    return None


def _inner_types(t: SqlType) -> list[SqlType]:
    """``t`` and every type inside it."""
    return [t, *(x for c in t.children for x in _inner_types(c))]


def writable(t: SqlType | None) -> bool:
    """Whether :func:`value_json` writes values of type ``t`` (None: unknown, DuckDB's ``to_json``)."""
    if t is None or t.name in _SCALARS:
        return True
    if t.name == "MAP" and t.children[0].name != "STRING":
        return False
    return t.is_composite and all(writable(c) for c in t.children)


def value_json(v: str, t: SqlType | None, depth: int = 0) -> str:
    """DuckDB SQL of Flink's JSON text of the value ``v`` (DuckDB SQL) of type ``t`` (NULL for NULL).

    ``t`` must be :func:`writable`; ``depth`` names the lambda variables of nested values.
    """
    name = None if t is None else t.name
    if name == "VARIANT":  # the JSON Flink writes of it (a number's kind not shown: core.variant_text)
        return variant_json(v)
    if name in ("DECIMAL", "DOUBLE"):
        return _number(v, t)
    if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        nanos = (t.precision or 0) > 6  # a TIMESTAMP_NS (DuckDB's cast to TIMESTAMP rounds it)
        wall = f"timezone('UTC', {v})" if name == "TIMESTAMP_LTZ" else \
            f"CAST({v} AS TIMESTAMP{'_NS' if nanos else ''})"
        return _iso_date_time(wall, "Z" if name == "TIMESTAMP_LTZ" else "", nanos)
    if name == "BYTES":
        return f"'\"' || to_base64({v}) || '\"'"
    x = f"__j{depth}"
    if name == "ARRAY":
        inner = value_json(x, t.children[0], depth + 1)
        items = f"list_transform({v}, lambda {x}: coalesce({inner}, 'null'))"
        return f"'[' || array_to_string({items}, ',') || ']'"
    if name == "MAP":
        inner = value_json(f"{x}.value", t.children[1], depth + 1)
        member = f"CAST(to_json(CAST({x}.key AS VARCHAR)) AS VARCHAR) || ':' || coalesce({inner}, 'null')"
        entries = f"list_sort(map_entries({v}))"
        return f"'{{' || array_to_string(list_transform({entries}, lambda {x}: {member}), ',') || '}}'"
    if name == "ROW":
        fields = sorted(t.fields, key=lambda f: f[0].encode("utf-16-be", "surrogatepass"))
        members = []
        for n, ft in fields:
            inner = value_json(f"struct_extract({v}, {sql_string(n)})", ft, depth + 1)
            key = sql_string(json.dumps(n, ensure_ascii=False) + ":")
            members.append(f"{key} || coalesce({inner}, 'null')")
        body = " || ',' || ".join(members) or "''"
        return f"CASE WHEN {v} IS NOT NULL THEN '{{' || {body} || '}}' END"
    return f"CAST(to_json({v}) AS VARCHAR)"


def _iso_date_time(wall: str, suffix: str, nanos: bool = False) -> str:
    """``"yyyy-MM-ddTHH:mm:ss[.f]"`` + ``suffix`` of a DuckDB TIMESTAMP, as Java's ISO_LOCAL_DATE_TIME.

    The fraction has as many digits as it needs (``.5``, ``.123``), none when it is zero.
    ``nanos``: ``wall`` is a TIMESTAMP_NS, its nanoseconds written (``.123456789``).
    """
    if nanos:
        micros = f"(((epoch_ns({wall}) % 1000000000) + 1000000000) % 1000000000)"
    else:
        micros = f"(microsecond({wall}) % 1000000)"
    digits = f"rtrim(lpad(CAST({micros} AS VARCHAR), {9 if nanos else 6}, '0'), '0')"
    fraction = f"CASE WHEN {micros} = 0 THEN '' ELSE '.' || {digits} END"
    return f"'\"' || strftime({wall}, '%Y-%m-%dT%H:%M:%S') || {fraction} || '{suffix}\"'"


def _number(v: str, t: SqlType) -> str:
    """Flink's JSON text of a DECIMAL or DOUBLE (DuckDB's ``to_json`` differs).

    Flink writes a number as a ``BigDecimal`` (a DOUBLE through ``Double.toString``): a DECIMAL
    keeps its scale (``-0.50``), a DOUBLE is ``1.0E+300``, ``0.000010`` for 1e-05, ``0.0`` for
    -0.0 (to_json: ``-0.5``, ``1e300``, ``0.00001``, ``-0.0``). A DECIMAL of scale <= 6 is DuckDB's
    text already; an infinite or NaN DOUBLE keeps to_json's.
    """
    if t.name == "DECIMAL":
        if (t.scale or 0) <= 6:
            return f"CAST(CAST({v} AS {t.duckdb()}) AS VARCHAR)"
        return f"{_NUMBER_TEXT.name}(CAST({v} AS VARCHAR))"
    d = f"CAST({v} AS DOUBLE)"
    return (f"CASE WHEN isfinite({d}) THEN {_NUMBER_TEXT.name}({java_double_text(d)}) "
            f"ELSE CAST(to_json({d}) AS VARCHAR) END")
