"""Kafka clients and threads: no admin client left to the garbage collector, no consumer shared.

First (a crashed CI worker): no Kafka admin client of the engine is left for the garbage collector.

The clean-clone CI lost a pytest-xdist worker ("worker 'gw0' crashed") in
test_parallel_exchange_topics. An exchange reader kept the AdminClient of its ``DeleteRecords``
for good; a finished job's graph, a reference cycle, kept the reader, so the client, still
connected, waited for a full garbage collection. confluent-kafka runs Python on an admin client's
own librdkafka thread (a request's result, every log line), and a collection that comes due there
destroys the client on that thread, where librdkafka aborts the process: "calling
rd_kafka_destroy() from librdkafka owned thread is prohibited". Admin clients are now shared per
configuration for the life of the process (streamsql/connectors/kafka/admin.py).

The test runs that sequence in a child process, deterministically: a reader purges (its
``DeleteRecords`` in flight), is closed and dropped inside a cycle, and the request's result, on
the admin client's thread, runs a full collection.

Second (a hung SHOW JOBS): a source's consumer is called only by the thread that polls it
(streamsql/runtime/handoff.py).

Third: a finished job's producers are freed when it ends, not by a later garbage collection (a
producer and its handle's callbacks formed a cycle: each finished job of an embedding program
kept about 8 file descriptors and its librdkafka threads, and a collection that came due in a
producer's log callback would destroy it on its own thread, as the admin client above).

Fourth (the same crashed worker, again, after the first fix): ``AdminClient.delete_records``
releases a reference to its list argument that it does not own (confluent-kafka 2.12.2, fixed in
2.16.1), so the list was freed under its caller, and the caller's last reference then decremented
whatever object had taken the memory: a later garbage collection followed the corrupted link
and the process died (SIGSEGV in ``gc_collect_main``, seen in a core of a loop of
test_parallel_exchange_topics, whose first test and every exchange reader's purge call it).
``DeleteRecords`` goes through streamsql/connectors/kafka/admin.py's ``delete_records``, which gives
back what the call took.

Fifth: the shared admin client never has the broker create a topic. A topic it looked up by name
stayed in its metadata refreshes, and an admin client is a producer to librdkafka
(``allow.auto.create.topics`` true by default): a deleted exchange topic came back with the
broker's ``num.partitions`` and failed the job's next run (query_fuzz --rescale 3,1,2 seed 208).
"""

from __future__ import annotations

import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from confluent_kafka import Producer, TopicPartition
from confluent_kafka.admin import NewTopic
from streamsql.connectors.kafka.admin import admin_client, delete_records
from streamsql.connectors.kafka.source import KafkaSource

from streamsql import StreamEnvironment
from streamsql.core.catalog import ColumnDef, TableDef
from streamsql.core.connector import ConnectorContext
from streamsql.core.types import SqlType
from streamsql.runtime.prefetch import PrefetchingSource

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import concurrent.futures._base as futures
    import gc
    import sys
    import threading

    from confluent_kafka import Producer

    from streamsql.connectors.kafka.exchange import ExchangeReader
    from streamsql.core.catalog import TableDef
    from streamsql.core.connector import ConnectorContext

    bootstrap, topic = sys.argv[1], sys.argv[2]
    gc.disable()  # collections happen below, where CPython's automatic ones may
    options = {"connector": "exchange", "topic": topic, "partitions": "1", "upstream-tasks": "1",
               "properties.bootstrap.servers": bootstrap}
    reader = ExchangeReader(ConnectorContext(TableDef("exchange 1", [], options), "job", {}))
    reader.open(None)  # creates the topic
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    p.produce(topic, b"", b"e\\x00\\x00", partition=0)  # upstream task 0 ended
    p.flush(30)
    while not reader.finished():
        reader.poll(100, 0.5)

    dropped, collected = threading.Event(), threading.Event()
    set_result, set_exception = futures.Future.set_result, futures.Future.set_exception

    def collect_on_librdkafka_thread():
        # As CPython's collector does when a collection comes due on that thread.
        if isinstance(threading.current_thread(), threading._DummyThread) and not collected.is_set():
            dropped.wait(30)
            gc.collect()
            collected.set()

    futures.Future.set_result = lambda f, r: (collect_on_librdkafka_thread(), set_result(f, r))[1]
    futures.Future.set_exception = lambda f, e: (collect_on_librdkafka_thread(), set_exception(f, e))[1]
    reader.position()
    reader.committed(1)  # DeleteRecords before offset 1, not awaited
    reader.close()
    reader.graph = reader  # held in a cycle, as a job's graph holds it
    del reader
    dropped.set()
    assert collected.wait(60), "the DeleteRecords result never came"
    print("survived")
