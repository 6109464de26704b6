"""Flink 2.3's collection functions over ARRAY and MAP values, and SPLIT and STR_TO_MAP.

Each is one DuckDB list expression over the whole batch (``list_filter``, ``list_position``,
``list_sort`` ... with lambdas), never a Python loop (but for ARRAY_SORT of floating point holding a
NaN or both zeros: :mod:`.java_sort`). Flink's semantics, from its 2.3 runtime classes
(``org.apache.flink.table.runtime.functions.scalar.Array*Function``) and checked against its answers
(compat cases ``tests/compat/cases/collection_*``):

- Elements are compared NULL-safely where Flink's Java compares them that way: ARRAY_CONTAINS,
  ARRAY_REMOVE, ARRAY_DISTINCT, ARRAY_UNION, ARRAY_EXCEPT and ARRAY_INTERSECT treat a NULL element
  as a value equal to NULL (``list_position`` does too); ARRAY_POSITION of a NULL is NULL. Other
  elements are compared with Flink's ``=``: a NaN, and an ARRAY or MAP element holding a NULL,
  equal nothing (:func:`_never_equal`).
- The set functions keep the first occurrence of each element, in the first array's order
  (ARRAY_DISTINCT, ARRAY_UNION, ARRAY_EXCEPT, ARRAY_INTERSECT); ARRAY_CONCAT keeps duplicates.
- A NULL array (or map) argument makes the result NULL, except ARRAY_CONTAINS' and ARRAY_REMOVE's
  needle and ARRAY_APPEND/ARRAY_PREPEND's element, which may be NULL.
- A needle or added element is brought to the array's element type, which it must cast to
  implicitly (an INT into ARRAY<BIGINT>; a BIGINT into ARRAY<INT> is refused, as Flink).
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from streamsql.core.types import SqlType, implicit_cast
from streamsql.functions.python_functions import VectorFunction, register
from streamsql.functions.scalars.java_sort import sort_arrays
from streamsql.functions.scalars.registry import (
    Call,
    Failure,
    bind,
    cast_value,
    fail_sql,
    scalar,
    sql_string,
    template,
)
from streamsql.functions.scalars.typerules import common_type, is_null

_BOOLEAN = SqlType("BOOLEAN")
_INT = SqlType("INT")
_STRING = SqlType("STRING")


def collection(name: str, sig: tuple[tuple[str, ...], ...], result, **extra):
    """Register ``name`` (:func:`~.registry.scalar`, group 'collection').

    An untyped NULL where an ARRAY or MAP goes is refused, as Flink's validator refuses it
    (``Illegal use of 'NULL'``).
    """
    def register(build):
        def checked(c: Call) -> exp.Expression:
            for i, a in enumerate(c.args):
                families = {s[min(i, len(s) - 1)].removesuffix("...") for s in sig if s}
                if a.type is not None and is_null(a.type) and families & {"ARRAY", "MAP"}:
                    msg = f"Illegal use of 'NULL' as argument {i + 1} of {c.name}: write CAST(NULL AS <type>)"
                    raise c.fail(msg)
            return build(c)
        checked.__doc__ = build.__doc__
        scalar(name, group="collection", sig=sig, result=result, **extra)(checked)
        return build
    return register


def _orderable(c: Call) -> None:
    """Refuse an array whose elements Flink does not order (BOOLEAN, ROW, ARRAY, MAP)."""
    e = _element(c.args[0].type)
    if e is not None and e.name in ("BOOLEAN", "ROW", "ARRAY", "MAP"):
        msg = (f"Invalid function call: {c.name}: type '{e}' should support both 'EQUALS' and 'ORDER' "
               "comparison with itself (Flink orders numbers, strings, bytes and times)")
        raise c.fail(msg)


def _element(t: SqlType | None) -> SqlType | None:
    """The element type of an ARRAY type (None: unknown)."""
    return t.children[0] if t is not None and t.name == "ARRAY" and t.children else None


def _array_type(c: Call) -> SqlType | None:
    """The first argument's ARRAY type, nullable (None for an untyped NULL)."""
    t = c.args[0].type
    return None if t is None or is_null(t) else t.with_nullable(True)


def _element_type(c: Call) -> SqlType | None:
    e = _element(c.args[0].type)
    return None if e is None else e.with_nullable(True)


