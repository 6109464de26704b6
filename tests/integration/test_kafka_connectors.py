"""Integration tests of the kafka / upsert-kafka connectors and KafkaTransactions against a real
broker. Sources and sinks are driven directly (no planner), with hand-built TableDefs."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import uuid

import numpy as np
import pyarrow as pa
import pytest
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from streamsql.connectors.kafka import KafkaSink, KafkaSource, UpsertKafkaSink, UpsertKafkaSource
from streamsql.connectors.kafka.transactions import KafkaTransactions
from streamsql.connectors.registry import get_connector

from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext, TaskResources
from streamsql.core.elements import Batch, RowKind
from streamsql.core.errors import BadRecordError, ConfigError, ExecutionError
from streamsql.core.types import SqlType

# -- helpers ---------------------------------------------------------------------------------


def table(name, cols, options, pk=(), meta=()):
    columns = [ColumnDef(n, SqlType.parse(t)) for n, t in cols]
    columns += [ColumnDef(n, SqlType.parse(t), metadata_key=k) for n, t, k in meta]
    return TableDef(name, columns, dict(options), primary_key=list(pk))


def ctx(tbl, job="job", resources=None, config=None):
    return ConnectorContext(tbl, job, dict(config or {}), resources=resources or TaskResources())


def produce(bootstrap, topic, records):
    """records: (partition, key, value) with bytes/str/None."""
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    for part, k, v in records:
        k = k.encode() if isinstance(k, str) else k
        v = v.encode() if isinstance(v, str) else v
        p.produce(topic, v, k, part)
    assert p.flush(30) == 0


def read_all(bootstrap, topic, isolation="read_committed", timeout=20):
    """Every message of every partition up to the end, as (partition, offset, key, value)."""
    c = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"t-{uuid.uuid4().hex}",
            "enable.auto.commit": False,
            "isolation.level": isolation,
            "enable.partition.eof": True,
        }
    )
    try:
        md = c.list_topics(topic, timeout=10).topics[topic]
        c.assign([TopicPartition(topic, p, 0) for p in md.partitions])
        left = set(md.partitions)
        out = []
        deadline = time.monotonic() + timeout
        while left and time.monotonic() < deadline:
            for m in c.consume(100, 0.2):  # waits out its timeout unless 100 come: short
                if m.error():
                    if m.error().code() == KafkaError._PARTITION_EOF:
                        left.discard(m.partition())
                    continue
                out.append((m.partition(), m.offset(), m.key(), m.value()))
        assert not left, "did not reach the end"
        return out
    finally:
        c.close()


def drain(src, want_rows=None, timeout=20):
    """Poll until finished (bounded) or ``want_rows`` rows arrived; returns the concatenated rows
    as dicts and the row kinds."""
    rows, kinds = [], []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        b = src.poll(1000, 0.2)
        if b is not None:
            rows += b.table.to_pylist()
            kinds += [RowKind(k).short for k in b.kind_array()]
        if src.bounded and src.finished():
            break
        if want_rows is not None and len(rows) >= want_rows:
            break
    return rows, kinds


def jrec(i, name=None):
    return json.dumps({"id": i, "name": name or f"n{i}"})


COLS = [("id", "BIGINT"), ("name", "STRING")]


def src_opts(bootstrap, topic, **extra):
    o = {
        "connector": "kafka",
        "topic": topic,
        "properties.bootstrap.servers": bootstrap,
        "format": "json",
        "scan.startup.mode": "earliest-offset",
    }
    o.update({k.replace("_", "."): v for k, v in extra.items()})
    return o


# -- source ----------------------------------------------------------------------------------


def test_source_bounded_latest_offset_three_partitions(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("src3", partitions=3)
    produce(kafka_bootstrap, topic, [(i % 3, None, jrec(i)) for i in range(30)])
    t = table(
        "src",
        COLS,
        {**src_opts(kafka_bootstrap, topic), "scan.bounded.mode": "latest-offset"},
        meta=[
            ("part", "INT", "partition"),
            ("off", "BIGINT", "offset"),
            ("ts", "TIMESTAMP_LTZ(3)", "timestamp"),
            ("tp", "STRING", "topic"),
        ],
    )
    src = KafkaSource(ctx(t))
    assert src.bounded and src.schema.names == ["id", "name", "part", "off", "ts", "tp"]
    src.open(None)
    # rows produced after open are beyond the bounded end
    produce(kafka_bootstrap, topic, [(0, None, jrec(999))])
    rows, kinds = drain(src)
    src.close()
    assert src.finished()
    assert sorted(r["id"] for r in rows) == list(range(30))
    assert set(kinds) == {"+I"}
    assert all(r["part"] == r["id"] % 3 and r["off"] == r["id"] // 3 and r["tp"] == topic for r in rows)
    assert all(r["ts"] is not None for r in rows)
    # the offsets after the last rows, and the bounded read's end of each partition (kept by a restore)
    ends = {f"^{topic}:{p}": 10 for p in range(3)}
    assert src.position() == {**{f"{topic}:{p}": 10 for p in range(3)}, **ends}


def test_source_bounded_empty_topic_finishes(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("empty", partitions=2)
    src = KafkaSource(
        ctx(table("e", COLS, {**src_opts(kafka_bootstrap, topic), "scan.bounded.mode": "latest-offset"}))
    )
    src.open(None)
    assert src.finished()
    assert src.poll(10, 0.1) is None
    src.close()


def test_resume_after_last_offset(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("resume")
    produce(kafka_bootstrap, topic, [(0, None, jrec(i)) for i in (1, 2, 3)])
    t = table("r", COLS, src_opts(kafka_bootstrap, topic))
    src = KafkaSource(ctx(t))
    src.open(None)
    rows, _ = drain(src, want_rows=3)
    assert [r["id"] for r in rows] == [1, 2, 3]
    pos = src.position()
    assert pos == {f"{topic}:0": 3}
    src.close()
    produce(kafka_bootstrap, topic, [(0, None, jrec(4))])
    src2 = KafkaSource(ctx(t))
    src2.open(json.loads(json.dumps(pos)))
    rows, _ = drain(src2, want_rows=1, timeout=10)
    rows += drain(src2, timeout=1)[0]  # nothing else arrives
    src2.close()
    assert [r["id"] for r in rows] == [4]
    assert src2.position() == {f"{topic}:0": 4}


def test_position_skips_transaction_markers(kafka_bootstrap, kafka_topic_factory):
    """A bounded read of a transactionally written topic finishes although the last offset is a
    commit marker that is never delivered."""
    topic = kafka_topic_factory("txnsrc")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "transactional.id": f"t-{uuid.uuid4().hex}"})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(3):
        p.produce(topic, jrec(i).encode())
    p.commit_transaction(30)
    src = KafkaSource(
        ctx(table("x", COLS, {**src_opts(kafka_bootstrap, topic), "scan.bounded.mode": "latest-offset"}))
    )
    src.open(None)
    rows, _ = drain(src, timeout=10)
    src.close()
    assert [r["id"] for r in rows] == [0, 1, 2]
    assert src.finished()
    # 3 records + the commit marker; the end of the bounded read
    assert src.position() == {f"{topic}:0": 4, f"^{topic}:0": 4}


def test_bad_record_fails_naming_location(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("bad")
    produce(kafka_bootstrap, topic, [(0, None, jrec(1)), (0, None, "{not json"), (0, None, jrec(3))])
    src = KafkaSource(ctx(table("b", COLS, src_opts(kafka_bootstrap, topic))))
    src.open(None)
    with pytest.raises(BadRecordError) as ei:
        drain(src, want_rows=3, timeout=10)
    src.close()
    assert f"{topic}[0]@1" in str(ei.value)


def test_bad_record_skipped_with_ignore_parse_errors(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("badok")
    produce(kafka_bootstrap, topic, [(0, None, jrec(1)), (0, None, "{not json"), (0, None, jrec(3))])
    c = ctx(table("b", COLS, {**src_opts(kafka_bootstrap, topic), "json.ignore-parse-errors": "true"}))
    src = KafkaSource(c)
    src.open(None)
    rows, _ = drain(src, want_rows=2, timeout=10)
    src.close()
    assert [r["id"] for r in rows] == [1, 3]
    assert c.metrics["bad_records"] == 1
    assert src.position() == {f"{topic}:0": 3}


def test_key_fields_and_specific_offsets(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("keyed")
    produce(
        kafka_bootstrap, topic, [(0, json.dumps({"id": i}), json.dumps({"name": f"n{i}"})) for i in range(5)]
    )
    opts = {
        **src_opts(kafka_bootstrap, topic),
        "key.format": "json",
        "key.fields": "id",
        "value.fields-include": "EXCEPT_KEY",
        "scan.startup.mode": "specific-offsets",
        "scan.startup.specific-offsets": "partition:0,offset:2",
        "scan.bounded.mode": "latest-offset",
    }
    opts["value.format"] = opts.pop("format")
    src = KafkaSource(ctx(table("k", COLS, opts)))
    src.open(None)
    rows, _ = drain(src)
    src.close()
    assert rows == [{"id": i, "name": f"n{i}"} for i in (2, 3, 4)]


def test_unknown_topic_and_unreachable_broker(kafka_bootstrap):
    src = KafkaSource(ctx(table("u", COLS, src_opts(kafka_bootstrap, f"nope-{uuid.uuid4().hex}"))))
    with pytest.raises(ConfigError, match="does not exist"):
        src.open(None)
    src.close()
    # the Java consumer's bound of a blocking call (Flink's default 60 s; ours 10 s) is the wait
    wait = {"properties.default.api.timeout.ms": "2000"}
    src = KafkaSource(ctx(table("u", COLS, src_opts("127.0.0.1:1", "t", **wait))))
    t0 = time.monotonic()
    with pytest.raises(ExecutionError, match="cannot reach Kafka at 127.0.0.1:1"):
        src.open(None)
    assert time.monotonic() - t0 < 5
    src.close()


def test_topic_deleted_while_reading_fails_the_source(kafka_bootstrap, kafka_topic_factory, kafka_admin):
    """A topic deleted under a running source fails it, naming the topic: librdkafka only
    reports "unknown topic or partition" events, every second, and waits (the job ran on,
    reading nothing, with two warnings a second).

    The source fails only once librdkafka's metadata no longer lists the topic, which takes
    ``topic.metadata.propagation.max.ms`` (30 s by default, which this test waited out); 1 s here.
    """
    topic = kafka_topic_factory("gone", partitions=2)
    produce(kafka_bootstrap, topic, [(i % 2, None, jrec(i)) for i in range(20)])
    fast = {"properties.topic.metadata.propagation.max.ms": "1000"}
    src = KafkaSource(ctx(table("g", COLS, src_opts(kafka_bootstrap, topic, **fast))))
    src.open(None)
    rows, _ = drain(src, want_rows=20)
    assert len(rows) == 20
    kafka_admin.delete_topics([topic], operation_timeout=10)[topic].result(timeout=15)
    with pytest.raises(ExecutionError, match=re.escape(f"topic '{topic}' partition")):
        drain(src, timeout=60)
    src.close()


def test_option_validation(kafka_bootstrap):
    with pytest.raises(ConfigError, match="unknown option 'scan.startup.mod'"):
        KafkaSource(ctx(table("v", COLS, {**src_opts(kafka_bootstrap, "t"), "scan.startup.mod": "x"})))
    with pytest.raises(ConfigError, match="json.ignore-parse-error"):
        KafkaSource(
            ctx(table("v", COLS, {**src_opts(kafka_bootstrap, "t"), "json.ignore-parse-error": "true"}))
        )
    with pytest.raises(ConfigError, match="requires option 'properties.bootstrap.servers'"):
        KafkaSource(ctx(table("v", COLS, {"connector": "kafka", "topic": "t", "format": "json"})))
    with pytest.raises(ConfigError, match="malformed"):
        KafkaSource(
            ctx(
                table(
                    "v",
                    COLS,
                    {
                        **src_opts(kafka_bootstrap, "t"),
                        "scan.startup.mode": "specific-offsets",
                        "scan.startup.specific-offsets": "p0=1",
                    },
                )
            )
        )
    spec = get_connector("kafka")
    assert "scan.startup.mode" in {o.key for o in spec.options} and spec.option_prefixes == ("properties.",)


# -- kafka sink ------------------------------------------------------------------------------


def batch(rows, kinds=None, cols=COLS):
    names = [c for c, _ in cols]
    t = pa.Table.from_pylist(
        [dict(zip(names, r)) for r in rows],
        schema=pa.schema([(n, SqlType.parse(ty).to_arrow()) for n, ty in cols]),
    )
    return Batch(t, None if kinds is None else np.asarray(kinds, dtype=np.int8))


def sink_opts(bootstrap, topic, **extra):
    o = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": bootstrap, "format": "json"}
    o.update(extra)
    return o


def test_sink_at_least_once_with_key(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("sinkal", partitions=2)
    s = KafkaSink(
        ctx(table("s", COLS, {**sink_opts(kafka_bootstrap, topic), "key.format": "json", "key.fields": "id"}))
    )
    assert not s.transactional and not s.accepts_updates
    s.open()
    s.write(batch([(i, f"n{i}") for i in range(100)]))
    s.pre_commit(1)
    s.close()
    msgs = read_all(kafka_bootstrap, topic, "read_uncommitted")
    assert len(msgs) == 100
    assert {json.loads(k)["id"] for _, _, k, _ in msgs} == set(range(100))
    assert all(json.loads(k)["id"] == json.loads(v)["id"] for _, _, k, v in msgs)
    with pytest.raises(ExecutionError, match="append-only"):
        s.write(batch([(1, "x")], [RowKind.DELETE]))


def progress_topic(factory):
    return factory("progress", partitions=1, config={"cleanup.policy": "compact"})


def eo_opts(bootstrap, topic, progress):
    return sink_opts(
        bootstrap,
        topic,
        **{
            "sink.delivery-guarantee": "exactly-once",
            "sink.progress-topic": progress,
            "sink.transactional-id-prefix": "test",
        },
    )


def test_exactly_once_holds_rows_between_pre_commit_and_commit(kafka_bootstrap, kafka_topic_factory):
    topic, progress = kafka_topic_factory("eo"), progress_topic(kafka_topic_factory)
    job = f"job-{uuid.uuid4().hex[:8]}"
    resources = TaskResources()
    s = KafkaSink(ctx(table("s", COLS, eo_opts(kafka_bootstrap, topic, progress)), job, resources))
    assert s.transactional
    txn = resources.committer
    assert txn is s.session.txn and txn.transactional_id == f"test-{job}-0"
    s.open()
    s.write(batch([(1, "a"), (2, "b")]))
    s.pre_commit(1)
    assert read_all(kafka_bootstrap, topic) == []  # acked but not committed
    s.write(batch([(3, "c")]))  # epoch 2: held until commit(1)
    txn.commit(1, {"positions": {"src": {"0": 2}}})
    s.commit(1)
    got = [json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, topic)]
    assert got == [1, 2]
    s.pre_commit(2)
    txn.commit(2, {"positions": {}})
    s.commit(2)
    got = [json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, topic)]
    assert got == [1, 2, 3]
    assert txn.last_committed() == 2
    markers = [json.loads(v) for _, _, k, v in read_all(kafka_bootstrap, progress) if k == job.encode()]
    assert [m["checkpoint_id"] for m in markers] == [1, 2]
    assert markers[0]["positions"] == {"src": {"0": 2}}
    s.close()
    txn.close()


def test_two_sinks_share_one_transaction(kafka_bootstrap, kafka_topic_factory):
    t1, t2, progress = kafka_topic_factory("a"), kafka_topic_factory("b"), progress_topic(kafka_topic_factory)
    job, services = f"job-{uuid.uuid4().hex[:8]}", TaskResources()
    s1 = KafkaSink(ctx(table("s1", COLS, eo_opts(kafka_bootstrap, t1, progress)), job, services))
    s2 = KafkaSink(ctx(table("s2", COLS, eo_opts(kafka_bootstrap, t2, progress)), job, services))
    assert s1.session.txn is s2.session.txn
    # another prefix joins the transaction, whose id joins the prefixes (Flink: one per sink)
    opts = {**eo_opts(kafka_bootstrap, t2, progress), "sink.transactional-id-prefix": "other"}
    s3 = KafkaSink(ctx(table("s3", COLS, opts), job, services))
    assert s3.session.txn is s1.session.txn and s3.session.txn.transactional_id == f"other+test-{job}-0"
    with pytest.raises(ConfigError, match="share one transaction, but its 'sink.progress-topic'"):
        opts = {**eo_opts(kafka_bootstrap, t2, progress), "sink.progress-topic": f"{progress}-other"}
        KafkaSink(ctx(table("s4", COLS, opts), job, services))
    s1.open()
    s2.open()
    s1.write(batch([(1, "a")]))
    s2.write(batch([(2, "b")]))
    s1.pre_commit(1)
    s2.pre_commit(1)
    s1.session.txn.commit(1, {})
    s1.close()
    s2.close()  # the last user closes the producer
    assert [json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, t1)] == [1]
    assert [json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, t2)] == [2]


def test_aborted_transaction_never_visible_and_zombie_fenced(kafka_bootstrap, kafka_topic_factory):
    topic, progress = kafka_topic_factory("zombie"), progress_topic(kafka_topic_factory)
    job = f"job-{uuid.uuid4().hex[:8]}"
    opts = eo_opts(kafka_bootstrap, topic, progress)
    # incarnation 1 commits checkpoint 1, then writes epoch 2 and "dies" without committing
    sv1 = TaskResources()
    s1 = KafkaSink(ctx(table("s", COLS, opts), job, sv1))
    s1.open()
    s1.write(batch([(1, "committed")]))
    s1.pre_commit(1)
    sv1.committer.commit(1, {})
    s1.commit(1)
    s1.write(batch([(2, "zombie")]))
    s1.pre_commit(2)  # acked, in an open transaction; the process "crashes" here (no close)
    # incarnation 2 with the same job name: init_transactions fences the zombie and aborts its txn
    sv2 = TaskResources()
    s2 = KafkaSink(ctx(table("s", COLS, opts), job, sv2))
    s2.open()
    assert sv2.committer.last_committed() == 1
    with pytest.raises(ExecutionError, match="cannot commit checkpoint 2: .*fenced"):
        sv1.committer.commit(2, {})
    s2.write(batch([(3, "new")]))
    s2.pre_commit(2)
    sv2.committer.commit(2, {})
    s2.commit(2)
    assert [json.loads(v)["name"] for *_, v in read_all(kafka_bootstrap, topic)] == ["committed", "new"]
    # read_uncommitted shows the aborted records are physically there
    assert "zombie" in [
        json.loads(v)["name"]
        for *_, v in read_all(kafka_bootstrap, topic, "read_uncommitted")
        if v and v.startswith(b"{")
    ]
    assert sv2.committer.last_committed() == 2
    s2.close()
    s1.close()


def test_close_without_commit_aborts(kafka_bootstrap, kafka_topic_factory):
    topic, progress = kafka_topic_factory("abort"), progress_topic(kafka_topic_factory)
    job = f"job-{uuid.uuid4().hex[:8]}"
    sv = {}
    s = KafkaSink(ctx(table("s", COLS, eo_opts(kafka_bootstrap, topic, progress)), job, sv))
    s.open()
    s.write(batch([(1, "x")]))
    s.pre_commit(1)
    s.close()  # aborts the open transaction
    txn2 = KafkaTransactions({"bootstrap.servers": kafka_bootstrap}, job, 0, "test", progress)
    assert txn2.last_committed() is None
    txn2.close()
    assert read_all(kafka_bootstrap, topic) == []


def test_last_committed_returns_last_marker_of_the_job(kafka_bootstrap, kafka_topic_factory):
    progress = progress_topic(kafka_topic_factory)
    job, other = f"job-{uuid.uuid4().hex[:8]}", f"other-{uuid.uuid4().hex[:8]}"
    txn = KafkaTransactions({"bootstrap.servers": kafka_bootstrap}, job, 0, "test", progress)
    assert txn.last_committed() is None
    for n in (1, 2, 3):
        txn.commit(n, {"positions": {}})
    txn.close()
    txo = KafkaTransactions({"bootstrap.servers": kafka_bootstrap}, other, 0, "test", progress)
    txo.commit(7, {})
    txo.close()
    again = KafkaTransactions({"bootstrap.servers": kafka_bootstrap}, job, 0, "test", progress)
    assert again.last_committed() == 3
    again.commit(4, {"positions": {}, "final": True})  # the job finished: a new run starts afresh
    again.close()
    fresh = KafkaTransactions({"bootstrap.servers": kafka_bootstrap}, job, 0, "test", progress)
    assert fresh.last_committed() is None
    fresh.close()


def test_progress_topic_created_compacted(kafka_bootstrap, kafka_admin):
    from confluent_kafka.admin import ConfigResource

    name = f"_progress-{uuid.uuid4().hex[:8]}"
    txn = KafkaTransactions(
        {"bootstrap.servers": kafka_bootstrap}, f"j-{uuid.uuid4().hex[:6]}", 0, "test", name
    )
    try:
        txn.commit(1, {})
        res = ConfigResource(ConfigResource.Type.TOPIC, name)
        cfg = kafka_admin.describe_configs([res])[res].result(timeout=10)
        assert cfg["cleanup.policy"].value == "compact"
        assert len(kafka_admin.list_topics(name, timeout=10).topics[name].partitions) == 1
    finally:
        txn.close()
        kafka_admin.delete_topics([name])


# -- upsert-kafka ----------------------------------------------------------------------------


def upsert_opts(bootstrap, topic, **extra):
    o = {
        "connector": "upsert-kafka",
        "topic": topic,
        "properties.bootstrap.servers": bootstrap,
        "key.format": "json",
        "value.format": "json",
    }
    o.update(extra)
    return o


def test_upsert_sink_writes_real_tombstones(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("upsert")
    s = UpsertKafkaSink(
        ctx(
            table(
                "u",
                COLS,
                upsert_opts(kafka_bootstrap, topic, **{"sink.delivery-guarantee": "at-least-once"}),
                pk=["id"],
            )
        )
    )
    assert s.accepts_updates and s.requires_primary_key and not s.transactional
    s.open()
    s.write(batch([(1, "a"), (2, "b")]))
    s.pre_commit(1)
    s.write(batch([(2, "b")], [RowKind.DELETE]))
    s.pre_commit(2)
    s.close()
    msgs = read_all(kafka_bootstrap, topic)
    assert [(json.loads(k), v) for _, _, k, v in msgs] == [
        ({"id": 1}, b'{"id":1,"name":"a"}'),
        ({"id": 2}, b'{"id":2,"name":"b"}'),
        ({"id": 2}, None),
    ]


def test_upsert_sink_with_buffer_flush_compacts_within_an_epoch(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("compact")
    s = UpsertKafkaSink(
        ctx(
            table(
                "u",
                COLS,
                upsert_opts(
                    kafka_bootstrap,
                    topic,
                    **{"sink.delivery-guarantee": "at-least-once", "sink.buffer-flush.interval": "1 h",
                       "sink.buffer-flush.max-rows": "1000"},  # reducing, as Flink's with both set
                ),
                pk=["id"],
            )
        )
    )
    s.open()
    INS, UB, UA, D = RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER, RowKind.DELETE
    s.write(batch([(1, "a"), (2, "x")], [INS, INS]))
    s.write(batch([(1, "a"), (1, "b"), (3, "y")], [UB, UA, INS]))
    s.write(batch([(1, "b"), (1, "c"), (2, "x")], [UB, UA, D]))
    assert read_all(kafka_bootstrap, topic, "read_uncommitted") == []  # buffered until the checkpoint
    s.pre_commit(1)
    s.close()
    msgs = {json.loads(k)["id"]: v for _, _, k, v in read_all(kafka_bootstrap, topic)}
    assert len(read_all(kafka_bootstrap, topic)) == 3
    assert msgs == {1: b'{"id":1,"name":"c"}', 2: None, 3: b'{"id":3,"name":"y"}'}
    assert s.rows_compacted == 5  # the -U rows too: each is a tombstone its key's +U replaces


def test_upsert_sink_writes_every_change_of_an_epoch_in_its_transaction(kafka_bootstrap, kafka_topic_factory):
    """Flink 2.3's upsert-kafka sink without 'sink.buffer-flush.*': 3 changes of one key in one
    checkpoint are 3 records, in order, visible when the checkpoint commits (1 record before)."""
    topic, progress = kafka_topic_factory("uall"), progress_topic(kafka_topic_factory)
    s = UpsertKafkaSink(
        ctx(
            table(
                "u", COLS, upsert_opts(kafka_bootstrap, topic, **{"sink.progress-topic": progress}), pk=["id"]
            ),
            f"job-{uuid.uuid4().hex[:8]}",
            TaskResources(),
            config={"execution.checkpointing.mode": "EXACTLY_ONCE"},
        )
    )
    assert s.transactional
    s.open()
    s.write(batch([(1, "a")]))
    s.write(batch([(1, "b")], [RowKind.UPDATE_AFTER]))
    s.write(batch([(1, "c")], [RowKind.UPDATE_AFTER]))
    assert read_all(kafka_bootstrap, topic, timeout=2) == []  # in the open transaction
    s.pre_commit(1)
    s.session.txn.commit(1, {})
    s.commit(1)
    s.close()
    assert [v for *_, v in read_all(kafka_bootstrap, topic)] == [
        b'{"id":1,"name":"a"}', b'{"id":1,"name":"b"}', b'{"id":1,"name":"c"}']


def test_upsert_sink_exactly_once_by_default(kafka_bootstrap, kafka_topic_factory):
    topic, progress = kafka_topic_factory("ueo"), progress_topic(kafka_topic_factory)
    services = TaskResources()
    s = UpsertKafkaSink(
        ctx(
            table(
                "u", COLS, upsert_opts(kafka_bootstrap, topic, **{"sink.progress-topic": progress}), pk=["id"]
            ),
            f"job-{uuid.uuid4().hex[:8]}",
            services,
            config={"execution.checkpointing.mode": "EXACTLY_ONCE"},
        )
    )
    assert s.transactional and services.committer is s.session.txn
    s.open()
    s.write(batch([(1, "a")]))
    s.pre_commit(1)
    s.write(batch([(1, "b")], [RowKind.UPDATE_AFTER]))  # held: belongs to epoch 2
    s.session.txn.commit(1, {})
    s.commit(1)
    assert [v for *_, v in read_all(kafka_bootstrap, topic)] == [b'{"id":1,"name":"a"}']
    s.close()  # epoch 2 never committed
    assert [v for *_, v in read_all(kafka_bootstrap, topic)] == [b'{"id":1,"name":"a"}']
    at_least = UpsertKafkaSink(
        ctx(
            table("u", COLS, upsert_opts(kafka_bootstrap, topic), pk=["id"]),
            config={"execution.checkpointing.mode": "AT_LEAST_ONCE"},
        )
    )
    assert not at_least.transactional


def test_upsert_source_changelog_and_restore(kafka_bootstrap, kafka_topic_factory):
    topic = kafka_topic_factory("usrc", config={"cleanup.policy": "compact"})
    k = lambda i: json.dumps({"id": i})  # noqa: E731
    produce(
        kafka_bootstrap,
        topic,
        [
            (0, k(1), jrec(1, "a")),
            (0, k(2), jrec(2, "x")),
            (0, k(1), jrec(1, "b")),
            (0, k(2), None),
            (0, k(1), jrec(1, "b")),
            (0, k(3), None),
        ],
    )
    t = table(
        "u", COLS, upsert_opts(kafka_bootstrap, topic, **{"scan.bounded.mode": "latest-offset"}), pk=["id"]
    )
    src = UpsertKafkaSource(ctx(t))
    assert src.changelog
    src.open(None)
    rows, kinds = drain(src)
    src.close()
    assert list(zip(kinds, [(r["id"], r["name"]) for r in rows])) == [
        ("+I", (1, "a")),
        ("+I", (2, "x")),
        ("-U", (1, "a")),
        ("+U", (1, "b")),
        ("-D", (2, "x")),
    ]
    assert src.position() == {f"{topic}:0": 6, f"^{topic}:0": 6}
    # restore after the first two records: the state before is rebuilt from the topic
    src2 = UpsertKafkaSource(ctx(t))
    src2.open({"0": 2})  # a bare partition: a checkpoint written before positions named their topic
    rows, kinds = drain(src2)
    src2.close()
    assert list(zip(kinds, [(r["id"], r["name"]) for r in rows])) == [
        ("-U", (1, "a")),
        ("+U", (1, "b")),
        ("-D", (2, "x")),
    ]


def test_upsert_requires_primary_key(kafka_bootstrap):
    with pytest.raises(ConfigError, match="PRIMARY KEY"):
        UpsertKafkaSource(ctx(table("u", COLS, upsert_opts(kafka_bootstrap, "t"))))


# -- end to end: kill -9 during the commit, restart, exactly once --------------------------------

_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
bs, src, dst, d, name = sys.argv[1:6]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "100 ms",
                         "execution.batch-size": "10"})
env.execute_sql(f"CREATE TABLE s (id BIGINT, name STRING) WITH ('connector'='kafka', 'topic'='{src}', "
                f"'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset')")
env.execute_sql(f"CREATE TABLE d (id BIGINT, name STRING) WITH ('connector'='kafka', 'topic'='{dst}', "
                f"'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'sink.delivery-guarantee'='exactly-once')")
env.execute_sql("INSERT INTO d SELECT id, name FROM s")
env.wait_all()
"""


# after_snapshot_before_commit under -m slow: tests/runtime/test_windows.py kills a job writing into an
# exactly-once kafka sink there by default (and the crash campaign's agg and join workloads).
@pytest.mark.parametrize("fault", ["during_commit",
                                   pytest.param("after_snapshot_before_commit", marks=pytest.mark.slow)])
def test_kill_and_restart_is_exactly_once(kafka_bootstrap, kafka_topic_factory, tmp_path, fault):
    src, dst = kafka_topic_factory("e2e-src", partitions=2), kafka_topic_factory("e2e-dst", partitions=2)
    produce(kafka_bootstrap, src, [(i % 2, None, jrec(i)) for i in range(3000)])
    name = f"e2e-{uuid.uuid4().hex[:8]}"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = [sys.executable, "-c", _CHILD, kafka_bootstrap, src, dst, str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": root, "STREAMSQL_FAULT": f"{fault}:2"}
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    env.pop("STREAMSQL_FAULT")
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=180, cwd=tmp_path)
    assert r.returncode == 0, r.stderr[-2000:]
    ids = [json.loads(v)["id"] for *_, v in read_all(kafka_bootstrap, dst)]
    assert len(ids) == 3000 and set(ids) == set(range(3000))
