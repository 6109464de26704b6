"""A Kafka sink's ``topic`` metadata column and a source's startup without a group id, as Flink 2.3.

``kafka_topics_flink.json`` is written by ``scripts/flink_kafka_topics.py`` on PyFlink with the
Kafka SQL connector 5.0.0-2.2 (never by hand). Sinks: with several topics in ``'topic'`` (or
``'topic-pattern'``) each row goes to the topic its ``topic`` column names, a row naming none or
another topic fails the job; with one topic the column is refused (not writable). StreamSQL refused
every multi-topic sink before. Sources: reading committed offsets without ``'properties.group.id'``,
and bounded reads that end some partitions at committed offsets (``'scan.bounded.specific-offsets'``
naming some partitions, ``'scan.bounded.mode' = 'group-offsets'`` for a group without commits).
Each scenario runs here on new topics and must write Flink's records (per topic: partition when the
partitioner decides it, key, value) or fail with Flink's message.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, Producer, TopicPartition

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

ORACLE = json.loads((Path(__file__).parent / "kafka_topics_flink.json").read_text())
SINKS = {s["name"]: s for s in ORACLE["sinks"]}
SOURCES = {s["name"]: s for s in ORACLE["sources"]}
#: Where StreamSQL reads what Flink refuses: no 'scan.startup.mode' (Flink's default is
#: 'group-offsets') and no 'properties.group.id' reads from the earliest offset here (README).
READS_WHERE_FLINK_REFUSES = {"default_startup_without_group": [0, 1, 2, 10, 11]}


def _dump(bootstrap: str, topic: str) -> list[list]:
    """Every record of ``topic``: ``[partition, key, value]``, read to each partition's end."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dump", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    try:
        parts = sorted(c.list_topics(topic, timeout=10).topics[topic].partitions)
        c.assign([TopicPartition(topic, p, OFFSET_BEGINNING) for p in parts])
        out, ended, deadline = [], set(), time.monotonic() + 30
        while len(ended) < len(parts):
            assert time.monotonic() < deadline, f"{topic}: no end of partitions within 30 s"
            m = c.poll(1)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    ended.add(m.partition())
                continue
            k, v = m.key(), m.value()
            out.append([m.partition(), None if k is None else k.decode(), None if v is None else v.decode()])
        return out
    finally:
        c.close()


def _unordered_lists(text: str) -> str:
    """``text`` with each ``[x, y]`` list's items sorted: Java's HashSet order follows the names,
    and each run names its topics anew (the fixed-name scenario checks the order itself)."""
    return re.sub(r"\[([^\[\]]*)\]", lambda m: "[" + ", ".join(sorted(m.group(1).split(", "))) + "]", text)


def _comparable(records: list[list], s: dict) -> list[list]:
    """Records as compared: the partition only where Flink's partitioner decides it (a key, or
    'fixed'); an unkeyed record's partition is the producer's sticky choice. An upsert topic as the
    last value per key (both write every change with no buffer set; the records themselves are
    compared in test_upsert_temporal.py)."""
    if "upsert-kafka" in s["with"]:
        return sorted([p, k, v] for k, (p, v) in {k: (p, v) for p, k, v in records}.items())
    decided = "'sink.partitioner' = 'fixed'" in s["with"] or "key" in s["with"]
    return sorted([p if decided or k is not None else None, k, v] for p, k, v in records)


@pytest.mark.parametrize("name", sorted(SINKS))
def test_sink_topics_as_flink(name, kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SINKS[name]
    names = {"a": kafka_topic_factory("topics-a"), "b": kafka_topic_factory("topics-b", partitions=2),
             "c": kafka_topic_factory("topics-c")}
    # a pattern matching {a} and {b}, not {c}: the oracle's pattern, made of this run's names
    fill = {**names, "bootstrap": kafka_bootstrap,
            "pattern": f"({re.escape(names['a'])}|{re.escape(names['b'])})"}
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "restart-strategy.type": "none", "parallelism.default": "1"})
    try:
        env.execute_sql(f"CREATE TABLE snk ({s['columns']}) WITH ({s['with'].format(**fill)})")
        if "error" in s:
            with pytest.raises(StreamSQLError) as e:
                result = env.execute_sql(f"INSERT INTO snk {s['insert'].format(**fill)}")
                result.job.wait(60)
                raise result.job.error
            got = getattr(e.value, "message", None) or str(e.value)  # without a positioned excerpt
            shown = {**names, "pattern": fill["pattern"]}
            for key, topic in sorted(shown.items(), key=lambda kv: -len(kv[1])):
                got = got.replace(topic, "{" + key + "}")
            want = s["error"].split(" / ")[-1]  # the root cause: Flink's own sentence
            if name == "topic_not_listed_fixed_names":
                assert want in got
            else:
                assert _unordered_lists(want) in _unordered_lists(got), (want, got)
        else:
            result = env.execute_sql(f"INSERT INTO snk {s['insert'].format(**fill)}")
            assert result.job.wait(60) == "FINISHED", result.job.error
    finally:
        env.close()
    for key in "abc":
        assert _comparable(_dump(kafka_bootstrap, names[key]), s) == _comparable(s["records"][key], s), key


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_source_startup_without_group_as_flink(name, kafka_bootstrap, kafka_topic_factory, tmp_path):
    s = SOURCES[name]
    topic = kafka_topic_factory("topics-src", partitions=2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for part, ids in ORACLE["source"].items():
        for i in ids:
            p.produce(topic, json.dumps({"id": i}).encode(), partition=int(part))
    p.flush(30)
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk"),
                             "restart-strategy.type": "none"})
    try:
        kafka = ORACLE["kafka"].format(bootstrap=kafka_bootstrap)
        env.execute_sql(f"CREATE TABLE src (id INT) WITH ({kafka}, 'topic' = '{topic}', {s['with']})")
        if name in READS_WHERE_FLINK_REFUSES:
            assert "Property group.id is required" in s["error"]
            rows = sorted(r[0] for _, r in env.execute_sql("SELECT id FROM src").collect(timeout=60))
            assert rows == READS_WHERE_FLINK_REFUSES[name]
        elif "error" in s:
            with pytest.raises(StreamSQLError) as e:
                list(env.execute_sql("SELECT id FROM src").collect(timeout=60))
            # Flink names the first partition it meets without a committed offset, StreamSQL each
            want = re.sub(r"\{s\}-\d+", "{s}-N", s["error"].split(" / ")[-1])
            got = re.sub(r"\{s\}-\d+", "{s}-N", str(e.value).replace(topic, "{s}"))
            assert want in got, (want, got)
        else:
            rows = sorted(r[0] for _, r in env.execute_sql("SELECT id FROM src").collect(timeout=60))
            assert rows == s["rows"]
    finally:
        env.close()