def _as_element(c: Call, i: int) -> str:
    """DuckDB SQL of argument ``i`` brought to the array's element type (Flink's implicit cast).

    Raises:
        FunctionError: the argument's type does not cast to the element type implicitly.
    """
    a, element = c.args[i], _element(c.args[0].type)
    if element is None:
        return a.text
    if a.type is None or is_null(a.type):
        return f"CAST(NULL AS {element.duckdb()})"
    source, target = a.type.with_nullable(True), element.with_nullable(True)
    if source == target:
        return a.text
    if not implicit_cast(source, target):
        msg = (f"Invalid input arguments of {c.name}: the element of type {a.type} does not cast "
               f"implicitly to the array's element type {element}")
        raise c.fail(msg)
    return f"({cast_value(a.text, a.type, element)})"


def _common_arrays(c: Call, kind: str = "ARRAY") -> tuple[SqlType | None, list[str]]:
    """The arguments' common ARRAY (MAP) type and each argument's DuckDB SQL cast to it.

    Raises:
        FunctionError: the arguments have no common type.
    """
    types = [a.type for a in c.args]
    if any(t is None for t in types):
        return None, [a.text for a in c.args]
    t = common_type(types)
    if t is None or t.name != kind:
        shown = ", ".join(str(x) for x in types)
        msg = f"Invalid input arguments of {c.name}: the {kind.lower()}s ({shown}) have no common type"
        raise c.fail(msg)
    t = t.with_nullable(True)
    out = []
    for a in c.args:
        if is_null(a.type):
            out.append(f"CAST(NULL AS {t.duckdb()})")
        else:
            out.append(a.text if a.type.with_nullable(True) == t else f"({cast_value(a.text, a.type, t)})")
    return t, out


def _over(parts: list[str], fn: str) -> exp.Expression:
    """``fn(parts...)``, NULL if any part is NULL (DuckDB's list_concat takes a NULL as empty)."""
    nulls = " OR ".join(f"{{{i}}} IS NULL" for i in range(len(parts)))
    args = ", ".join(f"{{{i}}}" for i in range(len(parts)))
    return template(f"CASE WHEN {nulls} THEN NULL ELSE {fn}({args}) END", *parts)


def _never_equal(x: str, t: SqlType | None, depth: int = 0) -> str | None:
    """DuckDB SQL: whether the value ``x`` of type ``t`` equals nothing in Flink (None: it cannot).

    Flink compares elements with its ``=``, where a NaN equals nothing (Java's ``==``) and an ARRAY
    or MAP holding a NULL or such a value, at any depth, neither (``ARRAY[1, NULL] = ARRAY[1,
    NULL]`` is false); DuckDB's ``list_position`` finds both. False for a NULL ``x``.
    """
    if t is None:
        return None
    if t.name in ("DOUBLE", "FLOAT"):
        return f"coalesce(isnan({x}), false)"
    if t.name not in ("ARRAY", "MAP"):
        return None
    items, inner_type = (x, t.children[0]) if t.name == "ARRAY" else (f"map_values({x})", t.children[1])
    v = f"__h{depth}"
    test = f"list_aggregate({items}, 'count') < len({items})"
    inner = _never_equal(v, inner_type, depth + 1)
    if inner is not None:
        test += f" OR list_bool_or(list_transform({items}, lambda {v}: {inner}))"
    return f"coalesce({test}, false)"


def _distinct(a: str, element: SqlType | None) -> str:
    """DuckDB SQL of the list ``a`` (a lambda parameter or column) without repeats, first ones kept.

    As Flink's ArrayDistinctFunction: one NULL is kept; an element that equals nothing (a NaN, an
    ARRAY holding a NULL: :func:`_never_equal`) is kept at each occurrence.
    """
    unequal = _never_equal("__x", element)
    keep = f"list_position({a}, __x) = __i" + (f" OR {unequal}" if unequal else "")
    return f"list_filter({a}, lambda __x, __i: {keep})"


def _unequal_needle(c: Call, answer: str) -> str:
    """A CASE branch giving ``answer`` for a needle (``{1}``) that equals nothing ("" if none can)."""
    unequal = _never_equal("{1}", _element(c.args[0].type))
    return f"WHEN {unequal} THEN {answer} " if unequal else ""


# -- ARRAY ---------------------------------------------------------------------------------------
@collection("ARRAY_CONTAINS", sig=(("ARRAY", "ANY"),), result=lambda c: _BOOLEAN,
        nulls="NULL if the array is NULL; a NULL element is found where the array holds a NULL")
