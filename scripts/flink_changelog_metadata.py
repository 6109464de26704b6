"""Record Apache Flink 2.3's metadata columns of the ``debezium-json`` and ``ogg-json`` formats.

Writes ``tests/connectors/changelog_metadata_flink.json``, which
``tests/connectors/test_changelog_metadata_flink.py`` compares StreamSQL with. Each case of
:data:`CASES` produces its messages into a new one-partition topic and reads them back with
Flink's ``kafka`` source (bounded) and the format, the physical columns :data:`COLUMNS` followed by
the format's metadata columns (``METADATA FROM 'value.<key>'``): the rows with their row kinds, the
metadata as text (``CAST(.. AS STRING)`` at session zone UTC), or the job's error (its messages,
outermost first).

Needs the broker of ``STREAMSQL_KAFKA_BOOTSTRAP`` (default 127.0.0.1:9092), the Kafka SQL connector
jar as cached by ``benchmarks/flink_setup.py``, and this project's venv for the Kafka client. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_changelog_metadata.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, error_text, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "connectors" / "changelog_metadata_flink.json"
COLUMNS = "id INT, name STRING, price DECIMAL(10, 2)"

_SOURCE = {"version": "2.4.0.Final", "connector": "mysql", "name": "srv", "ts_ms": 1700000000000,
           "snapshot": "false", "db": "inventory", "sequence": None, "table": "products", "server_id": 0,
           "file": "bin.000003", "pos": 4, "row": 0, "thread": None, "query": None,
           "extra": {"a": [1, "x"], "b": True}, "flag": False}
_SCHEMA = {"type": "struct", "fields": [{"type": "struct", "optional": True, "field": "before"}],
           "optional": False, "name": "srv.inventory.products.Envelope", "version": 1}
#: Debezium events: metadata present, partly present (Postgres' source: a schema, a string ts_ms),
#: absent; and a top-level ``schema`` beside the event (read by the ``schema`` key).
DEBEZIUM = [
    {"before": None, "after": {"id": 1, "name": "a", "price": 1.5}, "op": "c", "ts_ms": 1700000000123,
     "source": _SOURCE},
    {"before": {"id": 1, "name": "a", "price": 1.5}, "after": {"id": 1, "name": "a2", "price": 2},
     "op": "u", "ts_ms": 1700000001000,
     "source": {"connector": "postgresql", "db": "postgres", "schema": "public", "table": "products",
                "ts_ms": "1700000000999", "lsn": 123456789}},
    {"before": {"id": 1, "name": "a2", "price": 2}, "after": None, "op": "d"},
    {"schema": _SCHEMA, "before": None, "after": {"id": 2, "name": "b", "price": 3}, "op": "r",
     "ts_ms": None, "source": {}},
]
#: The same events in Debezium's ``{"schema", "payload"}`` envelope.
DEBEZIUM_ENVELOPED = [{"schema": _SCHEMA, "payload": {k: v for k, v in e.items() if k != "schema"}}
                      for e in DEBEZIUM]
#: Events whose metadata Flink cannot read: a ``source.ts_ms`` that is no number, then a good one.
DEBEZIUM_BAD = [
    {"before": None, "after": {"id": 5, "name": "e", "price": 1}, "op": "c", "source": {"ts_ms": "soon"}},
    {"before": None, "after": {"id": 6, "name": "f", "price": 1}, "op": "c", "ts_ms": 1700000002000,
     "source": {"ts_ms": 1700000002000, "db": "inventory", "table": "t"}},
]
_DEBEZIUM_META = (
    ["sch STRING METADATA FROM 'value.schema' VIRTUAL",
     "its TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL",
     "sts TIMESTAMP_LTZ(3) METADATA FROM 'value.source.timestamp' VIRTUAL",
     "sdb STRING METADATA FROM 'value.source.database' VIRTUAL",
     "ssc STRING METADATA FROM 'value.source.schema' VIRTUAL",
     "stb STRING METADATA FROM 'value.source.table' VIRTUAL",
     "sp MAP<STRING, STRING> METADATA FROM 'value.source.properties' VIRTUAL"],
    "sch, CAST(its AS STRING), CAST(sts AS STRING), sdb, ssc, stb, CARDINALITY(sp), sp['connector'], "
    "sp['pos'], sp['snapshot'], sp['thread'], sp['extra'], sp['flag'], sp['lsn']",
)
#: Without ``schema``: a table that does not read it (its events need no top-level schema).
_DEBEZIUM_META_NO_SCHEMA = (_DEBEZIUM_META[0][1:], _DEBEZIUM_META[1].replace("sch, ", ""))

_OGG_BASE = {"table": "DB.PRODUCTS", "pos": "00000000000000000001", "primary_keys": ["ID"]}
#: GoldenGate messages: op_ts in Flink's default text (6 and no fraction digits), current_ts in
#: ISO-8601 with 6 digits, in other shapes (java.sql's fallback: a space, a date alone; or nothing
#: Flink reads), and absent metadata.
OGG = [
    {"before": None, "after": {"id": 1, "name": "a", "price": 1.5}, "op_type": "I", **_OGG_BASE,
     "op_ts": "2023-11-14 22:13:20.123456", "current_ts": "2023-11-14T22:13:21.654321"},
    {"before": {"id": 1, "name": "a", "price": 1.5}, "after": {"id": 1, "name": "a2", "price": 2},
     "op_type": "U", **_OGG_BASE, "op_ts": "2023-11-14 22:13:20", "current_ts": "2023-11-14 22:13:21.5"},
    {"before": {"id": 1, "name": "a2", "price": 2}, "after": None, "op_type": "D",
     "current_ts": "2023-11-14"},
    {"before": None, "after": {"id": 2, "name": "b", "price": 3}, "op_type": "I", "table": "DB.OTHER",
     "primary_keys": ["ID", "NAME"], "op_ts": "2023-11-14 22:13:20.5", "current_ts": "yesterday"},
    {"before": None, "after": {"id": 3, "name": "c", "price": 4}, "op_type": "I", "table": None,
     "primary_keys": [], "op_ts": None, "current_ts": "2023-11-14T22:13:21.5"},
]
#: An op_ts Flink's default timestamp text does not read (ISO-8601's 'T'), then a good message.
OGG_BAD = [
    {"before": None, "after": {"id": 5, "name": "e", "price": 1}, "op_type": "I", **_OGG_BASE,
     "op_ts": "2023-11-14T22:13:20.123456", "current_ts": "2023-11-14T22:13:21.654321"},
    {"before": None, "after": {"id": 6, "name": "f", "price": 1}, "op_type": "I", **_OGG_BASE,
     "op_ts": "2023-11-14 22:13:20.123456", "current_ts": "2023-11-14T22:13:21.654321"},
]
_OGG_META = (
    ["tb STRING METADATA FROM 'value.table' VIRTUAL",
     "pk ARRAY<STRING> METADATA FROM 'value.primary-keys' VIRTUAL",
     "its TIMESTAMP_LTZ(6) METADATA FROM 'value.ingestion-timestamp' VIRTUAL",
     "ets TIMESTAMP_LTZ(6) METADATA FROM 'value.event-timestamp' VIRTUAL"],
    "tb, CARDINALITY(pk), pk[1], pk[2], CAST(its AS STRING), CAST(ets AS STRING)",
)

#: (case name, format, messages, extra WITH options, (metadata columns, their texts in the query)).
CASES = [
    ("debezium", "debezium-json", DEBEZIUM, {}, _DEBEZIUM_META),
    ("debezium_schema_include", "debezium-json", DEBEZIUM_ENVELOPED,
     {"debezium-json.schema-include": "true"}, _DEBEZIUM_META),
    ("debezium_bad", "debezium-json", DEBEZIUM_BAD, {}, _DEBEZIUM_META_NO_SCHEMA),
    ("debezium_bad_ignored", "debezium-json", DEBEZIUM_BAD, {"debezium-json.ignore-parse-errors": "true"},
     _DEBEZIUM_META_NO_SCHEMA),
    ("ogg", "ogg-json", OGG, {}, _OGG_META),
    ("ogg_bad", "ogg-json", OGG_BAD, {}, _OGG_META),
    ("ogg_bad_ignored", "ogg-json", OGG_BAD, {"ogg-json.ignore-parse-errors": "true"}, _OGG_META),
]


def _options(bootstrap: str, topic: str, fmt: str, extra: dict) -> str:
    opts = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": bootstrap, "format": fmt,
            "scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset", **extra}
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def _case(t, bootstrap: str, name: str, fmt: str, messages: list, extra: dict, meta: tuple) -> dict:
    topic = f"registry36-flink-{name.replace('_', '-')}-{uuid.uuid4().hex[:8]}"
    produce_json(bootstrap, topic, [[m, []] for m in messages])
    cols, texts = meta
    table = f"src_{uuid.uuid4().hex[:6]}"
    t.execute_sql(f"CREATE TABLE {table} ({', '.join([COLUMNS, *cols])}) WITH "
                  f"({_options(bootstrap, topic, fmt, extra)})")
    query = f"SELECT id, name, CAST(price AS STRING), {texts} FROM {table}"
    spec = {"format": fmt, "messages": messages, "options": extra, "columns": [COLUMNS, *cols],
            "query": query}
    try:
        spec["rows"] = collect(t, query, kinds=True)
    except Exception as e:  # noqa: BLE001  (PyFlink's wrappers)
        spec["error"] = error_text(e)
    return spec


def main() -> int:
    """Run every case of :data:`CASES` on Flink, write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    t = table_env(kafka_jar(), utc=True)
    out = {}
    for name, fmt, messages, extra, meta in CASES:
        out[name] = _case(t, bootstrap, name, fmt, messages, extra, meta)
        print(name, json.dumps(out[name].get("rows", out[name].get("error")), indent=1), flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "cases": out}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
