"""Physical plan nodes: inputs, output schema, changelog mode and what the operator needs.

Each node prints itself for EXPLAIN, declares whether it keeps state, and carries what its
runtime operator needs (query specs, schemas, ids); the runtime's builder
(:mod:`streamsql.runtime.builder`) maps each node type to the factory of its operator.

Changelog modes, as Flink's planner:

- ``insert-only`` — only +I rows;
- ``retract`` — +I, -U, +U, -D (an updating result, e.g. GROUP BY without a window);
- ``upsert`` — +I, +U, -D: an updating result whose every consumer upserts by its unique key,
  so its producer builds no -U rows (Flink's UPDATE_BEFORE elimination, decided after planning
  by :mod:`streamsql.plan.update_kinds`; :attr:`PlanNode.mode` stays ``retract``, the node's
  :attr:`~PlanNode.update_before` is False).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

import pyarrow as pa

from streamsql.core.catalog import TableDef
from streamsql.core.secrets import mask_options
from streamsql.core.types import Schema
from streamsql.plan.expressions import flink_text, quote
from streamsql.plan.query import QuerySpec

INSERT_ONLY = "insert-only"
RETRACT = "retract"
UPSERT = "upsert"

#: ``CAST("col" AS TYPE)``: a Calc item that may be a column unchanged (the sink's cast).
_IDENTITY_CAST = re.compile(r'CAST\(("(?:[^"]|"")+") AS [A-Z]+(?:\(\d+(?:, ?\d+)?\))?\)')


def select_list(node: PlanNode, keys: str = "") -> str:
    """An aggregate's EXPLAIN ``select``: its keys, then each call ``AS`` its display name.

    The calls are ``node.labels``, the last columns of its output; without display names (a set
    operation's counts) the labels alone.
    """
    labels = list(node.labels)
    if node.display:
        names = node.schema.names[len(node.schema.names) - len(labels):]
        labels = [f"{label} AS {node.display.get(n, n)}" for label, n in zip(labels, names)]
    return ", ".join(([keys] if keys and node.display else []) + labels)


def explain_attr(name: str, value: str | None) -> str:
    """``, name=[value]`` for an EXPLAIN line, or nothing when ``value`` is empty or None."""
    return f", {name}=[{value}]" if value else ""


def explain_hints(table: TableDef) -> str:
    """``, hints=[[[OPTIONS options:{k=v, ...}]]]`` for a hinted table (Flink's EXPLAIN), or nothing.

    The table is read or written with an OPTIONS hint's options; secrets are masked, and so are
    the values of keys the table's connector does not know (a misspelt key may hold a secret).
    """
    if not table.hints:
        return ""
    from streamsql.connectors.registry import unknown_option_keys

    unknown = unknown_option_keys([("connector", table.connector or ""), *table.hints.items()])
    options = ", ".join(f"{k}={v}" for k, v in mask_options(table.hints, unknown).items())
    return f", hints=[[[OPTIONS options:{{{options}}}]]]"


@dataclass(eq=False)
class PlanNode:
    """Base of all plan nodes.

    Attributes:
        inputs: upstream nodes.
        schema: Arrow schema of the batches this node emits.
        mode: changelog mode of its output (:data:`INSERT_ONLY` or :data:`RETRACT`).
        id: stable, readable id assigned by the planner (``calc-3``); names operator state.
        update_before: an updating output carries -U rows (False: no consumer needs them, see
            :mod:`streamsql.plan.update_kinds`; only GROUP BY and Top-N then skip building them).
        display: output columns with an internal name (``__k0``, ``__agg0``) → the name EXPLAIN
            shows, Flink's (:mod:`streamsql.plan.display_names`); display only.
    """

    inputs: list[PlanNode]
    schema: pa.Schema
    mode: str = INSERT_ONLY
    id: str = ""
    update_before: bool = True
    display: dict[str, str] = field(default_factory=dict)
    kind: ClassVar[str] = "node"
    stateful: ClassVar[bool] = False

    @property
    def changelog(self) -> str:
        """The output's changelog mode for EXPLAIN: :data:`INSERT_ONLY`, :data:`RETRACT` or :data:`UPSERT`."""
        if self.mode == INSERT_ONLY:
            return INSERT_ONLY
        return RETRACT if self.update_before else UPSERT

    @property
    def sql_schema(self) -> Schema:
        """The output columns as SQL types."""
        return Schema.from_arrow(self.schema)

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return self.kind


@dataclass(eq=False)
class ScanNode(PlanNode):
    """Reads a table through its connector's source.

    Attributes:
        limit: the rows read at most, a LIMIT pushed into the source (:mod:`streamsql.plan.limit`),
            or None; EXPLAIN shows it in the table, as Flink: ``table=[g, limit=[3]]``.
    """

    table: TableDef = None  # type: ignore[assignment]
    limit: int | None = None

    kind: ClassVar[str] = "scan"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        limit = explain_attr("limit", None if self.limit is None else str(self.limit))
        return (f"TableSourceScan(table=[{self.table.name}{limit}], "
                f"connector=[{self.table.connector}], "
                f"fields=[{', '.join(self.schema.names)}]{explain_hints(self.table)})")


@dataclass(eq=False)
class ValuesNode(ScanNode):
    """Literal rows (Flink's Values node): a bounded, insert-only source (:mod:`streamsql.plan.values`).

    A scan of no catalog table (:attr:`table` is a placeholder named ``VALUES`` without options):
    one task reads it, whatever the parallelism, as Flink's Values runs with parallelism 1.

    Attributes:
        rows: per row, the DuckDB SQL of each cell, already cast to its column's type
            (:attr:`schema`); evaluated once when the job starts
            (:class:`~streamsql.runtime.values_source.ValuesSource`).
        rows_sql: the same cells as written (Flink SQL), for EXPLAIN.
    """

    rows: list[list[str]] = field(default_factory=list)
    rows_sql: list[list[str]] = field(default_factory=list)

    kind: ClassVar[str] = "values"

    def describe(self) -> str:
        """One line for EXPLAIN (Flink's ``Values(tuples=[[{ 1, 'a' }, { 2, 'b' }]])``)."""
        tuples = ", ".join("{ " + ", ".join(row) + " }" for row in self.rows_sql)
        return f"Values(tuples=[[{tuples}]], values=[{', '.join(self.schema.names)}])"


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

    @classmethod
    def over(cls, node: PlanNode, query: QuerySpec, proctime: frozenset[str] = frozenset()) -> CalcNode:
        """The Calc of ``query`` over ``node``, its EXPLAIN text from the items' Flink SQL."""
        select = [flink_text(e) if e == quote(n) else f"{flink_text(e)} AS {n}" for n, e in query.items]
        return cls([node], query.output_schema, node.mode, query=query, proctime=proctime, select_sql=select,
                   where_sql=None if query.condition is None else flink_text(query.condition))

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return f"Calc(select=[{', '.join(self.select_sql)}]{explain_attr('where', self.where_sql)})"

    def passthrough(self) -> dict[int, int]:
        """Output column → input column, for the items that are an input column unchanged.

        That is a plain reference, or a CAST to the type the column has (the sink's cast): the
        same values, hence the same key encoding and key group.
        """
        q = self.query
        by_ref = {quote(n): i for i, n in enumerate(q.input_schema.names)}
        out = {}
        for o, (_, expr) in enumerate(q.items):
            cast = _IDENTITY_CAST.fullmatch(expr)
            ref = cast.group(1) if cast else expr
            i = by_ref.get(ref)
            if i is not None and (not cast or q.input_schema.field(i).type == q.output_schema.field(o).type):
                out[o] = i
        return out


@dataclass(eq=False)
class WatermarkAssignerNode(PlanNode):
    """Generates watermarks from ``WATERMARK FOR col AS expr``, per source split.

    A split is e.g. a Kafka partition; stateful: the per-split progress is checkpointed.

    Attributes:
        idle_timeout_ms: a split without rows for this long is idle (0 = never):
            ``'scan.watermark.idle-timeout'``, else ``'table.exec.source.idle-timeout'``.
        eager_interval_ms: for a source whose watermark Flink assigns after the source
            (no watermark push-down: every connector but ``kafka`` / ``upsert-kafka``),
            ``'pipeline.auto-watermark-interval'``: Flink's ``WatermarkAssignerOperator`` emits
            the watermark after a row as soon as it moved more than this; None: per batch.
        every_emit: cut a batch at every watermark Flink's assigner emits within it, rising
            rowtimes too (a CURRENT_WATERMARK downstream sees each; see ``plan.current_watermark``).
        null_rowtime_table: the table's name when a NULL ``rowtime`` fails the job, as Flink's
            ``WatermarkAssignerOperator`` (no watermark push-down); None: the row goes on
            (Kafka: Flink's source ignores the NULL watermark value). See
            :mod:`streamsql.runtime.operators.rowtime_nulls`.
    """

    query: QuerySpec = None  # type: ignore[assignment]
    rowtime: str = ""
    expr_sql: str = ""
    idle_timeout_ms: int = 0
    eager_interval_ms: int | None = None
    every_emit: bool = False
    null_rowtime_table: str | None = None

    kind: ClassVar[str] = "watermark"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN."""
        idle = explain_attr("idleTimeout", f"{self.idle_timeout_ms} ms" if self.idle_timeout_ms > 0 else None)
        return f"WatermarkAssigner(rowtime=[{self.rowtime}], watermark=[{self.expr_sql}]{idle})"


@dataclass(frozen=True, eq=False)
class UnprunedCalls:
    """A GROUP BY's calls as planned, before the unread ones were dropped (:mod:`~streamsql.plan.agg_prune`).

    Attributes:
        aggs: every call (AggSpecs), in SELECT order, as StreamSQL computed them up to f3e00a5a.
        labels: their EXPLAIN labels.
        schema: the aggregate's output schema with every call (keys first); the Calc reading the
            aggregate reads its columns by name, so it computes the same over this schema.
        kept: per call the aggregate still computes, its index in ``aggs``.
    """

    aggs: list
    labels: list
    schema: pa.Schema
    kept: tuple[int, ...]


@dataclass(eq=False)
class GroupAggNode(PlanNode):
    """GROUP BY aggregation without a window (updating output).

    Attributes:
        state_ttl_ms: the state TTL from a STATE_TTL hint (ms; 0: never), None for the job's
            ``'table.exec.state.ttl'`` (:mod:`streamsql.plan.state_ttl_hint`).
        per_row: emit the changes of each input row, not once per batch (a versioned view's
            GROUP BY: every change is a version, :func:`~streamsql.plan.temporal.versioned_side`).
        unpruned: the calls before :mod:`~streamsql.plan.agg_prune` dropped the unread ones (None:
            none dropped), so that a checkpoint of a StreamSQL that computed them all restores
            (:func:`~streamsql.plan.state_signature.state_signatures`' ``before_pruning``).
    """

    num_keys: int = 0
    aggs: list = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    state_ttl_ms: int | None = None
    per_row: bool = False
    unpruned: UnprunedCalls | None = None

    kind: ClassVar[str] = "group-agg"
    stateful: ClassVar[bool] = True

    def describe(self) -> str:
        """One line for EXPLAIN (with display names: Flink's ``select=[k, COUNT(*) AS EXPR$1]``)."""
        keys = ", ".join(self.display.get(n, n) for n in self.schema.names[: self.num_keys])
        return (f"GroupAggregate(groupBy=[{keys}], select=[{select_list(self, keys)}], "
                f"changelog=[{self.changelog}])")


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
                f"fields=[{', '.join(self.schema.names)}]{explain_hints(self.table)}, "
                f"input=[{self.inputs[0].changelog}], guarantee=[{self.guarantee}])")


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


def readers_of(nodes: list[PlanNode]) -> dict[int, list[PlanNode]]:
    """Each node's readers among ``nodes`` (e.g. :func:`walk`'s), by the ``id`` of the node read."""
    readers: dict[int, list[PlanNode]] = {}
    for n in nodes:
        for i in n.inputs:
            readers.setdefault(id(i), []).append(n)
    return readers


def under_one_calc(roots: list[PlanNode], kind: type) -> list[tuple[PlanNode, CalcNode]]:
    """The nodes of exactly type ``kind`` reachable from ``roots`` whose one reader is a Calc, with it."""
    nodes = walk(roots)
    readers = readers_of(nodes)
    return [(n, above[0]) for n in nodes if type(n) is kind
            and len(above := readers.get(id(n), [])) == 1 and isinstance(above[0], CalcNode)]
