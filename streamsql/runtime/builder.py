"""The job builder: from a plan to a running graph of source drivers, tasks and a coordinator.

The plan describes what each operator must do (query specs, schemas, keys, window specs);
:data:`OPERATOR_FACTORIES` is the one place that knows which operator class does it, so the
plan never imports the runtime. Scans and table sinks need the table's connector, which
:func:`build_job` creates.

:func:`build_job` creates every object once with its collaborators, in an order that needs no
forward reference: the connectors' sources and sinks (a transactional sink registers its
committer in the task's :class:`~streamsql.core.connector.TaskResources`), the job's one state
backend (if any operator keeps state: :class:`~streamsql.runtime.job_state.JobState`), then the
checkpoint coordinator (with that committer, the task ids, the state and the sinks' commit),
then the tasks from the sinks up to the sources (each gets its downstream tasks and the
coordinator as its checkpoint listener).
"""

from __future__ import annotations

import logging
import shutil
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Callable

from streamsql.checkpoint.coordinator import CheckpointCoordinator, LocalCommitter
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.connectors.kafka.exchange import ExchangeReader, ExchangeWriter
from streamsql.connectors.kafka.transactions import KafkaTransactions
from streamsql.connectors.registry import get_connector, known_connectors
from streamsql.core.config import Config
from streamsql.core.connector import SINK_STATE_PREFIX, ConnectorContext, Sink, Source, TaskResources
from streamsql.core.values import parse_bool
from streamsql.plan import nodes as plan
from streamsql.plan.changelog_ptf import ChangelogFunctionNode
from streamsql.plan.conflicts import SinkMaterializerNode
from streamsql.plan.joins import ANTI, IntervalJoinNode, JoinNode, SemiJoinNode, WindowJoinNode
from streamsql.plan.lookup import LookupJoinNode
from streamsql.plan.match_recognize import MatchNode
from streamsql.plan.over import NonTimeOverAggNode, OverAggNode
from streamsql.plan.partition_prune import partition_filters
from streamsql.plan.python_udfs import CorrelateNode
from streamsql.plan.query import compile_query
from streamsql.plan.ranking import TOP_N, WINDOW, RankNode
from streamsql.plan.scan_reads import scan_reads
from streamsql.plan.stages import ExchangeSinkNode, ExchangeSourceNode, single_task
from streamsql.plan.state_signature import state_signatures
from streamsql.plan.temporal import TemporalJoinNode
from streamsql.plan.temporal_sort import TemporalSortNode
from streamsql.plan.windows import SessionTableFunctionNode, WindowAggNode, WindowTableFunctionNode
from streamsql.runtime.collect import CollectNode
from streamsql.runtime.evaluator import BatchQuery
from streamsql.runtime.exchange import ExchangeSinkOperator
from streamsql.runtime.job_state import JobState
from streamsql.runtime.memory import TRIM_KEY, malloc_trimmer
from streamsql.runtime.operators.base import Operator, OperatorContext
from streamsql.runtime.operators.calc import CalcOperator
from streamsql.runtime.operators.changelog_ptf import FromChangelogOperator, ToChangelogOperator
from streamsql.runtime.operators.correlate import CorrelateOperator
from streamsql.runtime.operators.group_agg_columnar import create_group_agg
from streamsql.runtime.operators.group_agg_upgrade import drop_pruned_calls
from streamsql.runtime.operators.join import IntervalJoinOperator, StreamingJoinOperator
from streamsql.runtime.operators.lookup_join import LookupJoinOperator
from streamsql.runtime.operators.match_recognize import MatchRecognizeOperator
from streamsql.runtime.operators.over_agg import OverAggOperator
from streamsql.runtime.operators.over_nontime import NonTimeOverOperator
from streamsql.runtime.operators.per_row import PerRowOperator
from streamsql.runtime.operators.proctime import ProcessingTimeOperator
from streamsql.runtime.operators.rank import RankSpec, TopNOperator
from streamsql.runtime.operators.rank_window import WatermarkRankOperator
from streamsql.runtime.operators.semi_join import SemiAntiJoinOperator
from streamsql.runtime.operators.session_tvf import SessionTableFunctionOperator
from streamsql.runtime.operators.session_window import SessionWindowAggOperator
from streamsql.runtime.operators.sink import SinkOperator, not_null_columns
from streamsql.runtime.operators.sink_materializer import SinkUpsertMaterializer
from streamsql.runtime.operators.slicing_window import SlicingWindowAggOperator
from streamsql.runtime.operators.temporal_join import TemporalJoinOperator
from streamsql.runtime.operators.temporal_sort import TemporalSortOperator
from streamsql.runtime.operators.union import UnionOperator
from streamsql.runtime.operators.watermark_assigner import WatermarkAssignerOperator
from streamsql.runtime.operators.window_agg import WindowTableFunctionOperator
from streamsql.runtime.operators.window_join import WindowJoinOperator
from streamsql.runtime.prefetch import PrefetchingSource
from streamsql.runtime.sink_stage import PipelinedSink
from streamsql.runtime.source_driver import SourceDriver
from streamsql.runtime.task import Task
from streamsql.runtime.values_source import ValuesSource
from streamsql.state.base import KeyedState
from streamsql.state.factory import create_backend
from streamsql.state.layout import KG_ASSIGNMENT

