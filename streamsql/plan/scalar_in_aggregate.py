"""Scalar subqueries in the SELECT list of an aggregating query, as Flink plans them.

``SELECT g, SUM(x) - (SELECT MAX(x) FROM r) AS v FROM t GROUP BY g``: Calcite puts the subquery in
the projection above the aggregate, so Flink (``SubQueryRemoveRule``) joins the aggregate's rows
with the subquery's one row. Here the query is rewritten to that shape before planning:

    SELECT g, __lift_a0 - (SELECT MAX(x) FROM r) AS v
    FROM (SELECT g, SUM(x) AS __lift_a0 FROM t GROUP BY g) AS __lifted

Every aggregate call and column outside the subqueries of an item that holds one becomes a column
of the inner aggregate (a column that is not grouped is refused there, as it would be in place);
the other items are computed inside and passed on under their names (an unnamed expression keeps
Flink's ``EXPR$<position>``). WHERE, GROUP BY and HAVING stay inside. The outer query is no longer
aggregating, so its scalar subqueries are planned by :mod:`streamsql.plan.scalar_subqueries`.

Left as they are (refused there, as before): correlated subqueries (a column qualified by a name of
the query's FROM), and queries with DISTINCT, ORDER BY, LIMIT or window functions.
"""

from __future__ import annotations

from sqlglot import exp

_PREFIX = "__lift_"


def _select_subqueries(item: exp.Expression) -> list[exp.Subquery]:
    """The scalar subqueries of a SELECT item (not those of IN)."""
    return [s for s in item.find_all(exp.Subquery)
            if isinstance(s.this, exp.Select) and not isinstance(s.parent, exp.In)]


def _aggregating(sel: exp.Select) -> bool:
    from streamsql.plan.scalar_subqueries import _aggregating as aggregating

    return aggregating(sel)


def _source_names(sel: exp.Select) -> set[str]:
    """The table names and aliases of ``sel``'s FROM and JOINs (lower case)."""
    names = set()
    for part in [sel.args.get("from_"), *(sel.args.get("joins") or [])]:
        if part is None:
            continue
        src = part.this
        if src.alias:
            names.add(src.alias.lower())
        if isinstance(src, exp.Table):
            names.add(src.name.lower())
    return names


def _correlated(sub: exp.Subquery, outer: set[str]) -> bool:
    """Whether a column of ``sub`` names a table of the outer FROM (``outer``) it does not define."""
    inner = set()
    for s in sub.find_all(exp.Select):
        inner |= _source_names(s)
    return any(c.table and c.table.lower() in outer - inner for c in sub.find_all(exp.Column))


def lift_scalar_aggregates(sel: exp.Select) -> exp.Select:
    """``sel`` lifted into a subquery of FROM (the module docstring) when it aggregates.

    Only when its SELECT list holds an uncorrelated scalar subquery; else ``sel`` itself.
    """
    if not isinstance(sel, exp.Select) or not any(_select_subqueries(i) for i in sel.expressions):
        return sel
    if not _aggregating(sel) or any(sel.args.get(a) for a in ("distinct", "order", "limit", "qualify")):
        return sel
    if any(i.find(exp.Window) for i in sel.expressions):
        return sel
    outer_names = _source_names(sel)
    if any(_correlated(s, outer_names) for i in sel.expressions for s in _select_subqueries(i)):
        return sel
    inner_items: list[exp.Expression] = []
    outer_items: list[exp.Expression] = []

    def lifted(node: exp.Expression) -> exp.Column:
        name = f"{_PREFIX}{len(inner_items)}"
        inner_items.append(exp.alias_(node.copy(), name, quoted=True))
        return exp.column(name, quoted=True)

    for pos, item in enumerate(sel.expressions):
        name = item.alias_or_name if isinstance(item, (exp.Alias, exp.Column)) else f"EXPR${pos}"
        if not _select_subqueries(item):
            outer_items.append(exp.alias_(lifted(item.unalias()), name, quoted=True))
            continue
        expr = item.unalias().copy()
        outside = [n for n in expr.walk() if n.find_ancestor(exp.Subquery) is None]
        aggs = [n for n in outside if isinstance(n, exp.AggFunc)
                and not any(isinstance(a, exp.AggFunc) for a in _ancestors(n))]
        for a in aggs:
            a.replace(lifted(a))
        cols = [n for n in expr.walk() if isinstance(n, exp.Column) and n.find_ancestor(exp.Subquery) is None
                and not n.name.startswith(_PREFIX)]
        for c in cols:
            c.replace(lifted(c))
        outer_items.append(exp.alias_(expr, name, quoted=True))
    inner = sel.copy()
    inner.set("expressions", inner_items)
    return exp.Select(expressions=outer_items).from_(exp.Subquery(this=inner, alias=exp.TableAlias(
        this=exp.to_identifier("__lifted"))))


def _ancestors(node: exp.Expression):
    p = node.parent
    while p is not None:
        yield p
        p = p.parent
