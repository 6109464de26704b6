"""A source whose partitions are all idle holds no window back: behind an exchange, or a union.

With ``'scan.watermark.idle-timeout'``, a source task whose every partition went idle tells the
downstream tasks through the exchange (an idle record), and their merged watermark leaves it out
until it sends rows again, as Flink's valve leaves out an idle channel. Before, the task sent no
watermark at all and the window aggregate behind the exchange waited for it for good: at
parallelism 2 over a topic whose second partition stays empty, no window fired while the job ran
(at parallelism 1 they fired within 2 s).
"""

from __future__ import annotations

import time
import uuid
from collections import Counter

import orjson
import pytest
from confluent_kafka import Producer

from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import read_committed
from tests.integration.test_parallel import _duck


@pytest.mark.parametrize("parallelism, partitions", [(2, 2), (3, 1)])
def test_windows_fire_past_an_idle_source_task(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                               parallelism, partitions):
    src, out = kafka_topic_factory("xidle_src", partitions), kafka_topic_factory("xidle_out")
    rows = [{"id": i, "k": i % 3, "v": i, "ts": f"2026-01-01 00:00:{i:02d}.000"} for i in range(40)]
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for r in rows:
        producer.produce(src, orjson.dumps(r), partition=0)
    producer.flush(30)
    env = StreamEnvironment({"parallelism.default": str(parallelism),
                             "pipeline.name": f"xidle-{uuid.uuid4().hex[:8]}",
                             "execution.checkpointing.interval": "200 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts)
        WITH ('connector' = 'kafka', 'topic' = '{src}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset',
        'scan.watermark.idle-timeout' = '500 ms')""")
    env.execute_sql(f"""CREATE TABLE out_t (k INT, ws TIMESTAMP(3), n BIGINT, s BIGINT) WITH (
        'connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    job = env.execute_sql("""INSERT INTO out_t SELECT k, window_start, COUNT(*), SUM(v) FROM TABLE(
        TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY k, window_start, window_end""").job
    # the watermark reaches 00:00:39: the windows ending at 10, 20 and 30 s fire, the last one waits
    want = Counter(_duck("""SELECT k, strftime(time_bucket(INTERVAL 10 SECOND, ts), '%Y-%m-%d %H:%M:%S'),
        COUNT(*), SUM(v) FROM src WHERE ts < TIMESTAMP '2026-01-01 00:00:30' GROUP BY ALL""", src=rows))
    deadline = time.monotonic() + 60
    while (got := Counter((r["k"], r["ws"][:19].replace("T", " "), r["n"], r["s"]) for r in
                          (orjson.loads(v) for _, v in read_committed(kafka_bootstrap, out)))) != want:
        assert time.monotonic() < deadline and not job.done, (sorted(want - got), job.error)
        time.sleep(0.5)
    job.cancel()


@pytest.mark.parametrize("parallelism", [1, 2])
def test_windows_fire_past_an_idle_table_of_a_union(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                    parallelism):
    """A UNION ALL of a table with rows and an empty one ('table.exec.source.idle-timeout'): the
    union's watermark leaves the idle input out (Flink's valve). Before, the idle status stopped
    at the union and no window fired, in one process as in a parallel job."""
    a, b, out = (kafka_topic_factory("xidle_a"), kafka_topic_factory("xidle_b"),
                 kafka_topic_factory("xidle_out"))
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for i in range(40):
        producer.produce(a, orjson.dumps({"id": i, "ts": f"2026-01-01 00:00:{i:02d}.000"}))
    producer.flush(30)
    env = StreamEnvironment({"parallelism.default": str(parallelism),
                             "pipeline.name": f"xidle-{uuid.uuid4().hex[:8]}",
                             "execution.checkpointing.interval": "200 ms",
                             "table.exec.source.idle-timeout": "500 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    for name, topic in (("a", a), ("b", b)):
        env.execute_sql(f"""CREATE TABLE {name} (id INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
            'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
            'format' = 'json', 'scan.startup.mode' = 'earliest-offset')""")
    env.execute_sql(f"""CREATE TABLE out_t (ws TIMESTAMP(3), n BIGINT) WITH ('connector' = 'kafka',
        'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once')""")
    env.execute_sql("CREATE TEMPORARY VIEW ab AS SELECT * FROM a UNION ALL SELECT * FROM b")
    job = env.execute_sql("""INSERT INTO out_t SELECT window_start, COUNT(*) FROM TABLE(
        TUMBLE(TABLE ab, DESCRIPTOR(ts), INTERVAL '10' SECOND)) GROUP BY window_start, window_end""").job
    want = Counter((f"2026-01-01 00:00:{s:02d}", 10) for s in (0, 10, 20))  # the watermark is at 39 s
    deadline = time.monotonic() + 60
    while (got := Counter((r["ws"][:19].replace("T", " "), r["n"]) for r in
                          (orjson.loads(v) for _, v in read_committed(kafka_bootstrap, out)))) != want:
        assert time.monotonic() < deadline and not job.done, (sorted(want - got), job.error)
        time.sleep(0.5)
    job.cancel()


def test_temporal_join_past_an_idle_versioned_side(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """At parallelism 2 both sides of an event-time temporal join come through exchanges; the
    versioned side has one version per key at 0 s and then goes idle. Its exchange tells the join
    (an idle status, as Flink forwards ``WatermarkStatus.IDLE`` over a channel), whose watermark
    leaves it out, so every probe row up to the probe side's watermark (39 s) joins. Before, only
    the exchange's own merge left idle upstream tasks out: the join kept the idle side's 0 s and
    emitted nothing while the job ran (at parallelism 1 every row joined; found by newcomer35)."""
    probes, versions, out = (kafka_topic_factory("xidle_p", 2), kafka_topic_factory("xidle_v", 2),
                             kafka_topic_factory("xidle_out"))
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    for k in range(3):
        producer.produce(versions, orjson.dumps({"k": k, "rate": 10 * k, "vts": "2026-01-01 00:00:00.000"}),
                         key=orjson.dumps({"k": k}))
    for i in range(40):
        producer.produce(probes, orjson.dumps({"id": i, "k": i % 3, "ts": f"2026-01-01 00:00:{i:02d}.000"}))
    producer.flush(30)
    env = StreamEnvironment({"parallelism.default": "2", "pipeline.name": f"xidle-{uuid.uuid4().hex[:8]}",
                             "execution.checkpointing.interval": "200 ms",
                             "table.exec.source.idle-timeout": "500 ms",
                             "execution.checkpointing.dir": str(tmp_path / "chk"),
                             "state.dir": str(tmp_path / "state")})
    env.execute_sql(f"""CREATE TABLE p (id INT, k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH (
        'connector' = 'kafka', 'topic' = '{probes}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset')""")
    env.execute_sql(f"""CREATE TABLE v (k INT, rate INT, vts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED,
        WATERMARK FOR vts AS vts) WITH ('connector' = 'upsert-kafka', 'topic' = '{versions}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json',
        'value.format' = 'json')""")
    env.execute_sql(f"""CREATE TABLE out_t (id INT, rate INT) WITH ('connector' = 'kafka',
        'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once')""")
    job = env.execute_sql("""INSERT INTO out_t SELECT p.id, v.rate FROM p
        JOIN v FOR SYSTEM_TIME AS OF p.ts ON p.k = v.k""").job
    want = Counter((i, 10 * (i % 3)) for i in range(40))  # every probe row (ts <= 39 s) joins its version
    deadline = time.monotonic() + 60
    while (got := Counter((r["id"], r["rate"]) for r in
                          (orjson.loads(v) for _, v in read_committed(kafka_bootstrap, out)))) != want:
        assert time.monotonic() < deadline and not job.done, (sorted(want - got), job.error)
        time.sleep(0.5)
    job.cancel()
