"""Subqueries in HAVING: the aggregation becomes a derived table that WHERE then filters.

``SELECT k, COUNT(*) FROM o GROUP BY k HAVING COUNT(*) >= (SELECT COUNT(*) FROM r)`` is, as
Calcite plans it, a filter over the aggregate's output::

    SELECT __s0 AS k, __s1 AS `EXPR$1`
    FROM (SELECT k AS __s0, COUNT(*) AS __s1, COUNT(*) AS __h0, k AS __g0 FROM o GROUP BY k) __having
    WHERE __h0 >= (SELECT COUNT(*) FROM r)

so the subquery is one of WHERE's, planned as those are: ``[NOT] IN`` / ``[NOT] EXISTS`` as semi
and anti joins (:mod:`streamsql.plan.subqueries`), a scalar subquery as a LEFT join
(:mod:`streamsql.plan.scalar_subqueries`). The HAVING condition's aggregate calls become columns
of the derived table (``__h<i>``), and so do the GROUP BY expressions it uses (``__g<i>``), also
inside a correlated subquery (``HAVING EXISTS (SELECT 1 FROM r WHERE r.k = o.k)``: ``o.k`` is a
grouping column of the outer query). The SELECT items keep their names (their aliases, column
names or Flink's ``EXPR$<i>``) and the outer SELECT keeps DISTINCT.

Functions:
    lift_having_subqueries(planner, sel): the rewritten SELECT, or ``sel`` when its HAVING has no subquery.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.plan.expressions import AGG_TYPES, output_name

_ALIAS = "__having"
#: Marks (in ``meta``) a SELECT whose WHERE was its HAVING, so errors name the clause the user wrote.
LIFTED_HAVING = "lifted_having"


def lift_having_subqueries(planner, sel: exp.Select) -> exp.Select:
    """``sel`` with a subquery in HAVING rewritten as a filter over the aggregate (module docstring).

    Raises:
        SqlError: an aggregate of the outer query's columns inside the subquery (Flink refuses it:
            ``Aggregate expression is illegal in WHERE clause``).
    """
    having = sel.args.get("having")
    if having is None or having.find(exp.Query) is None:
        return sel
    inner = sel.copy()
    cond = inner.args["having"].this
    inner.set("having", None)
    distinct = inner.args.get("distinct")
    inner.set("distinct", None)
    group = inner.args.get("group")
    groups = list(group.expressions) if group is not None else []
    outer_tables = _table_names(inner)
    items = [exp.alias_(i.unalias().copy() if isinstance(i, exp.Alias) else i.copy(), f"__s{n}", quoted=True)
             for n, i in enumerate(inner.expressions)]
    names = [output_name(i, n) for n, i in enumerate(sel.expressions)]
    extra: list[exp.Expression] = []

    def column(e: exp.Expression, prefix: str) -> exp.Column:
        for seen in extra:
            if seen.this == e and seen.alias.startswith(prefix):
                return exp.column(seen.alias, table=_ALIAS, quoted=True)
        name = f"{prefix}{sum(a.alias.startswith(prefix) for a in extra)}"
        extra.append(exp.alias_(e.copy(), name, quoted=True))
        return exp.column(name, table=_ALIAS, quoted=True)

    def lift(n: exp.Expression) -> exp.Expression:
        if isinstance(n, AGG_TYPES) and n.find_ancestor(exp.Query) is None:
            return column(n, "__h")
        if isinstance(n, AGG_TYPES) and any(c.table.lower() in outer_tables for c in n.find_all(exp.Column)):
            planner._fail(n, "An aggregate of the outer query inside a subquery of HAVING is not supported, "
                             "as in Flink (Aggregate expression is illegal in WHERE clause); compute it in "
                             "a subquery of FROM and compare there")
        if isinstance(n, exp.Column):
            nested = n.find_ancestor(exp.Query) is not None
            g = _grouping(n, groups, outer_tables if nested else None)
            if g is not None:
                return column(g, "__g")
        return n

    where = cond.copy().transform(lift)
    inner.set("expressions", items + extra)
    outer = exp.select(*[exp.alias_(exp.column(f"__s{n}", table=_ALIAS, quoted=True), name, quoted=True)
                         for n, name in enumerate(names)])
    outer.set("from_", exp.From(this=exp.Subquery(this=inner, alias=exp.TableAlias(
        this=exp.to_identifier(_ALIAS)))))
    outer.set("where", exp.Where(this=where))
    outer.meta[LIFTED_HAVING] = True
    if distinct is not None:
        outer.set("distinct", distinct)
    return outer


def _table_names(sel: exp.Select) -> set[str]:
    """The lower-case names and aliases of the tables in ``sel``'s FROM and joins."""
    names = set()
    for src in [sel.args["from_"].this, *[j.this for j in sel.args.get("joins") or []]]:
        if src.alias:
            names.add(src.alias.lower())
        if isinstance(src, exp.Table):
            names.add(src.name.lower())
    return names


def _grouping(col: exp.Column, groups: list[exp.Expression], qualifiers: set[str] | None
              ) -> exp.Expression | None:
    """The GROUP BY expression ``col`` names, or None.

    Outside a subquery (``qualifiers`` None) a column matches a grouping column of its name (and
    of its qualifier, when both have one); inside one only a column qualified by one of the outer
    query's tables can (an unqualified name there is the subquery's own first).
    """
    if isinstance(col.this, exp.Star):
        return None
    if qualifiers is not None and col.table.lower() not in qualifiers:
        return None
    for g in groups:
        if isinstance(g, exp.Column) and g.name.lower() == col.name.lower() and \
                (not g.table or not col.table or g.table.lower() == col.table.lower()):
            return g
    return None
