"""The decode stage of a source that fetches and decodes apart (streamsql.runtime.prefetch).

The fetch thread consumes and moves the position; the decode thread decodes in fetch order; the
job thread gets each batch with the position as of its own fetch. So a barrier injected after a
batch records exactly the position after it, whatever the two threads read or decoded ahead; a
restore from it reads again exactly what was not handed; each stage holds a bounded number of
batches; a failure on either thread reaches the job thread behind the batches before it.
"""

from __future__ import annotations

import time

import pytest

from streamsql.core.errors import ExecutionError
from streamsql.runtime.prefetch import PrefetchingSource
from tests.runtime.stage_sources import ApartSource, wait_until


def _x(batch) -> int:
    return batch.table.column("x")[0].as_py()


def test_each_batch_comes_with_the_position_of_its_own_fetch():
    inner = ApartSource(40, decode_s=0.002)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)
    inner.threads.discard("MainThread")  # open's position
    try:
        for i in range(40):
            batch = None
            while batch is None:
                batch = src.poll(100, 1.0)
            assert _x(batch) == i  # in fetch order
            assert src.position() == {"next": i + 1}  # a barrier here records exactly batch i's end
        assert src.poll(100, 0.05) is None
        assert src.finished()
    finally:
        src.close()
    assert inner.threads == {"fetch-t"}  # consume and position: the fetch thread only
    assert inner.decode_threads == {"decode-t"}


def test_a_decode_failure_is_raised_after_the_batches_before_it():
    inner = ApartSource(10, decode_fail_at=3)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)
    try:
        handed = [_x(src.poll(100, 1.0)) for _ in range(3)]
        assert handed == [0, 1, 2]
        assert src.position() == {"next": 3}
        with pytest.raises(ExecutionError, match="cannot decode batch 3") as failure:
            for _ in range(100):
                src.poll(100, 0.05)
        with pytest.raises(ExecutionError) as again:
            src.poll(100, 0.05)
        assert again.value is failure.value  # the job fails with the source's own error
        assert src.position() == {"next": 3}
    finally:
        src.close()
    assert inner.closed


def test_a_fetch_failure_behind_a_slow_decode_is_the_source_s_own_error():
    """The fetch thread ends once it queued its failure; the job thread must not take the dead
    thread for a crash ("ended unexpectedly") while the batches before the failure are decoded."""
    inner = ApartSource(10, fail_at=2, decode_s=0.1)
    src = PrefetchingSource(inner, 100, depth=4, name="t")
    src.open(None)
    try:
        seen = []
        with pytest.raises(ExecutionError, match="bad record at 2"):
            for _ in range(200):
                b = src.poll(100, 0.01)
                if b is not None:
                    seen.append(_x(b))
        assert seen == [0, 1]
    finally:
        src.close()


@pytest.mark.parametrize("depth", [1, 2])
def test_each_stage_holds_a_bounded_number_of_batches(depth):
    inner = ApartSource(1000, bounded=False)
    src = PrefetchingSource(inner, 100, depth=depth, name="t")
    src.open(None)
    full = 2 * depth + 2  # each queue full, and one batch held by each stage's put
    try:
        wait_until(lambda: inner.next == full)
        time.sleep(0.3)
        assert inner.next == full  # nothing polls: both threads wait
        assert _x(src.poll(100, 1.0)) == 0
        wait_until(lambda: inner.next == full + 1)  # one handed, one more read
        time.sleep(0.2)
        assert inner.next == full + 1
    finally:
        src.close()
    assert not any(th.is_alive() for th in src._threads)


def test_a_restore_after_a_crash_mid_pipeline_reads_each_batch_once():
    """Barrier after batch 4, two more batches processed, then the attempt dies with batches in
    both queues and one inside the decode: the restore from the barrier's position hands 5..19,
    so batches 0..4 (committed) and 5..19 (replayed) make every batch exactly once."""
    inner = ApartSource(20, decode_s=0.05)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)
    committed = [_x(src.poll(100, 2.0)) for _ in range(5)]
    barrier = src.position()
    lost = [_x(src.poll(100, 2.0)) for _ in range(2)]  # after the barrier: gone with the crash
    wait_until(lambda: inner.next >= 7 + 2 * 2 + 1)  # read ahead of the job thread
    src.close()
    assert barrier == {"next": 5} and lost == [5, 6]
    again = PrefetchingSource(ApartSource(20), 100, depth=2, name="t")
    again.open(barrier)
    try:
        replayed = [_x(again.poll(100, 2.0)) for _ in range(15)]
        assert again.poll(100, 0.05) is None
    finally:
        again.close()
    assert committed + replayed == list(range(20))


def test_the_during_decode_fault_point_fires_with_batches_in_both_queues(monkeypatch):
    """``during_decode`` (the crash campaign's ``--pipeline-points``) is reached when the job thread
    falls behind: the decode thread takes a fetched batch while decoded ones wait for the job
    thread and fetched ones for it. Raised there (``STREAMSQL_FAULT_RAISE``), the failure reaches
    the job thread behind the batches decoded before it, as any decode failure."""
    from streamsql.core.faults import reset_counts

    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "during_decode:1")
    reset_counts()
    inner = ApartSource(20)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)
    try:
        wait_until(lambda: src._queue.full() and src._fetched.full())  # the job thread is behind
        handed = []
        with pytest.raises(ExecutionError, match="injected failure at during_decode"):
            for _ in range(20):
                handed.append(_x(src.poll(100, 2.0)))
        assert handed == list(range(len(handed))) and 1 <= len(handed) < 20
        assert src.position() == {"next": len(handed)}  # a barrier now records no batch it lost
    finally:
        src.close()
        reset_counts()
