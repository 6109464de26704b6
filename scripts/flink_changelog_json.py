"""Record Apache Flink 2.3's answers for the ``canal-json``, ``maxwell-json``, ``ogg-json`` formats.

Writes ``tests/connectors/changelog_json_flink.json``, which
``tests/connectors/test_changelog_json_flink.py`` compares StreamSQL with. For each format:

- ``reads``: :data:`CANAL` / :data:`MAXWELL` / :data:`OGG` messages produced into a new
  one-partition topic, then read by Flink's ``kafka`` source (bounded) with each option set of
  :data:`READS`: the rows with their row kinds (physical columns, then the format's metadata
  columns as text), or the job's error (its messages, outermost first);
- ``writes``: the same topic read and written unchanged into a sink topic of the same format
  (and :data:`VALUES_SQL`'s typed row), whose messages are then read back as text by a ``raw``
  source: the bytes Flink's encoder wrote;
- ``avro``: the bytes Flink's ``avro`` format (``flink-sql-avro`` 2.3.0 from Maven Central) wrote
  for :data:`AVRO_SQL`'s rows (hex), and the rows Flink's ``avro`` source reads back from them.

Needs the broker of ``STREAMSQL_KAFKA_BOOTSTRAP`` (default 127.0.0.1:9092), the Kafka SQL connector
jar as cached by ``benchmarks/flink_setup.py``, and this project's venv for the Kafka client. Run::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_changelog_json.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, error_text, kafka_jar, maven_jar, produce_json, table_env

OUT = ROOT / "tests" / "connectors" / "changelog_json_flink.json"
COLUMNS = "id INT, name STRING, price DECIMAL(10, 2)"

_CANAL_META = {"database": "db", "table": "products", "es": 1700000000000, "ts": 1700000000123,
               "pkNames": ["id"], "sqlType": {"id": 4, "name": 12, "price": 3}, "isDdl": False}
#: Canal messages: inserts of two rows, an update of two rows (``old``: a changed field, a field
#: changed from NULL, nothing), a delete, a DDL event, other databases/tables, an unknown type.
CANAL = [
    {"data": [{"id": 1, "name": "a", "price": 1.5}, {"id": 2, "name": "b", "price": 2.25}], "old": None,
     "type": "INSERT", **_CANAL_META},
    {"data": [{"id": 1, "name": "a2", "price": 1.5}, {"id": 2, "name": "b", "price": 3.5},
              {"id": 3, "name": "c", "price": 4}],
     "old": [{"name": "a"}, {"price": None}, {}], "type": "UPDATE", **_CANAL_META},
    {"data": [{"id": 2, "name": "b", "price": 3.5}], "old": None, "type": "DELETE", **_CANAL_META},
    {"data": None, "old": None, "type": "CREATE", "sql": "CREATE TABLE products (id INT)",
     **{**_CANAL_META, "isDdl": True}},
    {"data": [{"id": 10, "name": "x", "price": 0}], "old": None, "type": "INSERT",
     **{**_CANAL_META, "database": "other"}},
    {"data": [{"id": 11, "name": "y", "price": 1}], "old": None, "type": "INSERT",
     **{**_CANAL_META, "table": "orders", "es": None}},
    {"data": [{"id": 12, "name": "z", "price": 2}], "type": "INSERT", "database": "db", "table": "products2"},
]
#: Canal messages Flink cannot read: an unknown type, then a JSON text that is no object.
CANAL_BAD = [
    {"data": [{"id": 20, "name": "t", "price": 1}], "type": "TRUNCATE", **_CANAL_META},
    "not an object",
    {"data": [{"id": 21, "name": "ok", "price": 1}], "type": "INSERT", **_CANAL_META},
]
_MAXWELL_META = {"database": "db", "table": "products", "ts": 1700000000, "xid": 7, "commit": True,
                 "primary_key_columns": ["id"]}
MAXWELL = [
    {"type": "insert", "data": {"id": 1, "name": "a", "price": 1.5}, **_MAXWELL_META},
    {"type": "insert", "data": {"id": 2, "name": "b", "price": 2.25}, **_MAXWELL_META},
    {"type": "update", "data": {"id": 1, "name": "a2", "price": 1.5}, "old": {"name": "a"}, **_MAXWELL_META},
    {"type": "update", "data": {"id": 2, "name": "b", "price": 3.5}, "old": {"price": None},
     **_MAXWELL_META},
    {"type": "delete", "data": {"id": 2, "name": "b", "price": 3.5}, **_MAXWELL_META},
    {"type": "insert", "data": {"id": 5, "name": "e", "price": 1}, "database": "other", "table": "t"},
]
MAXWELL_BAD = [
    {"type": "bootstrap-start", "data": {}, **_MAXWELL_META},
    "not an object",
    {"type": "insert", "data": {"id": 21, "name": "ok", "price": 1}, **_MAXWELL_META},
]
_OGG_META = {"table": "DB.PRODUCTS", "op_ts": "2023-11-14 22:13:20.000000",
             "current_ts": "2023-11-14T22:13:21.000000", "pos": "00000000000000000001",
             "primary_keys": ["ID"]}
#: Ogg messages: insert, update, delete.
OGG = [
    {"before": None, "after": {"id": 1, "name": "a", "price": 1.5}, "op_type": "I", **_OGG_META},
    {"before": {"id": 1, "name": "a", "price": 1.5}, "after": {"id": 1, "name": "a2", "price": 2},
     "op_type": "U", **_OGG_META},
    {"before": {"id": 1, "name": "a2", "price": 2}, "after": None, "op_type": "D", **_OGG_META},
]
#: Ogg messages Flink cannot read: an update without its before image, an unknown op_type, no object.
OGG_BAD = [
    {"before": None, "after": {"id": 2, "name": "b", "price": 1}, "op_type": "U", **_OGG_META},
    {"before": None, "after": {"id": 3, "name": "t", "price": 1}, "op_type": "T", **_OGG_META},
    "not an object",
    {"before": None, "after": {"id": 21, "name": "ok", "price": 1}, "op_type": "I", **_OGG_META},
]
#: Per format: metadata columns (``name TYPE METADATA FROM 'value.<key>'``) and their text in a query.
META = {
    "canal-json": (
        ["db STRING METADATA FROM 'value.database' VIRTUAL", "tb STRING METADATA FROM 'value.table' VIRTUAL",
         "st MAP<STRING, INT> METADATA FROM 'value.sql-type' VIRTUAL",
         "pk ARRAY<STRING> METADATA FROM 'value.pk-names' VIRTUAL",
         "its TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL",
         "ets TIMESTAMP_LTZ(3) METADATA FROM 'value.event-timestamp' VIRTUAL"],
        "db, tb, CARDINALITY(st), st['name'], CARDINALITY(pk), pk[1], CAST(its AS STRING), "
        "CAST(ets AS STRING)"),
    "maxwell-json": (
        ["db STRING METADATA FROM 'value.database' VIRTUAL", "tb STRING METADATA FROM 'value.table' VIRTUAL",
         "pk ARRAY<STRING> METADATA FROM 'value.primary-key-columns' VIRTUAL",
         "its TIMESTAMP_LTZ(3) METADATA FROM 'value.ingestion-timestamp' VIRTUAL"],
        "db, tb, CARDINALITY(pk), pk[1], CAST(its AS STRING)"),
    "ogg-json": ([], ""),
}
#: Per format: (case name, messages, extra WITH options, with metadata columns).
READS = {
    "canal-json": [
        ("plain", "good", {}, False),
        ("metadata", "good", {}, True),
        ("include", "good", {"canal-json.database.include": "db", "canal-json.table.include": "prod.*"},
         False),
        ("bad", "bad", {}, False),
        ("bad_ignored", "bad", {"canal-json.ignore-parse-errors": "true"}, False),
    ],
    "maxwell-json": [
        ("plain", "good", {}, False),
        ("metadata", "good", {}, True),
        ("bad", "bad", {}, False),
        ("bad_ignored", "bad", {"maxwell-json.ignore-parse-errors": "true"}, False),
    ],
    "ogg-json": [
        ("plain", "good", {}, False),
        ("bad", "bad", {}, False),
        ("bad_ignored", "bad", {"ogg-json.ignore-parse-errors": "true"}, False),
    ],
}
#: A typed insert-only row written by each format (with ISO-8601 timestamps and plain decimals).
VALUES_COLUMNS = "k INT, d DECIMAL(10, 3), ts TIMESTAMP(3), b BOOLEAN, m MAP<STRING, INT>, s STRING"
VALUES_SQL = ("SELECT 7, CAST(100.500 AS DECIMAL(10, 3)), TIMESTAMP '2024-05-01 10:00:00.120', TRUE, "
              "MAP['x', 1], 'q\"u'")


def iso_plain(fmt: str) -> dict:
    """``fmt``'s options for ISO-8601 timestamps and plain decimals."""
    return {f"{fmt}.timestamp-format.standard": "ISO-8601", f"{fmt}.encode.decimal-as-plain-number": "true"}