""")


def test_a_dropped_exchange_reader_leaves_no_admin_client_to_the_garbage_collector(kafka_bootstrap,
                                                                                    kafka_admin):
    topic = f"_streamsql-lifetime-{uuid.uuid4().hex[:8]}-s1-repartition"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONFAULTHANDLER": "1"}
    try:
        proc = subprocess.run([sys.executable, "-c", CHILD, kafka_bootstrap, topic], env=env, cwd=ROOT,
                              capture_output=True, text=True, timeout=180)
    finally:
        kafka_admin.delete_topics([topic], operation_timeout=30)
    assert proc.returncode == 0 and "survived" in proc.stdout, proc.stderr[-3000:]


def test_a_sources_lag_is_answered_while_its_fetch_thread_polls(kafka_bootstrap, kafka_topic_factory):
    """SHOW JOBS's input lag, asked from another thread while the fetch thread polls an idle topic.

    confluent-kafka 2.16 serializes a consumer's calls: the second thread's ``Consumer.position``
    checks every millisecond whether the consumer is free, with the GIL, which the fetch thread
    gives up only inside ``consume()``, holding the consumer; it waited for ever (the SHOW JOBS of
    test_rescale_from_two_to_three_tasks_through_a_savepoint hung so, minutes).
    """
    topic = kafka_topic_factory("lag")
    table = TableDef("src", [ColumnDef("id", SqlType.parse("INT"))], {
        "connector": "kafka", "topic": topic, "properties.bootstrap.servers": kafka_bootstrap,
        "format": "json", "scan.startup.mode": "earliest-offset"})
    src = PrefetchingSource(KafkaSource(ConnectorContext(table, "job", {})), 100, 2, "src")
    src.open(None)
    answers: list = []
    asker = threading.Thread(target=lambda: answers.append(src.lag()), daemon=True)
    try:
        asker.start()
        asker.join(30)
        assert answers == [0]
    finally:
        src.close()


def test_a_finished_jobs_producers_are_freed_without_a_garbage_collection(kafka_bootstrap,
                                                                         kafka_topic_factory, tmp_path):
    src, out = kafka_topic_factory("life-src"), kafka_topic_factory("life-out")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for i in range(50):
        p.produce(src, json.dumps({"k": i}).encode())
    assert p.flush(30) == 0
    del p
    gc.collect()
    gc.disable()  # only reference counting frees what the jobs leave
    before = {id(o) for o in gc.get_objects() if isinstance(o, Producer)}  # other tests' live ones
    try:
        for run in range(2):  # exactly-once (the task's transactional producer), at-least-once (the sink's)
            guarantee = ("exactly-once", "at-least-once")[run]
            with StreamEnvironment({"execution.checkpointing.interval": "200 ms",
                                    "execution.checkpointing.dir": str(tmp_path / str(run))}) as env:
                env.execute_sql(f"CREATE TABLE s (k INT) WITH ('connector' = 'kafka', 'topic' = '{src}', "
                                f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                                "'scan.startup.mode' = 'earliest-offset', "
                                "'scan.bounded.mode' = 'latest-offset')")
                env.execute_sql(f"CREATE TABLE o (k INT) WITH ('connector' = 'kafka', 'topic' = '{out}', "
                                f"'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json', "
                                f"'sink.delivery-guarantee' = '{guarantee}', "
                                f"'sink.transactional-id-prefix' = 'life-{uuid.uuid4().hex[:8]}')")
                env.execute_sql("INSERT INTO o SELECT k FROM s").job.wait(60)
        alive = [o for o in gc.get_objects() if isinstance(o, Producer) and id(o) not in before]
        assert alive == [], f"{len(alive)} producer(s) of finished jobs wait for the garbage collector"
    finally:
        gc.enable()


def test_delete_records_leaves_its_argument_as_many_references_as_it_had(kafka_bootstrap,
                                                                           kafka_topic_factory):
    topic = kafka_topic_factory("purge", 2)
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for part in range(2):
        for i in range(3):
            p.produce(topic, b"%d" % i, partition=part)
    assert p.flush(30) == 0
    admin = admin_client({"bootstrap.servers": kafka_bootstrap}, "test")
    offsets = [TopicPartition(topic, 0, 2), TopicPartition(topic, 1, 1)]
    before = sys.getrefcount(offsets)
    futures = delete_records(admin, offsets, request_timeout=30)
    assert sys.getrefcount(offsets) == before  # AdminClient.delete_records of 2.12.2: one fewer
    assert {tp.partition: f.result(30).low_watermark for tp, f in futures.items()} == {0: 2, 1: 1}
    with pytest.raises(TypeError):  # refused by confluent-kafka before the request: no reference taken
        delete_records(admin, [topic], request_timeout=30)


def test_no_code_calls_admin_delete_records_itself():
    """Every ``DeleteRecords`` of the engine and of the tests goes through ``admin.delete_records``."""
    helper = ROOT / "connectors" / "kafka" / "admin.py"
    found = []
    for folder in ("streamsql", "connectors", "shell", "tests", "benchmarks", "scripts", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"\.delete_records\(", line) and path != helper:
                    found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert found == []


def test_a_topic_deleted_after_a_lookup_by_name_stays_deleted(kafka_bootstrap, kafka_admin):
    topic = f"lookup-{uuid.uuid4().hex[:8]}"
    # its own client (a configuration of its own), refreshing its metadata every 200 ms
    admin = admin_client({"bootstrap.servers": kafka_bootstrap, "topic.metadata.refresh.interval.ms": 200},
                         "test")
    kafka_admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)])[topic].result(30)
    deadline = time.monotonic() + 30
    while len(getattr(admin.list_topics(topic=topic, timeout=10).topics.get(topic), "partitions", ())) != 2:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    kafka_admin.delete_topics([topic])[topic].result(30)
    time.sleep(1)  # five refreshes: it came back with 1 partition after the first
    assert topic not in kafka_admin.list_topics(timeout=10).topics
