"""Stages of a parallel job: the physical plan cut at its keyed exchanges.

With ``'parallelism.default'`` = P > 1 an INSERT job runs as stages of P tasks each (issue 10,
docs/parallelism.md). :func:`cut_stages` cuts the plan wherever an operator needs its rows
partitioned by a key the input is not already partitioned by:

- a GROUP BY aggregate (:class:`GroupAggNode`), a window aggregate (:class:`WindowAggNode`) and
  an OVER aggregate (:class:`OverAggNode`) by their grouping / PARTITION BY keys (the first
  ``num_keys`` input columns: no key = one task gets all);
- a regular, interval, window, semi or anti join and an event-time temporal join by its join
  keys, each side on its own exchange (``NOT IN`` is refused: one NULL on the right decides for
  every key). The operators key their state by all the equi-keys, so that is the partitioning
  (a temporal join's keys cover the versioned side's primary key: each version reaches the task
  of its key);
- a ranking (:class:`~streamsql.plan.ranking.RankNode`: Top-N, deduplication, window Top-N) and
  a SESSION window TVF read without aggregation (:class:`~streamsql.plan.windows.SessionTableFunctionNode`)
  by its PARTITION BY columns (none = one task gets all);
- an upsert sink fed an updating input by the table's PRIMARY KEY (the rows of one key must
  reach the sink from one task, in order: Flink's keyed shuffle before an upsert sink).

An input is already partitioned by a key when it comes from the operator that keyed it
(aggregates emit their keys first) through Calcs that pass those columns through unchanged.
Each cut becomes an :class:`Exchange`: an :class:`ExchangeSinkNode` ends the upstream stage,
an :class:`ExchangeSourceNode` begins the downstream one. A stage is a connected part of the
rest. A stage fed only by exchanges without a key (Flink's singleton exchange: before a
global aggregate, an OVER / ranking / MATCH_RECOGNIZE without PARTITION BY, a temporal sort)
runs one task, as Flink runs such an operator at parallelism 1 (``inputsContainSingleton``).
A stage with a scan runs one task per share of the source's partitions, so its
parallelism is P only when every scan reads Kafka (each task reads its share of the partitions,
as Flink's ``KafkaSourceEnumerator`` assigns them: :mod:`streamsql.connectors.kafka.assignment`),
else 1. Operators that keep state and are not listed above cannot run
partitioned yet: planning refuses them rather than giving a wrong answer.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

from streamsql.core.catalog import TableDef
from streamsql.core.errors import PlanError
from streamsql.plan.conflicts import SinkMaterializerNode
from streamsql.plan.display_names import rename
from streamsql.plan.joins import JoinNode, SemiJoinNode
from streamsql.plan.match_recognize import MatchNode
from streamsql.plan.nodes import (
    RETRACT,
    CalcNode,
    GroupAggNode,
    PlanNode,
    ScanNode,
    SinkNode,
    WatermarkAssignerNode,
    walk,
)
from streamsql.plan.over import OverAggNode
from streamsql.plan.ranking import RankNode
from streamsql.plan.temporal import TemporalJoinNode
from streamsql.plan.temporal_sort import TemporalSortNode
from streamsql.plan.windows import SessionTableFunctionNode, WindowAggNode

#: Connectors whose sources split their partitions between the tasks of a stage.
PARTITIONED_SOURCES = ("kafka", "upsert-kafka")
#: Stateful nodes that are correct per partition without an exchange (per-split state).
_SPLIT_LOCAL = (WatermarkAssignerNode,)


@dataclass
class Exchange:
    """A keyed exchange between two stages, through an internal topic.

    Attributes:
        id: ``s<stage>`` (or ``s<stage>-<n>`` for a stage's second and later inputs).
        topic: ``_streamsql-<job>-<id>-repartition``, one partition per downstream task.
        keys: the key column indexes in the exchanged rows' schema.
        key_names: their names, for EXPLAIN.
        upstream: the id of the stage that writes it; ``upstream_tasks``: its parallelism.
        partitions: the downstream stage's parallelism.
    """

    id: str
    topic: str
    keys: list[int]
    key_names: list[str]
    upstream: int = 0
    upstream_tasks: int = 1
    partitions: int = 1


@dataclass(eq=False)
class ExchangeSinkNode(SinkNode):
    """The end of an upstream stage: rows leave by key group into the exchange's topic."""

    exchange: Exchange = None  # type: ignore[assignment]

    kind: ClassVar[str] = "exchange-sink"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        keys = self.exchange.key_names  # no key: every row to one task, Flink's singleton exchange
        distribution = f"hash[{', '.join(keys)}]" if keys else "single"
        return (f"Exchange(distribution=[{distribution}], "
                f"topic=[{self.exchange.topic}], partitions=[{self.exchange.partitions}])")


@dataclass(eq=False)
class ExchangeSourceNode(ScanNode):
    """The start of a downstream stage: the exchange's partition of this task."""

    exchange: Exchange = None  # type: ignore[assignment]

    kind: ClassVar[str] = "exchange-source"

    def describe(self) -> str:
        """One line for EXPLAIN."""
        return (f"ExchangeSource(topic=[{self.exchange.topic}], from=[stage {self.exchange.upstream}], "
                f"upstreamTasks=[{self.exchange.upstream_tasks}])")


@dataclass
class Stage:
    """A part of the plan that runs as ``parallelism`` tasks.

    Attributes:
        id: 0, 1, ... (sources first).
        roots: the stage's sub-plan: its table sinks and :class:`ExchangeSinkNode` s, whose
            leaves are scans and :class:`ExchangeSourceNode` s (copies of the job's nodes,
            same ids, so state namespaces are the job's).
        parallelism: its number of tasks.
        inputs: the exchanges it reads.
    """

    id: int
    roots: list[PlanNode]
    parallelism: int
    inputs: list[Exchange] = field(default_factory=list)


def exchange_topic(job: str, exchange_id: str) -> str:
    """``_streamsql-<job>-<exchange id>-repartition`` (characters Kafka refuses become ``_``)."""
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in job)
    return f"_streamsql-{safe}-{exchange_id}-repartition"


