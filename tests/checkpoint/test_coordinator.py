"""CheckpointCoordinator with a real CheckpointStorage and a small recording committer.

Timing is real (time.monotonic): intervals and pauses are either far longer than the test or
a few milliseconds it sleeps past, so each assertion holds on a loaded machine.
"""

import os
import time

import pytest

from streamsql.checkpoint.coordinator import CheckpointCoordinator, CheckpointStats, LocalCommitter
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.core import faults
from streamsql.core.errors import ExecutionError

LONG_MS = 600_000


class RecordingCommitter:
    """A committer that records each commit, with what was on disk at the commit point."""

    def __init__(self, storage: CheckpointStorage, events: list):
        self.storage = storage
        self.events = events
        self.commits: list[tuple[int, dict]] = []
        self.fail = False

    def last_committed(self) -> int | None:
        return self.commits[-1][0] if self.commits else None

    def commit(self, checkpoint_id: int, metadata: dict) -> None:
        if self.fail:
            msg = "transaction aborted"
            raise ExecutionError(msg)
        self.events.append(("commit", checkpoint_id, self.storage.checkpoint_ids(),
                            self.storage.read_metadata(checkpoint_id) is not None))
        self.commits.append((checkpoint_id, metadata))


class Sink:
    def __init__(self, events: list):
        self.events = events

    def commit(self, checkpoint_id: int) -> None:
        self.events.append(("notify", checkpoint_id))


class FakeState:
    """The job's state: records barriers, snapshots ``size`` bytes into the snapshot folder."""

    def __init__(self, size: int):
        self.size = size
        self.barriers: list[str] = []
        self.released = 0

    def barrier(self, task_id: str) -> None:
        self.barriers.append(task_id)

    def snapshot(self, path: str) -> int:
        os.makedirs(path)
        with open(os.path.join(path, "state"), "wb") as f:
            f.write(b"s" * self.size)
        return self.size

    def release(self) -> None:
        self.released += 1


@pytest.fixture
def storage(tmp_path):
    return CheckpointStorage(str(tmp_path), "job")


@pytest.fixture
def events():
    return []


@pytest.fixture
def committer(storage, events):
    return RecordingCommitter(storage, events)


def make(storage, committer, tasks=("a", "b"), state=None, sinks=(), interval_ms=LONG_MS, **kw):
    """A coordinator for tasks/state/sinks, as the job builder creates it."""
    return CheckpointCoordinator(storage, committer, interval_ms, task_ids=list(tasks), state=state,
                                 commit_listeners=[s.commit for s in sinks], **kw)


def run_checkpoint(coord, final=False):
    """Trigger, let every task acknowledge, complete."""
    n = coord.trigger()
    for t in coord.task_ids:
        coord.acknowledge(n, t)
    return coord.maybe_complete(final=final)


# -- trigger -----------------------------------------------------------------------------------

def test_trigger_asks_every_source_for_a_barrier_with_increasing_ids(storage, committer):
    coord = make(storage, committer, first_id=7)
    assert coord.requested_barrier() is None  # nothing triggered: sources inject nothing
    assert coord.trigger() == 7
    assert coord.requested_barrier() == 7  # what every source driver injects at its next turn
    assert coord.pending.checkpoint_id == 7 and coord.pending.status == "in_progress"
    assert coord.maybe_complete() is None  # not acknowledged yet: stays pending
    assert coord.pending.checkpoint_id == 7


def test_interval_zero_is_never_due(storage, committer):
    coord = make(storage, committer, interval_ms=0)
    time.sleep(0.01)
    assert not coord.due()


def test_due_after_the_interval(storage, committer):
    assert not make(storage, committer, interval_ms=LONG_MS).due()
    coord = make(storage, committer, interval_ms=5)
    time.sleep(0.02)
    assert coord.due()


def test_not_due_while_a_checkpoint_is_in_flight(storage, committer):
    coord = make(storage, committer, interval_ms=1)
    n = coord.trigger()
    time.sleep(0.01)
    assert not coord.due()  # one at a time
    for t in coord.task_ids:
        coord.acknowledge(n, t)
    coord.maybe_complete()
    time.sleep(0.01)
    assert coord.due()


