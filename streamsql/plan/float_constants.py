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
WHERE are used (``x IN (v)``, ``x BETWEEN v AND v`` and ``x >= v AND x <= v`` too: Calcite's
search of one point), and only columns of type DOUBLE / FLOAT are replaced, in a SELECT without
aggregation. Known gaps: Flink's Calc below an aggregation reads the literal too (``SELECT d,
COUNT(*) FROM t WHERE d = 0 GROUP BY d`` is one group of the -0.0 and 0.0 rows there, two here),
and Flink infers ``b.d = 0`` from ``a.d = b.d AND a.d = 0``, joining -0.0 with 0.0.
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
    bounds: dict[str, dict[str, float]] = {}
    for c in _conjuncts(where):
        if isinstance(c, exp.In) and not c.args.get("query") and len(c.expressions) == 1:
            c = exp.EQ(this=c.this, expression=c.expressions[0])  # Calcite: x IN (v) is x = v
        if isinstance(c, exp.Between) and _number(c.args["low"]) == _number(c.args["high"]) is not None:
            c = exp.EQ(this=c.this, expression=c.args["low"])  # a search of one point: x = v
        for col, lit, op in _sides(c):
            value = _number(lit)
            if not isinstance(col, exp.Column) or value is None or value != value:
                continue
            try:
                resolved = scope.resolve(col)
            except SqlError:
                continue  # reported where the WHERE compiles
            if resolved.type.name not in _FLOATING:
                continue
            key = resolved.internal
            if op == "=":
                out[key] = (value + 0.0, resolved.type.name)  # -0.0 + 0.0 is 0.0
            elif bounds.setdefault(key, {}).setdefault(op, value) == value and len(bounds[key]) == 2 \
                    and bounds[key][">="] == bounds[key]["<="]:
                out.setdefault(key, (value + 0.0, resolved.type.name))  # x >= v AND x <= v: x = v
    return out


_FLIPPED = {exp.GTE: "<=", exp.LTE: ">="}
_OWN = {exp.GTE: ">=", exp.LTE: "<="}


def _sides(c: exp.Expression) -> list[tuple[exp.Expression, exp.Expression, str]]:
    """``(column side, literal side, operator as read from the column)`` of a conjunct, both ways."""
    if isinstance(c, exp.EQ):
        return [(c.this, c.expression, "="), (c.expression, c.this, "=")]
    if type(c) in _OWN:
        return [(c.this, c.expression, _OWN[type(c)]), (c.expression, c.this, _FLIPPED[type(c)])]
    return []


def propagated(items: list[exp.Expression], where: exp.Expression | None,
               scope: Scope) -> list[exp.Expression]:
    """``items`` with each DOUBLE / FLOAT column the WHERE equates to a number replaced by that number.

    A bare column item keeps its name (an alias is added). Items are copied only when changed.
    """
    constants = _constants(where, scope)
    if not constants:
        return items

    def replace(n: exp.Expression) -> exp.Expression:
        if not isinstance(n, exp.Column):
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