def _options(bootstrap: str, topic: str, fmt: str, extra: dict, bounded: bool = True) -> str:
    opts = {"connector": "kafka", "topic": topic, "properties.bootstrap.servers": bootstrap, "format": fmt,
            **extra}
    if bounded:
        opts.update({"scan.startup.mode": "earliest-offset", "scan.bounded.mode": "latest-offset"})
    return ", ".join(f"'{k}' = '{v}'" for k, v in opts.items())


def _read(t, bootstrap: str, topic: str, fmt: str, extra: dict, meta: bool) -> dict:
    name = f"src_{uuid.uuid4().hex[:6]}"
    cols, texts = META[fmt] if meta else ([], "")
    t.execute_sql(f"CREATE TABLE {name} ({', '.join([COLUMNS, *cols])}) WITH "
                  f"({_options(bootstrap, topic, fmt, extra)})")
    query = f"SELECT id, name, CAST(price AS STRING){', ' + texts if texts else ''} FROM {name}"
    try:
        return {"columns": [COLUMNS, *cols], "query": query, "rows": collect(t, query, kinds=True)}
    except Exception as e:  # noqa: BLE001  (PyFlink's wrappers)
        return {"columns": [COLUMNS, *cols], "query": query, "error": error_text(e)}


def _written(t, bootstrap: str, fmt: str, columns: str, select: str, extra: dict) -> list[str]:
    """Messages (text) Flink's ``fmt`` sink wrote for ``select``, read back by a ``raw`` source."""
    topic = f"formats35-flink-out-{uuid.uuid4().hex[:8]}"
    snk, raw = f"snk_{uuid.uuid4().hex[:6]}", f"raw_{uuid.uuid4().hex[:6]}"
    t.execute_sql(f"CREATE TABLE {snk} ({columns}) WITH ({_options(bootstrap, topic, fmt, extra, False)})")
    t.execute_sql(f"INSERT INTO {snk} {select}").wait()
    t.execute_sql(f"CREATE TABLE {raw} (v STRING) WITH ({_options(bootstrap, topic, 'raw', {})})")
    return [r[0] for r in collect(t, f"SELECT v FROM {raw}")]