log = logging.getLogger(__name__)


def _residual(node: JoinNode | TemporalJoinNode | LookupJoinNode) -> BatchQuery | None:
    """The join's non-equi condition over its joined columns (left then right), or None."""
    if not node.residual:
        return None
    joined = node.joined_schema if isinstance(node, SemiJoinNode) else node.schema
    return BatchQuery(compile_query([("__ok", node.residual)], None, joined))


def _semi_join(node: SemiJoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return SemiAntiJoinOperator(node.join_type == ANTI, node.null_aware, node.left_keys, node.right_keys,
                                left, right, node.joined_schema, _residual(node),
                                insert_only=node.mode == plan.INSERT_ONLY)


def _join(node: JoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return StreamingJoinOperator(node.join_type, node.left_keys, node.right_keys, left, right, node.schema,
                                 _residual(node), insert_only=node.mode == plan.INSERT_ONLY,
                                 state_ttl_ms=node.state_ttl_ms,
                                 inputs_insert_only=tuple(i.mode == plan.INSERT_ONLY for i in node.inputs),
                                 null_safe=node.null_safe_keys)


def _interval_join(node: IntervalJoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return IntervalJoinOperator(node.join_type, node.left_keys, node.right_keys, node.left_time,
                                node.right_time, node.lower, node.upper, left, right, node.schema,
                                _residual(node))


def _temporal_join(node: TemporalJoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return TemporalJoinOperator(node.join_type, node.left_keys, node.right_keys, node.left_time,
                                node.right_time, left, right, node.schema, _residual(node),
                                insert_only=node.mode == plan.INSERT_ONLY, ignore_deletes=node.ignore_deletes,
                                keep_update_before=node.keep_update_before)


def _lookup_join(node: LookupJoinNode) -> Operator:
    """The lookup join; its dimension table's lookup source is created when the operator opens."""
    spec = get_connector(node.dim.connector)
    dim_keys = [node.dim_schema.get_field_index(k) for k in node.dim_keys]

    def connect(cfg: dict[str, str]):
        return spec.create_lookup(ConnectorContext(node.dim, "", cfg), node.dim_keys)

    return LookupJoinOperator(node.join_type, node.left_keys, dim_keys, node.inputs[0].schema,
                              node.dim_schema, node.schema, _residual(node), node.mode == plan.INSERT_ONLY,
                              connect, (node.dim.options, node.dim.name),
                              (node.retry.delay_ms, node.retry.max_attempts) if node.retry else None,
                              BatchQuery(compile_query([("__ok", node.dim_filter)], None, node.dim_schema))
                              if node.dim_filter and node.retry else None)


def _window_join(node: WindowJoinNode) -> Operator:
    left, right = node.inputs[0].schema, node.inputs[1].schema
    return WindowJoinOperator(node.join_type, node.left_keys, node.right_keys, node.left_end, node.right_end,
                              left, right, node.schema, _residual(node), zone=node.zone)


def _window_agg(node: WindowAggNode) -> Operator:
    """The session or the aligned (TUMBLE/HOP/CUMULATE, slicing) window aggregate."""
    cls = SessionWindowAggOperator if node.spec.kind == "SESSION" else SlicingWindowAggOperator
    op = cls(node.spec, node.num_keys, node.ts_index, node.aggs, node.inputs[0].schema, node.schema)
    if not node.spec.proctime:
        return op
    return ProcessingTimeOperator(op, node.ts_index, stamped=(node.num_keys + 2,))  # its window_time


def _window_tvf(node: WindowTableFunctionNode) -> Operator:
    ts_index = node.inputs[0].schema.get_field_index(node.rowtime)
    op = WindowTableFunctionOperator(node.spec, ts_index, node.schema)
    return ProcessingTimeOperator(op, ts_index, stamped=(len(node.schema) - 1,)) if node.spec.proctime else op


def _session_tvf(node: SessionTableFunctionNode) -> Operator:
    """The SESSION window TVF's rows; over processing time its sessions close on the wall clock."""
    ts_index = node.inputs[0].schema.get_field_index(node.rowtime)
    op = SessionTableFunctionOperator(node.spec, ts_index, node.key_indices(), node.inputs[0].schema,
                                      node.schema)
    if not node.spec.proctime:
        return op
    return ProcessingTimeOperator(op, ts_index, stamped=(ts_index, len(node.schema) - 1))  # proc, window_time


def _group_agg(node: plan.GroupAggNode) -> Operator:
    """The GROUP BY aggregate; on a versioned view's side, fed one row at a time (each change a version)."""
    op = create_group_agg(node.num_keys, node.aggs, node.inputs[0].schema, node.schema, node.state_ttl_ms,
                          node.inputs[0].mode != plan.INSERT_ONLY, node.update_before)
    return PerRowOperator(op) if node.per_row else op


def _over_agg(node: OverAggNode) -> Operator:
    """The OVER aggregate; ordered by processing time, ROWS and unbounded frames emit at once.

    Over processing time an unbounded RANGE frame is the ROWS one (Flink's
    ``ProcTimeUnboundedPrecedingFunction`` serves both: each row sees the rows that arrived
    before it and itself).
    """
    spec = node.spec
    eager = spec.proctime and (spec.kind == "ROWS" or not spec.bounded)
    if eager:
        spec = replace(spec, kind="ROWS")
    op = OverAggOperator(spec, node.num_keys, node.ts_index, node.aggs, node.inputs[0].schema, node.schema)
    return ProcessingTimeOperator(op, node.ts_index, eager=eager) if spec.proctime else op


def _temporal_sort(node: TemporalSortNode) -> Operator:
    """The temporal sort; over processing time sorted by arrival (Flink's ``ProcTimeSort``).

    With no key after the processing-time attribute each batch goes on as it arrives (Flink plans
    the input itself); else its rows wait for the next tick, then every waiting row goes out
    sorted by the other keys (Flink's ``ProcTimeSortOperator``).
    """
    op = TemporalSortOperator(node.ts_index, node.order, node.descending, node.nulls_first, node.schema,
                              by_arrival=node.proctime)
    return ProcessingTimeOperator(op, node.ts_index, eager=not node.order) if node.proctime else op


def _match(node: MatchNode) -> Operator:
    """MATCH_RECOGNIZE; over processing time each batch is matched as it arrives (Flink's ``CepOperator``)."""
    op = MatchRecognizeOperator(node.spec, node.schema)
    return ProcessingTimeOperator(op, node.spec.rowtime, eager=True) if node.spec.proctime else op


def _not_null(table, names) -> list[tuple[int, str]]:
    """The NOT NULL columns of a sink's batches: declared so, or so to its connector."""
    spec = known_connectors().get(table.connector)  # a test's table may name no registered connector
    also = spec.sink_not_null(table) if spec is not None else []
    return not_null_columns(table, list(names), also)


def _rank(node: RankNode) -> Operator:
    """Top-N (an updating result) or a ranking that emits when the watermark passes (insert-only)."""
    spec = RankSpec(node, node.schema)
    if node.strategy == TOP_N:
        return TopNOperator(spec, updating_input=node.inputs[0].mode != plan.INSERT_ONLY,
                            update_before=node.update_before, per_row=node.per_row)
    return WatermarkRankOperator(spec, window=node.strategy == WINDOW, zone=node.window_zone)


#: Plan node type → the factory of its operator (exact types: a subclass gets its own entry).
OPERATOR_FACTORIES: dict[type[plan.PlanNode], Callable[..., Operator]] = {
    plan.CalcNode: lambda n: CalcOperator(BatchQuery(n.query)),
    plan.WatermarkAssignerNode: lambda n: WatermarkAssignerOperator(
        BatchQuery(n.query), n.idle_timeout_ms, eager_interval_ms=n.eager_interval_ms,
        every_emit=n.every_emit,
        null_rowtime=None if n.null_rowtime_table is None else (n.rowtime, n.null_rowtime_table)),
    plan.GroupAggNode: _group_agg,
    plan.UnionNode: lambda n: UnionOperator(n.schema),
    WindowTableFunctionNode: _window_tvf,
    SessionTableFunctionNode: _session_tvf,
    WindowAggNode: _window_agg,
    OverAggNode: _over_agg,
    NonTimeOverAggNode: lambda n: NonTimeOverOperator(n.spec, n.num_keys, n.ts_index, n.aggs,
                                                      n.inputs[0].schema, n.schema, order_sql=n.rowtime),
    TemporalSortNode: _temporal_sort,
    MatchNode: _match,
    JoinNode: _join,
    IntervalJoinNode: _interval_join,
    TemporalJoinNode: _temporal_join,
    LookupJoinNode: _lookup_join,
    SemiJoinNode: _semi_join,
    WindowJoinNode: _window_join,
    CorrelateNode: lambda n: CorrelateOperator(n.function, n.args, n.keep, n.left, n.schema),
    RankNode: _rank,
    SinkMaterializerNode: lambda n: SinkUpsertMaterializer(n.sink_key, n.upsert_key, n.schema,
                                                           _not_null(n.table, n.schema.names)),
    CollectNode: lambda n: SinkOperator(n.sink, "collect"),
    ChangelogFunctionNode: lambda n: (
        ToChangelogOperator(n.to_codes, n.passed, n.schema) if n.function == "TO_CHANGELOG"
        else FromChangelogOperator(n.from_kinds, n.op_index, n.passed, n.schema)),
}


def create_operator(node: plan.PlanNode) -> Operator:
    """The operator that runs ``node`` (not a scan or a table sink: see the job builder).

    Raises:
        TypeError: for a node type without a factory.
    """
    factory = OPERATOR_FACTORIES.get(type(node))
    if factory is None:
        msg = f"No operator for plan node {type(node).__name__}"
        raise TypeError(msg)
    return factory(node)


@dataclass
class JobGraph:
    """One running instance of a plan: sources, tasks, sinks, its state and coordinator."""

    coordinator: CheckpointCoordinator
    sources: list[SourceDriver]
    tasks: list[Task]
    sinks: list[SinkOperator]
    state: JobState | None = None  # None: no operator keeps state
    resources: TaskResources = field(default_factory=TaskResources)
    workdir: str = ""  # this attempt's working state (snapshots live elsewhere)
    #: per pruned GROUP BY's id, the rewrite of its restored state written before its unread calls
    #: were pruned (:func:`~streamsql.runtime.operators.group_agg_upgrade.drop_pruned_calls`)
    upgrades: dict[str, Callable[[KeyedState], int]] = field(default_factory=dict)

    def abort(self) -> None:
        """From the cancelling thread: waits of the job thread and of the commit give up soon.

        The sinks drop what they hold and their blocked writes and flushes raise (a checkpoint
        whose flush did not finish does not commit); the job thread stops waiting for a commit
        in flight. :meth:`close` follows on the job thread, as after any end.
        """
        for sink in self.sinks:
            _quietly(sink.abort)
        self.resources.abort()  # the task's transactional producer, for its exchange writers too
        self.coordinator.abort()

    def close(self) -> None:
        """Close every source, operator, backend and shared service; never raises.

        A checkpoint's commit in flight returns first: its producer must not close under it.
        """
        _quietly(self.coordinator.close)
        for s in self.sources:
            _quietly(s.source.close)
        for t in self.tasks:
            _quietly(t.operator.close)
        _release(self.state, self.resources, self.workdir)


@dataclass(frozen=True)
class TaskSlot:
    """Which task of a parallel job a graph is (None for a job that runs as one task).

    Attributes:
        job: the job's ``'pipeline.name'``.
        stage: the stage's id; ``index``: the task's index in it; ``count``: the stage's tasks.
    """

    job: str
    stage: int
    index: int
    count: int

    @property
    def name(self) -> str:
        """``<job>-<stage>``; the transactional id is ``<prefix>-<job>-<stage>-<task index>``."""
        return f"{self.job}-{self.stage}"

    def storage(self, root: str, options: dict[str, str]) -> CheckpointStorage:
        """The task's own checkpoint folder: ``<root>/<job>/stage<stage>-task<index>/``."""
        return CheckpointStorage(job_folder(root, self.job), f"stage{self.stage}-task{self.index}", options)


def job_folder(root: str, job: str) -> str:
    """``<root>/<job>``: a job's checkpoint folder (a parallel job's tasks have theirs inside)."""
    return CheckpointStorage(root, job).dir


def build_job(name: str, roots: list[plan.PlanNode], config: Config, metrics: dict[str, Any],
              workdir: str, slot: TaskSlot | None = None,
              operators: dict[str, dict] | None = None, assignment: int = KG_ASSIGNMENT,
              before_fencing: Callable[[int | None], None] | None = None,
              run_folder: str | None = None, job_uuid: str = "") -> JobGraph:
    """Create the running graph of plan ``roots`` (sinks) for job ``name`` (see module docstring).

    Args:
        name: ``'pipeline.name'``: checkpoints and transactional ids derive from it.
        roots: the plan's sink nodes.
        config: the job's settings.
        metrics: counters shared with the job handle.
        workdir: this attempt's working folder for state (removed by :meth:`JobGraph.close`).
        slot: the task of a parallel job this graph runs (``name`` is then ``slot.name``).
        operators: the job's state signatures (:func:`~streamsql.plan.state_signature.state_signatures`
            of the whole plan); the checkpoints record those of this graph's nodes. None: computed
            from ``roots`` (a job that runs as one task).
        assignment: how the run spreads key groups over a stage's tasks (its exchange writers
            route by it, a task's checkpoints record it: :func:`~streamsql.state.layout.task_of_key_groups`).
        before_fencing: checks the job's committed checkpoint before its Kafka transaction fences
            the transactional id (:attr:`~streamsql.core.connector.TaskResources.before_fencing`).
        run_folder: the run's checkpoint folder (:attr:`.CheckpointStorage.folder`): its Kafka
            transactions mark their ids as this run's before fencing, and refuse while a run of
            another folder marks them (:attr:`~streamsql.core.connector.TaskResources.run_folder`).
        job_uuid: the job's submission uuid (:attr:`~streamsql.core.connector.ConnectorContext.job_uuid`).

    Raises:
        StreamSQLError: for a connector or backend that cannot be created.
    """
    cfg = config.as_dict()
    nodes = plan.walk(roots)
    resources = TaskResources(before_fencing, run_folder)
    state: JobState | None = None
    try:
        sources, sinks = {}, {}
        reads = scan_reads(nodes, lambda scan: get_connector(scan.table.connector).source_reads_columns)
        pruned = partition_filters(nodes)
        for node in nodes:
            table = getattr(node, "table", None)
            single = isinstance(node, plan.SinkNode) and single_task(node.inputs[0])
            ctx = ConnectorContext(table, name, cfg, metrics=metrics, resources=resources,
                                   task_index=slot.index if slot else 0, num_tasks=slot.count if slot else 1,
                                   single_input=single, read_columns=reads.get(id(node)),
                                   limit=node.limit if isinstance(node, plan.ScanNode) else None,
                                   partitions=pruned.get(id(node)), job_uuid=job_uuid)
            if isinstance(node, ExchangeSourceNode):
                sources[node.id] = ExchangeReader(ctx)
            elif isinstance(node, ExchangeSinkNode):
                sinks[node.id] = ExchangeWriter(ctx)
            elif isinstance(node, plan.ValuesNode):
                sources[node.id] = ValuesSource(node)
            elif isinstance(node, plan.ScanNode):
                sources[node.id] = get_connector(node.table.connector).create_source(ctx)
            elif isinstance(node, plan.SinkNode):
                sinks[node.id] = _pipelined_sink(get_connector(node.table.connector).create_sink(ctx),
                                                 config, node.table.name)
        if any(n.stateful for n in nodes):
            backend = create_backend(config.choice("state.backend.type"), cfg)
            backend.open(workdir)
            state = JobState(backend)
        root = config.get("execution.checkpointing.dir")
        storage = slot.storage(root, cfg) if slot else CheckpointStorage(root, name, cfg)
        coordinator = CheckpointCoordinator(
            storage, resources.committer or LocalCommitter(storage),
            config.duration("execution.checkpointing.interval"),
            task_ids=[n.id for n in nodes if not isinstance(n, plan.ScanNode)],
            state=state,
            commit_listeners=[s.commit for s in sinks.values()] + _purges(sources, resources),
            min_pause_ms=config.duration("execution.checkpointing.min-pause"),
            timeout_ms=config.duration("execution.checkpointing.timeout"),
            tolerable_failures=config.integer("execution.checkpointing.tolerable-failed-checkpoints"),
            num_retained=config.integer("execution.checkpointing.num-retained"),
            operators=_own(operators if operators is not None else state_signatures(roots), nodes),
            pre_commits=[s.flushed for s in sinks.values() if isinstance(s, PipelinedSink)],
            asynchronous=_pipelined(config) > 0 and _switch(config, "streamsql.exec.pipeline.commit-thread"),
            name=name, key_groups=assignment if slot else None)
        if _switch(config, TRIM_KEY) and malloc_trimmer().available:
            coordinator.commit_listeners.append(_trim_after_checkpoint)
        exactly_once = (config.get("execution.checkpointing.mode") or "").upper() != "AT_LEAST_ONCE"
        consumers: dict[str, list[tuple[plan.PlanNode, int]]] = {n.id: [] for n in nodes}
        for node in nodes:
            for idx, inp in enumerate(node.inputs):
                consumers[inp.id].append((node, idx))
        built: dict[str, Task | SourceDriver] = {}
        for node in reversed(nodes):  # consumers first: each task is built with its downstream
            downstream = [(built[c.id], idx) for c, idx in consumers[node.id]]
            if isinstance(node, plan.ScanNode):
                batch_rows = config.integer("execution.batch-size")
                source = _prefetching_source(sources[node.id], config, batch_rows, node.table.name)
                built[node.id] = SourceDriver(node.id, source, coordinator, batch_rows, downstream)
                coordinator.commit_listeners.append(built[node.id].committed)
                continue
            if isinstance(node, ExchangeSinkNode):
                op = ExchangeSinkOperator(sinks[node.id], node.exchange.keys, node.exchange.partitions,
                                          assignment)
            elif isinstance(node, plan.SinkNode):
                op = SinkOperator(sinks[node.id], node.table.name, _not_null(node.table, node.schema.names),
                                  state_key=SINK_STATE_PREFIX + node.id, record=coordinator.record_position)
            else:
                op = create_operator(node)
            keyed = state.keyed_state(node.id) if state is not None and node.stateful else None
            op.open(OperatorContext(node.id, keyed, cfg, metrics))
            built[node.id] = Task(node.id, op, len(node.inputs), coordinator, exactly_once, downstream)
    except BaseException:
        _release(state, resources, workdir)
        raise
    return JobGraph(
        coordinator,
        sources=[built[n.id] for n in nodes if isinstance(n, plan.ScanNode)],
        tasks=[built[n.id] for n in nodes if not isinstance(n, plan.ScanNode)],
        sinks=[built[n.id].operator for n in nodes
               if isinstance(n, plan.SinkNode) and not isinstance(n, ExchangeSinkNode)],
        state=state, resources=resources, workdir=workdir,
        upgrades={n.id: partial(drop_pruned_calls, n) for n in nodes
                  if isinstance(n, plan.GroupAggNode) and n.unpruned is not None})


def _own(signatures: dict[str, dict], nodes: list[plan.PlanNode]) -> dict[str, dict]:
    """The signatures of ``nodes`` (a task's sub-plan of a parallel job: its stage's operators)."""
    ids = {n.id for n in nodes}
    return {op: sig for op, sig in signatures.items() if op in ids}


def _trim_after_checkpoint(checkpoint_id: int) -> None:
    """A commit listener: free arena memory goes back to the system (:class:`MallocTrimmer`)."""
    malloc_trimmer().request()


def _switch(config: Config, key: str) -> bool:
    """A pipeline switch (on by default: Config.boolean would read unset as false)."""
    return parse_bool(config.get(key), key)


def _pipelined(config: Config) -> int:
    """Queue bound of the pipeline's stages in batches, or 0 when it is switched off."""
    if not _switch(config, "streamsql.exec.pipeline.enabled"):
        return 0
    return config.integer("streamsql.exec.pipeline.queue-batches")


def _prefetching_source(source: Source, config: Config, batch_rows: int, name: str) -> Source:
    """``source`` polled on a fetch thread (:mod:`.prefetch`) when it allows it and the pipeline is on."""
    depth = _pipelined(config)
    if not depth or not source.prefetch:
        return source
    apart = _switch(config, "streamsql.exec.pipeline.decode-thread")
    decoders = config.integer("streamsql.exec.pipeline.decode-threads")
    return PrefetchingSource(source, batch_rows, depth, name, apart=apart, decoders=decoders)


def _pipelined_sink(sink: Sink, config: Config, name: str) -> Sink:
    """``sink`` writing on a sink thread (:mod:`.sink_stage`) when it allows it and the pipeline is on."""
    depth = _pipelined(config)
    if not depth or not sink.pipelined:
        return sink
    return PipelinedSink(sink, depth, name,
                         prepare_here=_switch(config, "streamsql.exec.pipeline.sink-prepare-on-job-thread"))


def _purges(sources: dict[str, Any], resources: TaskResources) -> list[Callable[[int], None]]:
    """Exchange readers purge consumed records after a commit — only a transactional one.

    A task committed by ``_committed`` is never fenced, so a zombie of it could commit and
    purge past what its successor restores.
    """
    if not isinstance(resources.committer, KafkaTransactions):
        return []
    return [s.committed for s in sources.values() if isinstance(s, ExchangeReader)]


def _release(state: JobState | None, resources: TaskResources, workdir: str) -> None:
    """Close the state backend and shared services and remove the working folder; never raises."""
    if state is not None:
        _quietly(state.close)
    _quietly(resources.close)
    shutil.rmtree(workdir, ignore_errors=True)


def _quietly(fn: Callable[[], Any]) -> None:
    try:
        fn()
    except Exception:  # closing after a failure must not hide the failure
        log.debug("error while closing", exc_info=True)
