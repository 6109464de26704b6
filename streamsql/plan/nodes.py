"""Physical plan nodes: inputs, output schema, changelog mode and what the operator needs.

Each node prints itself for EXPLAIN, declares whether it keeps state, and carries what its
runtime operator needs (query specs, schemas, ids); the runtime's builder
(:mod:`streamsql.runtime.builder`) maps each node type to the factory of its operator.

Changelog modes, as Flink's planner:

- ``insert-only`` — only +I rows;
- ``retract`` — +I, -U, +U, -D (an updating result, e.g. GROUP BY without a window).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa

from streamsql.core.catalog import TableDef
from streamsql.core.types import Schema
from streamsql.plan.query import QuerySpec

INSERT_ONLY = "insert-only"
RETRACT = "retract"


def explain_attr(name: str, value: str | None) -> str:
    """``, name=[value]`` for an EXPLAIN line, or nothing when ``value`` is empty or None."""
    return f", {name}=[{value}]" if value else ""


@dataclass(eq=False)
class PlanNode:
    """Base of all plan nodes.

    Attributes:
        inputs: upstream nodes.
        schema: Arrow schema of the batches this node emits.
        mode: changelog mode of its output (:data:`INSERT_ONLY` or :data:`RETRACT`).
        id: stable, readable id assigned by the planner (``calc-3``); names operator state.
    """

    inputs: list[PlanNode]
    schema: pa.Schema
    mode: str = INSERT_ONLY
    id: str = ""
    kind: ClassVar[str] = "node"
    stateful: ClassVar[bool] = False

    @property
    def sql_schema(self) -> Schema:
        """The output columns as SQL types."""
        return Schema.from_arrow(self.schema)

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return self.kind


@dataclass(eq=False)
class ScanNode(PlanNode):
    """Reads a table through its connector's source."""

    table: TableDef = None  # type: ignore[assignment]

    kind: ClassVar[str] = "scan"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"TableSourceScan(table=[{self.table.name}], connector=[{self.table.connector}], "
                f"fields=[{', '.join(self.schema.names)}])")


@dataclass(eq=False)
class CalcNode(PlanNode):
    """Projection and filter in one batch query.

    Attributes:
        proctime: output columns this Calc computes with a bare ``PROCTIME()`` call (a table's
            computed column or a SELECT item): processing-time attributes, whose value a
            time-driven operator replaces by its own processing time (Flink materializes a
            proctime attribute where it is used).
    """

    query: QuerySpec = None  # type: ignore[assignment]
    select_sql: list[str] = field(default_factory=list)
    where_sql: str | None = None
    proctime: frozenset[str] = frozenset()

    kind: ClassVar[str] = "calc"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Calc(select=[{', '.join(self.select_sql)}]{explain_attr('where', self.where_sql)})"


@dataclass(eq=False)
class WatermarkAssignerNode(PlanNode):
    """Generates watermarks from ``WATERMARK FOR col AS expr``, per source split.

    A split is e.g. a Kafka partition; stateful: the per-split progress is checkpointed.

    Attributes:
        idle_timeout_ms: a split without rows for this long is idle (0 = never):
            ``'scan.watermark.idle-timeout'``, else ``'table.exec.source.idle-timeout'``.
    """

    query: QuerySpec = None  # type: ignore[assignment]
    rowtime: str = ""
    expr_sql: str = ""
    idle_timeout_ms: int = 0

    kind: ClassVar[str] = "watermark"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        idle = explain_attr("idleTimeout", f"{self.idle_timeout_ms} ms" if self.idle_timeout_ms > 0 else None)
        return f"WatermarkAssigner(rowtime=[{self.rowtime}], watermark=[{self.expr_sql}]{idle})"


@dataclass(eq=False)
class GroupAggNode(PlanNode):
    """GROUP BY aggregation without a window (updating output).

    Attributes:
        state_ttl_ms: the state TTL from a STATE_TTL hint (ms; 0: never), None for the job's
            ``'table.exec.state.ttl'`` (:mod:`streamsql.plan.state_ttl_hint`).
    """

    num_keys: int = 0
    aggs: list = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    state_ttl_ms: int | None = None

    kind: ClassVar[str] = "group-agg"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        keys = ", ".join(self.schema.names[: self.num_keys])
        return f"GroupAggregate(groupBy=[{keys}], select=[{', '.join(self.labels)}], changelog=[{self.mode}])"


@dataclass(eq=False)
class UnionNode(PlanNode):
    """UNION ALL of inputs with the same column types."""

    kind: ClassVar[str] = "union"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Union(all=[true], inputs=[{len(self.inputs)}])"


@dataclass(eq=False)
class SinkNode(PlanNode):
    """Writes into a table through its connector's sink."""

    table: TableDef = None  # type: ignore[assignment]
    guarantee: str = ""
    guarantee_reason: str = ""

    kind: ClassVar[str] = "sink"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"Sink(table=[{self.table.name}], connector=[{self.table.connector}], "
                f"fields=[{', '.join(self.schema.names)}], input=[{self.inputs[0].mode}], "
                f"guarantee=[{self.guarantee}])")


def walk(roots: list[PlanNode]) -> list[PlanNode]:
    """All nodes reachable from ``roots``, inputs before the nodes that read them."""
    seen: dict[int, PlanNode] = {}
    order: list[PlanNode] = []

    def visit(n: PlanNode) -> None:
        if id(n) in seen:
            return
        seen[id(n)] = n
        for i in n.inputs:
            visit(i)
        order.append(n)

    for r in roots:
        visit(r)
    return order
