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

A row on the left, ``(a, b) IN (SELECT x, y ...)``, compares column by column: the conditions are
``a = x AND b = y`` (the subquery selects as many columns as the row has).

``x NOT IN (SELECT y ...)`` is null-aware, as SQL's three-valued logic: a NULL ``x`` or any NULL
``y`` (with a non-empty subquery) makes the condition unknown, so the row is not kept. One
uncorrelated column runs on its key with operator-wide NULL counts (``null_aware``); a correlated
NOT IN or a row ``(a, b) NOT IN (SELECT x, y ...)`` takes Calcite's null-aware condition per column,
``(a = x OR a IS NULL OR x IS NULL) AND ...`` (as Flink's ``FlinkSubQueryRemoveRule``), so a right
row rules a left row out unless one column is known to differ. Without a correlation key such an
anti join has no equi-key: it runs keyless, every left row against every right row on one task,
as Flink's (its exchange is ``single``). Subqueries anywhere else (``OR``, the SELECT list) are
refused (``Planner._reject_subqueries``).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.joins import ANTI, SEMI, conjunction, conjuncts, plan_join, plan_joins
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope, ScopeColumn
from streamsql.plan.state_ttl_hint import plan_hinted_select

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
        SqlError: an IN subquery selecting other than as many columns as IN's left side has, a
            correlated non-simple subquery that cannot be decorrelated, no equality between the
            query and the subquery (but for NOT IN, which may have none).
    """
    for c in found:
        negated, kind, outer_expr, sub = _subquery_of(c)
        outer = bound_scope(scope, _OUTER)
        xs = _row_items(outer_expr) if kind == "IN" else []
        conds: list[exp.Expression] = []
        correlated = False
        if _simple(sub):
            right, inner_scope = plan_subquery_from(planner, sub)
            inner = bound_scope(inner_scope, _INNER)
            for w in conjuncts(sub.args["where"].this if sub.args.get("where") is not None else None):
                nested = w.find(exp.Query)
                if nested is not None:
                    planner._fail(nested, "A subquery inside a subquery's WHERE is not supported yet")
                bound = bind(w, [(inner_scope, _INNER), (scope, _OUTER)])
                correlated |= any(col.table == _OUTER for col in bound.find_all(exp.Column))
                conds.append(bound)
            if kind == "IN":
                items = sub.expressions
                if any(isinstance(i, exp.Star) for i in items):
                    _fail_width(planner, sub, len(xs), "*")
                if len(items) != len(xs):
                    _fail_width(planner, sub, len(xs), len(items))
                in_columns = [bind(y.unalias() if isinstance(y, exp.Alias) else y, [(inner_scope, _INNER)])
                              for y in items]
        else:
            corr = correlation(planner, sub, scope) if _grouped_select(sub) else None
            correlated = corr is not None and bool(corr.keys or corr.other)
            if correlated:  # grouped by its correlation key too, joined on it (as Calcite decorrelates)
                right, inner_scope, keys = _plan_grouped(planner, sub, corr)
                conds += [exp.EQ(this=bind(o, [(scope, _OUTER)]), expression=k) for o, k in keys]
            else:
                _refuse_correlated(planner, sub, scope)
                right, inner_scope = planner._query(sub)
            if kind != "IN" and not correlated:
                planner._fail(sub, "EXISTS over a UNION or a subquery with GROUP BY, DISTINCT, ORDER BY or "
                                   "LIMIT is not supported yet unless it is correlated; write one EXISTS "
                                   "per SELECT, without them")
            width = len(right.schema) - len(corr.keys if correlated else ())
            if kind == "IN" and width != len(xs):
                _fail_width(planner, sub, len(xs), width)
            inner = bound_scope(inner_scope, _INNER)
            in_columns = [exp.column(n, table=_INNER, quoted=True) for n in right.schema.names[:len(xs)]]
        null_aware = negated and kind == "IN"
        pairs = [(bind(x, [(scope, _OUTER)]), y) for x, y in zip(xs, in_columns)] if kind == "IN" else []
        if null_aware and (correlated or len(pairs) > 1):
            # Calcite's null-aware condition per column (FlinkSubQueryRemoveRule): a right row rules the
            # left row out unless some column is known to differ; the operator-wide NULL counts of the
            # one-column form do not apply (nor per correlation key)
            conds += [exp.or_(exp.EQ(this=x, expression=y), x.copy().is_(exp.null()),
                              y.copy().is_(exp.null())) for x, y in pairs]
            null_aware = False
        else:
            conds += [exp.EQ(this=x, expression=y) for x, y in pairs]
        node, _ = plan_join(planner, sub, ANTI if negated else SEMI, node, outer, right, inner, conds,
                            null_aware=null_aware, keyless=negated and kind == "IN")
    return node


def _row_items(e: exp.Expression) -> list[exp.Expression]:
    """The left side of IN as its columns: ``(a, b)`` (a row) → ``[a, b]``, ``x`` → ``[x]``."""
    while isinstance(e, exp.Paren):
        e = e.this
    return list(e.expressions) if isinstance(e, exp.Tuple) else [e]


def _fail_width(planner, sub: exp.Expression, want: int, got: int | str) -> None:
    """Refuse an IN whose subquery selects other than the left side's number of columns.

    Raises:
        SqlError: at the subquery.
    """
    if want == 1:
        planner._fail(sub, f"The subquery of IN must select one column; it selects {got}")
    planner._fail(sub, f"Values passed to IN operator must have compatible types (as Flink): the row on the "
                       f"left of IN has {want} columns, the subquery selects {got}")


def _grouped_select(q: exp.Expression) -> bool:
    """A SELECT with a FROM that may be decorrelated whole: grouped, or limited.

    Grouped: GROUP BY or DISTINCT, without ORDER BY / LIMIT. Limited: LIMIT [OFFSET] without
    ORDER BY, aggregation or DISTINCT, which Flink 2.3 decorrelates with the limit applied to the
    subquery's rows as a whole, not per outer row (PyFlink: ``EXISTS (SELECT 1 FROM s WHERE s.k =
    t.k AND s.v > 5 LIMIT 1)`` is a semi join on ``k`` with ``Limit(fetch=[1])`` over ``s``'s rows
    with ``v > 5``: the outer rows of the first such row's ``k`` only).
    """
    if not isinstance(q, exp.Select) or q.args.get("from_") is None or q.args.get("order") is not None \
            or q.args.get("qualify") is not None:
        return False
    if q.args.get("group") is not None or q.args.get("distinct") is not None:
        return not any(q.args.get(k) for k in ("limit", "offset"))
    return q.args.get("limit") is not None and q.args.get("having") is None \
        and not any(e.find(exp.AggFunc) for e in q.expressions)


def _refuse_correlated(planner, sub: exp.Expression, outer: Scope) -> None:
    """Refuse ``sub``, planned whole, when its WHERE reads the outer query's columns.

    Raises:
        SqlError: at the subquery, naming what keeps it from being decorrelated.
    """
    if not isinstance(sub, exp.Select) or sub.args.get("from_") is None:
        return
    corr = correlation(planner, sub, outer)
    if corr.keys or corr.other:
        what = [shown for k, shown in (("order", "ORDER BY"), ("qualify", "QUALIFY"), ("having", "HAVING"))
                if sub.args.get(k) is not None]
        if sub.args.get("group") is not None or sub.args.get("distinct") is not None:
            what.append("GROUP BY / DISTINCT with LIMIT")
        clauses = " and ".join(what) or "aggregates and LIMIT"
        planner._fail(sub, f"A correlated subquery with {clauses} is not supported; decorrelate it (JOIN "
                           "on the correlation key)")


def _plan_grouped(planner, sub: exp.Select, corr: Correlation
                  ) -> tuple[PlanNode, Scope, list[tuple[exp.Expression, exp.Expression]]]:
    """A grouped subquery correlated by equalities, with its keys as columns and in its GROUP BY.

    Returns ``(node, scope, [(outer expression, inner key column), ...])``.

    Raises:
        SqlError: a correlated condition other than an equality.
    """
    if corr.other:
        grouped = sub.args.get("group") is not None or sub.args.get("distinct") is not None
        clause = "GROUP BY or DISTINCT" if grouped else "LIMIT"
        planner._fail(corr.other[0], f"A correlated subquery with {clause} may only correlate by equalities "
                                     "(t.k = o.k)")
    names = [f"__corr_key{i}" for i in range(len(corr.keys))]
    grouped = sub.copy()
    grouped.set("where", None)
    if corr.local:
        grouped = grouped.where(conjunction([c.copy() for c in corr.local]), copy=False)
    grouped.set("expressions", [*grouped.expressions, *[exp.alias_(i.copy(), n, quoted=True)
                                                        for (i, _), n in zip(corr.keys, names)]])
    if grouped.args.get("group") is not None:
        grouped = grouped.group_by(*[i.copy() for i, _ in corr.keys], copy=False)
    right, scope = planner._query(grouped)
    keys = [(o, exp.column(scope.resolve(exp.column(n, quoted=True)).internal, table=_INNER, quoted=True))
            for (_, o), n in zip(corr.keys, names)]
    return right, scope, keys


@dataclass
class Correlation:
    """A subquery's WHERE split by what its conjuncts use.

    Attributes:
        local: the conjuncts that use the subquery's columns only.
        keys: ``(inner, outer)`` expression pairs of the correlated equalities.
        other: correlated conjuncts that are not such an equality.
    """

    local: list[exp.Expression]
    keys: list[tuple[exp.Expression, exp.Expression]]
    other: list[exp.Expression]


def correlation(planner, sub: exp.Select, outer: Scope) -> Correlation:
    """The conjuncts of ``sub``'s WHERE, split into local ones, correlated equalities and others.

    Raises:
        SqlError: a column neither the subquery's FROM nor ``outer`` has; a nested subquery.
    """
    _, inner = plan_subquery_from(planner, sub)
    scopes = [(inner, _INNER), (outer, _OUTER)]
    where = sub.args.get("where")
    out = Correlation([], [], [])
    for w in conjuncts(where.this if where is not None else None):
        nested = w.find(exp.Query)
        if nested is not None:
            planner._fail(nested, "A subquery inside a subquery's WHERE is not supported yet")
        if _OUTER not in _sides(w, scopes):
            out.local.append(w)
            continue
        u = w.unnest()
        if isinstance(u, exp.EQ):
            a, b = _sides(u.this, scopes), _sides(u.expression, scopes)
            if a == {_INNER} and b == {_OUTER}:
                out.keys.append((u.this, u.expression))
                continue
            if a == {_OUTER} and b == {_INNER}:
                out.keys.append((u.expression, u.this))
                continue
        out.other.append(w)
    return out


def _sides(e: exp.Expression, scopes: list[tuple[Scope, str]]) -> set[str]:
    """Which of the subquery (``__inner``) and the outer query (``__outer``) ``e``'s columns come from."""
    return {c.table for c in bind(e, scopes).find_all(exp.Column)}


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
    """The subquery's FROM (and its joins), without its WHERE: node and scope (with qualifiers).

    Its joins are the subquery's own SELECT's, for STATE_TTL hints: the outer query's hint does not
    reach them, the subquery's does (:mod:`streamsql.plan.state_ttl_hint`).
    """
    def plan(s: exp.Select) -> tuple[PlanNode, Scope]:
        src = s.args["from_"].this
        if s.args.get("joins"):
            node, scope, _ = plan_joins(planner, src, s.args["joins"], None)
            return node, scope
        return planner._from(src)

    return plan_hinted_select(planner, sub, plan)


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

