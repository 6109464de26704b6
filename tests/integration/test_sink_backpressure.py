"""A Kafka sink under a slow broker: its in-flight is bounded and the job blocks (backpressure).

The broker throttles the job's producer with a client quota (``producer_byte_rate`` on a client
id of the test's own, on the shared broker: :mod:`streamsql.testing.quotas`). librdkafka's
producer queue held up to its own default, 100,000 messages (1 GiB), whatever the job's
backpressure: under 64 KiB/s a checkpoint's flush drained 100,000 queued rows for 42 s (a STOP
WITH SAVEPOINT gave up after 60 s). Producers now default to a queue of 10,000 messages and
4 MiB (:data:`~streamsql.connectors.kafka.producer.QUEUE_DEFAULTS`); a produce that finds it
full waits, so the sink thread waits, then the job thread: rows are read no faster than the
broker takes them. Every test reads the output back with ``read_committed``: 0 lost, 0 duplicated.
"""

from __future__ import annotations

import json
import threading
import time
import uuid

import pytest
from confluent_kafka import Producer
from streamsql.connectors.kafka.producer import QUEUE_DEFAULTS

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError
from streamsql.testing.quotas import producer_quota
from tests.integration.test_flights import read_committed

#: The quota (bytes/s): slow enough that the input does not fit through in the test's time.
RATE = 128 * 1024
ROWS = 30_000  # ~100 bytes each: 3 MB, 23 s at RATE
#: How long the tests watch the throttled job (s): the queue fills within the first second.
THROTTLED_S = 6.0


def _feed(bootstrap: str, topic: str, rows: int) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True})
    for i in range(rows):
        p.produce(topic, json.dumps({"id": i, "pad": "x" * 60}).encode())
        if i % 5000 == 0:
            p.poll(0)
    p.flush(30)


def _config(tmp_path) -> dict[str, str]:
    """The job's settings; a name of its own (its transactional id is on the shared broker)."""
    return {"execution.checkpointing.dir": str(tmp_path / "chk"), "restart-strategy.type": "none",
            "pipeline.name": f"bp-{uuid.uuid4().hex[:8]}", "execution.checkpointing.interval": "500 ms"}


def _queued(job) -> int | None:
    """Messages in the job's transactional producer (librdkafka's queue, in flight included)."""
    graph = job.runner._graph
    committer = graph.resources.committer if graph is not None else None
    handle = getattr(committer, "handle", None)
    producer = getattr(handle, "producer", None)
    return len(producer) if producer is not None else None


class _Sampler:
    """The largest producer queue seen, every 20 ms, until stopped."""

    def __init__(self, job):
        self.job, self.peak, self._stop = job, 0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _queued(self.job) or 0)

    def stop(self) -> int:
        self._stop.set()
        self._thread.join(5)
        return self.peak


def _job(env, bootstrap, src, out, client_id=None, bounded=True):
    """``INSERT INTO out_t SELECT * FROM src`` into an exactly-once kafka sink; its handle."""
    bound = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    extra = f", 'properties.client.id' = '{client_id}'" if client_id is not None else ""
    env.execute_sql("CREATE TABLE src (id BIGINT, pad STRING) WITH ('connector' = 'kafka', "
                    f"'topic' = '{src}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
                    f"'scan.startup.mode' = 'earliest-offset'{bound})")
    env.execute_sql("CREATE TABLE out_t (id BIGINT, pad STRING) WITH ('connector' = 'kafka', "
                    f"'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
                    f"'sink.delivery-guarantee' = 'exactly-once'{extra})")
    return env.execute_sql("INSERT INTO out_t SELECT id, pad FROM src").job


def _exactly_once(bootstrap, out, rows):
    ids = [json.loads(v)["id"] for _, v in read_committed(bootstrap, out)]
    lost, duplicated = rows - len(set(ids)), len(ids) - len(set(ids))
    assert (lost, duplicated) == (0, 0), f"lost={lost} duplicated={duplicated}"


