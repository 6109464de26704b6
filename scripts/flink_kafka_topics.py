"""Record Flink 2.3's Kafka sink ``topic`` metadata column and startup modes without a group id.

Flink 2.3 with the Kafka SQL connector 5.0.0-2.2: what it does with a sink's ``topic`` metadata
column, and with a source's startup mode when no ``'properties.group.id'`` is given.

Writes ``tests/integration/kafka_topics_flink.json``, read by
``tests/integration/test_kafka_topics_flink.py``, which runs the same statements here.

Sink scenarios (``"kind": "sink"``): a ``kafka`` / ``upsert-kafka`` sink whose ``'topic'`` lists
several topics (or whose ``'topic-pattern'`` is set) writes each row to the topic its ``topic``
metadata column names, and fails the job for a row naming another topic or none; with one topic in
``'topic'`` the column is ignored. Per scenario: the records each topic holds afterwards (key,
value), or Flink's error (the messages of the exception and its causes). Topic names are written as
the placeholders ``{a}``, ``{b}``, ``{c}`` (each run makes new topics); ``{x}`` names topics that
are never created (``alpha;beta;gamma;delta``: the error's list is in Java's ``HashSet`` order,
which the names decide).

Source scenarios (``"kind": "source"``): ``'scan.startup.mode'`` (and ``'scan.bounded.mode'``)
reading committed offsets without a group id: the rows a bounded read gives, or Flink's error.

Needs the broker of ``/work/services.env`` (``STREAMSQL_KAFKA_BOOTSTRAP``), the Kafka SQL
connector jar as cached by ``benchmarks/flink_setup.py``, and this project's venv for the Kafka
client (``.venv/bin/python``). Run it through the shared Flink lock::

    flock /tmp/flink.lock /work/flinkvenv/bin/python scripts/flink_kafka_topics.py [NAME ...]

With scenario names, only those run again (the others' records are kept from the file).
"""

from __future__ import annotations

import json
import os
import sys
import uuid

from flink_session import ROOT, collect, error_text, kafka_jar, run_client, table_env

OUT = ROOT / "tests" / "integration" / "kafka_topics_flink.json"

#: ``{opts}`` is filled in with the scenario's options, ``{bootstrap}`` with the broker.
KAFKA = "'connector' = 'kafka', 'properties.bootstrap.servers' = '{bootstrap}', 'format' = 'json'"
UPSERT = ("'connector' = 'upsert-kafka', 'properties.bootstrap.servers' = '{bootstrap}', "
          "'key.format' = 'json', 'value.format' = 'json'")
