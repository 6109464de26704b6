"""Record which table options Apache Flink 2.3 (+ Kafka SQL connector 5.0.0-2.2) accepts, and its refusals.

Writes ``tests/integration/options_flink.json``: per scenario the DDL, the statement (an EXPLAIN,
which makes Flink create every table's source and sink and so validate their options, without a
broker; or an INSERT over a bounded datagen, run to its end, where the check needs the job's
parallelism, which EXPLAIN leaves at -1) and either ``"ok"`` or Flink's error (the messages of its
exception and its causes).
``tests/integration/test_options_flink.py`` runs the same statements here: what Flink accepts
must plan, what it refuses must be refused with a message containing the scenario's
``expect_error`` substrings (the author's, as the compat cases'). Run it through the shared lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_options.py
"""

from __future__ import annotations

import json
import sys

from flink_session import ROOT, error_text, kafka_jar, table_env

OUT = ROOT / "tests" / "integration" / "options_flink.json"

KAFKA = ("'connector' = 'kafka', 'topic' = 't', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
         "'format' = 'json'")
UPSERT = ("'connector' = 'upsert-kafka', 'topic' = 'u', 'properties.bootstrap.servers' = '127.0.0.1:9092', "
          "'key.format' = 'json', 'value.format' = 'json'")
SRC = ("CREATE TABLE src (id BIGINT, name STRING) WITH (" + KAFKA
       + ", 'scan.startup.mode' = 'earliest-offset'{})")
SNK = "CREATE TABLE snk (id BIGINT, name STRING) WITH (" + KAFKA + "{})"
UPS = "CREATE TABLE ups (id BIGINT, n BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH (" + UPSERT + "{})"
GEN = "CREATE TABLE gen (id BIGINT, name STRING) WITH ('connector' = 'datagen', 'number-of-rows' = '3'{})"
PRN = "CREATE TABLE prn (id BIGINT, n BIGINT) WITH ('connector' = 'print'{})"
HOLE = "CREATE TABLE hole (id BIGINT, name STRING) WITH ('connector' = 'blackhole'{})"
CDC = ("CREATE TABLE cdc (id BIGINT, n BIGINT{}) WITH (" + KAFKA.replace("'json'", "'debezium-json'")
       + ", 'scan.startup.mode' = 'earliest-offset', 'scan.parallelism' = '2')")
COPY = "EXPLAIN INSERT INTO snk SELECT id, name FROM src"

