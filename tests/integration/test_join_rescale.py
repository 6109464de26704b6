"""Two-input keyed state (an event-time temporal join, an interval join) across a rescale: 2 → 3 → 1.

The random-query campaign (``query_fuzz --rescale``) has no temporal join. Here a parallel job
at 2 tasks joins probe rows with the version of their key valid at their rowtime (and, in the
same statement set, with the other side's rows within 2 s); it stops WITH SAVEPOINT with probe
rows pending (the watermark holds them), more rows arrive, the savepoint restores at 3 tasks
(the state split by key group for today's bit-reversed assignment, both inputs routed by it),
stops again and restores in one task (merged). The exactly-once output of the three runs must be
DuckDB's answer over all the rows: each pending probe row joined once, none lost.
"""

from __future__ import annotations

import random
import time
import uuid
from collections import Counter

import orjson

from streamsql.environment import StreamEnvironment
from tests.integration.test_parallel import PARTITIONS, _appends, _duck, _load, _produce, _rows
from tests.integration.test_parallel_savepoint import savepoint_settings

JOB = """EXECUTE STATEMENT SET BEGIN
INSERT INTO tj SELECT l.id, r.id, r.v FROM l LEFT JOIN r FOR SYSTEM_TIME AS OF l.ts ON l.k = r.k;
INSERT INTO ij SELECT l.id, x.id FROM l JOIN x
    ON l.k = x.k AND x.ts BETWEEN l.ts - INTERVAL '2' SECOND AND l.ts;
END"""


def _env(tmp_path, name: str, parallelism: int, bootstrap: str, topics: dict, bounded: bool,
         savepoint: str | None) -> StreamEnvironment:
    env = StreamEnvironment(savepoint_settings(tmp_path, name, parallelism, savepoint))
    end = ", 'scan.bounded.mode' = 'latest-offset'" if bounded else ""
    for t in ("l", "x"):
        env.execute_sql(f"""CREATE TABLE {t} (id INT, k INT, v INT, ts TIMESTAMP(3),
            WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH (
            'connector' = 'kafka', 'topic' = '{topics[t]}', 'properties.bootstrap.servers' = '{bootstrap}',
            'format' = 'json', 'scan.startup.mode' = 'earliest-offset'{end})""")
    env.execute_sql(f"""CREATE TABLE r (id INT, k INT, v INT, ts TIMESTAMP(3), PRIMARY KEY (k) NOT ENFORCED,
        WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) WITH ('connector' = 'upsert-kafka',
        'topic' = '{topics["r"]}', 'properties.bootstrap.servers' = '{bootstrap}', 'key.format' = 'json',
        'value.format' = 'json'{end})""")
    for t, cols in (("tj", "lid INT, rid INT, rv INT"), ("ij", "lid INT, xid INT")):
        env.execute_sql(f"""CREATE TABLE {t} ({cols}) WITH (
            'connector' = 'kafka', 'topic' = '{topics[t]}', 'properties.bootstrap.servers' = '{bootstrap}',
            'format' = 'json', 'sink.delivery-guarantee' = 'exactly-once')""")
    return env


def _versions(first: int, n: int, rnd: random.Random) -> list[dict]:
    return [{"id": i, "k": rnd.randint(0, 15), "v": rnd.randint(1, 99),
             "ts": f"2026-01-01 00:{i // 60:02d}:{i % 60:02d}.000"} for i in range(first, first + n)]


def _load_part(bootstrap: str, topics: dict, probe: list[dict], versions: list[dict],
               other: list[dict]) -> None:
    _load(bootstrap, topics["l"], probe)
    _load(bootstrap, topics["x"], other)
    _produce(bootstrap, topics["r"], [(orjson.dumps({"k": v["k"]}), orjson.dumps(v), v["k"] % PARTITIONS)
                                      for v in versions])


def _stop_when_written(env, job, bootstrap: str, topics: dict, at_least: int) -> str:
    deadline = time.monotonic() + 180
    while sum(_appends(bootstrap, topics["tj"], ["lid"]).values()) < at_least:
        assert time.monotonic() < deadline and not job.done, job.error
        time.sleep(0.5)
    return env.execute_sql(f"STOP JOB '{job.job_id}' WITH SAVEPOINT").rows[0][0]


def test_temporal_and_interval_join_state_rescales_2_3_1(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topics = {t: kafka_topic_factory(f"jr_{t}", PARTITIONS) for t in ("l", "x", "r")}
    topics.update({t: kafka_topic_factory(f"jr_{t}") for t in ("tj", "ij")})
    rnd = random.Random(24)
    # probe rows: 16 keys, 2 per second of rowtime; the versions one a second, the other side as the probe
    probe = [{**r, "k": r["id"] % 16} for r in _rows(31, 2400)]
    probe.sort(key=lambda r: r["ts"])
    probe = [{**r, "id": i} for i, r in enumerate(probe)]
    other = [{**r, "k": r["id"] % 16} for r in _rows(32, 1200)]
    versions = _versions(0, 1200, rnd)
    name = f"jr-{uuid.uuid4().hex[:8]}"
    cut1, cut2 = 800, 1600
    _load_part(kafka_bootstrap, topics, probe[:cut1], versions[:400], other[:400])
    env = _env(tmp_path, name, 2, kafka_bootstrap, topics, False, None)
    job = env.execute_sql(JOB).job
    savepoint = _stop_when_written(env, job, kafka_bootstrap, topics, cut1 // 2)

    _load_part(kafka_bootstrap, topics, probe[cut1:cut2], versions[400:800], other[400:800])
    env = _env(tmp_path, name, 3, kafka_bootstrap, topics, False, savepoint)
    job = env.execute_sql(JOB).job
    before = sum(_appends(kafka_bootstrap, topics["tj"], ["lid"]).values())
    savepoint = _stop_when_written(env, job, kafka_bootstrap, topics, before + (cut2 - cut1) // 2)

    _load_part(kafka_bootstrap, topics, probe[cut2:], versions[800:], other[800:])
    env = _env(tmp_path, name, 1, kafka_bootstrap, topics, True, savepoint)
    job = env.execute_sql(JOB).job
    assert job.wait(240) == "FINISHED", job.error

    tj = _duck("SELECT l.id, r.id, r.v FROM l ASOF LEFT JOIN r ON l.k = r.k AND l.ts >= r.ts",
               l=probe, r=versions)
    ij = _duck("SELECT l.id, x.id FROM l JOIN x ON l.k = x.k "
               "AND x.ts BETWEEN l.ts - INTERVAL 2 SECOND AND l.ts", l=probe, x=other)
    assert sum(e[1] is not None for e in tj) > 1000
    assert _appends(kafka_bootstrap, topics["tj"], ["lid", "rid", "rv"]) == Counter(tj)
    assert _appends(kafka_bootstrap, topics["ij"], ["lid", "xid"]) == Counter(ij)
