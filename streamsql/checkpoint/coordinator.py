"""The checkpoint coordinator (Flink's JobManager role) for one job.

One checkpoint in flight at a time. Checkpoint n:

1. **trigger** — barrier n is requested: each source driver injects it at its next turn
   (:meth:`CheckpointCoordinator.requested_barrier`) and records its position, so barriers
   really do arrive at different times on different inputs;
2. **snapshot** — each task, once barrier n is aligned on its inputs, flushes its operator's
   buffers into keyed state and acknowledges (sinks pre-commit); when the last task has
   acknowledged, the job's state backend is snapshotted into ``chk-n/state/`` (each
   operator's state as of its own barrier: see :mod:`streamsql.runtime.job_state`);
3. **complete** — wait until every pipelined sink has flushed its barrier (a sink thread
   pre-commits in order with its writes, :mod:`streamsql.runtime.sink_stage`), then write
   ``chk-n/_metadata``;
4. **commit** — the commit point: the job's committer commits (the Kafka transaction, whose
   offset commit names the checkpoint, or the ``_committed`` file). ``_metadata`` and the commit
   carry one random ``uid`` per checkpoint (:data:`UID_KEY`), so a restart can tell the commit of
   this very ``chk-n`` from another folder's commit of its own checkpoint ``n`` under the same
   Kafka transactional id (:func:`streamsql.checkpoint.identity.check_commit_is_ours`);
5. **notify** — sinks learn that n committed; old checkpoints are pruned.

With ``asynchronous`` (the pipelined hot path) phases 3 and 4 run on a commit thread while the
job thread goes on (:mod:`.background` says why that keeps exactly-once); phase 5 runs on the
job thread once they returned. The final checkpoint, and a caller that asks to ``wait``,
complete before :meth:`CheckpointCoordinator.maybe_complete` returns.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Protocol

from streamsql.checkpoint.background import AHEAD_S, BackgroundCommit
from streamsql.checkpoint.operators import ASSIGNMENT_KEY, mark_layouts, recordable
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.core.connector import Committer
from streamsql.core.errors import ExecutionError
from streamsql.core.faults import fault_point

log = logging.getLogger(__name__)

#: How often a job thread waiting for a commit looks whether the job was cancelled (s).
ABORT_POLL_S = 0.1


class StateSnapshots(Protocol):
    """The job's keyed state as the coordinator snapshots it (one backend per job instance)."""

    def barrier(self, task_id: str) -> None:
        """Task ``task_id`` acknowledged the pending checkpoint."""

    def snapshot(self, directory: str) -> int:
        """Snapshot all state into ``directory`` (must not exist); returns its size in bytes."""

    def release(self) -> None:
        """The pending checkpoint failed: stop holding anything back for it."""


#: The key of a checkpoint's random id in its ``_metadata`` and in the metadata its commit gets.
UID_KEY = "uid"
#: The key of the committer's commit point (its Kafka transactional id) in a checkpoint's ``_metadata``.
COMMIT_POINT_KEY = "commit_point"


class LocalCommitter:
    """Commits by atomically writing ``_committed`` (jobs without a transactional sink)."""

    #: The folder's own file is the commit point: a commit of it is always this folder's (no uid).
    committed_uid = None
    commit_point = None

    def __init__(self, storage: CheckpointStorage):
        self.storage = storage

    def last_committed(self) -> int | None:
        """The id in ``_committed`` (None after a finished job)."""
        return self.storage.local_committed()

    def release_commit_point(self, other: str) -> None:
        """Nothing: a restored checkpoint's Kafka transactions are no concern of the folder's file."""

    def commit(self, checkpoint_id: int, metadata: dict) -> None:
        """Write ``_committed``."""
        self.storage.mark_committed(checkpoint_id, bool(metadata.get("final")))


