"""JSON functions (Flink's "JSON Functions"), and the ``IS [NOT] JSON`` predicate.

JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_STRING, JSON_OBJECT, JSON_ARRAY; IS JSON is an
operator (see :func:`is_json`). Flink's defaults are kept: a path is lax, and NULL ON EMPTY /
NULL ON ERROR (FALSE ON ERROR for JSON_EXISTS) apply, so a document that does not parse, a
path that finds nothing, or (for JSON_VALUE) an object or array where a scalar is wanted give
NULL, never a failed job. The RETURNING, ON EMPTY and ON ERROR clauses are not parsed (a
positioned syntax error).

Paths must be literals and use member and index steps only (``$.a.b[0]``, ``$['a b']``); a
wildcard, filter or method is refused at planning. They are translated to DuckDB's JSON paths.

JSON_OBJECT and JSON_ARRAY write compact JSON text (``{"a":1}``, as Flink's Jackson); a value
made by another JSON_OBJECT / JSON_ARRAY call is inserted as JSON, not as a string.
"""

from __future__ import annotations

import re
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp

from streamsql.functions.python_functions import VectorFunction, register, rowwise
from streamsql.functions.scalars.cast_string import java_double_text
from streamsql.functions.scalars.registry import Arg, Call, fixed, scalar, sql_string, template

S = "STRING"
STRING = fixed("STRING")
JSON_MADE = "json_made"
"""Meta key marking a node built by JSON_OBJECT / JSON_ARRAY (inserted raw when nested)."""

_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\['((?:[^'\\]|\\.)*)'\]|\[(\d+)\]")


def duckdb_path(c: Call, i: int) -> str | None:
    """The DuckDB JSON path literal for Flink's path, argument ``i`` (None for a NULL path).

    Raises:
        FunctionError: when the path is not a literal or uses steps other than members and
            indexes.
    """
    path = c.literal(i, "the JSON path")
    if path is None:
        return None
    text = re.sub(r"^\s*(lax|strict)\s+", "", str(path), flags=re.IGNORECASE).strip()
    out, pos = ["$"], 1
    if not text.startswith("$"):
        pos = -1
    while 0 < pos < len(text):
        m = _STEP.match(text, pos)
        if m is None:
            pos = -1
            break
        name, quoted, index = m.groups()
        if index is not None:
            out.append(f"[{index}]")
        else:
            key = name if name is not None else quoted.replace("\\'", "'")
            out.append('."' + key.replace('"', '\\"') + '"')
        pos = m.end()
    if pos < 0:
        msg = (f"{c.name}: JSON path {path!r} is not supported yet (supported: $, .member, "
               "['member'] and [index] steps)")
        raise c.fail(msg)
    return sql_string("".join(out))


def _at_path(c: Call, body: str) -> exp.Expression:
    """``body`` (DuckDB SQL; ``{0}`` the document, ``{path}`` the path) for a literal path.

    NULL for a NULL path.
    """
    path = duckdb_path(c, 1)
    if path is None:
        return exp.Null()
    return template(body.replace("{path}", path.replace("{", "{{").replace("}", "}}")), c.args[0])


@scalar("JSON_VALUE", group="json", sig=((S, S),), result=STRING,
        nulls="NULL if an argument is NULL, the document is not JSON, the path finds nothing, or it "
              "finds an object, an array or null",
        differences="RETURNING, ON EMPTY and ON ERROR are not supported yet; the path must be a literal. "
                    "JSON numbers are read as doubles ('1.50' gives '1.5', '1e2' gives '100.0'; Flink keeps "
                    "the number's text).")
def json_value(c: Call) -> exp.Expression:
    """The scalar at the path, as a string (a JSON string unquoted)."""
    return _at_path(c, "CASE WHEN json_valid({0}) AND json_type({0}, {path}) NOT IN ('OBJECT', 'ARRAY') "
                       "THEN json_extract_string({0}, {path}) END")


@scalar("JSON_QUERY", group="json", sig=((S, S),), result=STRING,
        nulls="NULL if an argument is NULL, the document is not JSON, the path finds nothing, or it "
              "finds a scalar",
        differences="WITH WRAPPER, RETURNING, ON EMPTY and ON ERROR are not supported yet; the path must "
                    "be a literal.")
def json_query(c: Call) -> exp.Expression:
    """The object or array at the path, as compact JSON text."""
    return _at_path(c, "CASE WHEN json_valid({0}) AND json_type({0}, {path}) IN ('OBJECT', 'ARRAY') "
                       "THEN CAST(json_extract({0}, {path}) AS VARCHAR) END")


@scalar("JSON_EXISTS", group="json", sig=((S, S),), result=fixed("BOOLEAN"),
        nulls="NULL if the document is NULL; false if it is not JSON",
        differences="ON ERROR is not supported yet; the path must be a literal.")
def json_exists(c: Call) -> exp.Expression:
    """Whether the path finds a value other than JSON null (Flink: a null member does not exist)."""
    return _at_path(c, "CASE WHEN json_valid({0}) THEN coalesce(json_type({0}, {path}) <> 'NULL', false) "
                       "WHEN {0} IS NOT NULL THEN false END")


