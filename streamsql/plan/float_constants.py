"""A DOUBLE / FLOAT column the WHERE equates to a number is that number in the SELECT list, as Calcite.

Flink's planner reduces a projection with the predicates pulled up from below it (Calcite's
``ReduceExpressionsRule`` with ``RelMdPredicates``): under ``WHERE d = 0`` every reference of ``d``
in the SELECT list becomes the literal ``0``. For most types that changes nothing, but a DOUBLE /
FLOAT ``-0.0`` passes ``d = 0`` (Java's ``-0.0 == 0.0``) and is then answered ``0.0``: Flink 2.3
prints ``0.0`` for ``SELECT d FROM t WHERE d = 0`` where the row holds ``-0.0`` (recorded by
``scripts/flink_nan_equal.py``, ``tests/functions/nan_equal_flink.json``). Calcite's literal has no
sign of zero (a ``BigDecimal``), so ``d = -0.0`` gives ``0.0`` too.

:func:`propagated` rewrites the SELECT items of one query block before they are planned; only
top-level conjuncts ``column = number`` (either side, a sign and a CAST allowed) of that block's
WHERE are used, and only columns of type DOUBLE / FLOAT are replaced, outside aggregate calls
(an aggregate's argument is read below the aggregation, where Flink keeps the column).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.scope import Scope

_FLOATING = ("DOUBLE", "FLOAT")


def _number(n: exp.Expression) -> float | None:
    """The value of a numeric literal (a sign, parentheses and a CAST allowed), else None."""
    while isinstance(n, exp.Paren) or (isinstance(n, exp.Cast) and n.to.is_type(*exp.DataType.NUMERIC_TYPES)):
        n = n.this
    sign = 1.0
    while isinstance(n, exp.Neg):
        sign, n = -sign, n.this
    if isinstance(n, exp.Literal) and not n.is_string:
        try:
            return sign * float(n.this)
        except ValueError:
            return None
    return None


def _conjuncts(where: exp.Expression | None) -> list[exp.Expression]:
    if where is None:
        return []
    while isinstance(where, exp.Paren):
        where = where.this
    if isinstance(where, exp.And):
        return _conjuncts(where.this) + _conjuncts(where.expression)
    return [where]


def _constants(where: exp.Expression | None, scope: Scope) -> dict[str, tuple[float, str]]:
    """``{internal name: (value, type name)}`` of the DOUBLE / FLOAT columns WHERE equates to a number."""
    out: dict[str, tuple[float, str]] = {}
    for c in _conjuncts(where):
        if isinstance(c, exp.In) and not c.args.get("query") and len(c.expressions) == 1:
            c = exp.EQ(this=c.this, expression=c.expressions[0])  # Calcite: x IN (v) is x = v
        if not isinstance(c, exp.EQ):
            continue
        for col, lit in ((c.this, c.expression), (c.expression, c.this)):
            value = _number(lit)
            if not isinstance(col, exp.Column) or value is None or value != value:
                continue
            try:
                resolved = scope.resolve(col)
            except SqlError:
                continue  # reported where the WHERE compiles
            if resolved.type.name in _FLOATING:
                out[resolved.internal] = (value + 0.0, resolved.type.name)  # -0.0 + 0.0 is 0.0
    return out


def propagated(items: list[exp.Expression], where: exp.Expression | None,
               scope: Scope) -> list[exp.Expression]:
    """``items`` with each DOUBLE / FLOAT column the WHERE equates to a number replaced by that number.

    A bare column item keeps its name (an alias is added). Items are copied only when changed.
    """
    constants = _constants(where, scope)
    if not constants:
        return items

    def replace(n: exp.Expression) -> exp.Expression:
        if not isinstance(n, exp.Column) or n.find_ancestor(exp.AggFunc) is not None:
            return n
        try:
            resolved = scope.resolve(n)
        except SqlError:
            return n
        found = constants.get(resolved.internal)
        if found is None:
            return n
        value, type_name = found
        return exp.Cast(this=exp.Literal.number(repr(value)), to=exp.DataType.build(type_name))

    out = []
    for item in items:
        if isinstance(item, exp.Column):
            new = replace(item.copy())
            out.append(item if new is item or isinstance(new, exp.Column)
                       else exp.Alias(this=new, alias=exp.to_identifier(item.name)))
            continue
        out.append(item.copy().transform(replace) if any(
            replace(c) is not c for c in item.find_all(exp.Column)) else item)
    return out
