"""'scan.startup.mode' = 'group-offsets' on a group without committed offsets, as Flink 2.3.

Flink reads 'properties.auto.offset.reset' (earliest | latest | none); without it the reset
policy is none and the job fails ("NoOffsetForPartitionException: Undefined offset with no reset
policy for partitions: [topic-0]", checked on Flink 2.3 with the Kafka connector 5.0). StreamSQL
read from the earliest offset instead.
"""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Consumer, Producer, TopicPartition

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError
from tests.e2e.test_embedding_api import until


@pytest.fixture
def topic(kafka_bootstrap, kafka_topic_factory):
    name = kafka_topic_factory("group-offsets")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for v in (1, 2, 3):
        p.produce(name, b'{"v": %d}' % v)
    assert p.flush(30) == 0
    return name


def _read(tmp_path, bootstrap, topic, options: str) -> list[int]:
    with StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "cp")}) as env:
        env.execute_sql(f"CREATE TABLE k (v INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
                        f"'scan.bounded.mode' = 'latest-offset'{options})")
        return sorted(row[0] for _, row in env.execute_sql("SELECT v FROM k").collect(timeout=60))


def _group() -> str:
    return f"fresh-{uuid.uuid4().hex[:8]}"


@pytest.mark.parametrize("reset", ["", ", 'properties.auto.offset.reset' = 'none'"])
def test_group_offsets_without_committed_offsets_or_reset_policy_fails(tmp_path, kafka_bootstrap, topic,
                                                                      reset):
    group = _group()
    options = f", 'scan.startup.mode' = 'group-offsets', 'properties.group.id' = '{group}'{reset}"
    with pytest.raises(ExecutionError) as ei:
        _read(tmp_path, kafka_bootstrap, topic, options)
    text = str(ei.value)
    assert f"consumer group '{group}' has no committed offset for partition(s) [{topic}-0]" in text, text
    assert "'properties.auto.offset.reset' = 'earliest' or 'latest'" in text, text


@pytest.mark.parametrize(("reset", "rows"), [("earliest", [1, 2, 3]), ("latest", [])])
def test_group_offsets_without_committed_offsets_use_the_reset_policy(tmp_path, kafka_bootstrap, topic, reset,
                                                                      rows):
    options = (f", 'scan.startup.mode' = 'group-offsets', 'properties.group.id' = '{_group()}', "
               f"'properties.auto.offset.reset' = '{reset}'")
    assert _read(tmp_path, kafka_bootstrap, topic, options) == rows


def test_startup_mode_left_unset_reads_from_the_earliest_offset(tmp_path, kafka_bootstrap, topic):
    """StreamSQL's default (documented): committed offsets, else the earliest."""
    assert _read(tmp_path, kafka_bootstrap, topic, f", 'properties.group.id' = '{_group()}'") == [1, 2, 3]


@pytest.mark.parametrize("bounded", [
    "'scan.bounded.mode' = 'group-offsets'",
    # partition 0 not named: it ends at the group's offset (Flink's SpecifiedOffsetsInitializer)
    "'scan.bounded.mode' = 'specific-offsets', 'scan.bounded.specific-offsets' = 'partition:1,offset:0'",
])
def test_bounded_read_to_group_offsets_resumed_after_a_cancel_reads_to_them(tmp_path, kafka_bootstrap,
                                                                            kafka_topic_factory, bounded):
    """A bounded read that ends at the group's offsets, cancelled after a checkpoint and started
    again, reads on to them, as Flink, whose splits keep their stopping offsets. The job committed
    each checkpoint's positions to that same group, so the resumed run ended where the first had
    been: FINISHED with 0 rows, the rest of the topic silently unread (210,000 of 300,000 records
    in the walk that found it)."""
    topic, group, n = kafka_topic_factory("bounded-group", partitions=2), _group(), 100_000
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True, "linger.ms": 20})
    for i in range(n):
        p.produce(topic, b'{"v": %d}' % i, partition=0)
        if i % 10_000 == 0:
            p.poll(0)
    assert p.flush(60) == 0
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": group, "enable.auto.commit": False})
    # where the bounded read ends (partition 1 is empty: its end, 0, is committed too)
    c.commit(offsets=[TopicPartition(topic, 0, n), TopicPartition(topic, 1, 0)], asynchronous=False)
    c.close()
    conf = {"execution.checkpointing.dir": str(tmp_path / "cp"), "state.dir": str(tmp_path / "state"),
            "execution.checkpointing.interval": "50 ms", "execution.batch-size": "100",
            "pipeline.name": "bounded-group"}

    def start(env: StreamEnvironment):
        env.execute_sql(f"CREATE TABLE k (v INT) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
                        f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                        f"'properties.group.id' = '{group}', 'scan.startup.mode' = 'earliest-offset', "
                        f"{bounded})")
        env.execute_sql("CREATE TABLE s (v INT) WITH ('connector' = 'blackhole')")
        return env.execute_sql("INSERT INTO s SELECT v FROM k").job

    with StreamEnvironment(conf) as env:
        job = start(env)
        until(lambda: job.last_checkpoint.get("checkpoint_id", 0) >= 1 or job.done, timeout=60)
        job.cancel()
    (first,) = job.last_checkpoint["positions"].values()
    assert job.status == "CANCELED" and first[f"{topic}:0"] < n, (job.status, first)
    with StreamEnvironment(conf) as env:
        again = start(env)
        assert again.wait(120) == "FINISHED"
    (last,) = again.last_checkpoint["positions"].values()
    assert again.runner.restored_from is not None and last[f"{topic}:0"] == n, last