def test_min_pause_longer_than_the_interval_decides(storage, committer):
    coord = make(storage, committer, interval_ms=1, min_pause_ms=LONG_MS)
    time.sleep(0.01)
    assert not coord.due()


def test_min_pause_counts_from_the_end_of_the_last_checkpoint(storage, committer):
    coord = make(storage, committer, interval_ms=1, min_pause_ms=300)
    n = coord.trigger()
    time.sleep(0.35)  # longer than the pause, counted from the trigger
    for t in coord.task_ids:
        coord.acknowledge(n, t)
    coord.maybe_complete()
    assert not coord.due()
    time.sleep(0.35)
    assert coord.due()


# -- acknowledge -------------------------------------------------------------------------------

def test_completes_only_when_every_task_acknowledged(storage, committer):
    coord = make(storage, committer, tasks=("a", "b", "c"))
    n = coord.trigger()
    coord.acknowledge(n, coord.task_ids[0])
    coord.acknowledge(n, coord.task_ids[0])  # a repeated acknowledgement counts once
    coord.acknowledge(n, coord.task_ids[1])
    assert coord.maybe_complete() is None
    assert committer.commits == []
    assert storage.read_metadata(n) is None
    coord.acknowledge(n, coord.task_ids[2])
    done = coord.maybe_complete()
    assert done.checkpoint_id == n and done.status == "committed"
    assert [c[0] for c in committer.commits] == [n]
    assert coord.pending is None


def test_acknowledgements_of_another_checkpoint_are_ignored(storage, committer):
    state = FakeState(10)
    coord = make(storage, committer, tasks=("a",), state=state)
    coord.acknowledge(1, coord.task_ids[0])  # nothing pending
    n = coord.trigger()
    coord.acknowledge(n + 1, coord.task_ids[0])
    coord.acknowledge(n - 1, coord.task_ids[0])
    assert coord.maybe_complete() is None
    assert coord.pending.state_bytes == {} and state.barriers == []
    assert not os.path.exists(storage.state_dir(n))


def test_the_last_acknowledgement_snapshots_the_state_into_the_checkpoint_folder(storage, committer):
    state = FakeState(123)
    coord = make(storage, committer, tasks=("agg", "sink"), state=state)
    n = coord.trigger()
    coord.acknowledge(n, coord.task_ids[0])
    assert state.barriers == ["agg"]  # agg's later writes wait for the snapshot
    assert not os.path.exists(storage.state_dir(n))
    coord.acknowledge(n, coord.task_ids[1])
    assert state.barriers == ["agg", "sink"]
    assert open(os.path.join(storage.state_dir(n), "state"), "rb").read() == b"s" * 123
    done = coord.maybe_complete()
    assert done.state_bytes == {"state": 123}
    assert done.size_bytes == 123


def test_a_repeated_acknowledgement_reaches_the_state_once(storage, committer):
    state = FakeState(5)
    coord = make(storage, committer, tasks=("a", "b"), state=state)
    n = coord.trigger()
    coord.acknowledge(n, "a")
    coord.acknowledge(n, "a")
    coord.acknowledge(n, "b")
    coord.acknowledge(n, "b")  # after the snapshot: must not snapshot again
    assert state.barriers == ["a", "b"]
    assert coord.maybe_complete().state_bytes == {"state": 5}


def test_positions_of_the_pending_checkpoint_are_recorded(storage, committer):
    coord = make(storage, committer, tasks=("a",))
    coord.record_position(1, "src", {"0": 5})  # nothing pending: dropped
    n = coord.trigger()
    coord.record_position(n, "src", {"0": 17})
    coord.record_position(n + 1, "src", {"0": 99})
    coord.acknowledge(n, coord.task_ids[0])
    done = coord.maybe_complete()
    assert done.positions == {"src": {"0": 17}}
    # the commit carries the checkpoint's uid, which its _metadata has too (check_commit_is_ours)
    uid = storage.read_metadata(n)["uid"]
    assert len(uid) == 32
    assert committer.commits == [(n, {"positions": {"src": {"0": 17}}, "final": False, "uid": uid})]