_VALUE_TYPES = ("STRING", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "DECIMAL", "FLOAT", "DOUBLE",
                "NULL")


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


def _number_text(a: Arg) -> str | None:
    """DuckDB SQL of Flink's JSON text of a DECIMAL or DOUBLE (None: DuckDB's ``to_json`` is Flink's).

    Flink's JSON functions write a number as a ``BigDecimal`` (a DOUBLE through ``Double.toString``):
    a DECIMAL keeps its scale (``-0.50``), a DOUBLE is ``1.0E+300``, ``0.000010`` for 1e-05, ``0.0``
    for -0.0 (to_json: ``-0.5``, ``1e300``, ``0.00001``, ``-0.0``). A DECIMAL of scale <= 6 is
    DuckDB's text already; an infinite or NaN DOUBLE keeps to_json's.
    """
    if a.type is None or a.type.name not in ("DECIMAL", "DOUBLE"):
        return None
    if a.type.name == "DECIMAL":
        if (a.type.scale or 0) <= 6:
            return f"CAST(CAST({a.text} AS {a.type.duckdb()}) AS VARCHAR)"
        return f"{_NUMBER_TEXT.name}(CAST({a.text} AS VARCHAR))"
    v = f"CAST({a.text} AS DOUBLE)"
    return (f"CASE WHEN isfinite({v}) THEN {_NUMBER_TEXT.name}({java_double_text(v)}) "
            f"ELSE CAST(to_json({v}) AS VARCHAR) END")


def _json_text(c: Call, a: Arg) -> str:
    """DuckDB SQL of the JSON text of a value (NULL for NULL)."""
    inner = a.sql.this if isinstance(a.sql, exp.Cast) else a.sql
    if inner.meta.get(JSON_MADE):
        return a.text
    if a.type is not None and a.type.name not in _VALUE_TYPES:
        msg = f"{c.name}: values of type {a.type} are not supported yet (supported: strings, numbers, "
        msg += "booleans)"
        raise c.fail(msg)
    number = _number_text(a)
    return number if number is not None else f"CAST(to_json({a.text}) AS VARCHAR)"


def _sql(text: str) -> exp.Expression:
    """A DuckDB expression from ready SQL text (no placeholders: argument texts may hold braces)."""
    return exp.Var(this=f"({text})")


def _made(text: str) -> exp.Expression:
    node = _sql(text)
    node.meta[JSON_MADE] = True
    return node


@scalar("JSON_STRING", group="json", sig=(("ANY",),), result=STRING)
def json_string(c: Call) -> exp.Expression:
    """The value as JSON text (a string quoted and escaped)."""
    return _sql(_json_text(c, c.args[0]))


@scalar("JSON_OBJECT", group="json", sig=((), ("ANY", "ANY...")), result=STRING,
        nulls="never NULL; a NULL value is written as null (NULL ON NULL, the default) or left out "
              "(ABSENT ON NULL)")
def json_object(c: Call) -> exp.Expression:
    """JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL]): an object of the pairs, in order."""
    absent = c.unit == "ABSENT ON NULL"
    entries = []
    for key, value in zip(c.args[::2], c.args[1::2]):
        if key.type is not None and key.type.name not in ("STRING", "NULL"):
            msg = f"JSON_OBJECT: a key must be a string, not {key.type}"
            raise c.fail(msg)
        text = _json_text(c, value)
        pair = f"CAST(to_json({key.text}) AS VARCHAR) || ':' || "
        entries.append(f"CASE WHEN {value.text} IS NOT NULL THEN {pair}{text} END" if absent
                       else f"{pair}coalesce({text}, 'null')")
    body = f"coalesce(array_to_string([{', '.join(entries)}], ','), '')" if entries else "''"
    return _made(f"'{{' || {body} || '}}'")


@scalar("JSON_ARRAY", group="json", sig=((), ("ANY...",)), result=STRING,
        nulls="never NULL; NULL values are left out (ABSENT ON NULL, Flink's default)",
        differences="NULL ON NULL is not supported yet (a syntax error).")
def json_array(c: Call) -> exp.Expression:
    """JSON_ARRAY(v, ...): an array of the values, in order."""
    items = [_json_text(c, a) for a in c.args]
    body = f"coalesce(array_to_string([{', '.join(items)}], ','), '')" if items else "''"
    return _made(f"'[' || {body} || ']'")


_KINDS = {None: None, "VALUE": None, "OBJECT": "= 'OBJECT'", "ARRAY": "= 'ARRAY'",
          "SCALAR": "NOT IN ('OBJECT', 'ARRAY')"}


def is_json(value: exp.Expression, kind: str | None) -> exp.Expression:
    """``value IS JSON [VALUE | OBJECT | ARRAY | SCALAR]``: false for NULL or text that is not JSON."""
    test = _KINDS[kind.upper() if kind else None]
    text = f"({value.sql(dialect='duckdb')})"
    check = f"json_valid({text})" + (f" AND json_type({text}) {test}" if test else "")
    return _sql(f"coalesce({check}, false)")
