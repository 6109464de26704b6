"""The liveness mark of a transactional id (:mod:`streamsql.connectors.kafka.liveness`), on the broker.

A run marks an id by joining ``<id>-running``; another folder's live run is found (and waited
for), this folder's earlier incarnation and a dead process of this host are not; a closed mark
leaves at once.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
import uuid

import pytest
from streamsql.connectors.kafka.liveness import RunInfo, RunMark, runs_elsewhere, this_run
from streamsql.connectors.kafka.topics import create_topic

from streamsql.core.errors import JobRunningError


@pytest.fixture
def tid_topic(kafka_bootstrap):
    run = uuid.uuid4().hex[:8]
    topic = f"reliab29_mark_{run}"
    create_topic({"bootstrap.servers": kafka_bootstrap}, topic, "test", 1, -1, {})
    return f"streamsql-mark-{run}-0", topic


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_another_folders_live_run_is_found_this_folders_and_dead_ones_are_not(kafka_bootstrap, tid_topic):
    tid, topic = tid_topic
    props = {"bootstrap.servers": kafka_bootstrap}
    first = RunMark(props, tid, topic, this_run("/a/checkpoints/job"), "first")
    first.join()
    try:
        # the same folder (a restart of that run, a task moved between its workers): no conflict
        again = RunMark(props, tid, topic, this_run("/a/checkpoints/job"), "again")
        again.join()
        assert again.others(wait_s=0) == []
        again.close()
        # another folder: the first run, live (this process), is found
        other = this_run("/b/checkpoints/job")
        found = runs_elsewhere(props, [tid], other, "second", wait_s=0)
        assert found == {tid: [first.run]}
        # a run of this host whose process is gone is not waited for
        dead = RunMark(props, tid, topic, RunInfo("/c/checkpoints/job", first.run.host, _dead_pid()), "dead")
        dead.join()
        try:
            started = time.monotonic()
            assert runs_elsewhere(props, [tid], this_run("/a/checkpoints/job"), "x", wait_s=5) == {tid: []}
            assert time.monotonic() - started < 2
        finally:
            dead.close()
    finally:
        first.close()
    # a closed mark left the group: nothing found, nothing waited for
    started = time.monotonic()
    assert runs_elsewhere(props, [tid], this_run("/b/checkpoints/job"), "second", wait_s=5) == {tid: []}
    assert time.monotonic() - started < 2


def test_a_second_folder_is_refused_before_its_producer_fences(kafka_bootstrap, tid_topic):
    """KafkaTransactions.open refuses while another folder's run marks the id; the first is not fenced."""
    from streamsql.connectors.kafka.transactions import KafkaTransactions

    tid, topic = tid_topic
    job = tid.removeprefix("streamsql-").removesuffix("-0")
    props = {"bootstrap.servers": kafka_bootstrap}
    first = KafkaTransactions(props, job, 0, progress_topic=topic)
    first.run_folder = "/a/checkpoints/job"
    first.open()
    try:
        first.handle.producer.produce(topic, b"in the first run's open transaction")
        second = KafkaTransactions(props, job, 0, progress_topic=topic)
        second.run_folder = "/b/checkpoints/job"
        started = time.monotonic()
        with pytest.raises(JobRunningError, match=r"is running from checkpoint folder '/a/checkpoints/job' "
                           r"\(host .*, pid \d+\).*refused before fencing"):
            second.open()
        assert time.monotonic() - started < 5  # a live process of this host: refused at once
        second.close()
        first.commit(1, {})  # not fenced: its transaction commits
        assert first._read_committed() == 1
    finally:
        first.close()
    # once the first run ended, the second one starts (and fences nothing that runs)
    third = KafkaTransactions(props, job, 0, progress_topic=topic)
    third.run_folder = "/b/checkpoints/job"
    try:
        third.open()
    finally:
        third.close()


def test_another_hosts_member_is_waited_for_then_refused(kafka_bootstrap, tid_topic):
    """A member of another host may be a killed run whose session has not timed out: waited for
    (``wait_s``), then found; one that leaves meanwhile is not."""
    tid, topic = tid_topic
    props = {"bootstrap.servers": kafka_bootstrap}
    far = RunMark(props, tid, topic, RunInfo("/a/checkpoints/job", "another-host", 1), "far")
    far.join()
    try:
        started = time.monotonic()
        found = runs_elsewhere(props, [tid], this_run("/b/checkpoints/job"), "second", wait_s=1.5)
        assert found == {tid: [far.run]} and time.monotonic() - started >= 1.5
        # its process on that host goes (the member leaves) while the second run waits
        leave = threading.Timer(1.0, far.close)
        leave.start()
        started = time.monotonic()
        assert runs_elsewhere(props, [tid], this_run("/b/checkpoints/job"), "second", wait_s=15) == {tid: []}
        assert time.monotonic() - started < 10
        leave.join()
    finally:
        far.close()