# -- complete, commit, notify ------------------------------------------------------------------

def test_metadata_then_commit_then_notify_then_prune(storage, committer, events):
    coord = make(storage, committer, tasks=("a",), sinks=[Sink(events), Sink(events)], state=FakeState(8))
    run_checkpoint(coord)
    run_checkpoint(coord)
    # ("commit", id, checkpoint folders present, metadata written) at the commit point:
    # metadata is durable before the commit, the older checkpoint is pruned only after it.
    assert events == [("commit", 1, [1], True), ("notify", 1), ("notify", 1),
                      ("commit", 2, [1, 2], True), ("notify", 2), ("notify", 2)]
    assert storage.checkpoint_ids() == [2]
    meta = storage.read_metadata(2)
    assert meta == {"checkpoint_id": 2, "trigger_time": coord.last_completed.trigger_time,
                    "positions": {}, "state_bytes": {"state": 8}, "operators": {}, "uid": meta["uid"],
                    "commit_point": None}  # the committer's (a Kafka transactional id; none here)


def test_failed_commit_notifies_no_sink_and_prunes_nothing(storage, committer, events):
    coord = make(storage, committer, tasks=("a",), sinks=[Sink(events)])
    run_checkpoint(coord)
    committer.fail = True
    with pytest.raises(ExecutionError, match="transaction aborted"):
        run_checkpoint(coord)
    assert events == [("commit", 1, [1], True), ("notify", 1)]
    assert storage.checkpoint_ids() == [1, 2]
    assert coord.last_completed.checkpoint_id == 1


def test_num_retained_keeps_the_newest_committed(storage, committer):
    coord = make(storage, committer, tasks=("a",), num_retained=3)
    for _ in range(5):
        run_checkpoint(coord)
    assert storage.checkpoint_ids() == [3, 4, 5]


def test_final_checkpoint_is_flagged_to_the_committer(storage, committer):
    coord = make(storage, committer, tasks=("a",))
    run_checkpoint(coord)
    run_checkpoint(coord, final=True)
    assert [(n, m["final"]) for n, m in committer.commits] == [(1, False), (2, True)]


def test_a_job_without_tasks_completes_at_once(storage, committer):
    coord = make(storage, committer, tasks=())
    n = coord.trigger()
    assert coord.maybe_complete().checkpoint_id == n


@pytest.mark.parametrize("point", ["after_snapshot_before_commit", "after_commit_before_bookkeeping"])
def test_failure_at_a_fault_point(storage, committer, events, monkeypatch, point):
    faults.reset_counts()
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", point)
    coord = make(storage, committer, tasks=("a",), sinks=[Sink(events)])
    with pytest.raises(ExecutionError, match=f"injected failure at {point}"):
        run_checkpoint(coord)
    faults.reset_counts()
    assert storage.read_metadata(1) is not None  # metadata is written before either point
    committed = point == "after_commit_before_bookkeeping"
    assert [c[0] for c in committer.commits] == ([1] if committed else [])
    assert ("notify", 1) not in events
    assert coord.last_completed is None


# -- LocalCommitter ----------------------------------------------------------------------------

def test_local_committer_writes_committed(storage):
    coord = make(storage, LocalCommitter(storage), tasks=("a",))
    assert coord.committer.last_committed() is None
    run_checkpoint(coord)
    run_checkpoint(coord)
    assert storage.local_committed() == 2
    assert coord.committer.last_committed() == 2
    run_checkpoint(coord, final=True)
    assert open(os.path.join(storage.dir, "_committed")).read() == "3 final"
    assert coord.committer.last_committed() is None  # a rerun starts afresh


# -- timeout and tolerable failures ------------------------------------------------------------

def time_out(coord):
    """Trigger a checkpoint one task never acknowledges and let it time out."""
    n = coord.trigger()
    coord.acknowledge(n, coord.task_ids[0])
    time.sleep(0.01)
    return coord.maybe_complete()


