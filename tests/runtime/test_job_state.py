"""JobState: one backend per job; writes after an operator's barrier wait for the snapshot."""

from __future__ import annotations

import pytest

from streamsql.runtime.job_state import JobState
from streamsql.state.factory import create_backend


@pytest.fixture(params=["hashmap", "rocksdb"])
def job_state(request, tmp_path):
    backend = create_backend(request.param)
    backend.open(str(tmp_path / "work"))
    state = JobState(backend)
    yield state
    state.close()


def test_writes_after_the_barrier_are_not_in_the_snapshot_but_are_visible(job_state, tmp_path):
    a, b = job_state.keyed_state("a"), job_state.keyed_state("b")
    a.write([(b"k1", b"1"), (b"k2", b"2")])
    b.write([(b"x", b"1")])
    job_state.barrier("a")  # a passed barrier n; b has not yet
    a.write([(b"k1", b"10"), (b"k0", b"0")], [b"k2"])
    b.write([(b"x", b"2")])  # still epoch n for b
    assert a.get_many([b"k0", b"k1", b"k2", b"k9"]) == [b"0", b"10", None, None]
    assert list(a.items()) == [(b"k0", b"0"), (b"k1", b"10")]
    job_state.barrier("b")
    job_state.snapshot(str(tmp_path / "snap"))
    # after the snapshot the held writes are in the backend
    assert list(a.items()) == [(b"k0", b"0"), (b"k1", b"10")]
    job_state.restore(str(tmp_path / "snap"))
    assert list(a.items()) == [(b"k1", b"1"), (b"k2", b"2")]
    assert list(b.items()) == [(b"x", b"2")]


def test_clear_while_deferring(job_state, tmp_path):
    a = job_state.keyed_state("a")
    a.write([(b"k1", b"1"), (b"k2", b"2")])
    job_state.barrier("a")
    a.clear()
    a.write([(b"k3", b"3")])
    assert a.get_many([b"k1", b"k3"]) == [None, b"3"]
    assert list(a.items()) == [(b"k3", b"3")]
    job_state.snapshot(str(tmp_path / "snap"))
    assert list(a.items()) == [(b"k3", b"3")]
    job_state.restore(str(tmp_path / "snap"))
    assert list(a.items()) == [(b"k1", b"1"), (b"k2", b"2")]


def test_release_applies_held_writes_of_a_failed_checkpoint(job_state):
    a = job_state.keyed_state("a")
    job_state.barrier("a")
    a.write([(b"k", b"v")])
    job_state.release()
    a.write([(b"j", b"w")])  # straight through again
    assert list(job_state.backend.keyed_state("a").items()) == [(b"j", b"w"), (b"k", b"v")]