def array_contains(c: Call) -> exp.Expression:
    """Whether the array holds the element (NULL-safe: a NULL needle finds a NULL element)."""
    return template(f"CASE WHEN {{0}} IS NULL THEN NULL {_unequal_needle(c, 'false')}"
                    "ELSE list_position({0}, {1}) IS NOT NULL END", c.args[0], _as_element(c, 1))


@collection("ARRAY_POSITION", sig=(("ARRAY", "ANY"),), result=lambda c: _INT,
        nulls="NULL if any argument is NULL; 0 when the element is not in the array")
def array_position(c: Call) -> exp.Expression:
    """The 1-based position of the element's first occurrence, 0 if it is not there."""
    return template(f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL {_unequal_needle(c, '0')}"
                    "ELSE coalesce(list_position({0}, {1}), 0) END",
                    c.args[0], _as_element(c, 1))


@collection("ARRAY_DISTINCT", sig=(("ARRAY",),), result=_array_type,
        nulls="NULL if the array is NULL; one NULL element is kept; a NaN, or an ARRAY holding a NULL, at "
              "each occurrence (Flink's = finds it equal to nothing)")
def array_distinct(c: Call) -> exp.Expression:
    """The elements without repeats, in the order of their first occurrence."""
    return template(bind("{0}", "__a", _distinct("__a", _element(c.args[0].type))), *c.args)


@collection("ARRAY_REMOVE", sig=(("ARRAY", "ANY"),), result=_array_type,
        nulls="NULL if the array is NULL; a NULL element removes the NULL elements")
def array_remove(c: Call) -> exp.Expression:
    """The array without every element equal to the given one (order kept)."""
    unequal = _never_equal("{1}", _element(c.args[0].type))
    keep = "__x IS DISTINCT FROM {1}" + (f" OR {unequal}" if unequal else "")
    return template(f"CASE WHEN {{0}} IS NULL THEN NULL ELSE list_filter({{0}}, lambda __x: {keep}) END",
                    c.args[0], _as_element(c, 1))


@collection("ARRAY_REVERSE", sig=(("ARRAY",),), result=_array_type,
        nulls="NULL if the array is NULL")
def array_reverse(c: Call) -> exp.Expression:
    """The elements in reverse order."""
    return template("list_reverse({0})", *c.args)


@collection("ARRAY_SLICE", sig=(("ARRAY", "INTEGER"), ("ARRAY", "INTEGER", "INTEGER")),
        result=_array_type, nulls="NULL if any argument is NULL")
def array_slice(c: Call) -> exp.Expression:
    """The elements from the start to the end offset, inclusive, as Flink's ArraySliceFunction.

    Offsets are 1-based, 0 is the first element too, a negative one counts from the end
    (``-1`` the last); the end is the array's length when omitted. After that, the start is at
    least 1 and an end of 0 is 1 (so ``ARRAY_SLICE(a, 1, -(n + 1))`` is the first element), an
    end past the array its last element; an end before the start gives an empty array.
    """
    for a in c.args[1:]:
        if a.type is not None and a.type.name == "BIGINT":
            msg = f"Invalid input arguments of {c.name}: the offsets are INT (a BIGINT is not cast to INT)"
            raise c.fail(msg)
    end = "{2}" if len(c.args) > 2 else "len(__a)"
    start = "greatest(1, __s + CASE WHEN __s < 0 THEN len(__a) + 1 ELSE 0 END)"
    stop = "__e + CASE WHEN __e < 0 THEN len(__a) + 1 ELSE 0 END"
    stop = f"CASE WHEN {stop} = 0 THEN 1 ELSE least({stop}, len(__a)) END"
    # DuckDB's list_slice reads a negative end from the end: an end before the start is tested first
    body = (f"CASE WHEN len(__a) = 0 THEN __a ELSE list_transform([[{start}, {stop}]], lambda __p: "
            "CASE WHEN __p[2] < __p[1] THEN list_filter(__a, lambda __z: false) "
            "ELSE list_slice(__a, __p[1], __p[2]) END)[1] END")
    inner = bind(end, "__e", body)
    inner = bind("{1}", "__s", inner)
    nulls = "{0} IS NULL OR {1} IS NULL" + (" OR {2} IS NULL" if len(c.args) > 2 else "")
    return template(f"CASE WHEN {nulls} THEN NULL ELSE {bind('{0}', '__a', inner)} END", *c.args)