def test_no_timeout_before_the_deadline(storage, committer):
    coord = make(storage, committer, timeout_ms=LONG_MS)
    n = coord.trigger()
    time.sleep(0.01)
    assert coord.maybe_complete() is None
    assert coord.pending.checkpoint_id == n and coord.pending.status == "in_progress"


def test_timeout_fails_the_checkpoint_and_allows_the_next(storage, committer):
    state = FakeState(4)
    coord = make(storage, committer, timeout_ms=1, tolerable_failures=1, state=state)
    assert time_out(coord) is None
    assert not storage.restore_state(1, lambda path: None)  # task b never acknowledged: no snapshot
    assert state.released == 1  # task a's held-back writes are applied
    assert coord.pending is None
    assert [(s.checkpoint_id, s.status) for s in coord.history] == [(1, "failed")]
    assert committer.commits == []
    assert storage.read_metadata(1) is None
    coord.timeout_ms = LONG_MS
    assert run_checkpoint(coord).checkpoint_id == 2
    assert storage.checkpoint_ids() == [2]  # the failed checkpoint's folder is pruned


def test_more_consecutive_failures_than_tolerated_fail_the_job(storage, committer):
    coord = make(storage, committer, timeout_ms=1, tolerable_failures=2)
    time_out(coord)
    time_out(coord)
    with pytest.raises(ExecutionError) as e:
        time_out(coord)
    assert str(e.value) == ("Checkpoint 3 timed out; exceeded "
                            "'execution.checkpointing.tolerable-failed-checkpoints' = 2")


def test_zero_tolerable_failures_fail_on_the_first(storage, committer):
    coord = make(storage, committer, timeout_ms=1)
    with pytest.raises(ExecutionError, match="Checkpoint 1 timed out"):
        time_out(coord)


def test_a_completed_checkpoint_resets_the_failure_count(storage, committer):
    coord = make(storage, committer, timeout_ms=1, tolerable_failures=1)
    for _ in range(3):
        coord.timeout_ms = 1
        time_out(coord)
        coord.timeout_ms = LONG_MS
        run_checkpoint(coord)
    assert [s.status for s in coord.history] == ["failed", "committed"] * 3


# -- stats -------------------------------------------------------------------------------------

def test_stats_empty_before_the_first_checkpoint(storage, committer):
    assert make(storage, committer).stats() == {}


def test_stats_of_the_last_completed_checkpoint(storage, committer):
    coord = make(storage, committer, state=FakeState(3072))
    before = int(time.time() * 1000)
    n = coord.trigger()
    coord.record_position(n, "src", {"0": 4})
    coord.acknowledge(n, coord.task_ids[0])
    time.sleep(0.03)
    coord.acknowledge(n, coord.task_ids[1])
    coord.maybe_complete()
    stats = coord.stats()
    assert stats["checkpoint_id"] == n and stats["status"] == "committed"
    assert before <= stats["trigger_time"] <= int(time.time() * 1000)
    assert stats["alignment_ms"] >= 25  # first → last acknowledgement
    assert stats["duration_ms"] >= stats["alignment_ms"]
    assert stats["state_bytes"] == {"state": 3072}
    assert stats["positions"] == {"src": {"0": 4}}
    assert coord.last_completed.summary() == (f"#{n} committed in {stats['duration_ms']} ms, 3.0 KiB, "
                                              f"alignment {stats['alignment_ms']} ms")


def test_stats_unchanged_by_a_failed_checkpoint(storage, committer):
    coord = make(storage, committer, tolerable_failures=5)
    run_checkpoint(coord)
    coord.timeout_ms = 1
    time_out(coord)
    assert coord.stats()["checkpoint_id"] == 1
    assert coord.history[-1].status == "failed"


def test_history_keeps_the_last_twenty(storage, committer):
    coord = make(storage, committer, tasks=("a",))
    for _ in range(25):
        run_checkpoint(coord)
    assert [s.checkpoint_id for s in coord.history] == list(range(6, 26))


def test_summary_format():
    s = CheckpointStats(7, 0, duration_ms=12, alignment_ms=3, state_bytes={"a": 4096, "b": 102})
    assert s.summary() == "#7 in_progress in 12 ms, 4.1 KiB, alignment 3 ms"
