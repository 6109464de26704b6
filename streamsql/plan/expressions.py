"""Compile SQL expressions once into DuckDB SQL that is evaluated over whole batches.

Expressions stay sqlglot trees through planning (see DESIGN.md). Compiling one means:

1. resolve every column reference against the input :class:`~streamsql.plan.scope.Scope`,
   replacing it with the quoted internal column name of the input batch;
2. rewrite the few Flink functions whose semantics differ from DuckDB's (table below);
3. generate DuckDB SQL text.

=================== =========================================================
Flink               DuckDB spelling (why)
=================== =========================================================
CONCAT(a, b, ...)   ``a || b || ...`` (Flink: NULL if any argument is NULL)
CONCAT_WS(sep, ...) ``concat_ws(sep, ...)`` (NULL arguments skipped, NULL separator → NULL)
IF(c, a, b)         ``CASE WHEN c THEN a ELSE b END``
CHAR_LENGTH(s)      ``length(s)``
SUBSTR/SUBSTRING    1-based, negative start counts from the end; negative length → NULL,
                    start 0 → 1, start before the beginning → ''
INT / INT           ``a // b`` (integer division truncating toward zero, as Flink)
=================== =========================================================
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.scope import Scope, position_of

AGG_TYPES = (exp.Count, exp.Sum, exp.Min, exp.Max, exp.Avg)


def quote(name: str) -> str:
    """A DuckDB-quoted identifier."""
    return '"' + name.replace('"', '""') + '"'


def resolve_columns(node: exp.Expression, scope: Scope) -> exp.Expression:
    """A copy of ``node`` with every column replaced by its input's internal column.

    Raises:
        SqlError: for an unknown or ambiguous column (positioned, listing the columns).
    """

    def fix(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and not isinstance(n.this, exp.Star):
            col = scope.resolve(n)
            new = exp.column(col.internal, quoted=True)
            new.this.meta.update(n.this.meta)  # keep the source position for later errors
            return new
        return n

    return node.copy().transform(fix)


_INTEGER_TYPES = {exp.DataType.Type.TINYINT, exp.DataType.Type.SMALLINT, exp.DataType.Type.INT,
                  exp.DataType.Type.BIGINT}
_FRACTIONAL = ("DECIMAL", "DOUBLE", "FLOAT", "REAL")


def truncate_integer_casts(node: exp.Expression, type_of) -> exp.Expression:
    """Flink's CAST of a DECIMAL/DOUBLE to an integer type truncates toward zero; DuckDB rounds.

    Args:
        node: a resolved expression.
        type_of: ``(DuckDB SQL) -> DuckDB type name`` of a sub-expression over the input.
    """

    def fix(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Cast) and n.to.this in _INTEGER_TYPES:
            inner = n.this
            if type_of(inner.sql(dialect="duckdb")).upper().startswith(_FRACTIONAL):
                n = n.copy()
                n.set("this", exp.func("trunc", inner))
        return n

    return node.transform(fix)


def _substring(n: exp.Substring) -> exp.Expression:
    """Flink's SUBSTRING: a negative length gives NULL, start 0 counts as 1, a start before the
    beginning (< -length) gives '' (DuckDB: NULL-free backwards semantics differ on all three)."""
    s, start, length = n.this, n.args.get("start"), n.args.get("length")
    if start is None:
        return n
    zero = exp.Literal.number(0)
    fixed_start = exp.Case(ifs=[exp.If(this=exp.EQ(this=start.copy(), expression=zero),
                                       true=exp.Literal.number(1))], default=start.copy())
    sub = exp.Substring(this=s.copy(), start=fixed_start, length=length.copy() if length else None)
    ifs = []
    if length is not None:
        ifs.append(exp.If(this=exp.LT(this=length.copy(), expression=zero.copy()), true=exp.Null()))
    before = exp.LT(this=start.copy(), expression=exp.Neg(this=exp.func("length", s.copy())))
    ifs.append(exp.If(this=before, true=exp.Literal.string("")))
    return exp.Case(ifs=ifs, default=sub)


def _rewrite_flink(n: exp.Expression) -> exp.Expression:
    if isinstance(n, exp.Substring):
        return _substring(n)
    if isinstance(n, exp.ConcatWs):  # Flink skips NULL arguments, as DuckDB's concat_ws does
        return exp.Anonymous(this="concat_ws", expressions=list(n.expressions))
    if type(n) is exp.Concat:
        parts = n.expressions
        out = parts[0]
        for p in parts[1:]:
            out = exp.DPipe(this=out, expression=p, safe=False)
        return exp.paren(out) if len(parts) > 1 else out
    return n


def _postorder(node: exp.Expression, fn) -> exp.Expression:
    # Children first, so rewrites nest (sqlglot's transform does not revisit replaced subtrees).
    for key, value in list(node.args.items()):
        if isinstance(value, exp.Expression):
            node.set(key, _postorder(value, fn))
        elif isinstance(value, list):
            node.set(key, [_postorder(v, fn) if isinstance(v, exp.Expression) else v for v in value])
    return fn(node)


def to_duckdb(node: exp.Expression) -> str:
    """DuckDB SQL text for an already-resolved expression."""
    return _postorder(node.copy(), _rewrite_flink).sql(dialect="duckdb")


def integer_division(node: exp.Expression, type_of) -> exp.Expression:
    """Flink divides two integers as integers, truncating toward zero (``7 / 2`` = 3, ``-7 / 2``
    = -3); DuckDB's ``/`` gives a DOUBLE, its ``//`` truncates like Flink."""

    def fix(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Div):
            left = type_of(n.this.sql(dialect="duckdb")).upper()
            right = type_of(n.expression.sql(dialect="duckdb")).upper()
            if left in _DUCK_INTEGERS and right in _DUCK_INTEGERS:
                return exp.IntDiv(this=n.this, expression=n.expression)
        return n

    return _postorder(node, fix)


_DUCK_INTEGERS = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                  "UBIGINT"}


def compile_expression(node: exp.Expression, scope: Scope) -> str:
    """Resolve ``node`` against ``scope`` and return DuckDB SQL for it.

    Raises:
        SqlError: unknown columns; aggregate functions where none are allowed.
    """
    agg = node.find(*AGG_TYPES)
    if agg is not None:
        line, col, length = position_of(agg)
        msg = f"Aggregate function {agg.sql()} is not allowed here"
        raise SqlError(msg, scope.sql, line, col, length)
    resolved = resolve_columns(node, scope)
    if resolved.find(exp.Cast):
        resolved = truncate_integer_casts(resolved, scope.type_of)
    if resolved.find(exp.Div):
        resolved = integer_division(resolved, scope.type_of)
    return to_duckdb(resolved)


def output_name(node: exp.Expression, index: int) -> str:
    """The column name Flink gives a SELECT item: its alias, its column name, or ``EXPR$i``."""
    if isinstance(node, exp.Alias):
        return node.alias
    if isinstance(node, exp.Column) and not isinstance(node.this, exp.Star):
        return node.name
    return f"EXPR${index}"