TOPIC_COL = "id INT, tp STRING METADATA FROM 'topic', v STRING"
SINKS = [
    {"name": "routed_by_column", "columns": TOPIC_COL, "with": KAFKA + ", 'topic' = '{a};{b}'",
     "insert": "VALUES (1, '{a}', 'x'), (2, '{b}', 'y'), (3, '{a}', 'z')"},
    {"name": "single_topic_ignores_column", "columns": TOPIC_COL, "with": KAFKA + ", 'topic' = '{a}'",
     "insert": "VALUES (1, '{b}', 'x'), (2, '{c}', 'y'), (3, CAST(NULL AS STRING), 'z')"},
    {"name": "topic_not_listed", "columns": TOPIC_COL, "with": KAFKA + ", 'topic' = '{a};{b}'",
     "insert": "VALUES (1, '{a}', 'x'), (2, '{c}', 'y')"},
    {"name": "topic_not_listed_fixed_names", "columns": TOPIC_COL,
     "with": KAFKA + ", 'topic' = 'alpha;beta;gamma;delta'", "insert": "VALUES (1, 'other', 'x')"},
    {"name": "null_topic", "columns": TOPIC_COL, "with": KAFKA + ", 'topic' = '{a};{b}'",
     "insert": "VALUES (1, CAST(NULL AS STRING), 'x')"},
    {"name": "pattern_routed", "columns": TOPIC_COL, "with": KAFKA + ", 'topic-pattern' = '{pattern}'",
     "insert": "VALUES (1, '{a}', 'x'), (2, '{b}', 'y')"},
    {"name": "pattern_not_matched", "columns": TOPIC_COL, "with": KAFKA + ", 'topic-pattern' = '{pattern}'",
     "insert": "VALUES (1, '{c}', 'x')"},
    {"name": "virtual_topic_several", "columns": "id INT, tp STRING METADATA FROM 'topic' VIRTUAL, v STRING",
     "with": KAFKA + ", 'topic' = '{a};{b}'", "insert": "(id, v) VALUES (1, 'x')"},
    {"name": "no_topic_option", "columns": TOPIC_COL, "with": KAFKA, "insert": "VALUES (1, '{a}', 'x')"},
    {"name": "not_null_column", "columns": "id INT, tp STRING NOT NULL METADATA FROM 'topic', v STRING",
     "with": KAFKA + ", 'topic' = '{a};{b}'", "insert": "VALUES (1, '{b}', 'x')"},
    {"name": "keyed_fixed_partitioner", "columns": TOPIC_COL,
     "with": KAFKA + ", 'topic' = '{a};{b}', 'key.format' = 'json', 'key.fields' = 'id', "
                     "'sink.partitioner' = 'fixed'",
     "insert": "VALUES (1, '{b}', 'x'), (2, '{a}', 'y')"},
    {"name": "upsert_routed", "columns": "id INT, tp STRING METADATA FROM 'topic', v STRING, "
                                         "PRIMARY KEY (id) NOT ENFORCED",
     "with": UPSERT + ", 'topic' = '{a};{b}'",
     "insert": "SELECT id, MAX(tp), MAX(v) FROM (VALUES (1, '{a}', 'x'), (2, '{b}', 'y'), (1, '{a}', 'z')) "
               "AS t(id, tp, v) GROUP BY id"},
    # one key to two topics in one run: each topic gets its row (an upsert topic per topic)
    {"name": "upsert_same_key_two_topics", "columns": "id INT, tp STRING METADATA FROM 'topic', v STRING, "
                                                      "PRIMARY KEY (id) NOT ENFORCED",
     "with": UPSERT + ", 'topic' = '{a};{b}'",
     "insert": "VALUES (1, '{a}', 'x'), (1, '{b}', 'y'), (2, '{b}', 'z'), (2, '{a}', 'w') "
               "ON CONFLICT DO DEDUPLICATE"},
]
#: The source topic {s} has two partitions: records id 0..2 in partition 0, 10..11 in partition 1.
SOURCE = {0: [0, 1, 2], 1: [10, 11]}
BOUNDED = "'scan.bounded.mode' = 'latest-offset'"
SOURCES = [
    {"name": "group_offsets_without_group", "with": "'scan.startup.mode' = 'group-offsets', " + BOUNDED},
    {"name": "default_startup_without_group", "with": BOUNDED},
    {"name": "specific_offsets_all_partitions_without_group",
     "with": "'scan.startup.mode' = 'specific-offsets', "
             "'scan.startup.specific-offsets' = 'partition:0,offset:1;partition:1,offset:1', " + BOUNDED},
    {"name": "specific_offsets_some_partitions_without_group",
     "with": "'scan.startup.mode' = 'specific-offsets', "
             "'scan.startup.specific-offsets' = 'partition:0,offset:1', " + BOUNDED},
    {"name": "bounded_group_offsets_without_group",
     "with": "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'group-offsets'"},
    {"name": "earliest_without_group", "with": "'scan.startup.mode' = 'earliest-offset', " + BOUNDED},
    # a bounded end for some partitions only: the others end at the group's committed offset, else
    # at the earliest (OffsetsInitializer.offsets: SpecifiedOffsetsInitializer, EARLIEST)
    {"name": "bounded_specific_offsets_some_partitions_without_group",
     "with": "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets', "
             "'scan.bounded.specific-offsets' = 'partition:0,offset:2'"},
    {"name": "bounded_specific_offsets_some_partitions_group_without_commits",
     "with": "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'specific-offsets', "
             "'scan.bounded.specific-offsets' = 'partition:0,offset:2', "
             "'properties.group.id' = 'never-committed'"},
    {"name": "bounded_group_offsets_group_without_commits",
     "with": "'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'group-offsets', "
             "'properties.group.id' = 'never-committed'"},
]

