"""The pipelined hot path's stages: a source's fetch thread and a sink's write thread.

What they must keep (streamsql.runtime.prefetch, streamsql.runtime.sink_stage): a barrier's
position is the one after the last batch handed to the job thread, never one the fetch thread
read ahead to; a pre-commit flushes every write before it and none after it; a failure on either
thread fails the job thread with that very exception; close joins the threads.
"""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from streamsql.core.connector import Sink
from streamsql.core.elements import Batch
from streamsql.core.errors import ExecutionError
from streamsql.runtime.prefetch import PrefetchingSource
from streamsql.runtime.sink_stage import PipelinedSink
from tests.runtime.stage_sources import ApartSource, CountingSource, counted_batch, wait_until


@pytest.fixture(params=[CountingSource, ApartSource], ids=["poll", "fetch+decode"])
def make(request):
    """A counting source that polls, or that fetches and decodes apart (two stages)."""
    return request.param


def test_position_is_after_the_last_handed_batch_not_the_prefetched_one(make):
    inner = make(10)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)  # open (and the position at open) on the caller's thread, the rest on the fetch thread
    inner.threads.discard("MainThread")
    try:
        assert src.position() == {"next": 0}
        wait_until(lambda: inner.next >= 3)  # two queued and one more polled, blocked on the full queue
        b = src.poll(100, 1.0)
        assert b.table.column("x").to_pylist() == [0, 0]
        assert src.position() == {"next": 1}  # a barrier now records 1, not where the thread is
        assert inner.next > 1
        seen = [src.poll(100, 1.0).table.column("x")[0].as_py() for _ in range(9)]
        assert seen == list(range(1, 10))  # every batch once, in order
        assert src.position() == {"next": 10}
        assert src.poll(100, 0.05) is None
        assert src.finished()
    finally:
        src.close()
    assert inner.closed
    assert "MainThread" not in inner.threads  # poll and position only on the fetch thread


def test_restore_reads_again_what_was_prefetched_but_not_handed(make):
    inner = make(6)
    src = PrefetchingSource(inner, 100, depth=3, name="t")
    src.open(None)
    src.poll(100, 1.0)
    src.poll(100, 1.0)
    barrier_position = src.position()
    wait_until(lambda: inner.next >= 5)
    src.close()  # the attempt fails: prefetched batches 2.. are dropped
    again = PrefetchingSource(make(6), 100, depth=3, name="t")
    again.open(barrier_position)
    try:
        seen = [again.poll(100, 1.0).table.column("x")[0].as_py() for _ in range(4)]
    finally:
        again.close()
    assert seen == [2, 3, 4, 5]


def test_a_fetch_failure_is_raised_on_the_job_thread_after_the_batches_before_it(make):
    inner = make(10, fail_at=2)
    src = PrefetchingSource(inner, 100, depth=4, name="t")
    src.open(None)
    try:
        assert src.poll(100, 1.0) is not None
        assert src.poll(100, 1.0) is not None
        with pytest.raises(ExecutionError, match="bad record at 2"):
            for _ in range(100):
                src.poll(100, 0.05)
    finally:
        src.close()
    assert inner.closed


def test_commits_run_on_the_fetch_thread_or_at_close(make):
    inner = make(2, bounded=False)
    src = PrefetchingSource(inner, 100, depth=2, name="t")
    src.open(None)
    src.checkpoint_committed(1, {"next": 1})
    wait_until(lambda: inner.committed)
    assert inner.committed[0][:2] == (1, {"next": 1})
    assert inner.committed[0][2].startswith("fetch-")
    src.close()
    src.checkpoint_committed(2, {"next": 2})  # after close: nothing runs, nothing raises
    assert len(inner.committed) == 1