SCENARIOS = [
    {"name": "kafka_scan_and_sink_parallelism",
     "ddl": [SRC.format(", 'scan.parallelism' = '3'"), SNK.format(", 'sink.parallelism' = '2'")],
     "statement": COPY},
    {"name": "kafka_naming_pooling", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.transaction-naming-strategy' = 'POOLING'")], "statement": COPY},
    {"name": "kafka_naming_lower_case", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.transaction-naming-strategy' = 'pooling'")], "statement": COPY},
    {"name": "kafka_naming_incrementing", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.transaction-naming-strategy' = 'INCREMENTING'")], "statement": COPY},
    {"name": "kafka_naming_default", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.transaction-naming-strategy' = 'DEFAULT'")], "statement": COPY,
     "expect_error": ["'sink.transaction-naming-strategy' = 'DEFAULT'", "'INCREMENTING', 'POOLING'"]},
    {"name": "kafka_semantic_deprecated", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.semantic' = 'at-least-once'")], "statement": COPY},
    {"name": "kafka_sink_parallelism_zero", "ddl": [SRC.format(""), SNK.format(", 'sink.parallelism' = '0'")],
     "statement": COPY, "expect_error": ["Invalid configured parallelism 0 for table 'snk'."]},
    {"name": "kafka_sink_parallelism_word", "ddl": [SRC.format(""), SNK.format(
        ", 'sink.parallelism' = 'many'")], "statement": COPY,
     "expect_error": ["Could not parse value 'many' for key 'sink.parallelism'."]},
    {"name": "kafka_scan_parallelism_zero", "ddl": [SRC.format(", 'scan.parallelism' = '0'"), SNK.format("")],
     "statement": COPY, "expect_error": ["Invalid configured parallelism 0 for table 'src'."]},
    {"name": "kafka_source_only_sink_parallelism_zero",
     "ddl": [SRC.format(", 'sink.parallelism' = '0'"), SNK.format("")], "statement": COPY},
    {"name": "upsert_kafka_options", "ddl": [UPS.format(
        ", 'scan.parallelism' = '2', 'sink.parallelism' = '4', "
        "'sink.transaction-naming-strategy' = 'POOLING'")],
     "statement": "EXPLAIN INSERT INTO ups SELECT id, COUNT(*) FROM ups GROUP BY id"},
    {"name": "datagen_scan_parallelism", "ddl": [GEN.format(", 'scan.parallelism' = '2'"), SNK.format("")],
     "statement": "EXPLAIN INSERT INTO snk SELECT id, name FROM gen"},
    {"name": "print_sink_parallelism_updating_without_key",
     "ddl": [GEN.format(""), PRN.format(", 'sink.parallelism' = '2'")],
     "statement": "INSERT INTO prn SELECT id, COUNT(*) FROM gen GROUP BY id",
     "expect_error": ["The sink for table 'prn' has a configured parallelism of 2, while the input "
                      "parallelism is -1.", "a primary key is required but could not be found."]},
    {"name": "print_sink_parallelism_one_updating_without_key",
     "ddl": [GEN.format(""), PRN.format(", 'sink.parallelism' = '1'")],
     "statement": "INSERT INTO prn SELECT id, COUNT(*) FROM gen GROUP BY id",
     "expect_error": ["has a configured parallelism of 1, while the input parallelism is -1."]},
    {"name": "changelog_source_scan_parallelism_without_key", "ddl": [CDC.format(""), PRN.format("")],
     "statement": "EXPLAIN INSERT INTO prn SELECT id, n FROM cdc WHERE n > 0",
     "expect_error": ["Configured parallelism 2 for upsert table 'cdc' while can not find primary key "
                      "field."]},
    {"name": "print_sink_parallelism_of_the_keyed_changelog_source",
     "ddl": [CDC.format(", PRIMARY KEY (id) NOT ENFORCED"), PRN.format(", 'sink.parallelism' = '2'")],
     "statement": "EXPLAIN INSERT INTO prn SELECT id, n FROM cdc WHERE n > 0",
     "expect_error": ["has a configured parallelism of 2, while the input parallelism is -1."]},
    {"name": "filesystem_scan_parallelism_unsupported", "ddl": [
        "CREATE TABLE f (id BIGINT, name STRING) WITH ('connector' = 'filesystem', 'path' = '/tmp/none', "
        "'format' = 'json', 'scan.parallelism' = '2')", SNK.format("")],
     "statement": "EXPLAIN INSERT INTO snk SELECT id, name FROM f",
     "expect_error": ["unknown option 'scan.parallelism' for connector 'filesystem'"]},
    {"name": "blackhole_sink_parallelism", "ddl": [GEN.format(""), HOLE.format(", 'sink.parallelism' = '2'")],
     "statement": "EXPLAIN INSERT INTO hole SELECT id, name FROM gen",
     "expect_error": ["unknown option 'sink.parallelism' for connector 'blackhole'"]},
]


def main() -> int:
    """Run every scenario on Flink and write :data:`OUT`."""
    results = []
    for s in SCENARIOS:
        t = table_env(kafka_jar())
        try:
            for ddl in s["ddl"]:
                t.execute_sql(ddl)
            result = t.execute_sql(s["statement"])
            if s["statement"].startswith("INSERT"):
                result.wait()
            else:
                result.collect().close()
            results.append({**s, "flink": "ok"})
        except Exception as e:  # noqa: BLE001  (PyFlink raises its own wrappers and Py4JJavaError)
            results.append({**s, "flink": "error", "flink_error": error_text(e)})
        print(s["name"], results[-1].get("flink_error", "ok"), file=sys.stderr)
    OUT.write_text(json.dumps({"scenarios": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
