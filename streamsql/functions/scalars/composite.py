"""Composite values: ROW, ARRAY and MAP construction and access, CARDINALITY, ELEMENT.

Checked against Apache Flink 2.3 (tests/compat/cases/composite_*):

=========================== ====================================== ==============================
Flink                       result type                            DuckDB
=========================== ====================================== ==============================
``row.f``, ``row['f']``     the field's type (NULL if row is NULL)  ``struct_extract(row, 'f')``
``arr[i]`` (1-based)        the element type; NULL out of range;   ``list_extract`` (a literal
                            a literal ``i < 1`` is a planning        ``i < 1`` is refused; a
                            error                                  computed one gives NULL)
``map[k]``                  the value type; NULL for a missing key ``map_extract_value``
``ROW(a, b)``, ``(a, b)``   ``ROW<EXPR$0 .., EXPR$1 ..>``          ``struct_pack``
``ARRAY[a, b]``             ``ARRAY<common type>``                 ``list_value`` of casts
``MAP[k1, v1, ...]``        ``MAP<common key, common value>``      ``map(keys, values)``
``CARDINALITY(arr|map)``    INT                                    ``len`` / ``cardinality``
``ELEMENT(arr)``            the element; NULL if empty; fails the  ``CASE len ...``
                            job for more than one element
``v['k']``, ``v[i]``        VARIANT: a member, a 1-based element;  :func:`.variant.access`
(``v`` a VARIANT)           NULL when missing
=========================== ====================================== ==============================

:func:`compile_composite` is the binder's hook for the operator-like nodes (field access,
brackets, constructors); CARDINALITY and ELEMENT are registry entries.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType, duckdb_cast
from streamsql.functions.scalars import variant
from streamsql.functions.scalars.registry import (
    DEAD_CODE,
    Call,
    FunctionError,
    bind,
    fail_sql,
    scalar,
    sql_node,
    sql_string,
    template,
    to_time,
    type_of,
)
from streamsql.functions.scalars.typerules import branches, common_type, least_restrictive, rows_type

_INT = SqlType("INT")


_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE, exp.NullSafeEQ, exp.NullSafeNEQ)


def handles(n: exp.Expression) -> bool:
    """Whether ``n`` is a composite node :func:`compile_composite` compiles."""
    if isinstance(n, (exp.Dot, exp.Bracket, exp.Array, exp.Tuple, exp.VarMap)):
        return True
    if isinstance(n, _COMPARISONS):
        return any(t is not None and t.is_composite for t in (type_of(n.this), type_of(n.expression)))
    if isinstance(n, exp.In) and not n.args.get("query"):
        t = type_of(n.this)
        return t is not None and t.is_composite
    if isinstance(n, (exp.Case, exp.Coalesce)) or isinstance(n, exp.If) and n.arg_key != "ifs":
        return any(t is not None and t.is_composite for t in map(type_of, branches(n)))
    return isinstance(n, exp.Anonymous) and n.name.upper() == "ROW"


def compile_composite(n: exp.Expression) -> tuple[exp.Expression, SqlType | None]:
    """The DuckDB form and Flink type of a composite node whose children are compiled.

    Raises:
        FunctionError: a field the ROW has not, a bracket on a value that is no ROW, ARRAY or
            MAP, an index or key of the wrong type, a literal array index below 1, elements
            with no common type.
    """
    if isinstance(n, exp.Dot):
        return _field(n, n.this, n.expression.name)
    if isinstance(n, exp.Bracket):
        return _bracket(n)
    if isinstance(n, exp.Array):
        return _array(n, n.expressions)
    if isinstance(n, exp.VarMap):
        return _map(n, n.args["keys"], n.args["values"])
    if isinstance(n, _COMPARISONS):
        return _compare(n)
    if isinstance(n, exp.In):
        n.set("expressions", [_like(n, n.this, e) for e in n.expressions])
        return n, SqlType("BOOLEAN")
    if isinstance(n, (exp.Case, exp.Coalesce, exp.If)):
        return _choice(n)
    return _row(n.expressions)


def _choice(n: exp.Expression) -> tuple[exp.Expression, SqlType]:
    """CASE / COALESCE over composites: every value brought to their common type by position.

    Flink's IF function takes none (refused, as Flink 2.3's validator refuses ``IF(f, ROW(j, s), ROW(j,
    s))`` and ``IF(f, ARRAY[..], ARRAY[..])``).

    DuckDB unifies STRUCTs by field name, which would merge ``p`` and ``ROW(...)`` into one
    STRUCT of both field lists; Flink takes the fields by position.
    """
    values = branches(n)
    if isinstance(n, exp.If) and not isinstance(n.parent, exp.Case):  # Flink's IF function
        operands = ", ".join(f"<{type_of(v) or '?'}>" for v in (n.this, *values))
        msg = (f"Cannot apply 'IF' to arguments of type 'IF({operands})': no form of Flink's IF takes a "
               "ROW, ARRAY or MAP (Flink 2.3's validator refuses it); use CASE WHEN")
        raise FunctionError(msg, n)
    t = common_type([type_of(v) for v in values])
    if t is None:
        msg = "The values have no common type: " + ", ".join(str(type_of(v) or "?") for v in values)
        raise FunctionError(msg, n)

    def cast(v: exp.Expression) -> exp.Expression:
        vt = type_of(v)
        if vt is None or vt.name == "NULL" or vt == t:
            return v
        return sql_node(duckdb_cast(v.sql(dialect="duckdb"), vt, t))

    if isinstance(n, exp.Case):
        for i in n.args.get("ifs") or []:
            i.set("true", cast(i.args["true"]))
        if n.args.get("default"):
            n.set("default", cast(n.args["default"]))
        return n, t
    if isinstance(n, exp.Coalesce):
        return sql_node("coalesce(" + ", ".join(_sql(cast(v)) for v in values) + ")"), t
    return exp.If(this=n.this, true=cast(n.args["true"]),
                  false=cast(n.args["false"]) if n.args.get("false") else None), t


def _compare(n: exp.Expression) -> tuple[exp.Expression, SqlType]:
    """A comparison (or IN) of composites: the right side brought to the left's type, by position.

    DuckDB compares STRUCTs by field name, so ``p = ROW(1, 'a')`` (fields ``EXPR$0, EXPR$1``)
    would never be equal; Flink compares ROWs field by field.
    """
    left, right = type_of(n.this), type_of(n.expression)
    t = common_type([left, right]) if left is not None and right is not None \
        and left.name == right.name and len(left.children) == len(right.children) else None
    if t is not None and t.name == "ROW" and t != left:  # field by field in their common types, as
        # Flink (ROW(CAST(-3 AS SMALLINT), 'a') = ROW(123.456 - b, 'a') compares DECIMALs; the right
        # side was cast to the left's SMALLINT, failing the job)
        n.set("this", sql_node(duckdb_cast(n.this.sql(dialect="duckdb"), left, t)))
        n.set("expression", sql_node(duckdb_cast(n.expression.sql(dialect="duckdb"), right, t)))
    else:
        n.set("expression", _like(n, n.this, n.expression))
        t = type_of(n.this)
    if isinstance(n, (exp.EQ, exp.NEQ)) and t.name in ("ARRAY", "MAP"):
        return _collection_equals(n, t), SqlType("BOOLEAN")
    return n, SqlType("BOOLEAN")


def _collection_equals(n: exp.EQ | exp.NEQ, t: SqlType) -> exp.Expression:
    """ARRAY / MAP ``=`` and ``<>`` as Flink 2.3: a NULL element (map value) is equal to nothing.

    Flink compares collections element by element and gives false as soon as either side holds a
    NULL there (``ARRAY[1, NULL] = ARRAY[1, NULL]`` is false, ``<>`` true), where DuckDB takes
    NULL elements as equal. ``x = x`` of the same expression is true for a non-NULL ``x``:
    Calcite simplifies it to ``x IS NOT NULL OR NULL`` before any element is looked at. MAPs are
    equal whatever their entries' order, as Flink's (DuckDB's map ``=`` is by order).
    """
    left, right = _sql(n.this), _sql(n.expression)
    if left == right:
        equal = f"CASE WHEN {left} IS NOT NULL THEN true END"
    else:
        values = "{}" if t.name == "ARRAY" else "map_values({})"
        no_null = " AND ".join(f"list_aggregate({values.format(s)}, 'count') = len({values.format(s)})"
                               for s in (left, right))
        both = f"{left} IS NOT NULL AND {right} IS NOT NULL"
        same = f"{left} = {right}" if t.name == "ARRAY" else \
            f"list_sort(map_entries({left})) = list_sort(map_entries({right}))"
        equal = f"CASE WHEN {both} THEN {same} AND {no_null} END"
    return sql_node(f"({equal})" if isinstance(n, exp.EQ) else f"(NOT ({equal}))")


def _like(n: exp.Expression, model: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``value`` cast to the composite type of ``model``, ROW fields by position."""
    left, right = type_of(model), type_of(value)
    if left is None or right is None or left.name != right.name or len(left.children) != len(right.children):
        msg = f"Cannot compare {left or 'unknown'} with {right or 'unknown'}"
        raise FunctionError(msg, n)
    return value if left == right else sql_node(duckdb_cast(value.sql(dialect="duckdb"), right, left))


def _sql(node: exp.Expression) -> str:
    return "(" + node.sql(dialect="duckdb") + ")"


def _field(n: exp.Expression, row: exp.Expression, name: str) -> tuple[exp.Expression, SqlType | None]:
    t = type_of(row)
    if t is None or t.name != "ROW":
        msg = f"Cannot read field '{name}' of a value of type {t or 'unknown'}; only a ROW has fields"
        raise FunctionError(msg, n)
    found = t.field(name)
    if found is None:
        msg = f"Column '{name}' not found in {t}"
        raise FunctionError(msg, n)
    return sql_node(f"struct_extract({_sql(row)}, {sql_string(found[1])})"), found[2]


def _bracket(n: exp.Bracket) -> tuple[exp.Expression, SqlType | None]:
    base, keys = n.this, n.expressions
    t = type_of(base)
    if len(keys) == 1 and t is not None and t.name == "VARIANT":
        try:
            return variant.access(base, keys[0], type_of(keys[0]), n), variant.VARIANT
        except ValueError as e:
            raise FunctionError(str(e), n) from None
    if len(keys) != 1 or t is None or not t.is_composite:
        msg = f"Cannot apply '[]' to a value of type {t or 'unknown'}; supported: <ARRAY>[<INTEGER>], " \
              "<MAP>[<KEY>], <ROW>['field']"
        raise FunctionError(msg, n)
    key, kt = keys[0], type_of(keys[0])
    if t.name == "ROW":
        if not (isinstance(key, exp.Literal) and key.is_string):
            msg = "A ROW field is read with a string literal: row['field'] (or row.field)"
            raise FunctionError(msg, n)
        return _field(n, base, key.this)
    if t.name == "ARRAY":
        if kt is not None and kt.name not in ("TINYINT", "SMALLINT", "INT", "BIGINT", "NULL"):
            msg = (f"Cannot apply 'ITEM' to arguments of type 'ITEM(<{t}>, <{kt}>)'. "
                   "Supported form(s): <ARRAY>[<INTEGER>]")
            raise FunctionError(msg, n)
        if isinstance(key, exp.Literal) and int(key.this) < 1 or \
                isinstance(key, exp.Neg) and isinstance(key.this, exp.Literal):
            if DEAD_CODE.get():  # checked after Calcite's simplification: a branch it drops passes
                return sql_node(f"CAST(NULL AS {t.children[0].duckdb()})"), t.children[0]
            value = key.sql(dialect="duckdb")
            msg = f"Array element access needs an index starting at 1 but was {value}."
            raise FunctionError(msg, n)
        k = _sql(key)
        return sql_node(f"CASE WHEN {k} >= 1 THEN list_extract({_sql(base)}, {k}) END"), t.children[0]
    key_type = t.children[0]
    if kt is not None and kt.name != "NULL" and common_type([kt, key_type]) is None:
        msg = (f"Cannot apply 'ITEM' to arguments of type 'ITEM(<{t}>, <{kt}>)'. "
               "Supported form(s): <MAP>[<KEY>] with a key of the map's key type")
        raise FunctionError(msg, n)
    value = f"map_extract_value({_sql(base)}, CAST({_sql(key)} AS {key_type.duckdb()}))"
    return sql_node(value), t.children[1]


def _common(n: exp.Expression, items: list[exp.Expression], what: str) -> SqlType:
    """The elements' type: Calcite's least restrictive type, as Flink 2.3's ARRAY[...] and MAP[...].

    Among numbers with a FLOAT or DOUBLE, the first approximate one met wins (``ARRAY[CAST(x AS
    FLOAT), d]`` is ARRAY<FLOAT>, ``ARRAY[d, CAST(x AS FLOAT)]`` ARRAY<DOUBLE>, a DECIMAL with a
    FLOAT DOUBLE: read from Flink's planner).
    """
    types = [type_of(i) for i in items]
    approximate = any(t is not None and t.name in ("FLOAT", "DOUBLE") for t in types)
    t = least_restrictive(types) if approximate else rows_type(types)
    if t is None:
        shown = ", ".join(str(x) if x is not None else "?" for x in types)
        msg = f"{what} has no common type for its elements ({shown})"
        raise FunctionError(msg, n)
    return t


def _list(items: list[exp.Expression], t: SqlType) -> str:
    return "list_value(" + ", ".join(_element(i, t) for i in items) + ")"


def _element(item: exp.Expression, t: SqlType) -> str:
    """An element cast to the array's type ``t`` (a TIMESTAMP and a TIMESTAMP_LTZ in the session zone)."""
    it = type_of(item)
    if it is not None and it.is_time and t.is_time:
        return f"CAST({to_time(_sql(item), it, t)} AS {t.duckdb()})"
    return f"CAST({_sql(item)} AS {t.duckdb()})"


def _array(n: exp.Expression, items: list[exp.Expression]) -> tuple[exp.Expression, SqlType]:
    if not items:
        msg = "ARRAY[] needs at least one element"
        raise FunctionError(msg, n)
    if any(type_of(i) is not None and type_of(i).name == "BITMAP" for i in items):
        msg = ("No assign rules for OTHER defined: an ARRAY[...] or MAP[...] of BITMAPs fails Flink 2.3's "
               "planner (java.lang.AssertionError)")
        raise FunctionError(msg, n)
    t = _common(n, items, "ARRAY[...]")
    out = sql_node(_list(items, t))
    out.meta["items"] = tuple(range(len(items)))  # how many, for MAP[...]'s pairing check
    return out, SqlType.array(t)


def _map(n: exp.Expression, keys: exp.Expression, values: exp.Expression) -> tuple[exp.Expression, SqlType]:
    kt, vt = type_of(keys), type_of(values)  # the compiled key and value ARRAY[...]
    if kt is None or vt is None or len(kt.children) != 1 or len(vt.children) != 1 or \
            len(keys.meta.get("items", ())) != len(values.meta.get("items", ())):
        msg = "MAP[...] needs keys and values in pairs: MAP[k1, v1, k2, v2, ...]"
        raise FunctionError(msg, n)
    mt = SqlType.map(kt.children[0], vt.children[0])
    if len(keys.meta["items"]) < 2:
        made = "map(__mk, __mv)"
    else:
        # a key given again replaces the earlier value and keeps its place, as Flink's MAP[...]
        # (MAP['k', 1, 'k', 2] is {k=2}; DuckDB's map() refuses a repeated key)
        made = ("map(list_filter(__mk, lambda __x, __i: list_position(__mk, __x) = __i), "
                "list_transform(list_filter(__mk, lambda __x, __i: list_position(__mk, __x) = __i), "
                "lambda __x: __mv[len(__mk) + 1 - list_position(list_reverse(__mk), __x)]))")
    null_key = "len(list_filter(__mk, lambda __x: __x IS NULL)) > 0"
    guarded = f"CASE WHEN {null_key} THEN {_null_key(n)} ELSE {made} END"
    return sql_node("(" + bind(_sql(keys), "__mk", bind(_sql(values), "__mv", guarded)) + ")"), mt


def _null_key(n: exp.Expression) -> str:
    """DuckDB SQL failing the job for a NULL key of the MAP[...] ``n``, naming its position (its first key's).

    Flink 2.3 builds a map holding a NULL key (query fuzz seed 400135: ``MAP_ENTRIES(MAP[g, k])`` of
    a NULL ``g`` lists ``(NULL, k)``); StreamSQL's maps are Arrow / DuckDB maps, which hold none, so
    the row fails the job rather than losing the entry.
    """
    line, col = n.meta.get("line"), n.meta.get("col")
    if line is not None and col is not None:
        col -= n.meta.get("end", 0) - n.meta.get("start", 0)
    where = f" (its first key at line {line}, column {col})" if line is not None else ""
    return fail_sql(sql_string(f"MAP[...]{where} has a NULL key: Flink 2.3 keeps a NULL key in a map; "
                               "StreamSQL's maps cannot hold one"))


def _row(items: list[exp.Expression]) -> tuple[exp.Expression, SqlType]:
    fields = [(f"EXPR${i}", type_of(v) or SqlType("STRING")) for i, v in enumerate(items)]
    packed = ", ".join(f'"{name}" := {_sql(v)}' for (name, _), v in zip(fields, items))
    return sql_node(f"struct_pack({packed})"), SqlType.row(fields)


@scalar("CARDINALITY", group="collection", sig=(("ARRAY",), ("MAP",)), result=lambda c: _INT,
        nulls="NULL if the array or map is NULL")
def cardinality(c: Call) -> exp.Expression:
    """The number of elements of an array, or of entries of a map."""
    t = c.args[0].type
    return template("cardinality({0})" if t is not None and t.name == "MAP" else "len({0})", *c.args)


def _element_type(c: Call) -> SqlType | None:
    t = c.args[0].type
    return t.children[0] if t is not None and t.children else None


@scalar("ELEMENT", group="collection", sig=(("ARRAY",),), result=_element_type,
        nulls="NULL if the array is NULL or empty; fails the job for more than one element")
def element(c: Call) -> exp.Expression:
    """The only element of an array (Flink fails the job when there are several)."""
    failed = fail_sql("'Array has more than one element.'")
    return template(f"CASE WHEN len({{0}}) > 1 THEN {failed} WHEN len({{0}}) = 1 "
                    "THEN list_extract({0}, 1) END", *c.args)
