"""Flink's AggregateReduceFunctionsRule over a GROUP BY's (or a window's) aggregate calls.

Flink 2.3 has no STDDEV / VAR aggregate function: Calcite's AggregateReduceFunctionsRule (Flink's copy,
``org.apache.calcite.rel.rules.AggregateReduceFunctionsRule``, in ``FlinkStreamRuleSets.LOGICAL_RULES``
as ``CoreRules.AGGREGATE_REDUCE_FUNCTIONS``) rewrites them into ``WELFORD_M2`` and ``COUNT`` calls. The
rule rewrites *every* reducible call of that aggregate at once (``reduceAggs``): ``SUM(x)`` into
``CASE WHEN COUNT(x) = 0 THEN NULL ELSE $SUM0(x) END`` and ``AVG(x)`` into ``SUM(x) / COUNT(x)``,
DISTINCT and FILTER kept, identical calls made one. Flink's planner is cost based (Volcano): it takes
the rewritten aggregate when it can only take that one (a STDDEV / VAR call) or when the rewrite
leaves fewer aggregate calls than the query has (a cheaper aggregate: ``SUM(DISTINCT i),
AVG(DISTINCT i), SUM(DISTINCT m), AVG(DISTINCT m), COUNT(DISTINCT m)`` becomes ``$SUM0(DISTINCT i),
COUNT(DISTINCT i), $SUM0(DISTINCT m), COUNT(DISTINCT m)``), and keeps SUM and AVG otherwise (the same
number of calls and a Calc more: ``SUM(DISTINCT i), AVG(DISTINCT i)`` keeps both); Flink 2.3's plans
and answers in ``tests/functions/float_aggs_flink.json`` (``reduce`` queries,
``scripts/flink_float_aggs.py``). In a rewritten aggregate a lone -0.0 sums to 0.0 (``$SUM0`` starts
from 0.0) and averages -0.0 (the quotient's SUM takes its first value as is), the other way round
from the calls alone (``tests/functions/sumdistinct34_flink.json``, ``grid`` and ``reduce``:
``scripts/flink_sumdistinct34.py``), and an AVG of integers divides a sum of the argument's type,
wrapped past it (an INT sum past 2^31 - 1 is negative), where Flink's own AVG sums in BIGINT. So
the calls of a floating SUM and an AVG of DOUBLE or of an integer type are rewritten here (an AVG of
FLOAT reduced would add in FLOAT, not probed; a DECIMAL's answers do not change).
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
        The same calls, where one of them is of the variance family or the rewrite leaves fewer calls
        (:func:`fewer_calls`), with each SUM / SUM(DISTINCT) of FLOAT or DOUBLE as ``sum0`` /
        ``sum0_distinct`` and each AVG / AVG(DISTINCT) of an integer type, and of DOUBLE without a SUM
        / SUM(DISTINCT) of its argument beside it, as ``avg_of_sum`` / ``avg_of_sum_distinct``;
        otherwise ``specs`` itself.
    """
    if not any(s.func in _VARIANCE for s in specs) and not fewer_calls(specs):
        return specs
    sums = {(s.func, s.arg) for s in specs}
    return [replace(s, func=REDUCED_FUNCTIONS[s.func]) if _reduced(s, sums) else s for s in specs]


#: The calls Calcite's ``reduceAggs`` (applied until nothing is left to reduce) makes of a SUM or an
#: AVG: ``$SUM0`` and ``COUNT`` of its argument (``SUM(x)``: CASE over both, ``AVG(x)``: a quotient).
_PARTS = {"sum": ("sum0", "count"), "avg": ("sum0", "count"),
          "sum_distinct": ("sum0_distinct", "count_distinct"),
          "avg_distinct": ("sum0_distinct", "count_distinct")}


def fewer_calls(specs: list[AggSpec]) -> bool:
    """Whether rewriting the SUM and AVG calls of ``specs`` leaves fewer distinct aggregate calls.

    A call is its function and argument column (a FILTER is an argument column of its own); an
    existing ``COUNT(x)`` is the one a reduction of ``x``'s SUM or AVG needs.
    """
    before = {(s.func, s.arg) for s in specs}
    after = {(part, s.arg) for s in specs for part in _PARTS.get(s.func, (s.func,))}
    return len(after) < len(before)


#: The SUM whose reduced form an AVG's sum becomes when the aggregate also has it.
_SUM_OF = {"avg": "sum", "avg_distinct": "sum_distinct"}
_INTEGERS = ("TINYINT", "SMALLINT", "INT", "BIGINT")


def _reduced(spec: AggSpec, sums: set[tuple[str, int | None]]) -> bool:
    """Whether ``spec`` takes its reduced function (see :func:`reduce_functions`).

    An AVG of integers always does (its sum is of the argument's type). An AVG of DOUBLE beside a SUM
    of the same argument (and FILTER: one argument column) keeps Flink's own AVG:
    the rule, applied again to the rewritten aggregate, reduces the AVG's ``SUM(x)`` to the
    ``$SUM0(x)`` the SUM's reduction added (one call less, the cheaper plan), so the quotient sums
    from 0.0 as Flink's AVG does (``tests/functions/float_grid_flink.json``, ``variance``: a lone
    -0.0 averages 0.0 beside ``SUM(x)``, -0.0 without it).
    """
    if spec.func not in REDUCED_FUNCTIONS:
        return False
    if spec.func in _SUM_OF and spec.out_type.name in _INTEGERS:
        return True
    if spec.func in _SUM_OF and (_SUM_OF[spec.func], spec.arg) in sums:
        return False
    floating = ("DOUBLE",) if spec.func.startswith("avg") else ("FLOAT", "DOUBLE")
    return spec.out_type.name in floating