_ORDERS = {(True, True): "'ASC', 'NULLS FIRST'", (True, False): "'ASC', 'NULLS LAST'",
           (False, True): "'DESC', 'NULLS FIRST'", (False, False): "'DESC', 'NULLS LAST'"}


@collection("ARRAY_SORT",
            sig=(("ARRAY",), ("ARRAY", "BOOLEAN"), ("ARRAY", "BOOLEAN", "BOOLEAN")),
        result=_array_type, nulls="NULL if any argument is NULL")
def array_sort(c: Call) -> exp.Expression:
    """The elements sorted: ascending with NULLs first by default, as Flink.

    ``ARRAY_SORT(a, asc)`` puts NULLs first when ascending and last when descending;
    ``ARRAY_SORT(a, asc, nulls_first)`` says both.
    """
    _orderable(c)
    element = _element(c.args[0].type)
    if element is not None and element.name in ("DOUBLE", "FLOAT"):
        return _sort_floating(c, element.name)
    if len(c.args) == 1:
        return template(f"list_sort({{0}}, {_ORDERS[True, True]})", *c.args)
    up = c.args[1]
    first = c.args[2] if len(c.args) > 2 else c.args[1]
    if up.is_literal and first.is_literal and up.value() is not None and first.value() is not None:
        return template(f"list_sort({{0}}, {_ORDERS[bool(up.value()), bool(first.value())]})", *c.args)
    cases = " ".join(f"WHEN {'' if u else 'NOT '}{{1}} AND {'' if f else 'NOT '}{{2}} "
                     f"THEN list_sort({{0}}, {o})"
                     for (u, f), o in _ORDERS.items())
    return template(f"CASE WHEN {{1}} IS NULL OR {{2}} IS NULL THEN NULL {cases} END", c.args[0], up, first)


_JAVA_SORTS = {name: register(VectorFunction(
    f"__streamsql_array_sort_{name.lower()}", "Function ARRAY_SORT",
    lambda a, up, first, _t=arrow: sort_arrays(a, up, first, _t),
    (f"{name}[]", "BOOLEAN", "BOOLEAN"), f"{name}[]", True)) for name, arrow in (
    ("DOUBLE", pa.float64()), ("FLOAT", pa.float32()))}


def _sort_floating(c: Call, name: str) -> exp.Expression:
    """ARRAY_SORT of DOUBLEs or FLOATs: Flink's order (:mod:`.java_sort`) where it is no total one.

    An array holding a NaN, or both 0.0 and -0.0, is sorted in Python as Java's ``Arrays.sort``
    does with Flink's comparator; the others by ``list_sort`` (any stable sort agrees there).
    """
    up = "{1}" if len(c.args) > 1 else "true"
    first = "{2}" if len(c.args) > 2 else up
    odd = ("len(list_filter({0}, lambda __x: isnan(__x))) > 0 OR len(list_distinct(list_transform("
           "list_filter({0}, lambda __x: __x = 0), lambda __x: signbit(__x)))) > 1")
    java = f"{_JAVA_SORTS[name].name}({{0}}, {up}, {first})"
    cases = " ".join(f"WHEN {'' if u else 'NOT '}{up} AND {'' if f else 'NOT '}{first} "
                     f"THEN list_sort({{0}}, {o})" for (u, f), o in _ORDERS.items())
    return template(f"CASE WHEN {{0}} IS NULL OR {up} IS NULL OR {first} IS NULL THEN NULL "
                    f"WHEN {odd} THEN {java} {cases} END", *c.args)


def _common_result(c: Call) -> SqlType | None:
    return _common_arrays(c)[0]


@collection("ARRAY_CONCAT", sig=(("ARRAY...",),), result=_common_result,
        nulls="NULL if any array is NULL")
def array_concat(c: Call) -> exp.Expression:
    """The arrays one after the other (duplicates kept), brought to their common type."""
    _, parts = _common_arrays(c)
    return _over(parts, "list_concat")


