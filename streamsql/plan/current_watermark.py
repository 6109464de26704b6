"""CURRENT_WATERMARK(rowtime): where its watermark comes from, decided once a statement is planned.

The function reads the evaluating Calc operator's current watermark (the DuckDB variable
``functions.scalars.clock.WATERMARK_VARIABLE``, set by ``runtime.operators.calc``). Flink's
``WatermarkAssignerOperator`` (a source without watermark push-down) emits a watermark after a row
as soon as it moved more than ``'pipeline.auto-watermark-interval'``, so the rows after it see it;
the assigner here cuts a batch only where a later row could be late (a row behind the running
maximum), which no operator but CURRENT_WATERMARK can tell apart. A statement that calls it has
every assigner cut at each watermark Flink emits (``WatermarkAssignerNode.every_emit``).

Its argument must be a rowtime attribute of the input (:func:`check_arguments`), as Flink's
``CurrentWatermarkInputTypeStrategy``: any other column or expression is refused at planning.
"""

from __future__ import annotations

from sqlglot import exp

from streamsql.functions.scalars.clock import WATERMARK_VARIABLE
from streamsql.plan.expressions import sql_type_of
from streamsql.plan.nodes import CalcNode, PlanNode, WatermarkAssignerNode, walk
from streamsql.plan.scope import Scope
from streamsql.plan.windows import time_attributes


def check_arguments(planner, node: PlanNode, scope: Scope, exprs: list[exp.Expression | None]) -> None:
    """Refuse a CURRENT_WATERMARK whose argument is not a rowtime attribute, as Flink 2.3 does.

    ``exprs`` are over ``scope``, ``node``'s output; the messages are Flink's
    (``CurrentWatermarkInputTypeStrategy``, checked with PyFlink).

    Raises:
        SqlError: at the argument (or the call, for another number of arguments).
    """
    calls = [c for e in exprs if e is not None for c in e.find_all(exp.Anonymous)
             if str(c.this).upper() == "CURRENT_WATERMARK"]
    if not calls:
        return
    rowtimes = time_attributes(node)
    for call in calls:
        args = call.expressions
        if len(args) != 1:
            continue  # the function registry refuses the arity, with the signature
        arg = args[0]
        if isinstance(arg, exp.Column) and scope.resolve(arg).internal in rowtimes:
            continue
        t = sql_type_of(arg, scope)
        if t is not None and t.is_time:
            planner._fail(arg, f"The argument of CURRENT_WATERMARK() must be a rowtime attribute, but was "
                               f"'{t}'.")
        what = "NULL" if t is None else str(t)
        planner._fail(arg, f"CURRENT_WATERMARK() must be called with a single rowtime attribute argument, "
                           f"but '{what}' cannot be a time attribute.")


def watermark_every_emit(roots: list[PlanNode]) -> None:
    """Mark every watermark assigner under ``roots`` ``every_emit`` when a Calc calls CURRENT_WATERMARK."""
    nodes = walk(roots)
    if any(isinstance(n, CalcNode) and WATERMARK_VARIABLE in n.query.sql() for n in nodes):
        for n in nodes:
            if isinstance(n, WatermarkAssignerNode):
                n.every_emit = True
