"""Record what Apache Flink 2.3 does with ``'topic-pattern'`` and ``'scan.bounded.*'`` on ``upsert-kafka``.

Writes ``tests/integration/upsert_bounded_flink.json``: the records produced (:data:`RECORDS`, per
topic: key, value or None for a tombstone, timestamp offset in ms from :data:`T0`) and, per
scenario, the DDL (``{a}``, ``{b}``, ``{prefix}``, ``{group}``, ``{bootstrap}``, ``{t0}`` filled
in) and either the changelog Flink's bounded read gave (``[kind, k, v]`` rows, sorted: rows of
different topics interleave in any order) or Flink's error (the innermost cause's message).
``tests/integration/test_upsert_kafka_bounded.py`` replays the same records into fresh topics and
must give the same rows and refuse the same scenarios.

Flink's ``UpsertKafkaDynamicTableFactory`` (flink-connector-kafka 5.0) lists ``topic-pattern``,
``scan.bounded.mode``, ``scan.bounded.specific-offsets`` and ``scan.bounded.timestamp-millis``
among its optional options and validates them with ``KafkaConnectorOptionsUtil
.validateScanBoundedMode``; the read always starts at the earliest offset.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL connector
jar (as cached by ``benchmarks/flink_setup.py``) and this project's venv for the Kafka client; name
scenarios to rerun only those (the others are kept from the file)::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_upsert_bounded.py [SCENARIO ...]
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, java_messages, kafka_jar, run_client, table_env

OUT = ROOT / "tests" / "integration" / "upsert_bounded_flink.json"
T0 = 1_700_000_000_000

#: Per topic (``a``, ``b``): ``[key k, value v or None (tombstone), ms after T0]``.
RECORDS = {
    "a": [["k1", 1, 0], ["k2", 2, 1000], ["k1", 3, 2000], ["k2", None, 3000], ["k3", 5, 4000],
          ["k1", 6, 5000]],
    "b": [["k4", 10, 0], ["k4", 11, 1000], ["k5", 12, 2000]],
}
#: The committed offset of ``{group}`` on topic ``a`` partition 0 (for ``group-offsets``).
GROUP_OFFSET = 5

COLS = "k STRING, v INT, PRIMARY KEY (k) NOT ENFORCED"
BASE = ("'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '{bootstrap}', "
        "'key.format' = 'json', 'value.format' = 'json'")
LATEST = "'scan.bounded.mode' = 'latest-offset'"
SCENARIOS = [
    {"name": "pattern_latest", "with": "'topic-pattern' = '{prefix}-[ab]', " + LATEST},
    {"name": "topic_list_latest", "with": "'topic' = '{a};{b}', " + LATEST},
    {"name": "timestamp", "with": "'topic' = '{a}', 'scan.bounded.mode' = 'timestamp', "
                                  "'scan.bounded.timestamp-millis' = '{t0_plus_3000}'"},
    {"name": "pattern_timestamp",
     "with": "'topic-pattern' = '{prefix}-[ab]', 'scan.bounded.mode' = 'timestamp', "
             "'scan.bounded.timestamp-millis' = '{t0_plus_1500}'"},
    {"name": "specific_offsets", "with": "'topic' = '{a}', 'scan.bounded.mode' = 'specific-offsets', "
                                         "'scan.bounded.specific-offsets' = 'partition:0,offset:4'"},
    {"name": "group_offsets", "with": "'topic' = '{a}', 'properties.group.id' = '{group}', "
                                      "'scan.bounded.mode' = 'group-offsets'"},
    {"name": "pattern_specific_offsets_refused",
     "with": "'topic-pattern' = '{prefix}-[ab]', 'scan.bounded.mode' = 'specific-offsets', "
             "'scan.bounded.specific-offsets' = 'partition:0,offset:4'"},
    {"name": "topic_list_specific_offsets_refused",
     "with": "'topic' = '{a};{b}', 'scan.bounded.mode' = 'specific-offsets', "
             "'scan.bounded.specific-offsets' = 'partition:0,offset:4'"},
    {"name": "timestamp_missing_millis_refused",
     "with": "'topic' = '{a}', 'scan.bounded.mode' = 'timestamp'"},
    {"name": "specific_offsets_missing_refused",
     "with": "'topic' = '{a}', 'scan.bounded.mode' = 'specific-offsets'"},
    {"name": "sink_pattern_refused", "with": "'topic-pattern' = '{prefix}-[ab]'",
     "source": "CREATE TABLE src ({columns}) WITH ({base}, 'topic' = '{a}', " + LATEST + ")",
     "insert": "INSERT INTO u SELECT k, v FROM src"},
]

_CLIENT = r'''
import json, sys, time
from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
cmd, bootstrap = sys.argv[1], sys.argv[2]
if cmd == "create":
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, 1, 1, config={"retention.ms": "-1"})
                                  for t in sys.argv[3:]]).values():
        f.result(60)
    time.sleep(1)
elif cmd == "produce":  # topic, records json, t0
    p = Producer({"bootstrap.servers": bootstrap})
    for k, v, dt in json.loads(sys.argv[4]):
        value = None if v is None else json.dumps({"k": k, "v": v}, separators=(",", ":")).encode()
        p.produce(sys.argv[3], value, key=json.dumps({"k": k}, separators=(",", ":")).encode(),
                  timestamp=int(sys.argv[5]) + dt)
    p.flush(30)
else:  # commit: topic, group, offset
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": sys.argv[4], "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(sys.argv[3], 0, int(sys.argv[5]))], asynchronous=False)
    c.close()
'''


def client(*args: str) -> None:
    """Run :data:`_CLIENT` in this project's venv (``CLIENT_PYTHON`` to override)."""
    run_client(_CLIENT, *args)


