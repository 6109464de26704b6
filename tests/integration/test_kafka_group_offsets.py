"""'scan.startup.mode' = 'group-offsets' on a group without committed offsets, as Flink 2.3.

Flink reads 'properties.auto.offset.reset' (earliest | latest | none); without it the reset
policy is none and the job fails ("NoOffsetForPartitionException: Undefined offset with no reset
policy for partitions: [topic-0]", checked on Flink 2.3 with the Kafka connector 5.0). StreamSQL
read from the earliest offset instead.
"""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer

from streamsql import StreamEnvironment
from streamsql.core.errors import ExecutionError


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