def _two_arrays(c: Call, found: bool) -> exp.Expression:
    """The distinct elements of the first array (in its order) that the second has (``found``) or not.

    As Flink's ArrayExceptFunction and ArrayIntersectFunction (a set of the second array's
    elements, NULL one of them): an element that equals nothing (:func:`_never_equal`) is never
    found, and kept at each occurrence by ARRAY_EXCEPT. The set hashes a DOUBLE or FLOAT by its
    bits: -0.0 and 0.0 are two elements there (one in ARRAY_DISTINCT, which compares with ``=``).
    """
    t, (a, b) = _common_arrays(c)
    element = _element(t)

    def position(items: str) -> str:
        if element is None or element.name not in ("DOUBLE", "FLOAT"):
            return f"list_position({items}, __x)"
        same = "__y IS NOT DISTINCT FROM __x AND (__x IS NULL OR signbit(__y) = signbit(__x))"
        return f"list_position(list_transform({items}, lambda __y: {same}), true)"

    keep = f"{position('__a')} = __i AND {position('__b')} IS " + ("NOT NULL" if found else "NULL")
    unequal = _never_equal("__x", element)
    if unequal:
        keep = f"NOT {unequal} AND {keep}" if found else f"{unequal} OR {keep}"
    body = f"list_filter(__a, lambda __x, __i: {keep})"
    both = bind("{1}", "__b", bind("{0}", "__a", body))
    return template(f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL ELSE {both} END",
                    a, b)


@collection("ARRAY_UNION", sig=(("ARRAY", "ARRAY"),), result=_common_result,
        nulls="NULL if either array is NULL")
def array_union(c: Call) -> exp.Expression:
    """The distinct elements of both arrays, the first array's first."""
    t, (a, b) = _common_arrays(c)
    return template(f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL "
                    f"ELSE {bind('list_concat({0}, {1})', '__a', _distinct('__a', _element(t)))} END", a, b)


@collection("ARRAY_EXCEPT", sig=(("ARRAY", "ARRAY"),), result=_common_result,
        nulls="NULL if either array is NULL")
def array_except(c: Call) -> exp.Expression:
    """The distinct elements of the first array that the second has not (a NULL is an element)."""
    return _two_arrays(c, found=False)


@collection("ARRAY_INTERSECT", sig=(("ARRAY", "ARRAY"),), result=_common_result,
        nulls="NULL if either array is NULL")
def array_intersect(c: Call) -> exp.Expression:
    """The distinct elements of the first array that the second has too (a NULL is an element)."""
    return _two_arrays(c, found=True)


@collection("ARRAY_MAX", sig=(("ARRAY",),), result=_element_type,
        nulls="NULL if the array is NULL, empty or holds only NULLs (NULL elements are skipped)")
def array_max(c: Call) -> exp.Expression:
    """The greatest element."""
    _orderable(c)
    return _java_extreme(c, ">") or template("list_max({0})", *c.args)


def _java_extreme(c: Call, op: str) -> exp.Expression | None:
    """ARRAY_MAX (``>``) or ARRAY_MIN (``<``) of DOUBLE or FLOAT elements as Flink 2.3 finds it.

    Flink keeps the first non-NULL element and takes a later one only if it compares ``op`` by
    Java's primitive comparison: a NaN never replaces nor is replaced, and of -0.0 and 0.0 the
    first stays (ARRAY_MAX(ARRAY[d, NaN]) is d, ARRAY_MIN(ARRAY[0.0, -0.0]) 0.0). DuckDB's
    list_max/list_min order NaN above every number and may return either zero. None: other types.
    """
    e = _element(c.args[0].type)
    if e is None or e.name not in ("DOUBLE", "FLOAT"):
        return None
    step = (f"lambda __m, __x: CASE WHEN __x {op} __m AND NOT isnan(__x) AND NOT isnan(__m) "
            "THEN __x ELSE __m END")
    body = f"CASE WHEN len(__l) = 0 THEN NULL ELSE list_reduce(__l, {step}) END"
    return template(bind("list_filter({0}, lambda __v: __v IS NOT NULL)", "__l", body), *c.args)


@collection("ARRAY_MIN", sig=(("ARRAY",),), result=_element_type,
        nulls="NULL if the array is NULL, empty or holds only NULLs (NULL elements are skipped)")
def array_min(c: Call) -> exp.Expression:
    """The least element."""
    _orderable(c)
    return _java_extreme(c, "<") or template("list_min({0})", *c.args)


def _string_array(c: Call) -> None:
    e = _element(c.args[0].type)
    if e is not None and e.name != "STRING":
        msg = f"Invalid input arguments of {c.name}: an ARRAY of strings is expected, not {c.args[0].type}"
        raise c.fail(msg)


