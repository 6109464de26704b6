"""Record what Apache Flink 2.3 does with ``'key.fields-prefix'`` on ``kafka`` and ``upsert-kafka``.

Writes ``tests/integration/key_prefix_flink.json``: per scenario the DDL and statement, and either
the records Flink's sink wrote (key, value), the rows Flink's source read back from them, or
Flink's error. ``tests/integration/test_kafka_key_prefix.py`` runs the same statements here and
must give the same records, rows and errors.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL connector
jar (as cached by ``benchmarks/flink_setup.py``) and this project's venv for the Kafka client
(``scripts/flink_kafka_timestamp.py``'s snippet). Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_key_prefix.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_kafka_timestamp import _client
from flink_session import ROOT, collect, java_messages, kafka_jar, table_env

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
        t = table_env(kafka_jar())
        try:
            t.execute_sql(s["ddl"].format(**fill))
            t.execute_sql(s["insert"]).wait()
        except Py4JJavaError as e:
            results.append({**s, "error": java_messages(e)[-1]})
            print(s["name"], results[-1]["error"], file=sys.stderr)
            continue
        record = {**s, "records": [r[:2] for r in json.loads(_client("dump", bootstrap, fill["topic"]))]}
        if "read" in s:
            t = table_env(kafka_jar())
            start = ", 'scan.startup.mode' = 'earliest-offset'" if "'kafka'" in s["ddl"] else ""
            t.execute_sql(s["ddl"].format(**fill)[:-1] + start + ", 'scan.bounded.mode' = 'latest-offset')")
            record["rows"] = collect(t, s["read"], kinds=True)
        results.append(record)
    OUT.write_text(json.dumps({"scenarios": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