def _partitioning(node: PlanNode) -> tuple[int, ...] | None:
    """The columns ``node``'s output is partitioned by (rows of equal values on one task), or None."""
    if isinstance(node, (GroupAggNode, WindowAggNode)):
        return tuple(range(node.num_keys))
    if isinstance(node, RankNode):  # rows pass through with their columns
        return tuple(node.partition)
    if isinstance(node, MatchNode):  # the partition columns come first
        return tuple(range(len(node.spec.partition)))
    if isinstance(node, SinkMaterializerNode):
        return tuple(node.sink_key)
    if isinstance(node, TemporalSortNode):  # one task sorts every row (Flink's single exchange)
        return ()
    if isinstance(node, SessionTableFunctionNode):  # rows pass through with their columns
        return tuple(node.key_indices())
    if isinstance(node, CalcNode):
        inner = _partitioning(node.inputs[0])
        if inner is None:
            return None
        back = {i: o for o, i in sorted(node.passthrough().items(), reverse=True)}
        if not all(i in back for i in inner):
            return None
        return tuple(back[i] for i in inner)
    return None


def single_task(node: PlanNode) -> bool:
    """True when all of ``node``'s rows are on one task: partitioned by no key.

    A global aggregate, or an OVER / ranking / MATCH_RECOGNIZE without PARTITION BY (possibly
    under Calcs): Flink runs such an operator, and a sink it feeds by forward, at parallelism 1.
    """
    return _partitioning(node) == ()