@collection("ARRAY_JOIN", sig=(("ARRAY", "STRING"), ("ARRAY", "STRING", "STRING")),
        result=lambda c: _STRING,
        nulls="NULL if any argument is NULL; NULL elements are left out, or replaced by the third argument")
def array_join(c: Call) -> exp.Expression:
    """The string elements joined with the delimiter (Flink's ``concatWs`` over the elements)."""
    _string_array(c)
    kept = ("{0}" if len(c.args) == 2 else "list_transform({0}, lambda __x: coalesce(__x, {2}))")
    kept = f"list_filter({kept}, lambda __x: __x IS NOT NULL)"
    if c.args[1].is_literal:  # DuckDB's array_to_string takes a constant delimiter only
        joined = f"array_to_string({kept}, {{1}})"
    else:
        joined = bind(kept, "__k", "CASE WHEN len(__k) = 0 THEN '' ELSE list_reduce(__k, lambda __l, __r: "
                                   "__l || {1} || __r) END")
    nulls = "{0} IS NULL OR {1} IS NULL" + (" OR {2} IS NULL" if len(c.args) > 2 else "")
    return template(f"CASE WHEN {nulls} THEN NULL ELSE coalesce({joined}, '') END", *c.args)


@collection("ARRAY_APPEND", sig=(("ARRAY", "ANY"),), result=_array_type,
        nulls="NULL if the array is NULL; a NULL element is appended")
def array_append(c: Call) -> exp.Expression:
    """The array with the element added at its end."""
    return template("CASE WHEN {0} IS NULL THEN NULL ELSE list_append({0}, {1}) END",
                    c.args[0], _as_element(c, 1))


@collection("ARRAY_PREPEND", sig=(("ARRAY", "ANY"),), result=_array_type,
        nulls="NULL if the array is NULL; a NULL element is prepended")
def array_prepend(c: Call) -> exp.Expression:
    """The array with the element added at its start."""
    return template("CASE WHEN {0} IS NULL THEN NULL ELSE list_prepend({1}, {0}) END",
                    c.args[0], _as_element(c, 1))


# -- MAP -----------------------------------------------------------------------------------------
def _map_part(i: int):
    def rule(c: Call) -> SqlType | None:
        t = c.args[0].type
        return SqlType.array(t.children[i]) if t is not None and t.name == "MAP" else None
    return rule


@collection("MAP_KEYS", sig=(("MAP",),), result=_map_part(0), nulls="NULL if the map is NULL",
        differences="In the map's order, as Flink's: a map read from JSON or built by STR_TO_MAP in the "
                    "order of Flink's java.util.HashMap of it (compat cases map_entry_order, "
                    "map_entry_order_functions).")
def map_keys(c: Call) -> exp.Expression:
    """The map's keys as an array."""
    return template("map_keys({0})", *c.args)


@collection("MAP_VALUES", sig=(("MAP",),), result=_map_part(1),
        nulls="NULL if the map is NULL",
        differences="In the map's order (see MAP_KEYS).")
def map_values(c: Call) -> exp.Expression:
    """The map's values as an array."""
    return template("map_values({0})", *c.args)


def _entries_type(c: Call) -> SqlType | None:
    t = c.args[0].type
    if t is None or t.name != "MAP":
        return None
    return SqlType.array(SqlType.row([("key", t.children[0]), ("value", t.children[1])]))


@collection("MAP_ENTRIES", sig=(("MAP",),), result=_entries_type,
        nulls="NULL if the map is NULL",
        differences="In the map's order (see MAP_KEYS).")
def map_entries(c: Call) -> exp.Expression:
    """The map's entries as an array of ``ROW<key, value>``."""
    return template("map_entries({0})", *c.args)


def _from_arrays_type(c: Call) -> SqlType | None:
    k, v = _element(c.args[0].type), _element(c.args[1].type)
    return None if k is None or v is None else SqlType.map(k, v)


_LENGTHS = "Invalid function MAP_FROM_ARRAYS call: The length of the keys array "


