"""Record what Apache Flink 2.3 does with ``'key.fields-prefix'`` on ``kafka`` and ``upsert-kafka``.

Writes ``tests/integration/key_prefix_flink.json``: per scenario the DDL and statement, and either
the records Flink's sink wrote (key, value), the rows Flink's source read back from them, or
Flink's error. ``tests/integration/test_kafka_key_prefix.py`` runs the same statements here and
must give the same records, rows and errors.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL connector
jar (see ``scripts/flink_kafka_timestamp.py``, whose client helpers this uses) and this project's
venv for the Kafka client. Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_key_prefix.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path

from flink_kafka_timestamp import _client, _jar

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "integration" / "key_prefix_flink.json"

#: ``{topic}`` and ``{bootstrap}`` are filled in.
KAFKA = ("'connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
         "'key.format' = 'json', 'key.fields-prefix' = 'k_', 'value.format' = 'json'")
UPSERT = ("'connector' = 'upsert-kafka', 'topic' = '{topic}', "
          "'properties.bootstrap.servers' = '{bootstrap}', "
          "'key.format' = 'json', 'key.fields-prefix' = 'k_', 'value.format' = 'json', "
          "'value.fields-include' = 'EXCEPT_KEY'")
VALUES = "(VALUES (1, 'x', 'a', 10), (2, 'y', 'b', 20), (1, 'x', 'c', 30)) AS t(id, part, v, n)"
SCENARIOS = [
    {"name": "kafka_sink",
     "ddl": "CREATE TABLE snk (k_id INT, k_part STRING, v STRING, n INT) WITH (" + KAFKA
            + ", 'key.fields' = 'k_id;k_part', 'value.fields-include' = 'EXCEPT_KEY')",
     "insert": f"INSERT INTO snk SELECT id, part, v, n FROM {VALUES}",
     "read": "SELECT k_id, k_part, v, n FROM snk"},
    {"name": "upsert_sink",
     "ddl": "CREATE TABLE snk (k_id INT, total INT, PRIMARY KEY (k_id) NOT ENFORCED) WITH (" + UPSERT + ")",
     "insert": f"INSERT INTO snk SELECT id, SUM(n) FROM {VALUES} GROUP BY id",
     "read": "SELECT k_id, total FROM snk"},
    {"name": "prefix_with_all",
     "ddl": "CREATE TABLE snk (k_id INT, v STRING) WITH (" + KAFKA + ", 'key.fields' = 'k_id')",
     "insert": "INSERT INTO snk VALUES (1, 'a')"},
    {"name": "key_field_not_prefixed",
     "ddl": "CREATE TABLE snk (id INT, v STRING) WITH (" + KAFKA
            + ", 'key.fields' = 'id', 'value.fields-include' = 'EXCEPT_KEY')",
     "insert": "INSERT INTO snk VALUES (1, 'a')"},
]


def _table_env():
    from pyflink.table import EnvironmentSettings, TableEnvironment

    t = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    config = t.get_config()
    config.set("parallelism.default", "1")
    config.set("pipeline.jars", _jar())
    return t


def main() -> int:
    """Run every scenario on Flink and write :data:`OUT`."""
    from py4j.protocol import Py4JJavaError

    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    run = uuid.uuid4().hex[:8]
    topics = {s["name"]: f"flink-prefix-{s['name'].replace('_', '-')}-{run}" for s in SCENARIOS}
    _client("create", bootstrap, *topics.values())
    results = []
    for s in SCENARIOS:
        fill = {"topic": topics[s["name"]], "bootstrap": bootstrap}
        t = _table_env()
        try:
            t.execute_sql(s["ddl"].format(**fill))
            t.execute_sql(s["insert"]).wait()
        except Py4JJavaError as e:
            cause = e.java_exception
            while cause.getCause() is not None:
                cause = cause.getCause()
            results.append({**s, "error": str(cause.getMessage())})
            print(s["name"], results[-1]["error"], file=sys.stderr)
            continue
        record = {**s, "records": [r[:2] for r in json.loads(_client("dump", bootstrap, fill["topic"]))]}
        if "read" in s:
            t = _table_env()
            start = ", 'scan.startup.mode' = 'earliest-offset'" if "'kafka'" in s["ddl"] else ""
            t.execute_sql(s["ddl"].format(**fill)[:-1] + start + ", 'scan.bounded.mode' = 'latest-offset')")
            with t.execute_sql(s["read"]).collect() as rows:
                record["rows"] = [[str(r.get_row_kind()), *[r[i] for i in range(len(r))]] for r in rows]
        results.append(record)
    OUT.write_text(json.dumps({"scenarios": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