def _required_keys(node: PlanNode) -> list[list[int] | None]:
    """Per input of ``node``: the key its rows must be partitioned by, or None (any partitioning).

    Raises:
        PlanError: for a stateful operator that cannot run partitioned yet.
    """
    if isinstance(node, (GroupAggNode, WindowAggNode, OverAggNode)):
        return [list(range(node.num_keys))]
    if isinstance(node, SemiJoinNode) and node.null_aware:
        msg = ("NOT IN cannot run with 'parallelism.default' > 1 yet (one NULL on the right decides for "
               "every key); use NOT EXISTS, or set 'parallelism.default' = '1'")
        raise PlanError(msg)
    if isinstance(node, (JoinNode, TemporalJoinNode)):  # regular, interval, window, semi, anti, temporal
        return [list(node.left_keys), list(node.right_keys)]
    if isinstance(node, RankNode):
        return [list(node.partition)]
    if isinstance(node, TemporalSortNode):
        return [[]]
    if isinstance(node, SessionTableFunctionNode):  # no PARTITION BY: one key, one task
        return [node.key_indices()]
    if isinstance(node, MatchNode):  # no PARTITION BY: one key, one task (Flink's parallelism 1)
        return [list(node.spec.partition)]
    if isinstance(node, SinkMaterializerNode):
        return [list(node.sink_key)]
    if isinstance(node, SinkNode) and node.table.primary_key and node.inputs[0].mode == RETRACT:
        names = [n.lower() for n in node.inputs[0].schema.names]
        cols = [c.name.lower() for c in node.table.columns if c.is_physical]
        pk = [cols.index(k.lower()) for k in node.table.primary_key if k.lower() in cols]
        return [pk if len(pk) == len(node.table.primary_key) and len(cols) == len(names) else None]
    if node.stateful and not isinstance(node, _SPLIT_LOCAL):
        msg = (f"{type(node).__name__} cannot run with 'parallelism.default' > 1 yet; "
               "set 'parallelism.default' = '1'")
        raise PlanError(msg)
    return [None] * len(node.inputs)


