"""The coordinator's asynchronous commit (streamsql.checkpoint.background): the job thread goes on
while checkpoint n commits on a commit thread.

What must hold: the sinks' barrier flushes finish before the commit point; sinks and sources are
notified only after the commit returned, on the calling (job) thread; no next checkpoint starts
while one commits; a commit's failure reaches the job thread as the same exception and notifies
nobody; the final checkpoint and ``wait`` complete before returning; closing waits for a commit
in flight.
"""

from __future__ import annotations

import threading
import time

import pytest

from streamsql.checkpoint.coordinator import CheckpointCoordinator
from streamsql.checkpoint.storage import CheckpointStorage
from streamsql.core.errors import ExecutionError, FencedError


class GatedCommitter:
    """A committer whose commit waits for ``gate`` and records its thread; ``fail`` raises."""

    def __init__(self, events: list):
        self.events = events
        self.gate = threading.Event()
        self.fail: BaseException | None = None

    def last_committed(self):
        return None

    def commit(self, checkpoint_id: int, metadata: dict) -> None:
        assert self.gate.wait(10)
        if self.fail is not None:
            raise self.fail
        self.events.append(("commit", checkpoint_id, threading.current_thread().name))


@pytest.fixture
def events():
    return []


@pytest.fixture
def committer(events):
    return GatedCommitter(events)


def make(tmp_path, committer, events, flushes=()):
    def notify(n):
        events.append(("notify", n, threading.current_thread().name))

    return CheckpointCoordinator(CheckpointStorage(str(tmp_path), "job"), committer, 10, task_ids=["sink"],
                                 commit_listeners=[notify], pre_commits=list(flushes), asynchronous=True,
                                 name="j")


def acknowledged(coord) -> int:
    n = coord.trigger()
    coord.acknowledge(n, "sink")
    return n


def until(coord, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while True:
        done = coord.maybe_complete()
        if done is not None:
            return done
        assert time.monotonic() < deadline, "the commit did not complete"
        time.sleep(0.005)


def test_the_job_thread_goes_on_while_the_checkpoint_commits(tmp_path, committer, events):
    coord = make(tmp_path, committer, events)
    n = acknowledged(coord)
    assert coord.maybe_complete() is None  # handed to the commit thread
    time.sleep(0.05)
    assert coord.maybe_complete() is None and events == []  # still committing: nobody notified
    assert not coord.due() and coord.pending.checkpoint_id == n  # one checkpoint at a time
    committer.gate.set()
    done = until(coord)
    assert done.checkpoint_id == n and done.status == "committed"
    me = threading.current_thread().name
    assert events == [("commit", n, "commit-j"), ("notify", n, me)]
    assert coord.pending is None and coord.last_completed is done
    assert coord.storage.read_metadata(n)["checkpoint_id"] == n


def test_the_sinks_flushes_come_before_the_commit_point(tmp_path, committer, events):
    flushing = threading.Event()

    def flushed(n):
        flushing.set()
        time.sleep(0.05)
        events.append(("flushed", n))

    coord = make(tmp_path, committer, events, flushes=[flushed])
    committer.gate.set()
    n = acknowledged(coord)
    assert coord.maybe_complete() is None
    assert flushing.wait(5)
    until(coord)
    assert [e[:2] for e in events] == [("flushed", n), ("commit", n), ("notify", n)]


@pytest.mark.parametrize("error", [ExecutionError("transaction aborted"), FencedError("producer fenced")])
def test_a_failed_commit_fails_the_job_thread_and_notifies_nobody(tmp_path, committer, events, error):
    coord = make(tmp_path, committer, events)
    committer.fail = error
    committer.gate.set()
    acknowledged(coord)
    with pytest.raises(type(error)) as failure:
        until(coord)
    assert failure.value is error  # a fenced producer still ends the job as fenced
    assert events == [] and coord.last_completed is None


def test_a_failed_flush_prevents_the_commit(tmp_path, committer, events):
    def flushed(n):
        msg = "3 message(s) could not be delivered to Kafka"
        raise ExecutionError(msg)

    coord = make(tmp_path, committer, events, flushes=[flushed])
    committer.gate.set()
    acknowledged(coord)
    with pytest.raises(ExecutionError, match="could not be delivered"):
        until(coord)
    assert events == []


def test_wait_and_final_complete_before_returning(tmp_path, committer, events):
    coord = make(tmp_path, committer, events)
    n = acknowledged(coord)
    assert coord.maybe_complete() is None
    threading.Timer(0.1, committer.gate.set).start()
    assert coord.maybe_complete(wait=True).checkpoint_id == n  # the one in flight
    last = acknowledged(coord)
    done = coord.maybe_complete(final=True)  # the final checkpoint commits on the job thread
    assert done.checkpoint_id == last
    assert events[-2:] == [("commit", last, threading.current_thread().name),
                           ("notify", last, threading.current_thread().name)]


def test_close_waits_for_a_commit_in_flight(tmp_path, committer, events):
    coord = make(tmp_path, committer, events)
    n = acknowledged(coord)
    coord.maybe_complete()
    threading.Timer(0.2, committer.gate.set).start()
    t0 = time.monotonic()
    coord.close()  # the job closes its producers only after this
    assert time.monotonic() - t0 >= 0.15
    assert events == [("commit", n, "commit-j")]


def test_the_job_thread_waits_for_a_commit_in_flight_too_long(tmp_path, committer, events, monkeypatch):
    """The rows a transactional sink holds while its transaction commits stay bounded: after
    AHEAD_S the job thread stops and waits for the commit."""
    monkeypatch.setattr("streamsql.checkpoint.coordinator.AHEAD_S", 0.05)
    coord = make(tmp_path, committer, events)
    n = acknowledged(coord)
    assert coord.maybe_complete() is None
    time.sleep(0.1)
    threading.Timer(0.3, committer.gate.set).start()
    t0 = time.monotonic()
    assert coord.maybe_complete().checkpoint_id == n  # blocks until the commit returned
    assert time.monotonic() - t0 >= 0.2


def test_abort_ends_the_job_thread_s_wait_for_a_commit(tmp_path, committer, events):
    """A cancel (abort, from another thread) ends the job thread's wait for a commit whose flush
    does not come; the wait was unbounded (``done(None)``), so a cancel left the job RUNNING."""
    released = threading.Event()

    def flushed(n):
        assert released.wait(30)

    coord = make(tmp_path, committer, events, flushes=[flushed])
    committer.gate.set()
    acknowledged(coord)
    threading.Timer(0.2, coord.abort).start()
    started = time.monotonic()
    with pytest.raises(ExecutionError, match=r"Job 'j' cancelled while checkpoint 1 was committing"):
        coord.maybe_complete(wait=True)
    assert time.monotonic() - started < 2
    released.set()
    coord.close()
    assert events == [("commit", 1, "commit-j")]  # the commit itself was not cut; nobody notified
