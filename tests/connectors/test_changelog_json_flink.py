"""The ``canal-json``, ``maxwell-json``, ``ogg-json`` and ``avro`` formats through real Kafka, as Flink 2.3.

All were refused (``unknown format 'canal-json'``). ``changelog_json_flink.json`` holds the
messages and what Flink 2.3 read from them (rows with their kinds, metadata columns, option sets,
its errors) and wrote (the sink's bytes), recorded by ``scripts/flink_changelog_json.py``; each
test produces the same messages into a topic of its own and runs the same SQL here.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import pytest
from confluent_kafka import Consumer, Producer

from streamsql import StreamEnvironment
from streamsql.core.errors import StreamSQLError

FLINK = json.loads((Path(__file__).parent / "changelog_json_flink.json").read_text())
FORMATS = ["canal-json", "maxwell-json", "ogg-json"]


def _produce(bootstrap: str, topic: str, messages: list) -> None:
    p = Producer({"bootstrap.servers": bootstrap})
    for m in messages:
        p.produce(topic, json.dumps(m).encode())
    p.flush(30)


def _options(bootstrap: str, topic: str, fmt: str, extra: dict, bounded: bool = True) -> str:
    opts = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": bootstrap, "format": fmt,
            **extra}
    if bounded:
        opts.update({"scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset"})
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def _env(tmp_path) -> StreamEnvironment:
    env = StreamEnvironment({"execution.checkpointing.dir": str(tmp_path / "chk")})
    env.execute_sql("SET 'table.local-time-zone' = 'UTC'")
    return env


def _plain(v):
    return str(v) if isinstance(v, Decimal) else v


CASES = [(fmt, name) for fmt in FORMATS for name in FLINK[fmt]["reads"]]


@pytest.mark.parametrize(("fmt", "case"), CASES, ids=[f"{f}-{c}" for f, c in CASES])
def test_read_as_flink(fmt, case, kafka_bootstrap, kafka_topic_factory, tmp_path):
    spec = FLINK[fmt]["reads"][case]
    topic = kafka_topic_factory(f"formats35-{fmt}-{case}")
    _produce(kafka_bootstrap, topic, FLINK[fmt][spec["messages"]])
    env = _env(tmp_path)
    cols = spec["columns"]
    query = spec["query"].replace(spec["query"].split(" FROM ")[-1], "src")
    env.execute_sql(f"CREATE TABLE src ({', '.join(cols)}) WITH "
                    f"({_options(kafka_bootstrap, topic, fmt, spec['options'])})")
    try:
        if "error" in spec:
            with pytest.raises(StreamSQLError) as e:
                list(env.execute_sql(query).collect())
            text = str(e.value)  # the first message fails, as in Flink, for the same reason
            assert f"{topic}[0]@0" in text and f"'{fmt}.ignore-parse-errors'" in text, text
            reason = {"ogg-json": ("'before'", "REPLICA IDENTITY")}.get(fmt, ('Unknown "type" value',) * 2)
            assert reason[0] in text and reason[1] in spec["error"], (text, spec["error"])
        else:
            rows = [[k.short, *map(_plain, r)] for k, r in env.execute_sql(query).collect()]
            assert rows == spec["rows"]
    finally:
        env.close()


def _consume(bootstrap: str, topic: str, n: int, text=lambda v: v.decode()) -> list[str]:
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": f"g-{topic}", "auto.offset.reset": "earliest",
                  "isolation.level": "read_committed"})
    c.subscribe([topic])
    out = []
    try:
        for _ in range(60):
            for m in c.consume(100, 1.0):
                if not m.error():
                    out.append(text(m.value()))
            if len(out) >= n:
                break
    finally:
        c.close()
    return out


@pytest.mark.parametrize("fmt", FORMATS)
def test_write_as_flink(fmt, kafka_bootstrap, kafka_topic_factory, tmp_path):
    """The bytes Flink's encoder wrote: a changelog passed through, a typed row (default and ISO/plain)."""
    writes = FLINK[fmt]["writes"]
    src = kafka_topic_factory(f"formats35-{fmt}-src")
    _produce(kafka_bootstrap, src, FLINK[fmt]["good"])
    env = _env(tmp_path)
    env.execute_sql("SET 'table.dml-sync' = 'true'")
    env.execute_sql(f"CREATE TABLE src ({FLINK['columns']}) WITH ({_options(kafka_bootstrap, src, fmt, {})})")
    iso = {f"{fmt}.timestamp-format.standard": "ISO-8601", f"{fmt}.encode.decimal-as-plain-number": "true"}
    try:
        for case, columns, select, extra in (
            ("changelog", FLINK["columns"], "SELECT * FROM src", {}),
            ("values", FLINK["values_columns"], FLINK["values_sql"], {}),
            ("values_iso_plain", FLINK["values_columns"], FLINK["values_sql"], iso),
        ):
            out = kafka_topic_factory(f"formats35-{fmt}-{case}")
            env.execute_sql(f"CREATE TABLE snk_{case} ({columns}) WITH "
                            f"({_options(kafka_bootstrap, out, fmt, extra, False)})")
            env.execute_sql(f"INSERT INTO snk_{case} {select}")
            assert _consume(kafka_bootstrap, out, len(writes[case])) == writes[case], case
    finally:
        env.close()


def test_avro_reads_flinks_bytes(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """Flink's ``avro`` messages for the rows of ``values_sql`` read back as Flink's source reads them."""
    spec = FLINK["avro"]
    topic = kafka_topic_factory("formats35-avro-read")
    p = Producer({"bootstrap.servers": kafka_bootstrap})
    for h in spec["written"]:
        p.produce(topic, bytes.fromhex(h))
    p.flush(30)
    env = _env(tmp_path)
    options = _options(kafka_bootstrap, topic, "avro", {})
    env.execute_sql(f"CREATE TABLE src ({spec['columns']}) WITH ({options})")
    try:
        rows = [list(map(_plain, r)) for _, r in env.execute_sql(spec["read"].format("src")).collect()]
    finally:
        env.close()
    assert rows == spec["rows"]


def test_avro_writes_flinks_bytes(kafka_bootstrap, kafka_topic_factory, tmp_path):
    """The ``avro`` sink writes, byte for byte, the datums Flink 2.3's ``avro`` format wrote."""
    spec = FLINK["avro"]
    topic = kafka_topic_factory("formats35-avro-write")
    env = _env(tmp_path)
    env.execute_sql("SET 'table.dml-sync' = 'true'")
    env.execute_sql(f"CREATE TABLE snk ({spec['columns']}) WITH "
                    f"({_options(kafka_bootstrap, topic, 'avro', {}, False)})")
    try:
        env.execute_sql(f"INSERT INTO snk {spec['sql']}")
    finally:
        env.close()
    got = _consume(kafka_bootstrap, topic, len(spec["written"]), bytes.hex)
    assert got == spec["written"]
