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


def _slow_even(i: int) -> float:
    """Even batches decode slowly, odd ones at once: a second decode thread finishes out of order."""
    return 0.03 if i % 2 == 0 else 0.0


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


@pytest.mark.parametrize(("depth", "decoders"), [(1, 1), (2, 1), (2, 2)])
def test_each_stage_holds_a_bounded_number_of_batches(depth, decoders):
    inner = ApartSource(1000, bounded=False, copies=True)
    src = PrefetchingSource(inner, 100, depth=depth, name="t", decoders=decoders)
    src.open(None)
    full = 2 * depth + 1 + decoders  # both queues full, a batch held by the fetch thread and by each decoder
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


@pytest.mark.parametrize("decoders", [1, 2])
def test_a_restore_after_a_crash_mid_pipeline_reads_each_batch_once(decoders):
    """Barrier after batch 4, two more batches processed, then the attempt dies with batches in
    both queues and one inside the decode: the restore from the barrier's position hands 5..19,
    so batches 0..4 (committed) and 5..19 (replayed) make every batch exactly once. With two
    decode threads, even batches decode slowly, so they finish out of fetch order."""
    inner = ApartSource(20, decode_s=0.05 if decoders == 1 else _slow_even, copies=True)
    src = PrefetchingSource(inner, 100, depth=2, name="t", decoders=decoders)
    src.open(None)
    committed = [_x(src.poll(100, 2.0)) for _ in range(5)]
    barrier = src.position()
    lost = [_x(src.poll(100, 2.0)) for _ in range(2)]  # after the barrier: gone with the crash
    wait_until(lambda: inner.next >= 7 + 2 * 2 + 1)  # read ahead of the job thread
    src.close()
    assert barrier == {"next": 5} and lost == [5, 6]
    again = PrefetchingSource(ApartSource(20, copies=True), 100, depth=2, name="t", decoders=decoders)
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


def test_several_decode_threads_hand_batches_on_in_fetch_order_with_their_positions():
    inner = ApartSource(30, decode_s=_slow_even, copies=True)
    src = PrefetchingSource(inner, 100, depth=2, name="t", decoders=3)
    src.open(None)
    try:
        for i in range(30):
            batch = None
            while batch is None:
                batch = src.poll(100, 1.0)
            assert _x(batch) == i  # fetch order, although odd batches were decoded first
            assert src.position() == {"next": i + 1}  # the state of batch i's own fetch
        assert src.poll(100, 0.05) is None
        assert src.finished()
    finally:
        src.close()
    assert inner.decode_threads == {"decode-t", "decode-t-2", "decode-t-3"}
    assert inner.most_decoding >= 2  # the decodes did overlap
    assert not any(th.is_alive() for th in src._threads)


def test_a_source_whose_decodes_share_state_gets_one_decode_thread():
    inner = ApartSource(10, decode_s=0.005)  # decode_copy() is None (as upsert-kafka's)
    src = PrefetchingSource(inner, 100, depth=2, name="t", decoders=4)
    src.open(None)
    try:
        assert [_x(src.poll(100, 1.0)) for _ in range(10)] == list(range(10))
    finally:
        src.close()
    assert inner.decode_threads == {"decode-t"} and inner.most_decoding == 1


def test_with_several_decode_threads_a_decode_failure_comes_after_every_batch_before_it():
    """Batch 4 fails at once while batches 2 and 3 (slow) are still being decoded on the other
    threads: the job thread still gets 0..3 first, then the failure, and the position stays 4."""
    inner = ApartSource(10, decode_fail_at=4, decode_s=lambda i: 0.1 if i in (2, 3) else 0.0,
                        copies=True)
    src = PrefetchingSource(inner, 100, depth=2, name="t", decoders=3)
    src.open(None)
    try:
        handed = []
        with pytest.raises(ExecutionError, match="cannot decode batch 4"):
            for _ in range(200):
                b = src.poll(100, 0.02)
                if b is not None:
                    handed.append(_x(b))
        assert handed == [0, 1, 2, 3]
        assert src.position() == {"next": 4}
    finally:
        src.close()
    assert not any(th.is_alive() for th in src._threads)