@pytest.mark.parametrize("batches", [0, 1000])  # the fetch thread polls on, or waits on a full queue
def test_lag_is_asked_on_the_fetch_thread(make, batches):
    """SHOW JOBS asks a task's input lag from its own thread; the consumer belongs to the fetch thread.

    confluent-kafka 2.16 serializes the calls on a consumer; the caller's ``Consumer.position``
    waited for ever while the fetch thread consumed (a SHOW JOBS hung in test_parallel_savepoint).
    """
    inner = make(batches, bounded=False)
    src = PrefetchingSource(inner, 100, depth=1, name="t")
    src.open(None)
    try:
        held = 2 if make is CountingSource else 4  # per stage: one batch queued, one held by its put
        wait_until(lambda: inner.next == min(batches, held))
        inner.threads.clear()
        assert src.lag() == batches - inner.next
        assert inner.threads == {"fetch-t"}
    finally:
        src.close()
    assert src.lag() is None  # closed: nothing asks the source


def test_close_joins_a_fetch_thread_blocked_on_a_full_queue(make):
    inner = make(1000, bounded=False)
    src = PrefetchingSource(inner, 100, depth=1, name="t")
    src.open(None)
    wait_until(lambda: inner.next >= 2)
    src.close()
    assert src._threads and not any(th.is_alive() for th in src._threads)
    assert inner.closed


class RecordingSink(Sink):
    """Records each call in order, with its thread; a write can be slowed or made to fail."""

    pipelined = True

    def __init__(self, fail_on: int | None = None, delay_s: float = 0.0):
        self.calls: list[tuple[str, object, str]] = []
        self.fail_on = fail_on
        self.delay_s = delay_s
        self.closed = False

    def _log(self, what, arg):
        self.calls.append((what, arg, threading.current_thread().name))

    def write(self, batch):
        time.sleep(self.delay_s)
        x = batch.table.column("x")[0].as_py()
        if x == self.fail_on:
            msg = f"delivery failed at {x}"
            raise ExecutionError(msg)
        self._log("write", x)

    def pre_commit(self, checkpoint_id):
        self._log("pre_commit", checkpoint_id)

    def commit(self, checkpoint_id):
        self._log("commit", checkpoint_id)

    def finish(self):
        self._log("finish", None)

    def close(self):
        self.closed = True


def test_a_pre_commit_flushes_every_write_before_it_and_none_after():
    inner = RecordingSink(delay_s=0.01)
    sink = PipelinedSink(inner, depth=2, name="out")
    sink.open()
    for i in range(5):
        sink.write(counted_batch(i))
    sink.pre_commit(1)
    for i in range(5, 8):
        sink.write(counted_batch(i))
    sink.commit(1)
    sink.finish()
    sink.close()
    assert [(w, a) for w, a, _ in inner.calls] == (
        [("write", i) for i in range(5)] + [("pre_commit", 1)] + [("write", i) for i in range(5, 8)]
        + [("commit", 1), ("finish", None)])
    threads = {w: t for w, _, t in inner.calls}
    assert threads["write"] == threads["pre_commit"] == threads["commit"] == "sink-out"  # in queue order
    assert threads["finish"] == threading.current_thread().name  # after the sink thread went idle
    assert inner.closed


def test_the_job_thread_does_not_wait_for_the_flush_the_commit_does():
    inner = RecordingSink(delay_s=0.05)
    sink = PipelinedSink(inner, depth=8, name="out")
    sink.open()
    try:
        for i in range(4):
            sink.write(counted_batch(i))
        t0 = time.monotonic()
        sink.pre_commit(1)  # the barrier: queued behind the four writes
        assert time.monotonic() - t0 < 0.1
        sink.write(counted_batch(4))  # epoch 2 goes on
        assert ("pre_commit", 1) not in [(w, a) for w, a, _ in inner.calls]
        sink.flushed(1)  # what the checkpoint's commit waits for
        done = [(w, a) for w, a, _ in inner.calls]
        assert done[:5] == [("write", i) for i in range(4)] + [("pre_commit", 1)]
    finally:
        sink.close()


def test_a_failed_pre_commit_fails_the_checkpoint_s_commit():
    class FailingFlush(RecordingSink):
        def pre_commit(self, checkpoint_id):
            msg = f"flush of {checkpoint_id} failed"
            raise ExecutionError(msg)

    sink = PipelinedSink(FailingFlush(), depth=2, name="out")
    sink.open()
    try:
        sink.write(counted_batch(0))
        sink.pre_commit(3)
        with pytest.raises(ExecutionError, match="flush of 3 failed") as failure:
            sink.flushed(3)
        with pytest.raises(ExecutionError) as again:
            sink.commit(3)
        assert again.value is failure.value
    finally:
        sink.close()


