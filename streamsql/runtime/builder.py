"""From plan nodes to operators: one factory per plan node type.

The plan describes what each operator must do (query specs, schemas, keys, window specs); this
module is the one place that knows which operator class does it, so the plan never imports the
runtime. Scans and sinks are not here: they need the table's connector, which the job builder
creates (:mod:`streamsql.runtime.job`).
"""

from __future__ import annotations

from typing import Callable

from streamsql.plan.joins import IntervalJoinNode, JoinNode
from streamsql.plan.nodes import (
    INSERT_ONLY,
    CalcNode,
    GroupAggNode,
    PlanNode,
    UnionNode,
    WatermarkAssignerNode,
)
from streamsql.plan.query import compile_query
from streamsql.plan.windows import WindowAggNode, WindowTableFunctionNode
from streamsql.runtime.collect import CollectNode
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.operators.base import Operator
from streamsql.runtime.operators.calc import CalcOperator
from streamsql.runtime.operators.group_agg_columnar import create_group_agg
from streamsql.runtime.operators.join import IntervalJoinOperator, StreamingJoinOperator
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from streamsql.runtime.operators.sink import SinkOperator
from streamsql.runtime.operators.slicing_window import SlicingWindowAggOperator
from streamsql.runtime.operators.union import UnionOperator
from streamsql.runtime.operators.watermark_assigner import WatermarkAssignerOperator
from streamsql.runtime.operators.window_agg import WindowTableFunctionOperator


def _residual(node: JoinNode) -> BatchQuery | None:
    """The join's non-equi condition over its output columns, or None."""
    if not node.residual:
        return None
    return BatchQuery(compile_query([("__ok", node.residual)], None, node.schema))


def _join(node: JoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return StreamingJoinOperator(node.join_type, node.left_keys, node.right_keys, left, right, node.schema,
                                 _residual(node), insert_only=node.mode == INSERT_ONLY)


def _interval_join(node: IntervalJoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return IntervalJoinOperator(node.join_type, node.left_keys, node.right_keys, node.left_time,
                                node.right_time, node.lower, node.upper, left, right, node.schema,
                                _residual(node))


def _window_agg(node: WindowAggNode) -> Operator:
    """The session or the aligned (TUMBLE/HOP/CUMULATE, slicing) window aggregate."""
    cls = SessionWindowAggOperator if node.spec.kind == "SESSION" else SlicingWindowAggOperator
    return cls(node.spec, node.num_keys, node.ts_index, node.aggs, node.inputs[0].schema, node.schema)


def _window_tvf(node: WindowTableFunctionNode) -> Operator:
    ts_index = node.inputs[0].schema.get_field_index(node.rowtime)
    return WindowTableFunctionOperator(node.spec, ts_index, node.schema)


#: Plan node type → the factory of its operator (exact types: a subclass gets its own entry).
OPERATOR_FACTORIES: dict[type[PlanNode], Callable[..., Operator]] = {
    CalcNode: lambda n: CalcOperator(BatchQuery(n.query)),
    WatermarkAssignerNode: lambda n: WatermarkAssignerOperator(BatchQuery(n.query), n.idle_timeout_ms),
    GroupAggNode: lambda n: create_group_agg(n.num_keys, n.aggs, n.inputs[0].schema, n.schema),
    UnionNode: lambda n: UnionOperator(n.schema),
    WindowTableFunctionNode: _window_tvf,
    WindowAggNode: _window_agg,
    JoinNode: _join,
    IntervalJoinNode: _interval_join,
    CollectNode: lambda n: SinkOperator(n.sink, "collect"),
}


def create_operator(node: PlanNode) -> Operator:
    """The operator that runs ``node`` (not a scan or a table sink: see the job builder).

    Raises:
        TypeError: for a node type without a factory.
    """
    factory = OPERATOR_FACTORIES.get(type(node))
    if factory is None:
        msg = f"No operator for plan node {type(node).__name__}"
        raise TypeError(msg)
    return factory(node)
