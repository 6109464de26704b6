"""Partition discovery ('scan.topic-partition-discovery.interval') against the real broker.

Flink's KafkaSourceEnumerator assigns partitions added while a job runs from their EARLIEST offset;
these tests add partitions with the admin client (create_partitions) and check that every row of the
new partitions is read exactly once, across a restore and across the tasks of a parallel job.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

import pytest
from confluent_kafka.admin import NewPartitions
from streamsql.connectors.kafka import KafkaSource, UpsertKafkaSource

from streamsql.core.connector import ConnectorContext, TaskResources
from streamsql.core.errors import ConfigError, ExecutionError
from tests.integration.test_kafka_connectors import _CHILD as KILL_CHILD
from tests.integration.test_kafka_connectors import COLS, drain, jrec, produce, read_all, src_opts, table


def ctx(tbl, task=0, tasks=1):
    return ConnectorContext(tbl, "job", {}, resources=TaskResources(), task_index=task, num_tasks=tasks)


def grow(admin, topic, total):
    """Give ``topic`` ``total`` partitions and wait until producers see them."""
    admin.create_partitions([NewPartitions(topic, total)], operation_timeout=30)[topic].result(timeout=60)
    deadline = time.monotonic() + 30
    while len(admin.list_topics(topic=topic, timeout=10).topics[topic].partitions) < total:
        assert time.monotonic() < deadline, "partitions not visible"
        time.sleep(0.1)


def ids(rows):
    return sorted(r["id"] for r in rows)


def test_option_parsed_as_flink(kafka_bootstrap):
    """Flink's Duration syntax, default 5 min, '0' disables, ignored for a bounded read; a negative or
    malformed duration is refused (Flink's TimeUtils.parseDuration refuses '-1 s' too)."""
    def interval(value=None, source=KafkaSource, **extra):
        o = {**src_opts(kafka_bootstrap, "t"), **extra}
        if source is UpsertKafkaSource:
            o["connector"] = "upsert-kafka"
            del o["scan.startup.mode"]
            o["key.format"] = o["value.format"] = o.pop("format")  # upsert-kafka takes no 'format'
        if value is not None:
            o["scan.topic-partition-discovery.interval"] = value
        pk = ["id"] if source is UpsertKafkaSource else ()
        return source(ctx(table("v", COLS, o, pk=pk))).reader.discovery_s

    assert interval() == 300.0
    assert interval("1 s") == 1.0
    assert interval("500ms") == 0.5
    assert interval("2 min") == 120.0
    assert interval("PT10S") == 10.0
    assert interval("0") == 0.0
    assert interval("1 s", **{"scan.bounded.mode": "latest-offset"}) == 0.0
    assert interval("1 s", UpsertKafkaSource) == 1.0
    assert interval(None, UpsertKafkaSource) == 300.0
    for bad in ("-1 s", "soon", "5 parsecs"):
        with pytest.raises(ConfigError, match="scan.topic-partition-discovery.interval"):
            interval(bad)


def test_added_partitions_read_from_earliest_once_and_restored(kafka_bootstrap, kafka_topic_factory,
                                                               kafka_admin):
    topic = kafka_topic_factory("disc", partitions=1)
    produce(kafka_bootstrap, topic, [(0, None, jrec(i)) for i in range(5)])
    # 'latest-offset' startup: the old rows are skipped, the new partitions still start at EARLIEST
    t = table("d", COLS, src_opts(kafka_bootstrap, topic, **{
        "scan.startup.mode": "latest-offset", "scan.topic-partition-discovery.interval": "1 s"}))
    src = KafkaSource(ctx(t))
    src.open(None)
    assert src.position() == {f"{topic}:0": 5}
    before = src.position()  # a checkpoint taken before the discovery
    grow(kafka_admin, topic, 3)
    # produced before the source looks again: read all the same (earliest)
    produce(kafka_bootstrap, topic, [(1 + i % 2, None, jrec(100 + i)) for i in range(20)])
    produce(kafka_bootstrap, topic, [(0, None, jrec(200 + i)) for i in range(3)])
    rows, _ = drain(src, want_rows=23, timeout=20)
    rows += drain(src, timeout=1.5)[0]  # nothing more comes
    assert ids(rows) == list(range(100, 120)) + [200, 201, 202]
    assert src.split_names == ["0", "1", "2"]
    after = src.position()
    assert after == {f"{topic}:0": 8, f"{topic}:1": 10, f"{topic}:2": 10}
    src.close()

    produce(kafka_bootstrap, topic, [(2, None, jrec(300))])
    # restore at the checkpoint after the discovery: only the new row
    again = KafkaSource(ctx(t))
    again.open(json.loads(json.dumps(after)))
    rows, _ = drain(again, want_rows=1, timeout=10)
    rows += drain(again, timeout=1)[0]
    again.close()
    assert ids(rows) == [300]
    # restore at the checkpoint before it: partitions the position does not name start at EARLIEST
    early = KafkaSource(ctx(t))
    early.open(before)
    rows, _ = drain(early, want_rows=24, timeout=10)
    rows += drain(early, timeout=1)[0]
    early.close()
    assert ids(rows) == list(range(100, 120)) + [200, 201, 202, 300]


def test_new_topic_matching_the_pattern_is_read_from_earliest(kafka_bootstrap, kafka_topic_factory):
    uid = uuid.uuid4().hex[:8]
    first = kafka_topic_factory(f"pat{uid}-a")
    produce(kafka_bootstrap, first, [(0, None, jrec(1))])
    o = {**src_opts(kafka_bootstrap, "x", **{"scan.topic-partition-discovery.interval": "1 s"}),
         "topic-pattern": f"pat{uid}-.*"}
    del o["topic"]
    src = KafkaSource(ctx(table("p", COLS, o)))
    src.open(None)
    rows, _ = drain(src, want_rows=1)
    second = kafka_topic_factory(f"pat{uid}-b", partitions=2)
    produce(kafka_bootstrap, second, [(i % 2, None, jrec(10 + i)) for i in range(6)])
    rows += drain(src, want_rows=6, timeout=15)[0]
    rows += drain(src, timeout=1.5)[0]
    assert ids(rows) == [1, 10, 11, 12, 13, 14, 15]
    assert src.position() == {f"{first}:0": 1, f"{second}:0": 3, f"{second}:1": 3}
    src.close()


def test_discovery_off_never_discovers(kafka_bootstrap, kafka_topic_factory, kafka_admin):
    topic = kafka_topic_factory("nodisc", partitions=1)
    off = KafkaSource(ctx(table("d", COLS, src_opts(kafka_bootstrap, topic, **{
        "scan.topic-partition-discovery.interval": "0"}))))
    off.open(None)
    grow(kafka_admin, topic, 2)
    produce(kafka_bootstrap, topic, [(1, None, jrec(1))])
    rows, _ = drain(off, timeout=2.5)
    assert rows == [] and off.position() == {f"{topic}:0": 0}
    off.close()


def owned(topic, task, tasks, partitions):
    """The ``topic:p`` keys task ``task`` reads: Flink's KafkaSourceEnumerator.getSplitOwner, written
    out here from its source ((hashCode * 31 & 0x7FFFFFFF) % tasks, then + partition)."""
    h = 0
    for ch in topic:
        h = (31 * h + ord(ch)) & 0xFFFFFFFF
    start = ((h * 31) & 0x7FFFFFFF) % tasks
    return {f"{topic}:{p}" for p in range(partitions) if (start + p) % tasks == task}


def offsets(position):
    """A position's partition entries (without the topics' ``@`` starts)."""
    return {k: v for k, v in position.items() if not k.startswith("@")}


def test_parallel_tasks_share_new_partitions_exactly_once(kafka_bootstrap, kafka_topic_factory, kafka_admin):
    """Each new partition is read by exactly one task (Flink's owner), as a restart assigns it."""
    topic = kafka_topic_factory("pdisc", partitions=2)
    every_s = {"scan.topic-partition-discovery.interval": "1 s"}
    t = table("d", COLS, src_opts(kafka_bootstrap, topic, **every_s))
    tasks = [KafkaSource(ctx(t, i, 2)) for i in range(2)]
    for s in tasks:
        s.open(None)
    grow(kafka_admin, topic, 5)
    produce(kafka_bootstrap, topic, [(i % 5, None, jrec(i)) for i in range(100)])
    got = [[], []]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(got[0]) + len(got[1]) < 100:
        for i, s in enumerate(tasks):
            got[i] += drain(s, timeout=0.3)[0]
    for i, s in enumerate(tasks):
        got[i] += drain(s, timeout=1)[0]
    assert sorted(ids(got[0]) + ids(got[1])) == list(range(100))
    for i, s in enumerate(tasks):
        assert set(offsets(s.position())) == owned(topic, i, 2, 5)
        assert {r["id"] % 5 for r in got[i]} == {int(k.rpartition(":")[2]) for k in offsets(s.position())}
        s.close()
    # a restarted task owns the same partitions and resumes them
    for i in range(2):
        r = KafkaSource(ctx(t, i, 2))
        r.open(tasks[i].position())
        assert r.position() == tasks[i].position()
        r.close()


def test_parallel_partitions_added_to_any_topic_keep_the_known_ones(kafka_bootstrap, kafka_topic_factory,
                                                                     kafka_admin):
    """Several topics, 2 tasks: partitions added to the first topic (in name order) move no known
    partition (it stopped the job with an error before: one numbering of all topics' partitions)."""
    a, b = kafka_topic_factory("mva", partitions=1), kafka_topic_factory("mvb", partitions=2)
    first, second = sorted([a, b])
    t = table("d", COLS, {**src_opts(kafka_bootstrap, f"{first};{second}"),
                          "scan.topic-partition-discovery.interval": "1 s"})
    tasks = [KafkaSource(ctx(t, i, 2)) for i in range(2)]
    for s in tasks:
        s.open(None)
    parts = {first: 1, second: 2}
    before = [s.position() for s in tasks]
    for i, pos in enumerate(before):
        assert set(offsets(pos)) == owned(first, i, 2, 1) | owned(second, i, 2, 2)
        assert {k for k in pos if k.startswith("@")} == {f"@{first}", f"@{second}"}
    grow(kafka_admin, first, 3)
    parts[first] = 3
    produce(kafka_bootstrap, first, [(i % 3, None, jrec(i)) for i in range(30)])
    produce(kafka_bootstrap, second, [(i % 2, None, jrec(100 + i)) for i in range(10)])
    got = [[], []]
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(got[0]) + len(got[1]) < 40:
        for i, s in enumerate(tasks):
            got[i] += drain(s, timeout=0.3)[0]
    assert sorted(ids(got[0]) + ids(got[1])) == list(range(30)) + list(range(100, 110))
    for i, s in enumerate(tasks):
        assert set(offsets(s.position())) == owned(first, i, 2, 3) | owned(second, i, 2, 2)
        s.close()
    # a restore of the checkpoints before the partitions were added owns the same partitions, and
    # the new ones from their earliest offset
    again = [KafkaSource(ctx(t, i, 2)) for i in range(2)]
    for s, pos in zip(again, before):
        s.open(pos)
    got = [drain(s, timeout=3)[0] for s in again]
    assert sorted(ids(got[0]) + ids(got[1])) == list(range(30)) + list(range(100, 110))
    for s in again:
        s.close()


def test_parallel_restore_of_a_position_without_starts_keeps_its_numbering(kafka_bootstrap,
                                                                            kafka_topic_factory, kafka_admin):
    """A position written before the topics' starts were recorded numbered every partition in one
    sequence (i % tasks); it restores so, and fails with an error when partitions added to the
    first topic since then moved one of its partitions (never reads rows twice or never)."""
    a, b = kafka_topic_factory("lga", partitions=1), kafka_topic_factory("lgb", partitions=1)
    first, second = sorted([a, b])
    produce(kafka_bootstrap, second, [(0, None, jrec(i)) for i in range(5)])
    t = table("d", COLS, src_opts(kafka_bootstrap, f"{first};{second}"))
    r = KafkaSource(ctx(t, 1, 2))
    r.open({f"{second}:0": 2})  # task 1 of 2 read second:0 (index 1) up to offset 2
    assert ids(drain(r, want_rows=3, timeout=10)[0]) == [2, 3, 4]
    assert r.position() == {f"{second}:0": 5, f"@{first}": 0, f"@{second}": 1}
    r.close()
    grow(kafka_admin, first, 2)  # second:0 is index 2 now: task 0's
    r = KafkaSource(ctx(t, 1, 2))
    with pytest.raises(ExecutionError, match=r"partitions added since move .*\[0\] to another of the job"):
        r.open({f"{second}:0": 2})
    r.close()


def test_upsert_source_keeps_one_state_across_new_partitions(kafka_bootstrap, kafka_topic_factory,
                                                             kafka_admin):
    """A key whose updates land on a discovered partition updates the value read before (-U/+U)."""
    topic = kafka_topic_factory("udisc", partitions=1, config={"cleanup.policy": "compact"})
    k = json.dumps({"id": 1})
    produce(kafka_bootstrap, topic, [(0, k, jrec(1, "a"))])
    o = {"connector": "upsert-kafka", "topic": topic, "properties.bootstrap.servers": kafka_bootstrap,
         "key.format": "json", "value.format": "json", "scan.topic-partition-discovery.interval": "1 s"}
    t = table("u", COLS, o, pk=["id"])
    src = UpsertKafkaSource(ctx(t))
    src.open(None)
    rows, kinds = drain(src, want_rows=1)
    grow(kafka_admin, topic, 2)
    k2 = json.dumps({"id": 2})
    produce(kafka_bootstrap, topic, [(1, k, jrec(1, "b")), (1, k, None), (1, k2, jrec(2, "y"))])
    more, more_kinds = drain(src, want_rows=4, timeout=15)
    pos = src.position()
    src.close()
    assert list(zip(kinds + more_kinds, [r["name"] for r in rows + more])) == [
        ("+I", "a"), ("-U", "a"), ("+U", "b"), ("-D", "b"), ("+I", "y")]
    assert pos == {f"{topic}:0": 1, f"{topic}:1": 3}
    # a restore rebuilds the per-key state from the discovered partition's history too (key 2 lives
    # only there: Kafka orders key 1's records across partitions in no way a reader could rely on)
    produce(kafka_bootstrap, topic, [(0, k2, jrec(2, "z"))])
    again = UpsertKafkaSource(ctx(t))
    again.open(pos)
    rows, kinds = drain(again, want_rows=2, timeout=10)
    again.close()
    assert list(zip(kinds, [r["name"] for r in rows])) == [("-U", "y"), ("+U", "z")]


# -- end to end: kill -9 after the discovery, restart, exactly once ----------------------------------

#: the job of test_kafka_connectors' kill -9 test, unbounded, looking for partitions every 300 ms
_CHILD = KILL_CHILD.replace("'scan.bounded.mode'='latest-offset'",
                            "'scan.topic-partition-discovery.interval'='300 ms'")
assert _CHILD != KILL_CHILD


def _committed_ids(bootstrap, topic):
    return [json.loads(v)["id"] for *_, v in read_all(bootstrap, topic)]


# during_commit under -m slow (the suite's second slowest test in CI, 12-32 s): the kill -9 after the
# discovery and the restore of the added partitions are the same in both cases, and
# tests/integration/test_kafka_connectors.py's test_kill_and_restart_is_exactly_once[during_commit]
# kills this job's script (without discovery) at during_commit by default, as does the crash
# campaign's filter workload.
@pytest.mark.parametrize("fault", [pytest.param("during_commit", marks=pytest.mark.slow),
                                   "after_snapshot_before_commit"])
def test_kill_after_discovery_and_restart_is_exactly_once(kafka_bootstrap, kafka_topic_factory, kafka_admin,
                                                          tmp_path, fault):
    src, dst = kafka_topic_factory("kd-src", partitions=1), kafka_topic_factory("kd-dst", partitions=1)
    produce(kafka_bootstrap, src, [(0, None, jrec(i)) for i in range(200)])
    name = f"kd-{uuid.uuid4().hex[:8]}"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = [sys.executable, "-c", _CHILD, kafka_bootstrap, src, dst, str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": root}
    job = subprocess.Popen(args, env=env, stderr=(tmp_path / "job.err").open("a"), cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while not _committed_ids(kafka_bootstrap, dst):  # the job runs and commits
            assert job.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        grow(kafka_admin, src, 3)
        produce(kafka_bootstrap, src, [(1 + i % 2, None, jrec(200 + i)) for i in range(600)])
        while len(set(_committed_ids(kafka_bootstrap, dst))) < 400:  # new partitions read, committed
            assert job.poll() is None and time.monotonic() < deadline, "new partitions not read"
            time.sleep(0.2)
    finally:
        job.kill()  # kill -9 mid-stream: the open epoch is lost, the restart resumes the last commit
        job.wait()
    produce(kafka_bootstrap, src, [(p, None, jrec(800 + p)) for p in range(3)])
    env["STREAMSQL_FAULT"] = f"{fault}:3"  # ... and once more inside the commit protocol
    r = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 137, r.stderr[-2000:]
    env.pop("STREAMSQL_FAULT")
    job = subprocess.Popen(args, env=env, stderr=(tmp_path / "job.err").open("a"), cwd=tmp_path)
    try:
        deadline = time.monotonic() + 60
        while len(_committed_ids(kafka_bootstrap, dst)) < 803:
            assert job.poll() is None and time.monotonic() < deadline, "rows missing after the restore"
            time.sleep(0.2)
        time.sleep(1.5)  # duplicates would be committed by now
    finally:
        job.kill()
        job.wait()
    got = _committed_ids(kafka_bootstrap, dst)
    assert sorted(got) == list(range(803))


#: a parallel job (2 tasks in one process) reading two topics into an exactly-once sink
_PARALLEL_CHILD = """
import sys
from streamsql.environment import StreamEnvironment
bs, first, second, dst, d, name = sys.argv[1:7]
env = StreamEnvironment({"execution.checkpointing.dir": d + "/chk", "state.dir": d + "/state",
                         "pipeline.name": name, "execution.checkpointing.interval": "100 ms",
                         "parallelism.default": "2"})
env.execute_sql(f"CREATE TABLE s (id BIGINT, name STRING) WITH ('connector'='kafka', "
                f"'topic'='{first};{second}', 'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'scan.startup.mode'='earliest-offset', 'scan.topic-partition-discovery.interval'='300 ms')")
env.execute_sql(f"CREATE TABLE d (id BIGINT, name STRING) WITH ('connector'='kafka', 'topic'='{dst}', "
                f"'properties.bootstrap.servers'='{bs}', 'format'='json', "
                f"'sink.delivery-guarantee'='exactly-once')")
env.execute_sql("INSERT INTO d SELECT id, name FROM s")
env.wait_all()
"""


def test_parallel_job_killed_while_partitions_are_added_to_the_first_topic(kafka_bootstrap,
                                                                          kafka_topic_factory, kafka_admin,
                                                                          tmp_path):
    """kill -9 of a 2-task job reading two topics; partitions added to the first topic (in name order)
    while it is down and again while it runs, and to the second: every row exactly once. Before each
    topic's start was recorded, the restart stopped with 'partitions were added in a way that moves
    ...' (the second topic's partition 0 went from index 1 to 2), and so did the discovery."""
    a, b = kafka_topic_factory("kp-a", partitions=1), kafka_topic_factory("kp-b", partitions=1)
    first, second = sorted([a, b])
    dst = kafka_topic_factory("kp-dst", partitions=1)
    produce(kafka_bootstrap, first, [(0, None, jrec(i)) for i in range(100)])
    produce(kafka_bootstrap, second, [(0, None, jrec(100 + i)) for i in range(100)])
    name = f"kp-{uuid.uuid4().hex[:8]}"
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = [sys.executable, "-c", _PARALLEL_CHILD, kafka_bootstrap, first, second, dst, str(tmp_path), name]
    env = {**os.environ, "PYTHONPATH": root}

    def wait_for(job: subprocess.Popen, count: int) -> subprocess.Popen:
        deadline = time.monotonic() + 90
        while len(set(_committed_ids(kafka_bootstrap, dst))) < count:
            err = (tmp_path / "job.err").read_text()[-2000:]
            assert job.poll() is None and time.monotonic() < deadline, f"{count} rows not committed: {err}"
            time.sleep(0.2)
        return job

    def run_until(count: int) -> subprocess.Popen:
        job = subprocess.Popen(args, env=env, stderr=(tmp_path / "job.err").open("a"), cwd=tmp_path)
        return wait_for(job, count)

    job = run_until(200)
    job.kill()  # kill -9: the open epoch is lost, the restart resumes each task's last commit
    job.wait()
    grow(kafka_admin, first, 2)  # second:0 was partition 1 of one numbering, now 2: another task's
    produce(kafka_bootstrap, first, [(1, None, jrec(200 + i)) for i in range(60)])
    job = run_until(260)
    try:
        grow(kafka_admin, first, 3)  # ... and again while it runs (discovery), and the second topic too
        grow(kafka_admin, second, 2)
        produce(kafka_bootstrap, first, [(2, None, jrec(260 + i)) for i in range(30)])
        produce(kafka_bootstrap, second, [(i % 2, None, jrec(300 + i)) for i in range(40)])
        wait_for(job, 330)
        time.sleep(1.5)  # duplicates would be committed by now
    finally:
        job.kill()
        job.wait()
    got = _committed_ids(kafka_bootstrap, dst)
    assert sorted(got) == list(range(290)) + list(range(300, 340))