def test_a_closed_sink_never_reports_a_flush_it_did_not_make():
    sink = PipelinedSink(RecordingSink(delay_s=0.2), depth=2, name="out")
    sink.open()
    sink.write(counted_batch(0))
    sink.pre_commit(1)
    sink.close()  # the attempt fails: the pre-commit is dropped
    with pytest.raises(ExecutionError, match="closed before it flushed checkpoint 1"):
        sink.flushed(1)


def test_a_write_failure_fails_the_next_call_on_the_job_thread():
    inner = RecordingSink(fail_on=1)
    sink = PipelinedSink(inner, depth=4, name="out")
    sink.open()
    sink.write(counted_batch(0))
    sink.write(counted_batch(1))
    with pytest.raises(ExecutionError, match="delivery failed at 1") as failure:
        for i in range(2, 100):
            sink.write(counted_batch(i))
            time.sleep(0.01)
    with pytest.raises(ExecutionError) as again:
        sink.pre_commit(1)
    assert again.value is failure.value
    assert ("pre_commit", 1) not in [(w, a) for w, a, _ in inner.calls]
    sink.close()
    assert inner.closed


class PreparingSink(RecordingSink):
    """Prepares (as the Kafka sink encodes) on the job thread; a prepare can fail."""

    def __init__(self, fail_prepare_on: int | None = None, **kw):
        super().__init__(**kw)
        self.fail_prepare_on = fail_prepare_on

    def write(self, batch):
        self.write_prepared(self.prepare(batch))

    def prepare(self, batch):
        x = batch.table.column("x")[0].as_py()
        if x == self.fail_prepare_on:
            msg = f"cannot encode {x}"
            raise ExecutionError(msg)
        self._log("prepare", x)
        return x

    def write_prepared(self, x):
        time.sleep(self.delay_s)
        self._log("write", x)


def test_a_sink_prepares_on_the_job_thread_and_writes_in_order_on_the_sink_thread():
    inner = PreparingSink(fail_prepare_on=5, delay_s=0.01)
    sink = PipelinedSink(inner, depth=2, name="out", prepare_here=True)
    sink.open()
    try:
        for i in range(3):
            sink.write(counted_batch(i))
        sink.pre_commit(1)
        sink.write(counted_batch(3))
        sink.flushed(1)
        with pytest.raises(ExecutionError, match="cannot encode 5"):  # raised by that write itself
            sink.write(counted_batch(5))
        sink.wait_idle()
    finally:
        sink.close()
    me = threading.current_thread().name
    assert [(w, a, t) for w, a, t in inner.calls if w == "prepare"] == [("prepare", i, me) for i in range(4)]
    assert [(w, a, t) for w, a, t in inner.calls if w != "prepare"] == (
        [("write", i, "sink-out") for i in range(3)]
        + [("pre_commit", 1, "sink-out"), ("write", 3, "sink-out")])


def test_with_the_switch_off_the_sink_thread_also_prepares():
    inner = PreparingSink(delay_s=0.01)
    sink = PipelinedSink(inner, depth=2, name="out", prepare_here=False)
    sink.open()
    try:
        for i in range(3):
            sink.write(counted_batch(i))
        sink.wait_idle()
    finally:
        sink.close()
    assert inner.calls == [(w, i, "sink-out") for i in range(3) for w in ("prepare", "write")]


def test_the_sink_queue_is_bounded():
    inner = RecordingSink(delay_s=0.2)
    sink = PipelinedSink(inner, depth=1, name="out")
    sink.open()
    t0 = time.monotonic()
    for i in range(3):  # one written, one waiting: the third write waits for room
        sink.write(counted_batch(i))
    assert time.monotonic() - t0 >= 0.15
    sink.close()


