"""Parallel jobs (issue 10) on a real broker: each query family at parallelism 1, 2 and 4 on an
8-partition input gives DuckDB's answer over the same records."""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter

import duckdb
import orjson
import pyarrow as pa
import pytest
from confluent_kafka import Producer

from streamsql.core.errors import ConfigError
from streamsql.environment import StreamEnvironment
from tests.integration.test_flights import fold_upserts, read_committed

PARTITIONS = 8
N = 4000


def _produce(bootstrap: str, topic: str, records: list[tuple[bytes | None, bytes | None, int]]) -> None:
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20, "enable.idempotence": True})
    for key, value, partition in records:
        p.produce(topic, value, key, partition=partition)
    p.flush(30)


def _rows(seed: int, n: int = N) -> list[dict]:
    rnd = random.Random(seed)
    return [{"id": i, "k": rnd.randint(0, 40), "v": rnd.randint(-50, 500),
             "ts": f"2026-01-01 00:{i * 600 // n // 60:02d}:{i * 600 // n % 60:02d}.000"} for i in range(n)]


def _load(bootstrap: str, topic: str, rows: list[dict]) -> None:
    _produce(bootstrap, topic, [(None, orjson.dumps(r), r["id"] % PARTITIONS) for r in rows])


#: The rows of :func:`_rows` as Arrow reads them, before DuckDB's casts to the tables' types.
_ROW_SCHEMA = pa.schema([("id", pa.int64()), ("k", pa.int64()), ("v", pa.int64()), ("ts", pa.string())])


def _duck(sql: str, **tables: list[dict]) -> list[tuple]:
    """``sql`` over the given tables of rows ``(id INTEGER, k INTEGER, v INTEGER, ts TIMESTAMP)``.

    Loaded through one Arrow scan each: ``executemany`` took ~2 s per 3,000 rows.
    """
    con = duckdb.connect()
    for name, rows in tables.items():
        con.register("given", pa.Table.from_pylist(rows, schema=_ROW_SCHEMA))
        con.execute(f"CREATE TABLE {name} AS SELECT id::INTEGER AS id, k::INTEGER AS k, v::INTEGER AS v, "
                    "ts::TIMESTAMP AS ts FROM given")
        con.unregister("given")
    return con.execute(sql).fetchall()


def _source(env, name: str, topic: str, bootstrap: str, watermark: bool = False) -> None:
    wm = ", WATERMARK FOR ts AS ts - INTERVAL '1' SECOND" if watermark else ""
    env.execute_sql(f"""CREATE TABLE {name} (id INT, k INT, v INT, ts TIMESTAMP(3){wm}) WITH (
        'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset')""")


