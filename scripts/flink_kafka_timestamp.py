"""Record which Kafka record timestamp Apache Flink 2.3's ``kafka`` / ``upsert-kafka`` sinks write.

Writes ``tests/integration/kafka_timestamp_flink.json``: per scenario the sink DDL, the INSERT,
and per output record its key, value, timestamp type and timestamp — the timestamp as ``"now"``
when it lies within the Flink run (the producer's clock: Kafka's CreateTime set at send), else
the exact milliseconds (``tests/integration/test_kafka_sink_timestamp.py`` runs the same
statements here and must give the same records).

The source topic holds five JSON records written with CreateTime timestamps 2023-11-14 22:13:20Z
+ i s (``1700000000000 + 1000 * i``), read by Flink as a ``timestamp`` metadata column, with and
without a watermark on it. The scenarios cover a sink without metadata (rowtime in the input or
not), a sink declaring ``METADATA FROM 'timestamp'`` (set, NULL, VIRTUAL), upsert-kafka with and
without it, and a window aggregate.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL
connector jar ``org.apache.flink:flink-sql-connector-kafka:5.0.0-2.2`` (as cached by
``benchmarks/flink_setup.py``), and this project's venv for the Kafka client (producing the
source, reading the results): ``.venv/bin/python``. Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_kafka_timestamp.py [SCENARIO ...]

(named scenarios: only those run again; the file keeps the others' records).
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid

from flink_session import ROOT, java_messages, kafka_jar, run_client, table_env

OUT = ROOT / "tests" / "integration" / "kafka_timestamp_flink.json"
T0 = 1_700_000_000_000
SOURCE = [{"id": i, "v": f"v{i}"} for i in range(5)]

#: ``{src}``, ``{bootstrap}``, ``{topic}`` are filled in; every sink topic is new per scenario.
SOURCE_DDL = ("CREATE TABLE {name} (id INT, v STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'{wm}) "
              "WITH ('connector' = 'kafka', 'topic' = '{src}', "
              "'properties.bootstrap.servers' = '{bootstrap}', 'scan.startup.mode' = 'earliest-offset', "
              "'scan.bounded.mode' = 'latest-offset', 'format' = 'json')")
KAFKA = ("WITH ('connector' = 'kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = '{bootstrap}', "
         "'format' = 'json')")
UPSERT = ("WITH ('connector' = 'upsert-kafka', 'topic' = '{topic}', 'properties.bootstrap.servers' = "
          "'{bootstrap}', 'key.format' = 'json', 'value.format' = 'json')")
TS_SINK = "id INT, v STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'"
SCENARIOS = [
    {"name": "kafka_no_rowtime", "sink": "id INT, v STRING", "with": KAFKA,
     "insert": "SELECT id, v FROM src_plain"},
    {"name": "kafka_rowtime_dropped", "sink": "id INT, v STRING", "with": KAFKA,
     "insert": "SELECT id, v FROM src"},
    {"name": "kafka_rowtime_column", "sink": "id INT, v STRING, ts TIMESTAMP_LTZ(3)", "with": KAFKA,
     "insert": "SELECT id, v, ts FROM src"},
    {"name": "kafka_metadata", "sink": TS_SINK,
     "with": KAFKA, "insert": "SELECT id, v, TO_TIMESTAMP_LTZ(1600000000000 + id, 3) FROM src_plain"},
    {"name": "kafka_metadata_rowtime", "sink": TS_SINK,
     "with": KAFKA, "insert": "SELECT id, v, ts FROM src"},
    {"name": "kafka_metadata_null", "sink": TS_SINK,
     "with": KAFKA, "insert": "SELECT id, v, CAST(NULL AS TIMESTAMP_LTZ(3)) FROM src"},
    {"name": "kafka_metadata_virtual",
     "sink": "id INT, v STRING, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp' VIRTUAL", "with": KAFKA,
     "insert": "SELECT id, v FROM src"},
    {"name": "kafka_metadata_alias", "sink": "id INT, v STRING, t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'",
     "with": KAFKA, "insert": "SELECT id, v, ts FROM src_plain"},
    {"name": "kafka_metadata_key", "sink": "id INT, v STRING, `timestamp` TIMESTAMP_LTZ(3) METADATA",
     "with": KAFKA, "insert": "SELECT id, v, ts FROM src_plain"},
    {"name": "kafka_headers",
     "sink": "id INT, v STRING, h MAP<STRING, BYTES> METADATA FROM 'headers', "
             "t TIMESTAMP_LTZ(3) METADATA FROM 'timestamp'", "with": KAFKA,
     "insert": "SELECT id, v, MAP['k', CAST(v AS BYTES), 'id', CAST(CAST(id AS STRING) AS BYTES)], ts "
               "FROM src_plain"},
    {"name": "kafka_metadata_readonly", "sink": "id INT, v STRING, o BIGINT METADATA FROM 'offset'",
     "with": KAFKA,
     "insert": "SELECT id, v, CAST(id AS BIGINT) FROM src_plain"},
    {"name": "upsert_no_metadata", "sink": "id INT, c BIGINT, PRIMARY KEY (id) NOT ENFORCED", "with": UPSERT,
     "insert": "SELECT id, COUNT(*) FROM src GROUP BY id"},
    {"name": "upsert_metadata",
     "sink": "id INT, c BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', PRIMARY KEY (id) NOT ENFORCED",
     "with": UPSERT, "insert": "SELECT id, COUNT(*), MAX(ts) FROM src GROUP BY id"},
    # Epoch 0 is a valid CreateTime for Flink's Java producer; librdkafka reads 0 as "now".
    {"name": "kafka_metadata_epoch", "sink": TS_SINK, "with": KAFKA,
     "insert": "SELECT id, v, TO_TIMESTAMP_LTZ(id, 3) FROM src_plain"},
    {"name": "upsert_metadata_epoch",
     "sink": "id INT, c BIGINT, ts TIMESTAMP_LTZ(3) METADATA FROM 'timestamp', PRIMARY KEY (id) NOT ENFORCED",
     "with": UPSERT, "insert": "SELECT id, COUNT(*), TO_TIMESTAMP_LTZ(MAX(id), 3) FROM src GROUP BY id"},
    {"name": "window_rowtime", "sink": "ws TIMESTAMP(3), we TIMESTAMP(3), wt TIMESTAMP_LTZ(3), c BIGINT",
     "with": KAFKA,
     "insert": "SELECT window_start, window_end, window_time, COUNT(*) FROM TABLE(TUMBLE(TABLE src, "
               "DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY window_start, window_end, window_time"},
]

_CLIENT = r'''
import json, sys, time
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
cmd, bootstrap = sys.argv[1], sys.argv[2]
if cmd == "create":
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = sys.argv[3:]
    # retention.ms = -1: the 2023 records would go at the broker's next retention check (24 h).
    for f in admin.create_topics([NewTopic(t, 1, 1, config={"retention.ms": "-1"}) for t in topics]).values():
        f.result(60)
    time.sleep(1)
elif cmd == "produce":
    p = Producer({"bootstrap.servers": bootstrap})
    for i, rec in enumerate(json.loads(sys.argv[4])):
        value = json.dumps(rec, separators=(",", ":")).encode()
        p.produce(sys.argv[3], value, timestamp=int(sys.argv[5]) + 1000 * i)
    p.flush(30)
else:  # dump
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dump", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    lo, hi = c.get_watermark_offsets(TopicPartition(sys.argv[3], 0), timeout=10)
    c.assign([TopicPartition(sys.argv[3], 0, lo)])
    out = []
    while len(out) < hi - lo:
        m = c.poll(5)
        if m is None:
            break
        if m.error():
            continue
        k, v = m.key(), m.value()
        rec = [None if k is None else k.decode(), None if v is None else v.decode(), m.timestamp()[0],
               m.timestamp()[1]]
        if m.headers():
            rec.append([[hk, None if hv is None else hv.decode()] for hk, hv in m.headers()])
        out.append(rec)
    print(json.dumps(out))
'''


def _client(*args: str) -> str:
    """Run :data:`_CLIENT` with ``args``; its stdout."""
    return run_client(_CLIENT, *args)


def main(names: list[str]) -> int:
    """Produce the source, run the scenarios on Flink, dump the sink topics, write :data:`OUT`.

    ``names``: only these scenarios run, the others keep their records from :data:`OUT`; [] runs all.
    """
    from py4j.protocol import Py4JJavaError

    unknown = set(names) - {s["name"] for s in SCENARIOS}
    if unknown:
        msg = f"unknown scenarios: {sorted(unknown)}"
        raise SystemExit(msg)
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    run = uuid.uuid4().hex[:8]
    src = f"flink-ts-src-{run}"
    topics = {s["name"]: f"flink-ts-{s['name'].replace('_', '-')}-{run}" for s in SCENARIOS
              if not names or s["name"] in names}
    _client("create", bootstrap, src, *topics.values())
    _client("produce", bootstrap, src, json.dumps(SOURCE), str(T0))
    kept = {s["name"]: s for s in json.loads(OUT.read_text())["scenarios"]} if names else {}
    results = []
    for s in SCENARIOS:
        if names and s["name"] not in names:
            if s["name"] in kept:
                results.append(kept[s["name"]])
            continue
        t = table_env(kafka_jar(), utc=True)
        wm = ", WATERMARK FOR ts AS ts"
        t.execute_sql(SOURCE_DDL.format(name="src", wm=wm, src=src, bootstrap=bootstrap))
        t.execute_sql(SOURCE_DDL.format(name="src_plain", wm="", src=src, bootstrap=bootstrap))
        t.execute_sql(f"CREATE TABLE snk ({s['sink']}) " + s["with"].format(topic=topics[s["name"]],
                                                                            bootstrap=bootstrap))
        start = int(time.time() * 1000)
        try:
            t.execute_sql(f"INSERT INTO snk {s['insert']}").wait()
        except Py4JJavaError as e:
            results.append({**s, "error": java_messages(e)[0]})
            print(s["name"], results[-1]["error"], file=sys.stderr)
            continue
        end = int(time.time() * 1000)
        records = json.loads(_client("dump", bootstrap, topics[s["name"]]))
        for r in records:
            if isinstance(r[3], int) and start <= r[3] <= end:
                r[3] = "now"
        results.append({**s, "records": records})
        print(s["name"], records, file=sys.stderr)
    doc = {"about": "Kafka record timestamps Apache Flink 2.3 (flink-sql-connector-kafka 5.0.0-2.2) writes, "
                    "from scripts/flink_kafka_timestamp.py",
           "source_ddl": SOURCE_DDL, "source": SOURCE, "t0": T0, "scenarios": results}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