def test_the_switch_and_the_connectors_that_allow_it():
    from streamsql.core.config import Config
    from streamsql.runtime.builder import _pipelined_sink, _prefetching_source

    on, off = Config(), Config({"streamsql.exec.pipeline.enabled": "false"})
    assert isinstance(_prefetching_source(CountingSource(1), on, 100, "t"), PrefetchingSource)
    assert isinstance(_pipelined_sink(RecordingSink(), on, "out"), PipelinedSink)
    assert _pipelined_sink(RecordingSink(), on, "out").prepare_here
    no_prepare = Config({"streamsql.exec.pipeline.sink-prepare-on-job-thread": "false"})
    assert not _pipelined_sink(RecordingSink(), no_prepare, "out").prepare_here
    plain = CountingSource(1)
    assert _prefetching_source(plain, off, 100, "t") is plain
    sink = RecordingSink()
    assert _pipelined_sink(sink, off, "out") is sink
    plain.prefetch = False  # a connector that does not allow it stays on the job thread
    assert _prefetching_source(plain, on, 100, "t") is plain
    three = Config({"streamsql.exec.pipeline.queue-batches": "3"})
    deep = _prefetching_source(CountingSource(1), three, 100, "t")
    assert deep._queue.maxsize == 3
    assert _prefetching_source(ApartSource(1), on, 100, "t").apart  # a decode thread of its own
    one = Config({"streamsql.exec.pipeline.decode-thread": "false"})
    assert not _prefetching_source(ApartSource(1), one, 100, "t").apart  # decodes on the fetch thread
    assert _prefetching_source(ApartSource(1), on, 100, "t").decoders == 1
    two = Config({"streamsql.exec.pipeline.decode-threads": "2"})
    assert _prefetching_source(ApartSource(1), two, 100, "t").decoders == 2
    assert _prefetching_source(ApartSource(1), Config({**two.as_dict(), **one.as_dict()}), 100,
                               "t").decoders == 0  # no decode thread at all


@contextlib.contextmanager
def _sink_connector(name: str, sink_class):
    """Register ``sink_class`` as connector ``name`` for the duration of a test."""
    from streamsql.connectors.registry import _REGISTRY, register

    from streamsql.core.connector import ConnectorSpec, OptionSpec

    register(ConnectorSpec(name=name, options=[OptionSpec("connector", required=True)],
                           create_sink=sink_class))
    try:
        yield
    finally:
        _REGISTRY.pop(name, None)


def _env(tmp_path, interval: str):
    """An environment checkpointing every ``interval`` into ``tmp_path``, failing without restarts."""
    from streamsql.environment import StreamEnvironment

    return StreamEnvironment({"state.dir": str(tmp_path / "state"), "state.backend.type": "hashmap",
                              "execution.checkpointing.dir": str(tmp_path / "cp"),
                              "execution.checkpointing.interval": interval, "restart-strategy.type": "none"})


class FailingSink(Sink):
    """A pipelined sink whose first write fails (as a Kafka sink refusing a record)."""

    pipelined = True

    def __init__(self, ctx):
        self.name = ctx.table.name

    def write(self, batch: Batch) -> None:
        msg = f"Table '{self.name}': cannot write this record"
        raise ExecutionError(msg)


def test_a_sink_thread_failure_fails_the_job_while_no_row_comes(tmp_path):
    """The sink thread's failure fails the job at once, not at the next write or checkpoint.

    One row (a VALUES), then nothing for a long time (a datagen of one row per 1,000 s beside
    it), checkpoints every 10 minutes: the job thread never wrote again nor pre-committed, so the
    job stayed RUNNING with its sink failed (without the pipeline it fails at once).
    """

    with _sink_connector("test-failing", FailingSink):
        env = _env(tmp_path, "10 min")
        env.execute_sql("CREATE TABLE src (x INT) WITH ('connector' = 'datagen', "
                        "'rows-per-second' = '0.001')")
        env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'test-failing')")
        job = env.execute_sql("INSERT INTO out_t SELECT x FROM src UNION ALL VALUES (1)").job
        started = time.monotonic()
        with pytest.raises(ExecutionError, match="Table 'out_t': cannot write this record"):
            job.wait(30)
        assert job.status == "FAILED", job.status
        assert time.monotonic() - started < 20