def cut_stages(job: str, roots: list[PlanNode], parallelism: int) -> list[Stage]:
    """The stages of plan ``roots`` (the job's sinks) at ``parallelism`` (see module docstring).

    Args:
        job: the job's name (exchange topics derive from it).
        roots: the planned sinks, ids assigned.
        parallelism: ``'parallelism.default'`` (> 1).

    Returns:
        The stages, upstream first (each stage's inputs come from stages before it).

    Raises:
        PlanError: for an operator that cannot run partitioned.
    """
    nodes = walk(roots)
    cuts: dict[tuple[int, int], list[int]] = {}  # (id(node), input index) → exchange key
    for node in nodes:
        for i, key in enumerate(_required_keys(node)):
            if key is not None and _partitioning(node.inputs[i]) != tuple(key):
                cuts[(id(node), i)] = key
    # stages: connected parts once the cut edges are removed (union-find over nodes)
    parent = {id(n): id(n) for n in nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for node in nodes:
        for i, inp in enumerate(node.inputs):
            if (id(node), i) not in cuts:
                parent[find(id(node))] = find(id(inp))
    order: list[int] = []  # stage roots in plan order: a stage's inputs are planned before it
    for node in nodes:
        if find(id(node)) not in order:
            order.append(find(id(node)))
    stage_of = {id(n): order.index(find(id(n))) for n in nodes}
    # A stage's upstream stages come first in walk order only if every upstream node does;
    # order stages topologically over the cut edges to be sure.
    deps: dict[int, set[int]] = {s: set() for s in range(len(order))}
    for node in nodes:
        for i, inp in enumerate(node.inputs):
            if (id(node), i) in cuts:
                deps[stage_of[id(node)]].add(stage_of[id(inp)])
    topo: list[int] = []
    while len(topo) < len(deps):
        topo += sorted(s for s, d in deps.items() if s not in topo and d <= set(topo))
    number = {s: k for k, s in enumerate(topo)}
    members: dict[int, list[PlanNode]] = {k: [] for k in range(len(topo))}
    for node in nodes:
        members[number[stage_of[id(node)]]].append(node)
    inputs: dict[int, list[list[int]]] = {k: [] for k in members}  # each stage's exchange keys
    for (nid, _), key in cuts.items():
        inputs[number[stage_of[nid]]].append(key)
    # fed by singleton exchanges only (no key): one task, as Flink's inputsContainSingleton
    par = {k: 1 if inputs[k] and not any(inputs[k]) else _stage_parallelism(ms, parallelism)
           for k, ms in members.items()}
    return _build_stages(job, nodes, members, par, cuts, {id(n): number[stage_of[id(n)]] for n in nodes})


def _stage_parallelism(members: list[PlanNode], parallelism: int) -> int:
    """P, or 1 for a stage that reads a non-Kafka source (it is not split between tasks)."""
    scans = [n for n in members if isinstance(n, ScanNode)]
    if any(n.table.connector not in PARTITIONED_SOURCES for n in scans):
        return 1
    return parallelism


def _build_stages(job: str, nodes: list[PlanNode], members: dict[int, list[PlanNode]], par: dict[int, int],
                  cuts: dict[tuple[int, int], list[int]], stage: dict[int, int]) -> list[Stage]:
    stages = [Stage(k, [], par[k]) for k in sorted(members)]
    options = _exchange_options(nodes)
    copies: dict[int, PlanNode] = {}
    consumed = {id(inp) for n in nodes for i, inp in enumerate(n.inputs) if (id(n), i) not in cuts}
    for node in nodes:  # inputs before readers: copies of inputs exist when a node is copied
        s = stages[stage[id(node)]]
        inputs = []
        for i, inp in enumerate(node.inputs):
            if (id(node), i) not in cuts:
                inputs.append(copies[id(inp)])
                continue
            key = cuts[(id(node), i)]
            up = stages[stage[id(inp)]]
            ex_id = f"s{s.id}" if not s.inputs else f"s{s.id}-{len(s.inputs)}"
            ex = Exchange(ex_id, exchange_topic(job, ex_id), key, [inp.schema.names[k] for k in key],
                          upstream=up.id, upstream_tasks=up.parallelism, partitions=s.parallelism)
            s.inputs.append(ex)
            table = TableDef(f"exchange {ex_id}", [], {
                **options, "topic": ex.topic, "partitions": str(ex.partitions),
                "upstream-tasks": str(ex.upstream_tasks)})
            up.roots.append(ExchangeSinkNode([copies[id(inp)]], inp.schema, inp.mode,
                                             id=f"exchange-sink-{ex_id}", update_before=inp.update_before,
                                             table=table, exchange=ex))
            inputs.append(ExchangeSourceNode([], inp.schema, inp.mode, id=f"exchange-source-{ex_id}",
                                             update_before=inp.update_before, table=table, exchange=ex))
        copies[id(node)] = dataclasses.replace(node, inputs=inputs)
        if isinstance(node, SinkNode) and id(node) not in consumed:
            s.roots.append(copies[id(node)])
    return stages


def _exchange_options(nodes: list[PlanNode]) -> dict[str, str]:
    """The brokers and transaction options of the exchanges: those of the job's Kafka tables.

    The exchange writes in its task's one transaction, so it takes the transactional id prefix
    and progress topic of the job's exactly-once Kafka sinks (when it has any).

    Raises:
        PlanError: for a job that reads and writes no Kafka table (nowhere to exchange).
    """
    tables = [n.table for n in nodes
              if isinstance(n, (ScanNode, SinkNode)) and n.table.connector in PARTITIONED_SOURCES]
    if not tables:
        msg = ("'parallelism.default' > 1 exchanges rows through Kafka: the job must read or write a Kafka "
               "table; set 'parallelism.default' = '1'")
        raise PlanError(msg)
    sinks = [t for t in tables if any(k.startswith("sink.") for k in t.options)] + tables
    out = {k: v for k, v in sinks[0].options.items()
           if k.startswith("properties.") and k != "properties.group.id"}
    for key in ("sink.transactional-id-prefix", "sink.progress-topic"):
        value = next((t.options[key] for t in sinks if key in t.options), None)
        if value is not None:
            out[key] = value
    return out


def explain_stages(stages: list[Stage]) -> str:
    """The ``== Stages ==`` section of EXPLAIN: each stage, its parallelism, inputs and outputs."""
    lines = ["== Stages =="]
    for s in stages:
        outs = [rename(r.describe(), r) for r in s.roots]
        ins = [f"{e.topic} (from stage {e.upstream}, {e.upstream_tasks} tasks)" for e in s.inputs]
        ops = [n.kind for n in walk(s.roots)]
        lines.append(f"Stage {s.id}: parallelism={s.parallelism}, operators=[{', '.join(ops)}]")
        lines += [f"  reads {i}" for i in ins]
        lines += [f"  writes {o}" for o in outs]
    return "\n".join(lines)
