"""Compile SQL expressions once into DuckDB SQL that is evaluated over whole batches.

Expressions stay sqlglot trees through planning (see DESIGN.md). Compiling one means:

1. resolve every column reference against the input :class:`~streamsql.plan.scope.Scope`,
   replacing it with the quoted internal column name of the input batch (and its SQL type);
2. bind every function call through the scalar function registry
   (:mod:`streamsql.functions.scalars`): an unknown function or a call no signature accepts is
   a positioned SqlError in Flink's words, and each function is built with Flink's semantics
   and result type; operators whose semantics differ (integer and DECIMAL division, DECIMAL
   result types, CAST to an integer) are rewritten there too;
3. generate DuckDB SQL text.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.generator import Generator

from streamsql.core.errors import SqlError
from streamsql.core.timestamp_precision import truncate_sql
from streamsql.core.types import SqlType
from streamsql.functions.scalars import FunctionError, bind, calls
from streamsql.functions.scalars.cast_text import FOLDED
from streamsql.functions.scalars.registry import TYPE, lookup, written
from streamsql.functions.scalars.typeof import flink_type
from streamsql.plan.scope import GENERATED, Scope, position_of


class PythonAggCall(exp.Anonymous, exp.AggFunc):
    """A call of a user-defined Python aggregate (:mod:`streamsql.plan.python_udfs` marks them).

    An ``exp.Anonymous`` call (``name(args)``) that is also an aggregate, so the planner treats it
    as one; it prints as it was written.
    """


class ListAggCall(exp.Anonymous, exp.AggFunc):
    """A ``LISTAGG(x [, sep])`` call, as PythonAggCall (marked by :mod:`streamsql.plan.ordered_aggs`)."""


class PercentileCall(exp.Anonymous, exp.AggFunc):
    """A ``PERCENTILE(x, p [, frequency])`` call, as ListAggCall."""


class BitmapAggCall(exp.Anonymous, exp.AggFunc):
    """A ``BITMAP_*_AGG(x)`` call, as ListAggCall (its name is the aggregate's)."""


class CollectCall(exp.Anonymous, exp.AggFunc):
    """A ``COLLECT([DISTINCT] x)`` call (a MULTISET), as ListAggCall."""


class ArrayAggCall(exp.Anonymous, exp.AggFunc):
    """An ``ARRAY_AGG([DISTINCT] x [IGNORE NULLS])`` call (marked by :mod:`streamsql.plan.ordered_aggs`).

    ``ignore_nulls`` and ``filter`` (a FILTER's condition, kept apart: the call keeps the NULL values
    of the rows it takes) are part of its SQL text, which tells the calls of a SELECT apart.
    """

    arg_types = {"this": True, "expressions": False, "ignore_nulls": False, "filter": False}


def _array_agg_sql(gen: Generator, e: ArrayAggCall) -> str:
    cond = e.args.get("filter")
    return (f"ARRAY_AGG({gen.sql(e.expressions[0])}{' IGNORE NULLS' if e.args.get('ignore_nulls') else ''})"
            + (f" FILTER (WHERE {gen.sql(cond)})" if cond is not None else ""))


Generator.TRANSFORMS[PythonAggCall] = Generator.anonymous_sql
Generator.TRANSFORMS[ListAggCall] = Generator.anonymous_sql
Generator.TRANSFORMS[PercentileCall] = Generator.anonymous_sql
Generator.TRANSFORMS[BitmapAggCall] = Generator.anonymous_sql
Generator.TRANSFORMS[CollectCall] = Generator.anonymous_sql
Generator.TRANSFORMS[ArrayAggCall] = _array_agg_sql

AGG_TYPES = (exp.Count, exp.Sum, exp.Min, exp.Max, exp.Avg, exp.VariancePop, exp.Variance, exp.StddevPop,
             exp.StddevSamp, exp.Stddev, PythonAggCall, exp.FirstValue, exp.LastValue, ListAggCall,
             ArrayAggCall, exp.JSONArrayAgg, exp.JSONObjectAgg, PercentileCall, BitmapAggCall, CollectCall)

VARIANCE_CALLS = {exp.VariancePop: "var_pop", exp.Variance: "var_samp", exp.StddevPop: "stddev_pop",
                  exp.StddevSamp: "stddev_samp", exp.Stddev: "stddev_samp"}
"""The variance family's call nodes → their aggregate (VARIANCE is VAR_SAMP, STDDEV STDDEV_SAMP)."""


class Compiled(str):
    """An expression's DuckDB SQL (the string itself) with its Flink SQL and its Flink type.

    ``flink`` is the expression as the user wrote it, over the input's column names, for EXPLAIN:
    the user's function names (``UPPER(name)``, ``SUBSTRING(...)``) and Flink's types
    (``CAST(x AS BIGINT)``), where the DuckDB SQL holds the binder's macros and DuckDB's types
    (``INT64``). ``type`` is the type the function registry infers (None: unknown), which a Calc's
    output column keeps where DuckDB's result type cannot say it (TIMESTAMP(0), CHAR(3): see
    :func:`~streamsql.plan.query.compile_query`). ``deterministic`` is False when it calls a
    function whose value may change between evaluations (``RAND()``, ``UUID()``, ``NOW()``, a
    Python function declared so): Flink's merge of two Calcs (:mod:`streamsql.plan.calc_merge`)
    must not compute such a value twice.
    """

    flink: str
    type: SqlType | None
    deterministic: bool

    def __new__(cls, duckdb_sql: str, flink: str, type: SqlType | None = None,  # noqa: D102, A002
                deterministic: bool = True) -> Compiled:
        text = super().__new__(cls, duckdb_sql)
        text.flink = flink
        text.type = type
        text.deterministic = deterministic
        return text


_PLAIN = re.compile(r"^[A-Za-z_][A-Za-z0-9_$]*$")
#: One DuckDB dialect for every expression (``.sql(dialect="duckdb")`` builds a new one per call).
_DUCKDB = Dialect.get_or_raise("duckdb")
_QUOTED_COLUMN = re.compile(r'^"((?:[^"]|"")*)"$')


def flink_text(sql: str) -> str:
    """How EXPLAIN shows an expression: its Flink SQL when compiled here, a quoted column bare."""
    if isinstance(sql, Compiled):
        return sql.flink
    m = _QUOTED_COLUMN.match(sql)
    if m and _PLAIN.match(m.group(1).replace('""', '"')):
        return m.group(1)
    return sql


def flink_sql(resolved: exp.Expression) -> str:
    """Flink SQL of a resolved expression (for EXPLAIN); columns (the input's names) unquoted where plain."""
    return written(resolved)


def agg_label(call: exp.Expression, text=flink_sql) -> str:
    """EXPLAIN's text of an aggregate call, as Flink prints it: ``MAX(DISTINCT v)`` as ``MAX(v)``.

    Calcite drops DISTINCT from MAX and MIN (the same answer) when it builds the call, so Flink 2.3's
    plans show ``MAX(v)`` (tests/plan/explain_names_flink.json); ``text`` renders the call.
    """
    if not any(isinstance(m.this, exp.Distinct) for m in call.find_all(exp.Max, exp.Min)):
        return text(call)
    call = call.copy()
    for m in call.find_all(exp.Max, exp.Min):
        if isinstance(m.this, exp.Distinct) and len(m.this.expressions) == 1:
            m.set("this", m.this.expressions[0])
    return text(call)


def quote(name: str) -> str:
    """A DuckDB-quoted identifier."""
    return '"' + name.replace('"', '""') + '"'


def resolve_columns(node: exp.Expression, scope: Scope) -> exp.Expression:
    """A copy of ``node`` with every column replaced by its input's internal column.

    Each column carries its SQL type (``meta["sql_type"]``) for the function binder, and the
    expression's calls are checked against the function registry here, where the statement's
    text is at hand for the error.

    Raises:
        SqlError: for an unknown or ambiguous column (positioned, listing the columns); for an
            unknown function or a call with arguments no signature of it accepts.
    """
    return _resolve_and_bind(node, scope)[0]


def certain_type(node: exp.Expression, scope: Scope) -> SqlType | None:
    """Flink's type of ``node`` over ``scope``'s columns, nullability included, or None.

    None where the rules of TYPEOF (:func:`streamsql.functions.scalars.typeof.flink_type`) do not make
    it certain.
    """
    try:
        return flink_type(resolve_columns(node, scope), bind)
    except (FunctionError, SqlError):
        return None


def _resolve_and_bind(node: exp.Expression, scope: Scope) -> tuple[exp.Expression, exp.Expression]:
    """``node`` resolved against ``scope`` (:func:`resolve_columns`) and its bound DuckDB form."""
    resolved = resolve_unbound(node, scope)
    return resolved, bind_checked(resolved, scope.sql)


def resolve_unbound(node: exp.Expression, scope: Scope) -> exp.Expression:
    """``node`` resolved as :func:`resolve_columns` does, its calls not checked (:func:`bind_checked`).

    For an aggregation's items, whose aggregate calls are typed (``AGGREGATE_TYPE``) before the
    expression around them is bound.

    Raises:
        SqlError: for an unknown or ambiguous column.
    """

    def fix(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            col, fields = scope.resolve_path(n)
            new = exp.column(col.internal, quoted=True)
            new.this.meta.update(n.this.meta)  # keep the source position for later errors
            new.meta["sql_type"] = col.type
            if col.generated:  # still the planner's column when resolved again (a post-projection)
                new.meta[GENERATED] = True
            if col.declared is not None:  # for TYPEOF (functions/scalars/typeof.py)
                new.meta["declared_type"] = col.declared
            if col.produced is not None:
                new.meta["produced_type"] = col.produced
            if col.folded:  # a CAST of it is a literal's (functions/scalars/operators.py)
                new.meta[FOLDED] = True
            for f in fields:  # nested field access, typed by the binder (functions/scalars/composite)
                new = exp.Dot(this=new, expression=exp.to_identifier(f))
            return new
        return n

    return node.copy().transform(fix, copy=False)  # one copy: the transform edits our own


def bind_checked(node: exp.Expression, sql: str | None) -> exp.Expression:
    """The DuckDB form of a resolved expression (see :func:`streamsql.functions.scalars.bind`).

    Raises:
        SqlError: positioned at the call the registry refuses.
    """
    try:
        return bind(node)
    except FunctionError as e:
        line, col, length = position_of(e.node)
        raise SqlError(e.message, sql, line, col, length) from None


def to_duckdb(node: exp.Expression, scope: Scope | None = None, clause: str | None = None) -> str:
    """DuckDB SQL text for an already-resolved expression.

    Args:
        node: the resolved expression.
        scope: the input's columns, for columns that carry no SQL type yet (e.g. the columns
            of an aggregate's output that the post-projection refers to), so that functions
            and operators see their types.
        clause: ``"HAVING"`` (etc.) when the expression is that clause's condition: it must be
            a BOOLEAN (see :func:`compile_expression`).

    Raises:
        SqlError: for a call the function registry refuses (positioned; with the statement
            text when ``scope`` has it); a ``clause`` condition that is not a BOOLEAN.
    """
    if scope is not None:
        types = {c.internal: c.type for c in scope.columns}
        node = node.copy()
        for col in node.find_all(exp.Column):
            if "sql_type" not in col.meta and col.name in types:
                col.meta["sql_type"] = types[col.name]
    sql = scope.sql if scope is not None else None
    bound = _condition(bind_checked(node, sql), node, clause, sql)
    return Compiled(bound.sql(dialect="duckdb"), flink_sql(node), bound.meta.get(TYPE),
                    is_deterministic(node))


def compile_expression(node: exp.Expression, scope: Scope, clause: str | None = None) -> str:
    """Resolve ``node`` against ``scope`` and return DuckDB SQL for it.

    Args:
        node: the expression, as written.
        scope: the columns it may use.
        clause: ``"WHERE"``, ``"HAVING"`` or ``"ON"`` when ``node`` is that clause's condition,
            which must then be a BOOLEAN (DuckDB would cast an INT or a string to one).

    Raises:
        SqlError: unknown columns or functions, wrong function arguments; aggregate functions
            where none are allowed; a condition that is not a BOOLEAN (Flink's ``WHERE clause
            must be a condition``).
    """
    agg = node.find(*AGG_TYPES)
    if agg is not None:
        line, col, length = position_of(agg)
        msg = f"Aggregate function {agg.sql()} is not allowed here"
        raise SqlError(msg, scope.sql, line, col, length)
    resolved, bound = _resolve_and_bind(node, scope)
    bound = _condition(bound, node, clause, scope.sql)
    flink, det = flink_sql(resolved), is_deterministic(resolved)
    # Generated last and in place: ``bound`` is this call's own tree (bind copied ``resolved``).
    return Compiled(_DUCKDB.generate(bound, copy=False), flink, bound.meta.get(TYPE), det)


def is_deterministic(node: exp.Expression) -> bool:
    """Whether ``node`` calls no function the session's registry marks non-deterministic.

    As Calcite's ``RexUtil.isDeterministic``: a call of ``RAND()``, ``UUID()``, ``NOW()``,
    ``PROCTIME()`` or a Python function declared ``deterministic=False`` makes the whole
    expression non-deterministic.
    """
    for n in node.walk():
        if isinstance(n, exp.Func):
            fn = lookup(calls.name_of(n))
            if fn is not None and not fn.deterministic:
                return False
    return True


def _condition(bound: exp.Expression, node: exp.Expression, clause: str | None,
               sql: str | None) -> exp.Expression:
    """``bound``, checked to be a BOOLEAN when it is the ``clause`` condition (Flink's validator)."""
    t = bound.meta.get(TYPE)
    if clause is None or t is None or t.name in ("BOOLEAN", "NULL"):
        return bound
    line, col, length = position_of(node)
    msg = f"{clause} clause must be a condition"
    raise SqlError(msg, sql, line, col, length)


def sql_type_of(node: exp.Expression, scope: Scope) -> SqlType | None:
    """The Flink type the function registry infers for ``node`` over ``scope`` (None: unknown)."""
    return _resolve_and_bind(node, scope)[1].meta.get(TYPE)  # one binding (resolve_columns binds too)


def _short_ltz_inside(t: SqlType) -> bool:
    """An ARRAY or MAP with a TIMESTAMP_LTZ(p < 6) inside (``ARRAY[TO_TIMESTAMP_LTZ(ms, 3)]``)."""
    return t.name in ("ARRAY", "MAP") and any(
        (c.name == "TIMESTAMP_LTZ" and (c.precision or 0) < 6) or _short_ltz_inside(c) for c in t.children)


def registry_time_type(node: exp.Expression, compiled: Compiled, scope: Scope, resolved: bool = False,
                       ) -> tuple[Compiled, SqlType | None]:
    """``compiled`` (``node``'s DuckDB SQL) and the type its Calc column takes where DuckDB's cannot say it.

    DuckDB has no millisecond TIMESTAMPTZ, so a Calc's inferred type of, e.g.,
    ``TO_TIMESTAMP_LTZ(ms, 3)`` or ``PROCTIME()`` is TIMESTAMP_LTZ(6): DESCRIBE would say so and
    a CAST to STRING print six fraction digits where Flink prints three. Nor does DuckDB keep the
    precision of a constant TIMESTAMP: ``TIMESTAMP '... 00:00:03'`` is TIMESTAMP(0) in Flink (its
    written fraction digits), and so is ``TIMESTAMP '... 00:00:03' + INTERVAL '1' SECOND``, which
    Flink's planner folds to a literal of that type; such a constant is cut down to its digits, as
    Calcite's literal (:func:`~streamsql.core.timestamp_precision.truncate_sql`, ``floor``). The
    registry knows the precision; the runtime casts each result to the Calc's output schema (a
    TIMESTAMP_LTZ(0) is carried in milliseconds, its precision in the field's metadata). The type
    is None for any other item (DuckDB's is right).

    ``resolved``: ``compiled`` is :func:`compile_expression`'s of ``node`` over ``scope``, whose
    ``type`` is that same inference (not done a second time).
    """
    t = compiled.type if resolved else sql_type_of(node, scope)
    if t is None or (t.precision or 0) >= 6:
        return compiled, None
    if t.name == "TIMESTAMP_LTZ" or _short_ltz_inside(t):
        return compiled, t
    if t.name != "TIMESTAMP" or not compiled.deterministic or node.find(exp.Column) is not None:
        return compiled, None
    if not _timestamp_literal(node):  # a literal has its digits already
        cut = f"CAST({truncate_sql(compiled, t.precision or 0, floor=True)} AS {t.duckdb()})"
        compiled = Compiled(cut, compiled.flink, compiled.type, compiled.deterministic)
    return compiled, t


def _timestamp_literal(node: exp.Expression) -> bool:
    """Whether ``node`` (unaliased) is a ``TIMESTAMP '...'`` literal."""
    node = node.unalias() if isinstance(node, exp.Alias) else node
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string \
        and not node.to.expressions and node.to.this == exp.DataType.Type.TIMESTAMP


def is_proctime_call(node: exp.Expression) -> bool:
    """Whether ``node`` (unaliased) is a bare ``PROCTIME()`` call: Flink's processing-time attribute.

    Only the call itself is one; an expression over it (a CAST, ``+ INTERVAL``) is a plain
    TIMESTAMP_LTZ value, as in Flink 2.3.
    """
    node = node.unalias() if isinstance(node, exp.Alias) else node
    if not isinstance(node, exp.Func):
        return False
    return (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).upper() == "PROCTIME"


def output_name(node: exp.Expression, index: int) -> str:
    """The column name Flink gives a SELECT item: its alias, its column name, or ``EXPR$i``."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    return f"EXPR${index}"


def integer_literal(planner, node: exp.Expression | None, message: str,
                    at: exp.Expression | None = None) -> int:
    """The value of ``node``, a non-negative integer literal (a rank bound, a LIMIT count, a LAG offset).

    Raises:
        SqlError: ``message``, at ``node`` (or at ``at`` when ``node`` is None), for anything else.
    """
    if isinstance(node, exp.Literal) and not node.is_string and node.this.isdigit():
        return int(node.this)
    planner._fail(node if node is not None else at, message)
