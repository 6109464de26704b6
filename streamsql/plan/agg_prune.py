"""A GROUP BY aggregate computes only the calls read above it, as Flink's ``PruneAggregateCallRule``.

Flink's planner drops every aggregate call that the projection above the aggregate does not read
(``PruneAggregateCallRule.PROJECT_ON_AGGREGATE``). That is not only work saved: an updating
aggregate emits nothing for a key whose result did not change (its ``RecordEqualiser``), and the
result compared is the calls that remain. In ``SELECT a0 / 10, LISTAGG(m0) FROM (SELECT s, SUM(k)
AS a0, SUM(x) AS a1, MIN(s) AS m0 FROM t GROUP BY s) GROUP BY a0 / 10``, a row that changes only
``SUM(x)`` makes no ``-U``/``+U`` in Flink, so the outer LISTAGG keeps its order; computing
``SUM(x)`` anyway emitted an update that moved the key's value to the end of the list (query fuzz
v4 seed 300089; seed 300111: LAST_VALUE over such updates).

:func:`prune_aggregate_calls` runs on a planned statement after the Calcs are merged: for each
:class:`~streamsql.plan.nodes.GroupAggNode` whose only reader is a Calc, the calls whose columns
that Calc does not read are dropped (the keys stay; a global aggregate keeps at least one call). The
row count that decides when a key is deleted is the operator's own state, not a call. Where the
Calc does not compile over the pruned columns (a reference this analysis missed), the aggregate is
left whole. The calls as planned stay in the node's ``unpruned``: StreamSQL up to f3e00a5a computed
them all, and its checkpoints restore into the pruned operator (the dropped calls' accumulators
dropped, :mod:`streamsql.runtime.operators.group_agg_upgrade`).

:func:`per_row_under_ordered_calls`: an aggregate whose result depends on the order of its input
changes (FIRST_VALUE, LAST_VALUE, LISTAGG: the retracting variants keep arrival order; COLLECT: the
order of its hash map's values that share a bucket is their first insertion's) over an
updating aggregate (through Calcs) sees, in Flink (no mini-batch), the inner aggregate's ``-U``/``+U``
of every input row: a debezium update's ``-U`` and ``+U`` rows each change the inner key and each
emit. The inner aggregate is marked ``per_row`` so that it emits per input row, not once per batch
(seed 300111: LAST_VALUE of a COUNT(*) that an update moved down and up again).
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.plan.calc_merge import column_references
from streamsql.plan.nodes import CalcNode, GroupAggNode, PlanNode, UnprunedCalls, under_one_calc, walk
from streamsql.plan.query import compile_query


def prune_aggregate_calls(roots: list[PlanNode]) -> bool:
    """Drop the aggregate calls no reader uses (module docstring), in place.

    Returns:
        Whether some aggregate was pruned.
    """
    pruned = False
    for node, calc in under_one_calc(roots, GroupAggNode):
        pruned = _prune(node, calc) or pruned
    return pruned


#: EXPLAIN labels of the calls whose result depends on the order of the changes they take.
_ORDERED = ("FIRST_VALUE(", "LAST_VALUE(", "LISTAGG(", "COLLECT(")


def per_row_under_ordered_calls(roots: list[PlanNode]) -> None:
    """Mark ``per_row`` each GroupAggNode read (through Calcs) by one with an ordered call, in place."""
    for node in walk(roots):
        if type(node) is GroupAggNode and any(label.startswith(_ORDERED) for label in node.labels):
            below = node.inputs[0]
            while isinstance(below, CalcNode):
                below = below.inputs[0]
            if type(below) is GroupAggNode:
                below.per_row = True


def _prune(agg: GroupAggNode, calc: CalcNode) -> bool:
    """Prune ``agg``'s calls to those ``calc`` (its one reader) reads."""
    q = calc.query
    used = {name for e in [*(e for _, e in q.items), q.condition] if e
            for _, _, name in column_references(e)}
    names, nk = agg.schema.names, agg.num_keys
    keep = [i for i in range(nk, len(names)) if names[i] in used]
    if not keep and nk == 0 and len(names) > 0:
        keep = [0]  # a global aggregate keeps one call: its one row
    if len(keep) == len(names) - nk:
        return False
    columns = list(range(nk)) + keep
    schema = pa.schema([agg.schema.field(i) for i in columns])
    try:
        check = compile_query(q.items, q.condition, schema)
    except SqlError:
        return False
    if check.output_schema != q.output_schema:
        return False
    before = agg.unpruned
    agg.unpruned = UnprunedCalls(
        before.aggs if before else agg.aggs, before.labels if before else agg.labels,
        before.schema if before else agg.schema,
        tuple(before.kept[i - nk] if before else i - nk for i in keep))
    agg.aggs = [agg.aggs[i - nk] for i in keep]
    agg.labels = [agg.labels[i - nk] for i in keep]
    agg.schema = schema
    calc.query = dataclasses.replace(q, input_schema=schema)
    return True