@collection("MAP_FROM_ARRAYS", sig=(("ARRAY", "ARRAY"),), result=_from_arrays_type,
        nulls="NULL if either array is NULL; fails the job when their lengths differ (Flink's "
              "message, on one line)",
        differences="A NULL or repeated key fails the job (Flink keeps the entries as they are). Its result "
                    "read by key (`MAP_FROM_ARRAYS(k, v)['x']`) is answered; Flink 2.3 fails the job there "
                    "(a ClassCastException of its MapDataForMapFromArrays).",
        failures=(Failure(r"Map keys (?:must be unique|can not be NULL)",
                          lambda m: f"A MAP value cannot be built (MAP_FROM_ARRAYS, or MAP[...] with a "
                                    f"NULL key): {m.group(0)} (StreamSQL's maps hold no NULL or repeated "
                                    "key)"),))
def map_from_arrays(c: Call) -> exp.Expression:
    """The map of the keys of the first array to the values of the second, by position."""
    failed = fail_sql(f"{sql_string(_LENGTHS)} || len({{0}}) || ' is not equal to the length of the values "
                      "array ' || len({1})")
    return template(f"CASE WHEN {{0}} IS NULL OR {{1}} IS NULL THEN NULL WHEN len({{0}}) <> len({{1}}) "
                    f"THEN {failed} ELSE map({{0}}, {{1}}) END", *c.args)


def _common_map(c: Call) -> SqlType | None:
    return _common_arrays(c, "MAP")[0]


@collection("MAP_UNION", sig=(("MAP...",),), result=_common_map,
        nulls="NULL if any map is NULL",
        differences="Its result read by key (`MAP_UNION(m, n)['a']`) is answered; Flink 2.3 fails the job "
                    "there (a ClassCastException of its MapDataForMapUnion).")
def map_union(c: Call) -> exp.Expression:
    """The maps merged; a key's value is the one of the last map that has it.

    In Flink's order (``MapUnionFunction``: each next map's entries, then the entries of the
    union so far whose key it lacks): the last map's entries first, then the keys of the one
    before it that are new, and so on (``MAP_UNION(MAP['a', 1, 'b', 2], MAP['b', 3, 'c', 4])``
    is ``{b=3, c=4, a=1}``). DuckDB's ``map_concat`` keeps a key's first place and its last
    value: over the maps last to first it places the keys, a final union of them in written
    order gives every value.
    """
    _, parts = _common_arrays(c, "MAP")
    n = len(parts)
    placed = ", ".join(f"{{{i}}}" for i in reversed(range(n)))
    valued = ", ".join(f"{{{i}}}" for i in range(n))
    nulls = " OR ".join(f"{{{i}}} IS NULL" for i in range(n))
    merged = f"map_concat({placed}, map_concat({valued}))"
    return template(f"CASE WHEN {nulls} THEN NULL ELSE {merged} END", *parts)


# -- strings to collections ----------------------------------------------------------------------
@collection("SPLIT", sig=(("STRING", "STRING"),), result=lambda c: SqlType.array(_STRING),
        nulls="NULL if any argument is NULL",
        differences="An empty delimiter splits into characters (code points); Flink splits a character "
                    "beyond U+FFFF into its two UTF-16 halves, which are no text.")
def split(c: Call) -> exp.Expression:
    """The substrings between the delimiters (empty ones kept; an empty string has none)."""
    return template("CASE WHEN {0} IS NULL OR {1} IS NULL THEN NULL WHEN {0} = '' THEN []::VARCHAR[] "
                    "ELSE string_split({0}, {1}) END", *c.args)


def _java_split(text: str, delimiter: str) -> str:
    """DuckDB SQL of Java's ``text.split(regex)``: trailing empty strings dropped."""
    last = "coalesce(list_max(list_transform(__p, lambda __s, __i: CASE WHEN __s <> '' THEN __i END)), 0)"
    return bind(f"regexp_split_to_array({text}, {delimiter})", "__p", f"list_slice(__p, 1, {last})")


def java_string_hash_sql(s: str) -> str:
    """DuckDB SQL of Java's ``String.hashCode`` of ``s`` (over its UTF-16 code units): 0 to 2^32 - 1."""
    units = ("flatten(list_transform(string_split({s}, ''), lambda __c: CASE WHEN unicode(__c) > 65535 "
             "THEN [55296 + ((unicode(__c) - 65536) >> 10), 56320 + ((unicode(__c) - 65536) & 1023)] "
             "ELSE [unicode(__c)] END))").format(s=s)
    # a leading 0 is the fold's start (list_reduce takes an initial value only from DuckDB 1.2)
    return f"list_reduce(list_prepend(0::BIGINT, {units}), lambda __h, __u: (__h * 31 + __u) % 4294967296)"


