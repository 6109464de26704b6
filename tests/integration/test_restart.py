"""An operator failure inside a running job triggers the restart strategy without losing or
duplicating data; with restart-strategy 'none' the job fails with a clear error."""

import uuid

import orjson
import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from streamsql.core.errors import ConfigError, ExecutionError
from streamsql.core.faults import reset_counts
from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import fold_upserts, read_committed


def _load(bootstrap, topic, n):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for i in range(n):
        p.produce(topic, orjson.dumps({"k": i % 10, "v": i}), partition=i % 3)
    p.flush(30)


def _job(env, bootstrap, src, out):
    env.execute_sql(f"""CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
        'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")
    env.execute_sql(f"""CREATE TABLE out_t (k INT, n BIGINT, s BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    return env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k").job


@pytest.mark.parametrize("point", ["during_commit", "after_snapshot_before_commit", "before_barrier"])
def test_fixed_delay_restart_recovers_exactly_once(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                   monkeypatch, point):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", f"{point}:1")
    reset_counts()
    src, out = kafka_topic_factory("restart_in", partitions=3), kafka_topic_factory("restart_out")
    _load(kafka_bootstrap, src, 3000)
    env = StreamEnvironment({"restart-strategy.type": "fixed-delay",
                             "restart-strategy.fixed-delay.delay": "100 ms",
                             "pipeline.name": f"restart-{uuid.uuid4().hex[:6]}"})
    job = _job(env, kafka_bootstrap, src, out)
    assert job.wait(120) == "FINISHED"
    assert job.metrics["restarts"] == 1
    result = fold_upserts(read_committed(kafka_bootstrap, out))
    expected = {(k,): {"k": k, "n": 300, "s": sum(range(k, 3000, 10))} for k in range(10)}
    assert result == expected


def test_no_restart_strategy_fails_the_job(kafka_bootstrap, kafka_topic_factory, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "during_commit:1")
    reset_counts()
    src, out = kafka_topic_factory("norestart_in", partitions=3), kafka_topic_factory("norestart_out")
    _load(kafka_bootstrap, src, 100)
    env = StreamEnvironment({"pipeline.name": f"norestart-{uuid.uuid4().hex[:6]}"})
    job = _job(env, kafka_bootstrap, src, out)
    with pytest.raises(ExecutionError, match="injected failure at during_commit"):
        job.wait(60)
    assert job.status == "FAILED"
    assert read_committed(kafka_bootstrap, out) == []


def test_options_that_cannot_run_together_fail_once(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                    monkeypatch):
    """Exactly-once Kafka sinks share one transaction here (different transactional-id prefixes
    are joined into its id), so two of them naming different progress topics (its one commit
    record) cannot run: a checkpointed job (restart strategy exponential-delay, Flink's default)
    fails at once instead of restarting for ever on an error that no restart can mend (a
    newcomer's report, made with two prefixes, which now run: test_kafka_txn_prefixes.py)."""
    monkeypatch.chdir(tmp_path)
    src, o1, o2 = (kafka_topic_factory("setup_in", partitions=3), kafka_topic_factory("setup_a"),
                   kafka_topic_factory("setup_b"))
    _load(kafka_bootstrap, src, 10)
    env = StreamEnvironment({"pipeline.name": f"setup-{uuid.uuid4().hex[:6]}",
                             "execution.checkpointing.interval": "1 s"})
    env.execute_sql(f"""CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")
    for name, topic, prefix in (("a", o1, ""), ("b", o2, ", 'sink.progress-topic' = 'txn35_other_progress'")):
        env.execute_sql(f"""CREATE TABLE {name} (k INT, v INT) WITH ('connector' = 'kafka',
            'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
            'sink.delivery-guarantee' = 'exactly-once'{prefix})""")
    stmts = env.create_statement_set()
    stmts.add_insert_sql("INSERT INTO a SELECT * FROM src")
    stmts.add_insert_sql("INSERT INTO b SELECT * FROM src")
    job = stmts.execute().job
    with pytest.raises(ConfigError, match="share one transaction, but its 'sink.progress-topic' = "
                                          "'txn35_other_progress' differs"):
        job.wait(60)
    assert job.status == "FAILED" and job.metrics["restarts"] == 0


def test_a_transaction_open_longer_than_its_timeout_restarts_and_says_why(kafka_bootstrap,
                                                                         kafka_topic_factory, tmp_path,
                                                                         monkeypatch):
    """A checkpoint interval (6 s) above 'transaction.timeout.ms' (2 s): the broker aborts the open
    transaction and bumps the producer's epoch, so its next produce fails as "fenced by a newer
    instance". That used to end the job for good as FencedError ("another instance with the same
    transactional.id started": none had). Now it says what happened and the job restarts; the
    output stays exactly once (drained by the same job, bounded, with the default timeout)."""
    import time

    monkeypatch.chdir(tmp_path)
    src, out = kafka_topic_factory("txn_timeout_in", partitions=3), kafka_topic_factory("txn_timeout_out")
    name = f"txn-timeout-{uuid.uuid4().hex[:6]}"

    def start(interval, options, sink_options):
        env = StreamEnvironment({"pipeline.name": name, "execution.checkpointing.interval": interval,
                                 "restart-strategy.type": "fixed-delay",
                                 "restart-strategy.fixed-delay.attempts": "5",
                                 "restart-strategy.fixed-delay.delay": "100 ms"})
        env.execute_sql(f"""CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
            'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
            'scan.startup.mode' = 'earliest-offset'{options})""")
        env.execute_sql(f"""CREATE TABLE o (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{out}',
            'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
            'sink.delivery-guarantee' = 'exactly-once'{sink_options})""")
        return env.execute_sql("INSERT INTO o SELECT k, v FROM src").job

    job = start("6 s", "", ", 'properties.transaction.timeout.ms' = '2000'")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    fed = 0
    deadline = time.monotonic() + 60
    while job.metrics["restarts"] == 0 and job.status != "FAILED" and time.monotonic() < deadline:
        for i in range(fed, fed + 50):
            p.produce(src, orjson.dumps({"k": i % 10, "v": i}), partition=i % 3)
        p.flush(30)
        fed += 50
        time.sleep(0.2)
    assert job.status != "FAILED", job.error
    assert job.metrics["restarts"] >= 1
    assert "the broker aborted the open transaction: it was open for" in job.runner.last_failure
    assert "longer than 'transaction.timeout.ms' = 2000 ms" in job.runner.last_failure
    job.cancel()
    drain = start("500 ms", ", 'scan.bounded.mode' = 'latest-offset'", "")
    assert drain.wait(120) == "FINISHED"
    got = sorted(orjson.loads(v)["v"] for _, v in read_committed(kafka_bootstrap, out))
    assert got == list(range(fed))


def test_a_restart_keeps_the_bounded_end_it_started_with(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                         monkeypatch):
    """'scan.bounded.mode' = 'group-offsets' reads up to the offsets the group had committed when
    the job started; the job commits its own progress to that group at each checkpoint (as
    Flink). A restart from a checkpoint resolved the end again, from the group - its own progress
    by then - and finished at once: the rows after it were never read (Flink keeps each split's
    stopping offset in its checkpointed state). Restarted before its third barrier, the job must
    still count every row."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("STREAMSQL_FAULT_RAISE", "before_barrier:3")
    reset_counts()
    src, out = kafka_topic_factory("bounded_end_in", partitions=3), kafka_topic_factory("bounded_end_out")
    n = 60000
    _load(kafka_bootstrap, src, n)
    group = f"bounded-end-{uuid.uuid4().hex[:6]}"
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group})
    c.commit(offsets=[TopicPartition(src, p, n // 3) for p in range(3)], asynchronous=False)
    c.close()
    env = StreamEnvironment({"restart-strategy.type": "fixed-delay",
                             "restart-strategy.fixed-delay.delay": "100 ms",
                             "execution.checkpointing.interval": "50 ms", "execution.batch-size": "500",
                             "pipeline.name": f"bounded-end-{uuid.uuid4().hex[:6]}"})
    env.execute_sql(f"""CREATE TABLE src (k INT, v INT) WITH ('connector' = 'kafka', 'topic' = '{src}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'properties.group.id' = '{group}', 'scan.startup.mode' = 'earliest-offset',
        'scan.bounded.mode' = 'group-offsets')""")
    env.execute_sql(f"""CREATE TABLE out_t (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")
    job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job
    assert job.wait(120) == "FINISHED"
    assert job.metrics["restarts"] == 1
    result = fold_upserts(read_committed(kafka_bootstrap, out))
    assert result == {(k,): {"k": k, "n": n // 10} for k in range(10)}
