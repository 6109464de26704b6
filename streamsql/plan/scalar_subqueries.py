"""Scalar subqueries in the SELECT list and WHERE, planned as Flink plans them.

``SELECT id, v FROM t WHERE v > (SELECT AVG(v) FROM t)``: Flink (Calcite's ``SubQueryRemoveRule``)
turns the subquery into a LEFT join of the query's FROM with the subquery's single-row result, and
the subquery into a column of the join. On a stream that row is a changelog (the aggregate
changes), so the join retracts and re-emits every row of the query as it does: the result is
an updating table whose final state is the batch answer. Here each subquery becomes such a LEFT
join on a constant key (one key: every row meets the subquery's one row), then a column
``__scalar.__scalar_<n>`` in place of the subquery.

Only a subquery that returns at most one row by its form is taken: one item with an aggregate,
no GROUP BY (Flink checks the row count at run time, failing the job on a second row; a form
that cannot have one is checked at planning here). A subquery correlated by its WHERE
(``WHERE r.k = o.k``) is grouped by its correlation key instead and LEFT joined on it
(:mod:`streamsql.plan.correlated`). Each uncorrelated scalar subquery's whole join state
sits under that one key, so it suits small queries (as Flink's, which runs such a join at
parallelism 1).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.core.names import apart
from streamsql.core.types import SqlType
from streamsql.plan.correlated import plan_correlated_scalar
from streamsql.plan.expressions import quote
from streamsql.plan.joins import LEFT, plan_join
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope, ScopeColumn, generated_column
from streamsql.plan.subqueries import correlation

_QUALIFIER = "__scalar"
_KEY = SqlType("INT", nullable=False)


@dataclass
class ScalarSubquery:
    """A scalar subquery taken out of the query, and the column that stands for it."""

    name: str
    query: exp.Select


def split_scalar_subqueries(planner, sel: exp.Select, where: exp.Expression | None
                            ) -> tuple[exp.Select, exp.Expression | None, list[ScalarSubquery]]:
    """``(sel, where, subqueries)``: each scalar subquery of the SELECT list and WHERE replaced by a column.

    ``where`` is WHERE without its IN / EXISTS conjuncts; a subquery inside an IN is left alone
    (the planner refuses it where it stands). ``sel`` is a copy when anything was replaced.

    Raises:
        SqlError: a subquery that may return more than one row or more than one column.
    """
    found: list[ScalarSubquery] = []

    def take(e: exp.Expression) -> exp.Expression:
        for sub in list(e.find_all(exp.Subquery)):
            if isinstance(sub.parent, exp.In) or not isinstance(sub.this, exp.Select):
                continue
            q = sub.this
            items = q.expressions
            if len(items) != 1 or isinstance(items[0], exp.Star):
                planner._fail(q, f"A scalar subquery must select one column; it selects "
                                 f"{'*' if items and isinstance(items[0], exp.Star) else len(items)}")
            if q.args.get("group") is not None or not items[0].find(exp.AggFunc):
                planner._fail(q, "A scalar subquery on a stream must be an aggregate without GROUP BY "
                                 "(e.g. (SELECT AVG(v) FROM t)), which has one row; for one row per key, "
                                 "JOIN the grouped query on the key")
            name = f"__scalar_{len(found)}"
            found.append(ScalarSubquery(name, q))
            column = generated_column(name, _QUALIFIER)
            if sub is e:
                return column
            sub.replace(column)
        return e

    if not any(e is not None and e.find(exp.Subquery) for e in [*sel.expressions, where]):
        return sel, where, []
    if _aggregating(sel):
        for item in sel.expressions:
            for sub in item.find_all(exp.Subquery):
                if not isinstance(sub.parent, exp.In):
                    planner._fail(sub.this, "A scalar subquery in the SELECT list of an aggregating query is "
                                       "not supported yet: aggregate in a subquery of FROM (FROM (SELECT k, "
                                       "COUNT(*) AS n FROM t GROUP BY k)) and use the scalar subquery in "
                                       "the outer SELECT")
    sel = sel.copy()
    sel.set("expressions", [take(i) for i in sel.expressions])
    where = take(where.copy()) if where is not None else None
    return sel, where, found


def _aggregating(sel: exp.Select) -> bool:
    """GROUP BY, HAVING, or an aggregate call outside any subquery of the SELECT list."""
    if sel.args.get("group") is not None or sel.args.get("having") is not None:
        return True
    return any(agg.find_ancestor(exp.Subquery) is None for item in sel.expressions
               for agg in item.find_all(exp.AggFunc))


def plan_scalar_joins(planner, sel: exp.Select, node: PlanNode, scope: Scope, subqueries: list[ScalarSubquery]
                      ) -> tuple[exp.Select, PlanNode, Scope]:
    """``node`` LEFT joined with each subquery's one row; ``sel``'s ``*`` expanded before the joins.

    Raises:
        SqlError: from planning a subquery; an unknown column (a correlated subquery's) says that
            correlated scalar subqueries are not supported.
    """
    if not subqueries:
        return sel, node, scope
    sel.set("expressions", planner._expand_star(sel.expressions, scope))  # the query's columns, not ours
    for n, s in enumerate(subqueries):
        corr = correlation(planner, s.query, scope)
        if corr.keys or corr.other:  # correlated: LEFT join it grouped by its keys (plan/correlated.py)
            node, scope = plan_correlated_scalar(planner, s.query, s.name, corr, node, scope, sel)
            continue
        try:
            right, rs = planner._query(s.query)
        except SqlError as e:
            if "Unknown table or alias" not in e.message and "not found" not in e.message:
                raise
            # most likely a column of the outer query: say what is not supported
            msg = (f"{e.message.split(' (line ')[0]}; a correlated scalar subquery (one that uses the outer "
                   "query's columns) is not supported yet: JOIN the subquery grouped by the key instead")
            raise SqlError(msg, e.sql, e.line, e.col, e.length) from None
        left_key, right_key = f"__scalar_key_{n}", f"__scalar_key_r{n}"
        # the planner's columns beside the query's: named apart from them, resolved only by mark
        own = apart(left_key, node.schema.names)
        right = planner._calc(right, [(s.name, quote(right.schema.names[0])), (right_key, "1")], None)
        node = planner._calc(node, [(c, quote(c)) for c in node.schema.names] + [(own, "1")], None)
        ls = Scope([*scope.columns, ScopeColumn(_QUALIFIER, left_key, own, _KEY, generated=True)],
                   scope.sql, scope.what)
        rs = Scope([ScopeColumn(_QUALIFIER, s.name, s.name, rs.columns[0].type, generated=True),
                    ScopeColumn(_QUALIFIER, right_key, right_key, _KEY, generated=True)], scope.sql,
                   "scalar subquery")
        on = exp.EQ(this=generated_column(left_key, _QUALIFIER),
                    expression=generated_column(right_key, _QUALIFIER))
        node, scope = plan_join(planner, s.query, LEFT, node, ls, right, rs, [on])
    return sel, node, scope