def fill(text: str, names: dict[str, str]) -> str:
    """``text`` with the scenario placeholders filled in."""
    return text.format(**names, t0_plus_3000=T0 + 3000, t0_plus_1500=T0 + 1500)


def ddl(s: dict, names: dict[str, str]) -> str:
    """The scenario's CREATE TABLE (its ``with`` options after :data:`BASE`)."""
    return fill(f"CREATE TABLE u ({COLS}) WITH ({BASE}, {s['with']})", names)


def main(only: list[str]) -> int:
    """Produce :data:`RECORDS`, run every scenario (or those named in ``only``) and write :data:`OUT`."""
    from py4j.protocol import Py4JJavaError

    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    prefix = f"flink-upsert-bounded-{uuid.uuid4().hex[:8]}"
    names = {"a": f"{prefix}-a", "b": f"{prefix}-b", "prefix": prefix, "group": f"{prefix}-g",
             "bootstrap": bootstrap}
    client("create", bootstrap, names["a"], names["b"])
    for t in ("a", "b"):
        client("produce", bootstrap, names[t], json.dumps(RECORDS[t]), str(T0))
    client("commit", bootstrap, names["a"], names["group"], str(GROUP_OFFSET))
    old = {r["name"]: r for r in json.loads(OUT.read_text())["scenarios"]} if only else {}
    results = []
    for s in SCENARIOS:
        if only and s["name"] not in only:
            results.append(old[s["name"]])
            continue
        t = table_env(kafka_jar())
        record = dict(s)
        try:
            t.execute_sql(ddl(s, names))
            if "source" in s:
                t.execute_sql(fill(s["source"], {**names, "columns": COLS, "base": fill(BASE, names)}))
            if "insert" in s:
                t.execute_sql(s["insert"]).wait()
                record["rows"] = []
            else:
                record["rows"] = sorted(collect(t, "SELECT k, v FROM u", kinds=True))
        except Py4JJavaError as e:
            record["error"] = java_messages(e)[-1]
        print(s["name"], record.get("rows", record.get("error")), file=sys.stderr)
        results.append(record)
    OUT.write_text(json.dumps({"t0": T0, "records": RECORDS, "group_offset": GROUP_OFFSET,
                               "columns": COLS, "base": BASE, "scenarios": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
