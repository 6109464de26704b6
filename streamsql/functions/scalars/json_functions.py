"""JSON functions (Flink's "JSON Functions"), and the ``IS [NOT] JSON`` predicate.

JSON_VALUE, JSON_QUERY, JSON_EXISTS, JSON_STRING, JSON_OBJECT, JSON_ARRAY; IS JSON is an
operator (see :func:`is_json`).

JSON_VALUE and JSON_QUERY are Flink 2.3's ``SqlJsonUtils`` row by row (:mod:`.json_path`), with
their clauses: RETURNING, JSON_QUERY's WRAPPER, ON EMPTY and ON ERROR (default NULL ON EMPTY NULL
ON ERROR, so a document that does not parse or a path that finds nothing gives NULL). A path
without ``lax`` / ``strict`` is strict, as in Flink. ERROR ON EMPTY / ON ERROR, and a value that
does not cast to the RETURNING type, fail the job naming the function, as Flink's job fails.
JSON_EXISTS is ``SqlJsonUtils.jsonExists`` row by row too, with its ON ERROR clause (FALSE by
default).

A path is a literal or a column (compiled once per distinct text): member and index steps
(``$.a.b[0]``, ``$['a b']``), several members (``$['a','b']``), wildcards (``$.a[*].b``, ``$.*``),
several indexes, slices, the deep scan ``..member``, Jayway's filters (``$.a[?(@.b > 1)]``,
:mod:`.json_filter`) and functions (``$.a.length()``, ``$.a.sum()``, :mod:`.json_path_functions`),
as Jayway reads them (:mod:`.json_path`), the deep scan before any step (``$..*``, ``$..[0]``,
``$..['a','b']``) included; a path whose answer in Flink depends on the rows evaluated before it
(``$..*.b``, ``$..a.length()``: :class:`.json_path_compiler.Unsupported`) is refused at planning
(a literal path) or fails the job (a path from a column).

JSON_OBJECT and JSON_ARRAY write compact JSON text (``{"a":1}``, as Flink's Jackson), each value
as :mod:`.json_values` writes it (timestamps as ISO text, bytes in base64, ARRAY, ROW and MAP
nested); a value made by another JSON_OBJECT / JSON_ARRAY call is inserted as JSON, not as a string.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.python_functions import VectorFunction, register
from streamsql.functions.scalars import json_path, json_path_functions, json_values
from streamsql.functions.scalars.registry import (
    DEAD_CODE,
    Arg,
    Call,
    fixed,
    python_call,
    scalar,
    sql_string,
    template,
    type_of,
)

S = "STRING"
STRING = fixed("STRING")
JSON_CALL = "jsoncall"
"""The key of ``streamsql.sql.nodes.JsonCall`` (a layer above: known by its key)."""
JSON_MADE = "json_made"
"""Meta key marking a node built by JSON_OBJECT / JSON_ARRAY (inserted raw when nested)."""
JSON_AGGREGATE = "json_aggregate"
"""Meta key of the ``JSON_STRING`` call wrapping a JSON aggregate's value: the aggregate's name."""


def _clauses(c: Call) -> dict:
    """The call's clauses (``nodes.JsonCall``'s args; none for a call without any)."""
    return c.node.args if c.node.key == JSON_CALL else {}


def _returning(c: Call, allowed: tuple[str, ...]) -> SqlType | None:
    """The RETURNING type (None: none written).

    Raises:
        FunctionError: a type Flink 2.3 cannot return (its code generator fails on it).
    """
    text = _clauses(c).get("returning")
    if text is None:
        return None
    t = SqlType.parse(text)
    shown = "ARRAY<STRING>" if t.name == "ARRAY" and t.children[0].name == "STRING" else t.name
    if shown not in allowed or re.match(r"(?i)\s*CHAR", text):
        msg = (f"{c.name}: Unsupported type '{text}' for RETURNING in {c.name}() (as Flink 2.3's code "
               f"generator; supported: {', '.join(allowed)})")
        raise c.fail(msg)
    return t


_VALUE_RETURNS = ("STRING", "VARCHAR", "INT", "DOUBLE", "BOOLEAN")
_QUERY_RETURNS = ("STRING", "VARCHAR", "ARRAY<STRING>")


def _value_type(c: Call) -> SqlType:
    return _returning(c, _VALUE_RETURNS) or SqlType("STRING")


def _query_type(c: Call) -> SqlType:
    return _returning(c, _QUERY_RETURNS) or SqlType("STRING")


_DEFAULT_CLASSES = {"STRING": "org.apache.flink.table.data.binary.BinaryStringData",
                    "INT": "java.lang.Integer",
                    "BIGINT": "java.lang.Long", "SMALLINT": "java.lang.Short", "TINYINT": "java.lang.Byte",
                    "DECIMAL": "org.apache.flink.table.data.DecimalData", "BOOLEAN": "java.lang.Boolean"}


def _default(c: Call, on: str) -> dict | None:
    """The constant DEFAULT value of ON ``on`` (EMPTY / ERROR): its Java class, value and text.

    Flink hands the constant to the result's cast as its internal Java object (a string literal
    is a ``BinaryStringData``, 0.5 a ``DecimalData``), so a DEFAULT of another type than the
    RETURNING one fails the job when it is used (:func:`_behave`), not at planning.

    Raises:
        FunctionError: a DEFAULT that is not a constant (Flink's job fails on it:
            ``NoSuchElementException``), NULL (Flink refuses it: ``Illegal use of 'NULL'``), or
            of a type whose text is not carried here (DOUBLE, FLOAT, temporal types).
    """
    cl = _clauses(c)
    if cl.get(f"on_{on}") != "DEFAULT":
        return None
    node = cl[f"{on}_default"]  # compiled by the binder with the other children
    arg = Arg(node, type_of(node))
    if isinstance(node, exp.Boolean):
        value = node.this
    elif arg.is_literal:
        value = arg.value()
    else:
        msg = (f"{c.name}: the DEFAULT ... ON {on.upper()} value must be a constant (Flink 2.3's job fails "
               "on any other: NoSuchElementException)")
        raise c.fail(msg)
    if value is None:
        msg = "Illegal use of 'NULL'"  # Calcite's validator, as Flink 2.3 (write NULL ON EMPTY / ON ERROR)
        raise c.fail(msg)
    java = _DEFAULT_CLASSES.get(arg.type.name if arg.type is not None else "")
    if java is None:
        msg = f"{c.name}: a DEFAULT ... ON {on.upper()} value of type {arg.type} is not supported yet"
        raise c.fail(msg)
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):  # a DECIMAL literal: DecimalData's plain text
        text = format(Decimal(repr(value)), "f")
        value = text
    else:
        text = str(value)
    return {"java": java, "value": value, "text": text}


def _config(c: Call, result: SqlType) -> dict:
    """The call's clauses as the row function's config; a literal path is checked here.

    A path from a column is compiled row by row (once per distinct text, :func:`.json_path.compile_path`).
    """
    arg = c.args[1]
    path = arg.value() if arg.is_literal else None
    cl = _clauses(c)
    if path is not None:
        try:
            json_path.compile_path(str(path))
        except json_path.Unsupported:
            raise c.fail(_unsupported(path)) from None
    kind = "ARRAY" if result.name == "ARRAY" else result.name
    return {"literal": arg.is_literal, "returns": kind, "wrapper": cl.get("wrapper") or "WITHOUT ARRAY",
            "on_empty": cl.get("on_empty") or "NULL", "on_error": cl.get("on_error") or "NULL",
            "empty_default": _default(c, "empty"), "error_default": _default(c, "error")}


def _unsupported(path: str) -> str:
    return (f"JSON path {path!r} is not supported: Flink 2.3's answer to it depends on the rows evaluated "
            "before (its Jayway keeps state in the cached path: a last member right after a scanned "
            "wildcard, as in $..*.b or $..[*].b, and length() / size() after a scan, as in $..a.length()); "
            "write the steps out ($.*.b, $..b) or take the length of a definite path")


def _compiled(path: str):
    """The compiled path of a row; a path not evaluated here fails the job (never a wrong answer)."""
    try:
        return json_path.compile_path(path)
    except json_path.Unsupported:
        raise json_path.JsonError(_unsupported(path)) from None


_DUCK_TYPES = {"STRING": ("VARCHAR", pa.string()), "INT": ("INTEGER", pa.int32()),
               "DOUBLE": ("DOUBLE", pa.float64()), "BOOLEAN": ("BOOLEAN", pa.bool_()),
               "ARRAY": ("VARCHAR[]", pa.list_(pa.string()))}


def _row_function(label: str, row, kind: str) -> VectorFunction:
    """The DuckDB function of ``row(doc, path, config)`` for a result of kind ``kind``.

    A NULL document or path gives NULL (a NULL path from a column as Flink's generated code).
    """
    duck, arrow = _DUCK_TYPES[kind]

    def fn(docs: pa.ChunkedArray, paths: pa.ChunkedArray, configs: pa.ChunkedArray) -> pa.Array:
        cfg = json.loads(configs[0].as_py()) if len(configs) else {}
        values = [None if d is None or p is None else json_path.deep_call(row, d, p, cfg)
                  for d, p in zip(docs.to_pylist(), paths.to_pylist())]
        try:
            return pa.array(values, arrow)
        except UnicodeEncodeError:  # a lone surrogate (a JSON "\ud83d" escape): '?' as Java's UTF-8
            return pa.array([json_path.java_utf8(v) for v in values], arrow)

    return register(VectorFunction(f"__streamsql_{label.lower()}_{kind.lower()}", label, fn,
                                   ("VARCHAR", "VARCHAR", "VARCHAR"), duck, shown=_doc_and_path))


def _doc_and_path(values: list) -> list:
    """A failing row as the user wrote the call: the document and the path, not the clauses' JSON."""
    return values[:2]


def _call_row(fns: dict[str, VectorFunction], c: Call, result: SqlType) -> exp.Expression:
    cfg = _config(c, result)
    if cfg["literal"] and c.args[1].value() is None:
        return exp.Null()
    return _template(fns[cfg["returns"]], c, cfg)


def _template(f: VectorFunction, c: Call, cfg: dict) -> exp.Expression:
    """DuckDB SQL of ``f(doc, path, config)`` (the path a literal or a column alike)."""
    config = sql_string(json.dumps(cfg)).replace("{", "{{").replace("}", "}}")  # template() formats
    variant = c.args[0].type is not None and c.args[0].type.name == "VARIANT"
    doc = json_values.variant_json("{0}") if variant else "CAST({0} AS VARCHAR)"  # the JSON Flink writes
    return template(f"{f.name}({doc}, CAST({{1}} AS VARCHAR), {config})", c.args[0], c.args[1])


def _json_value_row(doc: str, path: str, cfg: dict):
    """Flink's ``SqlJsonUtils.jsonValue`` of one document, then the RETURNING conversion."""
    mode = _compiled(path).mode
    value, error = json_path.evaluate(doc, path)
    if error is None:
        if value is None or (mode == "LAX" and not json_path.is_scalar(value)):
            return _behave("JSON_VALUE", cfg, "empty", None)
        if not json_path.is_scalar(value):
            error = json_path.JsonError("Strict jsonpath mode requires scalar value, and the actual value "
                                        "is: "
                                        f"''{json_path.java_text(value)}''")  # Flink's doubled quotes
        else:
            return _returned(value, cfg["returns"])
    return _behave("JSON_VALUE", cfg, "error", error)


def _behave(name: str, cfg: dict, on: str, error: Exception | None):
    kind = cfg[f"on_{on}"]
    if kind == "ERROR":
        if error is None:
            msg = f"Empty result of {name} function is not allowed"
            raise json_path.JsonError(msg)
        raise error
    if kind == "DEFAULT":
        default = cfg[f"{on}_default"]
        if cfg["returns"] == "STRING":
            return default["text"]
        if default["java"] != _CASTS[cfg["returns"]][0]:
            raise _cast_error(default["text"], default["java"], cfg["returns"])
        return default["value"]
    if kind in ("EMPTY ARRAY", "EMPTY OBJECT"):
        if cfg["returns"] == "ARRAY":
            if kind == "EMPTY OBJECT":
                msg = f"Illegal {on} behavior 'EMPTY_OBJECT' specified in {name} function"
                raise json_path.JsonError(msg)
            return []
        return "[]" if kind == "EMPTY ARRAY" else "{}"
    return None


_CASTS = {"INT": ("java.lang.Integer", lambda v: isinstance(v, int) and not isinstance(v, bool)
                   and -2**31 <= v < 2**31, int),
          "DOUBLE": ("java.math.BigDecimal", lambda v: isinstance(v, Decimal),
                     lambda v: float(v) + 0.0),  # doubleValue: BigDecimal has no -0
          "BOOLEAN": ("java.lang.Boolean", lambda v: isinstance(v, bool), bool)}


def _returned(value, kind: str):
    """The found scalar as the RETURNING type, as Flink's generated code casts it.

    A string type is Java's ``String.valueOf``; the others are a Java cast of the parsed value:
    INT takes an ``Integer`` only, DOUBLE a ``BigDecimal`` only (a number with a fraction or an
    exponent: ``1`` does not cast), BOOLEAN a ``Boolean``. Any other value fails the job, as
    Flink's (a ``ClassCastException``), whatever ON ERROR says.

    Raises:
        JsonError: a value that does not cast.
    """
    if kind == "STRING":
        return json_path.java_text(value)
    java, fits, convert = _CASTS[kind]
    if fits(value):
        return convert(value)
    raise _cast_error(json_path.java_text(value), json_path.java_class(value), kind)


def _cast_error(text: str, found: str, kind: str) -> json_path.JsonError:
    java = _CASTS[kind][0]
    msg = (f"the value {text} (a {found} in Flink) cannot be returned as {kind}: Flink 2.3's job fails on it "
           f"too (ClassCastException: {found} cannot be cast to {java})")
    return json_path.JsonError(msg)


def _json_query_row(doc: str, path: str, cfg: dict):
    """Flink's ``SqlJsonUtils.jsonQuery`` of one document."""
    mode = _compiled(path).mode
    value, error = json_path.evaluate(doc, path)
    if error is None:
        wrapper = cfg["wrapper"]
        if value is not None and (wrapper == "UNCONDITIONAL ARRAY"
                                  or (wrapper == "CONDITIONAL ARRAY" and not isinstance(value, list))):
            value = [value]
        if value is None or (mode == "LAX" and json_path.is_scalar(value)):
            return _behave("JSON_QUERY", cfg, "empty", None)
        if json_path.is_scalar(value):
            error = json_path.JsonError("Strict jsonpath mode requires array or object value, and the actual "
                                        f"value is: ''{json_path.java_text(value)}''")
        elif cfg["returns"] != "ARRAY":
            return json_path.jsonize(value)
        elif not isinstance(value, list) or isinstance(value, json_path_functions.KeySet):
            found = "java.util.LinkedHashMap" + ("$LinkedKeySet" if isinstance(value, list) else "")
            error = json_path.JsonError(f"class {found} cannot be cast to class java.util.List")
        else:
            return [None if v is None else json_path.java_text(v) if json_path.is_scalar(v)
                    else json_path.jsonize(v) for v in value]
    return _behave("JSON_QUERY", cfg, "error", error)


_VALUE_FNS = {k: _row_function("JSON_VALUE", _json_value_row, k)
              for k in ("STRING", "INT", "DOUBLE", "BOOLEAN")}
_QUERY_FNS = {k: _row_function("JSON_QUERY", _json_query_row, k) for k in ("STRING", "ARRAY")}



@scalar("JSON_VALUE", group="json", sig=(("JSON", S),), result=_value_type,
        nulls="NULL if the document or the path is NULL; else as ON EMPTY (a lax path: nothing found, JSON "
              "null, an object or an array, a document that is not JSON) and ON ERROR (a strict path: the "
              "same; a path without lax/strict is strict), each NULL by default",
        differences="Clauses: RETURNING STRING, VARCHAR(n), INT, DOUBLE or BOOLEAN; {NULL | ERROR | DEFAULT "
                    "c} ON EMPTY / ON ERROR. A path whose answer in Flink depends on the rows before "
                    "it (Jayway's state: $..*.b, $..[*].b, $..a.length()) is refused; a DEFAULT must be "
                    "a constant (Flink's job fails on a column). "
                    "RETURNING VARCHAR(n) does not cut the text, as Flink's call over a column; Flink's "
                    "planner folds a call over a constant document into a literal cut to n characters "
                    "(not done here).")
def json_value(c: Call) -> exp.Expression:
    """JSON_VALUE(doc, path [RETURNING t] [... ON EMPTY] [... ON ERROR]): the scalar at the path.

    As Flink 2.3's ``SqlJsonUtils.jsonValue`` (:mod:`.json_path`): a path without ``lax``/``strict``
    is strict; a number keeps its text (``1.50``, ``1E+2``). RETURNING INT, DOUBLE, BOOLEAN or a
    string type; ERROR ON EMPTY / ON ERROR fail the job as Flink's does.
    """
    return _call_row(_VALUE_FNS, c, _value_type(c))


@scalar("JSON_QUERY", group="json", sig=(("JSON", S),), result=_query_type,
        nulls="NULL if the document or the path is NULL; else as ON EMPTY (a lax path: nothing found, JSON "
              "null, a scalar, a document that is not JSON) and ON ERROR (a strict path: the same; a path "
              "without lax/strict is strict), each NULL by default",
        differences="Clauses: RETURNING STRING, VARCHAR(n) or ARRAY<STRING>; {WITHOUT [ARRAY] | WITH "
                    "[CONDITIONAL | UNCONDITIONAL] [ARRAY]} WRAPPER; {NULL | ERROR | EMPTY ARRAY | EMPTY "
                    "OBJECT} ON EMPTY / ON ERROR. A path whose answer in Flink depends on the rows "
                    "before it (Jayway's state: $..*.b, $..[*].b, $..a.length()) is refused. RETURNING "
                    "VARCHAR(n) as "
                    "JSON_VALUE's (not cut; Flink cuts a "
                    "constant-folded call).")
def json_query(c: Call) -> exp.Expression:
    """JSON_QUERY(doc, path [RETURNING t] [wrapper] [... ON EMPTY] [... ON ERROR]): the JSON at the path.

    As Flink 2.3's ``SqlJsonUtils.jsonQuery`` (:mod:`.json_path`): compact JSON with object keys
    sorted; WITH [CONDITIONAL | UNCONDITIONAL] ARRAY WRAPPER wraps the value in an array;
    RETURNING ARRAY<STRING> gives an array's elements as strings; EMPTY OBJECT ON ERROR with it is
    refused, as Flink 2.3's validator refuses it.
    """
    result = _query_type(c)
    if result.name == "ARRAY" and str(_clauses(c).get("on_error") or "").upper() == "EMPTY OBJECT":
        msg = "Illegal on error behavior 'EMPTY OBJECT' for return type: VARCHAR(2147483647) ARRAY"
        raise c.fail(msg)
    return _call_row(_QUERY_FNS, c, result)


_EXISTS_ON_ERROR = {"TRUE": True, "FALSE": False, "UNKNOWN": None}


def _json_exists_row(doc: str, path: str, cfg: dict):
    """Flink's ``SqlJsonUtils.jsonExists`` of one document: a value other than JSON null was found.

    An error of the path's evaluation (:func:`.json_path.evaluate`: a strict step that finds
    nothing, a document that is not JSON in strict mode ...) is the ON ERROR behaviour: TRUE,
    FALSE (the default), UNKNOWN (NULL) or ERROR (the job fails with Flink's message).
    """
    _compiled(path)
    value, error = json_path.evaluate(doc, path)
    if error is None:
        return value is not None
    if cfg["on_error"] == "ERROR":
        raise error
    return _EXISTS_ON_ERROR[cfg["on_error"]]


_EXISTS_FN = _row_function("JSON_EXISTS", _json_exists_row, "BOOLEAN")


@scalar("JSON_EXISTS", group="json", sig=(("JSON", S),), result=fixed("BOOLEAN"),
        nulls="NULL if the document is NULL, or on an error with UNKNOWN ON ERROR (a NULL path is refused, "
              "as Flink's code generator refuses it, and a path that is not a literal)",
        differences="A path whose answer in Flink depends on the rows before it (Jayway's state: $..*.b, "
                    "$..[*].b, $..a.length()) is refused.")
def json_exists(c: Call) -> exp.Expression:
    """JSON_EXISTS(doc, path [{TRUE | FALSE | UNKNOWN | ERROR} ON ERROR]): the path finds a value.

    As Flink 2.3's ``SqlJsonUtils.jsonExists`` (:mod:`.json_path`): JSON null found is not a value;
    an error (a strict path that finds nothing, a document that is not JSON) is the ON ERROR
    behaviour, FALSE by default. A path without ``lax``/``strict`` is strict.
    """
    if c.args[0].type is not None and c.args[0].type.name == "VARIANT":  # JSON_VALUE, JSON_QUERY take it
        msg = "Unsupported call: JSON_EXISTS(VARIANT, STRING) (Flink 2.3 has no JSON_EXISTS of a VARIANT)"
        raise c.fail(msg)
    cfg = _config(c, SqlType("BOOLEAN"))
    cfg["on_error"] = _clauses(c).get("on_error") or "FALSE"
    if not cfg["literal"] or c.args[1].value() is None:
        # Flink 2.3's code generator takes a literal path only, and refuses a NULL one (JSON_VALUE's
        # is NULL): "Unsupported call" (flink_json_paths.json)
        types = ", ".join(["STRING", "STRING"] + (["SYMBOL NOT NULL"] if _clauses(c) else []))
        msg = f"Unsupported call: JSON_EXISTS({types})"
        raise c.fail(msg)
    return _template(_EXISTS_FN, c, cfg)


def _json_text(c: Call, a: Arg) -> str:
    """DuckDB SQL of the JSON text of a value (NULL for NULL), as Flink writes it (:mod:`.json_values`).

    Raises:
        FunctionError: a value of a type not written yet, naming the call (the aggregate whose value
            a ``JSON_STRING`` wraps: :data:`JSON_AGGREGATE`) and positioned at it.
    """
    inner = a.sql.this if isinstance(a.sql, exp.Cast) else a.sql
    if inner.meta.get(JSON_MADE):
        return a.text
    why = json_values.refusal(a.type)
    if why is not None and why.startswith("Type '") and DEAD_CODE.get():
        return "CAST(NULL AS VARCHAR)"  # Flink's code generator refuses it, in code Flink drops: never run
    if why is not None:
        msg = f"{c.node.meta.get(JSON_AGGREGATE, c.name)}: {why}"
        raise c.fail(msg)
    return json_values.value_json(a.text, a.type)


def _sql(text: str) -> exp.Expression:
    """A DuckDB expression from ready SQL text (no placeholders: argument texts may hold braces)."""
    return exp.Var(this=f"({text})")


def _made(text: str) -> exp.Expression:
    node = _sql(text)
    node.meta[JSON_MADE] = True
    return node


#: Element types of an ARRAY whose JSON text DuckDB's ``to_json`` writes as Flink's JSON_STRING
#: (Jackson) does: ``[1,2]``, ``["a","b"]``, ``[true,null]`` (floating and decimal numbers are
#: written otherwise: refused).
_ARRAY_ELEMENTS = ("STRING", "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT")


@scalar("JSON_STRING", group="json", sig=(("ANY",),), result=STRING)
def json_string(c: Call) -> exp.Expression:
    """The value as JSON text: a string quoted and escaped, an ARRAY a JSON array.

    An ARRAY of strings, integers or booleans only, as Flink 2.3's ``JSON_STRING(ARRAY[1, 2])`` is
    ``[1,2]``; other arrays are refused.
    """
    a = c.args[0]
    if a.type is not None and a.type.name == "ARRAY" and a.type.children[0].name in _ARRAY_ELEMENTS:
        return _sql(f"CAST(to_json({a.text}) AS VARCHAR)")
    return _sql(_json_text(c, a))


@scalar("JSON_OBJECT", group="json", sig=((), ("ANY", "ANY...")), result=STRING,
        nulls="never NULL; a NULL value is written as null (NULL ON NULL, the default) or left out "
              "(ABSENT ON NULL)")
def json_object(c: Call) -> exp.Expression:
    """JSON_OBJECT([KEY] k VALUE v, ... [NULL | ABSENT ON NULL]): an object of the pairs.

    Sorted by their literal keys; keys that are no literals, or repeated, in the order written.
    """
    absent = c.unit == "ABSENT ON NULL"
    entries = []
    pairs = list(zip(c.args[::2], c.args[1::2]))
    literal = [k.sql.this if isinstance(k.sql, exp.Literal) and k.sql.is_string else None for k, _ in pairs]
    if len(set(literal)) == len(pairs) and None not in literal:
        # Flink 2.3 writes the members sorted by key (its Jackson mapper, as JSON_QUERY's objects):
        # JSON_OBJECT('k' VALUE 1, 'b' VALUE true) is {"b":true,"k":1}; Java's String order
        pairs.sort(key=lambda kv: kv[0].sql.this.encode("utf-16-be", "surrogatepass"))
    for key, value in pairs:
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
        nulls="never NULL; NULL values are left out (ABSENT ON NULL, Flink's default) or written as null "
              "(NULL ON NULL)")
