"""Record Apache Flink 2.3's answers to a Kafka source's ``headers`` and ``leader-epoch`` metadata columns.

Writes ``tests/connectors/kafka_read_metadata_flink.json``: the records (value, headers) produced
into a new one-partition topic, and per record the row Flink's ``kafka`` source read with
``hdr MAP<STRING, BYTES> METADATA FROM 'headers'`` and ``le INT METADATA FROM 'leader-epoch'``
(the map through its size and its entries' text: PyFlink cannot hand it to Python).
``tests/connectors/test_kafka_read_metadata.py`` produces the same records and must read the same
rows. The records cover no headers, one header, a key repeated (Flink keeps the last value), a
header without a value, and an empty value.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL
connector jar as cached by ``benchmarks/flink_setup.py``, and this project's venv for the Kafka
client (``.venv/bin/python``). Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_kafka_read_metadata.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, kafka_jar, produce_json, table_env

OUT = ROOT / "tests" / "connectors" / "kafka_read_metadata_flink.json"
#: ``[value, headers]``: headers as ``[key, text or null]`` pairs in the order they are written.
RECORDS = [
    [{"id": 1}, []],
    [{"id": 2}, [["a", "x"]]],
    [{"id": 3}, [["a", "first"], ["b", "y"], ["a", "last"]]],
    [{"id": 4}, [["n", None], ["e", ""]]],
]
#: PyFlink cannot hand a MAP<STRING, BYTES> to Python ("Ran out of input"): the map is read through
#: its size and its entries' text.
QUERY = ("SELECT id, hdr IS NULL, CARDINALITY(hdr), CAST(hdr['a'] AS STRING), CAST(hdr['b'] AS STRING), "
         "CAST(hdr['n'] AS STRING), CAST(hdr['e'] AS STRING), le FROM src")

def main() -> int:
    """Produce :data:`RECORDS`, read them with Flink, write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    topic = f"flink-read-metadata-{uuid.uuid4().hex[:8]}"
    produce_json(bootstrap, topic, RECORDS)
    t = table_env(kafka_jar())
    t.execute_sql(
        "CREATE TABLE src (id INT, hdr MAP<STRING, BYTES> METADATA FROM 'headers', "
        "le INT METADATA FROM 'leader-epoch' VIRTUAL) WITH ('connector' = 'kafka', "
        f"'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
        "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json')")
    got = sorted(collect(t, QUERY), key=lambda r: r[0])
    OUT.write_text(json.dumps({"records": RECORDS, "query": QUERY, "rows": got}, indent=1) + "\n")
    print(json.dumps(got))
    return 0


if __name__ == "__main__":
    sys.exit(main())