class OptionCheckingSink(Sink):
    """A sink with a classmethod ``check(table, config)``, as the Kafka sinks' option check."""

    def __init__(self, ctx):
        self.rows = 0

    @classmethod
    def check(cls, table, config) -> None:
        """The connector's option check (not a failure probe)."""

    def write(self, batch: Batch) -> None:
        self.rows += batch.num_rows


@pytest.mark.parametrize("pipelined", [False, True])
def test_the_loops_failure_probe_is_no_sink_method_of_another_meaning(tmp_path, pipelined):
    """The job's loop asks every sink ``raise_failure()``; first named ``check()``, it called the
    Kafka sinks' classmethod ``check(table, config)`` with the pipeline off, and every such job
    failed at once: "Internal error ...: ProducingSink.check() missing 2 required positional
    arguments"."""
    from streamsql.environment import StreamEnvironment

    OptionCheckingSink.pipelined = pipelined
    with _sink_connector("test-checking", OptionCheckingSink):
        env = StreamEnvironment({"state.dir": str(tmp_path / "state"), "state.backend.type": "hashmap",
                                 "execution.checkpointing.dir": str(tmp_path / "cp"),
                                 "restart-strategy.type": "none"})
        env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'test-checking')")
        assert env.execute_sql("INSERT INTO out_t VALUES (1), (2)").job.wait(30) == "FINISHED"


@pytest.mark.parametrize("setting,asynchronous", [(None, True), ("false", False)])
def test_the_commit_thread_switch(tmp_path, setting, asynchronous):
    """'streamsql.exec.pipeline.commit-thread' = 'false' commits on the job thread; either way the
    job's final checkpoint commits before it ends."""
    from streamsql.environment import StreamEnvironment

    config = {"state.dir": str(tmp_path / "state"), "execution.checkpointing.dir": str(tmp_path / "cp"),
              "restart-strategy.type": "none"}
    if setting is not None:
        config["streamsql.exec.pipeline.commit-thread"] = setting
    env = StreamEnvironment(config)
    env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'blackhole')")
    job = env.execute_sql("INSERT INTO out_t VALUES (1), (2)").job
    assert job.wait(30) == "FINISHED"
    assert job.runner.coordinator.asynchronous is asynchronous
    assert job.last_checkpoint["status"] == "committed"


class StuckSink(Sink):
    """A pipelined sink whose ``stuck_in`` call waits (a stuck or throttled broker) until aborted.

    Gives up after :attr:`GIVE_UP_S` anyway, so that a job that ignores the cancel still ends.
    """

    pipelined = True
    stuck_in = "pre_commit"
    GIVE_UP_S = 40.0
    stuck = threading.Event()
    aborted = threading.Event()
    closed = threading.Event()

    def __init__(self, ctx):
        pass

    def _hang(self, call: str) -> None:
        if call != self.stuck_in:
            return
        StuckSink.stuck.set()
        if StuckSink.aborted.wait(self.GIVE_UP_S):
            msg = f"{call}: cancelled while waiting for the brokers"
            raise ExecutionError(msg)

    def write(self, batch: Batch) -> None:
        self._hang("write")

    def pre_commit(self, checkpoint_id: int) -> None:
        self._hang("pre_commit")

    def abort(self) -> None:
        StuckSink.aborted.set()

    def close(self) -> None:
        StuckSink.closed.set()


@pytest.mark.parametrize("stuck_in", ["pre_commit", "write"])
def test_cancel_ends_a_job_whose_sink_or_commit_is_stuck(tmp_path, stuck_in):
    """Cancel while a barrier's flush cannot finish (the commit thread waits for it, the job thread
    for the commit after AHEAD_S) or while the sink is under backpressure (the job thread waits
    for room in the sink's queue): the job used to stay RUNNING until the sink's call returned
    (a flush under a deleted topic: 5 min; a broker quota: a minute), JobHandle.cancel gave up
    after 30 s. Now the cancel aborts those waits: CANCELED within seconds."""

    StuckSink.stuck_in = stuck_in
    for e in (StuckSink.stuck, StuckSink.aborted, StuckSink.closed):
        e.clear()
    with _sink_connector("test-stuck", StuckSink):
        try:
            env = _env(tmp_path, "100 ms")
            env.execute_sql("CREATE TABLE src (x INT) WITH ('connector' = 'datagen', "
                            "'rows-per-second' = '2000')")
            env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'test-stuck')")
            job = env.execute_sql("INSERT INTO out_t SELECT x FROM src").job
            assert StuckSink.stuck.wait(30)
            time.sleep(1.5)  # past AHEAD_S: the job thread waits for the commit, or for room to write
            started = time.monotonic()
            job.cancel()
            assert job.status == "CANCELED", job.status
            assert time.monotonic() - started < 10
            assert StuckSink.closed.is_set()
            commits = [th for th in threading.enumerate() if th.name.startswith(("commit-", "sink-out_t"))]
            assert not any(th.is_alive() for th in commits)
        finally:
            StuckSink.aborted.set()  # a job that ignored the cancel ends now


