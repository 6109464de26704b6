"""``IN`` / ``EXISTS`` / ``NOT IN`` / ``NOT EXISTS`` subqueries in WHERE, planned as semi and anti joins.

As Flink plans them (``FlinkSubQueryRemoveRule``): a top-level ``AND`` condition of WHERE of the
form ``x [NOT] IN (SELECT y ...)`` or ``[NOT] EXISTS (SELECT ...)`` becomes a join of the query's
FROM (left) with the subquery's (right) that outputs left rows only — a semi join for IN / EXISTS,
an anti join for the negations (:class:`~streamsql.plan.joins.SemiJoinNode`, run by
:mod:`streamsql.runtime.operators.semi_join`).

A *simple* subquery (one SELECT without aggregation, DISTINCT, ORDER BY / LIMIT) is decorrelated:
its WHERE conjuncts and, for IN, ``x = y`` are the join's conditions, so a correlated condition
``r.k = o.k`` is an equi-key, ``r.v > o.v`` a residual condition and a condition on the subquery's
own columns a filter of its input. Any other subquery (``IN (SELECT k FROM t GROUP BY k)``, a
UNION) is planned whole and must not be correlated; IN then joins on its one column. In the
subquery, a column resolves first to its own FROM, then to the outer query's (SQL scoping).

``x NOT IN (SELECT y ...)`` is null-aware, as SQL's three-valued logic: a NULL ``x`` or any NULL
``y`` (with a non-empty subquery) makes the condition unknown, so the row is not kept. A NOT IN
with a correlated subquery is refused (write NOT EXISTS), as are subqueries anywhere else
(``OR``, the SELECT list: ``Planner._reject_subqueries``).
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.joins import ANTI, SEMI, conjunction, conjuncts, plan_join, plan_joins
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope, ScopeColumn

_OUTER, _INNER = "__outer", "__inner"
_NOT_SIMPLE = ("group", "having", "distinct", "order", "limit", "offset", "qualify")


def split_subquery_conjuncts(where: exp.Expression | None
                             ) -> tuple[exp.Expression | None, list[exp.Expression]]:
    """``(rest of WHERE, [NOT] IN / EXISTS conjuncts)`` of a WHERE condition (or None)."""
    found, rest = [], []
    for c in conjuncts(where):
        (found if _subquery_of(c) is not None else rest).append(c)
    return conjunction(rest), found


def plan_subquery_joins(planner, node: PlanNode, scope: Scope, found: list[exp.Expression]) -> PlanNode:
    """``node`` semi/anti joined with each subquery of ``found`` (from :func:`split_subquery_conjuncts`).

    Raises:
        SqlError: a multi-column IN, a subquery with other than one column for IN, a correlated
            NOT IN or non-simple subquery, no equality between the query and the subquery.
    """
    for c in found:
        negated, kind, outer_expr, sub = _subquery_of(c)
        outer = bound_scope(scope, _OUTER)
        if isinstance(outer_expr, exp.Tuple):
            planner._fail(outer_expr, "IN with several columns ((a, b) IN (SELECT ...)) is not supported "
                                      "yet; write EXISTS (SELECT ... WHERE a = ... AND b = ...)")
        conds: list[exp.Expression] = []
        if _simple(sub):
            right, inner_scope = plan_subquery_from(planner, sub)
            inner = bound_scope(inner_scope, _INNER)
            for w in conjuncts(sub.args["where"].this if sub.args.get("where") is not None else None):
                nested = w.find(exp.Query)
                if nested is not None:
                    planner._fail(nested, "A subquery inside a subquery's WHERE is not supported yet")
                bound = bind(w, [(inner_scope, _INNER), (scope, _OUTER)])
                correlated = any(col.table == _OUTER for col in bound.find_all(exp.Column))
                if negated and kind == "IN" and correlated:
                    planner._fail(w, "NOT IN with a correlated subquery is not supported; write NOT EXISTS "
                                     "(note that NOT EXISTS does not treat NULLs as NOT IN does)")
                conds.append(bound)
            if kind == "IN":
                items = sub.expressions
                if len(items) != 1 or isinstance(items[0], exp.Star):
                    planner._fail(sub, f"The subquery of IN must select one column; it selects "
                                       f"{'*' if items and isinstance(items[0], exp.Star) else len(items)}")
                y = items[0].unalias() if isinstance(items[0], exp.Alias) else items[0]
                conds.append(exp.EQ(this=bind(outer_expr, [(scope, _OUTER)]),
                                    expression=bind(y, [(inner_scope, _INNER)])))
        else:
            right, inner_scope = planner._query(sub)
            inner = bound_scope(inner_scope, _INNER)
            if kind != "IN":
                planner._fail(sub, "EXISTS over a UNION or a subquery with GROUP BY, DISTINCT, ORDER BY or "
                                   "LIMIT is not supported yet; write one EXISTS per SELECT, without them")
            if len(right.schema) != 1:
                planner._fail(sub, f"The subquery of IN must select one column; it selects "
                                   f"{len(right.schema)}")
            conds.append(exp.EQ(this=bind(outer_expr, [(scope, _OUTER)]),
                                expression=exp.column(right.schema.names[0], table=_INNER, quoted=True)))
        node, _ = plan_join(planner, sub, ANTI if negated else SEMI, node, outer, right, inner, conds,
                            null_aware=negated and kind == "IN")
    return node


def _subquery_of(c: exp.Expression):
    """``(negated, "IN" | "EXISTS", x or None, the subquery's query)`` of a conjunct, or None."""
    negated = False
    while isinstance(c, (exp.Paren, exp.Not)):
        negated ^= isinstance(c, exp.Not)
        c = c.this
    if isinstance(c, exp.In) and c.args.get("query") is not None:
        return negated, "IN", c.this, _query_of(c.args["query"])
    if isinstance(c, exp.Exists):
        return negated, "EXISTS", None, _query_of(c.this)
    return None


def _query_of(q: exp.Expression) -> exp.Expression:
    while isinstance(q, exp.Subquery):
        q = q.this
    return q


def _simple(q: exp.Expression) -> bool:
    return (isinstance(q, exp.Select) and q.args.get("from_") is not None
            and not any(q.args.get(k) for k in _NOT_SIMPLE)
            and not any(e.find(exp.AggFunc) for e in q.expressions))


def plan_subquery_from(planner, sub: exp.Select) -> tuple[PlanNode, Scope]:
    """The subquery's FROM (and its joins), without its WHERE: node and scope (with qualifiers)."""
    src = sub.args["from_"].this
    if sub.args.get("joins"):
        node, scope, _ = plan_joins(planner, src, sub.args["joins"], None)
        return node, scope
    return planner._from(src)


def bound_scope(scope: Scope, qualifier: str) -> Scope:
    """``scope``'s columns by their internal names under one qualifier (how :func:`_bind` refers to them)."""
    seen, cols = set(), []
    for c in scope.columns:
        if c.internal not in seen:
            seen.add(c.internal)
            cols.append(ScopeColumn(qualifier, c.internal, c.internal, c.type))
    return Scope(cols, scope.sql, scope.what)


def bind(e: exp.Expression, scopes: list[tuple[Scope, str]]) -> exp.Expression:
    """A copy of ``e`` whose columns name their input column under its scope's qualifier.

    Each column resolves in the first scope that has it (the subquery's, then the outer query's).

    Raises:
        SqlError: an unknown column (reported against the first scope) or an ambiguous one.
    """
    out = e.copy()
    for col in list(out.find_all(exp.Column)):
        if isinstance(col.this, exp.Star):
            continue
        for scope, qualifier in scopes:
            try:
                found = scope.resolve(col)
            except SqlError as err:
                if "ambiguous" in err.message:
                    raise
                continue
            col.this.set("this", found.internal)
            col.this.set("quoted", True)
            col.set("table", exp.to_identifier(qualifier))
            break
        else:
            scopes[0][0].resolve(col)  # raises the positioned "not found" error
    return out

