"""Record what Apache Flink 2.3 writes through an ``upsert-kafka`` sink and a temporal join reads back.

Writes ``tests/integration/upsert_temporal_flink.json``: the statements (``{rates}``, ``{orders}``,
``{bootstrap}`` and ``{buffer}`` to fill in) and, per scenario, the records Flink's sink left in
the rates topic (``[key, value or None]`` in offset order) and the rows of the event-time temporal
join over that topic read back as a versioned table (sorted). Scenarios:

- ``every_change``: no ``'sink.buffer-flush.*'`` option: Flink writes each of a key's 7 changes;
- ``buffered``: both options > 0 (``ReducingUpsertWriter``, flushed at the end of input here):
  each key's last change only, so the join finds fewer versions.

``tests/integration/test_upsert_temporal.py`` runs the same statements on fresh topics and must
give the same records and rows.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL connector
jar (as cached by ``benchmarks/flink_setup.py``) and a venv with confluent-kafka for the client
(``CLIENT_PYTHON``, default this project's ``.venv``)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_upsert_temporal.py
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, kafka_jar, run_client, table_env

OUT = ROOT / "tests" / "integration" / "upsert_temporal_flink.json"

BUFFER = {"every_change": "", "buffered": ", 'sink.buffer-flush.max-rows' = '1000', "
                                         "'sink.buffer-flush.interval' = '1 h'"}
KAFKA = "'properties.bootstrap.servers' = '{bootstrap}', 'scan.bounded.mode' = 'latest-offset'"
DDL = [
    "CREATE TABLE rates (currency STRING, rate INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts, "
    "PRIMARY KEY (currency) NOT ENFORCED) WITH ('connector' = 'upsert-kafka', 'topic' = '{rates}', "
    "'key.format' = 'json', 'value.format' = 'json', " + KAFKA + "{buffer})",
    "CREATE TABLE orders (id INT, currency STRING, ts TIMESTAMP(3), WATERMARK FOR ts AS ts) WITH ("
    "'connector' = 'kafka', 'topic' = '{orders}', 'format' = 'json', "
    "'scan.startup.mode' = 'earliest-offset', " + KAFKA + ")",
]
#: One INSERT each: a key's changes all in one job (one checkpoint epoch in StreamSQL).
INSERTS = [
    "INSERT INTO rates VALUES "
    + ", ".join(f"('EUR', {100 + i}, TIMESTAMP '2024-01-01 0{i}:00:00')" for i in range(7))
    + ", ('USD', 50, TIMESTAMP '2024-01-01 00:00:00'), ('USD', 51, TIMESTAMP '2024-01-01 03:00:00')"
    " ON CONFLICT DO DEDUPLICATE",  # Flink 2.3 asks for it: VALUES has no upsert key
    "INSERT INTO orders VALUES "
    + ", ".join(f"({i}, 'EUR', TIMESTAMP '2024-01-01 0{i}:30:00')" for i in range(7))
    + ", (10, 'USD', TIMESTAMP '2024-01-01 01:00:00'), (11, 'USD', TIMESTAMP '2024-01-01 04:00:00')",
]
QUERY = ("SELECT o.id, o.currency, r.rate FROM orders AS o "
         "JOIN rates FOR SYSTEM_TIME AS OF o.ts AS r ON o.currency = r.currency")

_CLIENT = r'''
import json, sys, time
from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
cmd, bootstrap = sys.argv[1], sys.argv[2]
if cmd == "create":
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, 1, 1) for t in sys.argv[3:]]).values():
        f.result(60)
    time.sleep(1)
else:  # read: every committed record of a one-partition topic, [key, value]
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "r", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "enable.partition.eof": True})
    c.assign([TopicPartition(sys.argv[3], 0, 0)])
    out = []
    while True:
        m = c.poll(10)
        if m is None or m.error():
            break
        out.append([m.key().decode(), None if m.value() is None else m.value().decode()])
    print(json.dumps(out))
'''


def main() -> int:
    """Run both scenarios on fresh topics and write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    scenarios = {}
    for name, buffer in BUFFER.items():
        prefix = f"flink-upsert-temporal-{uuid.uuid4().hex[:8]}"
        names = {"rates": f"{prefix}-rates", "orders": f"{prefix}-orders", "bootstrap": bootstrap,
                 "buffer": buffer}
        run_client(_CLIENT, "create", bootstrap, names["rates"], names["orders"])
        t = table_env(kafka_jar())
        for d in DDL:
            t.execute_sql(d.format(**names))
        for i in INSERTS:
            t.execute_sql(i).wait()
        records = json.loads(run_client(_CLIENT, "read", bootstrap, names["rates"]))
        rows = sorted(collect(t, QUERY))
        print(name, len(records), rows, file=sys.stderr)
        scenarios[name] = {"buffer": buffer, "records": records, "rows": rows}
    OUT.write_text(json.dumps({"ddl": DDL, "inserts": INSERTS, "query": QUERY, "scenarios": scenarios},
                              indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