_CLIENT = r'''
import json, sys, time
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition, OFFSET_BEGINNING
from confluent_kafka.admin import AdminClient, NewTopic
cmd, bootstrap = sys.argv[1], sys.argv[2]
if cmd == "create":
    admin = AdminClient({"bootstrap.servers": bootstrap})
    specs = json.loads(sys.argv[3])
    for f in admin.create_topics([NewTopic(t, n, 1) for t, n in specs.items()]).values():
        f.result(60)
    time.sleep(1)
elif cmd == "produce":
    p = Producer({"bootstrap.servers": bootstrap})
    for part, ids in json.loads(sys.argv[4]).items():
        for i in ids:
            p.produce(sys.argv[3], json.dumps({"id": i}).encode(), partition=int(part))
    p.flush(30)
else:  # dump: every partition's records [partition, key, value]
    out = []
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "dump", "enable.auto.commit": False,
                  "enable.partition.eof": True})
    md = c.list_topics(sys.argv[3], timeout=10).topics[sys.argv[3]]
    parts = sorted(md.partitions)
    c.assign([TopicPartition(sys.argv[3], p, OFFSET_BEGINNING) for p in parts])
    ended, deadline = set(), time.monotonic() + 30
    while len(ended) < len(parts) and time.monotonic() < deadline:
        m = c.poll(1)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                ended.add(m.partition())
            continue
        k, v = m.key(), m.value()
        out.append([m.partition(), None if k is None else k.decode(), None if v is None else v.decode()])
    c.close()
    print(json.dumps(out))
'''


def _client(*args: str) -> str:
    """Run :data:`_CLIENT` with ``args``; its stdout."""
    return run_client(_CLIENT, *args)


def _hide(text: str, names: dict[str, str]) -> str:
    """``text`` with the run's topic names put back as their placeholders."""
    for key, topic in sorted(names.items(), key=lambda kv: -len(kv[1])):
        text = text.replace(topic, "{" + key + "}")
    return text


def run_sink(s: dict, bootstrap: str, run: str) -> dict:
    """One sink scenario on new topics {a}, {b}, {c} (1, 2 and 1 partitions)."""
    tag = s["name"].replace("_", "-")
    names = {k: f"flink-topics-{tag}-{k}-{run}" for k in "abc"}
    names["pattern"] = f"flink-topics-{tag}-[ab]-{run}"
    _client("create", bootstrap, json.dumps({names["a"]: 1, names["b"]: 2, names["c"]: 1}))
    fill = {**names, "bootstrap": bootstrap}
    t = table_env(kafka_jar())
    t.execute_sql(f"CREATE TABLE snk ({s['columns']}) WITH ({s['with'].format(**fill)})")
    out = {**s}
    try:
        t.execute_sql(f"INSERT INTO snk {s['insert'].format(**fill)}").wait()
    except Exception as e:  # noqa: BLE001  (PyFlink raises its own wrappers and Py4JJavaError)
        out["error"] = _hide(error_text(e), names)
    out["records"] = {k: json.loads(_client("dump", bootstrap, names[k])) for k in "abc"}
    return out


def run_source(s: dict, bootstrap: str, run: str) -> dict:
    """One source scenario over a new two-partition topic holding :data:`SOURCE`."""
    topic = f"flink-topics-src-{s['name'].replace('_', '-')}-{run}"
    _client("create", bootstrap, json.dumps({topic: 2}))
    _client("produce", bootstrap, topic, json.dumps(SOURCE))
    t = table_env(kafka_jar())
    t.execute_sql(f"CREATE TABLE src (id INT) WITH ({KAFKA.format(bootstrap=bootstrap)}, "
                  f"'topic' = '{topic}', {s['with']})")
    out = {**s}
    try:
        out["rows"] = sorted(r[0] for r in collect(t, "SELECT id FROM src"))
    except Exception as e:  # noqa: BLE001
        out["error"] = error_text(e).replace(topic, "{s}")
    return out


def main(only: list[str]) -> int:
    """Run every scenario (or those named in ``only``, kept with the others') and write :data:`OUT`."""
    bootstrap = os.environ.get("STREAMSQL_KAFKA_BOOTSTRAP", "127.0.0.1:9092")
    run = uuid.uuid4().hex[:8]
    old = json.loads(OUT.read_text()) if only else {"sinks": [], "sources": []}
    kept = {r["name"]: r for r in old["sinks"] + old["sources"]}
    sinks = [run_sink(s, bootstrap, run) if not only or s["name"] in only else kept[s["name"]] for s in SINKS]
    sources = [run_source(s, bootstrap, run) if not only or s["name"] in only else kept[s["name"]]
               for s in SOURCES]
    for r in sinks + sources:
        print(r["name"], r.get("error") or r.get("records") or r.get("rows"), file=sys.stderr)
    doc = {"about": "scripts/flink_kafka_topics.py on Flink 2.3 + flink-sql-connector-kafka 5.0.0-2.2",
           "kafka": KAFKA, "upsert": UPSERT, "source": SOURCE, "sinks": sinks, "sources": sources}
    OUT.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
