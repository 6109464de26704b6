"""Record Apache Flink 2.3's TO_CHANGELOG over an ``upsert-kafka`` source (its ChangelogNormalize).

Writes ``tests/integration/changelog_ptf_kafka_flink.json``: the records produced into a
one-partition topic (:data:`RECORDS`: key ``id``, value ``name`` or None for a tombstone) and, per
query of :data:`QUERIES` over the bounded upsert table ``ups``, the rows Flink gave in order
(``[kind, op, id, name]``). ``tests/integration/test_changelog_ptf_kafka.py`` produces the same
records into a fresh topic, runs the same queries into an append Kafka topic and must write
Flink's op-coded rows in the same order.

Needs the broker (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL connector jar (as cached by
``benchmarks/flink_setup.py``) and this project's venv for the Kafka client (``CLIENT_PYTHON`` names
it when the checkout has no ``.venv``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_changelog_ptf_kafka.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "integration" / "changelog_ptf_kafka_flink.json"

#: ``[id, name or None (a tombstone)]`` in one partition: an update, a delete, an identical value
#: again, a tombstone of an unknown key.
RECORDS = [[1, "a"], [2, "b"], [1, "c"], [2, None], [3, "d"], [1, "c"], [3, "e"], [9, None]]
QUERIES = {
    "default": "SELECT * FROM TO_CHANGELOG(input => TABLE ups)",
    "mapped": "SELECT * FROM TO_CHANGELOG(TABLE ups, DESCRIPTOR(op), "
              "MAP['INSERT, UPDATE_AFTER', 'upsert', 'DELETE', 'delete'])",
}
DDL = ("CREATE TABLE ups (id INT, name STRING, PRIMARY KEY (id) NOT ENFORCED) WITH ("
       "'connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
       "'key.format' = 'json', 'value.format' = 'json', 'scan.bounded.mode' = 'latest-offset')")

def main() -> int:
    """Produce :data:`RECORDS`, run :data:`QUERIES` on Flink, write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    topic = f"flink-changelog34-{uuid.uuid4().hex[:8]}"
    produce_json(bootstrap, topic, [[None if v is None else {"id": k, "name": v}, [], {"id": k}]
                                    for k, v in RECORDS])
    t = table_env(kafka_jar())
    t.execute_sql(DDL.format(topic=topic, bootstrap=bootstrap))
    out = {"records": RECORDS, "queries": {}}
    for name, query in QUERIES.items():
        out["queries"][name] = {"query": query, "rows": collect(t, query, kinds=True)}
        print(name, len(out["queries"][name]["rows"]), flush=True)
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
