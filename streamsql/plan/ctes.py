"""``WITH`` (common table expressions), planned as the subqueries they name.

Flink expands a CTE at each reference, as a view: each ``FROM name`` becomes ``FROM (query) AS
name``, and the planner plans that subquery (twice, if the CTE is read twice — a CTE shares no
state between its readers). A CTE sees the CTEs defined before it; an inner ``WITH`` is expanded
when its own query is planned.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.core.errors import SqlError
from streamsql.plan.scope import position_of


def inline_ctes(q: exp.Query, sql: str | None) -> exp.Query:
    """``q`` without its ``WITH`` clause, every reference to a CTE replaced by the CTE's query.

    A CTE's column list (``WITH t (a, b) AS (q)``) names ``q``'s columns in order: the reference
    becomes ``(SELECT * FROM (q) AS t(a, b)) AS t``, checked as a ``FROM ... AS t(a, b)`` is.

    Raises:
        SqlError: ``WITH RECURSIVE``, positioned at it.
    """
    with_ = q.args["with_"]
    if with_.args.get("recursive"):
        _fail(with_, sql, "WITH RECURSIVE is not supported in a streaming query")
    q = q.copy()
    q.set("with_", None)
    defined: dict[str, exp.Expression] = {}
    for cte in with_.expressions:
        body = _expand(cte.this, defined)
        columns = cte.args["alias"].columns
        if columns:
            named = exp.TableAlias(this=exp.to_identifier(cte.alias), columns=[c.copy() for c in columns])
            named.meta["cte"] = True  # a count mismatch gets Calcite's message for a CTE
            read = exp.Subquery(this=body, alias=named)
            body = exp.Select(expressions=[exp.Star()], from_=exp.From(this=read))
        defined[cte.alias.lower()] = body
    return _expand(q, defined)


def _expand(tree: exp.Expression, defined: dict[str, exp.Expression]) -> exp.Expression:
    """``tree`` with each unqualified table named in ``defined`` replaced by that subquery."""
    if not defined:
        return tree

    def swap(n: exp.Expression) -> exp.Expression:
        if isinstance(n, exp.Table) and not n.db and isinstance(n.this, exp.Identifier) \
                and n.name.lower() in defined:
            sub = exp.Subquery(this=defined[n.name.lower()].copy(),
                               alias=exp.TableAlias(this=exp.to_identifier(n.alias or n.name)))
            if n.meta.get("table_arg"):  # TO_CHANGELOG(input => TABLE cte): still a table argument
                sub.meta["table_arg"] = True
            return sub
        return n

    return tree.transform(swap)


def _fail(node: exp.Expression, sql: str | None, message: str) -> None:
    line, col, length = position_of(node)
    raise SqlError(message, sql, line, col, length)
