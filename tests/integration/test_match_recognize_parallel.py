"""MATCH_RECOGNIZE in a parallel job (2 worker processes): rows are exchanged by the PARTITION BY key.

The compat case ``match_times_range`` holds Flink 2.3's matches for one symbol. Here its rows go
to a Kafka topic three times, under three symbols on three partitions (each in rowtime order, so
no row is late), and the job runs with ``'parallelism.default' = '2'``: every symbol must give
Flink's matches, whichever task owns its key.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections import Counter
from datetime import datetime
from pathlib import Path

import orjson
from confluent_kafka import Consumer, KafkaError, Producer

CASE = Path(__file__).resolve().parents[1] / "compat" / "cases" / "match_times_range"
SYMBOLS = ["p", "q", "r"]


def test_parallel_match_recognize_gives_flinks_matches_per_key(kafka_bootstrap, kafka_topic_factory,
                                                                tmp_path):
    src = kafka_topic_factory("mr_src", len(SYMBOLS))
    out = kafka_topic_factory("mr_out", 2)
    rows = [json.loads(line) for line in (CASE / "ticker.jsonl").read_text().splitlines()]
    p = Producer({"bootstrap.servers": kafka_bootstrap, "linger.ms": 5, "enable.idempotence": True})
    for part, symbol in enumerate(SYMBOLS):
        for r in rows:
            p.produce(src, orjson.dumps({**r, "symbol": symbol}), partition=part)
    p.flush(60)
    query = (CASE / "case.sql").read_text().split("INSERT INTO out_rows", 1)[1]
    script = f"""
SET 'pipeline.name' = 'mr-{uuid.uuid4().hex[:8]}';
SET 'parallelism.default' = '2';
SET 'restart-strategy.type' = 'none';
CREATE TABLE Ticker (symbol STRING, price BIGINT, tax BIGINT, rowtime TIMESTAMP(3),
  WATERMARK FOR rowtime AS rowtime - INTERVAL '1' SECOND) WITH ('connector' = 'kafka', 'topic' = '{src}',
  'properties.bootstrap.servers' = '{kafka_bootstrap}', 'format' = 'json',
  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');
CREATE TABLE out_rows (symbol STRING, firstA BIGINT, lastA BIGINT, na BIGINT, b BIGINT, t TIMESTAMP(3))
  WITH ('connector' = 'kafka', 'topic' = '{out}', 'properties.bootstrap.servers' = '{kafka_bootstrap}',
  'format' = 'json');
INSERT INTO out_rows{query}"""
    (tmp_path / "job.sql").write_text(script)
    run = subprocess.run([sys.executable, "-m", "streamsql", "run", "job.sql"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr

    expected = Counter()
    for r in json.loads((CASE / "expected.json").read_text())["rows"]:
        for symbol in SYMBOLS:
            expected[(symbol, *r[1:5], datetime.fromisoformat(r[5]))] += 1
    got = Counter()
    for v in _read_all(kafka_bootstrap, out):
        t = datetime.fromisoformat(v["t"])
        got[(v["symbol"], str(v["firstA"]), str(v["lastA"]), str(v["na"]), str(v["b"]), t)] += 1
    assert got == expected


def _read_all(bootstrap: str, topic: str) -> list[dict]:
    """Every committed record of ``topic`` (to the end of each partition)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"mr-{uuid.uuid4().hex}",
                  "auto.offset.reset": "earliest", "enable.partition.eof": True,
                  "isolation.level": "read_committed"})
    c.subscribe([topic])
    values, ended = [], set()
    while len(ended) < 2:
        m = c.poll(10)
        assert m is not None, "no record within 10 s"
        if m.error():
            assert m.error().code() == KafkaError._PARTITION_EOF, m.error()
            ended.add(m.partition())
            continue
        values.append(orjson.loads(m.value()))
    c.close()
    return values
