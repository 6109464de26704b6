"""Jobs: run a plan's graph (built by :mod:`streamsql.runtime.builder`) under checkpoints.

Each attempt builds a fresh graph; a failure restarts the job per the restart strategy.

A job's operators run in one thread: its loop gives each source a turn (inject a requested
barrier, then poll a batch and push it through the tasks below), completes checkpoints whose
barriers have passed every task, and triggers the next one when due. Kafka sources fetch and
decode, Kafka sinks encode, produce and flush, and checkpoints commit, on threads of their own
(the pipelined hot path: :mod:`streamsql.runtime.prefetch`, :mod:`streamsql.runtime.sink_stage`,
:mod:`streamsql.checkpoint.background`). A job whose sources are all bounded
ends with: end of input (final watermark, operators flush) → a final checkpoint → commit.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
import time
import traceback
import uuid
import weakref
from typing import Any, Callable

from streamsql.checkpoint.coordinator import COMMIT_POINT_KEY, CheckpointCoordinator
from streamsql.checkpoint.identity import (
    TASKS_FILE,
    JobIdentity,
    JobIdentityError,
    RestorePoint,
    check_commit_is_ours,
    check_tasks,
)
from streamsql.checkpoint.operators import check_assignment, claim_state, ignore_unclaimed, pruned_upgrades
from streamsql.checkpoint.storage import SAVEPOINT_MARKER, CheckpointStorage
from streamsql.core.config import Config
from streamsql.core.errors import (
    ExecutionError,
    FencedError,
    JobRunningError,
    JobSetupError,
    LostCheckpointError,
    StreamSQLError,
    user_text,
)
from streamsql.plan.nodes import PlanNode
from streamsql.plan.state_signature import recorded_signatures
from streamsql.runtime.builder import JobGraph, build_job
from streamsql.runtime.handoff import Handoff
from streamsql.runtime.memory import limit_malloc_arenas, use_system_allocator
from streamsql.runtime.restart import create_strategy
from streamsql.runtime.savepoint import merge_savepoint
from streamsql.runtime.task import Task
from streamsql.state.layout import StateFormatError

log = logging.getLogger(__name__)


#: How long :meth:`JobHandle.stop` waits for the job's final checkpoint by default (s): Flink's
#: ``'client.timeout'``, which STOP JOB ... WITH SAVEPOINT reads from the session.
STOP_TIMEOUT_S = 60.0

class JobRunner:
    """Runs one job to completion, cancellation or failure (see module docstring).

    Args:
        name: ``'pipeline.name'``; checkpoints and transactional ids derive from it.
        roots: the plan's sink nodes.
        config: engine settings in force when the job was submitted.
        identity: the job's fingerprint: binds its checkpoint folder (locked while it runs) and
            decides what it restores; None (a query's job) restores its own folder unchecked.
    """

    #: The last checkpoint of a finished job is marked final (a rerun starts afresh); a task of
    #: a parallel job leaves that to the job, which resets all its tasks at once.
    final_marks_done = True

    def __init__(self, name: str, roots: list[PlanNode], config: Config, identity: JobIdentity | None = None):
        self.name = name
        self.roots = roots
        self.config = config
        self.identity = identity
        self.metrics: dict[str, Any] = {"rows_in": 0, "rows_out": 0, "restarts": 0, "bad_records": 0}
        self._cancel = threading.Event()
        self._stop = threading.Event()
        self.coordinator: CheckpointCoordinator | None = None
        self._graph: JobGraph | None = None  # the attempt running now (a cancel aborts its waits)
        #: The job's event time (:func:`low_watermark` of its graph, ms; None before any) and as text.
        self.event_time_ms: int | None = None
        self.watermark: str | None = None
        self.restored_from: int | None = None
        #: True while the job waits to restart after a failure (status RESTARTING).
        self.restarting = False
        #: The last failure the restart strategy restarted the job after (its text), or None.
        self.last_failure: str | None = None
        #: True once the final checkpoint of the finished job committed (marked final).
        self._finished = False
        self._handoff = Handoff()  # other threads' calls on the running graph (:meth:`ask`)
        self._polling = False  # the job thread runs the loop, which serves them
        #: Drawn once per submission, shared by the job's tasks and restarts
        #: (:attr:`~streamsql.core.connector.ConnectorContext.job_uuid`); a parallel job's runner
        #: gives its tasks its own.
        self.file_uuid = str(uuid.uuid4())
        #: ``(parallelism) -> None``: reset this job's unfinished parallel run of that parallelism
        #: (set by the environment; see :meth:`_replace_stopped_parallel_run`)
        self.reset_parallel_run: Callable[[int], None] | None = None

    def _restore(self, graph: JobGraph) -> dict[str, Any]:
        coord = graph.coordinator
        committed = coord.committer.last_committed()
        own = coord.storage
        if self.identity is not None:  # a parallel job's savepoint restores merged into one task
            sources, scratch = {s.source_id for s in graph.sources}, self.config.get("state.dir")
            key = self.identity.recovery_key  # the setting that named the savepoint, for messages
            self.identity.merge_savepoint = lambda path, files: merge_savepoint(path, files, sources, scratch,
                                                                                key)
        point = (self.identity.restore_point(own, committed) if self.identity
                 else RestorePoint.own(own, committed))
        own.discard_after(point.keep)
        coord.next_id = point.next_id  # above every id present before the discard, a fresh start too
        storage, n = point.storage, point.checkpoint_id
        if n is None:
            return {}
        meta = storage.read_metadata(n)
        if meta is None:
            msg = f"Job '{self.name}': {storage.missing_message(n)}"
            raise LostCheckpointError(msg)
        if n == committed and storage is own:  # resuming the commit point's checkpoint: is it this one?
            check_commit_is_ours(self.name, own, n, meta, getattr(coord.committer, "committed_uid", None))
        if meta.get(COMMIT_POINT_KEY):  # committed elsewhere (another name or prefix): end what it left open
            coord.committer.release_commit_point(meta[COMMIT_POINT_KEY])
        positions = restore_claimed(graph, storage, n, meta, self.name, self.config)
        coord.last_completed = None
        self.restored_from = n
        log.info("job %s restored checkpoint %d", self.name, n)
        return positions

    def _replace_stopped_parallel_run(self, files: CheckpointStorage) -> None:
        """Reset the unfinished parallel run of this job when it restores a parallel job's savepoint.

        As a parallel job resets itself before it applies a savepoint (its exchange topics, task
        folders and ``_tasks``: :meth:`.ParallelJobRunner.reset`), the savepoint's state replaces
        the run it was taken from; without the reset, that run's ``_tasks`` would refuse this one,
        and its exchange topics would still hold records a later run would read from the start.
        """
        path = self.identity.recovery_path if self.identity else None
        theirs = files.read_file(TASKS_FILE)
        if not path or self.reset_parallel_run is None or theirs is None or theirs.decode() == self.name:
            return
        marker = files.at(path).read_file(SAVEPOINT_MARKER)
        if marker is None or not marker.strip():  # not a parallel job's savepoint
            return
        tasks = theirs.decode().split("\n")
        self.reset_parallel_run(1 + max(int(t.rpartition("-")[2]) for t in tasks))
        log.info("job %s: the unfinished parallel run of %d tasks was reset for savepoint %s", self.name,
                 len(tasks), path)

    # -- running -------------------------------------------------------------------------------
    def run(self) -> None:
        """Run until the job finishes, is cancelled or fails beyond the restart strategy.

        With an identity, the job's checkpoint folder is locked the whole time.

        Raises:
            StreamSQLError: the failure that ended the job (JobIdentityError, never retried: the
                folder is locked by another job, or holds another job's checkpoint; ConfigError:
                the folder holds an unfinished parallel run, :func:`check_tasks`).
        """
        if self.identity is None:
            self._run_attempts()
            return
        files = CheckpointStorage(self.config.get("execution.checkpointing.dir"), self.name,
                                  self.config.as_dict())
        with self.identity.lock(files.lock_dir):
            self._replace_stopped_parallel_run(files)
            # One task, named as the job: an unfinished parallel run under this name refuses it
            # (it would read the sources again from the start), and a parallel run refuses ours.
            self.identity.resuming_run = check_tasks(files, self.name, [self.name])
            if not self.identity.resuming_run:
                files.write_file(TASKS_FILE, self.name.encode())
            self._run_attempts()
            if self._finished:
                files.delete_file(TASKS_FILE)

    def _run_attempts(self) -> None:
        limit_malloc_arenas()
        use_system_allocator()
        strategy = create_strategy(self.config)
        while True:
            try:
                self._run_once()
                return
            except (JobIdentityError, FencedError, JobSetupError, StateFormatError, LostCheckpointError,
                    JobRunningError):
                raise  # another job's checkpoint, a newer instance took over, options that cannot
                # run together, restored state of another format (it is restored again), a committed
                # checkpoint's files gone, another folder's run of the job: restarting cannot help
            except Exception as e:
                if self._cancel.is_set():
                    return
                delay = strategy.next_delay(time.monotonic())
                if delay is None:
                    raise
                self.metrics["restarts"] += 1
                self.last_failure = user_text(e)
                # Flink logs each restart with its cause; a failure that recurs (a bad record under
                # 'fail') restarts on, so the cause must be where the user looks: the log (stderr of
                # `streamsql run`), SHOW JOBS (RESTARTING) and DESCRIBE JOB ("Last failure").
                log.warning("job %s failed: %s; restarting in %.1f s (%s)", self.name, self.last_failure,
                            delay, strategy.describe())
                if self._wait_to_restart(delay):
                    return

    def _wait_to_restart(self, delay: float) -> bool:
        """Wait ``delay`` seconds as RESTARTING; True when cancelled or stopped meanwhile.

        A stop (STOP JOB) of a job waiting to restart ends it as cancelled: no task runs that
        could take a final checkpoint.
        """
        self.restarting = True
        try:
            deadline = time.monotonic() + delay
            while not self._cancel.wait(min(0.1, max(0.0, deadline - time.monotonic()))):
                if self._stop.is_set():
                    self._cancel.set()
                    break
                if time.monotonic() >= deadline:
                    return False
            return True
        finally:
            self.restarting = False

    def _run_once(self) -> None:
        workdir = os.path.join(self.config.get("state.dir"), _safe(self.name), uuid.uuid4().hex[:8])
        graph = self._build(workdir)
        self.coordinator = graph.coordinator
        self._graph = graph
        if self._cancel.is_set():  # cancelled while it was built: cancel() saw no graph to abort
            graph.abort()
        try:
            positions = self._restore(graph)
            for sink in graph.sinks:  # a sink's own state (the filesystem sink's files)
                sink.restore(positions)
            for s in graph.sources:
                s.open(positions.get(s.source_id))
            self._polling = True
            self._loop(graph)
        finally:
            self._polling = False
            self._graph = None
            graph.close()

    def _build(self, workdir: str) -> JobGraph:
        identity = self.identity
        if identity is None:
            return build_job(self.name, self.roots, self.config, self.metrics, workdir,
                             job_uuid=self.file_uuid)
        own = CheckpointStorage(self.config.get("execution.checkpointing.dir"), self.name,
                                self.config.as_dict())

        def guard(committed: int | None) -> None:  # another folder's running job: refused, not fenced
            identity.check_before_fencing(own, committed)

        return build_job(self.name, self.roots, self.config, self.metrics, workdir, before_fencing=guard,
                         run_folder=own.folder, job_uuid=self.file_uuid)

    def _loop(self, graph: JobGraph) -> None:
        coord = graph.coordinator
        sources = graph.sources
        tickers = [t for t in graph.tasks if t.operator.wants_ticks]
        tick_s = max(1, self.config.duration("pipeline.auto-watermark-interval")) / 1000
        next_tick = time.monotonic() + tick_s
        while not self._cancel.is_set():
            busy = False
            for s in sources:
                if s.ended:  # an ended source still forwards barriers, at once
                    s.inject_barrier()
            live = [s for s in sources if not s.ended]
            for s in live:
                busy |= s.step(0.0 if busy else (0.01 if len(live) > 1 else 0.05))
            if tickers and time.monotonic() >= next_tick:  # processing-time work (idle splits)
                for t in tickers:
                    t.tick()
                next_tick = time.monotonic() + tick_s
            for sink in graph.sinks:  # a sink thread's failure, also while no row comes
                sink.raise_failure()
            self.metrics["rows_in"] = sum(s.rows for s in sources)
            self.event_time_ms = low_watermark(graph.tasks)
            self.watermark = format_event_time(self.event_time_ms)
            if self._handoff:
                self._handoff.serve(graph)
            coord.maybe_complete()
            if all(s.ended for s in sources):
                self._final_checkpoint(graph, final=self.final_marks_done)
                return
            if self._stopping(graph):
                self._final_checkpoint(graph, final=False)
                return
            if coord.due():
                coord.trigger()
            if not busy and len(live) > 1:
                time.sleep(0.01)

    def ask(self, fn: Callable[[JobGraph], Any], timeout_s: float) -> Any:
        """``fn(graph)`` made on the job thread between polls, from any thread; its result.

        The graph's sources belong to the job thread (:mod:`streamsql.runtime.handoff`). None
        when the job is not polling, or does not answer within ``timeout_s`` seconds.
        """
        return self._handoff.call(fn, timeout_s) if self._polling else None

    def _stopping(self, graph: JobGraph) -> bool:
        """True when the job is to stop after a final checkpoint (:meth:`stop` was called)."""
        return self._stop.is_set()

    def _final_checkpoint(self, graph: JobGraph, final: bool) -> None:
        coord = graph.coordinator
        if coord.pending is not None:  # let the one in flight finish first (its commit too)
            for s in graph.sources:
                s.inject_barrier()
            coord.maybe_complete(wait=True)
        coord.trigger()
        for s in graph.sources:
            s.inject_barrier()
        if coord.maybe_complete(final=final, wait=True) is None:
            msg = f"Job '{self.name}': the final checkpoint did not complete"
            raise ExecutionError(msg)
        self._finished = final

    def cancel(self) -> None:
        """Stop as soon as possible, without a final checkpoint (Flink's cancel).

        The running attempt's waits on the outside world give up (:meth:`JobGraph.abort`): a
        write blocked by a full sink queue under backpressure, a barrier's flush, the wait for a
        checkpoint's commit. A commit already inside its last Kafka call still returns first.
        """
        self._cancel.set()
        graph = self._graph
        if graph is not None:
            graph.abort()

    def stop(self) -> None:
        """Stop after a final checkpoint (Flink's stop-with-savepoint, without draining)."""
        self._stop.set()


#: Started jobs, cancelled at interpreter exit if still running (:func:`_cancel_running`).
_STARTED: weakref.WeakSet[JobHandle] = weakref.WeakSet()
_AT_EXIT = threading.Lock()
_exit_hook: list = []  # the registered hook, once
#: How long interpreter exit waits for the jobs it cancels, in all (s).
EXIT_CANCEL_TIMEOUT_S = 30.0


def _cancel_at_exit(handle: JobHandle) -> None:
    """Have ``handle`` cancelled at interpreter exit if it still runs then.

    The hook is registered at the first job, so it runs before the ``atexit`` handlers of the
    modules imported before (they run last-registered first).
    """
    with _AT_EXIT:
        if not _exit_hook:
            _exit_hook.append(atexit.register(_cancel_running))
        _STARTED.add(handle)


def _cancel_running() -> None:
    """Cancel the jobs still running and wait (in all at most :data:`EXIT_CANCEL_TIMEOUT_S`) for them.

    A program may end without closing its environment (``StreamEnvironment.close``) while jobs
    run: their threads are daemons, and one inside native code (DuckDB checking a query, RocksDB,
    a Kafka client) when Python finalizes is cut short there and aborts the process ("terminate
    called after throwing an instance of ''", exit code 134). Cancelled first, as ``close`` does,
    they end before finalization.
    """
    running = [h for h in list(_STARTED) if not h.done]
    for h in running:
        h.runner.cancel()
    deadline = time.monotonic() + EXIT_CANCEL_TIMEOUT_S
    for h in running:
        h._await_end(max(0.0, deadline - time.monotonic()))


class JobHandle:
    """A submitted job: its status, metrics and checkpoints; wait on it, cancel or stop it.

    Status values: RUNNING, RESTARTING (waiting to restart after a failure), FINISHED, CANCELED,
    FAILED (Flink's names).
    """

    def __init__(self, runner: JobRunner, job_id: str | None = None):
        self.runner = runner
        self.job_id = job_id or uuid.uuid4().hex[:12]
        self.name = runner.name
        self.status = "CREATED"
        self.error: BaseException | None = None
        self.error_trace: str | None = None
        self.started = time.time()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._main, name=f"job-{self.name}", daemon=True)

    @property
    def status(self) -> str:
        """The job's status (class docstring); RESTARTING while a failed job waits to restart."""
        if self._status == "RUNNING" and getattr(self.runner, "restarting", False):
            return "RESTARTING"
        return self._status

    @status.setter
    def status(self, value: str) -> None:
        self._status = value

    def start(self) -> JobHandle:
        """Start the job thread; returns self."""
        self.status = "RUNNING"
        _cancel_at_exit(self)
        self._thread.start()
        return self

    def _main(self) -> None:
        try:
            self.runner.run()
            self.status = "CANCELED" if self.runner._cancel.is_set() else "FINISHED"
        except BaseException as e:  # the handle reports every failure
            self.error = e if isinstance(e, StreamSQLError) else ExecutionError(
                f"Job '{self.name}' failed: {user_text(e)}")
            self.error_trace = traceback.format_exc()
            self.status = "FAILED"
        finally:
            self._done.set()

    def wait(self, timeout: float | None = None) -> str:
        """Block until the job ends (or ``timeout`` seconds); return the status.

        Raises:
            StreamSQLError: the job's failure, if it failed.
        """
        self._await_end(timeout)
        if self.status == "FAILED" and self.error is not None:
            raise self.error
        return self.status

    def cancel(self) -> None:
        """Cancel without a final checkpoint and wait for the thread to end."""
        self.runner.cancel()
        if self._thread.ident is None:  # never started (interrupted before start()): nothing runs
            self.status = "CANCELED"
            self._done.set()
            return
        self._await_end(30)

    def stop(self, timeout_s: float = STOP_TIMEOUT_S) -> None:
        """Stop with a final checkpoint and wait (at most ``timeout_s``) for the thread to end.

        A job whose final checkpoint takes longer (a throttled or slow sink flushing the epoch)
        is still RUNNING when this returns; it ends once that checkpoint committed.
        """
        self.runner.stop()
        self._await_end(timeout_s)

    def _await_end(self, timeout: float | None) -> None:
        """Wait up to ``timeout`` seconds for the job to end, then for its thread to be gone.

        The thread's teardown frees its thread-locals (the DuckDB connection that checked the
        job's queries as it was built); left running at interpreter exit, that destructor is
        cut short there and aborts the process ("terminate called ...", exit code 134). The
        teardown takes milliseconds; the join is still bounded (5 s) because a join that a
        signal interrupted (Ctrl-C, or ``streamsql run``'s SIGINT on a job failure) can leave the
        thread unjoinable, and an unbounded join then hangs the process.
        """
        if self._done.wait(timeout):
            self._thread.join(5)

    @property
    def done(self) -> bool:
        """True once the job ended."""
        return self._done.is_set()

    @property
    def metrics(self) -> dict[str, Any]:
        """rows_in, rows_out, restarts, bad_records (rows; counts)."""
        return dict(self.runner.metrics)

    @property
    def tasks(self) -> list[dict[str, Any]]:
        """A parallel job's tasks: worker, status, rows in/out, last checkpoint, input lag.

        See :meth:`~streamsql.runtime.parallel.ParallelJobRunner.task_stats`; [] for a job that
        runs as one task.
        """
        stats = getattr(self.runner, "task_stats", None)
        return stats() if stats else []

    @property
    def watermark(self) -> str | None:
        """The job's current event time: the smallest watermark reaching its sinks.

        As ``YYYY-MM-DD HH:MM:SS.mmm`` (UTC), or None before any (or without a WATERMARK).
        """
        return self.runner.watermark

    @property
    def last_checkpoint(self) -> dict:
        """The last completed checkpoint: checkpoint_id, duration_ms, alignment_ms, state_bytes, ...

        A parallel job's: the newest one every task completed
        (:meth:`~streamsql.runtime.parallel.ParallelJobRunner.checkpoint_stats`).
        """
        c = self.runner.coordinator
        if c:
            return c.stats()
        tasks = getattr(self.runner, "checkpoint_stats", None)
        return tasks() if tasks else {}


def restore_claimed(graph: JobGraph, storage: CheckpointStorage, checkpoint_id: int, meta: dict, job: str,
                    config: Config) -> dict[str, Any]:
    """Restore checkpoint ``checkpoint_id`` into ``graph``: the state its plan claims; the source positions.

    Before anything is restored, the checkpoint's operator signatures are checked against the
    graph's (:func:`~streamsql.checkpoint.operators.claim_state`); state nothing claims fails the
    job, or with ``'execution.state-recovery.ignore-unclaimed-state'`` is dropped (as is a
    droppable operator's), and so are the positions of a source whose state is dropped. A GROUP
    BY's state written before its unread calls were pruned loses their accumulators
    (:func:`~streamsql.checkpoint.operators.pruned_upgrades`, ``graph.upgrades``).

    A parallel task's checkpoint must record the key-group assignment its run routes by
    (:func:`~streamsql.checkpoint.operators.check_assignment`).

    Raises:
        StateMappingError: checkpointed state the graph's plan does not claim, or a parallel task's
            written under another key-group assignment.
    """
    if graph.coordinator.key_groups is not None:
        check_assignment(meta, graph.coordinator.key_groups, storage.location(checkpoint_id), job)
    ignore = ignore_unclaimed(config.as_dict())
    recorded = recorded_signatures(meta.get("operators"))
    drop = claim_state(recorded, graph.coordinator.operators, location=storage.location(checkpoint_id),
                       job=job, ignore=ignore)
    if graph.state is not None:
        storage.restore_state(checkpoint_id, graph.state.restore)
        for op in drop:
            graph.state.keyed_state(op).clear()
        for op in pruned_upgrades(recorded, graph.coordinator.operators):
            if op not in drop:  # written before its unread calls were pruned: their accumulators go
                keys = graph.upgrades[op](graph.state.keyed_state(op))
                log.info("job %s: operator %s's state of %d keys restored without the calls it no longer "
                         "computes", job, op, keys)
    return {k: v for k, v in meta.get("positions", {}).items() if k not in drop}


def low_watermark(tasks: list[Task]) -> int | None:
    """The minimum watermark (ms) over the sink tasks (those with no downstream); None while one has none."""
    marks = [t.watermarks.current for t in tasks if not t.downstream]
    if not marks or any(m is None for m in marks):
        return None
    return min(marks)


def format_event_time(ms: int | None) -> str | None:
    """A watermark as ``YYYY-MM-DD HH:MM:SS.mmm`` (UTC); ``end of input`` for the final one; None for None."""
    import datetime as dt

    from streamsql.core.elements import MAX_WATERMARK

    if ms is None:
        return None
    if ms >= MAX_WATERMARK:
        return "end of input"
    return dt.datetime.fromtimestamp(ms / 1000, dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]


def _safe(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in name)