#: The ``avro`` format: a table of every common type, rows written by Flink's sink (their bytes) and
#: read back by Flink's source.
AVRO_COLUMNS = ("id INT, name STRING, price DECIMAL(10, 2), ts TIMESTAMP(3), d DATE, b BOOLEAN, x DOUBLE, "
                "bs BYTES, big BIGINT, arr ARRAY<INT>, m MAP<STRING, BIGINT>, r ROW<a INT, s STRING>")
AVRO_SQL = ("SELECT * FROM (VALUES "
            "(1, 'a', CAST(1.50 AS DECIMAL(10, 2)), TIMESTAMP '2024-05-01 10:00:00.123', DATE '2024-05-01', "
            "TRUE, 2.5, X'0102ff', CAST(9000000000 AS BIGINT), ARRAY[1, 2], MAP['k', CAST(7 AS BIGINT)], "
            "ROW(3, 'z')), "
            "(2, CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10, 2)), CAST(NULL AS TIMESTAMP(3)), "
            "CAST(NULL AS DATE), CAST(NULL AS BOOLEAN), CAST(NULL AS DOUBLE), CAST(NULL AS BYTES), "
            "CAST(NULL AS BIGINT), CAST(NULL AS ARRAY<INT>), CAST(NULL AS MAP<STRING, BIGINT>), "
            "CAST(NULL AS ROW<a INT, s STRING>)), "
            "(3, '\u00e9t\u00e9', CAST(-12345678.99 AS DECIMAL(10, 2)), TIMESTAMP '1969-12-31 23:59:59.999', "
            "DATE '1900-01-01', FALSE, -0.0, X'', CAST(-1 AS BIGINT), ARRAY[CAST(NULL AS INT)], "
            "MAP['n', CAST(NULL AS BIGINT)], ROW(CAST(NULL AS INT), CAST(NULL AS STRING))))")
