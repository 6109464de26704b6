"""``NOT`` pushed into the comparisons of DOUBLE / FLOAT values it negates, as Calcite simplifies it.

Flink's planner runs Calcite's ``RexSimplify.simplifyNot`` before it generates code: ``NOT (d <=
1)`` becomes ``d > 1``, ``NOT (d BETWEEN lo AND hi)`` (Calcite's ``d >= lo AND d <= hi``) becomes
``d < lo OR d > hi``, ``NOT (a AND b)`` becomes ``NOT a OR NOT b`` (and ``OR`` the other way),
``NOT NOT x`` becomes ``x``. For every value but a NaN both forms agree (SQL's three-valued logic
keeps De Morgan's laws, and NULL stays NULL); Java compares a NaN FALSE with everything, so a NaN
passes ``NOT (d <= 1)`` only without the rewrite: Flink 2.3 drops it (recorded by
``scripts/flink_nan_not.py``, ``tests/functions/nan_not_flink.json``). The rewrite is made only
where a negated ordering comparison or BETWEEN has a DOUBLE / FLOAT operand, before the operands
compile, so :mod:`.nan_compare` then compares each side as Java does.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlglot import exp

from streamsql.functions.scalars.registry import TYPE

#: an ordering comparison and its negation (Calcite's ``SqlKind.negate``)
_NEGATED: dict[type, type] = {exp.GT: exp.LTE, exp.GTE: exp.LT, exp.LT: exp.GTE, exp.LTE: exp.GT}


def _bare(n: exp.Expression) -> exp.Expression:
    while isinstance(n, exp.Paren):
        n = n.this
    return n


def _floating(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> bool:
    """Whether an operand of comparison ``n`` is a DOUBLE / FLOAT (False when it does not bind)."""
    parts = [n.this, n.expression]
    if isinstance(n, exp.Between):
        parts = [n.this, n.args.get("low"), n.args.get("high")]
    for part in parts:
        if part is None:
            continue
        try:
            t = bind(part).meta.get(TYPE)
        except Exception:  # noqa: BLE001 - the real binding reports it, at its position
            return False
        if t is not None and t.name in ("DOUBLE", "FLOAT"):
            return True
    return False


def _pushable(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> bool:
    """Whether negating ``n`` reaches a comparison of floating values (through AND, OR, NOT)."""
    n = _bare(n)
    if isinstance(n, (exp.And, exp.Or)):
        return _pushable(n.this, bind) or _pushable(n.expression, bind)
    if isinstance(n, exp.Not):
        return _pushable(n.this, bind) or _negatable(_bare(n.this), bind)
    return _negatable(n, bind)


def _negatable(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> bool:
    if type(n) in _NEGATED or (isinstance(n, exp.Between) and not n.args.get("symmetric")):
        return _floating(n, bind)
    return False


def handles(n: exp.Expression, bind: Callable[[exp.Expression], exp.Expression]) -> bool:
    """Whether ``n`` is a NOT that Calcite would push into a comparison of DOUBLE / FLOAT values."""
    return isinstance(n, exp.Not) and _pushable(n.this, bind)


def rewrite(n: exp.Not) -> exp.Expression:
    """``n`` (a NOT :func:`handles` takes) with the NOT pushed down, in parentheses."""
    return exp.Paren(this=_negate(n.this))


def _negate(n: exp.Expression) -> exp.Expression:
    """The negation of ``n`` as Calcite's ``simplifyNot`` writes it."""
    n = _bare(n)
    if isinstance(n, exp.Not):
        return exp.Paren(this=_bare(n.this))
    if type(n) in _NEGATED:
        return _NEGATED[type(n)](this=n.this, expression=n.expression)
    if isinstance(n, exp.Between) and not n.args.get("symmetric"):
        below = exp.LT(this=n.this, expression=n.args["low"])
        above = exp.GT(this=n.this.copy(), expression=n.args["high"])
        return exp.Paren(this=exp.Or(this=below, expression=above))
    if isinstance(n, exp.And):
        return exp.Paren(this=exp.Or(this=_negate(n.this), expression=_negate(n.expression)))
    if isinstance(n, exp.Or):
        return exp.Paren(this=exp.And(this=_negate(n.this), expression=_negate(n.expression)))
    return exp.Not(this=exp.Paren(this=n))