def _hash_map_order(entries: str, pairs: str) -> str:
    """DuckDB SQL: ``entries`` (distinct STRING keys, as put) in the order of Flink's ``HashMap`` of them.

    ``pairs``: how many puts the map was sized for (``newHashMapWithExpectedSize``: a capacity of
    n + 1 up to 2, else ceil(n / 0.75), so it never grows). A key's bucket is its spread hash
    (``h ^ h >>> 16``) masked to the table's size; a bucket keeps its keys in the order put. Not
    modelled: a bucket of 8 or more keys, which Java turns into a tree or answers by growing.
    """
    capacity = f"CASE WHEN {pairs} <= 2 THEN {pairs} + 1 ELSE (4 * {pairs} + 2) // 3 END"
    mask = f"((1::BIGINT << CAST(ceil(log2({capacity})) AS INTEGER)) - 1)"
    bucket = bind(java_string_hash_sql("__e['key']"), "__s", f"xor(__s, __s >> 16) & {mask}")
    placed = f"list_transform({entries}, lambda __e, __i: struct_pack(b := {bucket}, i := __i, e := __e))"
    return f"list_transform(list_sort({placed}), lambda __p: __p['e'])"


@collection("STR_TO_MAP", sig=(("STRING",), ("STRING", "STRING", "STRING")),
        result=lambda c: SqlType.map(_STRING, _STRING),
        nulls="NULL if any argument is NULL; an empty text is an empty map",
        differences="The delimiters are regular expressions read by RE2 (Flink: Java's).")
def str_to_map(c: Call) -> exp.Expression:
    """The map of the text's ``key=value`` pairs (a pair without the delimiter: a NULL value).

    As Flink's ``SqlFunctionUtils.strToMap``: pairs split with Java's ``String.split`` (trailing
    empty pairs dropped), each pair at its first key-value delimiter (an empty delimiter: after the
    first character, as Java's split skips an empty match at the start); a later pair of the same
    key replaces the earlier one's value. Flink puts the pairs into a ``java.util.HashMap`` sized
    for their number (``CollectionUtil.newHashMapWithExpectedSize``: 5 pairs, 8 buckets) and
    builds the MAP in its iteration order, which CAST to STRING, MAP_KEYS, a JSON sink show: the
    entries here are in that order (by bucket of the key's ``String.hashCode``, then first
    occurrence; compat case ``map_entry_order_functions``).
    """
    args = [c.args[0], "','", "'='"] if len(c.args) == 1 else c.args
    head = "regexp_extract(__q, '(?s)^(.*?)(?:' || {2} || ')', %d)"
    entry = (f"struct_pack(key := CASE WHEN regexp_matches(__q, {{2}}) THEN {head % 1} ELSE __q END, "
             f"value := CASE WHEN regexp_matches(__q, {{2}}) THEN substr(__q, length({head % 0}) + 1) END)")
    # an empty key-value delimiter: Java's split skips the empty match at the start, so the key is the
    # first character and the value the rest (Flink 2.3: STR_TO_MAP('a', ',', '') is {a=}), an empty
    # pair is a key '' without a value
    empty = ("struct_pack(key := CASE WHEN __q = '' THEN '' ELSE substr(__q, 1, 1) END, "
             "value := CASE WHEN __q <> '' THEN substr(__q, 2) END)")
    entry = f"CASE WHEN {{2}} = '' THEN {empty} ELSE {entry} END"
    entries = f"list_transform({_java_split('{0}', '{1}')}, lambda __q: {entry})"
    # each key once, where it first occurs, with the value of its last pair (as a map's put)
    once = ("list_transform(list_filter(__m, lambda __y, __j: list_position(__k, __y['key']) = __j), "
            "lambda __y: struct_pack(key := __y['key'], "
            "value := __m[len(__m) + 1 - list_position(list_reverse(__k), __y['key'])]['value']))")
    last = bind("list_transform(__m, lambda __z: __z['key'])", "__k", _hash_map_order(once, "len(__m)"))
    return template("CASE WHEN {0} IS NULL OR {1} IS NULL OR {2} IS NULL THEN NULL WHEN {0} = '' "
                    "THEN map([]::VARCHAR[], []::VARCHAR[]) "
                    f"ELSE map_from_entries({bind(entries, '__m', last)}) END", *args)