AVRO_READ = ("SELECT id, name, CAST(price AS STRING), CAST(ts AS STRING), CAST(d AS STRING), b, x, "
             "TO_BASE64(bs), big, CAST(arr AS STRING), m['k'], m['n'], r.a, r.s FROM {}")


def _avro(t, bootstrap: str) -> dict:
    """Flink's ``avro`` bytes of :data:`AVRO_SQL`'s rows (hex) and the rows its source reads back."""
    topic = f"formats35-flink-avro-{uuid.uuid4().hex[:8]}"
    sink = _options(bootstrap, topic, "avro", {}, False)
    t.execute_sql(f"CREATE TABLE avro_snk ({AVRO_COLUMNS}) WITH ({sink})")
    t.execute_sql(f"INSERT INTO avro_snk {AVRO_SQL}").wait()
    t.execute_sql(f"CREATE TABLE avro_raw (v BYTES) WITH ({_options(bootstrap, topic, 'raw', {})})")
    written = [bytes(r[0]).hex() for r in collect(t, "SELECT v FROM avro_raw")]
    t.execute_sql(f"CREATE TABLE avro_src ({AVRO_COLUMNS}) WITH ({_options(bootstrap, topic, 'avro', {})})")
    rows = collect(t, AVRO_READ.format("avro_src"))
    return {"columns": AVRO_COLUMNS, "sql": AVRO_SQL, "read": AVRO_READ, "written": written, "rows": rows}


def main() -> int:
    """Produce the messages, run every case on Flink, write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    t = table_env(kafka_jar(), maven_jar("org.apache.flink", "flink-sql-avro", "2.3.0"), utc=True)
    out = {}
    for fmt, good, bad in (("canal-json", CANAL, CANAL_BAD), ("maxwell-json", MAXWELL, MAXWELL_BAD),
                           ("ogg-json", OGG, OGG_BAD)):
        topics = {}
        for label, msgs in (("good", good), ("bad", bad)):
            topics[label] = f"formats35-flink-{fmt}-{label}-{uuid.uuid4().hex[:8]}"
            produce_json(bootstrap, topics[label], [[m, []] for m in msgs])
        reads = {name: {"messages": which, "options": extra, "metadata": meta,
                        **_read(t, bootstrap, topics[which], fmt, extra, meta)}
                 for name, which, extra, meta in READS[fmt]}
        src = f"pass_{fmt.replace('-', '_')}"
        t.execute_sql(f"CREATE TABLE {src} ({COLUMNS}) WITH ({_options(bootstrap, topics['good'], fmt, {})})")
        writes = {}
        for case, columns, select, extra in (
            ("changelog", COLUMNS, f"SELECT * FROM {src}", {}),
            ("values", VALUES_COLUMNS, VALUES_SQL, {}),
            ("values_iso_plain", VALUES_COLUMNS, VALUES_SQL, iso_plain(fmt)),
        ):
            try:
                writes[case] = _written(t, bootstrap, fmt, columns, select, extra)
            except Exception as e:  # noqa: BLE001  (PyFlink's wrappers)
                writes[case] = {"error": error_text(e)}
        out[fmt] = {"good": good, "bad": bad, "reads": reads, "writes": writes}
        print(json.dumps(out[fmt], indent=1), flush=True)
    try:
        out["avro"] = _avro(t, bootstrap)
    except Exception as e:  # noqa: BLE001  (PyFlink's wrappers)
        out["avro"] = {"error": error_text(e)}
    print(json.dumps(out["avro"], indent=1), flush=True)
    OUT.write_text(json.dumps({"flink": "2.3", "columns": COLUMNS, "values_columns": VALUES_COLUMNS,
                               "values_sql": VALUES_SQL, **out}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
