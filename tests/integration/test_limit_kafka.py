"""LIMIT (Flink's Limit) and ORDER BY ... LIMIT (SortLimit) over Kafka on a real broker: global at
parallelism 2 (one task ranks every partition's rows), in a statement set next to each other, refused
into an append-only sink, resumed from a savepoint without re-emitting or skipping a row."""

from __future__ import annotations

import time
import uuid
from collections import Counter

import orjson
import pytest

from streamsql.core.errors import PlanError, SqlError
from streamsql.environment import StreamEnvironment
from tests.integration import test_parallel_savepoint
from tests.integration.test_parallel import (
    PARTITIONS,
    _appends,
    _duck,
    _load,
    _produce,
    _rows,
    _source,
    _upserts,
)
from tests.integration.test_parallel import _env as parallel_env


def _env(tmp_path, parallelism: int, bootstrap: str, src: str) -> StreamEnvironment:
    env = parallel_env(parallelism, tmp_path)
    _source(env, "src", src, bootstrap)
    return env


def _append(env, name, topic, bootstrap, columns="id INT, v INT"):
    env.execute_sql(f"""CREATE TABLE {name} ({columns}) WITH (
        'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
        'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")


def _upsert(env, name, topic, bootstrap):
    env.execute_sql(f"""CREATE TABLE {name} (id INT, v INT, PRIMARY KEY (id) NOT ENFORCED) WITH (
        'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}',
        'key.format' = 'json', 'value.format' = 'json')""")


@pytest.mark.parametrize("parallelism", [1, 2])
def test_limit_and_sort_limit_are_global(kafka_bootstrap, kafka_topic_factory, tmp_path, parallelism):
    src = kafka_topic_factory("lim_src", PARTITIONS)
    a, b, u = kafka_topic_factory("lim_a"), kafka_topic_factory("lim_b"), kafka_topic_factory("lim_u")
    rows = _rows(3, 400)
    _load(kafka_bootstrap, src, rows)
    env = _env(tmp_path, parallelism, kafka_bootstrap, src)
    _append(env, "a", a, kafka_bootstrap)
    _append(env, "b", b, kafka_bootstrap)
    _upsert(env, "u", u, kafka_bootstrap)
    job = env.execute_sql("""EXECUTE STATEMENT SET BEGIN
        INSERT INTO a SELECT id, v FROM src LIMIT 7;
        INSERT INTO b SELECT id, v FROM src WHERE v > 0 LIMIT 3 OFFSET 2;
        INSERT INTO u SELECT id, v FROM src ORDER BY v DESC, id LIMIT 5 ON CONFLICT DO DEDUPLICATE;
        END""").job
    assert job.wait(180) == "FINISHED"
    everything = Counter((r["id"], r["v"]) for r in rows)
    got_a = _appends(kafka_bootstrap, a, ["id", "v"])
    assert sum(got_a.values()) == 7 and not got_a - everything
    got_b = _appends(kafka_bootstrap, b, ["id", "v"])
    assert sum(got_b.values()) == 3 and all(v > 0 for _, v in got_b)
    assert _upserts(kafka_bootstrap, u, ["id", "v"]) == Counter(
        _duck("SELECT id, v FROM src ORDER BY v DESC, id LIMIT 5", src=rows))


def test_sort_limit_into_an_append_only_sink_is_refused(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src = kafka_topic_factory("lim_src", PARTITIONS)
    env = _env(tmp_path, 1, kafka_bootstrap, src)
    _append(env, "a", kafka_topic_factory("lim_a"), kafka_bootstrap)
    with pytest.raises((SqlError, PlanError), match="only accepts inserts, but the query produces an updat"):
        env.execute_sql("INSERT INTO a SELECT id, v FROM src ORDER BY v DESC LIMIT 5")


def test_limit_resumes_from_a_savepoint(kafka_bootstrap, kafka_topic_factory, tmp_path):
    # test_parallel_savepoint's tables at parallelism 1: src, and the append-only kafka sink flt (id, k, v)
    topics = {"src": kafka_topic_factory("lim_src", 1), "agg": kafka_topic_factory("lim_agg"),
              "flt": kafka_topic_factory("lim_o")}
    rows = _rows(5, 100)
    _produce(kafka_bootstrap, topics["src"], [(None, orjson.dumps(r), 0) for r in rows[:10]])
    name = f"lim-{uuid.uuid4().hex[:8]}"
    job_sql = "INSERT INTO flt SELECT id, k, v FROM src LIMIT 25 OFFSET 3"
    env = test_parallel_savepoint._env(tmp_path, name, 1, kafka_bootstrap, topics, bounded=False)
    job = env.execute_sql(job_sql).job  # rows 3..27 in arrival order
    deadline = time.monotonic() + 60
    while sum(_appends(kafka_bootstrap, topics["flt"], ["id"]).values()) < 7:  # rows 3..9 committed
        assert time.monotonic() < deadline and not job.done
        time.sleep(0.3)
    savepoint = env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]
    _produce(kafka_bootstrap, topics["src"], [(None, orjson.dumps(r), 0) for r in rows[10:]])
    env = test_parallel_savepoint._env(tmp_path, name, 1, kafka_bootstrap, topics, bounded=True,
                                       savepoint=savepoint)
    assert env.execute_sql(job_sql).job.wait(120) == "FINISHED"
    got = _appends(kafka_bootstrap, topics["flt"], ["id", "k", "v"])
    # none twice, none lost
    assert got == Counter((r["id"], r["k"], r["v"]) for r in rows[3:28]), sorted(got)


def test_sort_limit_into_upsert_kafka_without_materializer(kafka_bootstrap, kafka_topic_factory, tmp_path):
    src, u = kafka_topic_factory("lim_src", PARTITIONS), kafka_topic_factory("lim_u")
    rows = _rows(4, 300)
    _load(kafka_bootstrap, src, rows)
    env = _env(tmp_path, 1, kafka_bootstrap, src)
    env.execute_sql("SET 'table.exec.sink.upsert-materialize' = 'NONE'")
    _upsert(env, "u", u, kafka_bootstrap)
    job = env.execute_sql("INSERT INTO u SELECT id, v FROM src ORDER BY v DESC, id LIMIT 5").job
    assert job.wait(120) == "FINISHED"  # a row pushed out of the top 5 is deleted from the topic
    assert _upserts(kafka_bootstrap, u, ["id", "v"]) == Counter(
        _duck("SELECT id, v FROM src ORDER BY v DESC, id LIMIT 5", src=rows))
