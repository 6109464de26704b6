"""Which columns of a plan node have a certain Flink type (NOT NULL included), for their readers.

A :class:`~streamsql.plan.scope.ScopeColumn`'s ``declared`` type is the one Flink's validator gives
the column, where it is certain: TYPEOF answers it, and the binder folds ``x IS NULL`` of a NOT NULL
``x`` to FALSE as Calcite's simplifier does (:func:`streamsql.functions.scalars.typeof.never_null`).
A table's columns have their DDL types (:func:`streamsql.plan.planner._declared_types`); this
module carries them through the plan:

- a projection's (a SELECT list's, a subquery's, a view's) column: its expression's type
  (:func:`~streamsql.plan.expressions.certain_type`; a bare column keeps its own);
- an aggregation's COUNT column: BIGINT NOT NULL, as Flink's COUNT (FILTER and DISTINCT too);
- a set operation's (UNION [ALL], INTERSECT, EXCEPT) column whose inputs' columns are both certain and
  of one type (TIMEs of any precisions too): that type (the wider TIME(p)), nullable iff either input's
  is, as Calcite's ``leastRestrictive`` (Flink 2.3: ``TYPEOF(x)`` of ``TIME '12:00:00' UNION ALL
  TIME '12:00:00.5'`` is ``TIME(1) NOT NULL``, tests/e2e/time_break_flink.json).

Every other column a plan derives stays without one (an outer join's, a window's, a SUM's ...).
"""

from __future__ import annotations

from dataclasses import replace

from sqlglot import exp

from streamsql.core.types import SqlType
from streamsql.plan.expressions import certain_type, resolve_unbound
from streamsql.plan.nodes import PlanNode
from streamsql.plan.scope import Scope

#: COUNT's type in Flink: ``BIGINT NOT NULL`` (Calcite's ``SqlCountAggFunction``).
COUNT_TYPE = SqlType("BIGINT", nullable=False)


def count_columns(agg: PlanNode) -> set[str]:
    """The output columns of ``agg``'s COUNT calls (an aggregate node: ``labels`` name its last columns)."""
    labels = list(getattr(agg, "labels", None) or [])
    names = agg.schema.names[len(agg.schema.names) - len(labels):] if labels else []
    return {n for n, label in zip(names, labels) if label.startswith("COUNT(")}


def aggregate_scope(scope: Scope, agg: PlanNode) -> Scope:
    """``scope`` (over ``agg``'s columns, same names) with ``agg``'s COUNT columns typed BIGINT NOT NULL."""
    counts = count_columns(agg)
    return Scope([replace(c, declared=COUNT_TYPE) if c.internal in counts else c for c in scope.columns],
                 scope.sql, scope.what)


def projected_scope(out: Scope, items: list[exp.Expression | None], scope: Scope) -> Scope:
    """``out`` (a projection's columns, one per item, in order) with each item's certain type over ``scope``.

    An item None is ``scope``'s column of the same name, kept as it is. An item that is a folded
    column of ``scope`` (:attr:`~streamsql.plan.scope.ScopeColumn.folded`) stays folded: Flink's
    planner merges the projections over the VALUES before it folds them (Flink 2.3:
    ``CAST(x AS TIMESTAMP(0))`` over ``SELECT a AS x FROM (VALUES ...)`` is a literal's cast).
    """
    by_internal = {c.internal: c for c in scope.columns}
    cols = []
    for c, item in zip(out.columns, items):
        if item is None:
            t = by_internal[c.internal].declared if c.internal in by_internal else None
        elif all("declared_type" in r.meta for r in resolve_unbound(item, scope).find_all(exp.Column)):
            t = certain_type(item, scope)
        else:
            t = None  # over a column of no certain type (the binder's inference would refuse it)
        cols.append(replace(c, declared=t, folded=_folded(item, scope)))
    return Scope(cols, out.sql, out.what)


def _folded(item: exp.Expression | None, scope: Scope) -> bool:
    """Whether ``item`` is a bare reference to a folded column of ``scope``."""
    if not isinstance(item, exp.Column) or isinstance(item.this, exp.Star):
        return False
    col, fields = scope.resolve_path(item)
    return col.folded and not fields


def set_operation_type(left: SqlType | None, right: SqlType | None, common: SqlType) -> SqlType | None:
    """The certain type of a set operation's column whose inputs' columns are certainly ``left`` / ``right``.

    ``common`` is the column's type as the set operation gives it (a TIME's widest precision).
    None where either side is not certain or the two differ in more than nullability (and a TIME's
    precision): how Calcite widens other mixes (CHAR(n) with VARCHAR, INT with BIGINT...) for TYPEOF
    is not checked here.
    """
    if left is None or right is None:
        return None
    same = left.with_nullable(True) == right.with_nullable(True)
    if not same and not (left.name == right.name == common.name == "TIME"):
        return None
    return common.with_nullable(left.nullable or right.nullable)
