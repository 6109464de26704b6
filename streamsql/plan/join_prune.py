"""A regular join keeps only the columns read above it, as Flink's ``ProjectJoinTransposeRule``.

Flink's planner pushes the projection over a join into its inputs (``FlinkProjectJoinTransposeRule``
and the Calc under each input of ``StreamPhysicalJoin``), so a join's state holds only the columns
its consumer reads, its join keys and those of its residual condition: Nexmark q4 joins the
auctions' ``id, dateTime, expires, category`` with the bids' ``auction, price, dateTime``, not
their ten and seven columns (``itemName``, ``description``, ``extra``... would be encoded, stored,
read back and rebuilt into every output row for nothing).

:func:`prune_join_inputs` runs on a planned statement after the Calcs are merged: for each regular
join (:class:`~streamsql.plan.joins.JoinNode` itself, not a semi, window or interval join) whose
only reader is a Calc, each side's unread columns are dropped by a projection Calc over that input
(merged into the input's own Calc by :func:`~streamsql.plan.calc_merge.merge_calcs` where it can
be). The join's output keeps the names of the columns it keeps, so the Calc above and the residual
condition read them unchanged; key indexes are renumbered. A side whose every column is read stays
as it is. Where the Calc above does not compile over the pruned columns (a reference this analysis
missed), the join is left whole.

Rows equal on the kept columns are one multiset entry of the join's state with their count (as in
Flink): the join's output is the same multiset.
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from streamsql.core.errors import SqlError
from streamsql.plan.calc_merge import column_references
from streamsql.plan.expressions import quote
from streamsql.plan.joins import JoinNode
from streamsql.plan.nodes import CalcNode, PlanNode, under_one_calc
from streamsql.plan.query import compile_query


def prune_join_inputs(roots: list[PlanNode]) -> bool:
    """Drop the columns no reader of a regular join uses from its inputs (module docstring), in place.

    Returns:
        Whether some join was pruned (then merge the Calcs again).
    """
    pruned = False
    for node, calc in under_one_calc(roots, JoinNode):
        pruned = _prune(node, calc) or pruned
    return pruned


def _prune(join: JoinNode, calc: CalcNode) -> bool:
    """Prune ``join``'s inputs to what ``calc`` (its one reader) and the join itself read."""
    q = calc.query
    exprs = [e for _, e in q.items] + [q.condition, join.residual]
    used = {name for e in exprs if e for _, _, name in column_references(e)}
    names = join.schema.names
    width = len(join.inputs[0].schema)
    sides = ((join.inputs[0], 0, join.left_keys), (join.inputs[1], width, join.right_keys))
    keep = [[i for i in range(len(side.schema)) if names[i + offset] in used or i in keys]
            for side, offset, keys in sides]
    if all(len(k) == len(side.schema) for k, side in zip(keep, join.inputs)):
        return False
    offsets = (0, width)
    schema = pa.schema([join.schema.field(i + off) for k, off in zip(keep, offsets) for i in k])
    try:
        check = compile_query(q.items, q.condition, schema)
    except SqlError:
        return False
    if check.output_schema != q.output_schema:
        return False
    inputs = [_project(side, k) for side, k in zip(join.inputs, keep)]
    join.left_keys = [keep[0].index(i) for i in join.left_keys]
    join.right_keys = [keep[1].index(i) for i in join.right_keys]
    join.inputs, join.schema = inputs, schema
    calc.query = dataclasses.replace(q, input_schema=schema)
    return True


def _project(node: PlanNode, columns: list[int]) -> PlanNode:
    """``node`` itself when ``columns`` are all its columns, else a Calc selecting them (names kept)."""
    if len(columns) == len(node.schema):
        return node
    names = [node.schema.names[i] for i in columns]
    query = compile_query([(n, quote(n)) for n in names], None, node.schema)
    return CalcNode.over(node, query)