@dataclass
class CheckpointStats:
    """What the job handle and CLI report about a checkpoint.

    Attributes:
        checkpoint_id: n.
        trigger_time: ms since the epoch.
        duration_ms: trigger → committed.
        alignment_ms: first → last task acknowledgement (time barriers spent aligning).
        state_bytes: snapshot size in bytes by what was snapshotted (``state``: the job's backend).
        positions: source positions per source id.
        status: in_progress, committed, failed.
    """

    checkpoint_id: int
    trigger_time: int
    duration_ms: int = 0
    alignment_ms: int = 0
    state_bytes: dict[str, int] = field(default_factory=dict)
    positions: dict[str, Any] = field(default_factory=dict)
    status: str = "in_progress"

    @property
    def size_bytes(self) -> int:
        """Total snapshot size in bytes."""
        return sum(self.state_bytes.values())

    def summary(self) -> str:
        """One line: ``#7 committed in 12 ms, 4.1 KiB, alignment 0 ms``."""
        return (f"#{self.checkpoint_id} {self.status} in {self.duration_ms} ms, "
                f"{self.size_bytes / 1024:.1f} KiB, alignment {self.alignment_ms} ms")


class CheckpointCoordinator:
    """Triggers, tracks and commits checkpoints of one job (see module docstring).

    The job builder creates it before the tasks and source drivers, which get it as their
    checkpoint listener; it knows them by id only.

    Args:
        storage: the job's checkpoint folder.
        committer: the commit point.
        interval_ms: ``'execution.checkpointing.interval'`` (0 = only the final checkpoint).
        task_ids: the tasks that must acknowledge each checkpoint.
        state: the job's keyed state, snapshotted once every task acknowledged (None: stateless).
        commit_listeners: called with n once checkpoint n is committed (sinks' ``commit``).
        min_pause_ms: least time between one checkpoint's end and the next trigger.
        timeout_ms: a checkpoint not complete by then fails.
        tolerable_failures: consecutive failed checkpoints tolerated before the job fails.
        num_retained: committed checkpoints kept.
        first_id: the next checkpoint id (continues after a restore).
        operators: the signature of each operator's state, by operator id
            (:mod:`streamsql.plan.state_signature`), recorded in every checkpoint's ``_metadata``
            so that a restore can tell whether its plan means the same by that state
            (:mod:`streamsql.checkpoint.operators`).
        pre_commits: called with n before the commit point; each returns once a sink that
            pre-commits on a thread of its own flushed barrier n (raises its failure).
        asynchronous: commit on a commit thread (module docstring).
        name: the job's name (the commit thread's).
        key_groups: a parallel task's run's key-group assignment, recorded in every ``_metadata``
            (:func:`~streamsql.checkpoint.operators.mark_layouts`); None for a single-process job.
    """

    def __init__(self, storage: CheckpointStorage, committer: Committer, interval_ms: int, *,
                 task_ids: list[str] = (), state: StateSnapshots | None = None,
                 commit_listeners: list[Callable[[int], None]] = (), min_pause_ms: int = 0,
                 timeout_ms: int = 600_000, tolerable_failures: int = 0, num_retained: int = 1,
                 first_id: int = 1, operators: dict[str, dict] | None = None,
                 pre_commits: list[Callable[[int], None]] = (), asynchronous: bool = False,
                 name: str = "job", key_groups: int | None = None):
        self.storage = storage
        self.committer = committer
        self.interval_ms = interval_ms
        self.min_pause_ms = min_pause_ms
        self.timeout_ms = timeout_ms
        self.tolerable_failures = tolerable_failures
        self.num_retained = num_retained
        self.next_id = first_id
        self._token = uuid.uuid4().hex  # this attempt's name in its checkpoints' claims
        self.pending: CheckpointStats | None = None
        self.last_completed: CheckpointStats | None = None
        self.history: list[CheckpointStats] = []
        self._last_end = time.monotonic() * 1000
        self._trigger_mono = 0.0
        self._acks: set[str] = set()
        self._first_ack = 0.0
        self._failures = 0
        self._requested: int | None = None
        self.task_ids = list(task_ids)
        self.state = state
        self.commit_listeners = list(commit_listeners)
        self.operators = dict(operators or {})
        self.pre_commits = list(pre_commits)
        self.asynchronous = asynchronous
        self.name = name
        self.key_groups = key_groups
        # what every ``_metadata`` records: the same for each checkpoint of the run, so built once
        # (a bit-reversed run rebuilt every operator's signature at each checkpoint)
        self._recorded_operators = mark_layouts(recordable(self.operators), key_groups)
        self._commit: BackgroundCommit | None = None  # phases 3-4 of ``pending`` in flight
        self._aborted = threading.Event()  # the job is cancelled: stop waiting for a commit

    # -- 1. trigger ---------------------------------------------------------------------------
    def due(self) -> bool:
        """True when a periodic checkpoint should start now."""
        if self.pending is not None or self.interval_ms <= 0:
            return False
        now = time.monotonic() * 1000
        return now - self._last_end >= max(self.interval_ms, self.min_pause_ms)

    def trigger(self) -> int:
        """Start checkpoint n: sources will inject barrier n at their next turn.

        n is the next id this attempt claims (:meth:`.CheckpointStorage.claim`): ``next_id``,
        or the first free id above it when another attempt holds that one.
        """
        n = self.storage.claim(self.next_id, self._token)
        self.next_id = n + 1
        self.pending = CheckpointStats(n, int(time.time() * 1000))
        self._trigger_mono = time.monotonic()
        self._acks = set()
        self._requested = n
        log.debug("checkpoint %d triggered", n)
        return n

    def requested_barrier(self) -> int | None:
        """The last triggered checkpoint (each source injects its barrier once), or None."""
        return self._requested

    def record_position(self, checkpoint_id: int, source_id: str, position: Any) -> None:
        """A source injected barrier ``checkpoint_id`` at ``position``."""
        if self.pending and self.pending.checkpoint_id == checkpoint_id:
            self.pending.positions[source_id] = position

    # -- 2. snapshot ---------------------------------------------------------------------------
    def acknowledge(self, checkpoint_id: int, task_id: str) -> None:
        """Task ``task_id`` aligned barrier ``checkpoint_id``; the last one snapshots the state."""
        p = self.pending
        if p is None or p.checkpoint_id != checkpoint_id or task_id in self._acks:
            return
        if not self._acks:
            self._first_ack = time.monotonic()
        if self.state is not None:
            self.state.barrier(task_id)
        self._acks.add(task_id)
        if len(self._acks) == len(self.task_ids):
            p.alignment_ms = int((time.monotonic() - self._first_ack) * 1000)
            if self.state is not None:
                p.state_bytes["state"] = self.storage.save_state(checkpoint_id, self.state.snapshot)

    # -- 3..5. complete, commit, notify --------------------------------------------------------
    def maybe_complete(self, final: bool = False, wait: bool = False) -> CheckpointStats | None:
        """Complete and commit the pending checkpoint if every task acknowledged it.

        Asynchronous: the first call after the last acknowledgement starts the commit thread
        and returns None; a later call finishes (phase 5) once the commit returned, and waits
        for it once it has been in flight for :data:`~.background.AHEAD_S`.

        Args:
            final: this is the last checkpoint of a finished job (a rerun starts afresh); it
                completes before the call returns.
            wait: complete before returning, also asynchronously (a commit in flight included).

        Raises:
            ExecutionError: when more consecutive checkpoints failed than tolerated.
            BaseException: the commit's failure (also from the commit thread).
        """
        p = self.pending
        if p is None:
            return None
        if self._commit is None:
            if len(self._acks) < len(self.task_ids):
                if (time.monotonic() - self._trigger_mono) * 1000 > self.timeout_ms:
                    self._fail(p, "timed out")
                return None
            if not self.asynchronous or final:
                self._commit_point(p, final)
                return self._notify(p)
            self._commit = BackgroundCommit(p.checkpoint_id, lambda: self._commit_point(p, final), self.name)
        behind = time.monotonic() - self._commit.started > AHEAD_S  # the job went on long enough
        if not self._await(self._commit, wait or final or behind):
            return None
        commit, self._commit = self._commit, None
        commit.outcome()
        return self._notify(p)

    def _await(self, commit: BackgroundCommit, block: bool) -> bool:
        """True once ``commit`` returned; ``block``: wait for it, until :meth:`abort`.

        Raises:
            ExecutionError: the job was cancelled (:meth:`abort`) while it waited.
        """
        if not block:
            return commit.done(0.0)
        while not commit.done(ABORT_POLL_S):
            if self._aborted.is_set():
                msg = f"Job '{self.name}' cancelled while checkpoint {commit.checkpoint_id} was committing"
                raise ExecutionError(msg)
        return True

    def abort(self) -> None:
        """From any thread (a cancel): the job thread stops waiting for a commit in flight.

        The commit itself goes on until its sinks' flushes give up (their own ``abort``) or it
        returns; :meth:`close` still waits for it before any producer closes.
        """
        self._aborted.set()

    def _commit_point(self, p: CheckpointStats, final: bool) -> None:
        """Phases 3 and 4 (on the commit thread when asynchronous)."""
        n = p.checkpoint_id
        # 3. the sinks' flushes of barrier n, then the metadata (durable before the commit point,
        # so a committed id always has it)
        for flushed in self.pre_commits:
            flushed(n)
        uid = uuid.uuid4().hex
        metadata = {"checkpoint_id": n, "trigger_time": p.trigger_time, "positions": p.positions,
                    "state_bytes": p.state_bytes, "operators": self._recorded_operators, UID_KEY: uid,
                    COMMIT_POINT_KEY: getattr(self.committer, "commit_point", None)}
        if self.key_groups is not None:
            metadata[ASSIGNMENT_KEY] = self.key_groups
        self.storage.write_metadata(n, metadata)
        fault_point("after_snapshot_before_commit")
        # 4. the commit point
        self.committer.commit(n, {"positions": p.positions, "final": final, UID_KEY: uid})
        fault_point("after_commit_before_bookkeeping")

    def _notify(self, p: CheckpointStats) -> CheckpointStats:
        """Phase 5 (on the job thread): notify, prune, account."""
        n = p.checkpoint_id
        for fn in self.commit_listeners:
            fn(n)
        self.storage.prune(n, self.num_retained)
        p.status = "committed"
        p.duration_ms = int((time.monotonic() - self._trigger_mono) * 1000)
        self.last_completed = p
        self.history = (self.history + [p])[-20:]
        self.pending = None
        self._failures = 0
        self._last_end = time.monotonic() * 1000
        log.info("job %s: checkpoint %s", self.name, p.summary())
        return p

    def close(self) -> None:
        """Wait for a commit in flight (before the job closes its sinks' producers); never raises."""
        if self._commit is not None:
            self._commit.join()

    def _fail(self, p: CheckpointStats, why: str) -> None:
        if self.state is not None:
            self.state.release()
        p.status = "failed"
        self.history = (self.history + [p])[-20:]
        self.pending = None
        self._failures += 1
        self._last_end = time.monotonic() * 1000
        if self._failures > self.tolerable_failures:
            msg = (f"Checkpoint {p.checkpoint_id} {why}; exceeded "
                   f"'execution.checkpointing.tolerable-failed-checkpoints' = {self.tolerable_failures}")
            raise ExecutionError(msg)

    def stats(self) -> dict:
        """The last completed checkpoint as a dict (for job handles and SHOW JOBS)."""
        return asdict(self.last_completed) if self.last_completed else {}