def test_a_throttled_sink_keeps_its_producer_queue_bounded(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Under a broker quota the producer's queue never holds more than its bound (librdkafka's
    default 100,000 before: every one of the 30,000 rows read at once, 12,751 of them queued at
    the peak seen at 256 KiB/s); once the quota is lifted the bounded job finishes with every row
    exactly once. (A bound the table sets is librdkafka's own: the test below sets one.)"""
    bound = QUEUE_DEFAULTS["queue.buffering.max.messages"]
    src, out = kafka_topic_factory("bp-src", 3), kafka_topic_factory("bp-out", 3)
    _feed(kafka_bootstrap, src, ROWS)
    client_id = f"bp-{uuid.uuid4().hex[:8]}"
    config = _config(tmp_path)
    with StreamEnvironment(config) as env:
        with producer_quota(kafka_bootstrap, client_id, RATE):
            job = _job(env, kafka_bootstrap, src, out, client_id)
            sampler = _Sampler(job)
            try:
                deadline = time.monotonic() + THROTTLED_S
                while not job.done and time.monotonic() < deadline:
                    time.sleep(0.05)
            finally:
                peak = sampler.stop()
            assert not job.done, job.error  # it was throttled all along
            # len(producer) also counts the progress marker and librdkafka's undelivered events
            assert peak <= bound + 10, f"{peak} messages queued in the producer, bound {bound}"
        assert job.wait(120) == "FINISHED"  # the quota is lifted: the job drains its input
    _exactly_once(kafka_bootstrap, out, ROWS)


def _busy_job(env, bootstrap, src, out, client_id):
    """The job, unbounded, once it read its first rows (the throttled sink is busy)."""
    job = _job(env, bootstrap, src, out, client_id, bounded=False)
    deadline = time.monotonic() + 30
    while job.metrics["rows_in"] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    return job


def _drain(bootstrap, src, out, config, **settings):
    """The job again (resuming its checkpoint, or from a savepoint), bounded: it ends at the input's end."""
    with StreamEnvironment({**config, **settings}) as env:
        assert _job(env, bootstrap, src, out).wait(120) == "FINISHED"


def test_stop_with_savepoint_under_backpressure_returns_its_path(kafka_bootstrap, kafka_topic_factory,
                                                                 tmp_path):
    """STOP JOB ... WITH SAVEPOINT while the throttled sink is behind: the barrier drains through
    the bounded queues and the stop returns the savepoint's path (it returned none after 60 s:
    100,000 rows queued in the producer); the job started from it goes on exactly once."""
    src, out = kafka_topic_factory("sp-src", 3), kafka_topic_factory("sp-out", 3)
    _feed(kafka_bootstrap, src, ROWS)
    client_id = f"sp-{uuid.uuid4().hex[:8]}"
    config = _config(tmp_path)
    with StreamEnvironment(config) as env, producer_quota(kafka_bootstrap, client_id, RATE):
        job = _busy_job(env, kafka_bootstrap, src, out, client_id)
        started = time.monotonic()
        path = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
        took = time.monotonic() - started
        assert job.status == "FINISHED"
    assert took < 60, took
    resumed = {"pipeline.name": f"resumed-{uuid.uuid4().hex[:8]}", "execution.savepoint.path": path}
    _drain(kafka_bootstrap, src, out, config, **resumed)
    _exactly_once(kafka_bootstrap, out, ROWS)


# Under -m slow: the two tests above keep a throttled sink in the default suite, and
# tests/runtime/test_pipeline_stages.py a STOP past its 'client.timeout'.
@pytest.mark.slow
def test_a_stop_that_outlasts_client_timeout_names_it(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """A STOP JOB ... WITH SAVEPOINT whose final checkpoint takes longer than Flink's
    'client.timeout' (the SQL gateway's wait for the savepoint, default 60 s) fails naming that
    option, and the job still stops after its final checkpoint: started again, it resumes there
    exactly once. The wait was a fixed 60 s before, and the message named no option."""
    src, out = kafka_topic_factory("to-src", 3), kafka_topic_factory("to-out", 3)
    _feed(kafka_bootstrap, src, ROWS)
    client_id = f"to-{uuid.uuid4().hex[:8]}"
    config = _config(tmp_path)
    with StreamEnvironment(config) as env:
        with producer_quota(kafka_bootstrap, client_id, RATE // 4):
            job = _busy_job(env, kafka_bootstrap, src, out, client_id)
            env.execute_sql("SET 'client.timeout' = '1 s'")
            started = time.monotonic()
            with pytest.raises(ExecutionError) as e:
                env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT")
            assert time.monotonic() - started < 10
        assert "did not stop within 1 s ('client.timeout')" in str(e.value)
        assert job.wait(120) == "FINISHED"  # the quota is lifted: the final checkpoint commits
    _drain(kafka_bootstrap, src, out, config)
    _exactly_once(kafka_bootstrap, out, ROWS)


def test_the_queue_bound_leaves_room_for_the_largest_message():
    """A message larger than 'queue.buffering.max.kbytes' would never be queued (its produce would
    wait for room for ever): with 'message.max.bytes' raised, the default bytes bound grows to
    twice it; the table's own values win (ProducerHandle sets the defaults only)."""
    from streamsql.connectors.kafka.producer import queue_bounds

    assert queue_bounds({}) == QUEUE_DEFAULTS
    large = queue_bounds({"message.max.bytes": "10000000"})
    assert large["queue.buffering.max.kbytes"] >= 2 * 10_000_000 // 1024
    assert queue_bounds({"message.max.bytes": "oops"}) == QUEUE_DEFAULTS


def test_a_row_larger_than_the_queue_fails_the_job_naming_the_option(kafka_bootstrap, kafka_topic_factory,
                                                                      tmp_path):
    """A message larger than 'properties.queue.buffering.max.kbytes' is never queued by librdkafka
    (Queue full, however empty the queue): the produce waited for room for ever and the job hung
    RUNNING. It fails now, saying which option to raise."""
    out = kafka_topic_factory("bp-big", 1)
    with StreamEnvironment(_config(tmp_path)) as env:
        env.execute_sql("CREATE TABLE src (s STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3', "
                        "'fields.s.length' = '5000')")
        env.execute_sql("CREATE TABLE out_t (s STRING) WITH ('connector' = 'kafka', "
                        f"'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', "
                        "'format' = 'json', 'properties.queue.buffering.max.kbytes' = '1')")
        job = env.execute_sql("INSERT INTO out_t SELECT s FROM src").job
        with pytest.raises(ExecutionError, match=r"larger than 'properties.queue.buffering.max.kbytes' = 1"):
            job.wait(60)