def _upsert_sink(env, topic: str, bootstrap: str, columns: str, key: str) -> None:
    env.execute_sql(f"""CREATE TABLE out_t ({columns}, PRIMARY KEY ({key}) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")


def _append_sink(env, topic: str, bootstrap: str, columns: str) -> None:
    env.execute_sql(f"""CREATE TABLE out_t ({columns}) WITH (
        'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")


def _env(parallelism: int, tmp_path) -> StreamEnvironment:
    return StreamEnvironment({
        "parallelism.default": str(parallelism), "pipeline.name": f"par-{uuid.uuid4().hex[:8]}",
        "execution.checkpointing.interval": "1 s",
        "execution.checkpointing.dir": str(tmp_path / "chk"), "state.dir": str(tmp_path / "state")})


def _run(env, sql: str) -> None:
    job = env.execute_sql(sql).job
    assert job.wait(180) == "FINISHED"


def _upserts(bootstrap: str, topic: str, columns: list[str]) -> Counter:
    final = fold_upserts(read_committed(bootstrap, topic))
    return Counter(tuple(v[c] for c in columns) for v in final.values())


def _appends(bootstrap: str, topic: str, columns: list[str]) -> Counter:
    return Counter(tuple(orjson.loads(v)[c] for c in columns) for _, v in read_committed(bootstrap, topic))


PARALLELISM = [1, 2, 4]


def _two_inputs(bootstrap, topic_factory, tmp_path, parallelism, names, seeds_sizes, watermark=False):
    """An environment with two 8-partition source tables ``names`` fed seeded rows, an output topic."""
    env, rows = _env(parallelism, tmp_path), []
    for name, (seed, n) in zip(names, seeds_sizes):
        topic = topic_factory(f"par_{name}", PARTITIONS)
        rows.append(_rows(seed, n))
        _load(bootstrap, topic, rows[-1])
        _source(env, name, topic, bootstrap, watermark=watermark)
    return env, topic_factory("par_out"), rows[0], rows[1]


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_group_by_with_retractions(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(1)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap)
    _upsert_sink(env, out, kafka_bootstrap, "n BIGINT, c BIGINT, s BIGINT", "n")
    # the inner count per k changes as rows arrive: the outer GROUP BY gets -U/+U across the exchange
    _run(env, "INSERT INTO out_t SELECT n, COUNT(*), SUM(t) FROM "
              "(SELECT k, COUNT(*) AS n, SUM(v) AS t FROM src GROUP BY k) GROUP BY n")
    expected = _duck("SELECT n, COUNT(*), SUM(t) FROM "
                     "(SELECT k, COUNT(*) AS n, SUM(v) AS t FROM src GROUP BY k) GROUP BY n", src=rows)
    assert _upserts(kafka_bootstrap, out, ["n", "c", "s"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_top_n_and_deduplication(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """Top-2 per k into upsert-kafka and the first row per k on rowtime into kafka, in one statement set.

    Rows of one k with equal rowtimes come from several partitions (their arrival order is not
    fixed), so the deduplication is checked by the rowtime it keeps.
    """
    src = kafka_topic_factory("par_src", PARTITIONS)
    top, first = kafka_topic_factory("par_top"), kafka_topic_factory("par_first")
    rows = _rows(5)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap, watermark=True)
    _upsert_sink(env, top, kafka_bootstrap, "k INT, rn BIGINT, id INT, v INT", "k, rn")
    env.execute_sql(f"""CREATE TABLE first_t (k INT, ts STRING) WITH ('connector' = 'kafka',
        'topic' = '{first}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'sink.delivery-guarantee' = 'exactly-once')""")
    ranked = "ROW_NUMBER() OVER (PARTITION BY k ORDER BY v DESC, id) AS rn"
    _run(env, f"""EXECUTE STATEMENT SET BEGIN
        INSERT INTO out_t SELECT k, rn, id, v FROM (SELECT k, id, v, {ranked} FROM src) WHERE rn <= 2;
        INSERT INTO first_t SELECT k, CAST(ts AS STRING) FROM (
          SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY ts) AS rn FROM src) WHERE rn = 1;
        END""")
    expected_top = _duck(f"SELECT k, rn, id, v FROM (SELECT k, id, v, {ranked} FROM src) WHERE rn <= 2",
                         src=rows)
    assert _upserts(kafka_bootstrap, top, ["k", "rn", "id", "v"]) == Counter(expected_top)
    expected_first = _duck("SELECT k, strftime(MIN(ts), '%Y-%m-%d %H:%M:%S.000') FROM src GROUP BY k",
                           src=rows)
    assert _appends(kafka_bootstrap, first, ["k", "ts"]) == Counter(expected_first)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_tumble_window(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(2)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap, watermark=True)
    _append_sink(env, out, kafka_bootstrap, "ws STRING, g INT, c BIGINT, s BIGINT")
    _run(env, "INSERT INTO out_t SELECT CAST(window_start AS STRING), k % 4, COUNT(*), SUM(v) "
              "FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '30' SECOND)) "
              "GROUP BY window_start, window_end, k % 4")
    expected = _duck("SELECT strftime(time_bucket(INTERVAL 30 SECOND, ts), '%Y-%m-%d %H:%M:%S.000'), k % 4, "
                     "COUNT(*), SUM(v) FROM src GROUP BY 1, 2", src=rows)
    assert _appends(kafka_bootstrap, out, ["ws", "g", "c", "s"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_regular_join(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    env, out, lrows, rrows = _two_inputs(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism,
                                         ("l", "r"), ((3, 2000), (4, 300)))
    _append_sink(env, out, kafka_bootstrap, "lid INT, rid INT, vv INT")
    _run(env, "INSERT INTO out_t SELECT l.id, r.id, l.v + r.v FROM l JOIN r ON l.k = r.k")
    expected = _duck("SELECT l.id, r.id, l.v + r.v FROM l JOIN r ON l.k = r.k", l=lrows, r=rrows)
    assert _appends(kafka_bootstrap, out, ["lid", "rid", "vv"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_self_join_reads_the_table_once(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """One scan (sub-plan reuse, streamsql/plan/reuse.py) feeds both sides' exchanges."""
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(13, 1500)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap)
    _append_sink(env, out, kafka_bootstrap, "lid INT, rid INT, vv INT")
    sql = ("SELECT a.id, b.id, a.v + b.v FROM (SELECT * FROM src WHERE v > 400) a "
           "JOIN (SELECT * FROM src WHERE v < 0) b ON a.k = b.k")
    assert env.execute_sql("EXPLAIN INSERT INTO out_t " + sql).message.count("TableSourceScan") == 1
    _run(env, "INSERT INTO out_t " + sql)
    assert _appends(kafka_bootstrap, out, ["lid", "rid", "vv"]) == Counter(_duck(sql, src=rows))


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_interval_join(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    env, out, lrows, rrows = _two_inputs(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism,
                                         ("l", "r"), ((8, 1500), (9, 1500)), watermark=True)
    _append_sink(env, out, kafka_bootstrap, "lid INT, rid INT, vv INT")
    _run(env, "INSERT INTO out_t SELECT l.id, r.id, l.v - r.v FROM l JOIN r ON l.k = r.k "
              "AND r.ts BETWEEN l.ts - INTERVAL '2' SECOND AND l.ts + INTERVAL '1' SECOND")
    expected = _duck("SELECT l.id, r.id, l.v - r.v FROM l JOIN r ON l.k = r.k "
                     "AND r.ts BETWEEN l.ts - INTERVAL 2 SECOND AND l.ts + INTERVAL 1 SECOND",
                     l=lrows, r=rrows)
    assert len(expected) > 100
    assert _appends(kafka_bootstrap, out, ["lid", "rid", "vv"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_exists_and_not_exists(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    env, out, lrows, rrows = _two_inputs(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism,
                                         ("l", "r"), ((11, 1500), (12, 40)))
    _upsert_sink(env, out, kafka_bootstrap, "lid INT, m INT", "lid, m")  # anti joins retract
    # the anti join's rows have no upsert key (l has no PRIMARY KEY): Flink 2.3 wants ON CONFLICT,
    # or this key to write the last row per sink key
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    exists = "EXISTS (SELECT 1 FROM r WHERE r.k = l.k)"
    _run(env, f"EXECUTE STATEMENT SET BEGIN INSERT INTO out_t SELECT id, 1 FROM l WHERE {exists}; "
              f"INSERT INTO out_t SELECT id, 0 FROM l WHERE NOT {exists}; END")
    expected = _duck(f"SELECT id, 1 FROM l WHERE {exists} UNION ALL SELECT id, 0 FROM l WHERE NOT {exists}",
                     l=lrows, r=rrows)
    assert _upserts(kafka_bootstrap, out, ["lid", "m"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_union_all_into_group_by(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    env, out, arows, brows = _two_inputs(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism,
                                         ("a", "b"), ((5, 2000), (6, 2000)))
    _upsert_sink(env, out, kafka_bootstrap, "k INT, c BIGINT, s BIGINT", "k")
    _run(env, "INSERT INTO out_t SELECT k, COUNT(*), SUM(v) FROM "
              "(SELECT k, v FROM a UNION ALL SELECT k, v * 2 FROM b) GROUP BY k")
    expected = _duck("SELECT k, COUNT(*), SUM(v) FROM (SELECT k, v FROM a UNION ALL SELECT k, v * 2 FROM b) "
                     "GROUP BY k", a=arows, b=brows)
    assert _upserts(kafka_bootstrap, out, ["k", "c", "s"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_upsert_source(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    src, out = kafka_topic_factory("par_ups", PARTITIONS), kafka_topic_factory("par_out")
    rnd = random.Random(7)
    final: dict[int, dict | None] = {}
    records = []
    for i in range(3000):  # updates and deletes of 300 ids; an id always lands in one partition
        rid = rnd.randrange(300)
        value = None if rnd.random() < 0.1 else {"id": rid, "k": rnd.randint(0, 9), "v": rnd.randint(0, 99),
                                                  "ts": "2026-01-01 00:00:00.000"}
        final[rid] = value
        records.append((orjson.dumps({"id": rid}), orjson.dumps(value) if value else None, rid % PARTITIONS))
    _produce(kafka_bootstrap, src, records)
    env = _env(parallelism, tmp_path)
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{src}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}',
        'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset')""")
    _upsert_sink(env, out, kafka_bootstrap, "k INT, c BIGINT, s BIGINT", "k")
    _run(env, "INSERT INTO out_t SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k")
    live = [r for r in final.values() if r is not None]
    expected = _duck("SELECT k, COUNT(*), SUM(v) FROM src GROUP BY k", src=live)
    assert _upserts(kafka_bootstrap, out, ["k", "c", "s"]) == Counter(expected)


def test_an_unfinished_run_resumes_only_at_its_parallelism(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    env = _env(2, tmp_path)
    name = env.config.get("pipeline.name")
    folder = tmp_path / "chk" / name
    folder.mkdir(parents=True)
    (folder / "_tasks").write_text(f"{name}-0-0\n{name}-1-0")  # a run at parallelism 1 left off
    _source(env, "src", src, kafka_bootstrap)
    _upsert_sink(env, out, kafka_bootstrap, "k INT, c BIGINT", "k")
    job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job
    with pytest.raises(ConfigError, match="unfinished run with 2 tasks .* this run plans 4"):
        job.wait(60)


def test_consumed_exchange_records_are_purged_after_the_commit(kafka_bootstrap, kafka_topic_factory,
                                                              tmp_path):
    from confluent_kafka import Consumer, TopicPartition

    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(10, 2000)
    _load(kafka_bootstrap, src, rows)
    env = _env(2, tmp_path)
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3)) WITH ('connector' = 'kafka',
        'topic' = '{src}', 'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset')""")  # unbounded: the job keeps running
    _upsert_sink(env, out, kafka_bootstrap, "k INT, c BIGINT", "k")
    job = env.execute_sql("INSERT INTO out_t SELECT k, COUNT(*) FROM src GROUP BY k").job
    topic = f"_streamsql-{env.config.get('pipeline.name')}-s1-repartition"
    c = Consumer({"bootstrap.servers": kafka_bootstrap, "group.id": "purge-check"})
    try:
        expected = Counter(_duck("SELECT k, COUNT(*) FROM src GROUP BY k", src=rows))
        deadline = time.monotonic() + 120
        while _upserts(kafka_bootstrap, out, ["k", "c"]) != expected:
            assert time.monotonic() < deadline, "the job did not produce the result"
            time.sleep(0.5)
        # The purge follows the reading tasks' next checkpoints (1 s apart): polled, not a fixed 3 s.
        while True:
            marks = [c.get_watermark_offsets(TopicPartition(topic, p), timeout=10, cached=False)
                     for p in range(2)]
            if all(low > 0 for low, _ in marks) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert all(low > 0 and low <= high for low, high in marks), marks  # records before low are gone
    finally:
        c.close()
        job.cancel()


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_over_aggregate(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """A RANGE frame per k after an exchange by k (peers of equal rowtime included: a fixed answer)."""
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(13)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap, watermark=True)
    _append_sink(env, out, kafka_bootstrap, "id INT, c BIGINT, s INT")
    window = "PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL '10' SECOND PRECEDING AND CURRENT ROW"
    _run(env, f"INSERT INTO out_t SELECT id, COUNT(*) OVER w, SUM(v) OVER w FROM src WINDOW w AS ({window})")
    expected = _duck("SELECT id, COUNT(*) OVER w, SUM(v) OVER w FROM src "
                     "WINDOW w AS (PARTITION BY k ORDER BY ts RANGE BETWEEN INTERVAL 10 SECOND PRECEDING "
                     "AND CURRENT ROW)", src=rows)
    assert _appends(kafka_bootstrap, out, ["id", "c", "s"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_event_time_temporal_join(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """Probe rows join the version of their k valid at their rowtime (DuckDB's ASOF LEFT JOIN).

    The versioned table is upsert-kafka keyed by k, its versions one second apart in rowtime
    order, so no version is late; probe rows before the first version of their k join none.
    """
    probe, ver = kafka_topic_factory("par_l", PARTITIONS), kafka_topic_factory("par_ver", PARTITIONS)
    out = kafka_topic_factory("par_out")
    lrows, rnd = _rows(14, 2000), random.Random(15)
    versions = [{"id": i, "k": rnd.randint(0, 40), "v": rnd.randint(1, 99),
                 "ts": f"2026-01-01 00:{i // 60:02d}:{i % 60:02d}.000"} for i in range(600)]
    _load(kafka_bootstrap, probe, lrows)
    _produce(kafka_bootstrap, ver, [(orjson.dumps({"k": r["k"]}), orjson.dumps(r), r["k"] % PARTITIONS)
                                    for r in versions])
    env = _env(parallelism, tmp_path)
    _source(env, "l", probe, kafka_bootstrap, watermark=True)
    env.execute_sql(f"""CREATE TABLE r (id INT, k INT, v INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED,
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'upsert-kafka', 'topic' = '{ver}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}', 'key.format' = 'json', 'value.format' = 'json',
        'scan.bounded.mode' = 'latest-offset')""")
    _append_sink(env, out, kafka_bootstrap, "lid INT, rid INT, rv INT")
    _run(env, "INSERT INTO out_t SELECT l.id, r.id, r.v FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts "
              "ON l.k = r.k")
    expected = _duck("SELECT l.id, r.id, r.v FROM l ASOF LEFT JOIN r ON l.k = r.k AND l.ts >= r.ts",
                     l=lrows, r=versions)
    assert sum(e[1] is not None for e in expected) > 1000
    assert _appends(kafka_bootstrap, out, ["lid", "rid", "rv"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_window_join(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """A FULL window join of two 30-second tumbles on k: rows of a window without a partner are padded."""
    env, out, lrows, rrows = _two_inputs(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism,
                                         ("l", "r"), ((16, 1500), (17, 300)), watermark=True)
    _append_sink(env, out, kafka_bootstrap, "lid INT, rid INT")
    tumble = "SELECT * FROM TABLE(TUMBLE(TABLE {}, DESCRIPTOR(ts), INTERVAL '30' SECOND))"
    _run(env, f"INSERT INTO out_t SELECT x.id, y.id FROM ({tumble.format('l')}) x FULL JOIN "
              f"({tumble.format('r')}) y ON x.window_start = y.window_start AND x.window_end = y.window_end "
              "AND x.k = y.k")
    expected = _duck("SELECT l.id, r.id FROM l FULL JOIN r ON time_bucket(INTERVAL 30 SECOND, l.ts) = "
                     "time_bucket(INTERVAL 30 SECOND, r.ts) AND l.k = r.k", l=lrows, r=rrows)
    assert all({e[side] is None for e in expected} == {True, False} for side in (0, 1))  # both sides padded
    assert _appends(kafka_bootstrap, out, ["lid", "rid"]) == Counter(expected)


@pytest.mark.parametrize("parallelism", [1, 2])
def test_on_conflict_do_deduplicate(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    """A sink keyed by g = k % 5: per g, group k = g stays in the result and group k = g + 5 leaves
    it last (its count reaches 100): the sink must end with the group that stays, not with the
    key deleted (Flink's SinkUpsertMaterializer; written straight through, every g is deleted)."""
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    ks = [k for k in range(5) for _ in range(10)] + [k for k in range(5, 10) for _ in range(100)]
    rows = [{"id": i, "k": k, "v": 1, "ts": "2026-01-01 00:00:00.000"} for i, k in enumerate(ks)]
    # a k's rows in one partition, so the leaving group's last row is read after the other's
    _produce(kafka_bootstrap, src, [(None, orjson.dumps(r), r["k"] % 5) for r in rows])
    env = _env(parallelism, tmp_path)
    env.execute_sql("SET 'execution.batch-size' = '20'")  # the leaving group is in the result first
    _source(env, "src", src, kafka_bootstrap)
    _upsert_sink(env, out, kafka_bootstrap, "g INT, k INT, n BIGINT", "g")
    inner = "SELECT k, n FROM (SELECT k, COUNT(*) AS n FROM src GROUP BY k) WHERE n < 100"
    _run(env, f"INSERT INTO out_t SELECT k % 5, k, n FROM ({inner}) ON CONFLICT DO DEDUPLICATE")
    expected = _duck(f"SELECT k % 5, k, n FROM ({inner})", src=rows)
    assert _upserts(kafka_bootstrap, out, ["g", "k", "n"]) == Counter(expected)
    assert len(expected) == 5


def test_a_parallel_jobs_handle_reports_its_watermark(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """JobHandle.watermark of a parallel job is what Flink's web UI shows for the job's sink vertex:
    the lowest watermark over the tasks that write its tables (the window stage's, behind an
    exchange), here the smallest partition maximum less the 1 s delay. It was None for every
    parallel job (the single-task job's answer was never filled in)."""
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(2)
    _load(kafka_bootstrap, src, rows)
    by_partition: dict[int, str] = {}
    for r in rows:
        by_partition[r["id"] % PARTITIONS] = max(by_partition.get(r["id"] % PARTITIONS, ""), r["ts"])
    low = min(by_partition.values())  # 'YYYY-MM-DD HH:MM:SS.000', less the WATERMARK's delay:
    expected = _duck(f"SELECT strftime(TIMESTAMP '{low}' - INTERVAL 1 SECOND, '%Y-%m-%d %H:%M:%S.000')")[0][0]
    env = _env(2, tmp_path)
    env.execute_sql(f"""CREATE TABLE src (id INT, k INT, v INT, ts TIMESTAMP(3),
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = '{src}',
        'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
        'scan.startup.mode' = 'earliest-offset')""")
    _append_sink(env, out, kafka_bootstrap, "ws STRING, g INT, c BIGINT")
    with env:
        job = env.execute_sql("INSERT INTO out_t SELECT CAST(window_start AS STRING), k % 4, COUNT(*) "
                              "FROM TABLE(TUMBLE(TABLE src, DESCRIPTOR(ts), INTERVAL '30' SECOND)) "
                              "GROUP BY window_start, window_end, k % 4").job
        deadline = time.monotonic() + 90
        while job.watermark != expected and time.monotonic() < deadline:
            assert not job.done, job.error
            time.sleep(0.2)
        assert job.watermark == expected
        job.cancel()


@pytest.mark.parametrize("parallelism", PARALLELISM)
def test_temporal_sort_runs_as_one_task_in_rowtime_order(kafka_bootstrap, kafka_topic_factory, tmp_path,
                                                         parallelism):
    """ORDER BY ts, v DESC, id without LIMIT (Flink's TemporalSort: a singleton exchange, parallelism 1).

    The 8 partitions are read by up to 4 tasks; the sort stage is one task, so its output, in
    the order committed to the one output partition, is DuckDB's ORDER BY over every record
    (each partition is in rowtime order and the watermark is 1 s behind: no row is late).
    """
    src, out = kafka_topic_factory("par_src", PARTITIONS), kafka_topic_factory("par_out")
    rows = _rows(17)
    _load(kafka_bootstrap, src, rows)
    env = _env(parallelism, tmp_path)
    _source(env, "src", src, kafka_bootstrap, watermark=True)
    _append_sink(env, out, kafka_bootstrap, "id INT, v INT, ts TIMESTAMP(3)")
    sql = "INSERT INTO out_t SELECT id, v, ts FROM src ORDER BY ts, v DESC, id"
    stages = env.execute_sql(f"EXPLAIN {sql}").message.split("== Stages ==")
    if parallelism > 1:  # the sort's stage is one task behind Flink's singleton exchange
        assert "distribution=[single]" in stages[1] and "partitions=[1]" in stages[1], stages[1]
        assert "parallelism=1, operators=[exchange-source, temporal-sort, sink]" in stages[1], stages[1]
    _run(env, sql)
    expected = _duck("SELECT id, v, strftime(ts, '%Y-%m-%d %H:%M:%S') FROM src ORDER BY ts, v DESC, id",
                     src=rows)
    committed = (orjson.loads(v) for _, v in read_committed(kafka_bootstrap, out))
    actual = [(r["id"], r["v"], r["ts"][:19]) for r in committed]
    assert actual == expected
