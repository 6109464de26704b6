"""Flink's AggregateReduceFunctionsRule over a GROUP BY's (or a window's) aggregate calls.

Flink 2.3 has no STDDEV / VAR aggregate function: Calcite's AggregateReduceFunctionsRule (Flink's copy,
``org.apache.calcite.rel.rules.AggregateReduceFunctionsRule``, in ``FlinkStreamRuleSets.LOGICAL_RULES``
as ``CoreRules.AGGREGATE_REDUCE_FUNCTIONS``) rewrites them into ``WELFORD_M2`` and ``COUNT`` calls. The
rule rewrites *every* reducible call of that aggregate at once (``reduceAggs``): ``SUM(x)`` into
``CASE WHEN COUNT(x) = 0 THEN NULL ELSE $SUM0(x) END`` and ``AVG(x)`` into ``SUM(x) / COUNT(x)``,
DISTINCT and FILTER kept. The planner is cost based: an aggregate without a STDDEV / VAR call keeps
its SUM and AVG (Flink implements them; the rewrite costs more), one with such a call can only take
the rewritten plan. So beside any variance call (DISTINCT or not, with FILTER or not), a lone -0.0
sums to 0.0 (``$SUM0`` starts from 0.0) and averages -0.0 (the quotient's SUM takes its first value as
is), the other way round from the calls alone (``tests/functions/sumdistinct34_flink.json``, ``grid``
and ``reduce``: ``scripts/flink_sumdistinct34.py``). Only the sign of a zero differs, so only calls
of a floating result are rewritten here (an AVG of DOUBLE only: an AVG of FLOAT reduced would add in
FLOAT, not probed).
"""

from __future__ import annotations

from dataclasses import replace

from streamsql.functions.aggregates import REDUCED_FUNCTIONS, AggSpec
from streamsql.functions.variance import VARIANCE_FUNCTIONS

_VARIANCE = frozenset(c.func for c in VARIANCE_FUNCTIONS)


def reduce_functions(specs: list[AggSpec]) -> list[AggSpec]:
    """``specs`` as Flink's AggregateReduceFunctionsRule leaves them (see the module docstring).

    Args:
        specs: one aggregate's calls, in order.

    Returns:
        The same calls, where one of them is of the variance family, with each SUM / SUM(DISTINCT)
        of FLOAT or DOUBLE as ``sum0`` / ``sum0_distinct`` and each AVG / AVG(DISTINCT) of DOUBLE
        without a SUM / SUM(DISTINCT) of its argument beside it as ``avg_of_sum`` /
        ``avg_of_sum_distinct``; otherwise ``specs`` itself.
    """
    if not any(s.func in _VARIANCE for s in specs):
        return specs
    sums = {(s.func, s.arg) for s in specs}
    return [replace(s, func=REDUCED_FUNCTIONS[s.func]) if _reduced(s, sums) else s for s in specs]


#: The SUM whose reduced form an AVG's sum becomes when the aggregate also has it.
_SUM_OF = {"avg": "sum", "avg_distinct": "sum_distinct"}


def _reduced(spec: AggSpec, sums: set[tuple[str, int | None]]) -> bool:
    """Whether ``spec`` takes its reduced function (see :func:`reduce_functions`).

    An AVG beside a SUM of the same argument (and FILTER: one argument column) keeps Flink's own AVG:
    the rule, applied again to the rewritten aggregate, reduces the AVG's ``SUM(x)`` to the
    ``$SUM0(x)`` the SUM's reduction added (one call less, the cheaper plan), so the quotient sums
    from 0.0 as Flink's AVG does (``tests/functions/float_grid_flink.json``, ``variance``: a lone
    -0.0 averages 0.0 beside ``SUM(x)``, -0.0 without it).
    """
    if spec.func not in REDUCED_FUNCTIONS:
        return False
    if spec.func in _SUM_OF and (_SUM_OF[spec.func], spec.arg) in sums:
        return False
    floating = ("DOUBLE",) if spec.func.startswith("avg") else ("FLOAT", "DOUBLE")
    return spec.out_type.name in floating
