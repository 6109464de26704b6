"""An exchange topic that lost records a task has not read fails the job, never reads on (breaker).

A downstream task resumes its exchange partition at the offset in its checkpoint. Records
committed by the upstream tasks after that offset exist nowhere else (the upstream's source
offsets are past them). The reader had ``auto.offset.reset`` = earliest and the topics the
broker's retention, so:

- a job stopped longer than the retention (7 days by default; 24 h on the test broker) came
  back to a partition whose unread records were deleted, and read on from the next one;
- an exchange topic deleted (and made again by the job's writer) under an unfinished job was
  read on from the stored offset, or from 0 once that was out of range;

both silent losses. Now the topics keep their records (retention.ms = -1; the job purges them
with DeleteRecords), the reader records the topic's id in its checkpoint and fails when its
position is gone or the topic is another one.
"""

from __future__ import annotations

import time
import uuid

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
from streamsql.connectors.kafka.admin import delete_records

from streamsql.core.errors import ExecutionError
from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _load, _rows, _upserts
from tests.integration.test_parallel_identity import _env


def _stopped_midway(kafka_bootstrap, kafka_topic_factory, tmp_path) -> tuple[str, str, str, list[str]]:
    """A parallel GROUP BY that counted its input, cancelled: (name, src, out, its exchange topics)."""
    src, out = kafka_topic_factory("pex_src", PARTITIONS), kafka_topic_factory("pex_out")
    rows = _rows(41, 1000)
    _load(kafka_bootstrap, src, rows)
    name = f"pex-{uuid.uuid4().hex[:8]}"
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=False)
    job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job
    deadline = time.monotonic() + 120
    while sum(c for _, c in _upserts(kafka_bootstrap, out, ["k", "x"])) != len(rows):
        assert time.monotonic() < deadline and not job.done, "the job did not count every row"
        time.sleep(0.3)
    job.cancel()
    job.wait(60)
    env.close()
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    topics = [t for t in admin.list_topics(timeout=10).topics
              if t.startswith(f"_streamsql-{name}-") and t.endswith("-repartition")]
    assert topics
    return name, src, out, topics


def _resume(tmp_path, name, kafka_bootstrap, src, out) -> StreamEnvironment:
    env = _env(tmp_path, name, kafka_bootstrap, src, out, bounded=True)
    env.execute_sql("SET 'restart-strategy.type' = 'none'")
    return env


def test_exchange_topics_keep_their_records_and_lost_ones_fail_the_job(kafka_bootstrap, kafka_admin,
                                                                        kafka_topic_factory, tmp_path):
    name, src, out, topics = _stopped_midway(kafka_bootstrap, kafka_topic_factory, tmp_path)
    config = kafka_admin.describe_configs([ConfigResource("topic", topics[0])])
    values = next(iter(config.values())).result(30)
    assert values["retention.ms"].value == "-1" and values["retention.bytes"].value == "-1"
    # An upstream task committed a record the downstream task has not read, then retention
    # deleted it while the job was down.
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for part in range(2):
        p.produce(topics[0], b"\x00" * 8, b"w\x00\x00", partition=part)
    p.flush(30)
    ends = [TopicPartition(topics[0], part, -1) for part in range(2)]  # -1: up to the end
    for f in delete_records(kafka_admin, ends, request_timeout=30).values():  # not AdminClient's: see it
        f.result(30)
    with _resume(tmp_path, name, kafka_bootstrap, src, out) as env, pytest.raises(ExecutionError) as err:
        env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job.wait(120)
    text = str(err.value)
    assert "records this task has not read are gone" in text
    assert f"Exchange '{topics[0]}'" in text and "is not in the partition any more" in text


def test_an_exchange_topic_made_again_under_an_unfinished_job_fails_it(kafka_bootstrap, kafka_admin,
                                                                       kafka_topic_factory, tmp_path):
    name, src, out, topics = _stopped_midway(kafka_bootstrap, kafka_topic_factory, tmp_path)
    for f in kafka_admin.delete_topics(topics, operation_timeout=30).values():
        f.result(30)
    deadline = time.monotonic() + 30
    while any(t in kafka_admin.list_topics(timeout=10).topics for t in topics):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    for t in topics:  # as the job's writer makes a missing one again
        kafka_admin.create_topics([NewTopic(t, 2, 1)], operation_timeout=30)[t].result(30)
    with _resume(tmp_path, name, kafka_bootstrap, src, out) as env, pytest.raises(ExecutionError) as err:
        env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job.wait(120)
    text = str(err.value)
    assert "records this task has not read are gone: the topic was deleted since the checkpoint" in text
