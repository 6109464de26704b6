"""Which columns of an updating node only ever grow (or shrink), as Flink's modified monotonicity.

Flink's planner (``FlinkRelMdModifiedMonotonicity``, used by ``AggregateUtil.getNeedRetractions``)
gives a MAX over a changelog column that only increases the insert-only ``MaxAggFunction`` (a
retraction is ignored: the new value is never below the old one), a MIN over a decreasing one
``MinAggFunction``; any other MIN/MAX over a changelog is ``MinWithRetractAggFunction`` /
``MaxWithRetractAggFunction``. Flink 2.3's plan of ``SELECT g, MIN(d), MAX(d) FROM (SELECT id, g,
MAX(d) AS d FROM t GROUP BY id, g) GROUP BY g`` over an insert-only ``t`` is
``GroupAggregate(groupBy=[g], select=[g, MIN_RETRACT(d), MAX(d)])``. The two differ over DOUBLE and
FLOAT only (Java's ``<``/``>`` against ``Double.compareTo``: NaN, -0.0), which
``tests/functions/test_float_aggs.py`` checks against Flink's answers.

A column's monotonicity here is one of :data:`CONSTANT` (never updated: every column of an
insert-only node, a GROUP BY's keys), :data:`INCREASING`, :data:`DECREASING`, or None (not known
to be monotonic). Only what Flink's rules give for the nodes below is derived: a Calc passes its
input's columns through (a column reference or an identity CAST; its WHERE condition changes
nothing: Flink 2.3 plans ``MAX(d)`` over ``WHERE d > 0`` of an increasing ``d``); a GROUP BY
keeps its keys constant when its input is insert-only, makes MAX over a constant or increasing
column increasing and MIN over a constant or decreasing one decreasing; anything else is None
(the retracting form: never wrong where the values are exact).
"""

from __future__ import annotations

from streamsql.plan.nodes import INSERT_ONLY, CalcNode, GroupAggNode, PlanNode

CONSTANT, INCREASING, DECREASING = "constant", "increasing", "decreasing"

#: The monotonicity a MIN/MAX keeps, and the input monotonicities it keeps it over.
_EXTREMES = {"max": (INCREASING, (CONSTANT, INCREASING)), "max_retract": (INCREASING, (CONSTANT, INCREASING)),
             "min": (DECREASING, (CONSTANT, DECREASING)), "min_retract": (DECREASING, (CONSTANT, DECREASING))}


def monotonicity(node: PlanNode) -> list[str | None]:
    """Per output column of ``node``: :data:`CONSTANT`, :data:`INCREASING`, :data:`DECREASING` or None."""
    n = len(node.schema)
    if node.mode == INSERT_ONLY:
        return [CONSTANT] * n
    if isinstance(node, CalcNode):  # its condition too: Flink's monotonicity looks at the projection only
        below = monotonicity(node.inputs[0])
        through = node.passthrough()
        return [below[through[o]] if o in through else None for o in range(n)]
    if isinstance(node, GroupAggNode):
        below = monotonicity(node.inputs[0])
        # a key over a changelog may be deleted (its last row retracted): not known to be constant
        key = CONSTANT if node.inputs[0].mode == INSERT_ONLY else None
        out: list[str | None] = [key] * node.num_keys
        for spec in node.aggs:
            kept, over = _EXTREMES.get(spec.func, (None, ()))
            out.append(kept if spec.arg is not None and below[spec.arg] in over else None)
        return out
    return [None] * n


def without_retraction(func: str, arg: int | None, pre: PlanNode) -> str:
    """``func`` (a GROUP BY call over ``pre``'s column ``arg``), its insert-only form where Flink's is.

    ``max_retract`` over an increasing (or constant) column is ``max``, ``min_retract`` over a
    decreasing one ``min`` (see the module docstring); any other call stays ``func``.
    """
    if func not in ("max_retract", "min_retract") or arg is None:
        return func
    plain = func.removesuffix("_retract")
    return plain if monotonicity(pre)[arg] in _EXTREMES[plain][1] else func
