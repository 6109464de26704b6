"""What Flink's planner does to a constant expression: it evaluates it once and keeps a literal.

Calcite's ``ReduceExpressionsRule`` replaces each largest constant, deterministic sub-expression
of a projection or condition (no column, no ``RAND()``/``NOW()``-like call) by the literal of its
value (Flink's ``ExpressionReducer``). A DOUBLE literal goes through ``java.math.BigDecimal``,
which has no negative zero, and a FLOAT literal is stored as one too: a constant expression that
evaluates to ``-0.0`` is ``0.0`` in Flink 2.3 (``ATAN(-0.5) * ROUND(3.0E-5, -2)`` prints ``0.0``;
``-d`` of a column that holds 0.0 still prints ``-0.0``, as it is computed per row).

:func:`mark` flags those sub-expressions before binding; :func:`as_literal` wraps a flagged one's
DuckDB expression so that it has the literal's value (``x + 0.0`` is ``x`` for every double but
``-0.0``, which it turns into ``0.0``; NaN and the infinities stay).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.functions.scalars import calls
from streamsql.functions.scalars.registry import lookup

REDUCED = "streamsql_reduced_constant"
"""Meta key of a node that is a largest constant sub-expression (see :func:`mark`)."""

# Nodes that make an expression depend on its input or its evaluation: never constant.
_VARYING = (exp.Column, exp.Star, exp.Subquery, exp.Select, exp.AggFunc, exp.Window, exp.Placeholder,
            exp.Parameter)


def _constant(n: exp.Expression, memo: dict[int, bool]) -> bool:
    """Whether ``n`` has no column and calls only deterministic functions (children first)."""
    const = all([_constant(c, memo) for c in n.iter_expressions()])  # noqa: C419  (visit every child)
    if isinstance(n, _VARYING):
        const = False
    elif const and isinstance(n, exp.Func):
        fn = lookup(calls.name_of(n))
        const = fn is None or fn.deterministic
    memo[id(n)] = const
    return const


def mark(tree: exp.Expression) -> None:
    """Flag (``meta[REDUCED]``) each largest constant sub-expression of ``tree``, under parentheses.

    Not an added one (``d + c``, ``c + d``, ``d - c``): Calcite then simplifies ``d + 0`` to ``d``
    (Flink 2.3 prints ``d + (-0.0E0)`` of ``d`` = -0.0 as -0.0), which ``d + -0.0`` computes
    exactly and ``d + 0.0`` does not.
    """
    memo: dict[int, bool] = {}
    _constant(tree, memo)
    for n in tree.walk():
        parent = n.parent if n is not tree else None
        if not memo.get(id(n)) or parent is not None and memo.get(id(parent)):
            continue
        if isinstance(parent, exp.Add) or isinstance(parent, exp.Sub) and n is parent.expression:
            continue
        while isinstance(n, exp.Paren):
            n = n.this
        n.meta[REDUCED] = True


def as_literal(out: exp.Expression, t: SqlType | None) -> exp.Expression:
    """``out`` (the DuckDB form of a flagged node of type ``t``) with the value of Flink's literal.

    A DOUBLE or FLOAT ``-0.0`` becomes ``0.0``; any other value or type is unchanged.
    """
    if t is None or t.name not in ("DOUBLE", "FLOAT"):
        return out
    zero = exp.cast(exp.Literal.number(0), "DOUBLE" if t.name == "DOUBLE" else "FLOAT")
    wrapped = exp.Paren(this=exp.Add(this=exp.Paren(this=out), expression=zero))
    wrapped.meta.update(out.meta)
    return wrapped
