"""CURRENT_WATERMARK(rowtime): where its watermark comes from, decided once a statement is planned.

The function reads the evaluating Calc operator's current watermark (the DuckDB variable
``functions.scalars.clock.WATERMARK_VARIABLE``, set by ``runtime.operators.calc``). Flink's
``WatermarkAssignerOperator`` (a source without watermark push-down) emits a watermark after a row
as soon as it moved more than ``'pipeline.auto-watermark-interval'``, so the rows after it see it;
the assigner here cuts a batch only where a later row could be late (a row behind the running
maximum), which no operator but CURRENT_WATERMARK can tell apart. A statement that calls it has
every assigner cut at each watermark Flink emits (``WatermarkAssignerNode.every_emit``).
"""

from __future__ import annotations

from streamsql.functions.scalars.clock import WATERMARK_VARIABLE
from streamsql.plan.nodes import CalcNode, PlanNode, WatermarkAssignerNode, walk


def watermark_every_emit(roots: list[PlanNode]) -> None:
    """Mark every watermark assigner under ``roots`` ``every_emit`` when a Calc calls CURRENT_WATERMARK."""
    nodes = walk(roots)
    if any(isinstance(n, CalcNode) and WATERMARK_VARIABLE in n.query.sql() for n in nodes):
        for n in nodes:
            if isinstance(n, WatermarkAssignerNode):
                n.every_emit = True
