"""Finding 5 of issue 12: a missing sink topic is created on purpose, never by a side effect.

The existence check (a producer's metadata request) used to auto-create the topic with the
broker's defaults (1 partition, not compacted), so a rerun wrote into it silently.
"""

import json
import uuid

import pytest

from streamsql import StreamEnvironment
from streamsql.core.errors import ConfigError, ExecutionError
from tests.integration.test_flights import read_committed

_NUMS = ("CREATE TABLE nums (id INT) WITH ('connector' = 'datagen', 'number-of-rows' = '5', "
         "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '5')")


def _env(tmp_path):
    # the interval makes Flink's default restart strategy exponential-delay, which would retry a
    # failing job for ever (docs/checkpointing.md#restarts): these tests want the failure itself
    return StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                              "execution.checkpointing.interval": "100 ms", "restart-strategy.type": "none"})


def _exists(admin, topic):
    return topic in admin.list_topics(timeout=10).topics


@pytest.mark.parametrize("guarantee", ["at-least-once", "exactly-once"])
def test_finding_5_missing_sink_topic_fails_and_is_not_created(kafka_bootstrap, kafka_admin, tmp_path,
                                                               guarantee):
    """Finding 5: the job fails naming the option, and the topic still does not exist (twice)."""
    topic = f"missing-{uuid.uuid4().hex[:10]}"
    for attempt in range(2):  # the rerun used to find the topic the first run's check created
        with _env(tmp_path / str(attempt)) as env:
            env.execute_sql(_NUMS)
            env.execute_sql(f"CREATE TABLE `out` (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                            f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                            f"'sink.delivery-guarantee' = '{guarantee}')")
            job = env.execute_sql("INSERT INTO `out` SELECT id FROM nums").job
            with pytest.raises(ConfigError) as e:
                job.wait(60)
        assert f"topic '{topic}' does not exist" in str(e.value)
        assert "'sink.topic.auto-create' = 'true'" in str(e.value)
        assert not _exists(kafka_admin, topic)


def test_finding_5_auto_create_on_purpose(kafka_bootstrap, kafka_admin, tmp_path):
    """Finding 5: 'sink.topic.auto-create' creates the topic with the partitions asked for, and
    an upsert-kafka topic compacted (one record per key)."""
    from confluent_kafka.admin import ConfigResource

    topic = f"created-{uuid.uuid4().hex[:10]}"
    try:
        with _env(tmp_path) as env:
            env.execute_sql(_NUMS)
            env.execute_sql(f"CREATE TABLE `out` (k INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ("
                            f"'connector' = 'upsert-kafka', 'topic' = '{topic}', "
                            f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', "
                            "'value.format' = 'json', 'sink.topic.auto-create' = 'true', "
                            "'sink.topic.auto-create.partitions' = '3')")
            assert env.execute_sql("INSERT INTO `out` SELECT id % 2, COUNT(*) FROM nums GROUP BY id % 2"
                                   ).job.wait(60) == "FINISHED"
        md = kafka_admin.list_topics(topic=topic, timeout=10).topics[topic]
        assert len(md.partitions) == 3
        res = ConfigResource(ConfigResource.Type.TOPIC, topic)
        configs = kafka_admin.describe_configs([res])[res].result(timeout=30)
        assert configs["cleanup.policy"].value == "compact"
        final = {}
        for key, value in read_committed(kafka_bootstrap, topic):
            final[json.loads(key)["k"]] = json.loads(value)["n"] if value is not None else None
        assert final == {0: 2, 1: 3}
    finally:
        kafka_admin.delete_topics([topic], operation_timeout=10)


@pytest.mark.parametrize("guarantee", ["at-least-once", "exactly-once"])
def test_sink_topic_deleted_while_the_job_runs_fails_it_soon(kafka_bootstrap, kafka_admin,
                                                             kafka_topic_factory, tmp_path, guarantee):
    """A sink topic deleted mid-run: the barrier's flush used to wait for librdkafka's
    message.timeout.ms (5 min), the job thread and every cancel with it, then failed on
    "Local: Unknown partition". Now the flush asks the cluster after a few seconds stuck and the
    job fails naming the topic (as a Kafka source whose topic is deleted does)."""
    import time

    topic = kafka_topic_factory("deleted-sink")
    with _env(tmp_path) as env:
        env.execute_sql("CREATE TABLE gen (id INT) WITH ('connector' = 'datagen', 'rows-per-second' = '500', "
                        "'fields.id.kind' = 'sequence', 'fields.id.start' = '1', "
                        "'fields.id.end' = '100000000')")
        env.execute_sql(f"CREATE TABLE `out` (id INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                        f"'sink.delivery-guarantee' = '{guarantee}')")
        job = env.execute_sql("INSERT INTO `out` SELECT id FROM gen").job
        deadline = time.monotonic() + 60
        while not job.last_checkpoint and time.monotonic() < deadline:
            time.sleep(0.1)
        assert job.last_checkpoint, "no checkpoint before the topic was deleted"
        kafka_admin.delete_topics([topic], operation_timeout=30)[topic].result(timeout=60)
        deleted = time.monotonic()
        with pytest.raises(ExecutionError) as e:
            job.wait(90)
        assert time.monotonic() - deleted < 60
    assert f"topic '{topic}' is gone from {kafka_bootstrap}" in str(e.value)
    assert "deleted while the job wrote to it?" in str(e.value)