def json_array(c: Call) -> exp.Expression:
    """JSON_ARRAY(v, ... [ABSENT ON NULL | NULL ON NULL]): an array of the values, in order."""
    items = [_json_text(c, a) for a in c.args]
    if c.unit == "NULL ON NULL":
        items = [f"coalesce({text}, 'null')" for text in items]
    body = f"coalesce(array_to_string([{', '.join(items)}], ','), '')" if items else "''"
    return _made(f"'[' || {body} || ']'")


#: ``IS JSON`` kinds: whether a parsed document is one (Flink's ``SqlJsonUtils.isJsonObject`` ...).
_KINDS = {"VALUE": lambda v: True, "OBJECT": lambda v: isinstance(v, dict),
          "ARRAY": lambda v: isinstance(v, list), "SCALAR": lambda v: not isinstance(v, (dict, list))}


def _is_json_array(kind: str, texts: pa.ChunkedArray) -> pa.Array:
    """``IS JSON <kind>`` over a batch of texts: false for NULL or text Jackson does not read."""
    test = _KINDS[kind]
    out = []
    for t in texts.to_pylist():
        try:
            out.append(t is not None and test(json_path.parse_document(t)))
        except json_path.JsonError:
            out.append(False)
    return pa.array(out, pa.bool_())


_IS_JSON = {kind: python_call(f"IS_JSON_{kind}", lambda t, k=kind: _is_json_array(k, t), ("VARCHAR",),
                              "BOOLEAN")
            for kind in _KINDS}


def is_json(value: exp.Expression, kind: str | None) -> exp.Expression:
    """``value IS JSON [VALUE | OBJECT | ARRAY | SCALAR]``: false for NULL or text that is not JSON.

    Text is JSON when Jackson reads a first value from it, as Flink's ``SqlJsonUtils.isJsonValue``
    (:func:`.json_path.parse_document`: ``[1]x`` and ``1 x`` are JSON, ``[1,]``, ``NaN``, ``01``
    and documents deeper than 1000 are not), row by row; DuckDB's ``json_valid`` is another grammar.
    """
    return _IS_JSON[(kind or "VALUE").upper()](Call("IS JSON", [Arg(value, SqlType("STRING"))], value))
