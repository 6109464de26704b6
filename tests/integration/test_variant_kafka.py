"""VARIANT end to end from Kafka: a JSON object field read as STRING, PARSE_JSON, access, a sink.

The records are ``OBJECTS`` of ``scripts/flink_variant.py`` (``{"id": 1, "doc": {...}}``), which
Flink 2.3 read from a file with the same ``json`` format and query; its print lines are case
``objects`` of ``tests/functions/variant_flink.json``. Here they come from a Kafka topic, and the
job checkpoints as it goes.
"""

from __future__ import annotations

import json
import subprocess
import sys

from confluent_kafka import Producer

from tests.compat.changelog import fold
from tests.functions.test_variant import CASES, ORACLE, continued


def _script(topic: str, bootstrap: str, case: str, tmp_path) -> str:
    c = CASES[case]
    return "\n".join([
        "SET 'restart-strategy.type' = 'none';",
        "SET 'execution.checkpointing.interval' = '200 ms';",
        f"SET 'execution.checkpointing.dir' = '{tmp_path / 'chk'}';",
        f"CREATE TABLE obj ({ORACLE['objects_source']}) WITH ('connector' = 'kafka', 'topic' = '{topic}', "
        f"'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset');",
        f"CREATE TABLE p ({c['columns']}) WITH ('connector' = 'print');",
        f"INSERT INTO p {c['query']};",
    ]) + "\n"


def test_variant_from_a_kafka_json_field_is_flinks(kafka_bootstrap, kafka_topic_factory, tmp_path):
    topic = kafka_topic_factory("variant33-objects")
    p = Producer({"bootstrap.servers": kafka_bootstrap, "enable.idempotence": True})
    for record in ORACLE["objects"]:
        p.produce(topic, json.dumps(record).encode())
    assert p.flush(30) == 0
    for case in ("objects",):
        path = tmp_path / f"{case}.sql"
        path.write_text(_script(topic, kafka_bootstrap, case, tmp_path / case), encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "streamsql", "run", str(path)], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stdout + run.stderr
        lines = continued([ln for ln in run.stdout.splitlines() if not ln.startswith("[INFO]")])
        assert sorted(fold(lines)) == sorted(fold(continued(CASES[case]["lines"]))), case