class SlowFinalFlush(Sink):
    """A pipelined sink whose pre-commits after the first take ``SLOW_S`` (a throttled broker)."""

    pipelined = True
    SLOW_S = 4.0

    def __init__(self, ctx):
        self.flushes = 0

    def write(self, batch: Batch) -> None:
        pass

    def pre_commit(self, checkpoint_id: int) -> None:
        self.flushes += 1
        if self.flushes > 1:
            time.sleep(self.SLOW_S)


def test_stop_with_savepoint_never_returns_an_earlier_checkpoint(tmp_path):
    """STOP JOB ... WITH SAVEPOINT whose final checkpoint outlasts the stop's wait (a slow sink):
    it returned the last *periodic* checkpoint as the savepoint while the job went on to commit
    its final one, so a job started from that path read again, and wrote again, what the stopped
    job had committed after it. Now it says the job did not stop in time and returns no path; the
    job still stops (FINISHED) once its final checkpoint commits. The wait is Flink's
    'client.timeout' (default 60 s), named in the message."""
    with _sink_connector("test-slow-flush", SlowFinalFlush):
        env = _env(tmp_path, "100 ms")
        env.execute_sql("SET 'client.timeout' = '1 s'")
        env.execute_sql("CREATE TABLE src (x INT) WITH ('connector' = 'datagen', 'rows-per-second' = '100')")
        env.execute_sql("CREATE TABLE out_t (x INT) WITH ('connector' = 'test-slow-flush')")
        job = env.execute_sql("INSERT INTO out_t SELECT x FROM src").job
        wait_until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 1, 30)
        said = r"did not stop within 1 s \('client.timeout'\): its final checkpoint is still"
        with pytest.raises(ExecutionError, match=said):
            env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT")
        assert job.wait(30) == "FINISHED"


def test_a_cancel_aborts_every_shared_object_of_the_task():
    """JobGraph.abort also aborts the task's shared objects (TaskResources.abort): the task's
    transactional producer, which an exchange writer of a parallel task flushes at its barrier
    (not a Sink, so no sink's abort reached it). One object failing does not stop the others."""
    from streamsql.core.connector import TaskResources

    calls = []

    class Producer:
        def abort(self):
            calls.append("producer")

    class Failing:
        def abort(self):
            msg = "already closed"
            raise RuntimeError(msg)

    resources = TaskResources()
    resources.shared("failing", Failing)
    resources.shared("plain", object)
    resources.shared("producer", Producer)
    resources.abort()
    assert calls == ["producer"]


def test_an_aborted_kafka_producer_stops_flushing():
    """ProducerHandle.abort (a cancel): a flush waiting for brokers that do not answer raises
    within a second or two instead of waiting (here for ever: nothing listens on the port)."""
    from streamsql.connectors.kafka.producer import ProducerHandle

    handle = ProducerHandle({"bootstrap.servers": "127.0.0.1:1", "message.timeout.ms": 600_000},
                            "Table 'out'")
    try:
        handle.produce_many("t", None, [b"1"])
        threading.Timer(0.3, handle.abort).start()
        started = time.monotonic()
        with pytest.raises(ExecutionError, match=r"Table 'out': cancelled while waiting for the brokers"):
            handle.flush()
        assert time.monotonic() - started < 5
    finally:
        handle.close()
