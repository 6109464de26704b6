"""A parallel job: its stages' tasks, each with its own checkpoints (docs/parallelism.md).

A job planned with ``'parallelism.default'`` = P > 1 is cut into stages
(:func:`~streamsql.plan.stages.cut_stages`); each task of each stage is a
:class:`TaskRunner`: the barrier protocol of docs/checkpointing.md over the stage's sub-graph,
with its own coordinator, its own transactional id ``<prefix>-<job>-<stage>-<task>`` (the
exchange writer and the stage's exactly-once sinks share it), its own progress group and its
own checkpoint folder ``<dir>/<job>/stage<s>-task<t>/``. Nothing is shared between tasks:
rows cross stages only through ``read_committed`` exchange topics, so each task's commit is
consistent on its own and a task restarts alone.

Attempt-unique snapshots: a task's checkpoint ids continue above every id its folder holds and
each is claimed (:meth:`~streamsql.checkpoint.storage.CheckpointStorage.claim`), so a zombie
attempt — one that was replaced but still runs — never writes a ``chk-<n>`` folder its
successor writes or restores; its commits fail once the successor fenced its producer.

:class:`ParallelJobRunner` runs every task of the job in this process (a thread per task).
A task's last checkpoint is not marked final; when every task finished, the job writes
``<dir>/<job>/_finished`` and then resets: deletes the exchange topics, the tasks' progress
groups and their folders, then ``_finished``. A job started while ``_finished`` exists resets
first, so a rerun starts afresh (as a finished single-task job does) and a crash during the
reset is finished by the next start. ``_tasks`` names the tasks of the run in progress: an
unfinished run is resumed only with the same tasks (the same parallelism); at another one, through
a savepoint, or through the job's folder as ``'execution.state-recovery.path'`` (its retained
checkpoints: :meth:`ParallelJobRunner._drain_retained`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Any, Callable

from streamsql.checkpoint.identity import TASKS_FILE, JobIdentity, JobIdentityError, check_tasks
from streamsql.checkpoint.operators import ignore_unclaimed, recorded_assignment
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.connectors.kafka.exchange import ExchangeReader, delete_exchanges
from streamsql.connectors.kafka.liveness import running_elsewhere_error, runs_elsewhere, this_run
from streamsql.connectors.kafka.options import librdkafka_props
from streamsql.connectors.kafka.transactions import (
    DEFAULT_PREFIX,
    KafkaTransactions,
    abort_lingering,
    transaction_prefix,
)
from streamsql.connectors.registry import get_connector
from streamsql.core.config import Config
from streamsql.core.counters import KEYS as DROPPED_KEYS
from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.faults import fault_point
from streamsql.plan.nodes import PlanNode, SinkNode, walk
from streamsql.plan.stages import PARTITIONED_SOURCES, ExchangeSinkNode, ExchangeSourceNode, Stage, cut_stages
from streamsql.plan.state_signature import state_signatures
from streamsql.runtime.builder import JobGraph, TaskSlot, build_job
from streamsql.runtime.exchange import ExchangeSinkOperator
from streamsql.runtime.job import JobRunner, format_event_time, restore_claimed
from streamsql.runtime.savepoint import claim_savepoint, seed_storage, seed_tasks, write_savepoint
from streamsql.runtime.worker import REPORT_KEYS, TaskGroup, other_drivers_workers, task_reports, task_topic
from streamsql.state.layout import KG_ASSIGNMENT, KG_ASSIGNMENT_BIT_REVERSED, KG_ASSIGNMENT_RANGES

log = logging.getLogger(__name__)

FINISHED_MARKER = "_finished"
#: How long SHOW JOBS waits for a task's input lag (s; then it shows none). Asking the brokers
#: takes up to ~0.5 s per partition (behind the consumer's pending fetch).
LAG_TIMEOUT_S = 15.0
RESTORED_FILE = "_restored_from"  # the savepoint the run in progress started from
#: the savepoint a restore from the job's own folder (its retained checkpoints) drained its run into
DRAINED_FILE = "_drained_into"
ASSIGNMENT_FILE = "_key_groups"  # the run's key-group assignment (run_assignment)
#: the part-file uuid the driver drew for this submission, which its worker processes take
UUID_FILE = "_file_uuid"
#: How often the driver looks whether a worker process ended (s): a waitpid without waiting, so
#: cheap; the job ends this long at most after its last worker.
WORKER_POLL_S = 0.05


class TaskRunner(JobRunner):
    """One task of a parallel job, run and restarted like a job of its own (see module docstring).

    Args:
        slot: which task.
        roots: its stage's sub-plan.
        config: the job's settings.
        operators: the whole job's state signatures (its checkpoints record its stage's).
    """

    final_marks_done = False
    #: the stop in progress (:meth:`ParallelJobRunner.stop`): its stop records carry it, and only
    #: stop records with it end the task's exchange reads (None: not stopping, they end nothing)
    stop_token: bytes | None = None
    #: the run's key-group assignment (its exchange writers route by it), set by the job's runner
    assignment = KG_ASSIGNMENT

    def __init__(self, slot: TaskSlot, roots: list[PlanNode], config: Config, operators: dict[str, dict]):
        super().__init__(f"{slot.name}-{slot.index}", roots, config)
        self.slot = slot
        self.operators = operators
        self.status = "CREATED"
        self.worker: str | None = None
        self._graph: JobGraph | None = None
        self._stop_asked = False  # told to stop (a source task), not stopped by its own drain

    def run(self) -> None:
        """Run the task (see :meth:`JobRunner.run`), keeping :attr:`status` (Flink's names)."""
        self.status = "RUNNING"
        try:
            super().run()
        except BaseException:
            self.status = "FAILED"
            raise
        stopped = "STOPPED" if self._stop.is_set() else "FINISHED"
        self.status = "CANCELED" if self._cancel.is_set() else stopped

    def stop(self) -> None:
        """Stop after a final checkpoint (a source stage's task, told by :meth:`ParallelJobRunner.stop`)."""
        self._stop_asked = True
        super().stop()

    def _wait_to_restart(self, delay: float) -> bool:
        """Wait to restart; a task of a stop in progress restarts too, and stops again.

        A stop (``STOP JOB ... WITH SAVEPOINT``, the drain of a restore at another parallelism:
        :attr:`stop_token` set) is the whole job's: a single-process job waiting to restart ends
        as cancelled (:meth:`JobRunner._wait_to_restart`), but a task that did so left its stage's
        downstream tasks waiting for its stop records for good (a source task: the restore hung),
        or the savepoint without its final checkpoint (a downstream task: "took no final
        checkpoint", the restore failed, and only a second restore drained the run). The task
        restarts from its committed checkpoint instead: a source task told to stop stops again at
        once; a downstream task, which stops on its own once drained (:meth:`_stopping`), reads
        its exchange on from the checkpoint to the stop records again (those it had read before
        the checkpoint are in its position).

        Returns:
            True when cancelled meanwhile.
        """
        if self.stop_token is None:
            return super()._wait_to_restart(delay)
        if not self._stop_asked:
            self._stop.clear()  # set by its own drain: the new attempt drains again
        self.restarting = True
        try:
            return self._cancel.wait(delay)
        finally:
            self.restarting = False

    def _build(self, workdir: str) -> JobGraph:
        # the run's folder (its tasks' are inside): a task moving between the run's workers is
        # the same run; another folder's run of the job is refused before fencing
        folder = CheckpointStorage(self.config.get("execution.checkpointing.dir"), self.slot.job,
                                   self.config.as_dict()).folder
        self._graph = build_job(self.slot.name, self.roots, self.config, self.metrics, workdir, self.slot,
                                self.operators, self.assignment, run_folder=folder, job_uuid=self.file_uuid)
        return self._graph

    def stats(self) -> dict[str, Any]:
        """What SHOW JOBS shows of the task (see :meth:`ParallelJobRunner.task_stats`).

        The input lag is asked on the task's thread (its sources' consumers are its own), for
        at most :data:`LAG_TIMEOUT_S`.
        """
        running = self._graph is not None and self.status == "RUNNING"
        lags = self.ask(lambda g: [s.source.lag() for s in g.sources], LAG_TIMEOUT_S) if running else None
        return {**self.counts(), "last_checkpoint": self.coordinator.stats() if self.coordinator else {},
                "input_lag": None if not lags or None in lags else sum(lags)}

    def counts(self) -> dict[str, Any]:
        """:meth:`stats` without the checkpoint and the lag (cheap: no broker request)."""
        m = self.metrics
        return {"task": f"{self.slot.stage}-{self.slot.index}", "worker": self.worker, "status": self.status,
                "rows_in": m.get("rows_in", 0), "rows_out": m.get("rows_out", 0) + m.get("rows_exchanged", 0),
                "rows_exchanged": m.get("rows_exchanged", 0), "restarts": m.get("restarts", 0),
                **{key: m.get(key, 0) for key in DROPPED_KEYS}}

    def _restore(self, graph: JobGraph) -> dict[str, Any]:
        fault_point("after_fencing_during_restore")  # the build opened (fenced) its producer
        self.restored_from = None
        positions = super()._restore(graph)
        if self.restored_from is None:  # nothing committed yet: a savepoint's seed, if any
            positions = self._restore_seed(graph) or positions
        return positions

    def _restore_seed(self, graph: JobGraph) -> dict[str, Any] | None:
        """Restore the seed checkpoint :mod:`~streamsql.runtime.savepoint` wrote; its positions."""
        seed = seed_storage(self.slot, self.config.get("execution.checkpointing.dir"), self.config.as_dict())
        ids = seed.checkpoint_ids()
        meta = seed.read_metadata(ids[-1]) if ids else None
        if meta is None:
            return None
        positions = restore_claimed(graph, seed, ids[-1], meta, self.name, self.config)
        self.restored_from = ids[-1]
        graph.coordinator.next_id = max(graph.coordinator.next_id, ids[-1] + 1)  # as Flink: ids go on
        log.info("task %s restored its seed from savepoint %s", self.name, meta.get("savepoint"))
        return positions

    def _stopping(self, graph: JobGraph) -> bool:
        """Stop when asked, or once every exchange read is drained (a savepoint's drain).

        A stopping task broadcasts a stop record into its exchanges first, so it goes into the
        final checkpoint's transaction (see :mod:`streamsql.runtime.savepoint`).
        """
        readers = [s.source for s in graph.sources if isinstance(s.source, ExchangeReader)]
        token = self.stop_token
        drained = readers and token is not None and all(r.drained(token) for r in readers)
        if not (self._stop.is_set() or drained):
            return False
        self._stop.set()  # a stop, not an end: the job is not finished
        for t in graph.tasks:
            if isinstance(t.operator, ExchangeSinkOperator):
                t.operator.writer.stop(token or b"")
        return True


def reset_parallel_run(name: str, roots: list[PlanNode], config: Config, parallelism: int) -> None:
    """Delete what an unfinished run of a parallel job left (see :meth:`ParallelJobRunner.reset`).

    Its exchange topics, progress groups, task folders and ``_tasks`` go.

    Args:
        name: the job's name.
        roots: the job's plan (not one that runs: the stages are cut from it).
        config: the job's settings.
        parallelism: the run's ``'parallelism.default'``.
    """
    settings = {**config.as_dict(), "parallelism.default": str(parallelism)}
    ParallelJobRunner(name, roots, Config(settings)).reset(replaced=True)


def nodes_transaction_prefix(nodes: list[PlanNode], config: dict[str, str]) -> str:
    """The transactional id prefix of a task that runs ``nodes``, as its Kafka transaction takes it.

    :func:`~streamsql.connectors.kafka.transactions.transaction_prefix` of the
    ``'sink.transactional-id-prefix'`` of the nodes that write in the task's transaction (as
    :meth:`~streamsql.connectors.kafka.transactions.KafkaTransactions.for_context` collects
    them): its exchange writers, and its Kafka sinks whose guarantee is exactly-once.
    """
    def writes_in_txn(n: PlanNode) -> bool:
        if isinstance(n, ExchangeSinkNode):
            return True
        return (isinstance(n, SinkNode) and n.table.connector in PARTITIONED_SOURCES
                and get_connector(n.table.connector).sink_guarantee(n.table, config).transactional)

    return transaction_prefix(n.table.options.get("sink.transactional-id-prefix")
                              for n in nodes if writes_in_txn(n))


def _shape(stage: Stage) -> dict[str, Any]:
    """What a stage's tasks read and write: their counts' labels (:meth:`ParallelJobRunner.task_stats`)."""
    leaves = [n for n in walk(stage.roots) if not n.inputs]
    exchanges = [isinstance(n, ExchangeSourceNode) for n in leaves]
    reads = [w for w, there in (("sources", not all(exchanges)), ("exchange", any(exchanges))) if there]
    return {"input": " and ".join(reads) or "sources",
            "to_tables": any(not isinstance(r, ExchangeSinkNode) for r in stage.roots),
            "to_exchange": any(isinstance(r, ExchangeSinkNode) for r in stage.roots)}


def _worker_failure(report_file: str, worker: str, rc: int) -> str:
    """Why a worker process failed: what it wrote to its ``--report-file``, or its exit code."""
    try:
        with open(report_file, encoding="utf-8") as f:
            text = f.read().strip()
    except OSError:
        text = ""
    return text or f"worker {worker} failed (exit {rc}); its error is above"


def run_assignment(files: CheckpointStorage, resuming: bool, slots: list[TaskSlot] = ()) -> int:
    """The key-group assignment of the job's run (:func:`~streamsql.state.layout.task_of_key_groups`).

    A new run takes today's (:data:`~streamsql.state.layout.KG_ASSIGNMENT`) and records it in
    :data:`ASSIGNMENT_FILE`. An unfinished run keeps the one it started with, whatever StreamSQL
    resumes it: its tasks' committed state holds the key groups it gave them, and its exchange
    topics hold records routed by it, not yet read. Its tasks' checkpoints say which
    (``_metadata``'s ``key_group_assignment``, :func:`~streamsql.checkpoint.operators.recorded_assignment`):
    they decide, whatever :data:`ASSIGNMENT_FILE` says (deleted or rewritten, it is written again).
    Only a run whose checkpoints record none (written before they did, or none written yet) takes
    the file's; a run without the file either was started before it, with Flink's ranges
    (``KG_ASSIGNMENT_RANGES``).

    Args:
        files: the job's checkpoint folder.
        resuming: an unfinished run's tasks are recorded (``_tasks``).
        slots: the run's tasks, whose checkpoints (and savepoint seeds) are read.

    Raises:
        ConfigError: the run's assignment is one this StreamSQL does not know (a newer one wrote it),
            or its tasks' checkpoints record different ones.
    """
    if not resuming:
        files.write_file(ASSIGNMENT_FILE, str(KG_ASSIGNMENT).encode())
        return KG_ASSIGNMENT
    found = _recorded_assignments(files, slots)
    recorded = files.read_file(ASSIGNMENT_FILE)
    text = recorded.decode(errors="replace").strip() if recorded is not None else None
    if len(set(found.values())) > 1:
        listed = ", ".join(f"{where}: {a}" for where, a in sorted(found.items()))
        msg = (f"The unfinished run in {files.dir} has checkpoints of different key-group assignments "
               f"({listed}): they were not all written by one run, and it cannot be resumed. Restore a "
               "savepoint of the job ('execution.savepoint.path') or start it afresh")
        raise ConfigError(msg)
    if found:
        assignment = next(iter(found.values()))
        if text != str(assignment):
            log.warning("job folder %s: %s is %s, but the run's checkpoints record key-group assignment %s: "
                        "the checkpoints decide; the file is written again", files.dir, ASSIGNMENT_FILE,
                        "missing" if text is None else repr(text), assignment)
    elif text is None:
        return KG_ASSIGNMENT_RANGES
    else:  # isascii: str.isdigit() takes '²' for a digit, which int() refuses
        assignment = int(text) if text.isascii() and text.isdigit() else text
    if assignment not in (KG_ASSIGNMENT_RANGES, KG_ASSIGNMENT_BIT_REVERSED):
        msg = (f"The unfinished run in {files.dir} spreads key groups over its tasks by assignment "
               f"{assignment}, which this StreamSQL does not know: resume it with the StreamSQL that "
               "started it")
        raise ConfigError(msg)
    if found and text != str(assignment):
        files.write_file(ASSIGNMENT_FILE, str(assignment).encode())
    return assignment


def _recorded_assignments(files: CheckpointStorage, slots: list[TaskSlot]) -> dict[str, int]:
    """The key-group assignment each task's newest completed checkpoint (or seed) records, by folder.

    Every checkpoint in a task's folders was written by the run in progress (a reset deletes the
    folders with ``_tasks``), so any of them tells the run's assignment; folders whose checkpoints
    record none (or have none) are left out.
    """
    root, options = files.root, files.options
    out = {}
    for slot in slots:
        for storage in (slot.storage(root, options), seed_storage(slot, root, options)):
            for cid in reversed(storage.checkpoint_ids()):
                meta = storage.read_metadata(cid)
                if meta is None:
                    continue  # claimed or in progress: no record yet
                assignment = recorded_assignment(meta)
                if assignment is not None:
                    out[storage.location(cid)] = assignment
                break
    return out


def _same_location(a: str, b: str) -> bool:
    """Two folder locations name one folder (paths compared absolute, URIs as given)."""
    def norm(p: str) -> str:
        return p.rstrip("/") if "://" in p else os.path.abspath(p)
    return norm(a) == norm(b)


def _run_parallelism(name: str, roots: list[PlanNode], config: Config, names: list[str]) -> int | None:
    """The ``'parallelism.default'`` at which the job's plan has exactly the tasks ``names``; None if none."""
    indexes = [int(n.rpartition("-")[2]) for n in names if n.rpartition("-")[2].isdigit()]
    for p in range(1, max(indexes, default=0) + 2):
        if [t.name for t in task_runners(name, cut_stages(name, roots, p), config, {})] == names:
            return p
    return None


def task_runners(name: str, stages: list[Stage], config: Config,
                 operators: dict[str, dict]) -> list[TaskRunner]:
    """A runner per task of every stage (``operators``: the job's state signatures)."""
    return [TaskRunner(TaskSlot(name, s.id, t, s.parallelism), s.roots, config, operators)
            for s in stages for t in range(s.parallelism)]


@dataclass(frozen=True)
class ParallelRole:
    """How this process runs the tasks of its parallel jobs.

    Attributes:
        command: ``streamsql run``: start ``'parallelism.default'`` processes of this command
            (``streamsql worker FILE.sql --set ...``, a ``--worker-id`` appended), wait for them.
        worker_id: ``streamsql worker``: this process is the group member with this id.
        driver: a worker that ``streamsql run`` started: that driver's ``<host>-<pid>``.
        With neither (the embedding API and the shell), every task runs in this process.
    """

    command: tuple[str, ...] = ()
    worker_id: str | None = None
    driver: str | None = None


class ParallelJobRunner:
    """Runs the tasks of a parallel job in this process until all finished (see module docstring).

    The interface of :class:`~streamsql.runtime.job.JobRunner` that a job handle uses.

    Args:
        name: ``'pipeline.name'``.
        roots: the plan's sinks (ids assigned).
        config: the job's settings (``'parallelism.default'`` > 1).
        identity: binds the job's folder (locked while it runs), or None.
        role: how this process takes part (default: every task in this process).

    Raises:
        PlanError: for a plan that cannot run partitioned.
    """

    coordinator = None  # each task has its own: see :attr:`tasks`

    def __init__(self, name: str, roots: list[PlanNode], config: Config, identity: JobIdentity | None = None,
                 role: ParallelRole | None = None):
        self.name = name
        self.role = role or ParallelRole()
        self.config = config
        self.identity = identity
        self.roots = roots
        self.operators = state_signatures(roots)  # of the whole plan: a stage's leaves lose the origins
        self.stages = cut_stages(name, roots, config.integer("parallelism.default"))
        self.files = CheckpointStorage(config.get("execution.checkpointing.dir"), name, config.as_dict())
        self.tasks = task_runners(name, self.stages, config, self.operators)
        self._stage_shape = {s.id: _shape(s) for s in self.stages}
        self._reports: dict[int, dict[str, Any]] = {}  # what worker processes' tasks reported
        # the savepoint checkpoint this run seeded its tasks with: the driver of worker processes
        # runs no task, so their restored_from never reaches it
        self._seeded: int | None = None
        # one part-file uuid for every task of the job (ConnectorContext.job_uuid); a worker
        # process takes its driver's (run)
        self.file_uuid = str(uuid.uuid4())
        for t in self.tasks:
            t.file_uuid = self.file_uuid
        self._cancel = threading.Event()
        self._draining: ParallelJobRunner | None = None  # the run a restore drains (_drain_retained)
        self._failed = False

    @property
    def metrics(self) -> dict[str, Any]:
        """The job's counts, as a single-task job's: rows_in, rows_out, restarts and the dropped rows'.

        rows_in are read by the source stages, rows_out written to tables. Summed over
        :meth:`task_stats`: the tasks this process ran, or with worker processes (``streamsql
        run``) what the finished tasks reported (``workers``: how many processes).
        """
        out = {"rows_in": 0, "rows_out": 0, "restarts": 0, **dict.fromkeys(DROPPED_KEYS, 0)}
        if self.role.command:
            out["workers"] = self.config.integer("parallelism.default")
        for t in self._task_dicts(lambda t: t.counts()):
            out["rows_in"] += t["rows_in"] if t["input"] == "sources" else 0
            out["rows_out"] += t["rows_out"] - t["rows_exchanged"]
            for key in ("restarts", *DROPPED_KEYS):
                out[key] += t[key]
        return out

    def checkpoint_stats(self) -> dict[str, Any]:
        """The job's last checkpoint (:attr:`JobHandle.last_checkpoint`): the newest every task completed.

        Each task checkpoints on its own (its own coordinator and transaction), so the job's is
        the lowest of its tasks' last completed ids, with the longest duration and alignment (ms)
        and the state bytes summed over the tasks at that id (no ``positions``: each task has its
        own). ``tasks_ahead``: how many tasks completed a later one. {} while a task has none, or
        runs in a worker process (its coordinator is not here).
        """
        last = [t.coordinator.stats() if t.coordinator else {} for t in self.tasks]
        if not last or not all(last):
            return {}
        low = min(c["checkpoint_id"] for c in last)
        at = [c for c in last if c["checkpoint_id"] == low]
        state: dict[str, int] = {}
        for c in at:
            for k, v in c["state_bytes"].items():
                state[k] = state.get(k, 0) + v
        first = {k: v for k, v in at[0].items() if k != "positions"}  # each task's own sources'
        return {**first, "duration_ms": max(c["duration_ms"] for c in at),
                "alignment_ms": max(c["alignment_ms"] for c in at), "state_bytes": state,
                "tasks_ahead": len(last) - len(at)}

    def task_stats(self) -> list[dict[str, Any]]:
        """What each task of the job did, in task order: in this process, or as its worker reported.

        Each a dict: ``task`` (``<stage>-<index>``), ``worker`` (None: not run here),
        ``status``, ``input`` (``sources``, ``exchange``, or ``sources and exchange``: what its
        stage reads), ``rows_in`` (from that input), ``rows_out`` (to tables and exchanges),
        ``rows_exchanged`` (of those, to exchanges), ``to_tables`` / ``to_exchange`` (whether its
        stage writes tables / an exchange), ``restarts`` and the dropped rows' counts
        (:data:`~streamsql.core.counters.DROPPED`: ``bad_records``, ``late_records``, ...),
        ``last_checkpoint`` (as :attr:`JobHandle.last_checkpoint`), ``input_lag`` (records of its
        input not read yet; None when unknown or not running). With worker processes, a finished
        task's counts come from its ``done`` record (:func:`~streamsql.runtime.worker.task_reports`).
        """
        return self._task_dicts(lambda t: t.stats())

    def _task_dicts(self, own: Callable[[TaskRunner], dict[str, Any]]) -> list[dict[str, Any]]:
        """``own(task)`` of each task, updated with its worker's report, with its stage's shape."""
        out = []
        for p, t in enumerate(self.tasks):
            st = own(t)
            if p in self._reports:
                st.update({k: v for k, v in self._reports[p].items() if k in REPORT_KEYS}, status="FINISHED")
            out.append({**st, **self._stage_shape[t.slot.stage]})
        return out

    @property
    def watermark(self) -> str | None:
        """The job's event time (:attr:`JobHandle.watermark`): the lowest over the tasks writing its tables.

        That is what Flink's web UI shows as a vertex's watermark (the minimum over its
        subtasks), for the job's sink vertex. None while one of those tasks has none yet, and
        with worker processes (``streamsql run``), whose tasks do not run in this process.
        """
        marks = [t.event_time_ms for t in self.tasks if self._stage_shape[t.slot.stage]["to_tables"]]
        if not marks or any(m is None for m in marks):
            return None
        return format_event_time(min(marks))

    @property
    def restored_from(self) -> int | None:
        """The newest checkpoint a task resumed from (a savepoint's seed included), or None.

        As a single-process job's (:attr:`JobRunner.restored_from`), so ``streamsql run``'s summary
        says ``resumed from checkpoint #n`` after a restore from ``'execution.savepoint.path'`` or of
        its own checkpoints after a crash, whether the tasks ran here or in worker processes (whose
        finished tasks report it: :func:`~streamsql.runtime.worker.task_reports`).
        """
        ids = [t.restored_from for t in self.tasks if t.restored_from is not None]
        # a worker process's task: its done report says (a run resumed after a crash, no savepoint)
        ids += [r["restored_from"] for r in self._reports.values() if isinstance(r.get("restored_from"), int)]
        return max([*ids, *([self._seeded] if self._seeded is not None else [])], default=None)

    def run(self) -> None:
        """Run every task; return when all finished (or were cancelled).

        Raises:
            StreamSQLError: the first task failure beyond its restart strategy (the other tasks
                are cancelled).
        """
        files = self.files
        if self.role.worker_id is not None:  # a group member: no lock, no reset (the driver's)
            if files.read_file(FINISHED_MARKER) is not None:
                return  # the job finished; nothing left to take part in
            self._take_driver_uuid()
            self._check_tasks()
            group = TaskGroup(self.name, self.tasks, self._props(), self.role.worker_id,
                              self.config.integer("parallelism.default"), self.role.driver)
            if group.run(self._cancel):
                self._await_output()
                files.write_file(FINISHED_MARKER, b"finished")
            return
        with self.identity.lock(files.lock_dir) if self.identity else contextlib.nullcontext():
            if self.role.command:  # before anything of the job's on Kafka is reset or joined
                self._refuse_other_drivers()
            if files.read_file(FINISHED_MARKER) is not None:
                self.reset()
                files.delete_file(DRAINED_FILE)  # a finished run leaves no retained checkpoints
            self._apply_savepoint()
            self._check_tasks()
            # restored: the new run's _tasks stand for it now (deleted before _tasks was written, a
            # restore killed in between found neither and refused its own folder)
            files.delete_file(DRAINED_FILE)
            if self.role.command:
                files.write_file(UUID_FILE, self.file_uuid.encode())
                self._run_workers()
            else:
                self._run_threads()
            if self._cancel.is_set() or any(t._stop.is_set() for t in self.tasks):
                return
            self._await_output()  # with worker processes, each waited for its own tasks
            if self.role.command:  # before reset() deletes the task topic that holds them
                self._reports = task_reports(self._props(), self.name, len(self.tasks))
            files.write_file(FINISHED_MARKER, b"finished")
            self.reset()
            files.delete_file(DRAINED_FILE)

    def _take_driver_uuid(self) -> None:
        """A worker process: the part-file uuid its driver drew (:data:`UUID_FILE`), for every task.

        A worker started by hand before any driver wrote one keeps its own.
        """
        drawn = self.files.read_file(UUID_FILE)
        if drawn:
            self.file_uuid = drawn.decode()
            for t in self.tasks:
                t.file_uuid = self.file_uuid

    def _refuse_other_drivers(self) -> None:
        """Refuse to run while another ``streamsql run`` of this job has workers in its group.

        The folder lock keeps a second driver off this checkpoint folder only: the same script run
        from another working folder (another ``'execution.checkpointing.dir'``) has a folder of its
        own, but the same group, task topic, exchanges and transactional ids. Its workers joined
        the running job's group and took tasks over, fencing their producers, before they failed
        on checkpoints their folder does not hold; and a folder holding a finished run would have
        reset (deleted) the running job's topics first.

        Raises:
            JobIdentityError: another driver's workers are members: at once when one runs on
                this host, else still after :data:`~streamsql.runtime.worker.OTHER_DRIVERS_WAIT_S`.
        """
        others = other_drivers_workers(self._props(), self.name, f"{socket.gethostname()}-{os.getpid()}")
        if others:
            msg = (f"Job '{self.name}' is running from another 'streamsql run': its workers "
                   f"{', '.join(others)} are members of the job's group '_streamsql-{self.name}-workers' "
                   f"(their checkpoint folder is not {self.files.dir}, whose lock this run holds). Two runs "
                   "of one job would share its tasks, topics and Kafka transactional ids. Stop that run "
                   "first, or give this one another 'pipeline.name'")
            raise JobIdentityError(msg)

    def _await_output(self) -> None:
        """Wait until what the tasks run here wrote is visible to read_committed readers.

        Every task committed its last checkpoint, so no open transaction of the job holds a
        partition back: as a single-process job's last commit waits
        (:meth:`~streamsql.connectors.kafka.transactions.KafkaTransactions.await_output`), a
        finished job's output is readable when it reports FINISHED.
        """
        awaited: set[tuple[str, frozenset[str]]] = set()  # tasks of a stage write the same topics
        for t in self.tasks:
            committer = t._graph.resources.committer if t._graph is not None else None
            if not isinstance(committer, KafkaTransactions):
                continue
            key = (committer.bootstrap, frozenset(committer.output_topics()))
            if key[1] and key not in awaited:
                awaited.add(key)
                committer.await_output()

    def _apply_savepoint(self) -> None:
        """Seed every task from ``'execution.state-recovery.path'``, once per savepoint (``_restored_from``).

        The path is a savepoint (a parallel job's, or a single-process job's ``chk-<n>``), a
        single-process job's retained checkpoint (its ``chk-<n>``), or the job's own folder: its
        retained checkpoints, the unfinished run's (:meth:`_drain_retained`). The job is reset
        first (exchange topics, progress groups, task folders of any run): the savepoint's state
        replaces whatever the job had.
        """
        path = self.identity.recovery_path if self.identity else None
        key = self.identity.recovery_key if self.identity else ""  # the setting that named it, for messages
        if path and _same_location(path, self.files.dir):
            source = self._drain_retained(key)
        else:
            source = path if path and self.files.read_file(RESTORED_FILE) != path.encode() else None
        if source is None:
            return
        # refuse what is not a savepoint, or state this plan does not claim, before resetting anything
        ignore = ignore_unclaimed(self.config.as_dict())
        claim_savepoint(source, self.files, self.stages, self.operators, ignore, key)
        self.reset()
        self._seeded = seed_tasks(source, self.files, self.stages, self.identity.digest,
                                  self.config.get("state.dir"), key, KG_ASSIGNMENT)  # a new run's
        self.files.write_file(RESTORED_FILE, path.encode())

    def _drain_retained(self, key: str) -> str | None:
        """The savepoint a restore from the job's own folder starts from; None: the run resumes itself.

        The folder's retained checkpoints are its unfinished run's (cancelled, failed, crashed):
        each task's last one, and the records in the exchanges that downstream tasks had not read
        yet (committed by the upstream tasks' checkpoints, so part of the run's state). At the
        run's own tasks that is a plain resume. At another parallelism, the run is resumed at its
        own first, in this process, and stopped at once as ``STOP JOB ... WITH SAVEPOINT`` stops a
        job (its source tasks stop after their first turn; a downstream task once it read every
        upstream task's stop record), so nothing is left in flight; the savepoint it leaves
        (recorded in :data:`DRAINED_FILE` until the seeds are written, so a restore interrupted after
        its reset takes it again) then seeds this run as any savepoint does. As Flink restores a retained
        checkpoint at another parallelism, in-flight records included.

        Raises:
            JobIdentityError: the folder holds no unfinished run (and no drained one), a
                single-process job's, or another job's (another query under this name).
        """
        files, where = self.files, f"'{key}' = '{self.identity.recovery_path}'"
        recorded = files.read_file(TASKS_FILE)
        if recorded is None:
            drained = files.read_file(DRAINED_FILE)
            if drained is not None:  # a restore from it was interrupted after its reset: take it again
                return drained.decode()
            msg = (f"{where} is the folder of job '{self.name}', which holds no unfinished run (no _tasks): "
                   "there is no retained checkpoint to restore. Give a savepoint "
                   "(STOP JOB ... WITH SAVEPOINT)")
            raise JobIdentityError(msg)
        names = [n for n in recorded.decode().split("\n") if n]
        if names == [t.name for t in self.tasks]:
            return None  # its own tasks: the run resumes, its in-flight records with it
        if self.name in names:
            msg = (f"{where} is the folder of a single-process job: give its retained checkpoint "
                   "(<folder>/chk-<n>) instead")
            raise JobIdentityError(msg)
        self.identity.bind_run(files, resuming=True)  # the unfinished run is this query's
        parallelism = _run_parallelism(self.name, self.roots, self.config, names)
        if parallelism is None:
            msg = (f"{where}: the unfinished run's tasks ({', '.join(names)}) are not this job's at any "
                   "parallelism: restore it through a savepoint")
            raise JobIdentityError(msg)
        settings = {**self.config.as_dict(), "parallelism.default": str(parallelism)}
        run = ParallelJobRunner(self.name, self.roots, Config(settings))
        run._check_tasks()  # its tasks, its key-group assignment (from its checkpoints)
        log.info("job %s: draining its unfinished run of %d tasks for the restore at another parallelism",
                 self.name, len(names))
        self._draining = run  # a cancel of this job cancels the drain
        try:
            run.stop()
            if self._cancel.is_set():
                run.cancel()
            run._run_threads()
        finally:
            self._draining = None
        if run._cancel.is_set():
            msg = f"Job '{self.name}' cancelled while its unfinished run was drained for the restore"
            raise ExecutionError(msg)
        read = {}
        for t in run.tasks:
            read[t.slot.stage] = read.get(t.slot.stage, 0) + t.metrics.get("rows_in", 0)
        log.info("job %s: its unfinished run drained (rows read per stage: %s)", self.name, read)
        savepoint = write_savepoint(run.files, run.tasks, self.identity.digest,
                                    self.config.choice("state.backend.type"))
        files.write_file(DRAINED_FILE, savepoint.encode())
        return savepoint

    def _check_tasks(self) -> None:
        """Record the job's tasks in ``_tasks`` (and ``_job``), or refuse to resume it with other ones.

        An unfinished run's committed state belongs to its tasks (:func:`check_tasks`); another
        parallelism rescales through a savepoint only. The run is bound to the job's fingerprint
        too (:meth:`JobIdentity.bind_run`), checked by the driver and by every worker.

        Raises:
            ConfigError: when ``_tasks`` names other tasks.
            JobIdentityError: the unfinished run is another job's (another query under this
                ``'pipeline.name'``: :meth:`JobIdentity.bind_run`).
        """
        tasks = [t.name for t in self.tasks]
        resuming = check_tasks(self.files, self.name, tasks)
        if self.identity is not None:  # before _tasks: a process that sees _tasks finds _job
            self.identity.bind_run(self.files, resuming)
        # before _tasks, as _job
        assignment = run_assignment(self.files, resuming, [t.slot for t in self.tasks])
        for t in self.tasks:
            t.assignment = assignment
        if not resuming:
            self.files.write_file(TASKS_FILE, "\n".join(tasks).encode())

    def _run_threads(self) -> None:
        errors: list[BaseException] = []
        for t in self.tasks:
            t.worker = f"{socket.gethostname()} pid {os.getpid()}"

        def main(task: TaskRunner) -> None:
            try:
                task.run()
            except BaseException as e:  # the first failure ends the job
                errors.append(e)
                self.cancel()

        threads = [threading.Thread(target=main, args=(t,), name=f"task-{t.name}", daemon=True)
                   for t in self.tasks]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        if errors:
            raise errors[0]

    def _run_workers(self) -> None:
        """Start the workers, restart one killed by a signal, fail when one fails.

        Each worker is told where to write why it failed (``--report-file``): its error becomes
        this job's, so it is printed once, under this job's id, naming the failing task.

        Raises:
            ExecutionError: a worker failed: its error (``task <s>-<t> (on worker <id>): ...``).
        """
        host = socket.gethostname()
        ids = [f"{host}-{os.getpid()}-w{i}" for i in range(self.config.integer("parallelism.default"))]
        reports = tempfile.mkdtemp(prefix="streamsql-workers-")

        def start(i: int) -> subprocess.Popen:
            # --driver-pid: a worker dies with this process (streamsql.core.lifeline); this
            # thread forks every worker and outlives them, as PR_SET_PDEATHSIG needs
            return subprocess.Popen([*self.role.command, "--worker-id", ids[i],
                                     "--report-file", os.path.join(reports, f"w{i}"),
                                     "--driver-pid", str(os.getpid())])

        procs = {i: start(i) for i in range(len(ids))}
        try:
            while procs and not self._cancel.is_set():
                time.sleep(WORKER_POLL_S)
                for i, proc in list(procs.items()):
                    rc = proc.poll()
                    if rc is None:
                        continue
                    if rc == 0:
                        del procs[i]
                    elif rc < 0:  # killed: a supervisor would restart it
                        log.warning("job %s: worker %s killed by signal %d; restarting it",
                                    self.name, ids[i], -rc)
                        procs[i] = start(i)
                    else:
                        raise ExecutionError(_worker_failure(os.path.join(reports, f"w{i}"), ids[i], rc))
        finally:
            for proc in procs.values():
                if proc.poll() is None:
                    proc.terminate()
            for proc in procs.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(30)
            shutil.rmtree(reports, ignore_errors=True)

    def _props(self) -> dict[str, Any]:
        exchanges = self._exchange_sinks()
        if exchanges:
            return librdkafka_props(exchanges[0].table.options)
        tables = [n.table for s in self.stages for n in walk(s.roots) if hasattr(n, "table")]
        for t in tables:
            if "properties.bootstrap.servers" in t.options:
                return librdkafka_props(t.options)
        msg = f"Job '{self.name}': workers need a Kafka table's brokers to form their group"
        raise ConfigError(msg)

    def _exchange_sinks(self) -> list[ExchangeSinkNode]:
        return [n for s in self.stages for n in walk(s.roots) if isinstance(n, ExchangeSinkNode)]

    def reset(self, replaced: bool = False) -> None:
        """Delete what the finished job leaves: exchange topics, progress groups, task folders.

        Before a restore (another parallelism), also what the stopped run's tasks leave that this
        run's do not replace: the progress groups of the tasks ``_tasks`` names, and their
        transactional ids fenced (an open transaction aborted: :func:`abort_lingering`).
        ``replaced``: a single-process run replaces this one (:func:`reset_parallel_run`): every
        task's id is fenced, none is opened again.

        Raises:
            JobRunningError: a run of another checkpoint folder marks one of the tasks' ids
                (:func:`~streamsql.connectors.kafka.liveness.runs_elsewhere`): nothing is deleted.
        """
        exchanges = self._exchange_sinks()
        # the tasks' transactional id prefix: their exactly-once Kafka sinks' (an exchange takes it
        # from them; a job of one stage has no exchange, and the default prefix missed its groups)
        tables = [n.table for s in self.stages for n in walk(s.roots)
                  if isinstance(n, (ExchangeSinkNode, SinkNode))]
        prefixes = {t.options.get("sink.transactional-id-prefix") or DEFAULT_PREFIX for t in tables}
        # a task's id joins the prefixes of its exactly-once sinks (transaction_prefix)
        # (a task's: its stage's sinks and exchanges; a single-process run's: all the job's sinks)
        cfg = self.config.as_dict()
        prefixes |= {nodes_transaction_prefix(list(walk(s.roots)), cfg) for s in self.stages}
        prefixes.add(nodes_transaction_prefix([n for s in self.stages for n in walk(s.roots)
                                                if not isinstance(n, ExchangeSinkNode)], cfg))
        # the tasks of this run and of the run _tasks names: after a restore at a lower parallelism,
        # the old run's tasks beyond it kept their committed ids, which a later run's task of that
        # index took for its own; a single-process run (named as the job) commits as task 0
        recorded = (self.files.read_file(TASKS_FILE) or b"").decode().split("\n")
        single = self.name in recorded
        names = {t.name for t in self.tasks} | {f"{n}-0" if n == self.name else n for n in recorded if n}
        prefixes = sorted(prefixes or {DEFAULT_PREFIX})
        groups = [f"{prefix}-{n}-progress" for prefix in prefixes for n in sorted(names)]
        # the old tasks this run has not: nobody else fences them, and a transaction one left open
        # held back the read_committed readers of what it wrote (this run's output) for 15 min
        gone = sorted(names if replaced else names - {t.name for t in self.tasks})
        # nothing of the job's on Kafka is deleted or fenced while a run of another checkpoint
        # folder holds one of its ids (the same script run from another working folder)
        ids = [f"{prefix}-{n}" for prefix in prefixes for n in sorted(names)]
        folder = self.files.folder
        found = runs_elsewhere(self._props(), ids, this_run(folder), f"Job '{self.name}'")
        if any(found.values()):
            raise running_elsewhere_error(self.name, found, folder)
        abort_lingering(self._props(), [f"{prefix}-{n}" for prefix in prefixes for n in gone])
        topics = [n.exchange.topic for n in exchanges] + [task_topic(self.name)]
        delete_exchanges(self._props(), topics, groups)  # the workers' group has no offsets to forget
        store, key = self.files.files, self.files.job_key
        if single:  # its commit point without a Kafka transaction (its checkpoints and savepoints stay)
            store.delete(f"{key}/_committed")
        for name in store.list(key):
            if name.startswith("stage") and "-task" in name:
                store.delete(f"{key}/{name}")
        store.delete(f"{key}/{TASKS_FILE}")
        store.delete(f"{key}/{ASSIGNMENT_FILE}")
        store.delete(f"{key}/{RESTORED_FILE}")
        store.delete(f"{key}/{FINISHED_MARKER}")
        log.info("job %s: finished; exchanges and task checkpoints removed", self.name)

    def savepoint(self) -> str:
        """After :meth:`stop`: copy every task's final checkpoint into a savepoint; its location.

        Raises:
            ExecutionError: tasks run in worker processes, or one took no final checkpoint.
        """
        if self.role.command or self.role.worker_id is not None:
            msg = (f"Job '{self.name}': STOP JOB ... WITH SAVEPOINT reaches the tasks of this process only; "
                   "its tasks run in worker processes")
            raise ExecutionError(msg)
        digest = self.identity.digest if self.identity else ""
        return write_savepoint(self.files, self.tasks, digest, self.config.choice("state.backend.type"))

    def cancel(self) -> None:
        """Cancel every task (no final checkpoint), and the drain of a restore in progress."""
        self._cancel.set()
        draining = self._draining
        if draining is not None:
            draining.cancel()
        for t in self.tasks:
            t.cancel()

    def stop(self) -> None:
        """Stop every task after a final checkpoint of each, draining the exchanges.

        Only the source stages' tasks are told; a downstream task stops once it read the stop
        record of every upstream task (:meth:`TaskRunner._stopping`), so the final checkpoints
        leave nothing in flight (a savepoint, :mod:`streamsql.runtime.savepoint`).
        """
        sources = {s.id for s in self.stages if not s.inputs}
        token = uuid.uuid4().hex.encode()  # this stop's: an interrupted earlier stop's records are stale
        for t in self.tasks:
            t.stop_token = token
        for t in self.tasks:
            if t.slot.stage in sources:
                t.stop()
