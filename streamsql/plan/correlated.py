"""Correlated scalar subqueries, decorrelated into a LEFT join with a grouped aggregate (as Flink).

``SELECT id, (SELECT MAX(v) FROM r WHERE r.k = o.k) FROM o``: Flink (Calcite's decorrelator)
groups the subquery by its correlation key and LEFT joins the query with it, so a row without a
match gets the aggregate of no rows: ``SELECT id, mx FROM o LEFT JOIN (SELECT k, MAX(v) AS mx FROM
r GROUP BY k) s ON o.k = s.k``. The aggregate of no rows is NULL, except ``COUNT``, which is 0 (a
marker column of the grouped side tells a missing match from a NULL aggregate, and the item is
then evaluated with its ``COUNT`` calls as 0 and the other aggregates as NULL:
``(SELECT COUNT(*) + 1 ...)`` is 1). Over a changelog the grouped side updates and the join
retracts and re-emits the query's rows, so the result is the batch answer once the input is read.

The correlation is the subquery's WHERE conjuncts that use the outer query's columns. When they
are equalities of an expression of the subquery's columns with one of the outer query's
(``r.k = o.k``, also several: a composite key) the subquery is grouped by its side of them.
Other comparisons among them (``r.k = o.k AND r.id <> o.id``) join the subquery with the
distinct outer values they use (``SELECT DISTINCT o.k, o.id FROM <outer FROM>``, Calcite's value
generator), grouped by those values, and the query is LEFT joined with that on them; the join
needs one equality among the conditions, as every streaming join. A correlated condition that is
not a comparison (``OR``, ``IS NULL``: a NULL outer value could match), an item that uses the
outer query's columns, and a correlated subquery with GROUP BY are refused at their position,
saying what to write instead. Columns resolve in the subquery's FROM first, then
in the outer query (SQL scoping).

Functions:
    plan_correlated_scalar(planner, sub, name, node, scope): the LEFT join of ``node`` with ``sub``.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.names import apart
from streamsql.core.types import SqlType
from streamsql.plan.expressions import AGG_TYPES, compile_expression, quote
from streamsql.plan.joins import LEFT, conjunction, plan_join
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope, ScopeColumn, generated_column
from streamsql.plan.subqueries import Correlation, bind, plan_subquery_from

_QUALIFIER = "__scalar"
_COMPARISONS = (exp.EQ, exp.NEQ, exp.GT, exp.GTE, exp.LT, exp.LTE)


def plan_correlated_scalar(planner, sub: exp.Select, name: str, corr: Correlation, node: PlanNode,
                           scope: Scope, outer: exp.Select) -> tuple[PlanNode, Scope]:
    """``node`` LEFT joined with ``sub`` grouped by its correlation; ``name`` the subquery's value.

    ``outer`` is the query ``node`` was planned from (its FROM gives the outer values when the
    correlation is not only equalities).

    Raises:
        SqlError: a correlated condition that is not a comparison, an item that uses the outer
            query's columns, a correlated subquery with GROUP BY.
    """
    if sub.args.get("group") is not None or sub.args.get("having") is not None:
        planner._fail(sub, "A correlated scalar subquery with GROUP BY or HAVING is not supported yet; "
                           "JOIN the grouped query on its key instead")
    item = sub.expressions[0].unalias() if isinstance(sub.expressions[0], exp.Alias) else sub.expressions[0]
    value, marker = f"{name}_value", f"{name}_found"
    if corr.other:
        pairs, source, conds = _outer_values(planner, sub, name, corr, scope, outer)
    else:
        pairs, source, conds = list(corr.keys), None, []
    keys = [f"{name}_key{i}" for i in range(len(pairs))]
    grouped = exp.select(*[exp.alias_(i.copy(), k, quoted=True) for (i, _), k in zip(pairs, keys)],
                         exp.alias_(item.copy(), value, quoted=True),
                         exp.alias_(exp.true(), marker, quoted=True))
    grouped.set("from_", sub.args["from_"].copy())
    joins = [j.copy() for j in sub.args.get("joins") or []]
    if source is not None:
        joins.append(exp.Join(this=source, on=conjunction(conds)))
    if joins:
        grouped.set("joins", joins)
    if corr.local:
        grouped = grouped.where(conjunction([c.copy() for c in corr.local]), copy=False)
    grouped = grouped.group_by(*[inner.copy() for inner, _ in pairs], copy=False)
    right, gs = planner._query(grouped)
    # the grouped side's columns and the value are the planner's: resolved by mark only, and the
    # value named apart from the query's columns it is added to (Flink allows any column name)
    rs = Scope([ScopeColumn(_QUALIFIER, c.name, c.internal, c.type, generated=True) for c in gs.columns],
               scope.sql, "scalar subquery")
    on = [exp.EQ(this=o.copy(), expression=generated_column(k, _QUALIFIER)) for (_, o), k in zip(pairs, keys)]
    node, joined = plan_join(planner, sub, LEFT, node, scope, right, rs, on)
    found = joined.resolve(generated_column(marker, _QUALIFIER))
    got = joined.resolve(generated_column(value, _QUALIFIER))
    empty = _empty_value(item)
    result = quote(got.internal)
    if empty is not None:  # COUNT of no rows is 0, not NULL
        result = f"CASE WHEN {quote(found.internal)} IS NULL THEN {compile_expression(empty, joined)} " \
                 f"ELSE {result} END"
    kept = joined.columns[:len(scope.columns)]  # the query's columns (the grouped side's follow)
    internals = list(dict.fromkeys(c.internal for c in kept))
    own = apart(name, internals)
    node = planner._calc(node, [(n, quote(n)) for n in internals] + [(own, result)], None)
    column = ScopeColumn(_QUALIFIER, name, own, _result_type(got.type, empty), generated=True)
    return node, Scope([*kept, column], scope.sql, scope.what)


_Pairs = list[tuple[exp.Expression, exp.Expression]]


def _outer_values(planner, sub: exp.Select, name: str, corr: Correlation, scope: Scope, outer: exp.Select
                  ) -> tuple[_Pairs, exp.Expression, list[exp.Expression]]:
    """The distinct outer values the correlation uses, as Calcite's decorrelator joins them in.

    ``r.k = o.k AND r.id <> o.id`` becomes a join of the subquery's FROM with ``SELECT DISTINCT
    o.k, o.id FROM <outer FROM>`` on the same conditions (the outer columns replaced by the
    values'), grouped by those values; the query is then LEFT joined with it on them. Each
    correlated condition must be a comparison, which no NULL outer value satisfies (so an outer
    row with a NULL there matches nothing, as it would in the subquery).

    Returns:
        ``([(values' column, outer expression)], the values' derived table, the join conditions)``.

    Raises:
        SqlError: a correlated condition that is not a comparison.
    """
    for c in corr.other:
        if not isinstance(c.unnest(), _COMPARISONS):
            planner._fail(c, "A correlated scalar subquery correlates by comparisons (=, <>, <, >, <=, "
                             ">=) only; rewrite the condition as one")
    _, inner = plan_subquery_from(planner, sub)
    scopes = [(inner, "__inner"), (scope, "__outer")]
    used: list[exp.Column] = []
    values = f"{name}_outer"

    def to_value(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Column) and bind(n, scopes).table == "__outer":
            if n not in used:
                used.append(n.copy())
            return exp.column(f"{name}_v{used.index(n)}", table=values, quoted=True)
        return n

    conds = [c.copy().transform(to_value) for c in [*(exp.EQ(this=i, expression=o) for i, o in corr.keys),
                                                     *corr.other]]
    distinct = exp.select(*[exp.alias_(c.copy(), f"{name}_v{i}", quoted=True) for i, c in enumerate(used)])
    distinct = distinct.distinct()
    distinct.set("from_", outer.args["from_"].copy())
    if outer.args.get("joins"):
        distinct.set("joins", [j.copy() for j in outer.args["joins"]])
    source = exp.Subquery(this=distinct, alias=exp.TableAlias(this=exp.to_identifier(values)))
    pairs = [(exp.column(f"{name}_v{i}", table=values, quoted=True), c) for i, c in enumerate(used)]
    return pairs, source, conds


def _empty_value(item: exp.Expression) -> exp.Expression | None:
    """The item over no rows (its COUNT calls 0, other aggregates NULL), or None when that is NULL."""
    if item.find(exp.Count) is None:
        return None

    def empty(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Count):
            return exp.Literal.number(0)
        return exp.null() if isinstance(n, AGG_TYPES) else n

    return item.copy().transform(empty)


def _result_type(t: SqlType, empty: exp.Expression | None) -> SqlType:
    """The value's type: nullable (no match) unless COUNT's 0 stands in for a missing match."""
    return t if empty is not None else t.with_nullable(True)
